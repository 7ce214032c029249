package io.bourse.cluster;

import io.aeron.Aeron;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.ArchiveMarkFile;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ClusterControl;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.NanosecondClusterClock;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusterCounters;
import io.aeron.cluster.service.ClusterMarkFile;
import io.aeron.cluster.service.ClusterTerminationException;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.bourse.cluster.client.ExchangeClient;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One member of the exchange cluster in one JVM: media driver, archive (the journal), consensus module and the
 * {@link ExchangeService}, plus the {@link JournalMaintenance} agent that takes snapshots on policy and purges old
 * journal. A single member is the embedded default; three members with the same code form a Raft cluster.
 * <p>
 * The data directory is locked while the node runs. Mark files found there at start belong to a process that
 * no longer holds the lock, i.e. one that crashed, and are removed so that the node restarts at once.
 */
public final class ClusterNode implements AutoCloseable
{
    /**
     * Ports of member {@code m} are {@code portBase + m × PORTS_PER_MEMBER + offset}.
     */
    public static final int PORTS_PER_MEMBER = 10;

    /**
     * The archive's control channel for clients sharing the node's media driver (such as the post-trade store).
     */
    public static final String ARCHIVE_LOCAL_CONTROL_CHANNEL = "aeron:ipc?term-length=256k";
    static final int INGRESS_PORT_OFFSET = 0;
    static final int CONSENSUS_PORT_OFFSET = 1;
    static final int LOG_PORT_OFFSET = 2;
    static final int CATCHUP_PORT_OFFSET = 3;
    static final int ARCHIVE_CONTROL_PORT_OFFSET = 4;

    /**
     * Node configuration, with the defaults {@code run} uses.
     */
    public static final class Context
    {
        private File dataDir = new File("data");
        private int memberId;
        private List<String> memberHosts = List.of("localhost");
        private int portBase = 9000;
        private String aeronDirectoryName;
        private long snapshotLogBytes = 512L * 1024 * 1024;
        private long snapshotIntervalNs = TimeUnit.MINUTES.toNanos(30);
        private int retainedSnapshots = 2;
        private int historyCapacityBytes = 8 * 1024 * 1024;
        private int logTermLength = 16 * 1024 * 1024;
        private int segmentFileLength = 64 * 1024 * 1024;
        private boolean journalSync;
        private PrintStream log = System.out;
        private Consumer<Throwable> onFatalError = FatalErrors.HALT;
        private long agentYieldWindowNs;
        private long agentDeepIdleNs = NodeIdleStrategy.DEFAULT_DEEP_IDLE_AFTER_NS;

        public Context dataDir(final File dataDir)
        {
            this.dataDir = dataDir;
            return this;
        }

        public File dataDir()
        {
            return dataDir;
        }

        public Context memberId(final int memberId)
        {
            this.memberId = memberId;
            return this;
        }

        public int memberId()
        {
            return memberId;
        }

        /**
         * Hosts of all members, indexed by member id.
         */
        public Context memberHosts(final List<String> memberHosts)
        {
            this.memberHosts = List.copyOf(memberHosts);
            return this;
        }

        public List<String> memberHosts()
        {
            return memberHosts;
        }

        public Context portBase(final int portBase)
        {
            this.portBase = portBase;
            return this;
        }

        public int portBase()
        {
            return portBase;
        }

        /**
         * The media driver's directory; by default one in /dev/shm named after the data directory and member.
         */
        public Context aeronDirectoryName(final String aeronDirectoryName)
        {
            this.aeronDirectoryName = aeronDirectoryName;
            return this;
        }

        public String aeronDirectoryName()
        {
            if (aeronDirectoryName == null)
            {
                final String base = new File("/dev/shm").isDirectory() ? "/dev/shm" : System.getProperty("java.io.tmpdir");
                aeronDirectoryName = base + "/bourse-" + Integer.toHexString(dataDir.getAbsolutePath().hashCode()) +
                    "-" + memberId;
            }
            return aeronDirectoryName;
        }

        /**
         * Take a snapshot once this many bytes of log follow the last one.
         */
        public Context snapshotLogBytes(final long snapshotLogBytes)
        {
            this.snapshotLogBytes = snapshotLogBytes;
            return this;
        }

        public long snapshotLogBytes()
        {
            return snapshotLogBytes;
        }

        /**
         * Take a snapshot when this long has passed since the last one and there is new log.
         */
        public Context snapshotIntervalNs(final long snapshotIntervalNs)
        {
            this.snapshotIntervalNs = snapshotIntervalNs;
            return this;
        }

        public long snapshotIntervalNs()
        {
            return snapshotIntervalNs;
        }

        /**
         * Snapshots to keep; the journal before the oldest kept one is purged.
         */
        public Context retainedSnapshots(final int retainedSnapshots)
        {
            this.retainedSnapshots = retainedSnapshots;
            return this;
        }

        public int retainedSnapshots()
        {
            return retainedSnapshots;
        }

        public Context historyCapacityBytes(final int historyCapacityBytes)
        {
            this.historyCapacityBytes = historyCapacityBytes;
            return this;
        }

        public int historyCapacityBytes()
        {
            return historyCapacityBytes;
        }

        public Context logTermLength(final int logTermLength)
        {
            this.logTermLength = logTermLength;
            return this;
        }

        public int logTermLength()
        {
            return logTermLength;
        }

        /**
         * Size of the journal's segment files: the unit in which old journal is purged.
         */
        public Context segmentFileLength(final int segmentFileLength)
        {
            this.segmentFileLength = segmentFileLength;
            return this;
        }

        public int segmentFileLength()
        {
            return segmentFileLength;
        }

        /**
         * Whether the journal is synced to disk before it counts as written. The consensus module commits log (and a
         * client hears a command's answer) only once the node's archive has recorded it, so with this on an
         * acknowledged command is on disk, and survives a power loss or a kernel crash of the machine; off (the
         * default, Aeron's), recorded means written to the operating system's page cache, which survives a crash of
         * the node's process but not of the machine. In a cluster a majority of members has recorded a command before
         * it is committed either way, so only losing a majority's machines at once loses it. On, every archive write
         * waits for {@code fdatasync} (the journal's catalog, the cluster's recording log and node state file are
         * synced too), which adds a disk flush to every answer's latency (bench/README.md has the figures).
         */
        public Context journalSync(final boolean journalSync)
        {
            this.journalSync = journalSync;
            return this;
        }

        public boolean journalSync()
        {
            return journalSync;
        }

        /**
         * How long each of the node's agents keeps yielding after its last work before it parks (see
         * {@link NodeIdleStrategy}), taken only while nothing else on the machine wants the CPU: 0, the default here,
         * never yields beyond a few calls; {@link NodeIdleStrategy#DEFAULT_YIELD_WINDOW_NS}, what the launchers use,
         * keeps the agents awake between commands arriving every 100 µs, for the lowest round trip at a moderate rate.
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
         * How long no client may be active in the JVM ({@link io.bourse.cluster.ClientActivity}) before the node's
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

        public Context log(final PrintStream log)
        {
            this.log = log;
            return this;
        }

        public PrintStream log()
        {
            return log;
        }

        /**
         * What the node does when one of its components' threads dies of an {@link Error} (out of memory, a stack
         * overflow), Aeron closes a component's client on one of its timeouts (after a long pause), or the consensus
         * module or service terminates while the node is not closing: the node can no longer make progress, and
         * waiting would only leave clients hanging. The default halts the JVM with {@link FatalErrors#EXIT_CODE} at
         * once, as a crash would, so that a supervisor restarts the node and recovery rebuilds its state from the
         * journal.
         */
        public Context onFatalError(final Consumer<Throwable> onFatalError)
        {
            this.onFatalError = onFatalError;
            return this;
        }

        public Consumer<Throwable> onFatalError()
        {
            return onFatalError;
        }

        /**
         * @return the members in Aeron Cluster's format.
         */
        public String clusterMembers()
        {
            final StringBuilder members = new StringBuilder();
            for (int i = 0; i < memberHosts.size(); i++)
            {
                final String host = memberHosts.get(i);
                final int base = portBase + i * PORTS_PER_MEMBER;
                if (i > 0)
                {
                    members.append('|');
                }
                members.append(i)
                    .append(',').append(host).append(':').append(base + INGRESS_PORT_OFFSET)
                    .append(',').append(host).append(':').append(base + CONSENSUS_PORT_OFFSET)
                    .append(',').append(host).append(':').append(base + LOG_PORT_OFFSET)
                    .append(',').append(host).append(':').append(base + CATCHUP_PORT_OFFSET)
                    .append(',').append(host).append(':').append(base + ARCHIVE_CONTROL_PORT_OFFSET);
            }
            return members.toString();
        }

        /**
         * @return the members' ingress endpoints in the form a cluster client takes.
         */
        public String ingressEndpoints()
        {
            final StringBuilder endpoints = new StringBuilder();
            for (int i = 0; i < memberHosts.size(); i++)
            {
                if (i > 0)
                {
                    endpoints.append(',');
                }
                endpoints.append(i).append('=').append(memberHosts.get(i)).append(':')
                    .append(portBase + i * PORTS_PER_MEMBER + INGRESS_PORT_OFFSET);
            }
            return endpoints.toString();
        }

        File archiveDir()
        {
            return new File(dataDir, "archive");
        }

        File clusterDir()
        {
            return new File(dataDir, "cluster");
        }
    }

    private final Context context;
    private final DataDirectoryLock lock;
    private final MediaDriver mediaDriver;
    private final Archive archive;
    private final ConsensusModule consensusModule;
    private final ClusteredServiceContainer serviceContainer;
    private final ExchangeService service;
    private final Aeron aeron;
    private final AgentRunner maintenanceRunner;
    private final JournalMaintenance maintenance;
    private final CountDownLatch terminated = new CountDownLatch(2);
    private volatile Cluster.Role role = Cluster.Role.FOLLOWER;
    private volatile long stateHashesAgreed;
    private volatile long stateHashesDiverged;
    // Read by the components' termination hooks, on their threads.
    private volatile boolean started;
    private volatile boolean closed;
    private final AtomicBoolean terminatedOnItsOwn = new AtomicBoolean();
    /**
     * The next IPC egress stream to give a client of this JVM: above the streams Aeron's components use on the node's
     * media driver (archive 10-30, cluster 100-110) and below the store's replay (0x5707).
     */
    private final AtomicInteger nextIpcEgressStreamId = new AtomicInteger(1_000);

    private ClusterNode(final Context context)
    {
        this.context = context;
        final File dataDir = context.dataDir();
        if (!dataDir.isDirectory() && !dataDir.mkdirs())
        {
            throw new IllegalStateException("cannot create data directory " + dataDir.getAbsolutePath());
        }
        lock = DataDirectoryLock.tryAcquire(dataDir);
        if (lock == null)
        {
            throw new IllegalStateException("data directory " + dataDir.getAbsolutePath() +
                " is in use by another running node");
        }
        removeStaleMarkFiles(context);

        final String aeronDir = context.aeronDirectoryName();
        final Supplier<IdleStrategy> idle =
            () -> new NodeIdleStrategy(context.agentYieldWindowNs(), context.agentDeepIdleNs());
        final ThreadFactory threads = componentThreads(context);
        // Every Aeron client of the node reports to the node's log: Aeron's default handler exits the JVM when the
        // media driver has not answered for its timeout, which would bypass the node's own fatal-error action.
        final AeronArchive.Context archiveClient = new AeronArchive.Context()
            .aeronDirectoryName(aeronDir)
            .errorHandler(componentErrors(context, "archive client"))
            .controlRequestChannel(ARCHIVE_LOCAL_CONTROL_CHANNEL)
            .controlResponseChannel(ARCHIVE_LOCAL_CONTROL_CHANNEL);

        // Fields are set only once every component has started; until then a failure closes what did start, so a
        // node that cannot start leaves no threads behind (a process whose main throws then exits).
        MediaDriver startedDriver = null;
        Archive startedArchive = null;
        ConsensusModule startedConsensusModule = null;
        ClusteredServiceContainer startedContainer = null;
        Aeron startedAeron = null;
        AgentRunner startedMaintenance = null;
        try
        {
            // A crash may have torn the journal's last write: repaired before the archive's own check on start,
            // which misses some, and again if the archive refuses to start because of one.
            final DriverAndArchive started = TornWriteRepair.launch(context.archiveDir(), context.log(),
                "bourse node " + context.memberId(), () -> launchDriverAndArchive(context, idle, threads));
            startedDriver = started.driver();
            startedArchive = started.archive();

            final SnapshotPreflight.Checked checkedSnapshot;
            final long logEndAtStart;
            try (AeronArchive preflightArchive = AeronArchive.connect(archiveClient.clone()))
            {
                checkedSnapshot = new SnapshotPreflight(context, preflightArchive).run();
                logEndAtStart = LogPreflight.run(
                    context, preflightArchive, checkedSnapshot == null ? 0 : checkedSnapshot.logPosition());
            }

            final String host = context.memberHosts().get(context.memberId());
            startedConsensusModule = ConsensusModule.launch(new ConsensusModule.Context()
                .aeronDirectoryName(aeronDir)
                .clusterMemberId(context.memberId())
                .clusterMembers(context.clusterMembers())
                .clusterDir(context.clusterDir())
                .clusterClock(new NanosecondClusterClock())
                .fileSyncLevel(fileSyncLevel(context))
                .ingressChannel("aeron:udp?term-length=4m")
                .isIpcIngressAllowed(true)
                .logChannel((context.memberHosts().size() == 1 ? "aeron:ipc?term-length=" : "aeron:udp?term-length=") +
                    context.logTermLength())
                .replicationChannel("aeron:udp?endpoint=" + host + ":0")
                .archiveContext(archiveClient.clone())
                .idleStrategySupplier(idle)
                .errorHandler(componentErrors(context, "consensus module"))
                .threadFactory(threads)
                .terminationHook(() -> onTerminated("consensus module")));

            service = new ExchangeService(context.historyCapacityBytes(), new NodeServiceListener());
            service.useCheckedSnapshot(checkedSnapshot);
            service.logEndAtStart(logEndAtStart);
            startedContainer = ClusteredServiceContainer.launch(new ClusteredServiceContainer.Context()
                .aeronDirectoryName(aeronDir)
                .clusterDir(context.clusterDir())
                .clusteredService(service)
                .archiveContext(archiveClient.clone())
                .idleStrategySupplier(idle)
                .errorHandler(componentErrors(context, "service"))
                .threadFactory(threads)
                .terminationHook(() -> onTerminated("service")));

            startedAeron = Aeron.connect(new Aeron.Context()
                .aeronDirectoryName(aeronDir)
                .errorHandler(componentErrors(context, "journal maintenance")));
            maintenance = new JournalMaintenance(context, startedAeron, archiveClient.clone(), this);
            startedMaintenance = new AgentRunner(
                new SleepingMillisIdleStrategy(50), componentErrors(context, "journal maintenance"), null, maintenance);
            AgentRunner.startOnThread(startedMaintenance, threads);
        }
        catch (final RuntimeException | Error ex)
        {
            CloseHelper.quietCloseAll(startedMaintenance, startedAeron, startedContainer, startedConsensusModule,
                startedArchive, startedDriver, lock);
            context.log().println("bourse node " + context.memberId() + ": cannot start: " + ex.getMessage());
            throw ex;
        }
        mediaDriver = startedDriver;
        archive = startedArchive;
        consensusModule = startedConsensusModule;
        serviceContainer = startedContainer;
        aeron = startedAeron;
        maintenanceRunner = startedMaintenance;
        started = true;
        context.log().printf("bourse node %d: data %s, members %s%n",
            context.memberId(), dataDir.getAbsolutePath(), context.clusterMembers());
    }

    /**
     * The termination hook of the consensus module and of the service. While the node closes, the end it waits for.
     * Otherwise the component ended on its own: Aeron closed its client after a pause longer than its timeouts (a
     * frozen VM, a stop-the-world pause, a starved container), the local archive went away, or another tool shut the
     * cluster down. The node cannot go on without it, and a process left up without it would look healthy to a
     * supervisor, so that is the node's fatal-error action (by default a halt with {@link FatalErrors#EXIT_CODE}).
     */
    private void onTerminated(final String component)
    {
        terminated.countDown();
        if (started && !closed && terminatedOnItsOwn.compareAndSet(false, true))
        {
            FatalErrors.stop(context.log(), "bourse node " + context.memberId() + ": " + component +
                " terminated while the node was not closing; the node stops (restarted, it recovers from its journal)",
                context.onFatalError(),
                new IllegalStateException(component + " terminated while the node was not closing"));
        }
    }

    /**
     * Start a node.
     */
    public static ClusterNode launch(final Context context)
    {
        return new ClusterNode(context);
    }

    public Context context()
    {
        return context;
    }

    /**
     * A client context for a client in this JVM, sharing this node's media driver: on a single-member cluster its
     * ingress and egress go over shared memory (IPC) rather than loopback UDP, which saves two system calls a
     * message each way, its egress on a stream of its own (so that a client that stops reading, a gateway's stalled
     * thread, holds up no other: see {@link ExchangeClient.Context#egressStreamId}); on a cluster it reaches the
     * members' ingress endpoints as any other client.
     */
    public ExchangeClient.Context clientContext()
    {
        final ExchangeClient.Context clientContext = new ExchangeClient.Context()
            .aeronDirectoryName(context.aeronDirectoryName());
        return context.memberHosts().size() == 1 ?
            clientContext.ingressChannel("aeron:ipc").egressChannel("aeron:ipc")
                .egressStreamId(nextIpcEgressStreamId.getAndIncrement()) :
            clientContext.ingressEndpoints(context.ingressEndpoints());
    }

    public ExchangeService service()
    {
        return service;
    }

    /**
     * @return Aeron's file sync levels as the node's archive, for its recordings and its catalog, and its consensus
     * module, for the recording log, were launched with: what {@link Context#journalSync} became.
     */
    int[] fileSyncLevels()
    {
        return new int[] {archive.context().fileSyncLevel(), archive.context().catalogFileSyncLevel(),
            consensusModule.context().fileSyncLevel()};
    }

    /**
     * @return this member's current role, as last reported to the service.
     */
    public Cluster.Role role()
    {
        return role;
    }

    /**
     * Ask the consensus module to take a snapshot (acted upon when this node is the leader).
     *
     * @return true when the request was placed, false when another control action is still in progress.
     */
    public boolean requestSnapshot()
    {
        return toggle(ClusterControl.ToggleState.SNAPSHOT);
    }

    /**
     * @return the number of snapshots this node has taken since it started.
     */
    public long snapshotCount()
    {
        final int counterId = ClusterCounters.find(
            aeron.countersReader(), ConsensusModule.Configuration.SNAPSHOT_COUNTER_TYPE_ID, 0);
        return counterId == -1 ? 0 : aeron.countersReader().getCounterValue(counterId);
    }

    /**
     * @return state hash checkpoints of another member (or of this one before a restart) whose hashes this member's
     * agreed with at their snapshot's log position, since it started ({@link StateHashCheckpoints}).
     */
    public long stateHashesAgreed()
    {
        return stateHashesAgreed;
    }

    /**
     * @return those whose hashes this member's did not agree with: its state went another way than that member's.
     */
    public long stateHashesDiverged()
    {
        return stateHashesDiverged;
    }

    /**
     * Shut down cleanly: a single-member cluster first takes a snapshot (so the next start reads it and no log),
     * then every component is closed and the data directory unlocked. Waits for each component to finish.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (context.memberHosts().size() == 1 && role == Cluster.Role.LEADER &&
            toggle(ClusterControl.ToggleState.SHUTDOWN))
        {
            try
            {
                if (!terminated.await(30, TimeUnit.SECONDS))
                {
                    context.log().println("bourse node: shutdown snapshot did not finish within 30 s; closing anyway");
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        closeComponents();
    }

    /**
     * Stop at once, without the shutdown snapshot: to the journal this looks like a crash, so the next start
     * replays the log from the last snapshot. For tests and tools.
     */
    public void abort()
    {
        if (!closed)
        {
            closed = true;
            closeComponents();
        }
    }

    private void closeComponents()
    {
        CloseHelper.closeAll(maintenanceRunner, aeron, serviceContainer, consensusModule, archive, mediaDriver, lock);
    }

    private boolean toggle(final ClusterControl.ToggleState state)
    {
        final AtomicCounter toggle = ClusterControl.findControlToggle(aeron.countersReader(), 0);
        return toggle != null && state.toggle(toggle);
    }

    /**
     * Errors of an Aeron component, printed to the node's log as well as kept in the component's mark file (where
     * {@code ClusterTool errors} reads them): a recovery that stops on an error says so where the operator looks.
     * An {@link Error} ends the component's thread (Agrona's agent runner rethrows it), and an Aeron client timeout
     * closes the component's client, so the node cannot go on: either is handed to {@link Context#onFatalError()}.
     */
    static ErrorHandler componentErrors(final Context context, final String component)
    {
        return FatalErrors.handler(context.log(), "bourse node " + context.memberId(), component,
            "it recovers from its journal", context.onFatalError(), error ->
            {
                // Aeron reports its own orderly shutdown as an error too.
                if (!(error instanceof ClusterTerminationException termination && termination.isExpected()))
                {
                    context.log().printf("bourse node %d: %s error: %s%n", context.memberId(), component, error);
                }
            });
    }

    /**
     * Threads for the node's components: one that dies, however, is the node's fatal error.
     */
    static ThreadFactory componentThreads(final Context context)
    {
        return FatalErrors.threadFactory(context.log(), "bourse node " + context.memberId(),
            "it recovers from its journal", context.onFatalError());
    }

    private record DriverAndArchive(MediaDriver driver, Archive archive)
    {
    }

    /**
     * The node's media driver and archive; when the archive does not start, the driver is closed again.
     */
    private static DriverAndArchive launchDriverAndArchive(
        final Context context, final Supplier<IdleStrategy> idle, final ThreadFactory threads)
    {
        final MediaDriver driver = launchDriver(context, idle, threads);
        try
        {
            return new DriverAndArchive(driver, Archive.launch(archiveContext(context, idle).threadFactory(threads)));
        }
        catch (final RuntimeException ex)
        {
            driver.close();
            throw ex;
        }
    }

    private static MediaDriver launchDriver(
        final Context context, final Supplier<IdleStrategy> idle, final ThreadFactory threads)
    {
        return MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(context.aeronDirectoryName())
            .threadingMode(ThreadingMode.SHARED)
            .sharedThreadFactory(threads)
            .sharedIdleStrategy(idle.get())
            .termBufferSparseFile(true)
            .publicationTermBufferLength(4 * 1024 * 1024)
            .ipcTermBufferLength(8 * 1024 * 1024)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .errorHandler(componentErrors(context, "media driver")));
    }

    /**
     * The archive records with a checksum in every data fragment, by which a write torn by a crash is told from a
     * whole one at the next start ({@link TornWriteRepair}).
     */
    private static Archive.Context archiveContext(final Context context, final Supplier<IdleStrategy> idle)
    {
        final String aeronDir = context.aeronDirectoryName();
        final String host = context.memberHosts().get(context.memberId());
        final int base = context.portBase() + context.memberId() * PORTS_PER_MEMBER;
        return new Archive.Context()
            .aeronDirectoryName(aeronDir)
            .archiveDir(context.archiveDir())
            .archiveId(context.memberId())
            .controlChannel("aeron:udp?endpoint=" + host + ":" + (base + ARCHIVE_CONTROL_PORT_OFFSET))
            .localControlChannel(ARCHIVE_LOCAL_CONTROL_CHANNEL)
            .replicationChannel("aeron:udp?endpoint=" + host + ":0")
            .recordingEventsEnabled(false)
            .segmentFileLength(context.segmentFileLength())
            .fileSyncLevel(fileSyncLevel(context))
            .catalogFileSyncLevel(fileSyncLevel(context))
            .recordChecksum(new RecordChecksum())
            .threadingMode(ArchiveThreadingMode.SHARED)
            .idleStrategySupplier(idle)
            .errorHandler(componentErrors(context, "archive"))
            .archiveClientContext(new AeronArchive.Context()
                .aeronDirectoryName(aeronDir)
                .controlResponseChannel("aeron:udp?endpoint=" + host + ":0"));
    }

    /**
     * Aeron's level 1: data synced ({@code fdatasync}) after each write, which also syncs a growing file's length;
     * level 2 adds other metadata such as modification times, which recovery does not need.
     */
    private static int fileSyncLevel(final Context context)
    {
        return context.journalSync() ? 1 : 0;
    }

    private static void removeStaleMarkFiles(final Context context)
    {
        final List<File> stale = new ArrayList<>();
        final File[] clusterFiles = context.clusterDir().listFiles((dir, name) ->
            name.equals(ClusterMarkFile.FILENAME) || name.equals(ClusterMarkFile.LINK_FILENAME) ||
            name.startsWith(ClusterMarkFile.SERVICE_FILENAME_PREFIX));
        if (clusterFiles != null)
        {
            stale.addAll(List.of(clusterFiles));
        }
        stale.add(new File(context.archiveDir(), ArchiveMarkFile.FILENAME));
        stale.add(new File(context.archiveDir(), ArchiveMarkFile.LINK_FILENAME));
        for (final File file : stale)
        {
            if (file.exists())
            {
                context.log().println(
                    "bourse node: removing the previous run's mark file (the data directory lock is ours): " + file);
                if (!file.delete())
                {
                    throw new IllegalStateException("cannot remove stale mark file " + file);
                }
            }
        }
    }

    private final class NodeServiceListener implements ServiceListener
    {
        public void onSnapshotLoaded(
            final long lengthBytes, final long snapshotTimeNs, final long durationNs, final int openOrders)
        {
            final double seconds = durationNs / 1e9;
            // The engine's time is that of the last command it applied: none yet in a snapshot of an empty log.
            final String age = snapshotTimeNs == 0 ? "no commands" :
                String.format("age %,d ms", (System.currentTimeMillis() * 1_000_000L - snapshotTimeNs) / 1_000_000L);
            context.log().printf(
                "bourse node %d: loaded snapshot: %,d bytes, %,d open orders, %s, in %.3f s (%.1f MB/s)%n",
                context.memberId(), lengthBytes, openOrders, age, seconds, lengthBytes / 1e6 / Math.max(seconds, 1e-9));
        }

        public void onLogReplayed(final long commands, final long bytes, final long durationNs)
        {
            final double seconds = durationNs / 1e9;
            context.log().printf(
                "bourse node %d: replayed log tail: %,d commands, %,d bytes, in %.3f s (%,.0f commands/s, %.1f MB/s)%n",
                context.memberId(), commands, bytes, seconds, commands / Math.max(seconds, 1e-9),
                bytes / 1e6 / Math.max(seconds, 1e-9));
        }

        public void onRoleChange(final Cluster.Role newRole)
        {
            role = newRole;
            context.log().printf("bourse node %d: role %s%n", context.memberId(), newRole);
        }

        public void onSnapshotRequested()
        {
            requestSnapshot();
        }

        public void onSnapshotTaken(final long lengthBytes, final long durationNs, final int openOrders)
        {
            context.log().printf("bourse node %d: took snapshot: %,d bytes, %,d open orders, in %.3f s%n",
                context.memberId(), lengthBytes, openOrders, durationNs / 1e9);
        }

        public void onStateHashCheckpoint(final int result, final StateHashCheckpoints checkpoint)
        {
            if (result == StateHashCheckpoints.AGREED)
            {
                stateHashesAgreed++;
                context.log().printf("bourse node %d: state at log position %,d agrees with member %d's (hash %016x)%n",
                    context.memberId(), checkpoint.logPosition(), checkpoint.memberId(), checkpoint.stateHash());
            }
            else if (result == StateHashCheckpoints.DIVERGED)
            {
                stateHashesDiverged++;
                context.log().printf("bourse node %d: STATE DIVERGED at log position %,d: this member's state hash " +
                    "%016x (engine %016x), member %d's %016x (engine %016x); this member's state went another way " +
                    "from there on: restore its data directory from a member that agrees%n", context.memberId(),
                    checkpoint.logPosition(), checkpoint.ownStateHash(), checkpoint.ownEngineStateHash(),
                    checkpoint.memberId(), checkpoint.stateHash(), checkpoint.engineStateHash());
            }
        }
    }
}
