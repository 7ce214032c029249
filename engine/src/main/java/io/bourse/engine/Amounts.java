package io.bourse.engine;

/**
 * Overflow-checked integer arithmetic for scaled amounts. Results that do not fit return
 * {@link #OVERFLOW} instead of throwing, so rejections stay values on the matching path.
 */
final class Amounts
{
    static final long OVERFLOW = -1;
    static final int PPM = 1_000_000;
    static final int BASIS_POINTS = 10_000;
    static final int MAX_SCALE = 18;

    private static final long[] POWERS_OF_TEN = new long[MAX_SCALE + 1];

    static
    {
        long value = 1;
        for (int i = 0; i <= MAX_SCALE; i++)
        {
            POWERS_OF_TEN[i] = value;
            value *= 10;
        }
    }

    private Amounts()
    {
    }

    static long powerOfTen(final int exponent)
    {
        return POWERS_OF_TEN[exponent];
    }

    /**
     * @return a × b for non-negative operands, or {@link #OVERFLOW}.
     */
    static long multiply(final long a, final long b)
    {
        final long product = a * b;
        if (Math.multiplyHigh(a, b) != 0 || product < 0)
        {
            return OVERFLOW;
        }
        return product;
    }

    /**
     * @return a + b for non-negative operands, or {@link #OVERFLOW}.
     */
    static long add(final long a, final long b)
    {
        final long sum = a + b;
        return sum < 0 ? OVERFLOW : sum;
    }

    /**
     * Floor of amount × ratePpm / 1,000,000 without overflow, for amount ≥ 0 and 0 ≤ ratePpm ≤ 1,000,000.
     * Fees round down so that the fee on a part of an order never exceeds its share of the fee reserved for the
     * whole (floor(a) − floor(b) ≥ floor(a − b)), which keeps every reservation sufficient.
     */
    static long fee(final long amount, final int ratePpm)
    {
        return (amount / PPM) * ratePpm + (amount % PPM) * ratePpm / PPM;
    }

    /**
     * Floor of amount × basisPoints / 10,000 without overflow, for amount ≥ 0 and basisPoints ≥ 0.
     */
    static long basisPoints(final long amount, final int basisPoints)
    {
        final long whole = multiply(amount / BASIS_POINTS, basisPoints);
        if (whole == OVERFLOW)
        {
            return OVERFLOW;
        }
        return add(whole, (amount % BASIS_POINTS) * basisPoints / BASIS_POINTS);
    }
}
