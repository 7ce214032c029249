package io.bourse.gateway.fix;

import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveMarkFile;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.ArchivingMediaDriver;
import io.aeron.archive.client.AeronArchive;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.bourse.cluster.DataDirectoryLock;
import io.bourse.cluster.FatalErrors;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.cluster.ProcessAeronDirectory;
import io.bourse.cluster.RecordChecksum;
import io.bourse.cluster.TornWriteRepair;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.gateway.fix.codecs.builder.LogonEncoder;
import uk.co.real_logic.artio.builder.AbstractLogonEncoder;
import uk.co.real_logic.artio.builder.AbstractLogoutEncoder;
import uk.co.real_logic.artio.session.SessionCustomisationStrategy;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.IoUtil;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.OffsetEpochNanoClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.ReadablePosition;
import org.agrona.concurrent.UnsafeBuffer;
import uk.co.real_logic.artio.ErrorHandlerFactory;
import uk.co.real_logic.artio.Reply;
import uk.co.real_logic.artio.engine.EngineConfiguration;
import uk.co.real_logic.artio.engine.FixEngine;
import uk.co.real_logic.artio.engine.LowResourceEngineScheduler;
import uk.co.real_logic.artio.library.FixLibrary;
import uk.co.real_logic.artio.library.LibraryConfiguration;
import uk.co.real_logic.artio.validation.SessionPersistenceStrategy;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static uk.co.real_logic.artio.messages.InitialAcceptedSessionOwner.SOLE_LIBRARY;

/**
 * The FIX 4.4 order-entry gateway: an Artio acceptor on {@code host:port} for the configured sessions, whose
 * orders go to the exchange cluster through an {@link ExchangeClient}, and whose ExecutionReports come from the
 * engine's events.
 * <p>
 * Everything it keeps lives under its data directory: Artio's session state (sequence numbers, persistent across
 * restarts) and message archive (for resends), its monitoring files, the record of open orders that keeps
 * ClOrdIDs across restarts, and the event positions: where its reports stopped (the replay of the cluster's events
 * after a restart begins there, or before the first report still held for a session away) and, per session, the last
 * report the session was sent (which the replay does not send again). Its own media driver (Artio records FIX messages in an Aeron archive of its own, apart
 * from the cluster's journal) uses a directory in {@code /dev/shm} that is deleted on close.
 */
public final class FixGateway implements AutoCloseable
{
    static
    {
        // Artio's generated decoders read this once, when they are first loaded: a tag the dictionary does not define
        // for a message type then fails validation (SessionRejectReason 0 or 2) instead of being silently ignored.
        System.setProperty("fix.codecs.reject_unknown_field", "true");
        ArtioRejectTexts.useFixWording();
    }

    /**
     * Gateway configuration.
     */
    public static final class Context
    {
        private File dataDir;
        private String host = "127.0.0.1";
        private int port = 9880;
        private String compId = "BOURSE";
        private final Map<String, FixSessionSpec> sessions = new LinkedHashMap<>();
        private final List<FixInstrument> instruments = new ArrayList<>();
        private ExchangeClient.Context exchangeClient;
        private int maxLogonFailures = 5;
        private long logonFailureWindowMs = TimeUnit.MINUTES.toMillis(1);
        private long lockoutMs = TimeUnit.MINUTES.toMillis(5);
        private long sendingTimeWindowMs = TimeUnit.MINUTES.toMillis(2);
        private long connectTimeoutMs = TimeUnit.SECONDS.toMillis(30);
        private PrintStream log = System.out;
        private Consumer<Throwable> onFatalError = FatalErrors.HALT;
        private SessionPersistenceStrategy sessionPersistence = SessionPersistenceStrategy.alwaysPersistent();
        private boolean transientSequenceNumbers;
        private FixApplicationMessageOverride applicationMessageOverride;
        private FixLatencyProbe latencyProbe;
        private EpochNanoClock epochNanoClock = new OffsetEpochNanoClock();
        private long agentYieldWindowNs;
        private long agentDeepIdleNs = NodeIdleStrategy.DEFAULT_DEEP_IDLE_AFTER_NS;
        private FixRateLimit rateLimit = FixRateLimit.NONE;
        private long archivePruneIntervalMs = DEFAULT_ARCHIVE_PRUNE_INTERVAL_MS;
        private LocalTime endOfDayUtc;
        private int messageLogTermBytes;

        /**
         * Where Artio's session state, archive and monitoring files and the open-order record live.
         */
        public Context dataDir(final File dataDir)
        {
            this.dataDir = dataDir;
            return this;
        }

        /**
         * Address to listen on: loopback by default.
         */
        public Context host(final String host)
        {
            this.host = host;
            return this;
        }

        /**
         * TCP port to listen on; 0 is not allowed (clients need to know it).
         */
        public Context port(final int port)
        {
            this.port = port;
            return this;
        }

        public int port()
        {
            return port;
        }

        /**
         * The gateway's own CompID: the TargetCompID (56) clients send, the SenderCompID (49) of its answers.
         */
        public Context compId(final String compId)
        {
            this.compId = compId;
            return this;
        }

        public Context session(final FixSessionSpec session)
        {
            if (sessions.put(session.senderCompId(), session) != null)
            {
                throw new IllegalArgumentException("FIX session " + session.senderCompId() + " configured twice");
            }
            return this;
        }

        /**
         * @return the sessions configured, by SenderCompID.
         */
        public Map<String, FixSessionSpec> sessions()
        {
            return Collections.unmodifiableMap(sessions);
        }

        public Context instrument(final FixInstrument instrument)
        {
            instruments.add(instrument);
            return this;
        }

        /**
         * How to reach the cluster; the gateway sets the listener.
         */
        public Context exchangeClient(final ExchangeClient.Context exchangeClient)
        {
            this.exchangeClient = exchangeClient;
            return this;
        }

        /**
         * Lock-out: this many refused Logons of one SenderCompID within {@code failureWindowMs} lock it out for
         * {@code lockoutMs}.
         */
        public Context logonLockout(final int maxFailures, final long failureWindowMs, final long lockoutMs)
        {
            this.maxLogonFailures = maxFailures;
            this.logonFailureWindowMs = failureWindowMs;
            this.lockoutMs = lockoutMs;
            return this;
        }

        /**
         * How far a message's SendingTime may be from the gateway's clock.
         */
        public Context sendingTimeWindowMs(final long sendingTimeWindowMs)
        {
            this.sendingTimeWindowMs = sendingTimeWindowMs;
            return this;
        }

        public Context log(final PrintStream log)
        {
            this.log = log;
            return this;
        }

        /**
         * What the gateway does when one of its threads (its duty cycle, Artio's, its media driver's or archive's)
         * dies of an {@link Error}: its sessions could no longer be served, and a gateway that stays up without them
         * only leaves clients hanging. The default halts the JVM with {@link FatalErrors#EXIT_CODE}, so that a
         * supervisor restarts it; restarted, it takes its sessions, orders and reports up where they were.
         */
        public Context onFatalError(final Consumer<Throwable> onFatalError)
        {
            this.onFatalError = onFatalError;
            return this;
        }

        /**
         * Stage timestamps of every new order (benchmarks); none by default.
         */
        public Context latencyProbe(final FixLatencyProbe latencyProbe)
        {
            this.latencyProbe = latencyProbe;
            return this;
        }

        /**
         * How long the gateway's agents (Artio's framer and the gateway thread) keep yielding after work while the
         * machine has CPU to spare (see {@link NodeIdleStrategy}); 0, the default here, parks after a few yields;
         * {@link #DEFAULT_YIELD_WINDOW_NS} is what the launchers use.
         */
        public Context agentYieldWindowNs(final long agentYieldWindowNs)
        {
            this.agentYieldWindowNs = agentYieldWindowNs;
            return this;
        }

        public long agentYieldWindowNs()
        {
            return agentYieldWindowNs;
        }

        /**
         * How long no client may be active in the JVM ({@link io.bourse.cluster.ClientActivity}) before the gateway's
         * agents park for up to 1 ms instead of 0.1 ms (see {@link NodeIdleStrategy}); 0 for never. Default a second.
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
         * A limit on each session's application messages: {@code perSecond} on average, {@code burst} at once after
         * a quiet while (0 a second, the default, for none). Over it, NewOrderSingle is refused with an
         * ExecutionReport Rejected (OrdRejReason 99) and OrderCancelReplaceRequest with an OrderCancelReject, both
         * saying so in Text; cancels, mass cancels and status requests count towards it but are never refused. A
         * session with a limit of its own ({@link FixSessionSpec#rateLimit()}) is under that one instead.
         */
        public Context messageRateLimit(final double perSecond, final double burst)
        {
            this.rateLimit = FixRateLimit.of(new FixSessionSpec.RateLimit(perSecond, burst));
            return this;
        }

        public double messageRatePerSecond()
        {
            return rateLimit.perSecond();
        }

        public double messageRateBurst()
        {
            return rateLimit.burst();
        }

        /**
         * How often the gateway deletes the messages it keeps for resends that no session can ask for any more: those
         * before each session's current sequence (a session starts a new one when a Logon resets its sequence numbers,
         * ResetSeqNumFlag=Y). Artio keeps every message of a session's current sequence, and deletes in segments of
         * the archive, so nothing goes until every session that sent or was sent messages has started a new
         * sequence since. 0 for never; default an hour.
         */
        public Context archivePruneIntervalMs(final long archivePruneIntervalMs)
        {
            if (archivePruneIntervalMs < 0)
            {
                throw new IllegalArgumentException("archive prune interval must not be negative: " +
                    archivePruneIntervalMs);
            }
            this.archivePruneIntervalMs = archivePruneIntervalMs;
            return this;
        }

        public long archivePruneIntervalMs()
        {
            return archivePruneIntervalMs;
        }

        /**
         * The end of the FIX day, in UTC: every session is logged out (Text "End of day: sequence numbers reset to
         * 1"; its orders other than Day orders stay, whatever its cancel-on-disconnect), Logons are refused for the
         * few seconds it takes, each session's sequence numbers are reset to 1, and the messages kept for resends are
         * deleted. Clients log on again with MsgSeqNum 1 (a FIX engine on the same schedule, or one that sends
         * ResetSeqNumFlag=Y, does so). Day orders (TimeInForce 0) expire a second before it, so that their reports go
         * out in the day they belong to. Null, the default, for none: sequences then go on until a client resets its
         * own, and Day orders are refused.
         */
        public Context endOfDayUtc(final LocalTime endOfDayUtc)
        {
            this.endOfDayUtc = endOfDayUtc;
            return this;
        }

        public LocalTime endOfDayUtc()
        {
            return endOfDayUtc;
        }

        /**
         * Test-only: the term length of the gateway's IPC streams and the segment length of its message archive
         * (a power of two, at least 64 KiB), so that a test fills segments with a few hundred orders. 0 for Aeron's
         * defaults (64 MiB terms, 128 MiB segments).
         */
        Context messageLogTermBytes(final int messageLogTermBytes)
        {
            this.messageLogTermBytes = messageLogTermBytes;
            return this;
        }

        /**
         * The clock of Artio's message timestamps and of the latency probe.
         */
        public Context epochNanoClock(final EpochNanoClock epochNanoClock)
        {
            this.epochNanoClock = epochNanoClock;
            return this;
        }

        /**
         * Test-only: sequence numbers reset at every Logon, as the acceptance definitions' reference acceptor does.
         */
        Context transientSequenceNumbers()
        {
            this.sessionPersistence = SessionPersistenceStrategy.alwaysTransient();
            this.transientSequenceNumbers = true;
            return this;
        }

        /**
         * Test-only: valid NewOrderSingles, SecurityDefinitions and Emails go to this instead of the exchange or a
         * BusinessMessageReject, and no cluster client is started.
         */
        Context applicationMessageOverride(final FixApplicationMessageOverride applicationMessageOverride)
        {
            this.applicationMessageOverride = applicationMessageOverride;
            return this;
        }

        void conclude()
        {
            Objects.requireNonNull(dataDir, "dataDir");
            if (applicationMessageOverride == null)
            {
                Objects.requireNonNull(exchangeClient, "exchangeClient");
            }
            if (port <= 0 || port > 65535)
            {
                throw new IllegalArgumentException("fix.port must be 1..65535: " + port);
            }
            if (sessions.isEmpty())
            {
                throw new IllegalArgumentException("no FIX sessions configured (fix.session.<SenderCompID>.*)");
            }
            if (maxLogonFailures < 1)
            {
                throw new IllegalArgumentException("maxLogonFailures must be at least 1");
            }
        }
    }

    private final Context context;
    private final DataDirectoryLock lock;
    private final ArchivingMediaDriver driver;
    private final FixEngine engine;
    private final FixLibrary library;
    private final ExchangeClient client;
    private final FixOrderStore store;
    private final FixEventPosition eventPosition;
    private final FixEventPosition handledPosition;
    private final FixGatewayAgent agent;
    private final Map<String, FixSessionState> sessionStates;
    /**
     * The yield window `bourse run` and `bourse gateway-fix` give the gateway's agents unless configured otherwise
     * ({@code fix.yield.us}): a millisecond, ten times the node's. Why: the framer polls the sessions' sockets, so while
     * it parks every order waits out the rest of its park (up to 100 µs) before anything reads it, and then the
     * gateway thread's wake-up; the node's agents after them are woken by the first agent that finds the order
     * ({@link io.bourse.cluster.NodeIdleStrategy}), but nothing can wake the one that reads the socket. Kept awake for
     * a millisecond after each message, the two take orders up to 1,000 a second off the socket at once, and the
     * window closes as soon as anything else on the machine wants the CPU.
     */
    public static final long DEFAULT_YIELD_WINDOW_NS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Held while the gateway runs, in its data directory: two gateways on one directory would corrupt Artio's files.
     */
    private static final String LOCK_FILE_NAME = "gateway.lock";
    private static final String LOG_PREFIX = "bourse: FIX gateway";
    private static final String ARCHIVE_DIR = "archive";
    /**
     * How often the archive is pruned by default: an hour.
     */
    public static final long DEFAULT_ARCHIVE_PRUNE_INTERVAL_MS = TimeUnit.HOURS.toMillis(1);
    private static final String ARTIO_DIR = "artio";
    /**
     * Artio's own liveness file in its log directory (its {@code DuplicateEngineChecker}'s, package-private there).
     */
    private static final String ARTIO_ENGINE_INFO_FILE = "engine-info";
    /**
     * What a restart of the gateway does after a fatal error, for the operator reading the log.
     */
    private static final String RESTART = "it takes its sessions and reports up where they were";

    private final AgentRunner runner;
    private final FixAuthenticator authenticator;
    /**
     * Prunes the message archive every {@link Context#archivePruneIntervalMs} and runs the end of day
     * ({@link Context#endOfDayUtc}); null when neither is wanted.
     */
    private final Thread housekeeping;
    private final AtomicCounter droppedMessages;
    private final AtomicCounter rateLimited;

    private FixGateway(final Context context)
    {
        context.conclude();
        this.context = context;
        final File dataDir = context.dataDir;
        IoUtil.ensureDirectoryExists(dataDir, "FIX gateway data directory");
        final DataDirectoryLock directoryLock = DataDirectoryLock.tryAcquire(dataDir, LOCK_FILE_NAME);
        if (directoryLock == null)
        {
            throw new IllegalStateException("FIX gateway data directory " + dataDir.getAbsolutePath() +
                " is in use by another running gateway");
        }
        final String aeronDir = aeronDirectory(dataDir);
        final Map<String, FixSessionState> sessionsByCompId = new HashMap<>();
        final Map<String, List<RecentlyClosedOrders.Closed>> closedBefore = new HashMap<>();

        ArchivingMediaDriver launchedDriver = null;
        FixEngine launchedEngine = null;
        FixLibrary connectedLibrary = null;
        FixAuthenticator logonChecks = null;
        ExchangeClient exchangeClient = null;
        try
        {
            removeStaleMarkFiles(dataDir, context.log);
            // Artio's messages are recorded with a checksum in each fragment, so that a write torn by a kill -9 is
            // found and cut at the next start, as the node's journal is.
            final File archiveDir = new File(dataDir, ARCHIVE_DIR);
            launchedDriver = TornWriteRepair.launch(archiveDir, context.log, LOG_PREFIX,
                () -> launchDriverAndArchive(context, archiveDir, aeronDir));
            final Archive.Context archiveContext = launchedDriver.archive().context();

            for (final FixSessionSpec spec : context.sessions.values())
            {
                final FixSessionState session = new FixSessionState(spec, context.rateLimit,
                    new FixEventPosition(new File(dataDir, FixSessionState.deliveredFileName(spec.senderCompId()))),
                    new FixEventPosition(new File(dataDir, FixSessionState.handledFileName(spec.senderCompId()))),
                    new FixEventPosition(new File(dataDir, FixSessionState.outboundFileName(spec.senderCompId()))));
                session.keepCancelOnDisconnectOwedIn(new FixEventPosition(
                    new File(dataDir, FixSessionState.cancelOnDisconnectFileName(spec.senderCompId()))));
                sessionsByCompId.put(spec.senderCompId(), session);
                final long nowMs = System.currentTimeMillis();
                session.usedClOrdIds.keepIn(new File(dataDir, FixSessionState.clOrdIdsFileName(spec.senderCompId())),
                    tradingDayStartMs(nowMs), nowMs);
                closedBefore.put(spec.senderCompId(), session.closedOrdersKept.keepIn(
                    new File(dataDir, FixSessionState.closedOrdersFileName(spec.senderCompId())),
                    tradingDayStartMs(nowMs), nowMs));
            }

            logonChecks = new FixAuthenticator(context.compId, context.sessions, context.maxLogonFailures,
                context.logonFailureWindowMs, context.lockoutMs, System::currentTimeMillis);
            final EngineConfiguration engineConfiguration = new EngineConfiguration()
                .bindTo(context.host, context.port)
                .libraryAeronChannel("aeron:ipc")
                .logFileDir(new File(dataDir, ARTIO_DIR).getPath())
                .sessionPersistenceStrategy(context.sessionPersistence)
                .acceptorfixDictionary(GatewayFixDictionary.class)
                .initialAcceptedSessionOwner(SOLE_LIBRARY)
                .authenticationStrategy(logonChecks)
                .scheduler(new LowResourceEngineScheduler())
                .framerIdleStrategy(new NodeIdleStrategy(context.agentYieldWindowNs, context.agentDeepIdleNs))
                .archiverIdleStrategy(new BackoffIdleStrategy(20, 10, 1_000, 1_000_000));
            engineConfiguration.errorHandlerFactory(artioErrors(context, "Artio engine"));
            engineConfiguration.threadFactory(componentThreads(context));
            engineConfiguration.monitoringFile(new File(dataDir, "artio-engine-monitoring").getPath());
            engineConfiguration.epochNanoClock(context.epochNanoClock);
            engineConfiguration.sendingTimeWindowInMs(context.sendingTimeWindowMs);
            // A gateway restarted after a crash may have lost the last messages a session sent it, and asks for them
            // again at logon; the counterparty, not yet told, goes on sending new ones meanwhile. Artio flags those,
            // beyond the range it asked for, invalid (so the gateway does not act on them) and by default counts them
            // as received: lost, and the session stuck awaiting a resend that has ended. With redundant resend
            // requests it asks for them too, and acts on them when they come again (FixGatewayCrashTest).
            engineConfiguration.acceptedSessionSendRedundantResendRequests(true);
            // The framer reports each message it writes, so that a disconnect Artio asks for waits for its Logout.
            final DeferredDisconnects deferredDisconnects = new DeferredDisconnects(
                Math.max(1, context.sessions.size()), System::nanoTime);
            engineConfiguration.messageTimingHandler(deferredDisconnects);
            final OutboundSequenceNumbers outboundSequenceNumbers = new OutboundSequenceNumbers();
            engineConfiguration.aeronContext().aeronDirectoryName(aeronDir);
            engineConfiguration.aeronArchiveContext()
                .aeronDirectoryName(aeronDir)
                .controlRequestChannel(archiveContext.localControlChannel())
                .controlRequestStreamId(archiveContext.localControlStreamId())
                .controlResponseChannel("aeron:ipc");
            launchedEngine = FixEngine.launch(engineConfiguration);

            store = new FixOrderStore(new File(dataDir, FixOrderStore.FILE_NAME), context.log);
            final List<FixOrderStore.Entry> restored = store.open();
            eventPosition = new FixEventPosition(new File(dataDir, "event-position.dat"));
            handledPosition = new FixEventPosition(new File(dataDir, "event-handled.dat"));
            if (context.applicationMessageOverride == null)
            {
                // What happened to the restored orders while the gateway was away comes as the events themselves
                // (nothing to resume from, 0, on a first start).
                context.exchangeClient.resumeAfter(eventPosition.batchSequence(), eventPosition.logPosition());
            }
            droppedMessages = new AtomicCounter(new UnsafeBuffer(new byte[CountersManager.COUNTER_LENGTH]), 0);
            rateLimited = new AtomicCounter(new UnsafeBuffer(new byte[CountersManager.COUNTER_LENGTH]), 0);
            final ResendRequestNumbers resendRequestNumbers = new ResendRequestNumbers();
            final OutboundArchivePosition archivePosition = new OutboundArchivePosition(
                launchedDriver.mediaDriver().context().countersManager(), archiveContext.archiveId());
            agent = new FixGatewayAgent(
                store, eventPosition, handledPosition, sessionsByCompId, context.instruments, droppedMessages, rateLimited,
                context.applicationMessageOverride, context.latencyProbe, context.epochNanoClock,
                context.log, resendRequestNumbers, deferredDisconnects, outboundSequenceNumbers,
                !context.transientSequenceNumbers, archivePosition, context.endOfDayUtc);

            final LibraryConfiguration libraryConfiguration = new LibraryConfiguration()
                .libraryAeronChannels(List.of("aeron:ipc"))
                .sessionAcquireHandler(agent)
                .libraryIdleStrategy(new BackoffIdleStrategy(20, 10, 1_000, 100_000));
            // The library's error printer thread only copies errors to the log: every 100 ms is soon enough, where
            // its default back-off had it wake about a thousand times a second for nothing.
            libraryConfiguration.monitoringThreadIdleStrategy(new SleepingMillisIdleStrategy(100));
            libraryConfiguration.sessionCustomisationStrategy(new OmitResetSeqNumFlagN());
            libraryConfiguration.sessionProxyFactory((sessionBufferSize, gatewayPublication, sessionIdStrategy,
                customisationStrategy, clock, connectionId, libraryId, errorHandler, epochFractionPrecision) ->
            {
                archivePosition.publication(gatewayPublication);
                return new GatewaySessionProxy(resendRequestNumbers, deferredDisconnects, outboundSequenceNumbers,
                    sessionBufferSize, gatewayPublication, sessionIdStrategy, customisationStrategy, clock,
                    connectionId, libraryId, errorHandler, epochFractionPrecision);
            });
            libraryConfiguration.epochNanoClock(context.epochNanoClock);
            libraryConfiguration.errorHandlerFactory(artioErrors(context, "Artio library"));
            libraryConfiguration.monitoringFile(new File(dataDir, "artio-library-monitoring").getPath());
            libraryConfiguration.aeronContext().aeronDirectoryName(aeronDir);
            connectedLibrary = FixLibrary.connect(libraryConfiguration);
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(context.connectTimeoutMs);
            while (!connectedLibrary.isConnected())
            {
                if (System.nanoTime() > deadlineNs)
                {
                    throw new IllegalStateException("Artio library did not connect to its engine within " +
                        context.connectTimeoutMs + " ms");
                }
                if (connectedLibrary.poll(16) == 0)
                {
                    Thread.sleep(1);
                }
            }
            exchangeClient = context.applicationMessageOverride != null ? null :
                new ExchangeClient(context.exchangeClient.listener(agent));
            agent.start(connectedLibrary, exchangeClient);
            agent.restore(restored, store.replacing(), closedBefore);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            CloseHelper.quietCloseAll(exchangeClient, connectedLibrary, launchedEngine, launchedDriver, directoryLock);
            closeSessionFiles(sessionsByCompId);
            throw new IllegalStateException("interrupted while starting the FIX gateway", ex);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(exchangeClient, connectedLibrary, launchedEngine, launchedDriver, directoryLock);
            closeSessionFiles(sessionsByCompId);
            throw ex;
        }
        this.lock = directoryLock;
        this.driver = launchedDriver;
        this.engine = launchedEngine;
        this.library = connectedLibrary;
        this.client = exchangeClient;
        this.sessionStates = sessionsByCompId;
        this.runner = new AgentRunner(
            new NodeIdleStrategy(context.agentYieldWindowNs, context.agentDeepIdleNs),
            threadErrors(context, "gateway", agentErrors(context)), null, agent);
        AgentRunner.startOnThread(runner, componentThreads(context));
        this.authenticator = logonChecks;
        if (context.archivePruneIntervalMs > 0 || context.endOfDayUtc != null)
        {
            housekeeping = new Thread(this::keepHouse, "bourse-fix-housekeeping");
            housekeeping.setDaemon(true);
            housekeeping.start();
        }
        else
        {
            housekeeping = null;
        }
        context.log.println("bourse: FIX gateway listening on " + context.host + ":" + context.port + " as " +
            context.compId + ", " + context.sessions.size() + " session(s), " + agent.openOrderCount() +
            " open order(s) restored");
    }

    /**
     * The gateway's own media driver, with the archive of Artio's messages. Fresh contexts each time: a launch that
     * failed has concluded them (and closed its driver).
     */
    private static ArchivingMediaDriver launchDriverAndArchive(
        final Context context, final File archiveDir, final String aeronDir)
    {
        final Archive.Context archiveContext = new Archive.Context()
            .aeronDirectoryName(aeronDir)
            .archiveDir(archiveDir)
            .controlChannelEnabled(false)
            .replicationChannel("aeron:udp?endpoint=localhost:0")
            .archiveClientContext(new AeronArchive.Context()
                .aeronDirectoryName(aeronDir)
                .controlResponseChannel("aeron:ipc"))
            .recordingEventsEnabled(false)
            .recordChecksum(new RecordChecksum())
            .archiveId(Math.abs((long)archiveDir.getParentFile().getAbsolutePath().hashCode()) + 1)
            .threadingMode(ArchiveThreadingMode.SHARED)
            .threadFactory(componentThreads(context))
            .idleStrategySupplier(() -> new BackoffIdleStrategy(20, 10, 1_000, 1_000_000))
            .errorHandler(threadErrors(context, "archive", Throwable::printStackTrace))
            .deleteArchiveOnStart(false);
        final MediaDriver.Context driverContext = new MediaDriver.Context();
        if (context.messageLogTermBytes > 0)
        {
            archiveContext.segmentFileLength(context.messageLogTermBytes);
            driverContext.ipcTermBufferLength(context.messageLogTermBytes);
        }
        return ArchivingMediaDriver.launch(driverContext
            .aeronDirectoryName(aeronDir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedThreadFactory(componentThreads(context))
            .sharedIdleStrategy(new NodeIdleStrategy(0, context.agentDeepIdleNs))
            .termBufferSparseFile(true)
            .errorHandler(threadErrors(context, "media driver", Throwable::printStackTrace))
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true), archiveContext);
    }

    private static ErrorHandler threadErrors(
        final Context context, final String component, final ErrorHandler otherErrors)
    {
        return FatalErrors.handler(context.log, "bourse FIX gateway", component, RESTART, context.onFatalError,
            otherErrors);
    }

    /**
     * Errors the gateway's thread survives, but for a failed write of the gateway's own records (its open orders,
     * where its reports stopped), which its restarts rely on: after one (a full disk) it could acknowledge what it no
     * longer keeps, so it stops as for a fatal error.
     */
    static ErrorHandler agentErrors(final Context context)
    {
        return error ->
        {
            if (error instanceof IOException || error instanceof UncheckedIOException)
            {
                FatalErrors.stop(context.log, LOG_PREFIX + " cannot write its records: " + error +
                    "; it stops (restarted, " + RESTART + ")", context.onFatalError, error);
            }
            else
            {
                error.printStackTrace(context.log);
            }
        };
    }

    /**
     * Threads for the gateway's components: one that dies, however, is the gateway's fatal error.
     */
    private static ThreadFactory componentThreads(final Context context)
    {
        return FatalErrors.threadFactory(context.log, "bourse FIX gateway", RESTART, context.onFatalError);
    }

    /**
     * Artio's own errors still go to its distinct-error log in the monitoring file (printed by its monitoring thread).
     */
    private static ErrorHandlerFactory artioErrors(final Context context, final String component)
    {
        final ErrorHandlerFactory distinctErrors = ErrorHandlerFactory.saveDistinctErrors();
        return errorBuffer -> threadErrors(context, component, distinctErrors.make(errorBuffer));
    }

    /**
     * Start the gateway: its media driver and archive, Artio's engine and library, the cluster client and the
     * duty-cycle thread.
     */
    public static FixGateway launch(final Context context)
    {
        return new FixGateway(context);
    }

    public Context context()
    {
        return context;
    }

    /**
     * @return FIX sessions logged on now (for monitoring; readable from any thread).
     */
    public int loggedOnSessions()
    {
        return agent.loggedOnSessions();
    }

    /**
     * @return bytes of the files that hold the messages kept for resends: the archive's segment files, each of its full
     * length from its first message on (they are allocated a segment at a time, sparsely). What the prune and the end
     * of day bring down; any thread.
     */
    public long archiveBytes()
    {
        final File[] segments = new File(context.dataDir, ARCHIVE_DIR).listFiles((dir, name) -> name.endsWith(".rec"));
        long bytes = 0;
        for (final File segment : segments == null ? new File[0] : segments)
        {
            bytes += segment.length();
        }
        return bytes;
    }

    /**
     * @return bytes of the open-order record ({@link FixOrderStore}); any thread.
     */
    public long openOrderRecordBytes()
    {
        return new File(context.dataDir, FixOrderStore.FILE_NAME).length();
    }

    /**
     * @return orders acknowledged by the exchange that the gateway holds open, over all sessions (for monitoring;
     * readable from any thread).
     */
    public int openOrders()
    {
        return agent.openOrderCount();
    }

    /**
     * @return FIX sessions configured (that may log on).
     */
    public int configuredSessions()
    {
        return agent.configuredSessions();
    }

    /**
     * @return messages to sessions that were never handed to Artio: the oldest held for a session away while more than
     * {@value FixGatewayAgent#MAX_HELD_MESSAGES_PER_SESSION} were held for it.
     */
    public long droppedMessages()
    {
        return droppedMessages.get();
    }

    /**
     * @return NewOrderSingles and OrderCancelReplaceRequests refused by the sessions' rate limit
     * ({@link Context#messageRateLimit}); any thread.
     */
    public long rateLimitedMessages()
    {
        return rateLimited.get();
    }

    /**
     * Start every known session again at sequence number 1: the end of day's reset, and the acceptance definitions'
     * (their reference acceptor does so for every connection). Call only once no session is connected: it waits for
     * the gateway to have seen the last one go, since a client's socket can be closed before the gateway has handled
     * the disconnect, and Artio does not reset a session it still holds; then for Artio's index to have read every
     * message the sessions sent ({@link #awaitSentIndexed}).
     *
     * @throws IllegalStateException when a session is still logged on after 10 s, Artio's index is not there 10 s
     *                               later, or a reset does not complete.
     */
    void resetSequenceNumbers()
    {
        try
        {
            final long disconnectDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (agent.loggedOnSessions() > 0)
            {
                if (System.nanoTime() > disconnectDeadlineNs)
                {
                    throw new IllegalStateException(agent.loggedOnSessions() + " session(s) still logged on after " +
                        "10 s");
                }
                Thread.sleep(1);
            }
            final long position = agent.positionAtLastDisconnect();
            if (position > 0)
            {
                awaitSentIndexed(position);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return;
        }
        for (final uk.co.real_logic.artio.engine.SessionInfo session : engine.allSessions())
        {
            resetSequenceNumber(session.sessionId());
        }
    }

    /**
     * Artio's reset of a session just released can be lost (it never completes), so it is asked again, a few times;
     * so is one Artio did not take (no reply: its queue of such requests was full).
     */
    private void resetSequenceNumber(final long sessionId)
    {
        Reply<?> reply = null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            try
            {
                reply = awaitReply(() -> engine.resetSequenceNumber(sessionId),
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
            if (reply != null && reply.hasCompleted())
            {
                return;
            }
            // Rare: worth seeing in the log when it happens.
            context.log.println("bourse: FIX gateway: sequence number reset of session " + sessionId + ", attempt " +
                (attempt + 1) + ": " + replyState(reply) + "; asking again");
        }
        throw new IllegalStateException("sequence number reset of session " + sessionId + " did not complete in 5 " +
            "attempts of 2 s: " + replyState(reply));
    }

    /**
     * Ask Artio with {@code request} until it takes the request (it answers null while its queue of such requests is
     * full), then wait until it has answered or {@code deadlineNs} has passed.
     *
     * @return Artio's reply, still executing when the deadline passed first; null when Artio never took the request.
     */
    private static <T> Reply<T> awaitReply(final Supplier<Reply<T>> request, final long deadlineNs)
        throws InterruptedException
    {
        Reply<T> reply = request.get();
        while ((reply == null || reply.isExecuting()) && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(1);
            if (reply == null)
            {
                reply = request.get();
            }
        }
        return reply;
    }

    private static String replyState(final Reply<?> reply)
    {
        return reply == null ? "not taken by Artio" : reply.isExecuting() ? "no answer within the time allowed" :
            reply.state() + (reply.error() == null ? "" : ", " + reply.error());
    }

    /**
     * Delete the archived messages that no session can ask to be resent any more: those before each session's current
     * sequence, in whole segments of the archive. Waits up to 10 s for Artio's answer.
     *
     * @return the positions each recording was pruned up to, by recording id; empty when nothing could go.
     * @throws IllegalStateException when Artio fails the prune or does not answer in time.
     */
    Long2LongHashMap pruneArchive() throws InterruptedException
    {
        final Reply<Long2LongHashMap> reply = awaitReply(() -> engine.pruneArchive(null),
            System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        if (reply == null || !reply.hasCompleted())
        {
            throw new IllegalStateException("Artio could not prune the message archive: " + replyState(reply));
        }
        return reply.resultIfPresent();
    }

    /**
     * Wait up to 10 s until Artio's index of sent sequence numbers has read the library's stream up to
     * {@code position}. Why: Artio's reset of a session completes once its own reset is indexed, without waiting for
     * the library's messages before it, and the index reads the library's stream and the engine's one apart; a
     * session's last Logout indexed after the reset would give it back its old sequence number (its next logon would
     * be answered with the numbers of before the reset).
     *
     * @throws IllegalStateException when Artio does not answer, or its index does not get there, in time.
     */
    private void awaitSentIndexed(final long position) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        final Reply<ReadablePosition> reply = awaitReply(() -> engine.libraryIndexedPosition(library.libraryId()),
            deadlineNs);
        if (reply == null || !reply.hasCompleted())
        {
            throw new IllegalStateException("Artio could not say how far its index has read: " + replyState(reply));
        }
        final ReadablePosition indexed = reply.resultIfPresent();
        while (indexed.getVolatile() < position)
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("Artio's index is at " + indexed.getVolatile() + " of the " +
                    "library's stream after 10 s, short of " + position + ", where the stream was when the last " +
                    "session disconnected");
            }
            Thread.sleep(1);
        }
    }

    /**
     * The housekeeping thread: the archive's prune every interval, and the end of day once a day.
     */
    private void keepHouse()
    {
        long nextPruneMs = nextPruneMs(System.currentTimeMillis());
        long nextEndOfDayMs = nextEndOfDayMs(System.currentTimeMillis());
        try
        {
            while (true)
            {
                final long nowMs = System.currentTimeMillis();
                final long nextMs = Math.min(nextPruneMs, nextEndOfDayMs);
                if (nextMs > nowMs)
                {
                    // In steps, so that a change of the wall clock is noticed within a minute.
                    Thread.sleep(Math.min(nextMs - nowMs, TimeUnit.MINUTES.toMillis(1)));
                    continue;
                }
                if (nowMs >= nextEndOfDayMs)
                {
                    endOfDay();
                    nextEndOfDayMs = nextEndOfDayMs(System.currentTimeMillis() + 1_000);
                }
                else
                {
                    prune();
                }
                nextPruneMs = nextPruneMs(System.currentTimeMillis());
            }
        }
        catch (final InterruptedException ex)
        {
            // Closing.
        }
    }

    private long nextPruneMs(final long nowMs)
    {
        return context.archivePruneIntervalMs == 0 ? Long.MAX_VALUE : nowMs + context.archivePruneIntervalMs;
    }

    private long nextEndOfDayMs(final long nowMs)
    {
        if (context.endOfDayUtc == null)
        {
            return Long.MAX_VALUE;
        }
        final ZonedDateTime now = Instant.ofEpochMilli(nowMs).atZone(ZoneOffset.UTC);
        ZonedDateTime next = now.with(context.endOfDayUtc);
        if (!next.isAfter(now))
        {
            next = next.plusDays(1);
        }
        return next.toInstant().toEpochMilli();
    }

    /**
     * @return when the current trading day began: the last end of day at or before {@code nowMs}; without one, the
     * start of the UTC day (a restart on a later day starts without the ClOrdIDs of earlier ones).
     */
    private long tradingDayStartMs(final long nowMs)
    {
        final long dayMs = TimeUnit.DAYS.toMillis(1);
        return context.endOfDayUtc == null ? Math.floorDiv(nowMs, dayMs) * dayMs : nextEndOfDayMs(nowMs) - dayMs;
    }

    private void prune() throws InterruptedException
    {
        try
        {
            final Long2LongHashMap pruned = pruneArchive();
            if (!pruned.isEmpty())
            {
                context.log.println("bourse: FIX gateway: deleted the archived messages no session can ask for any " +
                    "more (recording id=position pruned up to): " + pruned);
            }
        }
        catch (final IllegalStateException ex)
        {
            context.log.println("bourse: FIX gateway: " + ex.getMessage() + "; trying again later");
        }
    }

    /**
     * The end of day ({@link Context#endOfDayUtc}): refuse Logons, log every session out (its orders stay), reset
     * every session's sequence numbers to 1, accept Logons again, prune the archive. Logons are refused for at most
     * about 30 s while the sessions log out, and 10 s more while Artio's index catches up; a session not logged out by
     * then keeps its sequence numbers until the next end of day.
     */
    void endOfDay() throws InterruptedException
    {
        String outcome;
        boolean loggedOut = true;
        authenticator.endOfDay(true);
        try
        {
            final int loggedOn = agent.loggedOnSessions();
            agent.requestEndOfDayLogout();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (loggedOut && agent.loggedOnSessions() > 0)
            {
                loggedOut = System.nanoTime() <= deadlineNs;
                Thread.sleep(1);
            }
            if (loggedOut)
            {
                resetSequenceNumbers();
                outcome = loggedOn + " session(s) logged out, every session's sequence numbers reset to 1";
            }
            else
            {
                outcome = agent.loggedOnSessions() + " session(s) still logged on after 30 s; sequence numbers not " +
                    "reset today";
            }
        }
        catch (final IllegalStateException ex)
        {
            outcome = ex.getMessage();
        }
        finally
        {
            authenticator.endOfDay(false);
        }
        // Once Logons are taken again: what the line says is over.
        context.log.println("bourse: FIX gateway: end of day: " + outcome);
        if (loggedOut)
        {
            prune();
        }
    }

    public void close()
    {
        if (housekeeping != null)
        {
            housekeeping.interrupt();
            try
            {
                housekeeping.join(TimeUnit.SECONDS.toMillis(45));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        CloseHelper.closeAll(runner, client, library, engine, store, eventPosition, handledPosition, driver);
        closeSessionFiles(sessionStates);
        lock.close();
    }

    /**
     * Delete the liveness files a gateway killed with {@code kill -9} left behind: the archive's mark files and Artio's
     * {@code engine-info}. Aeron and Artio take such a file, updated by its process within the last seconds, for a
     * gateway still running and refuse to start, so without this a gateway restarted at once after a crash (by a
     * supervisor, or {@code bourse run}) failed. The directory's lock, taken first, is what tells that no other
     * gateway runs on it.
     */
    private static void removeStaleMarkFiles(final File dataDir, final PrintStream log)
    {
        final File archiveDir = new File(dataDir, ARCHIVE_DIR);
        final File[] stale = {
            new File(archiveDir, ArchiveMarkFile.FILENAME),
            new File(archiveDir, ArchiveMarkFile.LINK_FILENAME),
            new File(new File(dataDir, ARTIO_DIR), ARTIO_ENGINE_INFO_FILE) };
        for (final File file : stale)
        {
            if (file.exists())
            {
                log.println("bourse: FIX gateway: removing the previous run's mark file (the data directory lock is " +
                    "ours): " + file);
                if (!file.delete())
                {
                    throw new IllegalStateException("cannot delete stale mark file " + file);
                }
            }
        }
    }

    private static void closeSessionFiles(final Map<String, FixSessionState> sessions)
    {
        for (final FixSessionState session : sessions.values())
        {
            session.delivered.close();
            session.handled.close();
            session.usedClOrdIds.close();
            session.closedOrdersKept.close();
            session.outbound.close();
            session.closeCancelOnDisconnectOwedRecord();
        }
    }

    /**
     * Artio writes ResetSeqNumFlag=N on every Logon it sends; FIX only needs the flag when it is Y, and peers'
     * conformance suites expect it absent otherwise.
     */
    private static final class OmitResetSeqNumFlagN implements SessionCustomisationStrategy
    {
        public void configureLogon(final AbstractLogonEncoder logon, final long sessionId)
        {
            if (logon instanceof LogonEncoder encoder && encoder.hasResetSeqNumFlag() && !encoder.resetSeqNumFlag())
            {
                encoder.resetResetSeqNumFlag();
            }
        }

        public void configureLogout(final AbstractLogoutEncoder logout, final long sessionId)
        {
        }
    }

    private static String aeronDirectory(final File dataDir)
    {
        return ProcessAeronDirectory.forThisProcess("bourse-fix",
            Integer.toHexString(dataDir.getAbsolutePath().hashCode()));
    }
}
