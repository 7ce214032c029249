package io.bourse.store;

import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exactly once under crashes: while a client trades against the node, the store runs in a child process that is
 * killed with {@code kill -9} at random moments (while restoring, catching up or committing) and started again. In
 * the end the database must hold exactly the trades the node reported (count, checksum, no duplicate, no gap), and
 * the ledger must sum to the engine's balances.
 */
class StoreCrashTest
{
    private File baseDir;
    private TestNode node;
    private PostgresServer postgres;

    @BeforeEach
    void startNode() throws Exception
    {
        baseDir = TestNode.tempDir();
        node = new TestNode(baseDir, context -> context);
    }

    @AfterEach
    void stop() throws Exception
    {
        node.close();
        IoUtil.delete(baseDir, true);
        if (postgres != null)
        {
            postgres.close();
        }
    }

    @Test
    void sqliteSurvivesThreeKills() throws Exception
    {
        crashAndCheck(3, "-");
    }

    @Test
    @Tag("slow")
    void sqliteSurvivesTenKills() throws Exception
    {
        crashAndCheck(10, "-");
    }

    @Test
    @Tag("slow")
    void postgresSurvivesTenKills() throws Exception
    {
        postgres = PostgresServer.start();
        crashAndCheck(10, postgres.jdbcUrl());
    }

    private void crashAndCheck(final int kills, final String jdbcUrl) throws Exception
    {
        final long seed = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        final AtomicBoolean loading = new AtomicBoolean(true);
        final AtomicReference<Throwable> loadFailure = new AtomicReference<>();
        final Store.Context context = node.storeContext().batchRows(1_000).snapshotLogBytes(64 * 1024)
            .jdbcUrl("-".equals(jdbcUrl) ? "" : jdbcUrl);
        try (Workload workload = new Workload(node, seed))
        {
            workload.setUp();
            final Thread load = new Thread(() ->
            {
                try
                {
                    while (loading.get())
                    {
                        workload.trade(50);
                        TestNode.sleepMs(2);
                    }
                }
                catch (final Throwable ex)
                {
                    loadFailure.set(ex);
                }
            }, "load");
            load.start();
            long lastFence = 0;
            int fenceMoves = 0;
            for (int kill = 0; kill < kills; kill++)
            {
                final Process child = startChild(context, jdbcUrl);
                try
                {
                    awaitStarted(child);
                    if (kill % 2 == 0)
                    {
                        // Every other store is killed only after it has committed, so that stores which never
                        // write cannot pass; a random delay alone sometimes killed every store before its first.
                        awaitFenceMoved(context, lastFence, child, seed);
                    }
                    // Random moments: some while it restores, most while it follows and commits.
                    Thread.sleep(random.nextInt(2_500));
                }
                finally
                {
                    child.destroyForcibly();
                    assertTrue(child.waitFor(30, TimeUnit.SECONDS), "killed store process exits");
                }
                final long fence = fence(context);
                System.out.printf("[crash] seed %d kill %d: fence %,d%n", seed, kill + 1, fence);
                if (fence != lastFence)
                {
                    fenceMoves++;
                    lastFence = fence;
                }
            }
            loading.set(false);
            load.join(TimeUnit.SECONDS.toMillis(60));
            assertNull(loadFailure.get(), "load thread failed");
            workload.awaitAllAnswered();
            assertTrue(fenceMoves >= (kills + 1) / 2,
                "seed " + seed + ": the killed stores wrote between kills in " + fenceMoves + " of " + kills + " rounds");
            final long nodeHash = node.awaitIdleEngineStateHash();

            try (Store store = Store.open(context).start())
            {
                StoreChecks.assertCaughtUpWith(store, nodeHash, 300_000, seed);
                try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
                {
                    StoreChecks.assertTrades(database, workload.trades(), workload.tradeChecksum());
                    StoreChecks.assertLedger(database, store.engine(), Workload.ACCOUNTS, Workload.BTC, Workload.USD);
                }
                System.out.printf("[crash] seed %d: %d kills, %,d trades in the database, as the node reported%n",
                    seed, kills, workload.trades());
            }
        }
    }

    private void awaitStarted(final Process child)
    {
        final File output = new File(baseDir, "store-process.log");
        TestNode.await("store process started", () ->
        {
            if (!child.isAlive())
            {
                throw new AssertionError("store process exited with " + child.exitValue() + ": " + read(output));
            }
            return read(output).contains(StoreProcess.STARTED);
        });
    }

    private static String read(final File file)
    {
        try
        {
            return file.exists() ? Files.readString(file.toPath(), StandardCharsets.UTF_8) : "";
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private void awaitFenceMoved(final Store.Context context, final long from, final Process child, final long seed)
        throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (fence(context) == from)
        {
            if (!child.isAlive() || System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("seed " + seed + ": the store process committed nothing past fence " + from +
                    " in 60 s: " + read(new File(baseDir, "store-process.log")));
            }
            Thread.sleep(50);
        }
    }

    private static long fence(final Store.Context context) throws Exception
    {
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            return database.fence().logPosition();
        }
    }

    private Process startChild(final Store.Context context, final String jdbcUrl) throws IOException
    {
        final String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        final File output = new File(baseDir, "store-process.log");
        Files.deleteIfExists(output.toPath());
        final Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), StoreProcess.class.getName(),
            context.nodeDataDir().getPath(), node.aeronDir, jdbcUrl, Integer.toString(context.batchRows()),
            Long.toString(context.snapshotLogBytes()))
            .redirectErrorStream(true)
            .redirectOutput(output)
            .start();
        return process;
    }
}
