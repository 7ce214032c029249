package io.bourse.app;

import io.bourse.gateway.fix.FixGateway;
import io.bourse.gateway.fix.FixInstrument;
import io.bourse.gateway.fix.FixSessionSpec;

import java.io.File;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code fix.*} keys of the configuration: the FIX gateway's listening address, CompID, logon lock-out, the
 * sessions' rate limit and its sessions ({@code fix.session.<SenderCompID>.account/password/cancel.on.disconnect/
 * cancel.on.disconnect.grace.ms}, and {@code rate.limit.per.second/rate.limit.burst} for a session whose limit is not
 * the gateway's).
 */
final class FixConfig
{
    private static final List<String> KEYS = List.of(
        "fix.enabled", "fix.host", "fix.port", "fix.comp.id", "fix.data.dir", "fix.logon.max.failures",
        "fix.logon.failure.window.ms", "fix.logon.lockout.ms", "fix.sending.time.window.ms", "fix.yield.us",
        "fix.rate.limit.per.second", "fix.rate.limit.burst", "fix.archive.prune.interval.ms", "fix.end.of.day.utc");
    private static final Pattern SESSION_KEY = Pattern.compile("fix\\.session\\.([^.]+)\\.(.+)");
    private static final List<String> SESSION_FIELDS = List.of(
        "account", "password", "cancel.on.disconnect", "cancel.on.disconnect.grace.ms", "rate.limit.per.second",
        "rate.limit.burst");

    private final Map<String, String> values;

    FixConfig(final Map<String, String> values)
    {
        this.values = values;
    }

    static boolean isFixKey(final String key)
    {
        if (KEYS.contains(key))
        {
            return true;
        }
        final Matcher session = SESSION_KEY.matcher(key);
        return session.matches() && SESSION_FIELDS.contains(session.group(2));
    }

    boolean enabled()
    {
        return BourseConfig.parseBoolean("fix.enabled", values.getOrDefault("fix.enabled", "true"));
    }

    /**
     * The gateway's context (without its cluster client, which depends on how it reaches the node).
     */
    FixGateway.Context context(final File nodeDataDir, final List<BourseConfig.InstrumentConfig> instruments)
    {
        final String dataDir = values.getOrDefault("fix.data.dir", "");
        final FixGateway.Context context = new FixGateway.Context()
            .dataDir(dataDir.isEmpty() ? new File(nodeDataDir, "fix") : new File(dataDir))
            .host(values.getOrDefault("fix.host", "127.0.0.1"))
            .port((int)number("fix.port", 9880, 1, 65535))
            .compId(values.getOrDefault("fix.comp.id", "BOURSE"))
            .logonLockout((int)number("fix.logon.max.failures", 5, 1, 1000),
                number("fix.logon.failure.window.ms", 60_000, 1, Long.MAX_VALUE / 2),
                number("fix.logon.lockout.ms", 300_000, 0, Long.MAX_VALUE / 2))
            .sendingTimeWindowMs(number("fix.sending.time.window.ms", 120_000, 1, Long.MAX_VALUE / 2))
            .archivePruneIntervalMs(number("fix.archive.prune.interval.ms",
                FixGateway.DEFAULT_ARCHIVE_PRUNE_INTERVAL_MS, 0, Long.MAX_VALUE / 2))
            .agentYieldWindowNs(TimeUnit.MICROSECONDS.toNanos(number("fix.yield.us",
                TimeUnit.NANOSECONDS.toMicros(FixGateway.DEFAULT_YIELD_WINDOW_NS), 0, 1_000_000)));
        final String endOfDay = values.getOrDefault("fix.end.of.day.utc", "").trim();
        if (!endOfDay.isEmpty())
        {
            try
            {
                context.endOfDayUtc(LocalTime.parse(endOfDay));
            }
            catch (final DateTimeParseException ex)
            {
                throw new BourseConfig.ConfigException("configuration key 'fix.end.of.day.utc': expected a time of " +
                    "day in UTC as HH:MM, got '" + endOfDay + "'");
            }
        }
        final FixSessionSpec.RateLimit rateLimit = rateLimit("fix.");
        if (rateLimit != null)
        {
            context.messageRateLimit(rateLimit.perSecond(), rateLimit.burst());
        }
        for (final BourseConfig.InstrumentConfig instrument : instruments)
        {
            context.instrument(new FixInstrument(instrument.symbol(), instrument.id(), instrument.priceScale(),
                instrument.quantityScale(), instrument.quote().scale()));
        }
        final Set<String> compIds = new LinkedHashSet<>();
        for (final String key : values.keySet())
        {
            final Matcher session = SESSION_KEY.matcher(key);
            if (session.matches())
            {
                compIds.add(session.group(1));
            }
        }
        for (final String compId : compIds)
        {
            final String prefix = "fix.session." + compId + ".";
            final String password = values.get(prefix + "password");
            if (password == null || password.isEmpty())
            {
                throw new BourseConfig.ConfigException("configuration key '" + prefix + "password' is required");
            }
            if (!values.containsKey(prefix + "account"))
            {
                throw new BourseConfig.ConfigException("configuration key '" + prefix + "account' is required");
            }
            context.session(new FixSessionSpec(compId, password, number(prefix + "account", 0, 1, Long.MAX_VALUE),
                cancelOnDisconnect(prefix + "cancel.on.disconnect"),
                number(prefix + "cancel.on.disconnect.grace.ms", 0, 0, Long.MAX_VALUE / 2), rateLimit(prefix)));
        }
        return context;
    }

    /**
     * The rate limit under {@code prefix} ({@code rate.limit.per.second}, 0 for none, and {@code rate.limit.burst},
     * twice the rate unless given), or null when no rate is given there.
     */
    private FixSessionSpec.RateLimit rateLimit(final String prefix)
    {
        final String rateKey = prefix + "rate.limit.per.second";
        final String burstKey = prefix + "rate.limit.burst";
        final String rate = values.get(rateKey);
        if (rate == null || rate.isEmpty())
        {
            if (values.containsKey(burstKey))
            {
                throw new BourseConfig.ConfigException(
                    "configuration key '" + burstKey + "' needs '" + rateKey + "' as well");
            }
            return null;
        }
        final long perSecond = number(rateKey, 0, 0, 1_000_000_000);
        return new FixSessionSpec.RateLimit(perSecond,
            perSecond == 0 ? 0 : number(burstKey, Math.max(1, 2 * perSecond), 1, 1_000_000_000));
    }

    private FixSessionSpec.CancelOnDisconnect cancelOnDisconnect(final String key)
    {
        final String text = values.getOrDefault(key, "NONE").trim();
        for (final FixSessionSpec.CancelOnDisconnect value : FixSessionSpec.CancelOnDisconnect.values())
        {
            if (value.name().equalsIgnoreCase(text))
            {
                return value;
            }
        }
        throw new BourseConfig.ConfigException("configuration key '" + key + "': expected one of " +
            Arrays.toString(FixSessionSpec.CancelOnDisconnect.values()) + ", got '" + text + "'");
    }

    private long number(final String key, final long defaultValue, final long min, final long max)
    {
        final String text = values.get(key);
        if (text == null || text.isEmpty())
        {
            return defaultValue;
        }
        final long value;
        try
        {
            value = Long.parseLong(text.trim().replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw new BourseConfig.ConfigException(
                "configuration key '" + key + "': expected an integer, got '" + text + "'");
        }
        if (value < min || value > max)
        {
            throw new BourseConfig.ConfigException(
                "configuration key '" + key + "': expected " + min + " to " + max + ", got " + value);
        }
        return value;
    }
}
