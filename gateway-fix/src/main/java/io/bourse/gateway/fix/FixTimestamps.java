package io.bourse.gateway.fix;

/**
 * Checks and reads the FIX UTCTimestamp format, {@code YYYYMMDD-HH:MM:SS} with an optional fraction of 1 to 9
 * digits, and the LocalMktDate format, {@code YYYYMMDD}, without allocating.
 */
final class FixTimestamps
{
    /**
     * What {@link #epochNanos} returns for a value that is no instant.
     */
    static final long INVALID = Long.MIN_VALUE;

    private FixTimestamps()
    {
    }

    static boolean isUtcTimestamp(final byte[] value, final int length)
    {
        if (length != 17 && (length < 19 || length > 27))
        {
            return false;
        }
        for (int i = 0; i < 17; i++)
        {
            final byte b = value[i];
            final boolean ok = switch (i)
            {
                case 8 -> b == '-';
                case 11, 14 -> b == ':';
                default -> b >= '0' && b <= '9';
            };
            if (!ok)
            {
                return false;
            }
        }
        if (length > 17 && value[17] != '.')
        {
            return false;
        }
        for (int i = 18; i < length; i++)
        {
            if (value[i] < '0' || value[i] > '9')
            {
                return false;
            }
        }
        final int month = (value[4] - '0') * 10 + (value[5] - '0');
        final int day = (value[6] - '0') * 10 + (value[7] - '0');
        final int hour = (value[9] - '0') * 10 + (value[10] - '0');
        final int minute = (value[12] - '0') * 10 + (value[13] - '0');
        final int second = (value[15] - '0') * 10 + (value[16] - '0');
        return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 60;
    }

    /**
     * @return the epoch nanoseconds of a value {@link #isUtcTimestamp} accepts, or {@link #INVALID} when it names a day
     * its month does not have (20260230) or lies outside the years 1970 to 2261, which epoch nanoseconds hold whole. A
     * leap second, :60, is read as the next second.
     */
    static long epochNanos(final byte[] value, final int length)
    {
        final long epochDay = epochDay(value, length);
        if (epochDay == INVALID)
        {
            return INVALID;
        }
        final long seconds = epochDay * 86_400L + digits(value, 9, 2) * 3_600L + digits(value, 12, 2) * 60L +
            digits(value, 15, 2);
        long fraction = 0;
        for (int i = 18; i < 27; i++)
        {
            fraction = fraction * 10 + (i < length ? value[i] - '0' : 0);
        }
        return seconds * 1_000_000_000L + fraction;
    }

    static boolean isLocalMktDate(final byte[] value, final int length)
    {
        if (length != 8)
        {
            return false;
        }
        for (int i = 0; i < 8; i++)
        {
            if (value[i] < '0' || value[i] > '9')
            {
                return false;
            }
        }
        final int month = digits(value, 4, 2);
        final int day = digits(value, 6, 2);
        return month >= 1 && month <= 12 && day >= 1 && day <= 31;
    }

    /**
     * @return the days since 1970-01-01 of a value {@link #isLocalMktDate} accepts (or of the date a UTCTimestamp
     * {@link #isUtcTimestamp} accepts starts with), or {@link #INVALID} when it names a day its month does not have or
     * lies outside the years 1970 to 2261.
     */
    static long epochDay(final byte[] value, final int length)
    {
        final int year = digits(value, 0, 4);
        final int month = digits(value, 4, 2);
        final int day = digits(value, 6, 2);
        if (year < 1970 || year > 2261 || day > daysInMonth(year, month))
        {
            return INVALID;
        }
        return daysSinceEpoch(year, month, day);
    }

    /**
     * Write a date, days since 1970-01-01 (to 2261), as a LocalMktDate, {@code YYYYMMDD}, into the first 8 bytes
     * (Howard Hinnant's civil_from_days).
     */
    static void writeLocalMktDate(final long epochDay, final byte[] into)
    {
        final long z = epochDay + 719_468L;
        final long era = Math.floorDiv(z, 146_097L);
        final long dayOfEra = z - era * 146_097L;
        final long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        final long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        final long shiftedMonth = (5 * dayOfYear + 2) / 153;
        final int day = (int)(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1);
        final int month = (int)(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9);
        final int year = (int)(yearOfEra + era * 400 + (month <= 2 ? 1 : 0));
        putDigits(into, 0, 4, year);
        putDigits(into, 4, 2, month);
        putDigits(into, 6, 2, day);
    }

    private static void putDigits(final byte[] into, final int offset, final int count, final int value)
    {
        int remaining = value;
        for (int i = offset + count - 1; i >= offset; i--)
        {
            into[i] = (byte)('0' + remaining % 10);
            remaining /= 10;
        }
    }

    private static int digits(final byte[] value, final int offset, final int count)
    {
        int result = 0;
        for (int i = offset; i < offset + count; i++)
        {
            result = result * 10 + (value[i] - '0');
        }
        return result;
    }

    private static int daysInMonth(final int year, final int month)
    {
        return switch (month)
        {
            case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /**
     * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
     */
    private static long daysSinceEpoch(final int year, final int month, final int day)
    {
        final int y = month <= 2 ? year - 1 : year;
        final int era = y / 400;
        final int yearOfEra = y - era * 400;
        final int dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        final int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097L + dayOfEra - 719_468L;
    }
}
