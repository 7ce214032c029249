package io.bourse.gateway.http;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Decimal strings at the API edge ⇄ the engine's scaled longs.
 */
final class Decimals
{
    private static final int MAX_LENGTH = 40;
    private static final java.util.regex.Pattern DECIMAL = java.util.regex.Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    private Decimals()
    {
    }

    /**
     * @param text  a plain decimal string such as {@code "100.05"} (no exponent, no sign unless negative allowed).
     * @param scale decimal places of the unit.
     * @param offGridCode error code when the value has more decimal places than the scale allows.
     * @return the value in units of 10^-scale.
     */
    static long parse(final String text, final int scale, final String field, final String offGridCode)
    {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH || !DECIMAL.matcher(text).matches())
        {
            throw ApiException.badRequest("INVALID_DECIMAL",
                field + ": expected a decimal string such as \"12.34\", got " + quote(text), field);
        }
        final long fast = parseSmall(text, scale);
        if (fast >= 0)
        {
            return fast;
        }
        final BigDecimal value = new BigDecimal(text);
        final BigDecimal scaled = value.movePointRight(scale);
        final BigInteger units;
        try
        {
            units = scaled.toBigIntegerExact();
        }
        catch (final ArithmeticException ex)
        {
            throw ApiException.badRequest(offGridCode,
                field + ": " + text + " has more than " + scale + " decimal places", field);
        }
        if (units.bitLength() > 63)
        {
            throw ApiException.badRequest("NUMBER_TOO_LARGE", field + ": " + text + " is too large", field);
        }
        return units.longValueExact();
    }

    /**
     * The common case without BigDecimal: unsigned, at most 17 significant digits, no more decimals than the scale.
     *
     * @return the units, or -1 when the general path must decide.
     */
    private static long parseSmall(final String text, final int scale)
    {
        final int dot = text.indexOf('.');
        final int decimals = dot < 0 ? 0 : text.length() - dot - 1;
        if (text.charAt(0) == '-' || decimals > scale || text.length() - (dot < 0 ? 0 : 1) + (scale - decimals) > 17)
        {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c != '.')
            {
                value = value * 10 + (c - '0');
            }
        }
        for (int i = decimals; i < scale; i++)
        {
            value *= 10;
        }
        return value;
    }

    static String format(final long units, final int scale)
    {
        return BigDecimal.valueOf(units, scale).toPlainString();
    }

    private static String quote(final String text)
    {
        return text == null ? "nothing" : "\"" + (text.length() > MAX_LENGTH ? text.substring(0, MAX_LENGTH) + "…" : text) + "\"";
    }
}
