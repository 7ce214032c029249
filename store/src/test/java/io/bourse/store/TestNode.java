package io.bourse.store;

import io.aeron.cluster.service.Cluster;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.LoopbackPorts;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A single-member cluster node in this JVM for store tests, on a private data directory, media driver directory and
 * free ports (from 31000-32990, a range the other modules' tests do not use).
 */
final class TestNode implements AutoCloseable
{
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final AtomicInteger NEXT_ID = new AtomicInteger();

    final File baseDir;
    final File dataDir;
    final String aeronDir;
    final int portBase;
    /** What the node logged, also echoed to standard out. */
    final StringBuffer logText = new StringBuffer();
    ClusterNode node;

    TestNode(final File baseDir, final java.util.function.UnaryOperator<ClusterNode.Context> configure)
    {
        this.baseDir = baseDir;
        this.dataDir = new File(baseDir, "node");
        this.aeronDir = "/dev/shm/bourse-store-test-" + ProcessHandle.current().pid() + "-" + NEXT_ID.incrementAndGet();
        this.portBase = freePortBase();
        node = launch(configure);
    }

    private ClusterNode launch(final java.util.function.UnaryOperator<ClusterNode.Context> configure)
    {
        final ClusterNode launched = ClusterNode.launch(configure.apply(new ClusterNode.Context()
            .dataDir(dataDir)
            .portBase(portBase)
            .aeronDirectoryName(aeronDir)
            .log(new java.io.PrintStream(new java.io.OutputStream()
            {
                public void write(final int b)
                {
                    logText.append((char)b);
                    System.out.write(b);
                }
            }, true))));
        await("node leads", () -> launched.role() == Cluster.Role.LEADER);
        return launched;
    }

    static File tempDir() throws IOException
    {
        return Files.createTempDirectory("bourse-store-test-").toFile();
    }

    /**
     * Wait until the service has applied every committed message for a moment, then give its engine state hash.
     */
    long awaitIdleEngineStateHash()
    {
        final long[] last = { -1, System.nanoTime() };
        await("node idle", () ->
        {
            final long position = node.service().appliedLogPosition();
            if (position != last[0])
            {
                last[0] = position;
                last[1] = System.nanoTime();
                return false;
            }
            return System.nanoTime() - last[1] > TimeUnit.MILLISECONDS.toNanos(200);
        });
        return node.service().engineStateHash();
    }

    Store.Context storeContext()
    {
        // Normal priority: on a machine busy with other work a nice store would only crawl, and tests wait for it.
        return new Store.Context().nodeDataDir(dataDir).aeronDirectoryName(aeronDir).threadNice(0);
    }

    public void close()
    {
        CloseHelper.quietClose(node);
        IoUtil.delete(new File(aeronDir), true);
    }

    static void await(final String what, final BooleanSupplier condition)
    {
        await(() -> what, condition);
    }

    static void await(final Supplier<String> what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out after " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS) +
                    " s waiting for " + what.get());
            }
            sleepMs(2);
        }
    }

    static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static int freePortBase()
    {
        return LoopbackPorts.freeBase(25_000, 200, ClusterNode.PORTS_PER_MEMBER);
    }
}
