package io.bourse.app;

import io.bourse.gateway.fix.FixGateway;
import io.bourse.gateway.http.SessionCounts;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The FIX gateway's sessions for the HTTP gateway's monitor page and {@code /metrics}. {@code run} starts the FIX
 * gateway after the HTTP gateway, so this reads it through a reference set once it runs: until then no sessions.
 */
final class FixSessionCounts implements SessionCounts
{
    private final AtomicReference<FixGateway> gateway = new AtomicReference<>();

    void gateway(final FixGateway fixGateway)
    {
        gateway.set(fixGateway);
    }

    public String gateway()
    {
        return "fix";
    }

    public int loggedOn()
    {
        final FixGateway fixGateway = gateway.get();
        return fixGateway == null ? 0 : fixGateway.loggedOnSessions();
    }

    public int configured()
    {
        final FixGateway fixGateway = gateway.get();
        return fixGateway == null ? 0 : fixGateway.configuredSessions();
    }

    public long messagesDropped()
    {
        final FixGateway fixGateway = gateway.get();
        return fixGateway == null ? 0 : fixGateway.droppedMessages();
    }

    public long messagesRateLimited()
    {
        final FixGateway fixGateway = gateway.get();
        return fixGateway == null ? 0 : fixGateway.rateLimitedMessages();
    }
}
