package io.bourse.gateway.fix;

import java.util.Objects;

/**
 * An instrument as FIX sees it: Symbol (55) and the scales that turn FIX decimals into the engine's scaled longs.
 *
 * @param symbol           Symbol (55).
 * @param instrumentId     the engine's instrument id.
 * @param priceScale       decimal places of prices.
 * @param quantityScale    decimal places of quantities.
 * @param quoteAssetScale  decimal places of the quote asset, in which the engine reports executed notional.
 */
public record FixInstrument(String symbol, int instrumentId, int priceScale, int quantityScale, int quoteAssetScale)
{
    public FixInstrument
    {
        Objects.requireNonNull(symbol, "symbol");
        if (instrumentId <= 0 || priceScale < 0 || priceScale > 18 || quantityScale < 0 || quantityScale > 18 ||
            quoteAssetScale < 0 || quoteAssetScale > 18)
        {
            throw new IllegalArgumentException("invalid FIX instrument " + symbol);
        }
    }
}
