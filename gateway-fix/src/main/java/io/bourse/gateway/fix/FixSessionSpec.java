package io.bourse.gateway.fix;

import java.util.Objects;

/**
 * One FIX session the gateway accepts: the counterparty's SenderCompID, the password its Logon must carry, the
 * engine account its orders trade for, and what happens to its orders when it disconnects.
 *
 * @param senderCompId        the counterparty's SenderCompID (49), the gateway's TargetCompID.
 * @param password            the Password (554) its Logon must carry.
 * @param accountId           the engine account the session trades for.
 * @param cancelOnDisconnect  what to cancel when the session disconnects without logging on again in time.
 * @param cancelOnDisconnectGraceMs how long after a disconnect the cancel is sent, unless it logs on again first.
 */
public record FixSessionSpec(
    String senderCompId, String password, long accountId, CancelOnDisconnect cancelOnDisconnect,
    long cancelOnDisconnectGraceMs)
{
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
