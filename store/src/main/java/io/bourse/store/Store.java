package io.bourse.store;

import io.bourse.cluster.CpuHeadroom;
import io.bourse.cluster.LogRetention;
import io.bourse.cluster.StateHashCheckpoints;
import io.bourse.engine.Engine;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.File;
import java.io.PrintStream;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * The post-trade store: follows a cluster member's committed log and keeps trades, orders, order events, the balance
 * ledger, balances and transfers in SQLite (the default, in the node's data directory) or PostgreSQL, exactly once.
 * It runs on threads of its own (one applying the log, one committing batches), off the matching path: it reads the log from the member's archive through the member's
 * media driver (so it runs in the node's process, as {@code run} does, or as a separate process on the member's
 * machine), and re-derives the events with its own copy of the deterministic engine.
 * <p>
 * {@link #open} opens and migrates the database and tells the node's journal purge which log the store still needs
 * ({@link LogRetention}); {@link #start} starts following. Progress is in {@link #metrics()}.
 */
public final class Store implements AutoCloseable
{
    /**
     * The deferral limit {@code run} and {@code store} use unless configured ({@code store.defer.max.ms}): a peak of a
     * few seconds is written after it; under longer saturation history stays about this far behind.
     */
    public static final long RUN_MAX_DEFERRAL_MS = 5_000;

    /**
     * Store configuration.
     */
    public static final class Context
    {
        private File nodeDataDir;
        private String aeronDirectoryName;
        private String jdbcUrl = "";
        private String user;
        private String password;
        private File sqliteFile;
        private int batchRows = 20_000;
        private long snapshotLogBytes = 64L * 1024 * 1024;
        private int clusterId;
        private int replayStreamId = 0x5707;
        private int threadNice = 19;
        private long maxDeferralMs;
        private long restartDelayMs = 1_000;
        private long maxRestartDelayMs = 30_000;
        private CpuHeadroom headroom = CpuHeadroom.MACHINE;
        private PrintStream log = System.out;

        /**
         * The member's data directory: its journal is read from here, and the store's retention floor written here.
         */
        public Context nodeDataDir(final File nodeDataDir)
        {
            this.nodeDataDir = nodeDataDir;
            return this;
        }

        public File nodeDataDir()
        {
            return nodeDataDir;
        }

        /**
         * The member's media driver directory.
         */
        public Context aeronDirectoryName(final String aeronDirectoryName)
        {
            this.aeronDirectoryName = aeronDirectoryName;
            return this;
        }

        public String aeronDirectoryName()
        {
            return aeronDirectoryName;
        }

        /**
         * A {@code jdbc:postgresql://} URL, or empty (the default) for SQLite.
         */
        public Context jdbcUrl(final String jdbcUrl)
        {
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        public String jdbcUrl()
        {
            return jdbcUrl;
        }

        public Context user(final String user)
        {
            this.user = user;
            return this;
        }

        public String user()
        {
            return user;
        }

        public Context password(final String password)
        {
            this.password = password;
            return this;
        }

        public String password()
        {
            return password;
        }

        /**
         * The SQLite file; by default {@code store/history.db} in the node's data directory.
         */
        public Context sqliteFile(final File sqliteFile)
        {
            this.sqliteFile = sqliteFile;
            return this;
        }

        public File sqliteFile()
        {
            return sqliteFile != null ? sqliteFile : new File(new File(nodeDataDir, "store"), "history.db");
        }

        /**
         * Rows per transaction at most while catching up; when caught up, each poll's rows commit at once.
         */
        public Context batchRows(final int batchRows)
        {
            if (batchRows < 1)
            {
                throw new IllegalArgumentException("store.batch.rows must be at least 1, not " + batchRows);
            }
            this.batchRows = batchRows;
            return this;
        }

        public int batchRows()
        {
            return batchRows;
        }

        /**
         * Take a store snapshot (saved with the fence) once this much log follows the last one: a restart replays at
         * most this much log without writing, and the journal is kept from the store's snapshot.
         */
        public Context snapshotLogBytes(final long snapshotLogBytes)
        {
            if (snapshotLogBytes < 1)
            {
                throw new IllegalArgumentException("store.snapshot.log.bytes must be positive, not " + snapshotLogBytes);
            }
            this.snapshotLogBytes = snapshotLogBytes;
            return this;
        }

        public long snapshotLogBytes()
        {
            return snapshotLogBytes;
        }

        public Context clusterId(final int clusterId)
        {
            this.clusterId = clusterId;
            return this;
        }

        public int clusterId()
        {
            return clusterId;
        }

        /**
         * Stream id of the archive replay to this store; distinct per reader of one media driver.
         */
        public Context replayStreamId(final int replayStreamId)
        {
            this.replayStreamId = replayStreamId;
            return this;
        }

        public int replayStreamId()
        {
            return replayStreamId;
        }

        /**
         * The Linux nice value of the store's threads (the one applying the log and its commit thread), 0 to 19:
         * at 19 (the default) the store takes only CPU the node's threads leave idle, so it falls behind under load
         * and catches up after; 0 leaves them as they are.
         */
        public Context threadNice(final int threadNice)
        {
            if (threadNice < 0 || threadNice > 19)
            {
                throw new IllegalArgumentException("store.thread.nice must be 0 to 19, not " + threadNice);
            }
            this.threadNice = threadNice;
            return this;
        }

        public int threadNice()
        {
            return threadNice;
        }

        /**
         * How long the store may stand aside while the machine is saturated. Nice 19 keeps the store's thread off
         * the CPU the node wants, but not off the memory bus, the caches and a hyper-threaded core's other half:
         * writing history next to a saturated node cost the node 1-14 % of its throughput, varying run to run. So
         * while more threads want to run than there are cores ({@link CpuHeadroom#isSaturated}), the store does not
         * follow the log at all, for at most this long after it fell behind; then it follows regardless (at its nice
         * value) until caught up. State {@link StoreState#DEFERRING} meanwhile; the lag shows how far behind it is.
         *
         * @param maxDeferralMs 0 (the default) never defers.
         */
        public Context maxDeferralMs(final long maxDeferralMs)
        {
            if (maxDeferralMs < 0)
            {
                throw new IllegalArgumentException("store.defer.max.ms must not be negative: " + maxDeferralMs);
            }
            this.maxDeferralMs = maxDeferralMs;
            return this;
        }

        public long maxDeferralMs()
        {
            return maxDeferralMs;
        }

        /**
         * How the store recovers from a failure (its database unreachable, a disk full, the node's media driver gone):
         * it closes everything, waits, opens the database again and resumes from its fence, as after a crash, so
         * exactly once holds. The wait starts at {@code restartDelayMs} and doubles with each failure in a row up to
         * {@code maxRestartDelayMs}; the state is {@link StoreState#FAILED} meanwhile, with the failure.
         *
         * @param restartDelayMs    the first wait, 1 s by default; 0 leaves a failed store stopped.
         * @param maxRestartDelayMs the longest wait, 30 s by default.
         */
        public Context restartDelayMs(final long restartDelayMs, final long maxRestartDelayMs)
        {
            if (restartDelayMs < 0 || maxRestartDelayMs < restartDelayMs)
            {
                throw new IllegalArgumentException("store restart delays must be 0 <= first <= longest, not " +
                    restartDelayMs + " and " + maxRestartDelayMs);
            }
            this.restartDelayMs = restartDelayMs;
            this.maxRestartDelayMs = maxRestartDelayMs;
            return this;
        }

        public long restartDelayMs()
        {
            return restartDelayMs;
        }

        public long maxRestartDelayMs()
        {
            return maxRestartDelayMs;
        }

        /**
         * Where the store learns whether the machine is saturated: {@link CpuHeadroom#MACHINE} unless a test says.
         */
        public Context headroom(final CpuHeadroom headroom)
        {
            this.headroom = headroom;
            return this;
        }

        public CpuHeadroom headroom()
        {
            return headroom;
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
    }

    private static final long SUPERVISOR_POLL_MS = 50;

    private final Context context;
    private volatile StoreDatabase database;
    private final Progress progress = new Progress();
    private volatile StoreAgent agent;
    private volatile AgentRunner runner;
    private Thread supervisor;
    private volatile boolean closed;

    private Store(final Context context)
    {
        this.context = context;
    }

    /**
     * Open (creating and migrating) the database, and write the store's retention floor into the node's data
     * directory: call before the node starts purging, i.e. before launching an embedded node.
     */
    public static Store open(final Context context)
    {
        if (context.nodeDataDir() == null || context.aeronDirectoryName() == null)
        {
            throw new IllegalArgumentException("the store needs the node's data directory and media driver directory");
        }
        final Store store = new Store(context);
        store.database = openDatabase(context, store.progress);
        return store;
    }

    /**
     * Open the database, read its fence into {@code progress}, and keep the journal from the store's snapshot on.
     */
    private static StoreDatabase openDatabase(final Context context, final Progress progress)
    {
        final StoreDatabase database = StoreDatabase.openWriter(
            context.jdbcUrl(), context.sqliteFile(), context.user, context.password);
        try
        {
            final StoreDatabase.Fence fence = database.fence();
            if (!context.nodeDataDir().isDirectory() && !context.nodeDataDir().mkdirs())
            {
                throw new IllegalStateException("cannot create " + context.nodeDataDir());
            }
            LogRetention.floor(context.nodeDataDir(), fence.snapshotLogPosition());
            progress.fence(fence.logPosition(), fence.timestampNs());
            return database;
        }
        catch (final SQLException | RuntimeException ex)
        {
            database.close();
            throw ex instanceof SQLException ?
                new StoreException("store database " + database.description(), ex) : (RuntimeException)ex;
        }
    }

    /**
     * Start following the log on a thread of its own.
     */
    public Store start()
    {
        if (runner != null)
        {
            throw new IllegalStateException("store already started");
        }
        startAgent();
        if (context.restartDelayMs() > 0)
        {
            supervisor = new Thread(this::restartAfterFailures, "bourse-store-restarts");
            supervisor.setDaemon(true);
            supervisor.start();
        }
        return this;
    }

    private void startAgent()
    {
        agent = new StoreAgent(context, database, progress);
        runner = new AgentRunner(
            new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(10), TimeUnit.MILLISECONDS.toNanos(1)),
            this::onError, null, agent);
        AgentRunner.startOnThread(runner);
    }

    private void onError(final Throwable error)
    {
        if (progress.state() != StoreState.FAILED)
        {
            // Else the agent has already said what failed, better than the exception that stopped its thread.
            progress.failed(error);
        }
        context.log().println("bourse store: stopped on an error: " + progress.failure);
    }

    /**
     * The supervisor's loop: once the store has failed, close it, wait, and start it again from its fence in the
     * database (see {@link Context#restartDelayMs}).
     */
    private void restartAfterFailures()
    {
        long delayMs = context.restartDelayMs();
        try
        {
            while (!closed)
            {
                final StoreState state = progress.state();
                if (state != StoreState.FAILED)
                {
                    if (state.isFollowing())
                    {
                        delayMs = context.restartDelayMs();
                    }
                    Thread.sleep(SUPERVISOR_POLL_MS);
                    continue;
                }
                CloseHelper.quietClose(runner);
                // A connection the failure broke may not even roll back: nothing of it is needed any more.
                CloseHelper.quietClose(database);
                context.log().printf("bourse store: starting again in %,d ms%n", delayMs);
                Thread.sleep(delayMs);
                delayMs = Math.min(2 * delayMs, context.maxRestartDelayMs());
                restart();
            }
        }
        catch (final InterruptedException ex)
        {
            // Closing.
        }
    }

    private void restart()
    {
        try
        {
            database = openDatabase(context, progress);
            progress.state(StoreState.STARTING);
            startAgent();
        }
        catch (final RuntimeException ex)
        {
            progress.failed(ex);
            context.log().println("bourse store: cannot start again: " + progress.failure);
        }
    }

    public StoreMetrics metrics()
    {
        return progress;
    }

    /**
     * @return the database's description: the SQLite file or the JDBC URL.
     */
    public String databaseDescription()
    {
        return database.description();
    }

    /**
     * The store engine's state hash, comparable with the node's engine state hash at the same log position. Read it
     * only while the store is idle (caught up, no new log).
     */
    public long engineStateHash()
    {
        return agent.engineStateHash();
    }

    /**
     * The store's engine, for tests: read it only while the store is idle.
     */
    Engine engine()
    {
        return agent.engine();
    }

    /**
     * @return the log position of the last message the store's engine applied (written or not).
     */
    public long appliedLogPosition()
    {
        return agent == null ? 0 : agent.appliedLogPosition();
    }

    /**
     * Wait until the store has written all the log committed so far.
     *
     * @return true when caught up, false on timeout or when the store failed.
     */
    public boolean awaitCaughtUp(final long timeoutMs) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadlineNs)
        {
            if (progress.state() == StoreState.FAILED)
            {
                return false;
            }
            if (progress.state().isFollowing() && progress.lagBytes() == 0 &&
                progress.committedLogPosition() > 0)
            {
                return true;
            }
            Thread.sleep(5);
        }
        return false;
    }

    /**
     * Stop following (a batch in progress is not committed: the next start writes it again from the fence) and close
     * the database.
     */
    public void close()
    {
        closed = true;
        if (supervisor != null)
        {
            supervisor.interrupt();
            try
            {
                supervisor.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        CloseHelper.quietClose(runner);
        database.close();
        if (progress.state != StoreState.FAILED)
        {
            progress.state(StoreState.CLOSED);
        }
    }

    /**
     * The figures the agent publishes for other threads.
     */
    static final class Progress implements StoreMetrics
    {
        private volatile long fenceLogPosition;
        private volatile long fenceTimestampNs;
        private volatile long committedLogPosition;
        /**
         * When the store last found itself behind after being caught up (epoch ns), 0 while caught up.
         */
        private volatile long behindSinceEpochNs;
        private volatile long tradesWritten;
        private volatile long rowsWritten;
        private volatile long batchesCommitted;
        private volatile StoreState state = StoreState.STARTING;
        private volatile String failure;
        private volatile long stateHashesAgreed;
        private volatile long stateHashesDiverged;

        void fence(final long logPosition, final long timestampNs)
        {
            fenceLogPosition = logPosition;
            fenceTimestampNs = timestampNs;
        }

        void committed(final long logPosition)
        {
            committedLogPosition = logPosition;
            if (logPosition <= fenceLogPosition)
            {
                behindSinceEpochNs = 0;
            }
            else if (behindSinceEpochNs == 0)
            {
                behindSinceEpochNs = epochNs();
            }
        }

        void committedBatch(final long logPosition, final long timestampNs, final long trades, final long rows)
        {
            fence(logPosition, timestampNs);
            tradesWritten = trades;
            rowsWritten = rows;
            batchesCommitted++;
        }

        void checkpoint(final int result)
        {
            if (result == StateHashCheckpoints.AGREED)
            {
                stateHashesAgreed++;
            }
            else if (result == StateHashCheckpoints.DIVERGED)
            {
                stateHashesDiverged++;
            }
        }

        public long stateHashesAgreed()
        {
            return stateHashesAgreed;
        }

        public long stateHashesDiverged()
        {
            return stateHashesDiverged;
        }

        void state(final StoreState state)
        {
            this.state = state;
        }

        void failed(final Throwable error)
        {
            failure = error.getClass().getSimpleName() + ": " + error.getMessage();
            state = StoreState.FAILED;
        }

        public long fenceLogPosition()
        {
            return fenceLogPosition;
        }

        public long committedLogPosition()
        {
            return committedLogPosition;
        }

        public long lagBytes()
        {
            return Math.max(0, committedLogPosition - fenceLogPosition);
        }

        public double lagSeconds()
        {
            if (lagBytes() == 0)
            {
                return 0;
            }
            // The oldest message not yet written is newer than the fence's, and was committed after the store last
            // found itself caught up: the later of the two is the closer bound (the fence's alone would count an idle
            // hour before a new command as lag, or the whole epoch on an empty database).
            final long since = Math.max(fenceTimestampNs, behindSinceEpochNs);
            return since == 0 ? 0 : Math.max(0, epochNs() - since) / 1e9;
        }

        private static long epochNs()
        {
            return TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
        }

        public long tradesWritten()
        {
            return tradesWritten;
        }

        public long rowsWritten()
        {
            return rowsWritten;
        }

        public long batchesCommitted()
        {
            return batchesCommitted;
        }

        public StoreState state()
        {
            return state;
        }

        public String failure()
        {
            return failure;
        }

        public String toString()
        {
            return summary();
        }
    }
}
