package io.bourse.gateway.fix;

/**
 * A limit on each FIX session's application messages: a token bucket per session, refilled at a steady rate up to a
 * burst. Every application message takes a token while there is one; a NewOrderSingle or OrderCancelReplaceRequest
 * that finds none is refused, while cancels, mass cancels and status requests never are, so that a client over its
 * rate can still see and take off its risk. Used on the gateway's thread only; the buckets live in
 * {@link FixSessionState}.
 */
final class FixRateLimit
{
    /**
     * No limit.
     */
    static final FixRateLimit NONE = new FixRateLimit(0, 0);

    private final double perSecond;
    private final double tokensPerNs;
    private final double burst;
    private final String refusal;

    /**
     * @param perSecond messages a second a session may send on average; 0 for no limit.
     * @param burst     messages a session may send at once after a quiet while (at least 1 when there is a limit).
     */
    FixRateLimit(final double perSecond, final double burst)
    {
        check(perSecond, burst);
        this.perSecond = perSecond;
        this.tokensPerNs = perSecond / 1e9;
        this.burst = burst;
        this.refusal = "Rate limit exceeded: " + decimal(perSecond) + " messages a second, bursts of " +
            decimal(burst);
    }

    /**
     * @return the limit of a session, {@link #NONE} when its rate is 0.
     */
    static FixRateLimit of(final FixSessionSpec.RateLimit limit)
    {
        return limit.perSecond() == 0 ? NONE : new FixRateLimit(limit.perSecond(), limit.burst());
    }

    /**
     * @throws IllegalArgumentException unless the rate is at least 0 and, when it is not 0, the burst at least 1.
     */
    static void check(final double perSecond, final double burst)
    {
        if (!(perSecond >= 0) || perSecond > 0 && !(burst >= 1))
        {
            throw new IllegalArgumentException("a rate limit needs a rate >= 0 and a burst >= 1: " + perSecond +
                " a second, bursts of " + burst);
        }
    }

    /**
     * Take a token of the session's for an application message, now.
     *
     * @return false when it has none left (the message is refused if it is one that can be).
     */
    boolean take(final FixSessionState session)
    {
        return tokensPerNs == 0 || take(session, System.nanoTime());
    }

    /**
     * Take a token of the session's for an application message.
     *
     * @param nowNs {@link System#nanoTime()} now.
     * @return false when it has none left.
     */
    boolean take(final FixSessionState session, final long nowNs)
    {
        if (tokensPerNs == 0)
        {
            return true;
        }
        final double tokens = !session.rateCounted ? burst :
            Math.min(burst, session.rateTokens + (nowNs - session.rateCountedNs) * tokensPerNs);
        session.rateCounted = true;
        session.rateCountedNs = nowNs;
        if (tokens < 1)
        {
            session.rateTokens = tokens;
            return false;
        }
        session.rateTokens = tokens - 1;
        return true;
    }

    double perSecond()
    {
        return perSecond;
    }

    double burst()
    {
        return burst;
    }

    /**
     * @return the Text of a refusal.
     */
    String refusal()
    {
        return refusal;
    }

    private static String decimal(final double value)
    {
        return value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
    }
}
