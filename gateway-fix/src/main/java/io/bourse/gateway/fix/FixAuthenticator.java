package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.builder.LogoutEncoder;
import uk.co.real_logic.artio.decoder.AbstractLogonDecoder;
import uk.co.real_logic.artio.validation.AuthenticationProxy;
import uk.co.real_logic.artio.validation.AuthenticationStrategy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Checks a Logon against the configured sessions: a known SenderCompID, the gateway's TargetCompID and the
 * session's password. A refused Logon is answered with a Logout whose Text says why, then the connection is closed.
 * After {@code maxFailures} refusals of one SenderCompID within {@code failureWindowMs} the CompID is locked out for
 * {@code lockoutMs}: every Logon in that time is refused, even with the right password. During the end of day every
 * Logon is refused, so that the sessions' sequence numbers can be reset.
 * <p>
 * Runs on Artio's framer thread only (Logons are rare), so its state needs no synchronisation, but for the end-of-day
 * flag, set from the gateway's housekeeping thread.
 */
final class FixAuthenticator implements AuthenticationStrategy
{
    static final long REJECT_LINGER_MS = 200;
    static final String END_OF_DAY_REFUSAL =
        "End of day: sequence numbers are being reset to 1; log on again in a few seconds";

    private final String gatewayCompId;
    private final Map<String, FixSessionSpec> sessions;
    private final int maxFailures;
    private final long failureWindowMs;
    private final long lockoutMs;
    private final LongSupplier clockMs;
    private final Map<String, Failures> failures = new HashMap<>();
    /**
     * Set while the end of day resets the sessions' sequence numbers: Artio cannot reset a session that is logged on.
     */
    private volatile boolean endOfDay;

    FixAuthenticator(
        final String gatewayCompId,
        final Map<String, FixSessionSpec> sessions,
        final int maxFailures,
        final long failureWindowMs,
        final long lockoutMs,
        final LongSupplier clockMs)
    {
        this.gatewayCompId = gatewayCompId;
        this.sessions = sessions;
        this.maxFailures = maxFailures;
        this.failureWindowMs = failureWindowMs;
        this.lockoutMs = lockoutMs;
        this.clockMs = clockMs;
    }

    public void authenticateAsync(final AbstractLogonDecoder logon, final AuthenticationProxy authProxy)
    {
        final String refusal = refusal(logon);
        if (refusal == null)
        {
            authProxy.accept();
        }
        else
        {
            authProxy.reject(new LogoutEncoder().text(refusal), REJECT_LINGER_MS);
        }
    }

    public boolean authenticate(final AbstractLogonDecoder logon)
    {
        return refusal(logon) == null;
    }

    /**
     * @return why the Logon is refused, or null when it is accepted.
     */
    String refusal(final AbstractLogonDecoder logon)
    {
        final String senderCompId = new String(logon.header().senderCompID(), 0, logon.header().senderCompIDLength());
        final String targetCompId = new String(logon.header().targetCompID(), 0, logon.header().targetCompIDLength());
        final FixSessionSpec spec = sessions.get(senderCompId);
        if (spec == null)
        {
            return "Unknown SenderCompID " + senderCompId;
        }
        if (endOfDay)
        {
            return END_OF_DAY_REFUSAL;
        }
        final long nowMs = clockMs.getAsLong();
        final Failures record = failures.get(senderCompId);
        if (record != null && nowMs < record.lockedUntilMs)
        {
            return "SenderCompID " + senderCompId + " is locked out after repeated logon failures; retry in " +
                ((record.lockedUntilMs - nowMs + 999) / 1000) + " s";
        }
        if (!gatewayCompId.equals(targetCompId))
        {
            return fail(senderCompId, nowMs, "TargetCompID must be " + gatewayCompId);
        }
        if (spec.password().isEmpty())
        {
            // A session configured without a password (tests only: configuration files require one).
            failures.remove(senderCompId);
            return null;
        }
        if (!logon.hasPassword())
        {
            return fail(senderCompId, nowMs, "Password (554) required");
        }
        final byte[] given = new String(logon.password(), 0, logon.passwordLength()).getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, spec.password().getBytes(StandardCharsets.UTF_8)))
        {
            return fail(senderCompId, nowMs, "Invalid password");
        }
        failures.remove(senderCompId);
        return null;
    }

    /**
     * Refuse every Logon (without counting it as a failure) while {@code endOfDay}.
     */
    void endOfDay(final boolean endOfDay)
    {
        this.endOfDay = endOfDay;
    }

    private String fail(final String senderCompId, final long nowMs, final String reason)
    {
        final Failures record = failures.computeIfAbsent(senderCompId, key -> new Failures());
        if (nowMs - record.firstFailureMs > failureWindowMs)
        {
            record.firstFailureMs = nowMs;
            record.count = 0;
        }
        record.count++;
        if (record.count >= maxFailures)
        {
            record.lockedUntilMs = nowMs + lockoutMs;
            record.count = 0;
            return reason + "; SenderCompID locked out for " + (lockoutMs / 1000) + " s";
        }
        return reason;
    }

    private static final class Failures
    {
        long firstFailureMs = Long.MIN_VALUE / 2;
        int count;
        long lockedUntilMs;
    }
}
