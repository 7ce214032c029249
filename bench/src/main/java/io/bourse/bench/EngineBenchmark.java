package io.bourse.bench;

import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.engine.EventSink;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The engine benchmark: exchange-core's workload (see {@link ExchangeCoreWorkload}) replayed as SBE messages through
 * {@link CommandAdapter} → {@link Engine} → {@link EventEncoder}, single-threaded, the work a cluster node's service
 * does per log message (minus the log itself).
 * <ol>
 * <li>Throughput at saturation: the measured stream as fast as it goes, several runs on fresh engines.</li>
 * <li>Latency at fixed rates: command i is due at {@code start + i / rate}; its latency runs from that intended
 * time to the end of its processing, so a stall delays (and is charged to) every command queued behind it and
 * coordinated omission is avoided.</li>
 * <li>OS jitter, in the same run, on the same thread and for the same time, in 100 ms slices alternating with the
 * engine's: a loop reading the clock records
 * every gap between two reads and the latency a service doing nothing would show at the same rate, measured the
 * same way. What the machine takes from any thread shows there; the rest of our figures is ours.</li>
 * <li>Large book: a million resting orders, heap per resting order and throughput over that book.</li>
 * </ol>
 * Options: {@code --quick}, {@code --seed N}, {@code --commands N}, {@code --runs N}, {@code --rates r1,r2,..},
 * {@code --large-orders N}, {@code --large-commands N}, {@code --no-large}, {@code --no-latency}, {@code --out DIR} (for .hgrm files).
 */
public final class EngineBenchmark
{
    private static final long JITTER_THRESHOLD_NS = 10_000;
    private static final long SLICE_NS = 100_000_000;
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    private static final double[] PERCENTILES = { 50, 90, 95, 99, 99.9, 99.99 };

    private long seed = 1;
    private int commands = 5_000_000;
    private int runs = 5;
    private int warmupRuns = 2;
    private long[] rates = { 500_000, 1_000_000, 2_000_000 };
    private int largeOrders = 1_000_000;
    private int largeCommands = 2_000_000;
    private boolean large = true;
    private Path out = Path.of("bench", "target");

    /**
     * Counts the bytes of encoded events: a stand-in for the egress publication.
     */
    static final class CountingSink implements EventSink
    {
        long bytes;
        long events;

        public void onEvent(final DirectBuffer buffer, final int offset, final int length)
        {
            bytes += length;
            events++;
        }
    }

    /**
     * One engine with its decode and encode ends.
     */
    static final class Node
    {
        final CountingSink sink = new CountingSink();
        final Engine engine;
        final CommandAdapter adapter;

        Node(final int initialOrderCapacity)
        {
            engine = new Engine(new EventEncoder(sink), new Engine.Context().initialOrderCapacity(initialOrderCapacity));
            adapter = new CommandAdapter(engine);
        }
    }

    public static void main(final String[] args) throws IOException
    {
        final EngineBenchmark benchmark = new EngineBenchmark();
        benchmark.parse(args);
        benchmark.run();
    }

    private void parse(final String[] args)
    {
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--quick" ->
                {
                    commands = 1_000_000;
                    runs = 3;
                    warmupRuns = 1;
                    largeCommands = 500_000;
                }
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--commands" -> commands = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--rates" -> rates = Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
                case "--large-orders" -> largeOrders = Integer.parseInt(args[++i]);
                case "--large-commands" -> largeCommands = Integer.parseInt(args[++i]);
                case "--no-large" -> large = false;
                case "--no-latency" -> rates = new long[0];
                case "--out" -> out = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
    }

    private void run() throws IOException
    {
        Files.createDirectories(out);
        printMachine();

        System.out.printf("%n== workload: exchange-core mix, 1 instrument, 1,000 accounts, ~1,000 resting orders, seed %d%n",
            seed);
        long startNs = System.nanoTime();
        final ExchangeCoreWorkload workload = ExchangeCoreWorkload.generate(seed, 1_000, 1_000, commands,
            bufferBytes(commands + 10_000));
        System.out.printf("generated in %.1f s%n", (System.nanoTime() - startNs) / 1e9);
        System.out.print(workload.describe());

        throughput(workload);
        for (final long rate : rates)
        {
            latency(workload, rate);
        }

        if (large)
        {
            largeBook();
        }
    }

    private static int bufferBytes(final long messages)
    {
        return (int)Math.min(Integer.MAX_VALUE - 8, messages * 72L + (1 << 20));
    }

    private static void printMachine()
    {
        final Runtime runtime = Runtime.getRuntime();
        System.out.println("== machine");
        System.out.printf("cpu: %s, %d cores available%n", cpuModel(), runtime.availableProcessors());
        System.out.printf("jvm: %s %s (%s), heap max %d MiB, gc %s%n", System.getProperty("java.vm.name"),
            System.getProperty("java.runtime.version"), System.getProperty("java.vm.vendor"),
            runtime.maxMemory() >> 20, ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
        System.out.printf("os: %s %s %s%n", System.getProperty("os.name"), System.getProperty("os.version"),
            System.getProperty("os.arch"));
        System.out.printf("load average at start: %.2f%n",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        System.out.printf("jvm args: %s%n", ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

    private static String cpuModel()
    {
        try
        {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                .filter(line -> line.startsWith("model name"))
                .map(line -> line.substring(line.indexOf(':') + 1).trim())
                .findFirst().orElse("unknown");
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    private static Node prepared(final ExchangeCoreWorkload workload, final int initialOrderCapacity)
    {
        final Node node = new Node(initialOrderCapacity);
        workload.apply(node.adapter, 0, workload.setupCount());
        return node;
    }

    private void throughput(final ExchangeCoreWorkload workload)
    {
        System.out.printf("%n== throughput at saturation: %,d commands per run, %d warm-up + %d measured runs%n",
            workload.measuredCount(), warmupRuns, runs);
        final double[] rates = new double[runs];
        for (int r = -warmupRuns; r < runs; r++)
        {
            final Node node = prepared(workload, 1 << 16);
            final long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
            final long startNs = System.nanoTime();
            workload.apply(node.adapter, workload.setupCount(), workload.totalCount());
            final long elapsedNs = System.nanoTime() - startNs;
            final long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
            final double rate = workload.measuredCount() * 1e9 / elapsedNs;
            System.out.printf("  %s run %d: %,.0f commands/s (%.0f ns/command), %.1f events and %.0f bytes out " +
                "per command, %,d bytes allocated%n",
                r < 0 ? "warm-up" : "       ", r < 0 ? r + warmupRuns + 1 : r + 1, rate,
                (double)elapsedNs / workload.measuredCount(), (double)node.sink.events / workload.measuredCount(),
                (double)node.sink.bytes / workload.measuredCount(), allocated);
            if (r >= 0)
            {
                rates[r] = rate;
            }
        }
        Arrays.sort(rates);
        System.out.printf("  median %,.0f commands/s (min %,.0f, max %,.0f)%n",
            rates[rates.length / 2], rates[0], rates[rates.length - 1]);
    }

    private void latency(final ExchangeCoreWorkload workload, final long rate) throws IOException
    {
        final Node node = prepared(workload, 1 << 16);
        final Histogram histogram = new Histogram(60_000_000_000L, 3);
        final int from = workload.setupCount();
        final int count = workload.measuredCount();
        final DirectBuffer buffer = workload.buffer();
        final int[] offsets = workload.offsets();
        final CommandAdapter adapter = node.adapter;

        final Histogram gaps = new Histogram(60_000_000_000L, 3);
        final Histogram idle = new Histogram(60_000_000_000L, 3);
        // Service time: from taking a command to its last event encoded, without the wait behind earlier ones.
        final Histogram service = new Histogram(60_000_000_000L, 3);
        // Alternate slices of engine and idle probe so that both see the same machine: the other tenants of a
        // shared machine come and go within seconds.
        final int sliceCommands = (int)Math.max(1, rate * SLICE_NS / 1_000_000_000L);
        long engineNs = 0;
        for (int sliceStart = 0; sliceStart < count; sliceStart += sliceCommands)
        {
            final int sliceEnd = Math.min(count, sliceStart + sliceCommands);
            final long startNs = System.nanoTime() + 10_000;
            for (int i = sliceStart; i < sliceEnd; i++)
            {
                final long intendedNs = startNs + (long)((i - sliceStart) * 1e9 / rate);
                while (System.nanoTime() < intendedNs)
                {
                    Thread.onSpinWait();
                }
                final int index = from + i;
                final int offset = offsets[index];
                final long beginNs = System.nanoTime();
                adapter.onCommand(buffer, offset, offsets[index + 1] - offset, ExchangeCoreWorkload.commandTimeNs(index));
                final long endNs = System.nanoTime();
                histogram.recordValue(endNs - intendedNs);
                service.recordValue(endNs - beginNs);
            }
            final long sliceNs = System.nanoTime() - startNs;
            engineNs += sliceNs;
            jitter(sliceNs, rate, gaps, idle);
        }
        final long durationNs = engineNs;

        final long slowCommands = histogram.getCountBetweenValues(JITTER_THRESHOLD_NS + 1, Long.MAX_VALUE >> 8);
        final long slowIdle = idle.getCountBetweenValues(JITTER_THRESHOLD_NS + 1, Long.MAX_VALUE >> 8);
        final long longGaps = gaps.getCountBetweenValues(JITTER_THRESHOLD_NS + 1, Long.MAX_VALUE >> 8);

        System.out.printf("%n== latency at %,d commands/s: %,d commands over %.2f s, from intended send time%n",
            rate, count, durationNs / 1e9);
        System.out.printf("  %-10s %12s %14s %16s %14s%n",
            "percentile", "engine (µs)", "service (µs)", "idle probe (µs)", "clock gap (µs)");
        for (final double percentile : PERCENTILES)
        {
            System.out.printf("  %-10s %12.2f %14.2f %16.2f %14.2f%n", percentile,
                histogram.getValueAtPercentile(percentile) / 1e3, service.getValueAtPercentile(percentile) / 1e3,
                idle.getValueAtPercentile(percentile) / 1e3, gaps.getValueAtPercentile(percentile) / 1e3);
        }
        System.out.printf("  %-10s %12.2f %14.2f %16.2f %14.2f%n", "max", histogram.getMaxValue() / 1e3,
            service.getMaxValue() / 1e3, idle.getMaxValue() / 1e3, gaps.getMaxValue() / 1e3);
        System.out.printf("  over 10 µs: %,d commands (%.1f/s); idle probe %,d (%.1f/s); clock gaps %,d (%.1f/s)%n",
            slowCommands, slowCommands * 1e9 / durationNs, slowIdle, slowIdle * 1e9 / durationNs,
            longGaps, longGaps * 1e9 / durationNs);
        System.out.printf("  machine load average now: %.2f%n",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        write(histogram, "latency-" + rate + ".hgrm");
        write(service, "service-" + rate + ".hgrm");
        write(idle, "idle-probe-" + rate + ".hgrm");
        write(gaps, "clock-gaps-" + rate + ".hgrm");
    }

    /**
     * Read the clock in a tight loop for the given time. Records every gap between two reads, and the latency a
     * service doing no work at all would show at the same rate, measured the same way (from each intended time to
     * the first clock read at or after it): the floor the machine puts under our figures.
     */
    private static void jitter(final long durationNs, final long rate, final Histogram gaps, final Histogram idle)
    {
        final long startNs = System.nanoTime();
        final long endNs = startNs + durationNs;
        long lastNs = startNs;
        long due = 0;
        long intendedNs = startNs;
        while (lastNs < endNs)
        {
            final long nowNs = System.nanoTime();
            gaps.recordValue(nowNs - lastNs);
            while (intendedNs <= nowNs)
            {
                idle.recordValue(nowNs - intendedNs);
                due++;
                intendedNs = startNs + (long)(due * 1e9 / rate);
            }
            lastNs = nowNs;
        }
    }

    private void write(final Histogram histogram, final String name) throws IOException
    {
        try (PrintStream stream = new PrintStream(new FileOutputStream(out.resolve(name).toFile())))
        {
            histogram.outputPercentileDistribution(stream, 1000.0);
        }
    }

    private void largeBook()
    {
        System.out.printf("%n== large book: %,d resting orders target, 10,000 accounts, seed %d%n", largeOrders, seed);
        long startNs = System.nanoTime();
        final ExchangeCoreWorkload workload = ExchangeCoreWorkload.generate(seed, 10_000, largeOrders, largeCommands,
            bufferBytes(largeOrders * 3L + largeCommands + 100_000));
        System.out.printf("generated in %.1f s%n", (System.nanoTime() - startNs) / 1e9);
        System.out.print(workload.describe());

        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        final long beforeBytes = usedHeapAfterGc(memory);
        final int capacity = Integer.highestOneBit(largeOrders) << 1;
        startNs = System.nanoTime();
        Node node = prepared(workload, capacity);
        final long setupNs = System.nanoTime() - startNs;
        final int resting = node.engine.openOrderCount();
        final long afterBytes = usedHeapAfterGc(memory);
        final long afterSecondBytes = usedHeapAfterGc(memory);
        System.out.printf("  book built from %,d setup commands in %.2f s; %,d resting orders%n",
            workload.setupCount(), setupNs / 1e9, resting);
        System.out.printf("  heap used: %,d bytes before, %,d after (%,d after another GC)%n",
            beforeBytes, afterBytes, afterSecondBytes);
        System.out.printf("  heap per resting order: %.1f bytes (%.1f after another GC), everything included " +
            "(order pool sized %,d, id maps, per-account maps, levels, 10,000 accounts)%n",
            (double)(afterBytes - beforeBytes) / resting, (double)(afterSecondBytes - beforeBytes) / resting, capacity);

        final int largeRuns = 3;
        final double[] rates = new double[largeRuns];
        for (int r = 0; r < largeRuns; r++)
        {
            if (r > 0)
            {
                node = prepared(workload, capacity);
            }
            startNs = System.nanoTime();
            workload.apply(node.adapter, workload.setupCount(), workload.totalCount());
            final long elapsedNs = System.nanoTime() - startNs;
            rates[r] = workload.measuredCount() * 1e9 / elapsedNs;
            System.out.printf("  run %d: %,.0f commands/s over the large book, %,d resting at the end%n",
                r + 1, rates[r], node.engine.openOrderCount());
        }
        Arrays.sort(rates);
        System.out.printf("  median %,.0f commands/s (min %,.0f, max %,.0f)%n", rates[largeRuns / 2], rates[0],
            rates[largeRuns - 1]);
    }

    private static long usedHeapAfterGc(final MemoryMXBean memory)
    {
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
