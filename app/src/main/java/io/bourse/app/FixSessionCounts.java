package io.bourse.app;

import io.bourse.gateway.fix.FixGateway;
import io.bourse.gateway.http.SessionCounts;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;

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
        return (int)figure(FixGateway::loggedOnSessions);
    }

    public int configured()
    {
        return (int)figure(FixGateway::configuredSessions);
    }

    public long messagesDropped()
    {
        return figure(FixGateway::droppedMessages);
    }

    public long messagesRateLimited()
    {
        return figure(FixGateway::rateLimitedMessages);
    }

    private long figure(final ToLongFunction<FixGateway> figure)
    {
        final FixGateway fixGateway = gateway.get();
        return fixGateway == null ? 0 : figure.applyAsLong(fixGateway);
    }
}
