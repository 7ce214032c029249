package io.bourse.app;

import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.TradingState;
import io.bourse.store.Store;
import io.bourse.store.StoreDatabase;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration of {@code run}, {@code node} and the journal tools: a properties file (by default the
 * documented {@code config/bourse.properties}, packaged in the jar) with command-line overrides, read into typed
 * values. Unknown keys and bad values are refused with a {@link ConfigException} naming the key.
 */
public final class BourseConfig
{
    /**
     * The packaged copy of {@code config/bourse.properties}.
     */
    public static final String DEFAULT_RESOURCE = "bourse.properties";

    private static final Pattern ASSET_KEY = Pattern.compile("asset\\.([^.]+)\\.(id|scale)");
    private static final Pattern INSTRUMENT_KEY = Pattern.compile("instrument\\.([^.]+)\\.(.+)");
    private static final Pattern ACCOUNT_KEY = Pattern.compile("account\\.([^.]+)\\.(.+)");
    private static final Pattern DEPOSIT_FIELD = Pattern.compile("deposit\\.([^.]+)(\\.transaction)?");
    private static final List<String> NODE_KEYS = List.of(
        "data.dir", "member.id", "member.hosts", "port.base", "aeron.dir", "snapshot.log.bytes", "snapshot.interval.ms",
        "snapshot.retained", "journal.segment.bytes", "journal.sync", "log.term.bytes", "history.bytes",
        "agent.yield.us", "agent.idle.deep.ms");
    private static final List<String> STORE_KEYS = List.of(
        "store.enabled", "store.jdbc.url", "store.jdbc.user", "store.jdbc.password", "store.sqlite.file",
        "store.batch.rows", "store.snapshot.log.bytes", "store.report.interval.ms", "store.thread.nice",
        "store.defer.max.ms", "store.restart.delay.ms", "store.restart.max.delay.ms");
    private static final Pattern HTTP_KEY = Pattern.compile(
        "http\\.(host|port|event\\.loops|auth\\.window\\.ms|auth\\.reject\\.replays|rate\\.limit\\.per\\.second|" +
            "rate\\.limit\\.burst|rate\\.limit\\.per\\.address\\.per\\.second|rate\\.limit\\.per\\.address\\.burst|" +
            "trusted\\.proxies|admin\\.audit\\.log|" +
            "idle\\.timeout\\.seconds|command\\.timeout\\.ms|recent\\.closed\\.orders|" +
            "recent\\.fills|demo\\.traders\\.per\\.second|ws\\.max\\.connections|ws\\.max\\.connections\\.per\\.address|" +
            "key\\.[^.]+\\.(secret|account|admin|readonly))");
    private static final List<String> INSTRUMENT_FIELDS = List.of(
        "id", "base", "quote", "price.scale", "tick", "quantity.scale", "lot", "min.quantity", "max.quantity",
        "band.bps", "reference.price", "maker.fee.ppm", "taker.fee.ppm", "state");
    private static final List<String> ACCOUNT_FIELDS = List.of(
        "max.order.quantity", "max.order.notional", "max.open.orders", "self.trade.prevention");
    private static final List<String> ACCOUNT_FEE_FIELDS = List.of("maker.fee.ppm", "taker.fee.ppm");

    /**
     * A configuration error: names the key and says what was expected.
     */
    public static final class ConfigException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public ConfigException(final String message)
        {
            super(message);
        }
    }

    /**
     * An asset to define at start.
     */
    public record AssetConfig(String symbol, int id, int scale)
    {
    }

    /**
     * An instrument to define at start, in engine units.
     */
    public record InstrumentConfig(
        String symbol, int id, AssetConfig base, AssetConfig quote, int priceScale, long tickSize, int quantityScale,
        long lotSize, long minQuantity, long maxQuantity, int priceBandBps, long referencePrice, int makerFeePpm,
        int takerFeePpm, TradingState tradingState)
    {
    }

    /**
     * A deposit applied once under a fixed transaction id.
     */
    public record DepositConfig(AssetConfig asset, long amount, long transactionId)
    {
    }

    /**
     * A demo account: its deposits and, when given, its limits and its own fee rates (-1 for the instruments').
     */
    public record AccountConfig(
        long id, List<DepositConfig> deposits, boolean hasLimits, long maxOrderQuantity, long maxOrderNotional,
        int maxOpenOrders, SelfTradePrevention selfTradePrevention, boolean hasFees, int makerFeePpm, int takerFeePpm)
    {
    }

    private final Map<String, String> values;
    private final Map<String, AssetConfig> assets = new LinkedHashMap<>();
    private final List<InstrumentConfig> instruments = new ArrayList<>();
    private final List<AccountConfig> accounts = new ArrayList<>();
    private final FixConfig fix;

    private BourseConfig(final Map<String, String> values)
    {
        this.values = values;
        for (final String key : values.keySet())
        {
            checkKnown(key);
        }
        // Check every node value now, so that a bad one is reported before anything starts.
        nodeContext();
        storeContext();
        readAssets();
        readInstruments();
        readAccounts();
        fix = new FixConfig(values);
        // The FIX values too are checked now, before anything starts.
        fix.enabled();
        fix.context(new File("."), instruments);
    }

    /**
     * Read a configuration.
     *
     * @param file      the properties file, or null for the packaged default.
     * @param overrides keys and values that replace the file's.
     */
    public static BourseConfig load(final File file, final Map<String, String> overrides)
    {
        final Properties properties = new Properties();
        try
        {
            if (file == null)
            {
                try (InputStream in = BourseConfig.class.getResourceAsStream(DEFAULT_RESOURCE))
                {
                    if (in == null)
                    {
                        throw new ConfigException("the default configuration " + DEFAULT_RESOURCE + " is not in the jar");
                    }
                    properties.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
                }
            }
            else
            {
                try (Reader reader = Files.newBufferedReader(file.toPath(), StandardCharsets.UTF_8))
                {
                    properties.load(reader);
                }
            }
        }
        catch (final java.nio.file.NoSuchFileException ex)
        {
            throw new ConfigException("configuration file not found: " + file);
        }
        catch (final IOException ex)
        {
            throw new ConfigException("cannot read configuration file " + file + ": " + ex.getMessage());
        }
        final Map<String, String> values = new TreeMap<>();
        for (final String name : properties.stringPropertyNames())
        {
            values.put(name, properties.getProperty(name).trim());
        }
        for (final Map.Entry<String, String> entry : overrides.entrySet())
        {
            values.put(entry.getKey(), entry.getValue().trim());
        }
        return new BourseConfig(values);
    }

    /**
     * @return the node's context as configured; its log goes to standard output.
     */
    public ClusterNode.Context nodeContext()
    {
        final List<String> hosts = Arrays.stream(string("member.hosts", "localhost").split(","))
            .map(String::trim).toList();
        if (hosts.isEmpty() || hosts.stream().anyMatch(String::isEmpty))
        {
            throw new ConfigException("configuration key 'member.hosts': expected host names separated by commas, got '" +
                string("member.hosts", "") + "'");
        }
        final int memberId = integer("member.id", 0, 0, hosts.size() - 1);
        final int portBase = integer("port.base", 9000, 1, 65535 - hosts.size() * ClusterNode.PORTS_PER_MEMBER);
        final ClusterNode.Context context = new ClusterNode.Context()
            .dataDir(new File(string("data.dir", "data")))
            .memberId(memberId)
            .memberHosts(hosts)
            .portBase(portBase)
            .snapshotLogBytes(longValue("snapshot.log.bytes", 512L * 1024 * 1024, 1, Long.MAX_VALUE))
            .snapshotIntervalNs(TimeUnit.MILLISECONDS.toNanos(
                longValue("snapshot.interval.ms", TimeUnit.MINUTES.toMillis(30), 1, Long.MAX_VALUE / 1_000_000)))
            .retainedSnapshots(integer("snapshot.retained", 2, 1, 1000))
            .segmentFileLength(powerOfTwo("journal.segment.bytes", 64 * 1024 * 1024, 64 * 1024, 1 << 30))
            .journalSync(parseBoolean("journal.sync", string("journal.sync", "false")))
            .logTermLength(powerOfTwo("log.term.bytes", 16 * 1024 * 1024, 64 * 1024, 1 << 30))
            .historyCapacityBytes(powerOfTwo("history.bytes", 8 * 1024 * 1024, 4096, 1 << 30))
            .agentYieldWindowNs(agentYieldWindowNs())
            .agentDeepIdleNs(agentDeepIdleNs());
        if (context.segmentFileLength() < context.logTermLength())
        {
            throw new ConfigException("configuration key 'journal.segment.bytes': must be at least log.term.bytes (" +
                context.logTermLength() + "), got " + context.segmentFileLength());
        }
        final String aeronDir = string("aeron.dir", "");
        if (!aeronDir.isEmpty())
        {
            context.aeronDirectoryName(aeronDir);
        }
        return context;
    }

    /**
     * @return whether {@code run} runs the post-trade store in the node's process.
     */
    public boolean storeEnabled()
    {
        return parseBoolean("store.enabled", string("store.enabled", "true"));
    }

    /**
     * @return the value of a true/false key.
     * @throws ConfigException naming the key when the text is neither.
     */
    static boolean parseBoolean(final String key, final String text)
    {
        final String value = text.trim();
        if (!value.equals("true") && !value.equals("false"))
        {
            throw new ConfigException("configuration key '" + key + "': expected true or false, got '" + text + "'");
        }
        return value.equals("true");
    }

    /**
     * @return the post-trade store's context for this node (its data directory and media driver) as configured.
     */
    public Store.Context storeContext()
    {
        storeEnabled();
        final ClusterNode.Context node = nodeContext();
        final Store.Context context = new Store.Context()
            .nodeDataDir(node.dataDir())
            .aeronDirectoryName(node.aeronDirectoryName())
            .jdbcUrl(string("store.jdbc.url", ""))
            .user(string("store.jdbc.user", ""))
            .password(string("store.jdbc.password", ""))
            .batchRows(integer("store.batch.rows", 20_000, 1, 10_000_000))
            .snapshotLogBytes(longValue("store.snapshot.log.bytes", 64L * 1024 * 1024, 1, Long.MAX_VALUE))
            .threadNice(integer("store.thread.nice", 19, 0, 19))
            .maxDeferralMs(longValue("store.defer.max.ms", Store.RUN_MAX_DEFERRAL_MS, 0, TimeUnit.HOURS.toMillis(24)));
        final String url = context.jdbcUrl();
        if (!url.isEmpty() && !url.startsWith("jdbc:postgresql:"))
        {
            throw new ConfigException("configuration key 'store.jdbc.url': expected empty (SQLite in the data " +
                "directory) or a jdbc:postgresql:// URL, got '" + StoreDatabase.redacted(url) + "'");
        }
        final long restartDelayMs = longValue("store.restart.delay.ms", 1_000, 0, TimeUnit.HOURS.toMillis(1));
        final long maxRestartDelayMs = longValue("store.restart.max.delay.ms", 30_000, 0, TimeUnit.HOURS.toMillis(1));
        if (maxRestartDelayMs < restartDelayMs)
        {
            throw new ConfigException("configuration key 'store.restart.max.delay.ms': expected at least " +
                "store.restart.delay.ms (" + restartDelayMs + "), got " + maxRestartDelayMs);
        }
        context.restartDelayMs(restartDelayMs, maxRestartDelayMs);
        final String sqliteFile = string("store.sqlite.file", "");
        if (!sqliteFile.isEmpty())
        {
            context.sqliteFile(new File(sqliteFile));
        }
        return context;
    }

    /**
     * @return how often {@code run} and {@code store} print the store's progress and lag, 0 for never.
     */
    public long storeReportIntervalMs()
    {
        return longValue("store.report.interval.ms", 10_000, 0, Long.MAX_VALUE);
    }

    /**
     * @return the keys starting with the prefix and their values, e.g. {@code section("http.")} for the HTTP
     * gateway's settings, which {@code HttpConfig} reads.
     */
    public Map<String, String> section(final String prefix)
    {
        final Map<String, String> section = new TreeMap<>();
        values.forEach((key, value) ->
        {
            if (key.startsWith(prefix))
            {
                section.put(key, value);
            }
        });
        return section;
    }

    /**
     * @return true when {@code run} starts the FIX gateway (fix.enabled, true by default).
     */
    public boolean fixEnabled()
    {
        return fix.enabled();
    }

    /**
     * @return the FIX gateway's context as configured (fix.* keys), its data in {@code <data.dir>/fix} unless
     * fix.data.dir says otherwise; the caller adds the cluster client.
     */
    public io.bourse.gateway.fix.FixGateway.Context fixContext()
    {
        return fix.context(new File(string("data.dir", "data")), instruments).agentDeepIdleNs(agentDeepIdleNs());
    }

    /**
     * @return how long the node's and the HTTP gateway's agents yield after work while the machine has CPU to
     * spare: configuration {@code agent.yield.us}.
     */
    long agentYieldWindowNs()
    {
        return TimeUnit.MICROSECONDS.toNanos(longValue("agent.yield.us",
            TimeUnit.NANOSECONDS.toMicros(NodeIdleStrategy.DEFAULT_YIELD_WINDOW_NS), 0, 1_000_000));
    }

    /**
     * @return how long no client may be active before the agents of the node and the gateways park for up to 1 ms:
     * configuration {@code agent.idle.deep.ms}, 0 for never.
     */
    long agentDeepIdleNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(longValue("agent.idle.deep.ms",
            TimeUnit.NANOSECONDS.toMillis(NodeIdleStrategy.DEFAULT_DEEP_IDLE_AFTER_NS), 0, 3_600_000));
    }

    public List<AssetConfig> assets()
    {
        return List.copyOf(assets.values());
    }

    public List<InstrumentConfig> instruments()
    {
        return instruments;
    }

    public List<AccountConfig> accounts()
    {
        return accounts;
    }

    private void checkKnown(final String key)
    {
        if (NODE_KEYS.contains(key) || STORE_KEYS.contains(key) || ASSET_KEY.matcher(key).matches() ||
            HTTP_KEY.matcher(key).matches() || FixConfig.isFixKey(key))
        {
            return;
        }
        final Matcher instrument = INSTRUMENT_KEY.matcher(key);
        if (instrument.matches() && INSTRUMENT_FIELDS.contains(instrument.group(2)))
        {
            return;
        }
        final Matcher account = ACCOUNT_KEY.matcher(key);
        if (account.matches() &&
            (ACCOUNT_FIELDS.contains(account.group(2)) || ACCOUNT_FEE_FIELDS.contains(account.group(2)) ||
            DEPOSIT_FIELD.matcher(account.group(2)).matches()))
        {
            return;
        }
        throw new ConfigException("unknown configuration key '" + key + "' (see config/bourse.properties for the keys)");
    }

    private void readAssets()
    {
        final TreeSet<String> symbols = new TreeSet<>();
        for (final String key : values.keySet())
        {
            final Matcher matcher = ASSET_KEY.matcher(key);
            if (matcher.matches())
            {
                symbols.add(matcher.group(1));
            }
        }
        final Map<Integer, String> byId = new TreeMap<>();
        for (final String symbol : symbols)
        {
            final String prefix = "asset." + symbol + ".";
            final AssetConfig asset = new AssetConfig(
                symbol, (int)required(prefix + "id", Integer.MAX_VALUE), (int)required(prefix + "scale", 18));
            final String other = byId.put(asset.id(), symbol);
            if (other != null)
            {
                throw new ConfigException("configuration key '" + prefix + "id': id " + asset.id() +
                    " is also asset " + other + "'s");
            }
            assets.put(symbol, asset);
        }
    }

    private void readInstruments()
    {
        final TreeSet<String> symbols = new TreeSet<>();
        for (final String key : values.keySet())
        {
            final Matcher matcher = INSTRUMENT_KEY.matcher(key);
            if (matcher.matches())
            {
                symbols.add(matcher.group(1));
            }
        }
        for (final String symbol : symbols)
        {
            final String prefix = "instrument." + symbol + ".";
            final int id = (int)required(prefix + "id", Integer.MAX_VALUE);
            final AssetConfig base = asset(prefix + "base");
            final AssetConfig quote = asset(prefix + "quote");
            final int priceScale = (int)required(prefix + "price.scale", 18);
            final int quantityScale = (int)required(prefix + "quantity.scale", 18);
            final long tick = decimal(prefix + "tick", priceScale, null);
            final long lot = decimal(prefix + "lot", quantityScale, null);
            if (tick <= 0 || lot <= 0)
            {
                throw new ConfigException("configuration key '" + prefix + (tick <= 0 ? "tick" : "lot") +
                    "': must be greater than 0");
            }
            instruments.add(new InstrumentConfig(
                symbol, id, base, quote, priceScale, tick, quantityScale, lot,
                decimal(prefix + "min.quantity", quantityScale, "0"),
                decimal(prefix + "max.quantity", quantityScale, "0"),
                integer(prefix + "band.bps", 0, 0, 10_000),
                decimal(prefix + "reference.price", priceScale, "0"),
                integer(prefix + "maker.fee.ppm", 0, 0, 1_000_000),
                integer(prefix + "taker.fee.ppm", 0, 0, 1_000_000),
                enumValue(prefix + "state", TradingState.OPEN, TradingState.class)));
        }
    }

    private void readAccounts()
    {
        final Map<Long, String> ids = new TreeMap<>();
        for (final String key : values.keySet())
        {
            final Matcher matcher = ACCOUNT_KEY.matcher(key);
            if (matcher.matches())
            {
                final long id;
                try
                {
                    id = Long.parseLong(matcher.group(1));
                }
                catch (final NumberFormatException ex)
                {
                    throw new ConfigException("configuration key '" + key + "': the account id must be a positive " +
                        "integer, got '" + matcher.group(1) + "'");
                }
                if (id <= 0)
                {
                    throw new ConfigException("configuration key '" + key + "': the account id must be positive");
                }
                ids.put(id, matcher.group(1));
            }
        }
        final Map<Long, String> transactions = new TreeMap<>();
        for (final Map.Entry<Long, String> account : ids.entrySet())
        {
            final String prefix = "account." + account.getValue() + ".";
            final List<DepositConfig> deposits = new ArrayList<>();
            for (final AssetConfig asset : assets.values())
            {
                final String depositKey = prefix + "deposit." + asset.symbol();
                if (values.containsKey(depositKey))
                {
                    final long amount = decimal(depositKey, asset.scale(), null);
                    if (amount <= 0)
                    {
                        throw new ConfigException("configuration key '" + depositKey + "': must be greater than 0");
                    }
                    final long transactionId = required(depositKey + ".transaction", Long.MAX_VALUE);
                    final String other = transactions.put(transactionId, depositKey);
                    if (other != null)
                    {
                        throw new ConfigException("configuration key '" + depositKey + ".transaction': transaction id " +
                            transactionId + " is also used by " + other);
                    }
                    deposits.add(new DepositConfig(asset, amount, transactionId));
                }
                else if (values.containsKey(depositKey + ".transaction"))
                {
                    throw new ConfigException("configuration key '" + depositKey + ".transaction': no amount " +
                        "given in '" + depositKey + "'");
                }
            }
            for (final String key : values.keySet())
            {
                final Matcher matcher = DEPOSIT_FIELD.matcher(key.startsWith(prefix) ? key.substring(prefix.length()) : "");
                if (matcher.matches() && !assets.containsKey(matcher.group(1)))
                {
                    throw new ConfigException("configuration key '" + key + "': unknown asset '" + matcher.group(1) + "'");
                }
            }
            final boolean hasLimits = ACCOUNT_FIELDS.stream().anyMatch(field -> values.containsKey(prefix + field));
            final boolean hasFees = ACCOUNT_FEE_FIELDS.stream().anyMatch(field -> values.containsKey(prefix + field));
            accounts.add(new AccountConfig(
                account.getKey(), deposits, hasLimits,
                longValue(prefix + "max.order.quantity", 0, 0, Long.MAX_VALUE),
                longValue(prefix + "max.order.notional", 0, 0, Long.MAX_VALUE),
                integer(prefix + "max.open.orders", 0, 0, Integer.MAX_VALUE),
                enumValue(prefix + "self.trade.prevention", SelfTradePrevention.ACCOUNT_DEFAULT,
                    SelfTradePrevention.class),
                hasFees,
                integer(prefix + "maker.fee.ppm", -1, -1, 1_000_000),
                integer(prefix + "taker.fee.ppm", -1, -1, 1_000_000)));
        }
    }

    private AssetConfig asset(final String key)
    {
        final String symbol = values.get(key);
        if (symbol == null || symbol.isEmpty())
        {
            throw new ConfigException("configuration key '" + key + "' is required");
        }
        final AssetConfig asset = assets.get(symbol);
        if (asset == null)
        {
            throw new ConfigException("configuration key '" + key + "': unknown asset '" + symbol +
                "' (assets: " + String.join(", ", assets.keySet()) + ")");
        }
        return asset;
    }

    private String string(final String key, final String defaultValue)
    {
        return values.getOrDefault(key, defaultValue);
    }

    private long required(final String key, final long max)
    {
        if (!values.containsKey(key))
        {
            throw new ConfigException("configuration key '" + key + "' is required");
        }
        return longValue(key, 0, key.endsWith(".id") || key.endsWith(".transaction") ? 1 : 0, max);
    }

    private int integer(final String key, final int defaultValue, final int min, final int max)
    {
        return (int)longValue(key, defaultValue, min, max);
    }

    private long longValue(final String key, final long defaultValue, final long min, final long max)
    {
        final String text = values.get(key);
        if (text == null || text.isEmpty())
        {
            return defaultValue;
        }
        final long value;
        try
        {
            value = Long.parseLong(text.replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException("configuration key '" + key + "': expected an integer, got '" + text + "'");
        }
        if (value < min || value > max)
        {
            throw new ConfigException("configuration key '" + key + "': expected " + min + " to " + max + ", got " + value);
        }
        return value;
    }

    private int powerOfTwo(final String key, final int defaultValue, final int min, final int max)
    {
        final int value = integer(key, defaultValue, min, max);
        if (Integer.bitCount(value) != 1)
        {
            throw new ConfigException("configuration key '" + key + "': expected a power of two, got " + value);
        }
        return value;
    }

    /**
     * A decimal string scaled to an integer with {@code scale} decimal places; refuses finer values.
     */
    private long decimal(final String key, final int scale, final String defaultValue)
    {
        final String text = values.getOrDefault(key, defaultValue);
        if (text == null || text.isEmpty())
        {
            throw new ConfigException("configuration key '" + key + "' is required");
        }
        try
        {
            final BigDecimal value = new BigDecimal(text);
            if (value.signum() < 0)
            {
                throw new ConfigException("configuration key '" + key + "': must not be negative, got " + text);
            }
            if (value.stripTrailingZeros().scale() > scale)
            {
                throw new ConfigException("configuration key '" + key + "': " + text + " has more than " + scale +
                    " decimal places");
            }
            return value.movePointRight(scale).longValueExact();
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException("configuration key '" + key + "': expected a decimal number, got '" + text + "'");
        }
        catch (final ArithmeticException ex)
        {
            throw new ConfigException("configuration key '" + key + "': " + text + " is too large");
        }
    }

    private <E extends Enum<E>> E enumValue(final String key, final E defaultValue, final Class<E> type)
    {
        final String text = values.get(key);
        if (text == null || text.isEmpty())
        {
            return defaultValue;
        }
        for (final E value : type.getEnumConstants())
        {
            if (!value.name().equals("NULL_VAL") && value.name().equalsIgnoreCase(text))
            {
                return value;
            }
        }
        final List<String> names = Arrays.stream(type.getEnumConstants())
            .map(Enum::name).filter(name -> !name.equals("NULL_VAL")).toList();
        throw new ConfigException("configuration key '" + key + "': expected one of " + String.join(", ", names) +
            ", got '" + text + "'");
    }
}
