package io.bourse.gateway.http;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;

import static io.bourse.gateway.http.MinuteBars.MINUTE_NS;
import static org.junit.jupiter.api.Assertions.assertEquals;

class MinuteBarsTest
{
    /**
     * The first minute of a day (2024-10-04, UTC), at which intervals of every size start.
     */
    private static final long START_MINUTE = 20_000L * MinuteBars.MINUTES;

    @Test
    void theDayIsTheLast1440MinutesAndOlderTradesDropOut()
    {
        final MinuteBars bars = new MinuteBars();
        add(bars, at(0, 1), 100, 2);
        add(bars, at(0, 30), 105, 1);
        add(bars, at(10, 0), 95, 3);
        add(bars, at(20, 0), 101, 4);
        final MinuteBars.Bar day = bars.day(at(20, 59));
        assertEquals(List.of(100L, 105L, 95L, 101L, 10L, 4L), List.of(day.open(), day.high(), day.low(), day.close(),
            day.volume(), day.trades()));
        assertEquals(BigInteger.valueOf(100 * 2 + 105 + 95 * 3 + 101 * 4), day.quote());

        // A day after the first minute, it is out of the day; 1,439 minutes after it, it is still in.
        assertEquals(4, bars.day(at(MinuteBars.MINUTES - 1, 0)).trades());
        final MinuteBars.Bar later = bars.day(at(MinuteBars.MINUTES, 0));
        assertEquals(List.of(95L, 95L, 101L, 7L, 2L), List.of(later.open(), later.low(), later.close(), later.volume(),
            later.trades()));
        // A trade a day later takes the first minute's slot: what it held is gone.
        add(bars, at(MinuteBars.MINUTES, 5), 200, 1);
        assertEquals(3, bars.day(at(MinuteBars.MINUTES, 6)).trades());
        // And one older than the slot's minute comes too late to count.
        add(bars, at(0, 40), 1, 1);
        assertEquals(3, bars.day(at(MinuteBars.MINUTES, 6)).trades());
        assertEquals(0, bars.day(at(3 * MinuteBars.MINUTES, 0)).trades(), "a quiet day");
    }

    @Test
    void candlesAreWholeIntervalsOldestFirstWithoutEmptyOnes()
    {
        final MinuteBars bars = new MinuteBars();
        add(bars, at(0, 0), 10, 1);
        add(bars, at(3, 0), 12, 1);
        add(bars, at(4, 59), 9, 1);
        add(bars, at(5, 0), 11, 1);
        add(bars, at(17, 0), 13, 2);
        final List<MinuteBars.Bar> fives = bars.candles(at(17, 30), Long.MAX_VALUE, 5, 100);
        assertEquals(List.of(START_MINUTE, START_MINUTE + 5, START_MINUTE + 15),
            fives.stream().map(MinuteBars.Bar::startMinute).toList(), "no candle for the quiet minutes 10 to 14");
        assertEquals(List.of(10L, 12L, 9L, 9L, 3L), List.of(fives.get(0).open(), fives.get(0).high(), fives.get(0).low(),
            fives.get(0).close(), fives.get(0).trades()));
        assertEquals(2, fives.get(2).volume(), "the current interval, unfinished");
        assertEquals(List.of(START_MINUTE + 5, START_MINUTE + 15), bars.candles(at(17, 30), Long.MAX_VALUE, 5, 2)
            .stream().map(MinuteBars.Bar::startMinute).toList(), "the most recent two");
        assertEquals(5, bars.candles(at(17, 30), Long.MAX_VALUE, 1, 1440).size());
        assertEquals(List.of(START_MINUTE), bars.candles(at(17, 30), at(5, 0), 5, 100).stream()
            .map(MinuteBars.Bar::startMinute).toList(), "those that start before a time");
        final List<MinuteBars.Bar> cut = bars.candles(at(17, 30), at(6, 30), 5, 100);
        assertEquals(List.of(START_MINUTE, START_MINUTE + 5), cut.stream().map(MinuteBars.Bar::startMinute).toList());
        assertEquals(fives.get(1), cut.get(1), "an interval that starts before the time is whole");
        final MinuteBars.Bar range = bars.range(START_MINUTE, START_MINUTE + 5);
        assertEquals(List.of(START_MINUTE, 10L, 12L, 9L, 9L, 3L), List.of(range.startMinute(), range.open(),
            range.high(), range.low(), range.close(), range.trades()), "minutes 0 to 4 as one bar");
        assertEquals(0, bars.range(START_MINUTE + 6, START_MINUTE + 17).trades());

        // A day later the interval that began 24 hours ago would be partial: it is left out.
        final long dayLater = at(MinuteBars.MINUTES + 2, 0);
        assertEquals(List.of(START_MINUTE + 5, START_MINUTE + 15),
            bars.candles(dayLater, Long.MAX_VALUE, 5, 100).stream().map(MinuteBars.Bar::startMinute).toList());
    }

    @Test
    void barsCountedApartJoinByTradeIdWhateverTheOrder()
    {
        // The gateway's own trades, 20 to 22, and those it missed, 10 to 12 and 30, read from the store later.
        final MinuteBars own = new MinuteBars();
        own.add(20, at(1, 20), 65, 2);
        own.add(21, at(2, 0), 80, 1);
        own.add(22, at(3, 0), 90, 1);
        final MinuteBars missed = new MinuteBars();
        missed.add(10, at(0, 0), 50, 1);
        missed.add(11, at(1, 0), 60, 1);
        missed.add(12, at(1, 10), 70, 1);
        missed.add(30, at(3, 30), 95, 1);
        own.join(missed);
        final List<MinuteBars.Bar> minutes = own.candles(at(3, 40), Long.MAX_VALUE, 1, 100);
        final MinuteBars.Bar one = minutes.get(1);
        assertEquals(List.of(60L, 70L, 60L, 65L, 4L, 3L), List.of(one.open(), one.high(), one.low(), one.close(),
            one.volume(), one.trades()), "minute 1: the missed trades came first");
        final MinuteBars.Bar three = minutes.get(3);
        assertEquals(List.of(90L, 95L, 2L), List.of(three.open(), three.close(), three.trades()),
            "minute 3: the missed trade came last");
        final MinuteBars.Bar day = own.day(at(3, 40));
        assertEquals(List.of(50L, 95L, 7L, 8L), List.of(day.open(), day.close(), day.trades(), day.volume()));
        assertEquals(BigInteger.valueOf(50 + 60 + 70 + 65 * 2 + 80 + 90 + 95), day.quote());

        // The day is summed once a minute: a join into a minute already summed is counted all the same.
        final MinuteBars late = new MinuteBars();
        late.add(5, at(0, 1), 40, 1);
        own.join(late);
        assertEquals(List.of(40L, 8L), List.of(own.day(at(3, 40)).open(), own.day(at(3, 40)).trades()));
        // And so is a trade the gateway applies in an earlier minute than the last (a clock stepped back).
        own.add(31, at(0, 30), 10, 1);
        assertEquals(List.of(10L, 9L), List.of(own.day(at(3, 40)).low(), own.day(at(3, 40)).trades()));
    }

    @Test
    void theQuoteAmountIsExactBeyondALong()
    {
        final MinuteBars bars = new MinuteBars();
        // 100,000.00 at a price scale of 2, times 90,000.00000000 at a quantity scale of 8: 9 × 10^19 units each.
        final long price = 10_000_000L;
        final long quantity = 9_000_000_000_000L;
        for (int i = 0; i < 1000; i++)
        {
            add(bars, at(i % 3, i % 60), price, quantity);
        }
        final BigInteger expected = BigInteger.valueOf(price).multiply(BigInteger.valueOf(quantity))
            .multiply(BigInteger.valueOf(1000));
        assertEquals(expected, bars.day(at(3, 0)).quote());
        assertEquals(expected, bars.candles(at(3, 0), Long.MAX_VALUE, 5, 1).getFirst().quote());
        // Joined to as much again, in the same minutes: the carry between the two words is kept.
        final MinuteBars more = new MinuteBars();
        for (int i = 0; i < 1000; i++)
        {
            add(more, at(i % 3, i % 60), price, quantity);
        }
        bars.join(more);
        assertEquals(expected.shiftLeft(1), bars.day(at(3, 0)).quote());
    }

    private long nextTradeId = 1;

    /**
     * Add a trade with the next trade id.
     */
    private void add(final MinuteBars bars, final long timestampNs, final long price, final long quantity)
    {
        bars.add(nextTradeId++, timestampNs, price, quantity);
    }

    private static long at(final long minute, final long second)
    {
        return (START_MINUTE + minute) * MINUTE_NS + second * 1_000_000_000L;
    }
}
