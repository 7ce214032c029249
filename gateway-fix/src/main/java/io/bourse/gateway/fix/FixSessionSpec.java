package io.bourse.gateway.fix;

import java.util.Objects;

/**
 * One FIX session the gateway accepts: the counterparty's SenderCompID, the password its Logon must carry, the
 * engine account its orders trade for, what happens to its orders when it disconnects, and, when it differs from the
 * gateway's, its rate limit.
 *
 * @param senderCompId        the counterparty's SenderCompID (49), the gateway's TargetCompID.
 * @param password            the Password (554) its Logon must carry.
 * @param accountId           the engine account the session trades for.
 * @param cancelOnDisconnect  what to cancel when the session disconnects without logging on again in time.
 * @param cancelOnDisconnectGraceMs how long after a disconnect the cancel is sent, unless it logs on again first.
 * @param rateLimit           the session's own limit on its application messages, or null for the gateway's
 *                            ({@link FixGateway.Context#messageRateLimit}).
 */
public record FixSessionSpec(
    String senderCompId, String password, long accountId, CancelOnDisconnect cancelOnDisconnect,
    long cancelOnDisconnectGraceMs, RateLimit rateLimit)
{
    /**
     * A session's own rate limit, in place of the gateway's: a market maker quoting many instruments may need more
     * than the venue allows its other sessions, and a session that misbehaved less.
     *
     * @param perSecond application messages a second on average; 0 for no limit at all.
     * @param burst     messages at once after a quiet while (at least 1 when there is a limit).
     */
    public record RateLimit(double perSecond, double burst)
    {
        public RateLimit
        {
            FixRateLimit.check(perSecond, burst);
        }
    }

    /**
     * A session under the gateway's rate limit.
     */
    public FixSessionSpec(
        final String senderCompId, final String password, final long accountId,
        final CancelOnDisconnect cancelOnDisconnect, final long cancelOnDisconnectGraceMs)
    {
        this(senderCompId, password, accountId, cancelOnDisconnect, cancelOnDisconnectGraceMs, null);
    }

    /**
     * Orders canceled when a session disconnects.
     */
    public enum CancelOnDisconnect
    {
        /** Nothing is canceled. */
        NONE,
        /** The orders this session entered. */
        SESSION,
        /** Every open order of the session's account, whichever session or gateway entered it. */
        ACCOUNT
    }

    public FixSessionSpec
    {
        Objects.requireNonNull(senderCompId, "senderCompId");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(cancelOnDisconnect, "cancelOnDisconnect");
        if (senderCompId.isEmpty() || senderCompId.length() > 64)
        {
            throw new IllegalArgumentException("SenderCompID must be 1 to 64 characters: '" + senderCompId + "'");
        }
        if (accountId <= 0)
        {
            throw new IllegalArgumentException("account of FIX session " + senderCompId + " must be positive: " + accountId);
        }
        if (cancelOnDisconnectGraceMs < 0)
        {
            throw new IllegalArgumentException("cancel-on-disconnect grace of FIX session " + senderCompId +
                " must not be negative: " + cancelOnDisconnectGraceMs);
        }
    }
}
