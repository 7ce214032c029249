package io.bourse.cluster;

import org.agrona.concurrent.IdleStrategy;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The idle strategy of every Bourse agent: spin briefly, optionally yield for a while, then park for growing
 * intervals, on a thread whose Linux timer slack is lowered to 1 ns the first time it idles.
 * <p>
 * Why: on two cores a busy-spinning agent starves the others, so agents must park; but Linux rounds every timed
 * sleep of a normal thread up by its timer slack (50 µs by default), so a 1 µs park really lasts ~55 µs and each
 * hop of a message through the node's agents paid that. With the slack at 1 ns a park lasts about what was asked.
 * Where {@code prctl} is unavailable (not Linux, or native access denied) the strategy is a plain back-off.
 * <p>
 * The yield window trades idle CPU for latency. A command crosses four agents of a single node (consensus module,
 * archive, consensus module again, service); when commands come every 100 µs, each has started to park by the time
 * the next one arrives, and the wake-ups add up to more than the work. Yielding for a window after the last work
 * keeps the agents awake across such gaps. But a yielding thread stays runnable and takes its fair share of the CPU
 * from everything else on the machine (with the gateways on the same two cores it cost a third of the HTTP gateway's
 * throughput), so the window is only taken while {@link CpuHeadroom} finds nothing but this JVM's agents wanting the
 * CPU; under load from anything else the agents park as if there were no window. Configuration {@code agent.yield.us}.
 */
public final class NodeIdleStrategy implements IdleStrategy
{
    private static final int PR_SET_TIMERSLACK = 29;
    private static final MethodHandle PRCTL = prctl();
    private static final int MAX_SPINS = 20;
    private static final int MAX_YIELDS = 10;
    private static final long MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final long NOT_YIELDING = Long.MIN_VALUE;

    /**
     * The yield window `bourse run` and `bourse node` use unless configured otherwise: commands 100 µs apart (10k/s)
     * find the agents awake, as long as the machine has CPU to spare.
     */
    public static final long DEFAULT_YIELD_WINDOW_NS = TimeUnit.MICROSECONDS.toNanos(100);

    /**
     * Longest park: bounds both the wake-up delay of an idle agent and its CPU use when idle (a few thousand wake-ups
     * a second per agent, cheap next to the gateways sharing the cores).
     */
    private static final long MAX_PARK_NS = TimeUnit.MICROSECONDS.toNanos(100);

    private final long yieldWindowNs;
    private final CpuHeadroom headroom;
    private Thread owner;
    private volatile boolean parked;
    private volatile boolean yielding;
    /**
     * The owner's own copy of {@link #yielding}, so that the volatile is written only when it changes.
     */
    private boolean yieldingNow;
    private long parks;
    private int spins;
    private int yields;
    private long yieldUntilNs = NOT_YIELDING;
    private long parkPeriodNs = MIN_PARK_NS;

    /**
     * The default: 20 spins, 10 yields, then parks from 1 µs to 100 µs.
     */
    public NodeIdleStrategy()
    {
        this(0);
    }

    /**
     * @param yieldWindowNs after the spins, yield until this long has passed since the agent last had work (at
     *                      least 10 yields), then park; 0 for only the 10 yields. Taken only while the machine has
     *                      CPU to spare ({@link CpuHeadroom#MACHINE}).
     */
    public NodeIdleStrategy(final long yieldWindowNs)
    {
        this(yieldWindowNs, CpuHeadroom.MACHINE);
    }

    NodeIdleStrategy(final long yieldWindowNs, final CpuHeadroom headroom)
    {
        if (yieldWindowNs < 0)
        {
            throw new IllegalArgumentException("yield window must not be negative: " + yieldWindowNs);
        }
        this.yieldWindowNs = yieldWindowNs;
        this.headroom = headroom;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount <= 0)
        {
            idle();
        }
        else
        {
            reset();
        }
    }

    @Override
    public void idle()
    {
        if (owner == null)
        {
            owner = Thread.currentThread();
            lowerTimerSlackOfCurrentThread();
            headroom.register(this);
        }
        if (spins < MAX_SPINS)
        {
            spins++;
            Thread.onSpinWait();
        }
        else if (yields < MAX_YIELDS)
        {
            yields++;
            Thread.yield();
        }
        else if (isInYieldWindow())
        {
            if (!yieldingNow)
            {
                yieldingNow = true;
                yielding = true;
            }
            yields++;
            Thread.yield();
        }
        else
        {
            stopYielding();
            parked = true;
            LockSupport.parkNanos(parkPeriodNs);
            parked = false;
            parks++;
            parkPeriodNs = Math.min(parkPeriodNs << 1, MAX_PARK_NS);
        }
    }

    private boolean isInYieldWindow()
    {
        if (yieldWindowNs == 0)
        {
            return false;
        }
        final long nowNs = System.nanoTime();
        if (yieldUntilNs == NOT_YIELDING)
        {
            // The window starts after the spins and the first yields: well under a microsecond after the work. It
            // is decided once per idle spell; closed at once when the machine has no CPU to spare.
            yieldUntilNs = headroom.allowsYielding(nowNs) ? nowNs + yieldWindowNs : nowNs;
        }
        return nowNs < yieldUntilNs;
    }

    @Override
    public void reset()
    {
        stopYielding();
        spins = 0;
        yields = 0;
        yieldUntilNs = NOT_YIELDING;
        parkPeriodNs = MIN_PARK_NS;
    }

    private void stopYielding()
    {
        if (yieldingNow)
        {
            yieldingNow = false;
            yielding = false;
        }
    }

    /**
     * @return how often this agent has parked.
     */
    long parks()
    {
        return parks;
    }

    boolean isParked()
    {
        return parked;
    }

    /**
     * @return true while the agent is in its yield window: runnable, but giving the CPU to any thread that wants it.
     */
    boolean isYielding()
    {
        return yielding;
    }

    boolean isThreadAlive()
    {
        final Thread thread = owner;
        return thread != null && thread.isAlive();
    }

    @Override
    public String alias()
    {
        return "bourse-backoff";
    }

    /**
     * Lower the calling thread's timer slack to 1 ns.
     *
     * @return whether it was lowered.
     */
    public static boolean lowerTimerSlackOfCurrentThread()
    {
        if (PRCTL == null)
        {
            return false;
        }
        try
        {
            return (int)PRCTL.invokeExact(PR_SET_TIMERSLACK, 1L) == 0;
        }
        catch (final Throwable ex)
        {
            return false;
        }
    }

    private static MethodHandle prctl()
    {
        if (!System.getProperty("os.name", "").startsWith("Linux"))
        {
            return null;
        }
        try
        {
            final Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("prctl")
                .map(address -> linker.downcallHandle(
                    address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1)))
                .orElse(null);
        }
        catch (final RuntimeException ex)
        {
            // IllegalCallerException when native access is denied: fall back to plain back-off.
            return null;
        }
    }
}
