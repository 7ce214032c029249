package io.bourse.bench;

import io.aeron.cluster.service.Cluster;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.LoopbackPorts;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.cluster.OrderFlow;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.protocol.codec.CommandRejectedDecoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.OrderAcceptedDecoder;
import io.bourse.protocol.codec.OrderCanceledDecoder;
import io.bourse.protocol.codec.TradeDecoder;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Benchmarks of the cluster node, through the real node (media driver, archive, consensus module, service, engine):
 * <ul>
 *     <li>{@code replay [commands]}: write a journal of order flow (5 M commands by default) through a node, crash it,
 *     and start a fresh JVM on the journal: the node's own recovery line gives commands/s and MB/s.</li>
 *     <li>{@code restart [restingOrders] [tailCommands]}: a snapshot holding 1 M resting orders plus a 1 M-command
 *     tail; the time from launching a fresh JVM to its node leading with the state recovered.</li>
 *     <li>{@code latency [rate...] [Ns] [--agent-yield-us=a,b,...] [--journal-sync=false,true]}: ingress to egress
 *     round trip through one embedded node at fixed rates, measured from each command's intended send time (no
 *     coordinated omission), for each agent yield window (0 and 100 µs by default) and each journal sync setting
 *     (not synced by default), side by side.</li>
 *     <li>{@code all}: the three, with their defaults.</li>
 * </ul>
 * Needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}; {@code ./bourse bench cluster} runs it.
 */
public final class ClusterBenchmark
{
    static final String READY = "bench-node-ready";
    /**
     * A jar-only class path holding this benchmark and the node (the bench jar and the app's jar): when set,
     * {@code restart} also compares recovery without and with a JDK AOT cache.
     */
    static final String JARS_PROPERTY = "bourse.bench.jars";
    /**
     * The AOT cache {@code ./bourse run} trained for the app's jar, compared by {@code restart} when it exists.
     */
    static final String APP_AOT_CACHE_PROPERTY = "bourse.bench.app-aot-cache";
    private static final long TIMEOUT_NS = TimeUnit.MINUTES.toNanos(10);

    private ClusterBenchmark()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String what = args.length > 0 ? args[0] : "all";
        switch (what)
        {
            case "replay" -> replay(
                args.length > 1 ? Integer.parseInt(args[1]) : 5_000_000, args.length > 2 ? new File(args[2]) : null);
            case "restart" -> restart(
                args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000,
                args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000);
            case "latency" -> latency(args);
            case "recover" -> recover(new File(args[1]), Integer.parseInt(args[2]));
            case "engine-only" -> engineOnly(args.length > 1 ? Integer.parseInt(args[1]) : 5_000_000);
            case "all" ->
            {
                replay(5_000_000, null);
                restart(1_000_000, 1_000_000);
                latency(new String[]{"latency"});
            }
            default -> throw new IllegalArgumentException(
                "usage: ClusterBenchmark replay [commands] | restart [restingOrders] [tailCommands] | " +
                "latency [rate...] [seconds] | all");
        }
    }

    // ------------------------------------------------------------------------------------------------ replay

    /**
     * @param keptDir when not null, the journal is kept there and a journal already there is replayed as it is.
     */
    private static void replay(final int commands, final File keptDir) throws Exception
    {
        final File dir = keptDir != null ? keptDir : Files.createTempDirectory("bourse-bench-replay").toFile();
        final File portFile = new File(dir, "bench-port-base");
        try
        {
            if (portFile.exists())
            {
                System.out.println("== replay: the journal kept in " + dir + ", recovered by a fresh JVM");
            }
            else
            {
                System.out.printf("== replay: a journal of %,d commands, recovered by a fresh JVM%n", commands);
                write(commands, dir, portFile);
            }
            recoverInChild(dir, Integer.parseInt(Files.readString(portFile.toPath()).trim()),
                System.getProperty("java.class.path"), List.of());
        }
        finally
        {
            if (keptDir == null)
            {
                IoUtil.delete(dir, true);
            }
        }
    }

    private static void write(final int commands, final File dir, final File portFile) throws IOException
    {
        final int portBase = freePortBase();
        try (Driver driver = new Driver(dir, portBase))
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
            driver.node.abort();
        }
        Files.writeString(portFile.toPath(), Integer.toString(portBase));
    }

    /**
     * The replay's order flow applied straight to an {@link Engine}, without the cluster: what replay could reach.
     */
    private static void engineOnly(final int commands)
    {
        System.out.printf("== engine only: the replay's %,d commands applied to an Engine in this JVM%n", commands);
        final OrderFlow flow = new OrderFlow(1);
        final ExpandableDirectByteBuffer log = new ExpandableDirectByteBuffer(commands * 64);
        final int[] ends = new int[commands + 2 * OrderFlow.ACCOUNTS + 3];
        int count = 0;
        int position = 0;
        final UnsafeBuffer command = new UnsafeBuffer(new byte[256]);
        int length;
        while ((length = flow.nextSetUp(command)) > 0)
        {
            log.putBytes(position, command, 0, length);
            position += length;
            ends[count++] = position;
        }
        for (int i = 0; i < commands; i++)
        {
            length = flow.next(command);
            log.putBytes(position, command, 0, length);
            position += length;
            ends[count++] = position;
        }
        final Engine engine = new Engine(new EventEncoder((buffer, offset, eventLength) -> {}));
        final CommandAdapter adapter = new CommandAdapter(engine);
        final long startNs = System.nanoTime();
        int start = 0;
        for (int i = 0; i < count; i++)
        {
            adapter.onCommand(log, start, ends[i] - start, i);
            start = ends[i];
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        System.out.printf("applied %,d commands (%,d bytes) in %.3f s: %,.0f commands/s, %.1f MB/s, %,d open orders%n",
            count, position, seconds, count / seconds, position / 1e6 / seconds, engine.openOrderCount());
    }

    // ------------------------------------------------------------------------------------------------ restart

    private static void restart(final int restingOrders, final int tailCommands) throws Exception
    {
        System.out.printf("== restart: snapshot with %,d resting orders plus a %,d-command tail, in a fresh JVM%n",
            restingOrders, tailCommands);
        final File dir = Files.createTempDirectory("bourse-bench-restart").toFile();
        try
        {
            final int portBase = freePortBase();
            try (Driver driver = new Driver(dir, portBase))
            {
                final OrderFlow flow = new OrderFlow(2);
                driver.setUp(flow);
                for (int i = 0; i < restingOrders; i++)
                {
                    driver.sendResting(flow);
                }
                driver.awaitAllAnswered();
                final long snapshots = driver.node.snapshotCount();
                await("snapshot request", driver.node::requestSnapshot);
                await("snapshot", () -> driver.node.snapshotCount() > snapshots);
                for (int i = 0; i < tailCommands; i++)
                {
                    driver.sendFlow(flow);
                }
                driver.awaitAllAnswered();
                System.out.println("wrote the snapshot and the tail: " + driver.eventTally());
                driver.node.abort();
            }
            final String jars = System.getProperty(JARS_PROPERTY);
            if (jars == null)
            {
                recoverInChild(dir, portBase, System.getProperty("java.class.path"), List.of());
                System.out.println("(no AOT cache comparison: -D" + JARS_PROPERTY + " names no jars)");
            }
            else
            {
                compareAotCache(dir, portBase, jars);
            }
        }
        finally
        {
            IoUtil.delete(dir, true);
        }
    }

    /**
     * The same recovery, side by side, from a jar-only class path (an AOT cache takes classes from jars only): without
     * an AOT cache; with the cache {@code ./bourse run} trained for the app's jar (what {@code run} and {@code node}
     * start with; usable because its class path, the app's jar, is a prefix of this one), when one is given; and
     * with a cache trained by one recovery of this very journal first.
     */
    private static void compareAotCache(final File dir, final int portBase, final String jars) throws Exception
    {
        final String appCache = System.getProperty(APP_AOT_CACHE_PROPERTY);
        final File cache = new File(dir, "bench.aot");
        System.out.println("training recovery, writing the AOT cache (not counted):");
        recoverInChild(dir, portBase, jars, List.of("-XX:AOTCacheOutput=" + cache.getPath(), "-Xlog:aot=error"));
        if (!cache.isFile())
        {
            throw new IllegalStateException("the training recovery wrote no AOT cache " + cache);
        }
        final List<String> names = new ArrayList<>(List.of("without an AOT cache"));
        final List<List<String>> options = new ArrayList<>(List.of(List.of()));
        if (appCache != null && new File(appCache).isFile())
        {
            names.add("with the cache `bourse run` trained");
            options.add(List.of("-XX:AOTCache=" + appCache));
        }
        names.add("with a cache trained on this recovery");
        options.add(List.of("-XX:AOTCache=" + cache.getPath()));
        final int runs = 3;
        final double[][] seconds = new double[names.size()][runs];
        for (int run = 0; run < runs; run++)
        {
            for (int variant = 0; variant < names.size(); variant++)
            {
                System.out.println("run " + (run + 1) + " " + names.get(variant) + ":");
                seconds[variant][run] = recoverInChild(dir, portBase, jars, options.get(variant));
            }
        }
        System.out.printf("process launch to leader, %d runs of each, alternating:%n", runs);
        for (int variant = 0; variant < names.size(); variant++)
        {
            Arrays.sort(seconds[variant]);
            System.out.printf("  %-40s median %.3f s (%.3f-%.3f)%n", names.get(variant), seconds[variant][runs / 2],
                seconds[variant][0], seconds[variant][runs - 1]);
        }
    }

    /**
     * @return seconds from launching the JVM to its node leading with the state recovered.
     */
    private static double recoverInChild(
        final File dir, final int portBase, final String classpath, final List<String> jvmOptions) throws Exception
    {
        final String java = ProcessHandle.current().info().command()
            .orElse(System.getProperty("java.home") + "/bin/java");
        // The module options `bourse run` starts with: an AOT cache is refused by a JVM whose module options differ.
        final List<String> command = new ArrayList<>(List.of(java, "-Xms4g", "-Xmx4g", "-XX:+UseParallelGC",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classpath,
            ClusterBenchmark.class.getName(), "recover", dir.getPath(), Integer.toString(portBase)));
        final long startNs = System.nanoTime();
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        double seconds = Double.NaN;
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = out.readLine()) != null)
            {
                System.out.println("  [recovering JVM] " + line);
                if (line.startsWith(READY))
                {
                    seconds = (System.nanoTime() - startNs) / 1e9;
                    System.out.printf("process launch to leader with state recovered: %.3f s%n", seconds);
                }
            }
        }
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException("recovering JVM did not exit");
        }
        if (Double.isNaN(seconds))
        {
            throw new IllegalStateException("the recovering JVM exited with " + process.exitValue() + " before leading");
        }
        return seconds;
    }

    private static void recover(final File dir, final int portBase) throws InterruptedException
    {
        final long startNs = System.nanoTime();
        final ClusterNode node = ClusterNode.launch(context(dir, portBase));
        try
        {
            await("leader", () -> node.role() == Cluster.Role.LEADER);
            System.out.printf("%s: node launch to leader %.3f s%n", READY, (System.nanoTime() - startNs) / 1e9);
        }
        finally
        {
            node.abort();
        }
    }

    // ------------------------------------------------------------------------------------------------ latency

    private static void latency(final String[] args) throws Exception
    {
        final List<Integer> rates = new ArrayList<>();
        final List<Long> yieldWindowsUs = new ArrayList<>();
        final List<Boolean> journalSyncs = new ArrayList<>();
        int seconds = 30;
        for (int i = 1; i < args.length; i++)
        {
            if (args[i].startsWith("--agent-yield-us="))
            {
                for (final String us : args[i].substring("--agent-yield-us=".length()).split(","))
                {
                    yieldWindowsUs.add(Long.parseLong(us));
                }
            }
            else if (args[i].startsWith("--journal-sync="))
            {
                for (final String sync : args[i].substring("--journal-sync=".length()).split(","))
                {
                    if (!sync.equals("true") && !sync.equals("false"))
                    {
                        throw new IllegalArgumentException("--journal-sync: expected true or false, got " + sync);
                    }
                    journalSyncs.add(Boolean.parseBoolean(sync));
                }
            }
            else if (args[i].endsWith("s"))
            {
                seconds = Integer.parseInt(args[i].substring(0, args[i].length() - 1));
            }
            else
            {
                rates.add(Integer.parseInt(args[i]));
            }
        }
        if (rates.isEmpty())
        {
            rates.add(10_000);
            rates.add(50_000);
        }
        if (yieldWindowsUs.isEmpty())
        {
            yieldWindowsUs.add(0L);
            yieldWindowsUs.add(100L);
        }
        if (journalSyncs.isEmpty())
        {
            journalSyncs.add(false);
        }
        for (final int rate : rates)
        {
            for (final long yieldWindowUs : yieldWindowsUs)
            {
                for (final boolean journalSync : journalSyncs)
                {
                    latency(rate, seconds, yieldWindowUs, journalSync);
                }
            }
        }
    }

    private static void latency(final int rate, final int seconds, final long yieldWindowUs, final boolean journalSync)
        throws Exception
    {
        final int warmupSeconds = 10;
        System.out.printf("== round trip: %,d commands/s for %d s after %d s of warm-up, one embedded node, agents " +
            "yielding %d µs after work (agent.yield.us), journal.sync=%s%n", rate, seconds, warmupSeconds,
            yieldWindowUs, journalSync);
        final File dir = Files.createTempDirectory("bourse-bench-latency").toFile();
        try (Driver driver = new Driver(context(dir, freePortBase())
            .agentYieldWindowNs(TimeUnit.MICROSECONDS.toNanos(yieldWindowUs)).journalSync(journalSync)))
        {
            final OrderFlow flow = new OrderFlow(3);
            driver.setUp(flow);
            driver.awaitAllAnswered();
            final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final long intervalNs = 1_000_000_000L / rate;
            final long startNs = System.nanoTime();
            final long measureFromNs = startNs + TimeUnit.SECONDS.toNanos(warmupSeconds);
            final long endNs = measureFromNs + TimeUnit.SECONDS.toNanos(seconds);
            long nextSendNs = startNs;
            // The sender is one of the JVM's agents: it yields across a send interval while the machine has CPU to
            // spare (and so never counts as other load against the node's own yield window), and parks otherwise.
            final IdleStrategy idle = new NodeIdleStrategy(intervalNs);
            driver.onAnswer = (requestSequence, intendedNs, nowNs) ->
            {
                if (intendedNs >= measureFromNs)
                {
                    histogram.recordValue(Math.min(nowNs - intendedNs, histogram.getHighestTrackableValue()));
                }
            };
            while (true)
            {
                final long nowNs = System.nanoTime();
                int work = 0;
                if (nextSendNs < endNs && nextSendNs <= nowNs)
                {
                    driver.sendFlowAt(flow, nextSendNs);
                    nextSendNs += intervalNs;
                    work++;
                }
                else if (nextSendNs >= endNs && driver.client.unansweredCount() == 0)
                {
                    break;
                }
                idle.idle(work + driver.client.doWork());
                if (nowNs > endNs + TIMEOUT_NS)
                {
                    throw new IllegalStateException("commands still unanswered long after the run");
                }
            }
            System.out.printf("round trip (µs) at %,d/s, yield %d µs, sync %s: p50 %.1f  p90 %.1f  p99 %.1f" +
                "  p99.9 %.1f  p99.99 %.1f  max %.1f  (%,d samples)%n", rate, yieldWindowUs, journalSync,
                histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(90) / 1e3,
                histogram.getValueAtPercentile(99) / 1e3, histogram.getValueAtPercentile(99.9) / 1e3,
                histogram.getValueAtPercentile(99.99) / 1e3, histogram.getMaxValue() / 1e3,
                histogram.getTotalCount());
            final File report = new File(
                "bench/target/cluster-round-trip-" + rate + "-yield-" + yieldWindowUs + "us" +
                (journalSync ? "-synced" : "") + ".hgrm");
            if (report.getParentFile().isDirectory() || report.getParentFile().mkdirs())
            {
                try (PrintStream out = new PrintStream(new FileOutputStream(report), true, StandardCharsets.UTF_8))
                {
                    histogram.outputPercentileDistribution(out, 1000.0);
                }
                System.out.println("percentile distribution (µs): " + report.getPath());
            }
        }
        finally
        {
            IoUtil.delete(dir, true);
        }
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    static ClusterNode.Context context(final File dir, final int portBase)
    {
        return new ClusterNode.Context()
            .dataDir(dir)
            .portBase(portBase)
            .snapshotLogBytes(Long.MAX_VALUE)
            .snapshotIntervalNs(Long.MAX_VALUE)
            .aeronDirectoryName(new File("/dev/shm").isDirectory() ?
                "/dev/shm/bourse-bench-" + ProcessHandle.current().pid() : null)
            .log(System.out);
    }

    static int freePortBase()
    {
        return LoopbackPorts.freeBase(31_000, 170, ClusterNode.PORTS_PER_MEMBER);
    }

    static void await(final String what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
    }

    interface AnswerListener
    {
        void onAnswer(long requestSequence, long intendedNs, long nowNs);
    }

    /**
     * One embedded node and a client sending order flow to it with a bounded window of unanswered commands.
     */
    static final class Driver implements ExchangeClientListener, AutoCloseable
    {
        private static final int WINDOW = 4096;
        private static final int INTENDED_CAPACITY = 1 << 16;

        final ClusterNode node;
        final ExchangeClient client;
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final long[] intendedNs = new long[INTENDED_CAPACITY];
        AnswerListener onAnswer;
        private final MessageHeaderDecoder eventHeader = new MessageHeaderDecoder();
        private long accepted;
        private long trades;
        private long canceled;
        private long rejected;

        Driver(final File dir, final int portBase)
        {
            this(context(dir, portBase));
        }

        Driver(final ClusterNode.Context context)
        {
            node = ClusterNode.launch(context);
            await("leader", () -> node.role() == Cluster.Role.LEADER);
            client = new ExchangeClient(node.clientContext()
                .maxUnansweredBytes(16 * 1024 * 1024)
                .listener(this));
            await("client connected", () ->
            {
                client.doWork();
                return client.isConnected();
            });
        }

        void setUp(final OrderFlow flow)
        {
            int length;
            while ((length = flow.nextSetUp(buffer)) > 0)
            {
                send(length, 0);
            }
        }

        void sendResting(final OrderFlow flow)
        {
            send(flow.nextResting(buffer), System.nanoTime());
        }

        void sendFlow(final OrderFlow flow)
        {
            send(flow.next(buffer), System.nanoTime());
        }

        void sendFlowAt(final OrderFlow flow, final long intendedSendNs)
        {
            send(flow.next(buffer), intendedSendNs);
        }

        private void send(final int length, final long intendedSendNs)
        {
            while (client.unansweredCount() >= WINDOW)
            {
                poll();
            }
            final long sequence = client.trySend(buffer, 0, length);
            if (sequence < 0)
            {
                throw new IllegalStateException("client refused a command");
            }
            intendedNs[(int)(sequence & (INTENDED_CAPACITY - 1))] = intendedSendNs;
            client.doWork();
        }

        private void poll()
        {
            if (client.doWork() == 0)
            {
                Thread.yield();
            }
        }

        String eventTally()
        {
            return String.format("%,d orders accepted, %,d trades, %,d cancels, %,d commands rejected",
                accepted, trades, canceled, rejected);
        }

        void awaitAllAnswered()
        {
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
            while (client.unansweredCount() > 0)
            {
                if (System.nanoTime() > deadlineNs)
                {
                    throw new IllegalStateException("commands unanswered");
                }
                poll();
            }
        }

        public void onEventBatch(
            final long batchSequence,
            final long logPosition,
            final long timestampNs,
            final long clientId,
            final long requestSequence,
            final DirectBuffer eventBuffer,
            final int offset,
            final int length,
            final int eventCount)
        {
            int position = offset;
            for (int i = 0; i < eventCount; i++)
            {
                eventHeader.wrap(eventBuffer, position);
                switch (eventHeader.templateId())
                {
                    case OrderAcceptedDecoder.TEMPLATE_ID -> accepted++;
                    case TradeDecoder.TEMPLATE_ID -> trades++;
                    case OrderCanceledDecoder.TEMPLATE_ID -> canceled++;
                    case CommandRejectedDecoder.TEMPLATE_ID -> rejected++;
                    default ->
                    {
                    }
                }
                position += MessageHeaderDecoder.ENCODED_LENGTH + eventHeader.blockLength();
            }
            if (clientId == client.clientId() && onAnswer != null)
            {
                onAnswer.onAnswer(requestSequence, intendedNs[(int)(requestSequence & (INTENDED_CAPACITY - 1))],
                    System.nanoTime());
            }
        }

        public void close()
        {
            client.close();
            node.abort();
            IoUtil.delete(new File(node.context().aeronDirectoryName()), true);
        }
    }
}
