package io.bourse.gateway.http;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An instrument's trades minute by minute over the last 24 hours, for the ticker's rolling day and the candles: one
 * slot a minute, in a ring, each the open, high, low and close price, the quantity, the quote amount and the number of
 * trades of its minute. Owned by the gateway thread. Fixed size whatever the trade rate, and no allocation per trade.
 * <p>
 * The quote amount of a trade is price times quantity, exactly, in units of both scales together: a day of it can pass
 * a long (a price of 100,000.00 and a quantity of 1.00000000 is 10^15 such units), so it is summed in 128 bits.
 */
final class MinuteBars
{
    static final int MINUTES = 24 * 60;
    static final long MINUTE_NS = 60_000_000_000L;
    private static final long EMPTY = Long.MIN_VALUE;

    /**
     * The minute since the epoch each slot holds, or {@link #EMPTY}.
     */
    private final long[] minute = new long[MINUTES];
    private final long[] open = new long[MINUTES];
    private final long[] high = new long[MINUTES];
    private final long[] low = new long[MINUTES];
    private final long[] close = new long[MINUTES];
    private final long[] volume = new long[MINUTES];
    private final long[] trades = new long[MINUTES];
    private final long[] quoteHigh = new long[MINUTES];
    private final long[] quoteLow = new long[MINUTES];

    MinuteBars()
    {
        clear();
    }

    void clear()
    {
        Arrays.fill(minute, EMPTY);
    }

    /**
     * Count a trade. Trades come in the exchange's order; one older than its slot's minute is a day old and dropped.
     */
    void add(final long timestampNs, final long price, final long quantity)
    {
        final long tradeMinute = Math.floorDiv(timestampNs, MINUTE_NS);
        final int slot = (int)Math.floorMod(tradeMinute, (long)MINUTES);
        if (minute[slot] != tradeMinute)
        {
            if (minute[slot] > tradeMinute)
            {
                return;
            }
            minute[slot] = tradeMinute;
            open[slot] = price;
            high[slot] = price;
            low[slot] = price;
            volume[slot] = 0;
            trades[slot] = 0;
            quoteHigh[slot] = 0;
            quoteLow[slot] = 0;
        }
        high[slot] = Math.max(high[slot], price);
        low[slot] = Math.min(low[slot], price);
        close[slot] = price;
        volume[slot] += quantity;
        trades[slot]++;
        final long productLow = price * quantity;
        final long sumLow = quoteLow[slot] + productLow;
        quoteHigh[slot] += Math.multiplyHigh(price, quantity) + (Long.compareUnsigned(sumLow, productLow) < 0 ? 1 : 0);
        quoteLow[slot] = sumLow;
    }

    /**
     * Count the trades of another's minutes, all made before every trade counted here (the day's trades read from the
     * post-trade store, joined to those the gateway has seen since): within a minute both have, its open is the
     * other's and its close this one's.
     */
    void addEarlier(final MinuteBars earlier)
    {
        for (int slot = 0; slot < MINUTES; slot++)
        {
            final long earlierMinute = earlier.minute[slot];
            if (earlierMinute == EMPTY || earlierMinute < minute[slot])
            {
                continue;
            }
            if (earlierMinute > minute[slot])
            {
                minute[slot] = earlierMinute;
                open[slot] = earlier.open[slot];
                high[slot] = earlier.high[slot];
                low[slot] = earlier.low[slot];
                close[slot] = earlier.close[slot];
                volume[slot] = earlier.volume[slot];
                trades[slot] = earlier.trades[slot];
                quoteHigh[slot] = earlier.quoteHigh[slot];
                quoteLow[slot] = earlier.quoteLow[slot];
                continue;
            }
            open[slot] = earlier.open[slot];
            high[slot] = Math.max(high[slot], earlier.high[slot]);
            low[slot] = Math.min(low[slot], earlier.low[slot]);
            volume[slot] += earlier.volume[slot];
            trades[slot] += earlier.trades[slot];
            final long sumLow = quoteLow[slot] + earlier.quoteLow[slot];
            quoteHigh[slot] += earlier.quoteHigh[slot] + (Long.compareUnsigned(sumLow, quoteLow[slot]) < 0 ? 1 : 0);
            quoteLow[slot] = sumLow;
        }
    }

    /**
     * The trades of the minutes [fromMinute, toMinute] together, with the minute they start at.
     *
     * @param open  the first trade's price (and high, low, close as usual); all 0 when there was no trade.
     * @param quote price times quantity, summed, in units of the price's and the quantity's scales together.
     */
    record Bar(long startMinute, long open, long high, long low, long close, long volume, BigInteger quote, long trades)
    {
    }

    /**
     * @return the trades of the last 24 hours up to and including the minute of {@code nowNs}, as one bar.
     */
    Bar day(final long nowNs)
    {
        final long last = Math.floorDiv(nowNs, MINUTE_NS);
        return bar(last - MINUTES + 1, last);
    }

    /**
     * Candles of whole intervals within the last 24 hours, oldest first; an interval without a trade has none.
     *
     * @param intervalMinutes a divisor of a day's minutes (1, 5, 15, 60, ...): intervals start at multiples of it.
     * @param limit           the most recent this many at most.
     */
    List<Bar> candles(final long nowNs, final int intervalMinutes, final int limit)
    {
        final long last = Math.floorDiv(nowNs, MINUTE_NS);
        // The oldest whole interval that lies within the day.
        final long first = Math.floorDiv(last - MINUTES + 1 + intervalMinutes - 1, intervalMinutes) * intervalMinutes;
        final List<Bar> candles = new ArrayList<>();
        for (long start = Math.floorDiv(last, intervalMinutes) * intervalMinutes;
            start >= first && candles.size() < limit; start -= intervalMinutes)
        {
            final Bar bar = bar(start, Math.min(start + intervalMinutes - 1, last));
            if (bar.trades() > 0)
            {
                candles.add(bar);
            }
        }
        return candles.reversed();
    }

    private Bar bar(final long fromMinute, final long toMinute)
    {
        long barOpen = 0;
        long barHigh = Long.MIN_VALUE;
        long barLow = Long.MAX_VALUE;
        long barClose = 0;
        long barVolume = 0;
        long barTrades = 0;
        long sumHigh = 0;
        long sumLow = 0;
        for (long m = fromMinute; m <= toMinute; m++)
        {
            final int slot = (int)Math.floorMod(m, (long)MINUTES);
            if (minute[slot] != m)
            {
                continue;
            }
            if (barTrades == 0)
            {
                barOpen = open[slot];
            }
            barHigh = Math.max(barHigh, high[slot]);
            barLow = Math.min(barLow, low[slot]);
            barClose = close[slot];
            barVolume += volume[slot];
            barTrades += trades[slot];
            final long lowWords = sumLow + quoteLow[slot];
            sumHigh += quoteHigh[slot] + (Long.compareUnsigned(lowWords, sumLow) < 0 ? 1 : 0);
            sumLow = lowWords;
        }
        final BigInteger quote = BigInteger.valueOf(sumHigh).shiftLeft(64)
            .add(new BigInteger(Long.toUnsignedString(sumLow)));
        return barTrades == 0 ? new Bar(fromMinute, 0, 0, 0, 0, 0, BigInteger.ZERO, 0) :
            new Bar(fromMinute, barOpen, barHigh, barLow, barClose, barVolume, quote, barTrades);
    }
}
