package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bourse.cluster.ClientActivity;
import io.bourse.cluster.FatalErrors;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.engine.Engine;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP gateway: REST API under {@code /api/v1}, WebSocket market data, private channels and order entry on
 * {@code /ws},
 * the OpenAPI document at {@code /api/openapi.json}, the web trading UI at {@code /} and the monitor at
 * {@code /monitor}, Prometheus metrics at {@code /metrics} and {@code /health}.
 * <p>
 * Request threads (Vert.x event loops) parse, authenticate and rate-limit; everything that touches exchange state
 * goes to the single {@link GatewayAgent} thread, which talks to the cluster. Listens on 127.0.0.1 by default.
 */
public final class HttpGateway implements AutoCloseable
{
    /**
     * Gateway configuration.
     */
    public static final class Context
    {
        private String host = "127.0.0.1";
        private int port = 8080;
        private int eventLoops = 1;
        private List<ApiKey> apiKeys = List.of();
        private long authWindowMs = 5_000;
        private boolean rejectReplays = true;
        private double rateLimitPerSecond = 50;
        private double rateLimitBurst = 100;
        private double addressRateLimitPerSecond = 100;
        private double addressRateLimitBurst = 200;
        private int maxBodyBytes = 16 * 1024;
        private int idleTimeoutSeconds = 120;
        private long commandTimeoutMs = 10_000;
        private int recentClosedOrders = ReadModel.DEFAULT_RECENT_CLOSED_ORDERS_ALL_ACCOUNTS;
        private int recentFills = ReadModel.DEFAULT_RECENT_FILLS_ALL_ACCOUNTS;
        private long heartbeatIntervalMs = 5_000;
        private long agentYieldWindowNs;
        private long agentDeepIdleNs = NodeIdleStrategy.DEFAULT_DEEP_IDLE_AFTER_NS;
        private int queueCapacity = 64 * 1024;
        private int maxWebSockets = 1_000;
        private int maxWebSocketsPerAddress = 100;
        private TrustedProxies trustedProxies = TrustedProxies.NONE;
        private ExchangeClient.Context clientContext;
        private NodeStatus nodeStatus = NodeStatus.UNKNOWN;
        private final List<MonitorSection> monitorSections = new ArrayList<>();
        private final List<SessionCounts> sessionCounts = new ArrayList<>();
        private HistorySource history;
        private File adminAuditLog;
        private StoreStatus storeStatus;
        private Consumer<Throwable> onFatalError = FatalErrors.HALT;

        public Context host(final String host)
        {
            this.host = host;
            return this;
        }

        /**
         * Port to listen on; 0 picks a free one (see {@link HttpGateway#port()}).
         */
        public Context port(final int port)
        {
            this.port = port;
            return this;
        }

        public Context eventLoops(final int eventLoops)
        {
            this.eventLoops = eventLoops;
            return this;
        }

        public Context apiKeys(final List<ApiKey> apiKeys)
        {
            this.apiKeys = List.copyOf(apiKeys);
            return this;
        }

        /**
         * How far a request's timestamp may be from the server's clock.
         */
        public Context authWindowMs(final long authWindowMs)
        {
            this.authWindowMs = authWindowMs;
            return this;
        }

        /**
         * Whether a signed request that acts (POST, PUT, DELETE; a WebSocket's authentication) is refused when it comes
         * again within the auth window (default true). Off only for load generators that replay pre-signed requests.
         */
        public Context rejectReplays(final boolean rejectReplays)
        {
            this.rejectReplays = rejectReplays;
            return this;
        }

        /**
         * Token bucket per API key: sustained requests a second and burst size.
         */
        public Context rateLimit(final double perSecond, final double burst)
        {
            this.rateLimitPerSecond = perSecond;
            this.rateLimitBurst = burst;
            return this;
        }

        /**
         * Token bucket per client IP address (an IPv6 one by its /64) for the requests no API key's signature vouches
         * for: the public endpoints but the health and metrics probes, the web UI's files, WebSocket upgrades, and
         * signed requests or WebSocket auths that fail authentication (whose answer becomes RATE_LIMITED once the
         * address has no token left). A signed request is counted against its key instead. Behind a reverse proxy,
         * name it in {@link #trustedProxies}. A rate of 0 sets no limit.
         */
        public Context addressRateLimit(final double perSecond, final double burst)
        {
            this.addressRateLimitPerSecond = perSecond;
            this.addressRateLimitBurst = burst;
            return this;
        }

        /**
         * The reverse proxies whose {@code X-Forwarded-For} names the client that the limits per address count a
         * request against (see {@link TrustedProxies}); with none, every request is its connection's peer's.
         */
        public Context trustedProxies(final TrustedProxies trustedProxies)
        {
            this.trustedProxies = Objects.requireNonNull(trustedProxies, "trustedProxies");
            return this;
        }

        /**
         * The closed orders and the fills the gateway keeps for all accounts together (each account its most recent,
         * up to 1,000 of each); beyond them the oldest go. Older ones are the post-trade store's history.
         */
        public Context recentRows(final int closedOrders, final int fills)
        {
            this.recentClosedOrders = closedOrders;
            this.recentFills = fills;
            return this;
        }

        /**
         * How many WebSocket connections the gateway holds at once, and how many of them from one IP address (a
         * client's, through the {@link #trustedProxies}); an upgrade beyond either is refused (503 or 429 with a
         * problem body). Each connection may have about 1 MiB of pushed messages waiting for a slow reader (then they are
         * dropped) and 4 MiB of answers (then it is closed: see {@link GatewayAgent#WS_ANSWERS_QUEUE_BYTES}).
         */
        public Context webSocketLimits(final int maxWebSockets, final int maxWebSocketsPerAddress)
        {
            this.maxWebSockets = maxWebSockets;
            this.maxWebSocketsPerAddress = maxWebSocketsPerAddress;
            return this;
        }

        /**
         * A connection on which nothing is read or written for this long is closed; 0 keeps idle connections open. A
         * WebSocket stays open through the gateway's heartbeats while its client reads them.
         */
        public Context idleTimeoutSeconds(final int idleTimeoutSeconds)
        {
            this.idleTimeoutSeconds = idleTimeoutSeconds;
            return this;
        }

        /**
         * A command with no answer from the exchange after this long is answered {@code 504 OUTCOME_UNKNOWN}: the
         * client is not kept waiting through an outage, and is told that the exchange may still apply it.
         */
        public Context commandTimeoutMs(final long commandTimeoutMs)
        {
            this.commandTimeoutMs = commandTimeoutMs;
            return this;
        }

        public Context maxBodyBytes(final int maxBodyBytes)
        {
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        public Context heartbeatIntervalMs(final long heartbeatIntervalMs)
        {
            this.heartbeatIntervalMs = heartbeatIntervalMs;
            return this;
        }

        /**
         * How long the gateway thread keeps yielding after work while the machine has CPU to spare (see
         * {@link NodeIdleStrategy}); 0, the default, parks after a few yields.
         */
        public Context agentYieldWindowNs(final long agentYieldWindowNs)
        {
            this.agentYieldWindowNs = agentYieldWindowNs;
            return this;
        }

        /**
         * How long no client may be active in the JVM ({@link io.bourse.cluster.ClientActivity}) before the gateway
         * thread may park for up to 1 ms instead of 0.1 ms (see {@link NodeIdleStrategy}); 0 for never. Default a
         * second.
         */
        public Context agentDeepIdleNs(final long agentDeepIdleNs)
        {
            this.agentDeepIdleNs = agentDeepIdleNs;
            return this;
        }

        public long agentDeepIdleNs()
        {
            return agentDeepIdleNs;
        }

        /**
         * How the gateway reaches the cluster (e.g. {@code ClusterNode#clientContext()} in the same JVM).
         */
        public Context clientContext(final ExchangeClient.Context clientContext)
        {
            this.clientContext = clientContext;
            return this;
        }

        public Context nodeStatus(final NodeStatus nodeStatus)
        {
            this.nodeStatus = nodeStatus;
            return this;
        }

        /**
         * Add a group of figures to the monitor page and {@code /metrics}.
         */
        public Context monitorSection(final MonitorSection section)
        {
            this.monitorSections.add(section);
            return this;
        }

        /**
         * The post-trade store's history: for {@code /api/v1/history/*} (without one those endpoints answer 404
         * {@code NO_HISTORY}), orders the gateway no longer holds (by id and by client order id), the trades it
         * missed, for the ticker's day and the candles, and the hours of trades, for candles older than its day.
         */
        public Context history(final HistorySource history)
        {
            this.history = history;
            return this;
        }

        /**
         * The post-trade store's lag for {@code /metrics} and the monitor page; without one both say there is no
         * store.
         */
        public Context storeStatus(final StoreStatus storeStatus)
        {
            this.storeStatus = storeStatus;
            return this;
        }

        /**
         * What the gateway does when its duty-cycle thread dies of an {@link Error}: requests could no longer reach
         * the exchange, and a gateway that stays up without it answers every one with a timeout. The default halts the
         * JVM with {@link FatalErrors#EXIT_CODE}, so that a supervisor restarts it.
         */
        public Context onFatalError(final Consumer<Throwable> onFatalError)
        {
            this.onFatalError = onFatalError;
            return this;
        }

        /**
         * Where the operators' audit trail goes ({@link AdminAudit}): a line per signed admin request that would
         * change the exchange. Null (the default) keeps none.
         */
        public Context adminAuditLog(final File adminAuditLog)
        {
            this.adminAuditLog = adminAuditLog;
            return this;
        }

        /**
         * Another gateway's sessions (FIX) to show beside the WebSocket sessions.
         */
        public Context sessionCounts(final SessionCounts counts)
        {
            this.sessionCounts.add(counts);
            return this;
        }
    }

    /**
     * What a restart of the gateway does after a fatal error, for the operator reading the log.
     */
    private static final String RESTART = "clients reconnect and resubscribe";
    private static final Pattern SYMBOL = Pattern.compile("[A-Za-z0-9._-]{1,16}");
    private static final Pattern ID = Pattern.compile("[0-9]{1,18}");
    /** Latest time a history filter takes, in epoch milliseconds: the store keeps epoch nanoseconds in a long. */
    private static final long MAX_TIME_MS = Long.MAX_VALUE / 1_000_000 - 1;
    /**
     * A history cursor as the API shows it: the time (epoch nanoseconds) and id of a page's last row.
     */
    private static final Pattern CURSOR = Pattern.compile("([0-9]{1,18}|[1-8][0-9]{18})-([1-9][0-9]{0,17})");
    /**
     * History queries waiting for or at the database, beyond which another is answered 503 BUSY.
     */
    static final int MAX_WAITING_HISTORY_QUERIES = 64;
    /**
     * Most accounts one page of the admin's list may hold.
     */
    private static final int MAX_ACCOUNTS_PAGE = 1000;
    private static final long HOUR_NS = 60 * MinuteBars.MINUTE_NS;
    /**
     * Most orders one {@code POST /api/v1/orders/batch} may hold.
     */
    static final int MAX_BATCH_ORDERS = 20;
    private static final String BATCH_PATH = "/api/v1/orders/batch";
    /**
     * Trades read from the store in one query.
     */
    private static final int MISSING_TRADES_PART = 10_000;
    /**
     * Longest pause between asking the store again for trades it does not hold yet, or cannot be read.
     */
    private static final long MAX_MISSING_TRADES_PAUSE_MS = 5_000;
    private static final Pattern SMALL_INTEGER = Pattern.compile("[0-9]{1,9}");
    private static final Map<String, String> CONTENT_TYPES = Map.of(
        "html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8", "css", "text/css; charset=utf-8",
        "json", "application/json", "svg", "image/svg+xml");
    private static final Set<String> ORDER_FIELDS = Set.of("symbol", "side", "type", "timeInForce", "price", "quantity",
        "quoteAmount", "postOnly", "selfTradePrevention", "clientOrderId", "expireTime", "stopPrice");
    private static final Set<String> REPLACE_FIELDS = Set.of("price", "quantity", "clientOrderId", "stopPrice");
    private static final Set<String> CANCEL_ALL_AFTER_FIELDS = Set.of("timeoutMs");
    /**
     * Shortest and longest timeout of a dead man's switch: a second is about the least a client can keep up with
     * over HTTP; a day, about the most that is still a dead man's switch.
     */
    private static final long MIN_CANCEL_ALL_AFTER_MS = 1_000;
    private static final long MAX_CANCEL_ALL_AFTER_MS = Engine.MAX_CANCEL_ALL_AFTER_MS;
    /**
     * The highest fee rate the engine takes, in millionths of notional: the whole notional.
     */
    private static final int MAX_FEE_PPM = 1_000_000;
    private static final Set<String> INSTRUMENT_FIELDS = Set.of("id", "baseAsset", "quoteAsset", "priceScale",
        "tickSize", "quantityScale", "lotSize", "minQuantity", "maxQuantity", "priceBandBps", "referencePrice",
        "makerFeePpm", "takerFeePpm", "tradingState");
    private static final Set<String> WS_FIELDS = Set.of("op", "channel", "symbol", "key", "timestamp", "signature");
    /**
     * The fields of each order message; any message's fields are among {@link #WS_MESSAGE_FIELDS}, checked against
     * its op's once the op is known.
     */
    private static final Map<String, Set<String>> WS_ORDER_FIELDS = Map.of(
        "order.place", Set.of("op", "id", "order"),
        "order.replace", Set.of("op", "id", "orderId", "order"),
        "order.cancel", Set.of("op", "id", "orderId", "clientOrderId"),
        "orders.cancel", Set.of("op", "id", "symbol", "side"),
        "cancelOnDisconnect", Set.of("op", "id", "enabled", "scope"),
        "cancelAllAfter", Set.of("op", "id", "timeoutMs"));
    private static final Set<String> WS_MESSAGE_FIELDS = Set.of("op", "channel", "symbol", "key", "timestamp",
        "signature", "id", "order", "orderId", "clientOrderId", "side", "enabled", "scope", "timeoutMs");
    /**
     * Longest id a WebSocket order message may carry, which its response repeats.
     */
    private static final int MAX_WS_REQUEST_ID = 64;
    private static final String WS_BUSY = "{\"type\":\"error\",\"code\":\"BUSY\",\"detail\":\"the gateway is " +
        "overloaded: the message was not acted on; send it again shortly\"}";

    private final Context context;
    private final GatewayMetrics metrics = new GatewayMetrics();
    private final Authenticator authenticator;
    private final RateLimiter rateLimiter;
    /**
     * Null when there is no limit per address.
     */
    private final RateLimiter addressRateLimiter;
    private final AtomicInteger historyQueries = new AtomicInteger();
    /**
     * The answer to a WebSocket message over its connection's rate, which is a key's.
     */
    private final String wsRateLimited;
    private final GatewayAgent agent;
    private final AgentRunner agentRunner;
    private final Vertx vertx;
    private final HttpServer server;
    private final Map<String, byte[]> staticFiles = new HashMap<>();
    private final byte[] openApi;
    private final Operations operations;
    /**
     * Open WebSocket connections, in all and by client address: counted on the event loops, at the upgrade and at
     * the close.
     */
    private final AtomicInteger webSockets = new AtomicInteger();
    private final ConcurrentHashMap<String, Integer> webSocketsByAddress = new ConcurrentHashMap<>();
    /**
     * Ranges of trades the gateway's bars lack, for {@link #missingTradesReader} to read from the post-trade store.
     */
    private final LinkedBlockingQueue<ReadModel.MissingTrades> missingTradesToRead = new LinkedBlockingQueue<>();
    /**
     * Started with the first range; null before.
     */
    private volatile Thread missingTradesReader;
    private volatile boolean closed;
    /**
     * Null when none is kept.
     */
    private final AdminAudit adminAudit;

    /**
     * @return why the gateway could not keep its audit trail in that file (it is made if need be), or null.
     */
    public static String adminAuditLogProblem(final File file)
    {
        return AdminAudit.problem(file);
    }

    private HttpGateway(final Context context)
    {
        this.context = context;
        this.adminAudit = context.adminAuditLog == null ? null : AdminAudit.open(context.adminAuditLog, System.err);
        this.rateLimiter = new RateLimiter(context.rateLimitPerSecond, context.rateLimitBurst, "for this API key");
        this.addressRateLimiter = context.addressRateLimitPerSecond > 0 ? new RateLimiter(
            context.addressRateLimitPerSecond, context.addressRateLimitBurst,
            "from this address without a valid API key signature") : null;
        this.wsRateLimited = "{\"type\":\"error\",\"code\":\"RATE_LIMITED\",\"detail\":\"more than " +
            rateLimiter.describe() + " on this connection: the message was not acted on\"}";
        this.authenticator =
            new Authenticator(context.apiKeys, context.authWindowMs, context.rejectReplays, rateLimiter);
        this.agent = new GatewayAgent(context.clientContext, metrics, context.queueCapacity,
            TimeUnit.MILLISECONDS.toNanos(context.heartbeatIntervalMs),
            TimeUnit.MILLISECONDS.toNanos(context.commandTimeoutMs),
            new ReadModel(context.recentClosedOrders, context.recentFills));
        if (context.history != null)
        {
            agent.onMissingTrades(this::readMissingTrades);
        }
        this.openApi = resource("openapi.json");
        this.operations = new Operations(context.nodeStatus, context.monitorSections, context.storeStatus,
            context.sessionCounts, metrics, agent, this::isReady);
        for (final String name : List.of("index.html", "monitor.html", "app.js", "monitor.js", "api.js", "style.css"))
        {
            staticFiles.put(name, resource("web/" + name));
        }
        // Parks when idle, and yields between requests only while nothing else wants the CPU: the gateway thread
        // shares two cores with the node and the event loops.
        this.agentRunner = new AgentRunner(
            new NodeIdleStrategy(context.agentYieldWindowNs, context.agentDeepIdleNs),
            FatalErrors.handler(System.err, "bourse HTTP gateway", "gateway", RESTART, context.onFatalError,
                Throwable::printStackTrace), null, agent);
        AgentRunner.startOnThread(agentRunner,
            FatalErrors.threadFactory(System.err, "bourse HTTP gateway", RESTART, context.onFatalError));
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(context.eventLoops).setWorkerPoolSize(1)
            .setInternalBlockingPoolSize(1));
        this.server = vertx.createHttpServer(new HttpServerOptions()
            .setHost(context.host)
            .setPort(context.port)
            .setMaxWebSocketFrameSize(64 * 1024)
            .setHandle100ContinueAutomatically(true)
            // A client that vanished without a FIN (a crash, a NAT that forgot it) would hold its socket for ever.
            .setIdleTimeout(context.idleTimeoutSeconds)
            .setIdleTimeoutUnit(TimeUnit.SECONDS)
            .setTcpKeepAlive(true)
            .setTcpNoDelay(true));
        server.requestHandler(this::onRequest);
        server.invalidRequestHandler(this::onInvalidRequest);
        try
        {
            server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            close();
            throw new IllegalStateException("the HTTP gateway cannot listen on " + context.host + ":" + context.port +
                ": " + (ex.getCause() != null ? ex.getCause().getMessage() : ex.getMessage()), ex);
        }
    }

    /**
     * Start a gateway: it listens at once and serves orders once it holds the exchange's state.
     */
    public static HttpGateway launch(final Context context)
    {
        return new HttpGateway(context);
    }

    public int port()
    {
        return server.actualPort();
    }

    /**
     * @return true once connected to the cluster and holding its current state.
     */
    public boolean isReady()
    {
        return agent.isLive() && agent.isConnected();
    }

    /**
     * Wait until {@link #isReady()}.
     *
     * @throws IllegalStateException when not ready within the timeout.
     */
    public void awaitReady(final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (!isReady())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("the HTTP gateway did not get the exchange state within " +
                    TimeUnit.NANOSECONDS.toSeconds(timeoutNs) + " s");
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", ex);
            }
        }
    }

    public void close()
    {
        closed = true;
        final Thread reader = missingTradesReader;
        if (reader != null)
        {
            reader.interrupt();
            quietly(() -> reader.join(TimeUnit.SECONDS.toMillis(10)));
        }
        if (server != null)
        {
            quietly(() -> server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
        }
        if (vertx != null)
        {
            quietly(() -> vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
        }
        CloseHelper.quietClose(agentRunner);
        CloseHelper.quietClose(adminAudit);
    }

    private interface Action
    {
        void run() throws Exception;
    }

    private static void quietly(final Action action)
    {
        try
        {
            action.run();
        }
        catch (final Exception ignore)
        {
            // Closing: nothing more to do with it.
        }
    }

    /**
     * Count in the ticker's day and the candles the trades a state left the gateway without (made before its first,
     * or while it was cut off), from the post-trade store: without them, a restarted gateway's day would start at its
     * restart. On a thread of its own, one range after another: the store may need a while to hold them all, and a day
     * of trades to read, which it reads in parts so that the history queries, which share its connection, wait for
     * one part at most. Called on the gateway thread.
     */
    private void readMissingTrades(final ReadModel.MissingTrades range)
    {
        missingTradesToRead.add(range);
        if (missingTradesReader == null)
        {
            final Thread reader = new Thread(this::readMissingTradesInTurn, "bourse-http-missing-trades");
            reader.setDaemon(true);
            missingTradesReader = reader;
            // Read after the field is set: close(), which sets closed first, either sees the thread or stops it here.
            if (!closed)
            {
                reader.start();
            }
        }
    }

    private void readMissingTradesInTurn()
    {
        try
        {
            while (!closed)
            {
                final ReadModel.MissingTrades range = missingTradesToRead.take();
                final Map<Integer, MinuteBars> found = readTradesUntilRead(range);
                if (found != null)
                {
                    while (!agent.submit(a -> a.joinMissingTrades(range, found)))
                    {
                        Thread.sleep(10);
                    }
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Read the range, again after a failure (a store restarting, a database connection lost) for as long as the
     * range is needed, on from the trades already read: giving it up would leave the ticker's day short of its trades
     * until they leave the day. The first failure is said on stderr, then one a minute at most, and the read that
     * follows them.
     *
     * @return as {@link #readTrades}.
     */
    private Map<Integer, MinuteBars> readTradesUntilRead(final ReadModel.MissingTrades range)
        throws InterruptedException
    {
        final String what = "bourse HTTP gateway: trades " + range.fromTradeId() + " to " + (range.toTradeId() - 1);
        final MissingTradesRead read = new MissingTradesRead();
        long retryMs = 100;
        int failures = 0;
        long saidNs = 0;
        while (true)
        {
            try
            {
                final Map<Integer, MinuteBars> found = readTrades(range, read);
                if (failures > 0 && found != null)
                {
                    System.err.println(what + " read after " + failures + " failed attempt(s)");
                }
                return found;
            }
            catch (final UnsupportedOperationException ex)
            {
                System.err.println(what + " are not in the ticker and candles: " + ex.getMessage());
                return null;
            }
            catch (final RuntimeException ex)
            {
                if (!isNeeded(range))
                {
                    return null;
                }
                failures++;
                if (failures == 1 || System.nanoTime() - saidNs > TimeUnit.MINUTES.toNanos(1))
                {
                    saidNs = System.nanoTime();
                    System.err.println(what + " are not yet in the ticker and candles (" + failures +
                        " failed attempt(s)): " + ex + "; reading them again, at most every " +
                        MAX_MISSING_TRADES_PAUSE_MS + " ms");
                }
                Thread.sleep(retryMs);
                retryMs = Math.min(2 * retryMs, MAX_MISSING_TRADES_PAUSE_MS);
            }
        }
    }

    /**
     * How far a range's read has come: kept across failed attempts.
     */
    private static final class MissingTradesRead
    {
        final Map<Integer, MinuteBars> found = new HashMap<>();
        /**
         * The next trade id to read, or -1 before the store holds the whole range.
         */
        long next = -1;
    }

    /**
     * Wait until the store holds the whole range (it may be catching up after a restart: asked again at growing
     * intervals, up to 5 s), then read the range's trades within the day, in parts, on from where {@code read} has
     * come.
     *
     * @return the range's trades within the day, by instrument; null when the range is no longer needed (joined,
     * dropped with another cluster's state, or made more than a day ago), the source does not list trades, or the
     * gateway closes.
     * @throws RuntimeException when the store cannot be read.
     */
    private Map<Integer, MinuteBars> readTrades(final ReadModel.MissingTrades range, final MissingTradesRead read)
        throws InterruptedException
    {
        final HistorySource history = context.history;
        if (read.next < 0)
        {
            long pauseMs = 100;
            long last;
            while (isNeeded(range) && (last = history.lastTradeId()) < range.toTradeId() - 1)
            {
                // A source that lists no trades says -1.
                if (last < 0)
                {
                    return null;
                }
                Thread.sleep(pauseMs);
                pauseMs = Math.min(2 * pauseMs, MAX_MISSING_TRADES_PAUSE_MS);
            }
            if (!isNeeded(range))
            {
                return null;
            }
            read.next = Math.max(range.fromTradeId(), history.firstTradeIdSince(dayStartNs()));
        }
        while (read.next < range.toTradeId())
        {
            if (closed)
            {
                return null;
            }
            final int count = history.trades(read.next, range.toTradeId(), MISSING_TRADES_PART,
                (tradeId, instrumentId, price, quantity, timestampNs) ->
                {
                    read.found.computeIfAbsent(instrumentId, ignored -> new MinuteBars())
                        .add(tradeId, timestampNs, price, quantity);
                    read.next = tradeId + 1;
                });
            if (count == 0)
            {
                break;
            }
        }
        return read.found;
    }

    /**
     * @return whether the range is still to be read: the gateway is open, the range not joined nor dropped with
     * another cluster's state, and made within the day.
     */
    private boolean isNeeded(final ReadModel.MissingTrades range)
    {
        return !closed && agent.model().isMissing(range) && range.untilNs() >= dayStartNs();
    }

    /**
     * @return the start of the ticker's day now, by the wall clock.
     */
    private static long dayStartNs()
    {
        return MinuteBars.dayStartNs(System.currentTimeMillis() * 1_000_000L);
    }

    // ------------------------------------------------------------------------------------------------ routing

    /**
     * One request being served: where it came from, who signed it, and how to answer it on its own thread.
     */
    private final class Exchange
    {
        final HttpServerRequest request;
        final io.vertx.core.Context vertxContext;
        final long startNs;
        byte[] body;
        ApiKey key;
        /**
         * The code of the problem it was answered with, for the audit trail.
         */
        String errorCode;
        /**
         * Of the key's rate limit the request takes: a batch of orders takes one an order.
         */
        int tokens = 1;
        boolean answered;

        Exchange(final HttpServerRequest request, final long startNs)
        {
            this.request = request;
            this.vertxContext = io.vertx.core.Vertx.currentContext();
            this.startNs = startNs;
        }

        /**
         * Answer from any thread.
         */
        void complete(final Object response, final ApiException error)
        {
            vertxContext.runOnContext(ignored ->
            {
                if (error != null)
                {
                    problem(this, error);
                }
                else
                {
                    json(this, 200, response);
                }
            });
        }
    }

    private void onRequest(final HttpServerRequest request)
    {
        ClientActivity.note();
        final Exchange exchange = new Exchange(request, System.nanoTime());
        metrics.httpRequests.increment();
        if ("/ws".equals(request.path()) && request.canUpgradeToWebSocket())
        {
            onWebSocketUpgrade(request, exchange);
            return;
        }
        final String contentLength = request.getHeader("Content-Length");
        if (contentLength != null && contentLength.length() < 12 && contentLength.chars().allMatch(Character::isDigit) &&
            Long.parseLong(contentLength) > context.maxBodyBytes)
        {
            problem(exchange, tooLarge());
            return;
        }
        final Buffer body = Buffer.buffer();
        final boolean[] tooLarge = { false };
        request.handler(chunk ->
        {
            if (body.length() + chunk.length() > context.maxBodyBytes)
            {
                tooLarge[0] = true;
            }
            else
            {
                body.appendBuffer(chunk);
            }
        });
        request.exceptionHandler(ignored ->
        {
            // A client that resets its connection mid-request: there is nobody left to answer.
        });
        request.endHandler(ignored ->
        {
            if (tooLarge[0])
            {
                problem(exchange, tooLarge());
                return;
            }
            exchange.body = body.getBytes();
            try
            {
                route(exchange);
            }
            catch (final ApiException ex)
            {
                problem(exchange, ex);
            }
            catch (final RuntimeException ex)
            {
                problem(exchange, ApiException.internal(ex));
            }
        });
    }

    private ApiException tooLarge()
    {
        return new ApiException(413, "BODY_TOO_LARGE", "the body is larger than " + context.maxBodyBytes + " bytes", null);
    }

    private void route(final Exchange ex)
    {
        // Every request is counted once: a signed one against its key once its signature holds (on a public endpoint
        // too, or a made-up key would pass the limit), any other against its address, but for the health and metrics
        // probes, which a client flooding the public endpoints from behind the same proxy must not fail.
        final String path = ex.request.path();
        if (ex.request.getHeader("X-Bourse-Key") == null)
        {
            final ApiException limited = path.equals("/health") || path.equals("/metrics") ? null :
                overAddressRate(clientAddress(ex.request));
            if (limited != null)
            {
                throw limited;
            }
        }
        else
        {
            if (path.equals(BATCH_PATH) && ex.request.method() == HttpMethod.POST)
            {
                ex.tokens = batchTokens(ex.body);
            }
            authenticate(ex);
        }
        final HttpMethod method = ex.request.method();
        final String[] parts = path.length() > 1 ? path.substring(1).split("/", -1) : new String[0];
        if (!path.startsWith("/api/"))
        {
            get(method);
            switch (path)
            {
                case "/", "/index.html" -> file(ex, "index.html");
                case "/monitor", "/monitor.html" -> file(ex, "monitor.html");
                case "/app.js", "/monitor.js", "/api.js", "/style.css" -> file(ex, path.substring(1));
                case "/health" -> json(ex, isReady() ? 200 : 503, operations.health());
                case "/metrics" -> send(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                    operations.metricsText().getBytes(StandardCharsets.UTF_8));
                default -> throw notFound(path);
            }
            return;
        }
        if (path.equals("/api/openapi.json"))
        {
            get(method);
            send(ex, 200, "application/json", openApi);
            return;
        }
        if (parts.length < 3 || !parts[1].equals("v1"))
        {
            throw notFound(path);
        }
        final String resource = parts[2];
        final int n = parts.length;
        switch (resource)
        {
            case "time" ->
            {
                only(n, 3, path);
                get(method);
                final ObjectNode node = Views.MAPPER.createObjectNode();
                node.put("serverTime", System.currentTimeMillis());
                json(ex, 200, node);
            }
            case "instruments" ->
            {
                only(n, 3, path);
                get(method);
                final ArrayNode array = Views.MAPPER.createArrayNode();
                agent.instruments().values().stream().sorted((a, b) -> Integer.compare(a.id(), b.id()))
                    .forEach(i -> array.add(Views.instrument(i)));
                json(ex, 200, array);
            }
            case "book" ->
            {
                only(n, 4, path);
                get(method);
                final InstrumentView instrument = instrument(parts[3], null);
                final int depth = (int)queryInt(ex, "depth", 20, 1, 1000);
                query(ex, model -> Views.book(model.market(instrument.id()), depth, instrument));
            }
            case "trades" ->
            {
                only(n, 4, path);
                get(method);
                final InstrumentView instrument = instrument(parts[3], null);
                final int limit = (int)queryInt(ex, "limit", 50, 1, ReadModel.RECENT_TRADES);
                query(ex, model ->
                {
                    final ArrayNode array = Views.MAPPER.createArrayNode();
                    for (final ReadModel.TradeView trade : model.market(instrument.id()).trades)
                    {
                        if (array.size() >= limit)
                        {
                            break;
                        }
                        array.add(Views.trade(trade, instrument));
                    }
                    return array;
                });
            }
            case "ticker" ->
            {
                if (n != 3)
                {
                    only(n, 4, path);
                }
                get(method);
                if (n == 3)
                {
                    onlyParameters(ex);
                    // Every instrument's, by id, for a client watching the whole market.
                    query(ex, model ->
                    {
                        checkLive();
                        final ArrayNode array = Views.MAPPER.createArrayNode();
                        model.instruments().stream().sorted(Comparator.comparingInt(InstrumentView::id)).forEach(i ->
                            array.add(Views.ticker(model, i).without("type")));
                        return array;
                    });
                }
                else
                {
                    final InstrumentView instrument = instrument(parts[3], null);
                    query(ex, model -> Views.ticker(model, instrument).without("type"));
                }
            }
            case "candles" ->
            {
                only(n, 4, path);
                get(method);
                onlyParameters(ex, "interval", "limit", "to");
                final InstrumentView instrument = instrument(parts[3], null);
                final int intervalMinutes = candleInterval(ex.request.getParam("interval"));
                final int limit = (int)queryInt(ex, "limit", 100, 1, MinuteBars.MINUTES);
                final long toMs = queryLong(ex, "to", 0, 1, MAX_TIME_MS);
                candles(ex, instrument, intervalMinutes, limit, toMs == 0 ? Long.MAX_VALUE : toMs * 1_000_000);
            }
            case "monitor" ->
            {
                only(n, 3, path);
                get(method);
                json(ex, 200, operations.monitor());
            }
            case "orders" -> orders(ex, parts, method);
            case "fills" ->
            {
                only(n, 3, path);
                get(method);
                fills(ex, trader(ex).accountId(), false);
            }
            case "balances" -> ownAccountRead(ex, n, path, method, Views::balances);
            case "fees" -> ownAccountRead(ex, n, path, method, Views::fees);
            // An account the exchange has not seen yet is a new one: no limits, no switch, the instruments' rates.
            case "account" -> ownAccountRead(ex, n, path, method, (model, accountId) -> Views.account(model, accountId,
                Objects.requireNonNullElseGet(model.existingAccount(accountId), ReadModel.AccountState::new)));
            case "admin" -> admin(ex, parts, method);
            case "history" -> history(ex, parts, method);
            default -> throw notFound(path);
        }
    }

    /**
     * A {@code GET} of the key's own account that takes no parameters: its balances, fee rates or account.
     */
    private void ownAccountRead(
        final Exchange ex, final int parts, final String path, final HttpMethod method,
        final java.util.function.BiFunction<ReadModel, Long, ObjectNode> view)
    {
        only(parts, 3, path);
        get(method);
        final long accountId = trader(ex).accountId();
        onlyParameters(ex);
        query(ex, model -> view.apply(model, accountId));
    }

    /**
     * {@code GET /api/v1/fills}, or an admin's of an account: its recent fills the gateway holds, newest first.
     *
     * @param admin whether an admin asks: an account the exchange does not have is then {@link #adminAccount 404}.
     */
    private void fills(final Exchange ex, final long accountId, final boolean admin)
    {
        onlyParameters(ex, "symbol", "limit");
        final String symbol = ex.request.getParam("symbol");
        final InstrumentView filter = symbol == null ? null : instrument(symbol, "symbol");
        final int limit = (int)queryInt(ex, "limit", 100, 1, ReadModel.RECENT_FILLS);
        query(ex, model ->
        {
            final ArrayNode array = Views.MAPPER.createArrayNode();
            final ReadModel.AccountState account = account(model, accountId, admin);
            if (account != null)
            {
                for (final ReadModel.FillView fill : account.fills)
                {
                    if (array.size() >= limit)
                    {
                        break;
                    }
                    final InstrumentView instrument = model.instrument(fill.instrumentId());
                    if (instrument != null && (filter == null || filter.id() == fill.instrumentId()))
                    {
                        array.add(Views.fill(fill, instrument));
                    }
                }
            }
            return array;
        });
    }

    /**
     * {@code GET /api/v1/history/trades}, {@code /history/orders} and {@code /history/transfers}: the asking account's
     * history from the post-trade store (or, under {@code /api/v1/admin/accounts/{accountId}/history}, an admin's of
     * any account), newest first, in [from, to) epoch milliseconds, paged by cursor. The query blocks on the database,
     * so it runs on a worker thread; the answer goes back to the request's event loop.
     */
    private void history(final Exchange ex, final String[] parts, final HttpMethod method)
    {
        only(parts.length, 4, ex.request.path());
        historyKind(ex, parts[3]);
        get(method);
        history(ex, parts[3], trader(ex).accountId(), false);
    }

    /**
     * A history path names what it reads before anything else is checked: another is 404 whatever the method or key.
     */
    private static void historyKind(final Exchange ex, final String kind)
    {
        if (!kind.equals("trades") && !kind.equals("orders") && !kind.equals("transfers"))
        {
            throw notFound(ex.request.path());
        }
    }

    /**
     * @param kind  trades, orders or transfers ({@link #historyKind}).
     * @param admin whether an admin asks: an account the exchange does not have is then {@link #adminAccount 404},
     *              checked on the gateway thread before the database is asked.
     */
    private void history(final Exchange ex, final String kind, final long accountId, final boolean admin)
    {
        onlyParameters(ex, "from", "to", "cursor", "limit");
        final long fromMs = queryLong(ex, "from", 0, 0, MAX_TIME_MS);
        final long toMs = queryLong(ex, "to", -1, 1, MAX_TIME_MS);
        if (toMs >= 0 && toMs <= fromMs)
        {
            throw ApiException.badRequest("INVALID_PARAMETER", "to: must be after from (the range is [from, to))", "to");
        }
        final HistorySource.Cursor cursor = cursor(ex);
        final int limit = (int)queryInt(ex, "limit", 100, 1, HistorySource.MAX_LIMIT);
        final HistorySource source = context.history;
        if (source == null)
        {
            // Not a server fault and not worth retrying: this gateway has no history to serve (a 4xx, not a 503).
            throw new ApiException(404, "NO_HISTORY", "no post-trade store runs with this gateway: history is " +
                "served by a gateway started with the store (bourse run)", null);
        }
        final long fromNs = fromMs * 1_000_000;
        final long toNs = toMs < 0 ? Long.MAX_VALUE : toMs * 1_000_000;
        final Runnable read = switch (kind)
        {
            case "trades" ->
                () -> historyQuery(ex, () -> historyTrades(source.trades(accountId, fromNs, toNs, cursor, limit)));
            case "orders" ->
                () -> historyQuery(ex, () -> historyOrders(source.orders(accountId, fromNs, toNs, cursor, limit)));
            // The assets' symbols and scales are the gateway thread's: the rows are written out there.
            default -> () -> historyQuery(ex, () -> source.transfers(accountId, fromNs, toNs, cursor, limit),
                page -> query(ex, model -> historyTransfers(page, model)));
        };
        if (!admin)
        {
            read.run();
            return;
        }
        if (!agent.submit(a ->
        {
            final ApiException refused = adminAccountProblem(a.model(), accountId);
            ex.vertxContext.runOnContext(ignored ->
            {
                try
                {
                    if (refused != null)
                    {
                        throw refused;
                    }
                    read.run();
                }
                catch (final ApiException error)
                {
                    problem(ex, error);
                }
                catch (final RuntimeException defect)
                {
                    problem(ex, ApiException.internal(defect));
                }
            });
        }))
        {
            throw busy();
        }
    }

    /**
     * Answer with one of an account's orders: the gateway's own view of it when it holds it open; else the newer of
     * the gateway's closed one and the post-trade store's row, which is every order's current or final state as of
     * the store's position in the log (an order closed before the gateway started, during a gap in what it saw, or
     * longer ago than its recent ones).
     * <p>
     * A store behind the gateway may still have as open an order the gateway, live, knows is not: such an answer
     * would be wrong, so it is {@code 503 NOT_READY} to retry once the store has caught up.
     *
     * @param live    the order in the gateway's model, or null; run on the gateway thread.
     * @param stored  the order in the store, or null; run on a worker thread.
     * @param unknown the answer when neither has it.
     */
    private void liveOrStoredOrder(
        final Exchange ex, final Function<ReadModel, OrderView> live, final Callable<HistorySource.Order> stored,
        final Supplier<ApiException> unknown)
    {
        if (!agent.submit(a ->
        {
            try
            {
                final OrderView order = live.apply(a.model());
                final ObjectNode held = order == null ? null : Views.order(order, a.model().instrument(order.instrumentId));
                if (context.history == null || order != null && order.isOpen())
                {
                    ex.complete(held, held == null ? unknown.get() : null);
                    return;
                }
                final long heldOrderId = order == null ? 0 : order.orderId;
                final long gatewayPosition = a.isLive() ? a.appliedLogPosition() : -1;
                ex.vertxContext.runOnContext(ignored -> storedOrUnknown(ex, stored, held, heldOrderId,
                    gatewayPosition, unknown));
            }
            catch (final RuntimeException failure)
            {
                ex.complete(null, ApiException.internal(failure));
            }
        }))
        {
            throw busy();
        }
    }

    /**
     * The store's side of {@link #liveOrStoredOrder}, on the request's event loop.
     *
     * @param held            the gateway's answer (a closed order), or null.
     * @param gatewayPosition the log position the gateway had applied, or -1 when it was not live.
     */
    private void storedOrUnknown(
        final Exchange ex, final Callable<HistorySource.Order> stored, final ObjectNode held, final long heldOrderId,
        final long gatewayPosition, final Supplier<ApiException> unknown)
    {
        try
        {
            historyQuery(ex, () ->
            {
                // Read before the row: the row is at least as new as this.
                final long fence = context.storeStatus == null ? Long.MAX_VALUE : context.storeStatus.fenceLogPosition();
                final HistorySource.Order row = stored.call();
                if (row == null || row.orderId() <= heldOrderId)
                {
                    if (held == null)
                    {
                        throw unknown.get();
                    }
                    return held;
                }
                if (fence < gatewayPosition && OrderView.isOpen(row.status()))
                {
                    throw new ApiException(503, "NOT_READY", "the post-trade store has not caught up with what the " +
                        "gateway knows of this order: retry shortly", null, 1);
                }
                return historyOrder(row);
            });
        }
        catch (final ApiException error)
        {
            problem(ex, error);
        }
    }

    /**
     * Run a query of the post-trade store's database on a worker thread, since it blocks, and answer with its result on
     * the request's event loop.
     */
    private void historyQuery(final Exchange ex, final Callable<Object> query)
    {
        historyQuery(ex, query, result -> json(ex, 200, result));
    }

    /**
     * @param answer what to do with the query's result on the request's event loop.
     */
    private <T> void historyQuery(final Exchange ex, final Callable<T> query, final Consumer<T> answer)
    {
        // The database answers one query at a time; beyond a bound, waiting queries would only pile up.
        if (historyQueries.incrementAndGet() > MAX_WAITING_HISTORY_QUERIES)
        {
            historyQueries.decrementAndGet();
            throw new ApiException(503, "BUSY", "more than " + MAX_WAITING_HISTORY_QUERIES +
                " history queries are waiting for the database: try again shortly", null, 1);
        }
        // A query whose client has gone by the time its turn comes is not run (its answer is null).
        vertx.<T>executeBlocking(() -> ex.request.response().closed() ? null : query.call())
            .onComplete(result ->
            {
                historyQueries.decrementAndGet();
                if (result.succeeded() && result.result() == null)
                {
                    return;
                }
                if (result.succeeded())
                {
                    try
                    {
                        answer.accept(result.result());
                    }
                    catch (final ApiException error)
                    {
                        problem(ex, error);
                    }
                    catch (final RuntimeException error)
                    {
                        problem(ex, ApiException.internal(error));
                    }
                }
                else if (result.cause() instanceof ApiException error)
                {
                    problem(ex, error);
                }
                else
                {
                    problem(ex, new ApiException(503, "HISTORY_UNAVAILABLE", "the history database cannot answer: " +
                        result.cause().getMessage(), null));
                }
            });
    }

    private ObjectNode historyTrades(final HistorySource.Page<HistorySource.Trade> page)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        final ArrayNode rows = node.putArray("trades");
        for (final HistorySource.Trade trade : page.rows())
        {
            final InstrumentView i = historyInstrument(trade.instrumentId());
            final ObjectNode row = rows.addObject();
            row.put("tradeId", Long.toString(trade.tradeId()));
            row.put("orderId", Long.toString(trade.orderId()));
            row.put("symbol", i.symbol());
            row.put("side", trade.side());
            row.put("liquidity", trade.liquidity());
            row.put("price", i.price(trade.price()));
            row.put("quantity", i.quantity(trade.quantity()));
            row.put("fee", i.quote(trade.fee()));
            row.put("feeAsset", i.quoteAsset());
            row.put("time", trade.timestampNs() / 1_000_000);
            row.put("timeNs", Long.toString(trade.timestampNs()));
        }
        node.put("nextCursor", cursorText(page.nextCursor()));
        return node;
    }

    private static ObjectNode historyTransfers(final HistorySource.Page<HistorySource.Transfer> page, final ReadModel model)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        final ArrayNode rows = node.putArray("transfers");
        for (final HistorySource.Transfer transfer : page.rows())
        {
            if (!model.hasAsset(transfer.assetId()))
            {
                // The store can be ahead of a gateway still loading the exchange state.
                throw new ApiException(503, "NOT_READY", "the gateway does not know asset " + transfer.assetId() +
                    " yet; retry shortly", null, 1);
            }
            final ObjectNode row = rows.addObject();
            row.put("transferId", Long.toString(transfer.transferId()));
            row.put("transactionId", transfer.transactionId());
            row.put("asset", model.assetSymbol(transfer.assetId()));
            row.put("type", transfer.direction());
            row.put("amount", Decimals.format(transfer.amount(), model.assetScale(transfer.assetId())));
            row.put("time", transfer.timestampNs() / 1_000_000);
            row.put("timeNs", Long.toString(transfer.timestampNs()));
        }
        node.put("nextCursor", cursorText(page.nextCursor()));
        return node;
    }

    private ObjectNode historyOrders(final HistorySource.Page<HistorySource.Order> page)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        final ArrayNode rows = node.putArray("orders");
        for (final HistorySource.Order order : page.rows())
        {
            rows.add(historyOrder(order));
        }
        node.put("nextCursor", cursorText(page.nextCursor()));
        return node;
    }

    /**
     * A stored order as the live API shows an order, so that a client reads both the same way.
     */
    private ObjectNode historyOrder(final HistorySource.Order order)
    {
        final OrderView view = new OrderView();
        view.orderId = order.orderId();
        view.clientOrderId = order.clientOrderId();
        view.instrumentId = order.instrumentId();
        view.side = order.side();
        view.type = order.type();
        view.timeInForce = order.timeInForce();
        view.price = order.price();
        view.quantity = order.quantity();
        view.quoteAmount = order.quoteAmount();
        view.postOnly = order.postOnly();
        view.selfTradePrevention = order.selfTradePrevention();
        view.expiryNs = order.expiryNs();
        view.stopPrice = order.stopPrice();
        view.triggeredNs = order.triggeredNs();
        view.filledQuantity = order.filledQuantity();
        view.executedNotional = order.executedNotional();
        view.status = order.status();
        view.cancelReason = order.cancelReason();
        view.createdNs = order.createdNs();
        view.updatedNs = order.updatedNs();
        return Views.order(view, historyInstrument(order.instrumentId()));
    }

    private InstrumentView historyInstrument(final int instrumentId)
    {
        // The map is by symbol, read-safe from any thread, and small.
        for (final InstrumentView instrument : agent.instruments().values())
        {
            if (instrument.id() == instrumentId)
            {
                return instrument;
            }
        }
        // The store can be ahead of a gateway still loading the exchange state.
        throw new ApiException(503, "NOT_READY", "the gateway does not know instrument " + instrumentId +
            " yet; retry shortly", null, 1);
    }

    private void orders(final Exchange ex, final String[] parts, final HttpMethod method)
    {
        final String path = ex.request.path();
        if (parts.length == 4 && parts[3].equals("batch"))
        {
            if (method != HttpMethod.POST)
            {
                throw methodNotAllowed();
            }
            placeOrders(ex);
            return;
        }
        if (parts.length == 3)
        {
            if (method == HttpMethod.POST)
            {
                placeOrder(ex);
            }
            else if (method == HttpMethod.GET)
            {
                openOrders(ex, trader(ex).accountId(), false);
            }
            else if (method == HttpMethod.DELETE)
            {
                massCancel(ex, trader(ex).accountId());
            }
            else
            {
                throw methodNotAllowed();
            }
            return;
        }
        if (parts.length == 5 && parts[3].equals("by-client-id"))
        {
            orderByClientOrderId(ex, parts[4], method);
            return;
        }
        if (parts.length == 4 && parts[3].equals("cancel-all-after"))
        {
            cancelAllAfter(ex, method);
            return;
        }
        if (parts.length != 4)
        {
            throw notFound(path);
        }
        final long orderId = parseId(parts[3], "orderId");
        if (method == HttpMethod.GET)
        {
            final long accountId = trader(ex).accountId();
            onlyParameters(ex);
            liveOrStoredOrder(ex, model -> model.order(accountId, orderId),
                () -> context.history.order(accountId, orderId), () -> unknownOrder(orderId));
        }
        else if (method == HttpMethod.DELETE)
        {
            final long accountId = trader(ex).accountId();
            onlyParameters(ex);
            command(ex, cancelCommand(accountId, orderId, 0, ex::complete));
        }
        else if (method == HttpMethod.PUT)
        {
            replaceOrder(ex, orderId);
        }
        else
        {
            throw methodNotAllowed();
        }
    }

    /**
     * {@code POST /api/v1/orders/cancel-all-after} ({@code timeoutMs}) arms the account's dead man's switch: unless it
     * is armed again or disarmed ({@code timeoutMs} 0) within the timeout, the exchange cancels all of the account's
     * open orders then. A client calls it every few seconds while it is alive, so that its quotes do not outlive it
     * or its network. The switch is the exchange's (the engine's state, by cluster time): it outlives this gateway,
     * a restart of the node and a fail-over, and every gateway sees it. Answered with the switch as the command left
     * it, {@code currentTime} being the command's time; {@code GET} answers the switch as the gateway last heard of
     * it, with the gateway's clock.
     */
    private void cancelAllAfter(final Exchange ex, final HttpMethod method)
    {
        if (method != HttpMethod.POST && method != HttpMethod.GET)
        {
            throw methodNotAllowed();
        }
        final long accountId = trader(ex).accountId();
        onlyParameters(ex);
        if (method == HttpMethod.GET)
        {
            query(ex, model ->
            {
                // Before the gateway holds the exchange's state, "disarmed" could be false.
                checkLive();
                final ReadModel.AccountState account = model.existingAccount(accountId);
                return cancelAllAfterView(account == null ? 0 : account.cancelAllAfterTimeoutMs,
                    account == null ? 0 : account.cancelAllAfterDeadlineNs, System.currentTimeMillis());
            });
            return;
        }
        final long timeoutMs = cancelAllAfterTimeoutMs(Requests.object(ex.body, CANCEL_ALL_AFTER_FIELDS));
        command(ex, cancelAllAfterCommand(accountId, timeoutMs, ex::complete));
    }

    /**
     * @return the {@code timeoutMs} of a cancel-all-after request: 0 (to disarm) or within the bounds.
     */
    private static long cancelAllAfterTimeoutMs(final ObjectNode body)
    {
        final long timeoutMs = Requests.integer(body, "timeoutMs", true, 0, Long.MIN_VALUE, Long.MAX_VALUE);
        if (timeoutMs != 0 && (timeoutMs < MIN_CANCEL_ALL_AFTER_MS || timeoutMs > MAX_CANCEL_ALL_AFTER_MS))
        {
            throw ApiException.badRequest("OUT_OF_RANGE", "timeoutMs: expected 0 (to disarm) or " +
                MIN_CANCEL_ALL_AFTER_MS + " to " + MAX_CANCEL_ALL_AFTER_MS + ", got " + timeoutMs, "timeoutMs");
        }
        return timeoutMs;
    }

    /**
     * Arm (or, with 0, disarm) the account's cancel-all-after switch, answered with the switch as the command left it.
     */
    private static Command cancelAllAfterCommand(
        final long accountId, final long timeoutMs, final BiConsumer<Object, ApiException> completion)
    {
        return new Command()
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.setCancelAllAfter(buffer, 0, accountId, timeoutMs);
            }

            public Object answer(final Answer answer, final ReadModel model)
            {
                if (answer.rejectReason != null)
                {
                    throw rejected(answer.rejectReason);
                }
                return cancelAllAfterView(answer.cancelAllAfterTimeoutMs, answer.cancelAllAfterDeadlineNs,
                    TimeUnit.NANOSECONDS.toMillis(answer.cancelAllAfterTimeNs));
            }

            public void complete(final Object response, final ApiException error)
            {
                completion.accept(response, error);
            }
        };
    }

    private static ObjectNode cancelAllAfterView(final long timeoutMs, final long deadlineNs, final long currentTimeMs)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("armed", deadlineNs != 0);
        node.put("currentTime", currentTimeMs);
        if (deadlineNs != 0)
        {
            node.put("timeoutMs", timeoutMs);
            node.put("triggerTime", TimeUnit.NANOSECONDS.toMillis(deadlineNs));
        }
        return node;
    }

    /**
     * {@code GET} or {@code DELETE /api/v1/orders/by-client-id/{clientOrderId}}: the order the client named; how a
     * client that had no answer finds out what became of its order. A client order id is unique among the account's
     * open orders only: GET answers its open order, else the newest with it, from the gateway or, for one the gateway
     * no longer holds, the post-trade store. DELETE cancels the open one.
     */
    private void orderByClientOrderId(final Exchange ex, final String text, final HttpMethod method)
    {
        final long accountId = trader(ex).accountId();
        onlyParameters(ex);
        final long clientOrderId = clientOrderId(text, false);
        if (method == HttpMethod.GET)
        {
            liveOrStoredOrder(ex, model -> model.orderByClientOrderId(accountId, clientOrderId),
                () -> context.history.orderByClientOrderId(accountId, clientOrderId),
                () -> new ApiException(404, RejectReason.UNKNOWN_ORDER.name(), context.history == null ?
                    "no open or recent order of this account has clientOrderId " + text :
                    "no order of this account has clientOrderId " + text, "clientOrderId"));
        }
        else if (method == HttpMethod.DELETE)
        {
            command(ex, cancelCommand(accountId, 0, clientOrderId, ex::complete));
        }
        else
        {
            throw methodNotAllowed();
        }
    }

    /**
     * Refuse a query parameter the endpoint does not take: ignored, a misspelt filter would widen what a request reads
     * or, for a mass cancel, cancels.
     */
    private static void onlyParameters(final Exchange ex, final String... allowed)
    {
        for (final String name : ex.request.params().names())
        {
            if (!Arrays.asList(allowed).contains(name))
            {
                throw ApiException.badRequest("UNKNOWN_PARAMETER", "unknown query parameter '" +
                    (name.length() > 32 ? name.substring(0, 32) + "…" : name) + "'" +
                    (allowed.length == 0 ? ": this endpoint takes none" : "; expected " + String.join(", ", allowed)),
                    name.length() > 32 ? null : name);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ orders

    /**
     * A command about one order whose answer is that order as it stands after the command.
     */
    private abstract class OrderCommand implements Command
    {
        private final long accountId;
        private final BiConsumer<Object, ApiException> completion;

        /**
         * @param completion given the answer or the error on the gateway thread ({@link Command#complete}).
         */
        OrderCommand(final long accountId, final BiConsumer<Object, ApiException> completion)
        {
            this.accountId = accountId;
            this.completion = completion;
        }

        public Object answer(final Answer answer, final ReadModel model)
        {
            if (answer.rejectReason != null)
            {
                throw rejected(answer.rejectReason);
            }
            final OrderView order = model.order(accountId, answer.orderId);
            if (order == null)
            {
                final ObjectNode node = Views.MAPPER.createObjectNode();
                node.put("orderId", Long.toString(answer.orderId));
                node.put("status", "ACCEPTED");
                return node;
            }
            final ObjectNode node = Views.order(order, model.instrument(order.instrumentId));
            if (answer.replaced)
            {
                node.put("priorityKept", answer.priorityKept);
            }
            final ArrayNode fills = node.putArray("fills");
            final ReadModel.AccountState account = model.existingAccount(accountId);
            // This command's fills: the newest of the account's, at the command's time (that of the order's last change).
            for (final ReadModel.FillView fill : account.fills)
            {
                if (fill.timestampNs() < order.updatedNs)
                {
                    break;
                }
                if (fill.orderId() == order.orderId && fill.timestampNs() == order.updatedNs)
                {
                    fills.insert(0, Views.fill(fill, model.instrument(fill.instrumentId())));
                }
            }
            return node;
        }

        public void complete(final Object response, final ApiException error)
        {
            completion.accept(response, error);
        }
    }

    private OrderCommand newOrderCommand(
        final long accountId, final NewOrderTerms terms, final BiConsumer<Object, ApiException> completion)
    {
        return new OrderCommand(accountId, completion)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return terms.encode(encoder, buffer, accountId);
            }
        };
    }

    /**
     * @param orderId       the order to cancel, or 0 to name it by {@code clientOrderId}.
     * @param clientOrderId the open order's client order id, when {@code orderId} is 0.
     */
    private OrderCommand cancelCommand(
        final long accountId, final long orderId, final long clientOrderId,
        final BiConsumer<Object, ApiException> completion)
    {
        return new OrderCommand(accountId, completion)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.cancelOrder(buffer, 0, accountId, orderId, clientOrderId);
            }
        };
    }

    /**
     * A replace's new terms as read from its JSON object: the prices and quantity are checked against the order's
     * instrument once it is known, on the gateway thread.
     *
     * @param price     null only for a stop market order, which names none.
     * @param stopPrice null to keep an untriggered stop order's.
     */
    private record ReplaceTerms(String price, String quantity, long clientOrderId, String stopPrice)
    {
    }

    private ReplaceTerms replaceTerms(final ObjectNode body)
    {
        return new ReplaceTerms(Requests.string(body, "price", false), Requests.string(body, "quantity", true),
            clientOrderId(Requests.string(body, "clientOrderId", false), false),
            Requests.string(body, "stopPrice", false));
    }

    private OrderCommand replaceCommand(
        final long accountId, final long orderId, final ReplaceTerms terms,
        final BiConsumer<Object, ApiException> completion)
    {
        return new OrderCommand(accountId, completion)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                // The order's instrument (for its tick and lot) is known only here, on the gateway thread.
                final OrderView order = agent.model().order(accountId, orderId);
                if (order == null || !order.isOpen())
                {
                    throw new ApiException(404, RejectReason.UNKNOWN_ORDER.name(),
                        "no open order " + orderId + " of this account", "orderId");
                }
                final InstrumentView instrument = agent.model().instrument(order.instrumentId);
                final boolean market = order.type.equals("MARKET");
                if (market != (terms.price() == null))
                {
                    throw market ?
                        ApiException.badRequest(RejectReason.INVALID_PRICE.name(),
                            "price: a stop market order has none", "price") :
                        ApiException.badRequest("MISSING_FIELD", "price is required", "price");
                }
                if (terms.stopPrice() != null && (order.stopPrice == 0 || order.triggeredNs != 0))
                {
                    throw ApiException.badRequest(RejectReason.INVALID_STOP_PRICE.name(),
                        "stopPrice: the order is not a stop order waiting for its stop price", "stopPrice");
                }
                return encoder.replaceOrder(buffer, 0, accountId, orderId, 0, terms.clientOrderId(),
                    market ? 0 : price(instrument, terms.price(), "price"), quantity(instrument, terms.quantity(), "quantity"),
                    terms.stopPrice() == null ? 0 : stopPrice(instrument, terms.stopPrice()));
            }
        };
    }

    private void placeOrder(final Exchange ex)
    {
        final long accountId = trader(ex).accountId();
        command(ex, newOrderCommand(accountId, newOrderTerms(Requests.object(ex.body, ORDER_FIELDS)), ex::complete));
    }

    /**
     * A new order's terms as read from its JSON object, checked against its instrument's tick, lot and scales.
     */
    private record NewOrderTerms(int instrumentId, Side side, OrderType type, TimeInForce timeInForce,
        boolean postOnly, SelfTradePrevention selfTradePrevention, long price, long quantity, long quoteAmount,
        long expireTimeNs, long clientOrderId, long stopPrice)
    {
        int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer,
            final long accountId)
        {
            return encoder.newOrder(buffer, 0, accountId, clientOrderId, instrumentId, side, type, timeInForce,
                postOnly, selfTradePrevention, price, quantity, quoteAmount, expireTimeNs, stopPrice);
        }
    }

    /**
     * @throws ApiException 400 or 404 naming the field at fault.
     */
    private NewOrderTerms newOrderTerms(final ObjectNode body)
    {
        final InstrumentView instrument = instrument(Requests.string(body, "symbol", true), "symbol");
        final Side side = Requests.enumValue(body, "side", Side.class, null, EnumSet.of(Side.BUY, Side.SELL));
        final OrderType type = Requests.enumValue(body, "type", OrderType.class, OrderType.LIMIT,
            EnumSet.of(OrderType.LIMIT, OrderType.MARKET));
        final TimeInForce timeInForce = Requests.enumValue(body, "timeInForce", TimeInForce.class,
            type == OrderType.MARKET ? TimeInForce.IOC : TimeInForce.GTC,
            EnumSet.of(TimeInForce.GTC, TimeInForce.IOC, TimeInForce.FOK, TimeInForce.GTD));
        final SelfTradePrevention stp = Requests.enumValue(body, "selfTradePrevention", SelfTradePrevention.class,
            SelfTradePrevention.ACCOUNT_DEFAULT, EnumSet.complementOf(EnumSet.of(SelfTradePrevention.NULL_VAL)));
        final boolean postOnly = Requests.bool(body, "postOnly", false);
        final String priceText = Requests.string(body, "price", type == OrderType.LIMIT);
        final String quantityText = Requests.string(body, "quantity", false);
        final String quoteAmountText = Requests.string(body, "quoteAmount", false);
        final long price = priceText == null ? 0 : price(instrument, priceText, "price");
        final long quantity = quantityText == null ? 0 : quantity(instrument, quantityText, "quantity");
        final long quoteAmount = quoteAmountText == null ? 0 :
            Decimals.parse(quoteAmountText, instrument.quoteScale(), "quoteAmount", RejectReason.INVALID_QUOTE_AMOUNT.name());
        if (quantityText == null && quoteAmountText == null)
        {
            throw ApiException.badRequest("MISSING_FIELD", "quantity is required (or quoteAmount on a market buy)",
                "quantity");
        }
        final long expireTimeMs = Requests.integer(body, "expireTime", timeInForce == TimeInForce.GTD, 0, 1,
            Long.MAX_VALUE / 1_000_000);
        if (timeInForce != TimeInForce.GTD && expireTimeMs != 0)
        {
            throw ApiException.badRequest(RejectReason.INVALID_EXPIRY.name(), "expireTime is only for GTD orders",
                "expireTime");
        }
        final long clientOrderId = clientOrderId(Requests.string(body, "clientOrderId", false), true);
        final String stopPriceText = Requests.string(body, "stopPrice", false);
        final long stopPrice = stopPriceText == null ? 0 : stopPrice(instrument, stopPriceText);
        return new NewOrderTerms(instrument.id(), side, type, timeInForce, postOnly, stp, price, quantity, quoteAmount,
            expireTimeMs * 1_000_000, clientOrderId, stopPrice);
    }

    /**
     * {@code POST /api/v1/orders/batch}: up to {@link #MAX_BATCH_ORDERS} new orders in one request, sent to the
     * exchange one after another in their order (a market maker quoting several levels at once). Each is read and
     * answered on its own, as {@code POST /api/v1/orders} would answer it: {@code results[i]} is {@code orders[i]}'s
     * status and either the order or the error; one refused changes nothing of the others. The batch takes one token
     * of the key's rate limit an order ({@link #batchTokens}).
     */
    private void placeOrders(final Exchange ex)
    {
        final long accountId = trader(ex).accountId();
        final JsonNode orders = Requests.object(ex.body, Set.of("orders")).get("orders");
        if (orders == null || orders.isNull())
        {
            throw ApiException.badRequest("MISSING_FIELD", "orders is required", "orders");
        }
        if (!orders.isArray())
        {
            throw ApiException.badRequest("INVALID_TYPE", "orders: expected an array of orders", "orders");
        }
        if (orders.isEmpty() || orders.size() > MAX_BATCH_ORDERS)
        {
            throw ApiException.badRequest("OUT_OF_RANGE", "orders: expected 1 to " + MAX_BATCH_ORDERS +
                " orders, got " + orders.size(), "orders");
        }
        final ObjectNode[] results = new ObjectNode[orders.size()];
        final List<OrderCommand> commands = new ArrayList<>();
        // Counted down on the gateway thread, where every command completes.
        final int[] waiting = { 0 };
        for (int i = 0; i < orders.size(); i++)
        {
            final int index = i;
            final NewOrderTerms terms;
            try
            {
                terms = newOrderTerms(Requests.object(orders.get(i), ORDER_FIELDS));
            }
            catch (final ApiException error)
            {
                results[i] = orderResult(null, error);
                continue;
            }
            waiting[0]++;
            commands.add(newOrderCommand(accountId, terms, (response, error) ->
            {
                results[index] = orderResult(response, error);
                if (--waiting[0] == 0)
                {
                    ex.complete(batchResults(results), null);
                }
            }));
        }
        if (commands.isEmpty())
        {
            json(ex, 200, batchResults(results));
            return;
        }
        if (!agent.isLive())
        {
            throw notReady();
        }
        if (!agent.submit(a ->
        {
            for (final OrderCommand command : commands)
            {
                a.sendOrAnswer(command);
            }
        }))
        {
            throw busy();
        }
    }

    /**
     * The tokens a batch takes of its key's rate limit, taken (all or none) when the request is authenticated, which
     * comes first: one an order, or one for a body that is no batch (then refused as such). The orders counted as
     * {@link #placeOrders} reads them; a batch refused afterwards for another field has taken its tokens.
     */
    private static int batchTokens(final byte[] body)
    {
        final JsonNode orders;
        try
        {
            orders = Views.MAPPER.readTree(body).get("orders");
        }
        catch (final IOException | RuntimeException notABatch)
        {
            return 1;
        }
        return orders == null || !orders.isArray() || orders.isEmpty() || orders.size() > MAX_BATCH_ORDERS ? 1 :
            orders.size();
    }

    /**
     * One order's answer within a batch or a WebSocket response: {@code status} 200 and the {@code order}, or the
     * status and the {@code error} (code, detail, field) the REST call would have answered with.
     */
    private static ObjectNode orderResult(final Object order, final ApiException error)
    {
        final ObjectNode result = Views.MAPPER.createObjectNode();
        if (error == null)
        {
            result.put("status", 200);
            result.set("order", (JsonNode)order);
            return result;
        }
        result.put("status", error.status);
        final ObjectNode problem = result.putObject("error");
        problem.put("code", error.code);
        problem.put("detail", error.getMessage());
        if (error.field != null)
        {
            problem.put("field", error.field);
        }
        if (error.retryAfterS > 0)
        {
            problem.put("retryAfter", error.retryAfterS);
        }
        return result;
    }

    private static ObjectNode batchResults(final ObjectNode[] results)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        final ArrayNode array = node.putArray("results");
        for (final ObjectNode result : results)
        {
            array.add(result);
        }
        return node;
    }

    private void replaceOrder(final Exchange ex, final long orderId)
    {
        final long accountId = trader(ex).accountId();
        command(ex, replaceCommand(accountId, orderId, replaceTerms(Requests.object(ex.body, REPLACE_FIELDS)),
            ex::complete));
    }

    /**
     * {@code GET /api/v1/orders}, or an admin's of an account: its open orders, by order id, of a symbol when asked.
     *
     * @param admin whether an admin asks: an account the exchange does not have is then {@link #adminAccount 404}.
     */
    private void openOrders(final Exchange ex, final long accountId, final boolean admin)
    {
        onlyParameters(ex, "symbol");
        final String symbol = ex.request.getParam("symbol");
        final InstrumentView filter = symbol == null ? null : instrument(symbol, "symbol");
        query(ex, model ->
        {
            final ArrayNode array = Views.MAPPER.createArrayNode();
            final ReadModel.AccountState account = account(model, accountId, admin);
            if (account != null)
            {
                account.openOrders.values().stream()
                    .filter(o -> filter == null || o.instrumentId == filter.id())
                    .sorted((a, b) -> Long.compare(a.orderId, b.orderId))
                    .forEach(o -> array.add(Views.order(o, model.instrument(o.instrumentId))));
            }
            return array;
        });
    }

    /**
     * {@code DELETE /api/v1/orders}, or an admin's of an account: cancel its open orders, of a symbol and side when
     * asked.
     */
    private void massCancel(final Exchange ex, final long accountId)
    {
        onlyParameters(ex, "symbol", "side");
        final String symbol = ex.request.getParam("symbol");
        final int instrumentId = symbol == null ? 0 : instrument(symbol, "symbol").id();
        command(ex, massCancelCommand(accountId, instrumentId, massCancelSide(ex.request.getParam("side")),
            ex::complete));
    }

    /**
     * @param text BUY, SELL, or null for both sides.
     */
    private static Side massCancelSide(final String text)
    {
        if (text == null)
        {
            return Side.NULL_VAL;
        }
        if (text.equals("BUY") || text.equals("SELL"))
        {
            return Side.valueOf(text);
        }
        throw ApiException.badRequest("INVALID_ENUM", "side: expected BUY or SELL, got \"" +
            clip(text) + "\"", "side");
    }

    /**
     * Cancel an account's open orders, answered with how many were canceled.
     *
     * @param instrumentId 0 for every instrument's.
     * @param side         {@link Side#NULL_VAL} for both sides.
     */
    private static Command massCancelCommand(
        final long accountId, final int instrumentId, final Side side, final BiConsumer<Object, ApiException> completion)
    {
        return new Command()
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.massCancel(buffer, 0, accountId, instrumentId, side);
            }

            public Object answer(final Answer answer, final ReadModel model)
            {
                if (answer.rejectReason != null)
                {
                    throw rejected(answer.rejectReason);
                }
                final ObjectNode node = Views.MAPPER.createObjectNode();
                node.put("canceledCount", answer.canceledCount);
                return node;
            }

            public void complete(final Object response, final ApiException error)
            {
                completion.accept(response, error);
            }
        };
    }

    // ------------------------------------------------------------------------------------------------ admin

    /**
     * An admin command answered with a small JSON object, or the engine's reject.
     */
    private abstract static class AdminCommand implements Command
    {
        private final Exchange ex;

        AdminCommand(final Exchange ex)
        {
            this.ex = ex;
        }

        public Object answer(final Answer answer, final ReadModel model)
        {
            if (answer.rejectReason != null)
            {
                throw rejected(answer.rejectReason);
            }
            final ObjectNode node = Views.MAPPER.createObjectNode();
            node.put("status", "APPLIED");
            return node;
        }

        public void complete(final Object response, final ApiException error)
        {
            ex.complete(response, error);
        }
    }

    private void admin(final Exchange ex, final String[] parts, final HttpMethod method)
    {
        final String path = ex.request.path();
        admin(ex);
        final String what = parts.length > 3 ? parts[3] : "";
        if (what.equals("snapshot") && parts.length == 4)
        {
            if (method != HttpMethod.POST)
            {
                throw methodNotAllowed();
            }
            if (!agent.submit(a -> ex.complete(snapshotAnswer(a.requestSnapshot()), null)))
            {
                throw busy();
            }
            return;
        }
        if (what.equals("kill-switch") && parts.length == 4)
        {
            killSwitch(ex, method, 0);
            return;
        }
        if (what.equals("assets") && parts.length == 5)
        {
            put(method);
            defineAsset(ex, parts[4]);
            return;
        }
        if (what.equals("instruments") && parts.length == 5)
        {
            put(method);
            defineInstrument(ex, parts[4]);
            return;
        }
        if (what.equals("instruments") && parts.length == 6 && parts[5].equals("trading-state"))
        {
            put(method);
            final InstrumentView instrument = instrument(parts[4], null);
            final ObjectNode body = Requests.object(ex.body, Set.of("tradingState"));
            final TradingState state = Requests.enumValue(body, "tradingState", TradingState.class, null,
                EnumSet.complementOf(EnumSet.of(TradingState.NULL_VAL)));
            command(ex, new AdminCommand(ex)
            {
                public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
                {
                    return encoder.setTradingState(buffer, 0, instrument.id(), state);
                }
            });
            return;
        }
        if (what.equals("accounts") && parts.length == 7 && parts[5].equals("history"))
        {
            historyKind(ex, parts[6]);
            get(method);
            history(ex, parts[6], parseId(parts[4], "accountId"), true);
            return;
        }
        if (what.equals("accounts") && parts.length == 4)
        {
            get(method);
            onlyParameters(ex, "after", "limit");
            final long after = queryLong(ex, "after", 0, 0, Long.MAX_VALUE);
            final int limit = (int)queryInt(ex, "limit", 100, 1, MAX_ACCOUNTS_PAGE);
            query(ex, model ->
            {
                checkLive();
                final long[] ids = model.accountIds(after, limit + 1);
                final ObjectNode page = Views.MAPPER.createObjectNode();
                page.put("globalKillSwitch", model.globalKillSwitch());
                final ArrayNode accounts = page.putArray("accounts");
                for (int i = 0; i < Math.min(ids.length, limit); i++)
                {
                    accounts.add(Views.account(model, ids[i], model.existingAccount(ids[i])));
                }
                page.put("nextAfter", ids.length > limit ? Long.toString(ids[limit - 1]) : null);
                return page;
            });
            return;
        }
        if (what.equals("accounts") && parts.length == 5)
        {
            get(method);
            onlyParameters(ex);
            final long accountId = parseId(parts[4], "accountId");
            query(ex, model -> Views.account(model, accountId, adminAccount(model, accountId)));
            return;
        }
        if (what.equals("accounts") && parts.length == 6)
        {
            final long accountId = parseId(parts[4], "accountId");
            switch (parts[5])
            {
                case "deposits", "withdrawals" ->
                {
                    if (method != HttpMethod.POST)
                    {
                        throw methodNotAllowed();
                    }
                    transfer(ex, accountId, parts[5].equals("deposits"));
                }
                case "limits" ->
                {
                    put(method);
                    limits(ex, accountId);
                }
                case "fees" ->
                {
                    put(method);
                    fees(ex, accountId);
                }
                case "kill-switch" -> killSwitch(ex, method, accountId);
                // What a support desk needs to see and do about an account, as its own key would.
                case "balances" ->
                {
                    get(method);
                    onlyParameters(ex);
                    query(ex, model ->
                    {
                        adminAccount(model, accountId);
                        return Views.balances(model, accountId);
                    });
                }
                case "fills" ->
                {
                    get(method);
                    fills(ex, accountId, true);
                }
                case "orders" ->
                {
                    if (method == HttpMethod.GET)
                    {
                        openOrders(ex, accountId, true);
                    }
                    else if (method == HttpMethod.DELETE)
                    {
                        massCancel(ex, accountId);
                    }
                    else
                    {
                        throw methodNotAllowed();
                    }
                }
                default -> throw notFound(path);
            }
            return;
        }
        throw notFound(path);
    }

    private static ObjectNode snapshotAnswer(final boolean requested)
    {
        if (!requested)
        {
            throw new ApiException(503, "NOT_CONNECTED", "not connected to the cluster; retry shortly", null, 1);
        }
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("status", "REQUESTED");
        return node;
    }

    private void killSwitch(final Exchange ex, final HttpMethod method, final long accountId)
    {
        put(method);
        final ObjectNode body = Requests.object(ex.body, Set.of("active"));
        if (!body.has("active"))
        {
            throw ApiException.badRequest("MISSING_FIELD", "active is required", "active");
        }
        final boolean active = Requests.bool(body, "active", false);
        command(ex, new AdminCommand(ex)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.setKillSwitch(buffer, 0, accountId, active);
            }
        });
    }

    private void defineAsset(final Exchange ex, final String symbol)
    {
        checkSymbol(symbol);
        final ObjectNode body = Requests.object(ex.body, Set.of("id", "scale"));
        final int id = (int)Requests.integer(body, "id", true, 0, 1, Integer.MAX_VALUE);
        final int scale = (int)Requests.integer(body, "scale", true, 0, 0, 18);
        command(ex, new AdminCommand(ex)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.defineAsset(buffer, 0, id, scale, symbol);
            }
        });
    }

    private void defineInstrument(final Exchange ex, final String symbol)
    {
        checkSymbol(symbol);
        final ObjectNode body = Requests.object(ex.body, INSTRUMENT_FIELDS);
        final InstrumentView existing = agent.instruments().get(symbol);
        final int id = (int)Requests.integer(body, "id", existing == null, existing == null ? 0 : existing.id(), 1,
            Integer.MAX_VALUE);
        if (existing != null && existing.id() != id)
        {
            throw ApiException.badRequest("INVALID_INSTRUMENT", symbol + " already has id " + existing.id(), "id");
        }
        final String base = Requests.string(body, "baseAsset", true);
        final String quote = Requests.string(body, "quoteAsset", true);
        final int priceScale = (int)Requests.integer(body, "priceScale", true, 0, 0, 18);
        final int quantityScale = (int)Requests.integer(body, "quantityScale", true, 0, 0, 18);
        final long tick = Decimals.parse(Requests.string(body, "tickSize", true), priceScale, "tickSize", "INVALID_DECIMAL");
        final long lot = Decimals.parse(Requests.string(body, "lotSize", true), quantityScale, "lotSize", "INVALID_DECIMAL");
        final long min = decimalOrZero(body, "minQuantity", quantityScale);
        final long max = decimalOrZero(body, "maxQuantity", quantityScale);
        final long reference = decimalOrZero(body, "referencePrice", priceScale);
        final int band = (int)Requests.integer(body, "priceBandBps", false, 0, 0, 1_000_000);
        final int makerFee = (int)Requests.integer(body, "makerFeePpm", false, 0, 0, MAX_FEE_PPM);
        final int takerFee = (int)Requests.integer(body, "takerFeePpm", false, 0, 0, MAX_FEE_PPM);
        final TradingState state = Requests.enumValue(body, "tradingState", TradingState.class, TradingState.OPEN,
            EnumSet.complementOf(EnumSet.of(TradingState.NULL_VAL)));
        command(ex, new AdminCommand(ex)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.defineInstrument(buffer, 0, id, symbol, assetId(base, "baseAsset"),
                    assetId(quote, "quoteAsset"), priceScale, tick, quantityScale, lot, min, max, band, reference,
                    makerFee, takerFee, state);
            }
        });
    }

    private void transfer(final Exchange ex, final long accountId, final boolean deposit)
    {
        final ObjectNode body = Requests.object(ex.body, Set.of("asset", "amount", "transactionId"));
        final String asset = Requests.string(body, "asset", true);
        final String amountText = Requests.string(body, "amount", true);
        final long transactionId = Requests.integer(body, "transactionId", true, 0, 1, Long.MAX_VALUE);
        command(ex, new Command()
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                final int assetId = assetId(asset, "asset");
                final long amount = Decimals.parse(amountText, agent.model().assetScale(assetId), "amount",
                    RejectReason.INVALID_AMOUNT.name());
                return deposit ? encoder.deposit(buffer, 0, transactionId, accountId, assetId, amount) :
                    encoder.withdraw(buffer, 0, transactionId, accountId, assetId, amount);
            }

            public Object answer(final Answer answer, final ReadModel model)
            {
                if (answer.rejectReason != null)
                {
                    throw rejected(answer.rejectReason);
                }
                final ObjectNode node = Views.MAPPER.createObjectNode();
                node.put("transactionId", transactionId);
                node.put("applied", answer.transferApplied);
                return node;
            }

            public void complete(final Object response, final ApiException error)
            {
                ex.complete(response, error);
            }
        });
    }

    private void limits(final Exchange ex, final long accountId)
    {
        final ObjectNode body = Requests.object(ex.body,
            Set.of("maxOrderQuantity", "maxOrderNotional", "maxOpenOrders", "selfTradePrevention"));
        final long maxQuantity = Requests.integer(body, "maxOrderQuantity", false, 0, 0, Long.MAX_VALUE);
        final long maxNotional = Requests.integer(body, "maxOrderNotional", false, 0, 0, Long.MAX_VALUE);
        final int maxOpen = (int)Requests.integer(body, "maxOpenOrders", false, 0, 0, Integer.MAX_VALUE);
        final SelfTradePrevention stp = Requests.enumValue(body, "selfTradePrevention", SelfTradePrevention.class,
            SelfTradePrevention.ACCOUNT_DEFAULT, EnumSet.complementOf(EnumSet.of(SelfTradePrevention.NULL_VAL)));
        command(ex, new AdminCommand(ex)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.setAccountLimits(buffer, 0, accountId, maxQuantity, maxNotional, maxOpen, stp);
            }
        });
    }

    /**
     * {@code PUT /api/v1/admin/accounts/{accountId}/fees}: the account's own maker and taker rates on every
     * instrument, in millionths of notional (0 to 1,000,000); a rate left out or null is each instrument's.
     */
    private void fees(final Exchange ex, final long accountId)
    {
        final ObjectNode body = Requests.object(ex.body, Set.of("makerFeePpm", "takerFeePpm"));
        final int maker = (int)Requests.integer(body, "makerFeePpm", false, -1, 0, MAX_FEE_PPM);
        final int taker = (int)Requests.integer(body, "takerFeePpm", false, -1, 0, MAX_FEE_PPM);
        command(ex, new AdminCommand(ex)
        {
            public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
            {
                return encoder.setAccountFees(buffer, 0, accountId, maker, taker);
            }
        });
    }

    /**
     * Resolve an asset symbol on the gateway thread.
     */
    private int assetId(final String symbol, final String field)
    {
        for (final int assetId : agent.model().assetIds())
        {
            if (agent.model().assetSymbol(assetId).equals(symbol))
            {
                return assetId;
            }
        }
        throw new ApiException(404, RejectReason.UNKNOWN_ASSET.name(), field + ": unknown asset \"" + symbol + "\"", field);
    }

    private static long decimalOrZero(final ObjectNode body, final String field, final int scale)
    {
        final String text = Requests.string(body, field, false);
        return text == null ? 0 : Decimals.parse(text, scale, field, "INVALID_DECIMAL");
    }

    private static void checkSymbol(final String symbol)
    {
        if (!SYMBOL.matcher(symbol).matches())
        {
            throw ApiException.badRequest("INVALID_SYMBOL", "symbol: 1 to 16 of A-Z a-z 0-9 . _ -", "symbol");
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * Run on the gateway thread.
     *
     * @param admin whether an admin asks ({@link #adminAccount}), not the account's own key.
     * @return the account, or null when the exchange has none of the id and its own key asks.
     */
    private ReadModel.AccountState account(final ReadModel model, final long accountId, final boolean admin)
    {
        return admin ? adminAccount(model, accountId) : model.existingAccount(accountId);
    }

    /**
     * An admin's read of one account. Run on the gateway thread.
     *
     * @return the account.
     * @throws ApiException as {@link #adminAccountProblem} says.
     */
    private ReadModel.AccountState adminAccount(final ReadModel model, final long accountId)
    {
        final ApiException refused = adminAccountProblem(model, accountId);
        if (refused != null)
        {
            throw refused;
        }
        return model.existingAccount(accountId);
    }

    /**
     * Run on the gateway thread.
     *
     * @return why an admin cannot read the account, or null: {@code 503 NOT_READY} before the gateway holds the
     * exchange's state, {@code 404 UNKNOWN_ACCOUNT} when the exchange has no such account (a mistyped id reads as an
     * error, not as an account with nothing in it).
     */
    private ApiException adminAccountProblem(final ReadModel model, final long accountId)
    {
        if (!agent.isLive())
        {
            return notReady();
        }
        return model.existingAccount(accountId) == null ? new ApiException(404, RejectReason.UNKNOWN_ACCOUNT.name(),
            "the exchange has no account " + accountId, "accountId") : null;
    }

    /**
     * Refuse, on the gateway thread, a query whose answer an empty model would falsify (no instruments, no accounts,
     * the switch off) while the gateway does not hold the exchange's state.
     */
    private void checkLive()
    {
        if (!agent.isLive())
        {
            throw notReady();
        }
    }

    private static ApiException notReady()
    {
        return new ApiException(503, "NOT_READY", "the gateway does not hold the exchange state yet", null, 1);
    }

    private void command(final Exchange ex, final Command command)
    {
        if (!agent.isLive())
        {
            throw notReady();
        }
        if (!agent.submit(a -> a.sendOrAnswer(command)))
        {
            throw busy();
        }
    }

    private interface Query
    {
        Object run(ReadModel model);
    }

    private void query(final Exchange ex, final Query query)
    {
        if (!agent.submit(a ->
        {
            Object response = null;
            ApiException error = null;
            try
            {
                response = query.run(a.model());
            }
            catch (final ApiException failure)
            {
                error = failure;
            }
            catch (final RuntimeException failure)
            {
                // A defect in a query must neither leave the request unanswered nor stop the gateway thread.
                error = ApiException.internal(failure);
            }
            ex.complete(response, error);
        }))
        {
            throw busy();
        }
    }

    private static ApiException unknownOrder(final long orderId)
    {
        return new ApiException(404, RejectReason.UNKNOWN_ORDER.name(), "no order " + orderId + " of this account",
            "orderId");
    }

    private static ApiException busy()
    {
        return new ApiException(503, "BUSY", "the gateway is overloaded; retry shortly", null, 1);
    }

    private ApiKey trader(final Exchange ex)
    {
        final ApiKey key = authenticate(ex);
        if (key.admin())
        {
            throw new ApiException(403, "FORBIDDEN", "admin keys cannot trade: use an account's API key", null);
        }
        if (key.readOnly() && ex.request.method() != HttpMethod.GET)
        {
            throw new ApiException(403, "READ_ONLY_KEY",
                "this API key is read-only: it cannot place, replace or cancel orders", null);
        }
        return key;
    }

    private void admin(final Exchange ex)
    {
        if (!authenticate(ex).admin())
        {
            throw new ApiException(403, "FORBIDDEN", "admin endpoints need an admin API key", null);
        }
    }

    private ApiKey authenticate(final Exchange ex)
    {
        if (ex.key != null)
        {
            return ex.key;
        }
        final HttpServerRequest request = ex.request;
        try
        {
            ex.key = authenticator.authenticate(request.getHeader("X-Bourse-Key"),
                request.getHeader("X-Bourse-Timestamp"), request.getHeader("X-Bourse-Signature"),
                request.method().name(), request.uri(), ex.body, Authenticator.isSingleUse(request.method().name()),
                ex.tokens, System.currentTimeMillis());
        }
        catch (final ApiException failure)
        {
            countRefusal(failure);
            // A signed request took no token of the address's in route (an unsigned one did, and is not counted twice).
            throw request.getHeader("X-Bourse-Key") != null ? countedAgainstAddress(failure, clientAddress(request)) :
                failure;
        }
        return ex.key;
    }

    /**
     * A signed request or WebSocket {@code auth} refused by authentication takes a token of its address, so that a
     * client guessing keys or signatures is limited as an unsigned one is.
     *
     * @return what to answer: the failure, or RATE_LIMITED once the address has no token left.
     */
    private ApiException countedAgainstAddress(final ApiException failure, final String address)
    {
        final ApiException limited = failure.status == 401 ? overAddressRate(address) : null;
        return limited != null ? limited : failure;
    }

    /**
     * Take a token of a client's address ({@link #clientAddress}), for a request no API key vouches for.
     *
     * @return null when it took one (or there is no limit per address), else the 429 RATE_LIMITED to answer, counted.
     */
    private ApiException overAddressRate(final String address)
    {
        final long retryAfterS =
            addressRateLimiter == null ? 0 : addressRateLimiter.tryAcquire(address, System.nanoTime());
        if (retryAfterS == 0)
        {
            return null;
        }
        metrics.rateLimited.increment();
        return addressRateLimiter.refusal(retryAfterS);
    }

    /**
     * Whom a request's limits per address count it against: its client, as {@link TrustedProxies} tells it from the
     * connection and the {@code X-Forwarded-For} header.
     */
    private String clientAddress(final HttpServerRequest request)
    {
        final TrustedProxies proxies = context.trustedProxies;
        return proxies.clientAddress(request.remoteAddress(),
            proxies.trustsAny() ? request.headers().getAll("X-Forwarded-For") : List.of());
    }

    private void countRefusal(final ApiException failure)
    {
        if (failure.status == 429)
        {
            metrics.rateLimited.increment();
        }
        else if (failure.status == 401)
        {
            metrics.authFailures.increment();
        }
    }

    private InstrumentView instrument(final String symbol, final String field)
    {
        // Read before the lookup: the view is only rebuilt while not live (after a gap it loads the exchange state
        // again, its instruments first cleared), so an instrument missing then is not known to be unknown.
        final boolean liveBefore = agent.isLive();
        final InstrumentView instrument = agent.instruments().get(symbol);
        if (instrument == null)
        {
            if (!liveBefore || !agent.isLive())
            {
                throw notReady();
            }
            throw new ApiException(404, RejectReason.UNKNOWN_INSTRUMENT.name(), "unknown instrument \"" + symbol + "\"",
                field);
        }
        return instrument;
    }

    private static long price(final InstrumentView instrument, final String text, final String field)
    {
        return price(instrument, text, field, RejectReason.INVALID_PRICE);
    }

    private static long stopPrice(final InstrumentView instrument, final String text)
    {
        return price(instrument, text, "stopPrice", RejectReason.INVALID_STOP_PRICE);
    }

    /**
     * @param notPositive the code of the answer to a price that is not positive.
     */
    private static long price(
        final InstrumentView instrument, final String text, final String field, final RejectReason notPositive)
    {
        final long price = Decimals.parse(text, instrument.priceScale(), field, RejectReason.PRICE_OFF_TICK.name());
        if (price <= 0)
        {
            throw ApiException.badRequest(notPositive.name(), field + " must be positive", field);
        }
        if (price % instrument.tickSize() != 0)
        {
            throw ApiException.badRequest(RejectReason.PRICE_OFF_TICK.name(), field + ": " + text +
                " is not a multiple of the tick size " + instrument.price(instrument.tickSize()), field);
        }
        return price;
    }

    private static long quantity(final InstrumentView instrument, final String text, final String field)
    {
        final long quantity = Decimals.parse(text, instrument.quantityScale(), field,
            RejectReason.QUANTITY_OFF_LOT.name());
        if (quantity <= 0)
        {
            throw ApiException.badRequest(RejectReason.INVALID_QUANTITY.name(), field + " must be positive", field);
        }
        if (quantity % instrument.lotSize() != 0)
        {
            throw ApiException.badRequest(RejectReason.QUANTITY_OFF_LOT.name(), field + ": " + text +
                " is not a multiple of the lot size " + instrument.quantity(instrument.lotSize()), field);
        }
        return quantity;
    }

    private static long clientOrderId(final String text, final boolean generate)
    {
        if (text == null)
        {
            return generate ? ClientOrderIds.encode(GeneratedIds.next()) : 0;
        }
        if (!ClientOrderIds.isValid(text))
        {
            throw ApiException.badRequest(RejectReason.INVALID_CLIENT_ORDER_ID.name(),
                "clientOrderId: 1 to " + ClientOrderIds.MAX_LENGTH + " characters of 0-9 A-Z a-z -", "clientOrderId");
        }
        return ClientOrderIds.encode(text);
    }

    /**
     * {@code GET /api/v1/candles/{symbol}}, oldest first, intervals without a trade left out. Intervals of less than an
     * hour are the gateway's day of minutes alone: the most recent {@code limit} whole intervals with a trade that
     * start before {@code beforeNs}. Those of an hour or more, with a post-trade store that keeps hours, are the last
     * {@code limit} intervals that start before {@code beforeNs}: the store's hours before the first whole hour of the
     * gateway's day, the gateway's minutes from it; the store is not asked when the intervals lie within the day.
     */
    private void candles(
        final Exchange ex, final InstrumentView instrument, final int intervalMinutes, final int limit,
        final long beforeNs)
    {
        final HistorySource source = context.history;
        final long intervalNs = intervalMinutes * MinuteBars.MINUTE_NS;
        // By the wall clock here; the gateway thread's time (the cluster's, if ahead) decides the intervals: never
        // behind it, and an hour ahead at most in practice (a query across an hour's end), which the hours read cover.
        final long wallNs = System.currentTimeMillis() * 1_000_000L;
        final long firstStartNs = lastStartNs(wallNs, beforeNs, intervalNs) - (limit - 1) * intervalNs;
        final boolean withStore = source != null && source.keepsHours() && intervalMinutes >= 60;
        // An hour more than the wall clock's day asks: the gateway thread's day may start an hour later.
        final long storeBeforeNs = minutesFromNs(wallNs) + HOUR_NS;
        if (!withStore || firstStartNs >= storeBeforeNs)
        {
            query(ex, model -> candleArray(withStore ?
                candles(model, instrument, intervalNs, limit, beforeNs, List.of()) :
                model.market(instrument.id()).bars.candles(model.nowNs(), beforeNs, intervalMinutes, limit),
                instrument));
            return;
        }
        historyQuery(ex, () -> source.hourlyCandles(instrument.id(), firstStartNs, storeBeforeNs),
            hours -> query(ex, model -> candleArray(candles(model, instrument, intervalNs, limit, beforeNs, hours),
                instrument)));
    }

    /**
     * The last {@code limit} intervals that start before {@code beforeNs}, those with a trade: the store's hours before
     * the first whole hour of the gateway's day, the gateway's minutes from it. Run on the gateway thread.
     */
    private static List<MinuteBars.Bar> candles(
        final ReadModel model, final InstrumentView instrument, final long intervalNs, final int limit,
        final long beforeNs, final List<HistorySource.Hour> hours)
    {
        final MinuteBars bars = model.market(instrument.id()).bars;
        final long nowNs = model.nowNs();
        final long minutesFromNs = minutesFromNs(nowNs);
        final long lastStartNs = lastStartNs(nowNs, beforeNs, intervalNs);
        final List<MinuteBars.Bar> candles = new ArrayList<>();
        final MinuteBars.Accumulator candle = new MinuteBars.Accumulator();
        int next = 0;
        for (long startNs = lastStartNs - (limit - 1) * intervalNs; startNs <= lastStartNs; startNs += intervalNs)
        {
            final long endNs = startNs + intervalNs;
            candle.reset();
            for (; next < hours.size() && hours.get(next).startMinute() * MinuteBars.MINUTE_NS < endNs; next++)
            {
                final HistorySource.Hour hour = hours.get(next);
                if (hour.startMinute() * MinuteBars.MINUTE_NS >= startNs &&
                    hour.startMinute() * MinuteBars.MINUTE_NS < minutesFromNs)
                {
                    candle.add(bar(hour));
                }
            }
            if (endNs > minutesFromNs)
            {
                candle.add(bars.range(Math.max(startNs, minutesFromNs) / MinuteBars.MINUTE_NS,
                    endNs / MinuteBars.MINUTE_NS));
            }
            if (candle.trades > 0)
            {
                candles.add(candle.bar(startNs / MinuteBars.MINUTE_NS));
            }
        }
        return candles;
    }

    /**
     * @return the start of the last interval that starts before {@code beforeNs} and not after now.
     */
    private static long lastStartNs(final long nowNs, final long beforeNs, final long intervalNs)
    {
        return Math.floorDiv(Math.min(beforeNs - 1, nowNs), intervalNs) * intervalNs;
    }

    /**
     * @return the first whole hour of the gateway's day of minutes: candles take the store's hours before it.
     */
    private static long minutesFromNs(final long nowNs)
    {
        return Math.ceilDiv(MinuteBars.dayStartNs(nowNs), HOUR_NS) * HOUR_NS;
    }

    private static MinuteBars.Bar bar(final HistorySource.Hour hour)
    {
        return new MinuteBars.Bar(hour.startMinute(), hour.open(), hour.high(), hour.low(), hour.close(),
            hour.volume(), hour.quoteVolume().shiftRight(64).longValue(), hour.quoteVolume().longValue(),
            hour.trades());
    }

    private static ArrayNode candleArray(final List<MinuteBars.Bar> candles, final InstrumentView instrument)
    {
        final ArrayNode array = Views.MAPPER.createArrayNode();
        for (final MinuteBars.Bar bar : candles)
        {
            array.add(Views.candle(bar, instrument));
        }
        return array;
    }

    /**
     * @return the minutes of a candle interval: 1m, 5m, 15m, 30m, 1h, 4h or 1d (1m when not given), each a divisor
     * of a day, so that candles start at the same times every day (UTC).
     */
    private static int candleInterval(final String text)
    {
        return switch (text == null ? "1m" : text)
        {
            case "1m" -> 1;
            case "5m" -> 5;
            case "15m" -> 15;
            case "30m" -> 30;
            case "1h" -> 60;
            case "4h" -> 240;
            case "1d" -> MinuteBars.MINUTES;
            default -> throw ApiException.badRequest("INVALID_ENUM", "interval: expected one of 1m, 5m, 15m, 30m, " +
                "1h, 4h, 1d, got \"" + clip(text) + "\"", "interval");
        };
    }

    /**
     * @return a value a client sent, cut to 20 characters for an error message.
     */
    private static String clip(final String text)
    {
        return text.length() > 20 ? text.substring(0, 20) + "…" : text;
    }

    private static long parseId(final String text, final String field)
    {
        if (!ID.matcher(text).matches() || Long.parseLong(text) <= 0)
        {
            throw ApiException.badRequest("INVALID_ID", field + ": expected a positive integer, got \"" +
                clip(text) + "\"", field);
        }
        return Long.parseLong(text);
    }

    private static long queryLong(final Exchange ex, final String name, final long defaultValue, final long min, final long max)
    {
        final String text = ex.request.getParam(name);
        if (text == null)
        {
            return defaultValue;
        }
        if (!ID.matcher(text).matches() || Long.parseLong(text) < min || Long.parseLong(text) > max)
        {
            throw ApiException.badRequest("INVALID_PARAMETER", name + ": expected an integer from " + min + " to " + max,
                name);
        }
        return Long.parseLong(text);
    }

    private static HistorySource.Cursor cursor(final Exchange ex)
    {
        final String text = ex.request.getParam("cursor");
        if (text == null)
        {
            return null;
        }
        final Matcher matcher = CURSOR.matcher(text);
        if (matcher.matches())
        {
            return new HistorySource.Cursor(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)));
        }
        throw ApiException.badRequest("INVALID_PARAMETER", "cursor: expected the nextCursor of the previous page " +
            "(<time ns>-<id>)", "cursor");
    }

    private static String cursorText(final HistorySource.Cursor cursor)
    {
        return cursor == null ? null : cursor.timeNs() + "-" + cursor.id();
    }

    private static long queryInt(final Exchange ex, final String name, final long defaultValue, final long min, final long max)
    {
        final String text = ex.request.getParam(name);
        if (text == null)
        {
            return defaultValue;
        }
        if (!SMALL_INTEGER.matcher(text).matches() || Long.parseLong(text) < min || Long.parseLong(text) > max)
        {
            throw ApiException.badRequest("INVALID_PARAMETER", name + ": expected an integer from " + min + " to " + max,
                name);
        }
        return Long.parseLong(text);
    }

    /**
     * The engine's reject reasons, one error code each; the status says whose fault it is.
     */
    static ApiException rejected(final RejectReason reason)
    {
        final int status = switch (reason)
        {
            case UNKNOWN_ORDER, UNKNOWN_INSTRUMENT, UNKNOWN_ASSET, UNKNOWN_ACCOUNT -> 404;
            case DUPLICATE_CLIENT_ORDER_ID -> 409;
            case INVALID_SIDE, INVALID_ORDER_TYPE, INVALID_TIME_IN_FORCE, INVALID_PRICE, PRICE_OFF_TICK,
                INVALID_QUANTITY, QUANTITY_OFF_LOT, QUANTITY_BELOW_MINIMUM, QUANTITY_ABOVE_MAXIMUM, EXPIRY_IN_PAST,
                INVALID_EXPIRY, INVALID_QUOTE_AMOUNT, NOTIONAL_OVERFLOW, REPLACE_QUANTITY_NOT_ABOVE_FILLED,
                INVALID_STP_MODE, INVALID_INSTRUMENT_DEFINITION, INVALID_AMOUNT, INVALID_TRADING_STATE, INVALID_LIMIT,
                INVALID_ACCOUNT, INVALID_CLIENT_ORDER_ID, INVALID_ASSET_DEFINITION, UNKNOWN_COMMAND,
                INVALID_TRANSACTION_ID, INVALID_INSTRUMENT, ASSET_REDEFINITION, INVALID_FEE_RATE, INVALID_STOP_PRICE,
                INVALID_TIMEOUT -> 400;
            default -> 422;
        };
        return new ApiException(status, reason.name(), "the exchange rejected the command: " +
            reason.name().toLowerCase().replace('_', ' '), null);
    }

    private static void only(final int parts, final int expected, final String path)
    {
        if (parts != expected)
        {
            throw notFound(path);
        }
    }

    private static void get(final HttpMethod method)
    {
        if (method != HttpMethod.GET)
        {
            throw methodNotAllowed();
        }
    }

    private static void put(final HttpMethod method)
    {
        if (method != HttpMethod.PUT)
        {
            throw methodNotAllowed();
        }
    }

    /**
     * A request the HTTP decoder could not read (request line or headers over the limits, or malformed). It still
     * gets a problem body like every other error; the connection is closed because the decoder cannot resume.
     */
    private void onInvalidRequest(final HttpServerRequest request)
    {
        metrics.httpRequests.increment();
        final Throwable cause = request.decoderResult().cause();
        final ApiException error;
        if (cause instanceof TooLongHttpLineException)
        {
            error = new ApiException(414, "URI_TOO_LONG", "the request line is longer than " +
                HttpServerOptions.DEFAULT_MAX_INITIAL_LINE_LENGTH + " bytes", null);
        }
        else if (cause instanceof TooLongHttpHeaderException)
        {
            error = new ApiException(431, "HEADERS_TOO_LARGE", "the request headers are larger than " +
                HttpServerOptions.DEFAULT_MAX_HEADER_SIZE + " bytes", null);
        }
        else
        {
            error = ApiException.badRequest("MALFORMED_REQUEST", "the request is not valid HTTP/1.1", null);
        }
        request.response().putHeader("Connection", "close");
        problem(new Exchange(request, System.nanoTime()), error);
    }

    private static ApiException notFound(final String path)
    {
        return new ApiException(404, "NOT_FOUND", "no such resource: " +
            (path.length() > 100 ? path.substring(0, 100) + "…" : path), null);
    }

    private static ApiException methodNotAllowed()
    {
        return new ApiException(405, "METHOD_NOT_ALLOWED", "method not allowed on this resource", null);
    }

    // ------------------------------------------------------------------------------------------------ responses

    private void json(final Exchange ex, final int status, final Object body)
    {
        try
        {
            send(ex, status, "application/json", Views.MAPPER.writeValueAsBytes(body));
        }
        catch (final IOException failure)
        {
            problem(ex, new ApiException(500, "INTERNAL_ERROR", "cannot write the response", null));
        }
    }

    private void problem(final Exchange ex, final ApiException error)
    {
        metrics.httpErrors.increment();
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("type", "https://github.com/bourse/bourse/blob/main/gateway-http/README.md#errors");
        node.put("title", error.code);
        node.put("status", error.status);
        node.put("code", error.code);
        node.put("detail", error.getMessage());
        if (error.field != null)
        {
            node.put("field", error.field);
        }
        if (error.retryAfterS > 0)
        {
            ex.request.response().putHeader("Retry-After", Long.toString(error.retryAfterS));
        }
        ex.errorCode = error.code;
        if (error.invitesResend() && ex.key != null)
        {
            // It did not act: the same signed request, sent again as Retry-After invites, is not a replay.
            authenticator.forget(ex.request.getHeader("X-Bourse-Signature"));
        }
        send(ex, error.status, "application/problem+json", node.toString().getBytes(StandardCharsets.UTF_8));
    }

    private void send(final Exchange ex, final int status, final String contentType, final byte[] body)
    {
        if (ex.answered)
        {
            return;
        }
        ex.answered = true;
        ex.request.response()
            .setStatusCode(status)
            .putHeader("Content-Type", contentType)
            .putHeader("Cache-Control", "no-store")
            .end(Buffer.buffer(body));
        metrics.recordHttp(System.nanoTime() - ex.startNs);
        final String method = ex.request.method().name();
        if (adminAudit != null && ex.key != null && AdminAudit.isAdminChange(method, ex.request.path()))
        {
            adminAudit.record(System.currentTimeMillis(), ex.key.key(), clientAddress(ex.request), method,
                ex.request.uri(), ex.body, status, ex.errorCode);
        }
    }

    private void file(final Exchange ex, final String name)
    {
        send(ex, 200, CONTENT_TYPES.get(name.substring(name.lastIndexOf('.') + 1)), staticFiles.get(name));
    }

    private static byte[] resource(final String name)
    {
        try (InputStream in = HttpGateway.class.getResourceAsStream(name))
        {
            if (in == null)
            {
                throw new IllegalStateException("resource " + name + " is missing from the gateway's jar");
            }
            return in.readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read resource " + name, ex);
        }
    }

    // ------------------------------------------------------------------------------------------------ WebSocket

    /**
     * A WebSocket upgrade is admitted only within the connection limits: each connection holds buffers and a session
     * on the gateway thread, so a client opening them without end would exhaust the gateway for everyone.
     */
    private void onWebSocketUpgrade(final HttpServerRequest request, final Exchange exchange)
    {
        final String address = clientAddress(request);
        final ApiException limited = overAddressRate(address);
        if (limited != null)
        {
            problem(exchange, limited);
            return;
        }
        final ApiException refusal = admitWebSocket(address);
        if (refusal != null)
        {
            metrics.wsRefused.increment();
            problem(exchange, refusal);
            return;
        }
        request.toWebSocket()
            .onSuccess(socket -> onWebSocket(socket, address))
            .onFailure(ignored -> releaseWebSocket(address));
    }

    /**
     * @return why a WebSocket connection from the address is refused, or null when it is admitted and counted.
     */
    private ApiException admitWebSocket(final String address)
    {
        if (webSockets.incrementAndGet() > context.maxWebSockets)
        {
            webSockets.decrementAndGet();
            return new ApiException(503, "TOO_MANY_CONNECTIONS", "the gateway holds its limit of " +
                context.maxWebSockets + " WebSocket connections: connect again later", null, 1);
        }
        if (webSocketsByAddress.merge(address, 1, Integer::sum) > context.maxWebSocketsPerAddress)
        {
            releaseWebSocket(address);
            return new ApiException(429, "TOO_MANY_CONNECTIONS", "at most " + context.maxWebSocketsPerAddress +
                " WebSocket connections from one address: close one first", null);
        }
        return null;
    }

    /**
     * A connection the gateway cannot open a session for (its task queue full, or it is closing) goes, and so does its
     * count.
     */
    private void refuseWebSocket(final ServerWebSocket socket, final String address)
    {
        metrics.wsDropped.increment();
        releaseWebSocket(address);
        socket.close((short)1013, "the gateway is busy: connect again later");
    }

    private void releaseWebSocket(final String address)
    {
        webSockets.decrementAndGet();
        webSocketsByAddress.computeIfPresent(address, (ignored, count) -> count == 1 ? null : count - 1);
    }

    private void onWebSocket(final ServerWebSocket socket, final String address)
    {
        // Called on the connection's event loop: its context is where the gateway thread has its messages written.
        final GatewayAgent.WsSession session = new GatewayAgent.WsSession(socket, Vertx.currentContext());
        final boolean opened;
        try
        {
            opened = agent.submit(a -> a.onWsOpen(session));
        }
        catch (final RuntimeException ex)
        {
            refuseWebSocket(socket, address);
            throw ex;
        }
        if (!opened)
        {
            refuseWebSocket(socket, address);
            return;
        }
        socket.closeHandler(ignored ->
        {
            releaseWebSocket(address);
            session.disconnected = true;
            submitOrDrop(a -> a.onWsClose(session));
        });
        socket.exceptionHandler(ignored ->
        {
            // A broken connection: its close handler removes the session.
        });
        final RateLimiter.Bucket messages = rateLimiter.newBucket(System.nanoTime());
        socket.textMessageHandler(text ->
        {
            if (session.slow)
            {
                // Being closed as a slow consumer: what it sends is read and not acted on.
                return;
            }
            if (messages.tryTake(System.nanoTime()) == 0)
            {
                onWsMessage(session, address, text);
            }
            else
            {
                // Answered here, not on the gateway thread: a flood must not fill the gateway's task queue.
                metrics.rateLimited.increment();
                answerOrClose(session, wsRateLimited);
            }
        });
    }

    /**
     * Answer a connection's message on its event loop, counted with the answers the gateway thread hands it: the
     * answer, or, with {@link GatewayAgent#WS_ANSWERS_QUEUE_BYTES} of them waiting (a client flooding without reading),
     * the connection's close as a slow consumer, which the gateway thread makes once the answers it has made for the
     * connection are written. Never dropped.
     */
    private void answerOrClose(final GatewayAgent.WsSession session, final String text)
    {
        if (session.slow || session.socket.isClosed())
        {
            return;
        }
        if (session.handedAnswerBytes.get() >= GatewayAgent.WS_ANSWERS_QUEUE_BYTES)
        {
            session.slow = true;
            if (!agent.submit(a -> a.closeAfterFlush(session)))
            {
                GatewayAgent.closeAsSlowConsumer(session, metrics);
            }
            return;
        }
        final long cost = GatewayAgent.cost(text);
        session.handedAnswerBytes.addAndGet(cost);
        session.socket.writeTextMessage(text).onComplete(written -> session.handedAnswerBytes.addAndGet(-cost));
    }

    private void submitOrDrop(final Consumer<GatewayAgent> task)
    {
        if (!agent.submit(task))
        {
            metrics.wsDropped.increment();
        }
    }

    /**
     * Hand a connection's message to the gateway thread, or, with its task queue full, answer it {@code error BUSY}
     * here: a message is never left unanswered.
     */
    private void submitOrBusy(final GatewayAgent.WsSession session, final Consumer<GatewayAgent> task)
    {
        if (!agent.submit(task))
        {
            metrics.wsDropped.increment();
            answerOrClose(session, WS_BUSY);
        }
    }

    private void onWsMessage(final GatewayAgent.WsSession session, final String address, final String text)
    {
        try
        {
            final ObjectNode message = Requests.object(text.getBytes(StandardCharsets.UTF_8), WS_MESSAGE_FIELDS);
            final String op = Requests.string(message, "op", true);
            if (WS_ORDER_FIELDS.containsKey(op))
            {
                wsOrder(session, op, message);
                return;
            }
            Requests.object(message, WS_FIELDS);
            switch (op)
            {
                // Through the gateway thread, as the answers to the connection's other messages go: a client may take
                // the pong to mean that everything it sent before has been answered.
                case "ping" -> submitOrBusy(session, a ->
                {
                    if (session.ordersInFlight == 0)
                    {
                        pong(a, session);
                    }
                    else
                    {
                        session.pongsHeld++;
                    }
                });
                case "auth" ->
                {
                    final ApiKey key;
                    try
                    {
                        key = authenticator.authenticate(Requests.string(message, "key", true),
                            Requests.string(message, "timestamp", true), Requests.string(message, "signature", true),
                            "GET", "/ws", new byte[0], true, 1, System.currentTimeMillis());
                    }
                    catch (final ApiException failure)
                    {
                        throw countedAgainstAddress(failure, address);
                    }
                    if (key.admin())
                    {
                        throw new ApiException(403, "FORBIDDEN", "admin keys have no private channels", null);
                    }
                    submitOrBusy(session, a ->
                    {
                        if (session.accountId != 0 && session.accountId != key.accountId())
                        {
                            // Its private subscriptions are the first account's: one connection, one account.
                            wsError(a, session, new ApiException(409, "ALREADY_AUTHENTICATED", "this connection is " +
                                "authenticated for account " + session.accountId + ": use another connection for " +
                                "another account", null));
                            return;
                        }
                        session.accountId = key.accountId();
                        session.apiKey = key.key();
                        session.readOnly = key.readOnly();
                        if (session.readOnly)
                        {
                            // A read-only key may not cancel orders: not when the connection closes either.
                            session.cancelOnDisconnect = null;
                        }
                        final ObjectNode node = Views.MAPPER.createObjectNode();
                        node.put("type", "authenticated");
                        node.put("accountId", Long.toString(key.accountId()));
                        a.answer(session, node.toString());
                    });
                }
                case "subscribe", "unsubscribe" ->
                {
                    final boolean on = op.equals("subscribe");
                    final String channel = Requests.string(message, "channel", true);
                    switch (channel)
                    {
                        case "book", "trades", "ticker" ->
                        {
                            final InstrumentView instrument = instrument(Requests.string(message, "symbol", true), "symbol");
                            submitOrBusy(session, a -> a.subscribe(session, channel, instrument, on));
                        }
                        case "orders", "fills", "balances" -> submitOrBusy(session, a ->
                        {
                            if (session.accountId == 0)
                            {
                                wsError(a, session, new ApiException(401, "NOT_AUTHENTICATED",
                                    "private channels need an auth message first", "channel"));
                            }
                            else
                            {
                                a.subscribePrivate(session,
                                    GatewayAgent.PrivateChannel.valueOf(channel.toUpperCase(Locale.ROOT)), on);
                            }
                        });
                        default -> throw ApiException.badRequest("UNKNOWN_CHANNEL",
                            "channel: expected book, trades, ticker, orders, fills or balances", "channel");
                    }
                }
                default -> throw ApiException.badRequest("UNKNOWN_OP",
                    "op: expected subscribe, unsubscribe, auth, ping, order.place, order.replace, order.cancel, " +
                    "orders.cancel, cancelOnDisconnect or cancelAllAfter", "op");
            }
        }
        catch (final ApiException error)
        {
            submitOrBusy(session, a -> wsError(a, session, error));
        }
    }

    /**
     * {@code order.place} ({@code order}: a new order as {@code POST /api/v1/orders} takes it), {@code order.cancel}
     * ({@code orderId} or {@code clientOrderId}), {@code order.replace} ({@code orderId}, {@code order}: the new terms
     * as {@code PUT /api/v1/orders/{orderId}} takes them), {@code orders.cancel} (as {@code DELETE /api/v1/orders}) and
     * {@code cancelOnDisconnect} ({@code enabled}, {@code scope}) and {@code cancelAllAfter} ({@code timeoutMs}, as
     * {@code POST /api/v1/orders/cancel-all-after} takes it) on a connection authenticated with a trading key: answered
     * with a {@code response} that repeats the message's {@code id} and carries what the REST call would have answered,
     * its {@code status} and the {@code order}, the mass cancel's {@code canceledCount}, the setting or the switch, or
     * the {@code error}. Each order message takes a token of the key's rate limit, as a REST call does, besides the
     * connection's own.
     */
    private void wsOrder(final GatewayAgent.WsSession session, final String op, final ObjectNode message)
    {
        final JsonNode id = message.get("id");
        final boolean idReadable = id == null || id.isNull() ||
            id.isTextual() && !id.asText().isEmpty() && id.asText().length() <= MAX_WS_REQUEST_ID ||
            id.isIntegralNumber() && id.canConvertToLong();
        final JsonNode echoed = idReadable ? id : null;
        // An order's answer goes in the response's "order"; a mass cancel's and a setting's fields in the response.
        final String field = op.startsWith("order.") ? "order" : null;
        final BiConsumer<Object, ApiException> respond = (response, error) ->
            agent.answer(session, wsResponse(echoed, field, response, error));
        final LongFunction<Command> command;
        try
        {
            if (!idReadable)
            {
                throw ApiException.badRequest("INVALID_PARAMETER", "id: expected a string of 1 to " +
                    MAX_WS_REQUEST_ID + " characters, or an integer", "id");
            }
            Requests.object(message, WS_ORDER_FIELDS.get(op));
            command = switch (op)
            {
                case "order.place" ->
                {
                    final NewOrderTerms terms = newOrderTerms(Requests.object(wsOrderObject(message), ORDER_FIELDS));
                    yield accountId -> newOrderCommand(accountId, terms,
                        inFlight(session, placed(session, terms.clientOrderId(), respond)));
                }
                case "order.replace" ->
                {
                    final long orderId = wsOrderId(message, true);
                    final ReplaceTerms terms = replaceTerms(Requests.object(wsOrderObject(message), REPLACE_FIELDS));
                    yield accountId -> replaceCommand(accountId, orderId, terms, inFlight(session, respond));
                }
                case "orders.cancel" ->
                {
                    final String symbol = Requests.string(message, "symbol", false);
                    final int instrumentId = symbol == null ? 0 : instrument(symbol, "symbol").id();
                    final Side side = massCancelSide(Requests.string(message, "side", false));
                    yield accountId -> massCancelCommand(accountId, instrumentId, side, inFlight(session, respond));
                }
                case "cancelOnDisconnect" ->
                {
                    if (!message.hasNonNull("enabled"))
                    {
                        throw ApiException.badRequest("MISSING_FIELD", "enabled is required (true or false)",
                            "enabled");
                    }
                    final boolean enabled = Requests.bool(message, "enabled", false);
                    final String scope = Requests.string(message, "scope", false);
                    final boolean accountWide = scope != null && scope.equals("account");
                    if (scope != null && !accountWide && !scope.equals("connection"))
                    {
                        throw ApiException.badRequest("INVALID_ENUM", "scope: expected connection or account, got \"" +
                            clip(scope) + "\"", "scope");
                    }
                    yield accountId -> cancelOnDisconnect(session, accountId, enabled, accountWide, respond);
                }
                case "cancelAllAfter" ->
                {
                    final long timeoutMs = cancelAllAfterTimeoutMs(message);
                    yield accountId -> cancelAllAfterCommand(accountId, timeoutMs, inFlight(session, respond));
                }
                default ->
                {
                    final long orderId = wsOrderId(message, false);
                    final String clientOrderIdText = Requests.string(message, "clientOrderId", false);
                    if ((orderId == 0) == (clientOrderIdText == null))
                    {
                        throw ApiException.badRequest("MISSING_FIELD", "order.cancel names its order by orderId or " +
                            "by clientOrderId (one of them)", "orderId");
                    }
                    final long clientOrderId = orderId == 0 ? clientOrderId(clientOrderIdText, false) : 0;
                    yield accountId -> cancelCommand(accountId, orderId, clientOrderId, inFlight(session, respond));
                }
            };
        }
        catch (final ApiException error)
        {
            submitOrBusy(session, a -> respond.accept(null, error));
            return;
        }
        // A setting is not an order: no token, and it may be changed while the gateway is cut off from the exchange.
        final boolean setting = op.equals("cancelOnDisconnect");
        submitOrBusy(session, a ->
        {
            final ApiException refused = wsOrderRefusal(session, a, !setting);
            if (refused != null)
            {
                respond.accept(null, refused);
                return;
            }
            // Null for a setting answered at once, with nothing sent to the exchange.
            final Command order = command.apply(session.accountId);
            if (order != null)
            {
                session.ordersInFlight++;
                a.sendOrAnswer(order);
            }
        });
    }

    /**
     * Have the connection's open orders, or all of the account's, canceled when the connection closes (or neither),
     * answering at once: run on the gateway thread, as the close is.
     *
     * @param accountWide the account's orders (one mass cancel, whoever placed them), or only those the connection
     *                    placed (a cancel each), so that a client that has reconnected keeps its new orders.
     * @return null: nothing is sent to the exchange now.
     */
    private Command cancelOnDisconnect(
        final GatewayAgent.WsSession session, final long accountId, final boolean enabled, final boolean accountWide,
        final BiConsumer<Object, ApiException> respond)
    {
        if (!enabled)
        {
            session.cancelOnDisconnect = null;
        }
        else if (accountWide)
        {
            session.cancelOnDisconnect = () -> disconnectCancels(accountId, "orders")
                .sendOne(done -> massCancelCommand(accountId, 0, Side.NULL_VAL, done));
        }
        else
        {
            session.cancelOnDisconnect = () -> cancelPlacedOrders(session);
        }
        final ObjectNode answer = Views.MAPPER.createObjectNode();
        answer.put("cancelOnDisconnect", enabled);
        if (enabled)
        {
            answer.put("scope", accountWide ? "account" : "connection");
        }
        respond.accept(answer, null);
        return null;
    }

    /**
     * Cancel the orders a closed connection placed that may still be open: all but those the gateway knows have
     * closed (one it does not know may be one it has not caught up with; a cancel of one that has closed is only
     * refused), and those whose placement's outcome is unknown, by their client order id.
     */
    private void cancelPlacedOrders(final GatewayAgent.WsSession session)
    {
        session.cancelsLatePlacements = true;
        final ReadModel model = agent.model();
        final long accountId = session.accountId;
        final UnattendedCancels cancels = disconnectCancels(accountId, "orders");
        session.placedOrders.forEachLong(orderId ->
        {
            final OrderView order = model.order(accountId, orderId);
            if (order == null || order.isOpen())
            {
                agent.sendCancelRetried(cancelCommand(accountId, orderId, 0, cancels.next()));
            }
        });
        session.unansweredPlacements.forEachLong(clientOrderId ->
            agent.sendCancelRetried(cancelCommand(accountId, 0, clientOrderId, cancels.next())));
        cancels.allSent();
        session.placedOrders.clear();
        session.placedOrders.compact();
        session.unansweredPlacements.clear();
        session.unansweredPlacements.compact();
    }

    /**
     * @param clientOrderId the placement's: how the order is named when its outcome is unknown.
     * @return the completion of a placement from the connection: the response, then the order kept among those the
     * connection placed while it may be open (or canceled at once, if the connection has closed and canceled its
     * orders meanwhile).
     */
    private BiConsumer<Object, ApiException> placed(
        final GatewayAgent.WsSession session, final long clientOrderId, final BiConsumer<Object, ApiException> respond)
    {
        return (response, error) ->
        {
            respond.accept(response, error);
            final long orderId;
            if (error != null)
            {
                // Timed out, or its answer lost: it may rest on the exchange all the same.
                if (!error.code.equals("OUTCOME_UNKNOWN"))
                {
                    return;
                }
                orderId = 0;
            }
            else
            {
                // The response is the placement's order as the gateway made it: its id and status are read back.
                final ObjectNode order = (ObjectNode)response;
                final String status = order.path("status").asText();
                if (!status.equals("ACCEPTED") && !OrderView.isOpen(status))
                {
                    return;
                }
                orderId = Long.parseLong(order.get("orderId").asText());
            }
            if (session.cancelsLatePlacements)
            {
                disconnectCancels(session.accountId, "order").sendOne(done ->
                    cancelCommand(session.accountId, orderId, orderId == 0 ? clientOrderId : 0, done));
                return;
            }
            if (orderId == 0)
            {
                session.unansweredPlacements.add(clientOrderId);
            }
            else
            {
                session.placedOrders.add(orderId);
            }
            if (session.placedOrders.size() + session.unansweredPlacements.size() >= session.placedOrdersPruneAt)
            {
                prunePlacedOrders(session);
            }
        };
    }

    /**
     * Forget the connection's orders that have closed: those the gateway knows have, and, once it is live (holding
     * every order open on the exchange), those it does not know (closed so long ago it no longer holds them).
     */
    private void prunePlacedOrders(final GatewayAgent.WsSession session)
    {
        final ReadModel model = agent.model();
        final boolean live = agent.isLive();
        session.placedOrders.removeIfLong(id ->
        {
            final OrderView order = model.order(session.accountId, id);
            return order == null ? live : !order.isOpen();
        });
        session.unansweredPlacements.removeIfLong(id ->
        {
            final OrderView order = model.orderByClientOrderId(session.accountId, id);
            return order != null && !order.isOpen();
        });
        session.placedOrders.compact();
        session.unansweredPlacements.compact();
        session.placedOrdersPruneAt = Math.max(GatewayAgent.PLACED_ORDERS_PRUNED_FROM,
            2 * (session.placedOrders.size() + session.unansweredPlacements.size()));
    }

    private UnattendedCancels disconnectCancels(final long accountId, final String what)
    {
        return new UnattendedCancels(accountId, what);
    }

    /**
     * Cancels sent with nobody there to hear their answers (for a closed WebSocket connection): each
     * failure (or unknown outcome) counted, and said once for them all; an order that had closed meanwhile
     * ({@code UNKNOWN_ORDER}) is no failure. Completions may come while the cancels are still being sent (a gateway
     * cut off from the exchange answers at once).
     */
    private final class UnattendedCancels
    {
        private final long accountId;
        private final String what;
        private int sent;
        private int answered;
        private int failed;
        private boolean allSent;
        private ApiException firstFailure;

        /**
         * @param what the orders canceled, as the message says them.
         */
        UnattendedCancels(final long accountId, final String what)
        {
            this.accountId = accountId;
            this.what = what;
        }

        BiConsumer<Object, ApiException> next()
        {
            sent++;
            return this::done;
        }

        void allSent()
        {
            allSent = true;
            sayFailures();
        }

        /**
         * Send the one cancel made with this completion, retried while the exchange pushes back.
         */
        void sendOne(final Function<BiConsumer<Object, ApiException>, Command> cancel)
        {
            agent.sendCancelRetried(cancel.apply(next()));
            allSent();
        }

        private void done(final Object response, final ApiException error)
        {
            answered++;
            if (error != null && !error.code.equals("UNKNOWN_ORDER"))
            {
                metrics.cancelOnDisconnectFailed.increment();
                failed++;
                if (firstFailure == null)
                {
                    firstFailure = error;
                }
            }
            sayFailures();
        }

        private void sayFailures()
        {
            if (allSent && answered == sent && failed > 0)
            {
                final boolean unknown = firstFailure.code.equals("OUTCOME_UNKNOWN") ||
                    firstFailure.code.equals("GATEWAY_STOPPING");
                System.err.println("bourse HTTP gateway: " + (unknown ? "may not have canceled " : "did not cancel ") +
                    (sent == 1 ? "the " : failed + " of the " + sent + " ") + what + " of account " + accountId +
                    " when a WebSocket connection closed: " + firstFailure.code + ": " + firstFailure.getMessage());
                failed = 0;
            }
        }
    }

    /**
     * @return the completion of an order sent from the connection: its response, then any pong held for it.
     */
    private BiConsumer<Object, ApiException> inFlight(
        final GatewayAgent.WsSession session, final BiConsumer<Object, ApiException> respond)
    {
        return (response, error) ->
        {
            respond.accept(response, error);
            if (--session.ordersInFlight == 0)
            {
                for (; session.pongsHeld > 0; session.pongsHeld--)
                {
                    pong(agent, session);
                }
            }
        };
    }

    private static void pong(final GatewayAgent agent, final GatewayAgent.WsSession session)
    {
        agent.answer(session, "{\"type\":\"pong\",\"time\":" + System.currentTimeMillis() + "}");
    }

    private static ObjectNode wsOrderObject(final ObjectNode message)
    {
        final JsonNode order = message.get("order");
        if (order == null || order.isNull())
        {
            throw ApiException.badRequest("MISSING_FIELD", "order is required", "order");
        }
        if (!order.isObject())
        {
            throw ApiException.badRequest("INVALID_TYPE", "order: expected a JSON object", "order");
        }
        return (ObjectNode)order;
    }

    /**
     * @return the message's {@code orderId}, or 0 when it has none and none is required.
     */
    private static long wsOrderId(final ObjectNode message, final boolean required)
    {
        final String text = Requests.string(message, "orderId", required);
        return text == null ? 0 : parseId(text, "orderId");
    }

    /**
     * Run on the gateway thread, where the connection's authentication is kept.
     *
     * @return why the connection may not trade now, or null.
     */
    private ApiException wsOrderRefusal(
        final GatewayAgent.WsSession session, final GatewayAgent agent, final boolean order)
    {
        if (session.closed || session.disconnected || session.slow)
        {
            // Nobody would hear the answer: not sent.
            return new ApiException(503, "CONNECTION_CLOSED", "the connection closed before the order was sent", null);
        }
        if (session.accountId == 0)
        {
            return new ApiException(401, "NOT_AUTHENTICATED", "orders need an auth message first", null);
        }
        if (session.readOnly)
        {
            return new ApiException(403, "READ_ONLY_KEY",
                "this connection's API key is read-only: it cannot place, replace or cancel orders", null);
        }
        if (!order)
        {
            return null;
        }
        if (!agent.isLive())
        {
            return notReady();
        }
        // The key's buckets run on the clock the authenticator gives them (epoch time), whatever takes their tokens.
        final long retryAfterS = rateLimiter.tryAcquire(session.apiKey, System.currentTimeMillis() * 1_000_000L);
        if (retryAfterS > 0)
        {
            metrics.rateLimited.increment();
            return rateLimiter.refusal(retryAfterS);
        }
        return null;
    }

    /**
     * @param id    the message's id as it came (a string or an integer), or null.
     * @param field where the answer goes ("order"), or null to put its fields in the response itself.
     */
    private static String wsResponse(final JsonNode id, final String field, final Object answer, final ApiException error)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("type", "response");
        node.set("id", id == null ? NullNode.getInstance() : id);
        if (field == null && error == null && answer instanceof ObjectNode fields)
        {
            node.put("status", 200);
            node.setAll(fields);
        }
        else
        {
            node.setAll(orderResult(answer, error));
        }
        return node.toString();
    }

    private static void wsError(final GatewayAgent agent, final GatewayAgent.WsSession session, final ApiException error)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("type", "error");
        node.put("code", error.code);
        node.put("detail", error.getMessage());
        if (error.field != null)
        {
            node.put("field", error.field);
        }
        agent.answer(session, node.toString());
    }

    /**
     * @return the JSON tree of a value; for tests.
     */
    static JsonNode tree(final byte[] json) throws IOException
    {
        return Views.MAPPER.readTree(json);
    }
}
