package io.bourse.gateway.http;

/**
 * The API's client order ids are strings of 1 to 10 characters from {@code [0-9A-Za-z-]}; the engine's are
 * positive longs. The mapping packs 6 bits per character, so it is reversible and needs no table: the string is
 * recovered from any engine event or snapshot record, after any restart, by any gateway.
 */
final class ClientOrderIds
{
    static final int MAX_LENGTH = 10;
    private static final String ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-";

    private ClientOrderIds()
    {
    }

    static boolean isValid(final String text)
    {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH)
        {
            return false;
        }
        for (int i = 0; i < text.length(); i++)
        {
            if (ALPHABET.indexOf(text.charAt(i)) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the engine's id for a valid string (see {@link #isValid}); never 0.
     */
    static long encode(final String text)
    {
        long value = 0;
        for (int i = 0; i < text.length(); i++)
        {
            value = (value << 6) | (ALPHABET.indexOf(text.charAt(i)) + 1);
        }
        return value;
    }

    /**
     * @return the string for an engine id, or the decimal id itself for one not made by {@link #encode} (an order
     * entered through another gateway).
     */
    static String decode(final long value)
    {
        if (value <= 0 || (value >>> (6 * MAX_LENGTH)) != 0)
        {
            return Long.toString(value);
        }
        final char[] chars = new char[MAX_LENGTH];
        int length = 0;
        for (long rest = value; rest != 0; rest >>>= 6)
        {
            final int digit = (int)(rest & 63);
            if (digit == 0)
            {
                return Long.toString(value);
            }
            chars[MAX_LENGTH - 1 - length++] = ALPHABET.charAt(digit - 1);
        }
        return new String(chars, MAX_LENGTH - length, length);
    }
}
