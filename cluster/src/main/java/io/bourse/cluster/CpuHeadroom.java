package io.bourse.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the machine has CPU to spare for agents that keep yielding after their work instead of parking (the yield
 * window of {@link NodeIdleStrategy}).
 * <p>
 * Why: a yielding thread stays runnable, and Linux shares a CPU fairly among runnable threads, so agents that yield
 * take a fair share of the cores from threads doing real work (an HTTP gateway's event loop lost a third of its
 * throughput to them on two cores). When nothing else wants the CPU, yielding costs nothing but idle time and keeps
 * every hop of a command through the node's agents free of wake-up delays. So the window is taken only while nothing
 * but this JVM's agents wants to run.
 * <p>
 * How: at most once a millisecond, by whichever agent is deciding (no thread of its own), it reads how many threads
 * on the machine are runnable (the kernel's {@code /proc/loadavg}, fourth field) and subtracts this JVM's agents that
 * are awake (the live threads of registered {@link NodeIdleStrategy}s that are not parked: working or yielding). What is left wants a CPU besides our
 * agents: gateways' event loops, the post-trade store, load generators, other processes. Its average over the last
 * few samples must stay under half a thread for the window to be allowed. Where {@code /proc/loadavg} cannot be read
 * the window is never allowed.
 * <p>
 * The same samples tell background work (the post-trade store) when to stand aside: {@link #isSaturated} is true
 * while the threads that want a CPU, not counting agents that are only yielding, are more than the cores.
 */
public final class CpuHeadroom
{
    /**
     * The one instance of a JVM: agents of every node and client in it share the machine.
     */
    public static final CpuHeadroom MACHINE = new CpuHeadroom(Path.of("/proc/loadavg"));

    private static final long SAMPLE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * Averages are fixed-point, in 1/256 of a thread.
     */
    private static final int ONE_THREAD = 256;
    private static final int ALLOWED_BELOW = ONE_THREAD / 2;
    /**
     * Each sample moves the average an eighth of the way: about the last 8-16 ms count.
     */
    private static final int SMOOTHING_SHIFT = 3;

    private final FileChannel loadAverage;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(256);
    private final IdleAgents agents = new IdleAgents();
    private final AtomicBoolean sampling = new AtomicBoolean();
    private volatile long nextSampleNs = Long.MIN_VALUE;
    /**
     * Starts at a whole thread: no yielding until the first samples say the machine is idle.
     */
    private volatile int othersRunnableAverage = ONE_THREAD;
    /**
     * Runnable threads but the yielding agents. Starts at none, and stays there where the load cannot be read:
     * background work that waited on an unknown signal would never run.
     */
    private volatile int demandAverage;
    private final int saturatedAt;

    /**
     * @param loadAverageFile {@code /proc/loadavg}, or a file in its format (tests).
     */
    public CpuHeadroom(final Path loadAverageFile)
    {
        this(loadAverageFile, Runtime.getRuntime().availableProcessors());
    }

    CpuHeadroom(final Path loadAverageFile, final int cores)
    {
        // The thread that samples is runnable and counted: saturated means more than the cores want to run besides it.
        saturatedAt = (cores + 1) * ONE_THREAD;
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(loadAverageFile, StandardOpenOption.READ);
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            // Not Linux, or no procfs: the window is never allowed.
        }
        this.loadAverage = channel;
    }

    /**
     * The agents that share this headroom: counted here while alive and not parked, and woken by each other.
     */
    IdleAgents agents()
    {
        return agents;
    }

    /**
     * @param nowNs {@link System#nanoTime()} of the caller.
     * @return true when, on recent samples, nothing but this JVM's agents wants the CPU.
     */
    boolean allowsYielding(final long nowNs)
    {
        sampleIfDue(nowNs);
        return othersRunnableAverage < ALLOWED_BELOW;
    }

    /**
     * Whether work that can wait should wait: on recent samples, besides the caller, more threads want to run than
     * the machine has cores (agents in their yield window not counted: they give way at once).
     *
     * @param nowNs {@link System#nanoTime()} of the caller.
     * @return true while every core is wanted; false where {@code /proc/loadavg} cannot be read.
     */
    public boolean isSaturated(final long nowNs)
    {
        sampleIfDue(nowNs);
        return demandAverage >= saturatedAt;
    }

    private void sampleIfDue(final long nowNs)
    {
        if (nowNs >= nextSampleNs && sampling.compareAndSet(false, true))
        {
            try
            {
                if (nowNs >= nextSampleNs)
                {
                    nextSampleNs = nowNs + SAMPLE_INTERVAL_NS;
                    sample();
                }
            }
            finally
            {
                sampling.set(false);
            }
        }
    }

    /**
     * @return the average number of runnable threads besides this JVM's awake agents, in 1/256 of a thread.
     */
    int othersRunnableAverage()
    {
        return othersRunnableAverage;
    }

    /**
     * @return the average number of runnable threads but this JVM's yielding agents, in 1/256 of a thread.
     */
    int demandAverage()
    {
        return demandAverage;
    }

    private void sample()
    {
        final int runnable = runnableThreads();
        if (runnable < 0)
        {
            othersRunnableAverage = ONE_THREAD;
            demandAverage = 0;
            return;
        }
        final long agentCounts = agents.countAwake();
        final int others = Math.max(0, runnable - (int)(agentCounts >>> 32));
        final int demand = Math.max(0, runnable - (int)agentCounts);
        othersRunnableAverage = smoothed(othersRunnableAverage, others);
        demandAverage = smoothed(demandAverage, demand);
    }

    private static int smoothed(final int average, final int sample)
    {
        return average + ((sample * ONE_THREAD - average) >> SMOOTHING_SHIFT);
    }

    /**
     * @return the machine's runnable threads now (the caller included), or -1 when it cannot be read.
     */
    private int runnableThreads()
    {
        if (loadAverage == null)
        {
            return -1;
        }
        try
        {
            buffer.clear();
            // A positional read from the start makes procfs produce the line afresh.
            final int length = loadAverage.read(buffer, 0);
            return parseRunnable(buffer, length);
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /**
     * @return the fourth field's number before the slash ("runnable/total") of a {@code /proc/loadavg} line, or -1.
     */
    static int parseRunnable(final ByteBuffer line, final int length)
    {
        int field = 0;
        int value = -1;
        for (int i = 0; i < length; i++)
        {
            final byte b = line.get(i);
            if (b == ' ')
            {
                field++;
            }
            else if (field == 3)
            {
                if (b == '/')
                {
                    return value;
                }
                if (b < '0' || b > '9')
                {
                    return -1;
                }
                value = (value < 0 ? 0 : value * 10) + (b - '0');
            }
        }
        return -1;
    }
}
