package io.bourse.gateway.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Client order ids for orders placed without one: {@code g} followed by base-62 digits of a counter that starts
 * at the start time in milliseconds, so ids differ across gateway restarts and from one another.
 */
final class GeneratedIds
{
    private static final String DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final AtomicLong NEXT = new AtomicLong(System.currentTimeMillis() * 1000);

    private GeneratedIds()
    {
    }

    static String next()
    {
        long value = NEXT.getAndIncrement();
        final StringBuilder text = new StringBuilder(ClientOrderIds.MAX_LENGTH);
        while (value > 0 && text.length() < ClientOrderIds.MAX_LENGTH - 1)
        {
            text.append(DIGITS.charAt((int)(value % 62)));
            value /= 62;
        }
        return "g" + text.reverse();
    }
}
