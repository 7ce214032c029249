package io.bourse.gateway.http;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Decimal strings at the API edge ⇄ the engine's scaled longs.
 */
final class Decimals
{
    private static final int MAX_LENGTH = 40;

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
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH || !text.matches("-?[0-9]+(\\.[0-9]+)?"))
        {
            throw ApiException.badRequest("INVALID_DECIMAL",
                field + ": expected a decimal string such as \"12.34\", got " + quote(text), field);
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

    static String format(final long units, final int scale)
    {
        return BigDecimal.valueOf(units, scale).toPlainString();
    }

    private static String quote(final String text)
    {
        return text == null ? "nothing" : "\"" + (text.length() > MAX_LENGTH ? text.substring(0, MAX_LENGTH) + "…" : text) + "\"";
    }
}
