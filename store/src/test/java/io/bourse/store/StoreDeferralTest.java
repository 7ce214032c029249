package io.bourse.store;

import io.bourse.cluster.CpuHeadroom;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * While the machine is saturated the store stands aside, for at most its deferral limit, and writes everything once
 * it follows again. The machine's load comes from a file in {@code /proc/loadavg}'s format that the test rewrites.
 */
class StoreDeferralTest
{
    private File baseDir;
    private TestNode node;
    private Path loadAverage;

    @BeforeEach
    void startNode() throws IOException
    {
        baseDir = TestNode.tempDir();
        node = new TestNode(baseDir, context -> context);
        loadAverage = baseDir.toPath().resolve("loadavg");
    }

    @AfterEach
    void stopNode()
    {
        node.close();
        IoUtil.delete(baseDir, true);
    }

    @Test
    void standsAsideWhileTheMachineIsSaturatedThenWritesEverything() throws Exception
    {
        runnableThreads(99);
        final long seed = System.nanoTime();
        final Store.Context context = node.storeContext()
            .maxDeferralMs(TimeUnit.MINUTES.toMillis(10))
            .headroom(new CpuHeadroom(loadAverage));
        try (Store store = Store.open(context).start(); Workload workload = new Workload(node, seed))
        {
            workload.setUp();
            workload.trade(1_000);
            workload.awaitAllAnswered();
            final long nodeHash = node.awaitIdleEngineStateHash();
            TestNode.await(() -> "the store standing aside: " + store.metrics(),
                () -> store.metrics().state() == StoreState.DEFERRING);
            TestNode.sleepMs(300);
            assertEquals(StoreState.DEFERRING, store.metrics().state(), store.metrics().summary());
            assertEquals(0, store.metrics().tradesWritten(), "seed " + seed + ": nothing written while saturated");
            assertTrue(store.metrics().lagBytes() > 0, store.metrics().summary());

            runnableThreads(1);
            assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
            assertEquals(StoreState.FOLLOWING, store.metrics().state());
            assertTrue(workload.trades() > 50, "seed " + seed + ": the workload trades: " + workload.trades());
            assertEquals(workload.trades(), store.metrics().tradesWritten(), "seed " + seed);
            assertEquals(nodeHash, store.engineStateHash(), "seed " + seed + ": store engine = node engine");
        }
    }

    @Test
    void followsRegardlessOnceBehindForTheDeferralLimit() throws Exception
    {
        runnableThreads(99);
        final long seed = System.nanoTime();
        final long maxDeferralMs = 500;
        final Store.Context context = node.storeContext()
            .maxDeferralMs(maxDeferralMs)
            .headroom(new CpuHeadroom(loadAverage));
        try (Store store = Store.open(context).start(); Workload workload = new Workload(node, seed))
        {
            workload.setUp();
            final long startNs = System.nanoTime();
            workload.trade(1_000);
            workload.awaitAllAnswered();
            final long nodeHash = node.awaitIdleEngineStateHash();
            assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
            assertTrue(System.nanoTime() - startNs >= TimeUnit.MILLISECONDS.toNanos(maxDeferralMs),
                "the store stood aside before it followed");
            assertEquals(workload.trades(), store.metrics().tradesWritten(), "seed " + seed);
            assertEquals(nodeHash, store.engineStateHash(), "seed " + seed + ": store engine = node engine");
        }
    }

    private void runnableThreads(final int runnable) throws IOException
    {
        Files.writeString(loadAverage, "1.00 1.00 1.00 " + runnable + "/400 12345\n");
    }
}
