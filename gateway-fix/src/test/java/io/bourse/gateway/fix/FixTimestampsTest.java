package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A UTCTimestamp is read as the instant java.time reads it, at every precision FIX allows, and a day its month does
 * not have is no instant; a LocalMktDate is read and written as java.time has the date.
 */
class FixTimestampsTest
{
    private static final DateTimeFormatter SECONDS =
        DateTimeFormatter.ofPattern("yyyyMMdd-HH:mm:ss").withZone(ZoneOffset.UTC);

    @Test
    void readsAsJavaTimeDoesAtEveryPrecision()
    {
        final long seed = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 10_000; i++)
        {
            final long epochNanos = random.nextLong(0, 9_000_000_000_000_000_000L);
            final Instant instant = Instant.ofEpochSecond(0, epochNanos);
            final int digits = random.nextInt(0, 10);
            final String fraction = String.format("%09d", instant.getNano()).substring(0, digits);
            final String text = SECONDS.format(instant) + (digits == 0 ? "" : "." + fraction);
            final long truncated = epochNanos - instant.getNano() + (digits == 0 ? 0 :
                Long.parseLong(fraction) * (long)Math.pow(10, 9 - digits));
            assertEquals(truncated, epochNanos(text), text + " (seed " + seed + ")");
        }
    }

    @Test
    void aDayTheMonthDoesNotHaveOrAYearOutsideEpochNanosIsNoInstant()
    {
        assertEquals(Instant.parse("2028-02-29T23:59:59Z").getEpochSecond() * 1_000_000_000L,
            epochNanos("20280229-23:59:59"));
        assertEquals(FixTimestamps.INVALID, epochNanos("20270229-00:00:00"));
        assertEquals(FixTimestamps.INVALID, epochNanos("21000229-00:00:00"));
        assertEquals(Instant.parse("2000-02-29T00:00:00Z").getEpochSecond() * 1_000_000_000L,
            epochNanos("20000229-00:00:00"));
        assertEquals(FixTimestamps.INVALID, epochNanos("20260431-00:00:00"));
        assertEquals(FixTimestamps.INVALID, epochNanos("19691231-23:59:59"));
        assertEquals(FixTimestamps.INVALID, epochNanos("22620101-00:00:00"));
        assertEquals(Instant.parse("2026-12-31T23:59:59Z").getEpochSecond() * 1_000_000_000L + 1_000_000_000L,
            epochNanos("20261231-23:59:60"), "a leap second is the next second");
    }

    @Test
    void aLocalMktDateIsReadAndWrittenAsJavaTimeHasIt()
    {
        final long seed = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        final long lastDay = java.time.LocalDate.of(2261, 12, 31).toEpochDay();
        final byte[] written = new byte[8];
        for (int i = 0; i < 10_000; i++)
        {
            final long epochDay = i == 0 ? 0 : i == 1 ? lastDay : random.nextLong(0, lastDay + 1);
            final String text = java.time.LocalDate.ofEpochDay(epochDay).format(DateTimeFormatter.BASIC_ISO_DATE);
            final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            assertTrue(FixTimestamps.isLocalMktDate(bytes, bytes.length), text + " (seed " + seed + ")");
            assertEquals(epochDay, FixTimestamps.epochDay(bytes, bytes.length), text + " (seed " + seed + ")");
            FixTimestamps.writeLocalMktDate(epochDay, written);
            assertEquals(text, new String(written, StandardCharsets.US_ASCII), "seed " + seed);
        }
        for (final String malformed : new String[]{ "2026112", "202611220", "2026-1122", "20261322", "20261100", "2026112x" })
        {
            final byte[] bytes = malformed.getBytes(StandardCharsets.US_ASCII);
            assertTrue(!FixTimestamps.isLocalMktDate(bytes, bytes.length), malformed);
        }
        for (final String noDate : new String[]{ "20270229", "20260431", "19691231", "22620101" })
        {
            final byte[] bytes = noDate.getBytes(StandardCharsets.US_ASCII);
            assertTrue(FixTimestamps.isLocalMktDate(bytes, bytes.length), noDate);
            assertEquals(FixTimestamps.INVALID, FixTimestamps.epochDay(bytes, bytes.length), noDate);
        }
    }

    private static long epochNanos(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        assertTrue(FixTimestamps.isUtcTimestamp(bytes, bytes.length), text);
        return FixTimestamps.epochNanos(bytes, bytes.length);
    }
}
