package io.bourse.bench;

import io.bourse.cluster.OrderFlow;
import io.bourse.store.PostgresServer;
import io.bourse.store.Store;
import io.bourse.store.StoreMetrics;
import io.bourse.store.StoreState;
import org.agrona.IoUtil;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Post-trade store benchmarks, on an embedded node driven by {@link ClusterBenchmark.Driver} with {@link OrderFlow}:
 * <ul>
 *     <li>{@code ingest [commands] [sqlite|postgresql|both]}: a journal of that many commands is written with no store running, then a store
 *     on SQLite, and one on a PostgreSQL server started for the run, each write the whole backlog from the start of
 *     the log: trades and rows per second, with the per-second rate while it ran.</li>
 *     <li>{@code impact [commands] [runs]}: the node's throughput (commands sent as fast as the client's window allows,
 *     until all are answered) without a store, with a store (SQLite) following it live as {@code run} has it (standing
 *     aside while the machine is saturated), and with one that never stands aside, alternating, on fresh nodes; then
 *     how far behind the store was when the load stopped and how long it took to reach zero lag.</li>
 * </ul>
 */
public final class StoreBenchmark
{
    private static final long TIMEOUT_NS = TimeUnit.MINUTES.toNanos(10);
    /**
     * The store's agent thread (its role name).
     */
    private static final String STORE_THREAD = "bourse-store";
    private static final String COMMIT_THREAD = "bourse-store-commit";

    private StoreBenchmark()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String what = args.length > 0 ? args[0] : "all";
        switch (what)
        {
            case "ingest" -> ingest(args.length > 1 ? Integer.parseInt(args[1]) : 3_000_000,
                args.length > 2 ? args[2] : "both");
            case "impact" -> impact(
                args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000, args.length > 2 ? Integer.parseInt(args[2]) : 5);
            case "all" ->
            {
                ingest(3_000_000, "both");
                impact(1_000_000, 5);
            }
            default -> throw new IllegalArgumentException(
                "usage: StoreBenchmark ingest [commands] [sqlite|postgresql|both] | impact [commands] [runs] | all");
        }
    }

    // ------------------------------------------------------------------------------------------------ ingest

    private static void ingest(final int commands, final String databases) throws Exception
    {
        System.out.printf("== store ingest: a journal of %,d commands, then written by the store from the start%n",
            commands);
        final File dir = Files.createTempDirectory("bourse-bench-store").toFile();
        try (ClusterBenchmark.Driver driver = new ClusterBenchmark.Driver(dir, ClusterBenchmark.freePortBase()))
        {
            final OrderFlow flow = new OrderFlow(1);
            driver.setUp(flow);
            final long startNs = System.nanoTime();
            for (int i = 0; i < commands; i++)
            {
                driver.sendFlow(flow);
            }
            driver.awaitAllAnswered();
            final double seconds = (System.nanoTime() - startNs) / 1e9;
            System.out.printf("wrote %,d commands through the node in %.1f s (%,.0f commands/s): %s%n",
                commands, seconds, commands / seconds, driver.eventTally());

            // Normal priority: nothing else runs, and this measures what the store can write.
            final Store.Context context = new Store.Context()
                .nodeDataDir(dir)
                .aeronDirectoryName(driver.node.context().aeronDirectoryName())
                .threadNice(0);
            if (!databases.equals("postgresql"))
            {
                ingestInto("SQLite", context.sqliteFile(new File(dir, "bench-history.db")), -1);
            }
            if (!databases.equals("sqlite"))
            {
                try (PostgresServer postgres = PostgresServer.start())
                {
                    ingestInto("PostgreSQL", context.jdbcUrl(postgres.jdbcUrl()), postgres.serverPid());
                }
            }
        }
        finally
        {
            IoUtil.delete(dir, true);
        }
    }

    private static void ingestInto(final String name, final Store.Context context, final long serverPid)
        throws InterruptedException
    {
        try (Store store = Store.open(context))
        {
            final StoreMetrics metrics = store.metrics();
            final List<Long> perSecond = new ArrayList<>();
            final long serverCpuStartNs = serverPid < 0 ? 0 : processTreeCpuNs(serverPid);
            final long startNs = System.nanoTime();
            store.start();
            long lastTrades = 0;
            long nextSampleNs = startNs + TimeUnit.SECONDS.toNanos(1);
            while (!(metrics.state().isFollowing() && metrics.lagBytes() == 0 &&
                metrics.committedLogPosition() > 0))
            {
                if (metrics.state() == StoreState.FAILED)
                {
                    throw new IllegalStateException(name + ": " + metrics.failure());
                }
                if (System.nanoTime() - startNs > TIMEOUT_NS)
                {
                    throw new IllegalStateException(name + ": not caught up in 10 minutes: " + metrics.summary());
                }
                if (System.nanoTime() >= nextSampleNs)
                {
                    final long trades = metrics.tradesWritten();
                    perSecond.add(trades - lastTrades);
                    lastTrades = trades;
                    nextSampleNs += TimeUnit.SECONDS.toNanos(1);
                }
                Thread.sleep(1);
            }
            final double seconds = (System.nanoTime() - startNs) / 1e9;
            final double storeCpuSeconds = threadCpuNs(STORE_THREAD) / 1e9;
            final double commitCpuSeconds = threadCpuNs(COMMIT_THREAD) / 1e9;
            final double serverCpuSeconds = serverPid < 0 ? 0 : (processTreeCpuNs(serverPid) - serverCpuStartNs) / 1e9;
            final long[] rates = perSecond.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf("%s: %,d trades and %,d rows (%,d transactions) in %.2f s: %,.0f trades/s, %,.0f rows/s; " +
                "per full second: min %,d, median %,d, max %,d trades/s (%d samples)%n",
                name, metrics.tradesWritten(), metrics.rowsWritten(), metrics.batchesCommitted(), seconds,
                metrics.tradesWritten() / seconds, metrics.rowsWritten() / seconds,
                rates.length > 0 ? rates[0] : 0, rates.length > 0 ? rates[rates.length / 2] : 0,
                rates.length > 0 ? rates[rates.length - 1] : 0, rates.length);
            // On a machine shared with other work the wall-clock rate says as much about the load as about the store:
            // the CPU time spent gives the cost per trade, whatever share of the machine the run got.
            System.out.printf("%s: CPU %.2f s in the store thread (replay, rows) + %.2f s in its commit thread%s: " +
                "%,.0f trades per CPU second%n", name, storeCpuSeconds, commitCpuSeconds,
                serverPid < 0 ? "" : String.format(" + %.2f s in the server", serverCpuSeconds),
                metrics.tradesWritten() / (storeCpuSeconds + commitCpuSeconds + serverCpuSeconds));
        }
    }

    private static long threadCpuNs(final String threadName)
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (thread.getName().equals(threadName))
            {
                return threads.getThreadCpuTime(thread.threadId());
            }
        }
        throw new IllegalStateException("no thread " + threadName);
    }

    /**
     * CPU time of a process and its live descendants (the PostgreSQL server's backends and workers), from /proc.
     */
    private static long processTreeCpuNs(final long pid)
    {
        final ProcessHandle server = ProcessHandle.of(pid)
            .orElseThrow(() -> new IllegalStateException("no process " + pid));
        return Stream.concat(Stream.of(server), server.descendants())
            .mapToLong(process -> process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L))
            .sum();
    }

    // ------------------------------------------------------------------------------------------------ impact

    private static void impact(final int commands, final int runs) throws Exception
    {
        System.out.printf("== store impact: node throughput for %,d commands, without the store, with the store " +
            "(SQLite) following live as run has it (standing aside up to %,d ms while the machine is saturated), and " +
            "with it never standing aside; %d runs each, in turn, after a warm-up run without and one with the store%n",
            commands, Store.RUN_MAX_DEFERRAL_MS, runs);
        // Warm-up: the JIT goes on compiling over the first runs of each kind, so one of each is left out.
        run(commands, false, 0);
        run(commands, true, 0);
        final double[] without = new double[runs];
        final double[] deferring = new double[runs];
        final double[] following = new double[runs];
        for (int i = 0; i < runs; i++)
        {
            // The order turns each round, so that no kind always runs first or last of its round.
            for (int k = 0; k < 3; k++)
            {
                switch ((i + k) % 3)
                {
                    case 0 -> without[i] = run(commands, false, 0);
                    case 1 -> deferring[i] = run(commands, true, Store.RUN_MAX_DEFERRAL_MS);
                    default -> following[i] = run(commands, true, 0);
                }
            }
        }
        final double medianWithout = median(without);
        final double medianDeferring = median(deferring);
        final double medianFollowing = median(following);
        System.out.printf("node throughput, median of %d: without store %,.0f commands/s; with the store as run has " +
            "it %,.0f commands/s: %+.1f %%; with the store never standing aside %,.0f commands/s: %+.1f %%%n", runs,
            medianWithout, medianDeferring, (medianDeferring / medianWithout - 1) * 100, medianFollowing,
            (medianFollowing / medianWithout - 1) * 100);
    }

    private static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /**
     * @return commands per second through the node.
     */
    private static double run(final int commands, final boolean withStore, final long maxDeferralMs) throws Exception
    {
        final File dir = Files.createTempDirectory("bourse-bench-store-impact").toFile();
        try (ClusterBenchmark.Driver driver = new ClusterBenchmark.Driver(dir, ClusterBenchmark.freePortBase()))
        {
            final Store store = withStore ? Store.open(new Store.Context()
                .nodeDataDir(dir)
                .aeronDirectoryName(driver.node.context().aeronDirectoryName())
                .maxDeferralMs(maxDeferralMs)
                .log(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))).start() : null;
            try
            {
                final OrderFlow flow = new OrderFlow(7);
                driver.setUp(flow);
                driver.awaitAllAnswered();
                final long startNs = System.nanoTime();
                for (int i = 0; i < commands; i++)
                {
                    driver.sendFlow(flow);
                }
                driver.awaitAllAnswered();
                final long endNs = System.nanoTime();
                final double rate = commands / ((endNs - startNs) / 1e9);
                if (store == null)
                {
                    System.out.printf("without store: %,.0f commands/s%n", rate);
                    return rate;
                }
                final StoreMetrics metrics = store.metrics();
                final long lagBytes = metrics.lagBytes();
                final double lagSeconds = metrics.lagSeconds();
                if (!store.awaitCaughtUp(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS)))
                {
                    throw new IllegalStateException("store did not catch up: " + metrics.summary());
                }
                System.out.printf("with store (%s): %,.0f commands/s; store lag when the load stopped %,d bytes " +
                    "(%.2f s), zero %.2f s later; %,d trades written%n",
                    maxDeferralMs == 0 ? "never aside" : "aside up to " + maxDeferralMs + " ms", rate, lagBytes, lagSeconds,
                    (System.nanoTime() - endNs) / 1e9, metrics.tradesWritten());
                return rate;
            }
            finally
            {
                if (store != null)
                {
                    store.close();
                }
            }
        }
        finally
        {
            IoUtil.delete(dir, true);
        }
    }
}
