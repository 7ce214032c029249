package io.bourse.app;

import io.bourse.gateway.fix.FixGateway;
import io.bourse.gateway.http.MonitorSection;
import io.bourse.gateway.http.SessionCounts;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;

/**
 * The FIX gateway's sessions for the HTTP gateway's monitor page and {@code /metrics}, and its files as a monitor
 * section ({@code bourse_fix_gateway_archive_bytes}, {@code bourse_fix_gateway_open_order_record_bytes}): what the
 * archive's prune and the end of day keep in check. {@code run} starts the FIX gateway after the HTTP gateway, so this
 * reads it through a reference set once it runs: until then no sessions, and no files.
 */
final class FixSessionCounts implements SessionCounts, MonitorSection
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

    public String name()
    {
        return "fix_gateway";
    }

    public Map<String, Object> values()
    {
        final Map<String, Object> values = new LinkedHashMap<>();
        values.put("archive_bytes", figure(FixGateway::archiveBytes));
        values.put("open_order_record_bytes", figure(FixGateway::openOrderRecordBytes));
        return values;
    }

    private long figure(final ToLongFunction<FixGateway> figure)
    {
        final FixGateway fixGateway = gateway.get();
        return fixGateway == null ? 0 : figure.applyAsLong(fixGateway);
    }
}
