package io.bourse.engine;

import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TradingState;

/**
 * A tradable instrument: its number grid, limits, fees, trading state and order book.
 * <p>
 * The grid is chosen so that every on-grid order has an exact notional: {@code quotePerTickLot} quote
 * minor units per tick of price per lot of quantity, and {@code basePerLot} base minor units per lot.
 */
final class Instrument
{
    final int instrumentId;
    final OrderBook book;
    final StopOrders buyStops = new StopOrders(Side.BUY);
    final StopOrders sellStops = new StopOrders(Side.SELL);
    String symbol;
    Asset baseAsset;
    Asset quoteAsset;
    int priceScale;
    long tickSize;
    int quantityScale;
    long lotSize;
    long minQuantity;
    long maxQuantity;
    int priceBandBps;
    long referencePrice;
    int makerFeePpm;
    int takerFeePpm;
    TradingState tradingState;
    long lastTradePrice;
    /**
     * The highest and lowest trade price of the command being applied, for the stops they reach; 0 when it has made no
     * trade. Not state: every command that trades clears them before it ends.
     */
    long commandTradeHigh;
    long commandTradeLow;

    long quotePerTickLot;
    long basePerLot;
    long bandLowPrice;
    long bandHighPrice;

    Instrument(final int instrumentId, final OrderBook book)
    {
        this.instrumentId = instrumentId;
        this.book = book;
    }

    StopOrders stops(final Side side)
    {
        return side == Side.BUY ? buyStops : sellStops;
    }

    /**
     * @return whether any order is open on the instrument: resting, or a stop waiting for its trigger.
     */
    boolean hasOpenOrders()
    {
        return book.orderCount() > 0 || buyStops.size() > 0 || sellStops.size() > 0;
    }

    /**
     * @return price × quantity in quote minor units, or {@link Amounts#OVERFLOW}; price and quantity on the grid.
     */
    long notional(final long price, final long quantity)
    {
        final long tickLots = Amounts.multiply(price / tickSize, quantity / lotSize);
        return tickLots == Amounts.OVERFLOW ? Amounts.OVERFLOW : Amounts.multiply(tickLots, quotePerTickLot);
    }

    /**
     * @return the base minor units of a quantity on the lot grid, or {@link Amounts#OVERFLOW}.
     */
    long baseAmount(final long quantity)
    {
        return Amounts.multiply(quantity / lotSize, basePerLot);
    }

    /**
     * The quote needed to hold a buy of {@code quantity} at {@code price}: notional plus the largest fee it may be
     * charged. Linear in lots except for the fee's rounding down.
     */
    static long buyReservation(final long notional, final int feePpm)
    {
        return notional == Amounts.OVERFLOW ? Amounts.OVERFLOW : Amounts.add(notional, Amounts.fee(notional, feePpm));
    }

    boolean hasBand()
    {
        return bandHighPrice > 0;
    }

    boolean insideBand(final long price)
    {
        return bandHighPrice == 0 || (price >= bandLowPrice && price <= bandHighPrice);
    }

    /**
     * Recompute the band from the last trade price, or the configured reference before the first trade.
     */
    void updateBand()
    {
        final long reference = lastTradePrice > 0 ? lastTradePrice : referencePrice;
        if (priceBandBps == 0 || reference == 0)
        {
            bandLowPrice = 0;
            bandHighPrice = 0;
            return;
        }
        final long distance = Amounts.basisPoints(reference, priceBandBps);
        final long high = distance == Amounts.OVERFLOW ? Amounts.OVERFLOW : Amounts.add(reference, distance);
        bandHighPrice = high == Amounts.OVERFLOW ? Long.MAX_VALUE : high;
        bandLowPrice = Math.max(1, reference - distance);
    }
}
