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
        bars.add(at(0, 1), 100, 2);
        bars.add(at(0, 30), 105, 1);
        bars.add(at(10, 0), 95, 3);
        bars.add(at(20, 0), 101, 4);
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
        bars.add(at(MinuteBars.MINUTES, 5), 200, 1);
        assertEquals(3, bars.day(at(MinuteBars.MINUTES, 6)).trades());
        // And one older than the slot's minute comes too late to count.
        bars.add(at(0, 40), 1, 1);
        assertEquals(3, bars.day(at(MinuteBars.MINUTES, 6)).trades());
        assertEquals(0, bars.day(at(3 * MinuteBars.MINUTES, 0)).trades(), "a quiet day");
    }

    @Test
    void candlesAreWholeIntervalsOldestFirstWithoutEmptyOnes()
    {
        final MinuteBars bars = new MinuteBars();
        bars.add(at(0, 0), 10, 1);
        bars.add(at(3, 0), 12, 1);
        bars.add(at(4, 59), 9, 1);
        bars.add(at(5, 0), 11, 1);
        bars.add(at(17, 0), 13, 2);
        final List<MinuteBars.Bar> fives = bars.candles(at(17, 30), 5, 100);
        assertEquals(List.of(START_MINUTE, START_MINUTE + 5, START_MINUTE + 15),
            fives.stream().map(MinuteBars.Bar::startMinute).toList(), "no candle for the quiet minutes 10 to 14");
        assertEquals(List.of(10L, 12L, 9L, 9L, 3L), List.of(fives.get(0).open(), fives.get(0).high(), fives.get(0).low(),
            fives.get(0).close(), fives.get(0).trades()));
        assertEquals(2, fives.get(2).volume(), "the current interval, unfinished");
        assertEquals(List.of(START_MINUTE + 5, START_MINUTE + 15),
            bars.candles(at(17, 30), 5, 2).stream().map(MinuteBars.Bar::startMinute).toList(), "the most recent two");
        assertEquals(5, bars.candles(at(17, 30), 1, 1440).size());

        // A day later the interval that began 24 hours ago would be partial: it is left out.
        final long dayLater = at(MinuteBars.MINUTES + 2, 0);
        assertEquals(List.of(START_MINUTE + 5, START_MINUTE + 15),
            bars.candles(dayLater, 5, 100).stream().map(MinuteBars.Bar::startMinute).toList());
    }

    @Test
    void earlierBarsJoinWithTheirOpenAndTheLaterClose()
    {
        final MinuteBars earlier = new MinuteBars();
        earlier.add(at(0, 0), 50, 1);
        earlier.add(at(1, 0), 60, 1);
        earlier.add(at(1, 10), 70, 1);
        final MinuteBars later = new MinuteBars();
        later.add(at(1, 20), 65, 2);
        later.add(at(2, 0), 80, 1);
        later.addEarlier(earlier);
        final MinuteBars.Bar minuteOne = later.candles(at(2, 30), 1, 100).get(1);
        assertEquals(List.of(60L, 70L, 60L, 65L, 4L, 3L), List.of(minuteOne.open(), minuteOne.high(), minuteOne.low(),
            minuteOne.close(), minuteOne.volume(), minuteOne.trades()));
        final MinuteBars.Bar day = later.day(at(2, 30));
        assertEquals(List.of(50L, 80L, 5L, 6L), List.of(day.open(), day.close(), day.trades(), day.volume()));
        assertEquals(BigInteger.valueOf(50 + 60 + 70 + 65 * 2 + 80), day.quote());
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
            bars.add(at(i % 3, i % 60), price, quantity);
        }
        final BigInteger expected = BigInteger.valueOf(price).multiply(BigInteger.valueOf(quantity))
            .multiply(BigInteger.valueOf(1000));
        assertEquals(expected, bars.day(at(3, 0)).quote());
        assertEquals(expected, bars.candles(at(3, 0), 5, 1).getFirst().quote());
    }

    private static long at(final long minute, final long second)
    {
        return (START_MINUTE + minute) * MINUTE_NS + second * 1_000_000_000L;
    }
}
