package io.bourse.gateway.fix;

/**
 * Checks the FIX UTCTimestamp format, {@code YYYYMMDD-HH:MM:SS} with an optional fraction of 1 to 9 digits,
 * without allocating.
 */
final class FixTimestamps
{
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
}
