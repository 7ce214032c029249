package io.bourse.gateway.http;

/**
 * An instrument as the gateway knows it, immutable: replaced whole when the instrument changes, so request threads
 * can read it while the gateway thread updates the map it lives in.
 */
record InstrumentView(
    int id, String symbol, int baseAssetId, String baseAsset, int baseScale, int quoteAssetId, String quoteAsset,
    int quoteScale, int priceScale, long tickSize, int quantityScale, long lotSize, long minQuantity, long maxQuantity,
    int priceBandBps, long referencePrice, int makerFeePpm, int takerFeePpm, String tradingState)
{
    String price(final long units)
    {
        return Decimals.format(units, priceScale);
    }

    String quantity(final long units)
    {
        return Decimals.format(units, quantityScale);
    }

    String quote(final long minorUnits)
    {
        return Decimals.format(minorUnits, quoteScale);
    }
}
