package io.bourse.app;

import io.bourse.gateway.http.ApiKey;
import io.bourse.gateway.http.HttpGateway;
import io.bourse.gateway.http.TrustedProxies;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The HTTP gateway's settings ({@code http.*} keys): address, API keys per account and admin keys, rate limits, trusted
 * proxies and signature time window. Bad values are refused with a message naming the key.
 */
final class HttpConfig
{
    private final Map<String, String> values;
    private final long agentYieldWindowNs;
    private final long agentDeepIdleNs;
    private final boolean rejectReplays;
    private final List<ApiKey> keys = new ArrayList<>();
    private final File adminAuditLog;

    HttpConfig(final BourseConfig config)
    {
        this.values = config.section("http.");
        final String auditLog = values.get("http.admin.audit.log");
        this.adminAuditLog = auditLog == null ? new File(config.nodeContext().dataDir(), "http/admin-audit.log") :
            auditLog.isBlank() ? null : new File(auditLog);
        this.agentYieldWindowNs = config.agentYieldWindowNs();
        this.agentDeepIdleNs = config.agentDeepIdleNs();
        this.rejectReplays = BourseConfig.parseBoolean(
            "http.auth.reject.replays", values.getOrDefault("http.auth.reject.replays", "true"));
        final Map<String, String[]> byKey = new TreeMap<>();
        values.forEach((name, value) ->
        {
            if (name.startsWith("http.key."))
            {
                final String rest = name.substring("http.key.".length());
                final String key = rest.substring(0, rest.lastIndexOf('.'));
                final String field = rest.substring(rest.lastIndexOf('.') + 1);
                final String[] fields = byKey.computeIfAbsent(key, ignored -> new String[4]);
                fields[switch (field)
                {
                    case "secret" -> 0;
                    case "account" -> 1;
                    case "admin" -> 2;
                    // BourseConfig refused any other field.
                    default -> 3;
                }] = value;
            }
        });
        byKey.forEach((key, fields) ->
        {
            final String prefix = "http.key." + key + ".";
            if (fields[0] == null || fields[0].length() < 8)
            {
                throw new BourseConfig.ConfigException("configuration key '" + prefix + "secret': every API key needs a " +
                    "secret of at least 8 characters");
            }
            final boolean admin = fields[2] != null && BourseConfig.parseBoolean(prefix + "admin", fields[2]);
            if (admin == (fields[1] != null))
            {
                throw new BourseConfig.ConfigException("API key '" + key + "': set either " + prefix + "account (a trading key) " +
                    "or " + prefix + "admin=true (an admin key)");
            }
            final long accountId = admin ? 0 : parse(prefix + "account", fields[1], 1, Long.MAX_VALUE);
            final boolean readOnly = fields[3] != null && BourseConfig.parseBoolean(prefix + "readonly", fields[3]);
            if (admin && readOnly)
            {
                throw new BourseConfig.ConfigException("API key '" + key + "': " + prefix + "readonly is for a " +
                    "trading key, not an admin key");
            }
            keys.add(new ApiKey(key, fields[0], accountId, admin, readOnly));
        });
        // Check every value now, so that a bad one is reported before anything starts.
        context();
        demoTradersPerSecond();
    }

    List<ApiKey> keys()
    {
        return keys;
    }

    int port()
    {
        return (int)longValue("http.port", 8080, 0, 65535);
    }

    String host()
    {
        return values.getOrDefault("http.host", "127.0.0.1");
    }

    double demoTradersPerSecond()
    {
        return longValue("http.demo.traders.per.second", 20, 1, 10_000);
    }

    /**
     * @return the gateway's context without its cluster client, which the caller adds.
     */
    HttpGateway.Context context()
    {
        return new HttpGateway.Context()
            .host(host())
            .port(port())
            .eventLoops((int)longValue("http.event.loops", 1, 1, 64))
            .agentYieldWindowNs(agentYieldWindowNs)
            .agentDeepIdleNs(agentDeepIdleNs)
            .apiKeys(keys)
            .authWindowMs(longValue("http.auth.window.ms", 5_000, 1, 3_600_000))
            .idleTimeoutSeconds((int)longValue("http.idle.timeout.seconds", 120, 0, 86_400))
            .webSocketLimits((int)longValue("http.ws.max.connections", 1_000, 1, 1_000_000),
                (int)longValue("http.ws.max.connections.per.address", 100, 1, 1_000_000))
            .commandTimeoutMs(longValue("http.command.timeout.ms", 10_000, 100, 600_000))
            .recentRows((int)longValue("http.recent.closed.orders", 100_000, 1, 10_000_000),
                (int)longValue("http.recent.fills", 100_000, 1, 10_000_000))
            .rejectReplays(rejectReplays)
            .rateLimit(longValue("http.rate.limit.per.second", 50, 1, 10_000_000),
                longValue("http.rate.limit.burst", 100, 1, 10_000_000))
            .addressRateLimit(longValue("http.rate.limit.per.address.per.second", 100, 0, 10_000_000),
                longValue("http.rate.limit.per.address.burst", 200, 1, 10_000_000))
            .trustedProxies(trustedProxies())
            .adminAuditLog(adminAuditLog);
    }

    /**
     * Refuse, before anything starts, an audit trail that cannot be written: making its file (and directory) if
     * needed, as the gateway would.
     */
    void checkAdminAuditLog()
    {
        final String problem = adminAuditLog == null ? null : HttpGateway.adminAuditLogProblem(adminAuditLog);
        if (problem != null)
        {
            throw new BourseConfig.ConfigException("configuration key 'http.admin.audit.log': cannot write " +
                adminAuditLog + ": " + problem);
        }
    }

    /**
     * @return the operators' audit trail ({@code http.admin.audit.log}, by default {@code http/admin-audit.log} in the
     * data directory; empty for none), or null.
     */
    File adminAuditLog()
    {
        return adminAuditLog;
    }

    private TrustedProxies trustedProxies()
    {
        try
        {
            return TrustedProxies.parse(values.getOrDefault("http.trusted.proxies", ""));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new BourseConfig.ConfigException("configuration key 'http.trusted.proxies': " + ex.getMessage());
        }
    }

    private long longValue(final String key, final long defaultValue, final long min, final long max)
    {
        final String text = values.get(key);
        return text == null ? defaultValue : parse(key, text, min, max);
    }

    private static long parse(final String key, final String text, final long min, final long max)
    {
        try
        {
            final long value = Long.parseLong(text);
            if (value >= min && value <= max)
            {
                return value;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // Reported below.
        }
        throw new BourseConfig.ConfigException("configuration key '" + key + "': expected an integer from " + min + " to " +
            max + ", got '" + text + "'");
    }
}
