package io.bourse.gateway.fix;

import uk.co.real_logic.artio.fields.ReadOnlyDecimalFloat;

/**
 * FIX decimals to the engine's scaled longs, without exceptions: a value that cannot be represented exactly at the
 * scale, or does not fit, is {@link #INVALID}.
 */
final class FixDecimals
{
    static final long INVALID = Long.MIN_VALUE;

    private FixDecimals()
    {
    }

    /**
     * @return the value at {@code scale} decimal places, or {@link #INVALID} when it has more significant decimals
     * than that or overflows.
     */
    static long toScaled(final ReadOnlyDecimalFloat decimal, final int scale)
    {
        long value = decimal.value();
        int valueScale = decimal.scale();
        while (valueScale > scale)
        {
            if (value % 10 != 0)
            {
                return INVALID;
            }
            value /= 10;
            valueScale--;
        }
        while (valueScale < scale)
        {
            if (value > Long.MAX_VALUE / 10 || value < -(Long.MAX_VALUE / 10))
            {
                return INVALID;
            }
            value *= 10;
            valueScale++;
        }
        return value;
    }
}
