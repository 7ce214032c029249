package io.bourse.gateway.http;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An instrument's trades minute by minute over the last 24 hours, for the ticker's rolling day and the candles: one
 * slot a minute, in a ring, each the open, high, low and close price, the quantity, the quote amount and the number of
 * trades of its minute, and the first and last trade id, so that trades counted apart (the gateway's own, and those it
 * missed, read from the post-trade store) join in any order. Owned by the gateway thread. Fixed size whatever the trade
 * rate, and no allocation per trade.
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
    private final long[] firstTradeId = new long[MINUTES];
    private final long[] lastTradeId = new long[MINUTES];
    private final long[] open = new long[MINUTES];
    private final long[] high = new long[MINUTES];
    private final long[] low = new long[MINUTES];
    private final long[] close = new long[MINUTES];
    private final long[] volume = new long[MINUTES];
    private final long[] trades = new long[MINUTES];
    private final long[] quoteHigh = new long[MINUTES];
    private final long[] quoteLow = new long[MINUTES];
    /**
     * The day's minutes before its last one, summed, for the minute {@link #summedToMinute} (exclusive): the ticker is
     * sent after every batch, and the day's 1,439 closed minutes change only when a new minute starts or trades are
     * joined into them.
     */
    private final Accumulator closedMinutes = new Accumulator();
    private long summedToMinute = EMPTY;

    MinuteBars()
    {
        clear();
    }

    void clear()
    {
        Arrays.fill(minute, EMPTY);
        summedToMinute = EMPTY;
    }

    /**
     * Count a trade. A trade older than its slot's minute is a day old and dropped.
     */
    void add(final long tradeId, final long timestampNs, final long price, final long quantity)
    {
        final long tradeMinute = Math.floorDiv(timestampNs, MINUTE_NS);
        final int slot = (int)Math.floorMod(tradeMinute, (long)MINUTES);
        if (minute[slot] > tradeMinute)
        {
            return;
        }
        if (minute[slot] < tradeMinute)
        {
            minute[slot] = tradeMinute;
            firstTradeId[slot] = tradeId;
            lastTradeId[slot] = tradeId;
            open[slot] = price;
            high[slot] = price;
            low[slot] = price;
            close[slot] = price;
            volume[slot] = 0;
            trades[slot] = 0;
            quoteHigh[slot] = 0;
            quoteLow[slot] = 0;
        }
        if (tradeId < firstTradeId[slot])
        {
            firstTradeId[slot] = tradeId;
            open[slot] = price;
        }
        if (tradeId >= lastTradeId[slot])
        {
            lastTradeId[slot] = tradeId;
            close[slot] = price;
        }
        high[slot] = Math.max(high[slot], price);
        low[slot] = Math.min(low[slot], price);
        volume[slot] += quantity;
        trades[slot]++;
        final long productLow = price * quantity;
        final long sumLow = quoteLow[slot] + productLow;
        quoteHigh[slot] += Math.multiplyHigh(price, quantity) + (Long.compareUnsigned(sumLow, productLow) < 0 ? 1 : 0);
        quoteLow[slot] = sumLow;
        if (tradeMinute != summedToMinute)
        {
            // Into a minute the sum holds, or one whose slot held a minute it holds: summed again when next asked.
            summedToMinute = EMPTY;
        }
    }

    /**
     * Count the trades of another's minutes, none of which are counted here: within a minute both have, the open is
     * the lower trade id's and the close the higher's.
     */
    void join(final MinuteBars other)
    {
        for (int slot = 0; slot < MINUTES; slot++)
        {
            final long otherMinute = other.minute[slot];
            if (otherMinute == EMPTY || otherMinute < minute[slot])
            {
                continue;
            }
            if (otherMinute > minute[slot])
            {
                minute[slot] = otherMinute;
                firstTradeId[slot] = other.firstTradeId[slot];
                lastTradeId[slot] = other.lastTradeId[slot];
                open[slot] = other.open[slot];
                high[slot] = other.high[slot];
                low[slot] = other.low[slot];
                close[slot] = other.close[slot];
                volume[slot] = other.volume[slot];
                trades[slot] = other.trades[slot];
                quoteHigh[slot] = other.quoteHigh[slot];
                quoteLow[slot] = other.quoteLow[slot];
                continue;
            }
            if (other.firstTradeId[slot] < firstTradeId[slot])
            {
                firstTradeId[slot] = other.firstTradeId[slot];
                open[slot] = other.open[slot];
            }
            if (other.lastTradeId[slot] > lastTradeId[slot])
            {
                lastTradeId[slot] = other.lastTradeId[slot];
                close[slot] = other.close[slot];
            }
            high[slot] = Math.max(high[slot], other.high[slot]);
            low[slot] = Math.min(low[slot], other.low[slot]);
            volume[slot] += other.volume[slot];
            trades[slot] += other.trades[slot];
            final long sumLow = quoteLow[slot] + other.quoteLow[slot];
            quoteHigh[slot] += other.quoteHigh[slot] + (Long.compareUnsigned(sumLow, quoteLow[slot]) < 0 ? 1 : 0);
            quoteLow[slot] = sumLow;
        }
        summedToMinute = EMPTY;
    }

    /**
     * The trades of some minutes together, with the minute they start at.
     *
     * @param open the first trade's price (and high, low, close as usual); all 0 when there was no trade.
     */
    record Bar(long startMinute, long open, long high, long low, long close, long volume, long quoteHigh,
        long quoteLow, long trades)
    {
        /**
         * @return price times quantity, summed, in units of the price's and the quantity's scales together.
         */
        BigInteger quote()
        {
            return BigInteger.valueOf(quoteHigh).shiftLeft(64)
                .or(BigInteger.valueOf(quoteLow >>> 1).shiftLeft(1))
                .or(BigInteger.valueOf(quoteLow & 1));
        }
    }

    /**
     * @return the trades of the last 24 hours up to and including the minute of {@code nowNs}, as one bar.
     */
    Bar day(final long nowNs)
    {
        final long last = Math.floorDiv(nowNs, MINUTE_NS);
        final long first = firstMinute(last);
        if (summedToMinute != last)
        {
            closedMinutes.reset();
            for (long m = first; m < last; m++)
            {
                closedMinutes.add(this, m);
            }
            summedToMinute = last;
        }
        final Accumulator day = new Accumulator();
        day.addAll(closedMinutes);
        day.add(this, last);
        return day.bar(first);
    }

    /**
     * @return the start of the day ending with the minute of {@code nowNs}: its first minute's, in epoch nanoseconds.
     */
    static long dayStartNs(final long nowNs)
    {
        return firstMinute(Math.floorDiv(nowNs, MINUTE_NS)) * MINUTE_NS;
    }

    /**
     * @return the first minute of the day whose last is {@code lastMinute}.
     */
    private static long firstMinute(final long lastMinute)
    {
        return lastMinute - MINUTES + 1;
    }

    /**
     * Candles of whole intervals within the last 24 hours, oldest first; an interval without a trade has none.
     *
     * @param beforeNs        only intervals that start before it (Long.MAX_VALUE for all).
     * @param intervalMinutes a divisor of a day's minutes (1, 5, 15, 60, ...): intervals start at multiples of it.
     * @param limit           the most recent this many at most.
     */
    List<Bar> candles(final long nowNs, final long beforeNs, final int intervalMinutes, final int limit)
    {
        final long now = Math.floorDiv(nowNs, MINUTE_NS);
        // The start of the newest interval: one that starts before beforeNs, whose minutes are summed up to now.
        final long last = Math.min(now, Math.floorDiv(beforeNs - 1, MINUTE_NS));
        // The oldest whole interval that lies within the day.
        final long first = Math.floorDiv(firstMinute(now) + intervalMinutes - 1, intervalMinutes) * intervalMinutes;
        final List<Bar> candles = new ArrayList<>();
        final Accumulator interval = new Accumulator();
        for (long start = Math.floorDiv(last, intervalMinutes) * intervalMinutes;
            start >= first && candles.size() < limit; start -= intervalMinutes)
        {
            interval.reset();
            for (long m = start; m <= Math.min(start + intervalMinutes - 1, now); m++)
            {
                interval.add(this, m);
            }
            if (interval.trades > 0)
            {
                candles.add(interval.bar(start));
            }
        }
        return candles.reversed();
    }

    /**
     * @return the trades of the minutes in [fromMinute, toMinute) the bars hold, as one bar starting at
     * {@code fromMinute} (no trades when there are none).
     */
    Bar range(final long fromMinute, final long toMinute)
    {
        final Accumulator range = new Accumulator();
        for (long m = fromMinute; m < toMinute; m++)
        {
            range.add(this, m);
        }
        return range.bar(fromMinute);
    }

    /**
     * Minutes, or bars of them, summed in time order.
     */
    static final class Accumulator
    {
        long open;
        long high;
        long low;
        long close;
        long volume;
        long trades;
        long quoteHigh;
        long quoteLow;

        void reset()
        {
            trades = 0;
            volume = 0;
            quoteHigh = 0;
            quoteLow = 0;
        }

        /**
         * Add a minute later than any added before, if the bars hold it.
         */
        void add(final MinuteBars bars, final long m)
        {
            final int slot = (int)Math.floorMod(m, (long)MINUTES);
            if (bars.minute[slot] == m)
            {
                add(bars.open[slot], bars.high[slot], bars.low[slot], bars.close[slot], bars.volume[slot],
                    bars.trades[slot], bars.quoteHigh[slot], bars.quoteLow[slot]);
            }
        }

        /**
         * Add a bar later than any added before.
         */
        void add(final Bar bar)
        {
            if (bar.trades() > 0)
            {
                add(bar.open(), bar.high(), bar.low(), bar.close(), bar.volume(), bar.trades(), bar.quoteHigh(),
                    bar.quoteLow());
            }
        }

        /**
         * Add minutes summed before, all of them earlier than any added after.
         */
        void addAll(final Accumulator earlier)
        {
            if (earlier.trades > 0)
            {
                add(earlier.open, earlier.high, earlier.low, earlier.close, earlier.volume, earlier.trades,
                    earlier.quoteHigh, earlier.quoteLow);
            }
        }

        private void add(final long open, final long high, final long low, final long close, final long volume,
            final long trades, final long quoteHigh, final long quoteLow)
        {
            if (this.trades == 0)
            {
                this.open = open;
                this.high = high;
                this.low = low;
            }
            this.high = Math.max(this.high, high);
            this.low = Math.min(this.low, low);
            this.close = close;
            this.volume += volume;
            this.trades += trades;
            final long sumLow = this.quoteLow + quoteLow;
            this.quoteHigh += quoteHigh + (Long.compareUnsigned(sumLow, this.quoteLow) < 0 ? 1 : 0);
            this.quoteLow = sumLow;
        }

        Bar bar(final long startMinute)
        {
            return trades == 0 ? new Bar(startMinute, 0, 0, 0, 0, 0, 0, 0, 0) :
                new Bar(startMinute, open, high, low, close, volume, quoteHigh, quoteLow, trades);
        }
    }
}
