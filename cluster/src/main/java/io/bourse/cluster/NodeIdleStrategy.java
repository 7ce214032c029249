package io.bourse.cluster;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The idle strategy of every Bourse agent: spin briefly, optionally yield for a while, then park for growing
 * intervals, on a thread whose Linux timer slack is lowered to 1 ns and whose scheduler slice is shortened to 0.1 ms
 * ({@link SchedulerSlice}) the first time it idles.
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
 * <p>
 * When commands come further apart than the window, the agents park between them anyway. The first agent to find work
 * after a lull wakes the other parked agents of the JVM ({@link IdleAgents}), which start their back-off (and
 * window) again: the command crosses them without waiting out their parks. Agents that such wake-ups keep finding
 * idle are left out until they have work of their own.
 * <p>
 * Once no client has been active in the JVM for a while ({@link ClientActivity}; a second by default, configuration
 * {@code agent.idle.deep.ms}), an agent parks for up to a millisecond instead of 0.1 ms: an idle exchange's agents
 * otherwise wake some ten thousand times a second each, half a core between them for nothing. What it costs is paid
 * once per quiet spell, by the first command after it, at the one agent it reaches first; that agent wakes the others.
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
     * An agent that commands do not pass through (an idle gateway, a driver's conductor) would otherwise be woken by
     * every burst; after this many wake-ups that found nothing it is left to its own back-off.
     */
    private static final int MAX_USELESS_PEER_WAKE_UPS = 4;
    /**
     * Work after at least this long without any wakes the parked peers. Longer than the node's yield window, so that
     * commands close enough together to find the agents awake (10,000/s and more) wake nobody: waking agents that are
     * not needed only adds threads competing for the cores.
     */
    private static final long LULL_NS = TimeUnit.MICROSECONDS.toNanos(150);
    private static final long NO_LULL = Long.MIN_VALUE;

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

    /**
     * Longest park once the agent is in a deep idle: a tenth of the wake-ups, for at most a millisecond's delay.
     */
    private static final long DEEP_IDLE_MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * How long without client activity before an agent parks for up to {@link #DEEP_IDLE_MAX_PARK_NS}, unless
     * configured otherwise: commands a second or less apart never meet a deep idle.
     */
    public static final long DEFAULT_DEEP_IDLE_AFTER_NS = TimeUnit.SECONDS.toNanos(1);

    private final long deepIdleAfterNs;
    private final LongSupplier clientActivity;
    private long clientActivitySeen;
    private long clientActivitySeenNs;

    private final long yieldWindowNs;
    private final CpuHeadroom headroom;
    private final NanoClock clock;
    private final IdleAgents peers;
    /**
     * Written once, before the first write of {@link #parked}: a peer that reads parked as true sees it.
     */
    private Thread owner;
    private volatile boolean parked;
    /**
     * Set by a peer that unparked this agent because it found work: the park ends the back-off.
     */
    private volatile boolean wokenByPeer;
    /**
     * Whether a peer woke this agent since it last had work.
     */
    private boolean wokenSinceWork;
    /**
     * When the spins and the first yields ran out without work, kept through peer wake-ups until work comes; {@link
     * #NO_LULL} otherwise.
     */
    private long lullStartNs = NO_LULL;
    /**
     * Peer wake-ups in a row after which this agent went through a whole back-off without work; written by the owner
     * only, read by peers: at {@link #MAX_USELESS_PEER_WAKE_UPS} peers stop waking it until it has work of its own.
     */
    private volatile int uselessPeerWakeUps;
    private volatile boolean yielding;
    /**
     * The owner's own copy of {@link #yielding}, so that the volatile is written only when it changes.
     */
    private boolean yieldingNow;
    /**
     * Written by the owner only; volatile so that a test can wait for another thread's agent to park.
     */
    private volatile long parks;
    private volatile long peerWakeUps;
    private int spins;
    private int yields;
    private long yieldUntilNs = NOT_YIELDING;
    private long parkPeriodNs = MIN_PARK_NS;

    /**
     * The default: 20 spins, 10 yields, then parks from 1 µs to 100 µs, and up to 1 ms after a second without client
     * activity.
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
        this(yieldWindowNs, DEFAULT_DEEP_IDLE_AFTER_NS);
    }

    /**
     * @param yieldWindowNs   as for {@link #NodeIdleStrategy(long)}.
     * @param deepIdleAfterNs how long without {@link ClientActivity} before the agent parks for up to 1 ms; 0 for
     *                        never.
     */
    public NodeIdleStrategy(final long yieldWindowNs, final long deepIdleAfterNs)
    {
        this(yieldWindowNs, deepIdleAfterNs, ClientActivity::notes, CpuHeadroom.MACHINE, SystemNanoClock.INSTANCE);
    }

    NodeIdleStrategy(final long yieldWindowNs, final CpuHeadroom headroom)
    {
        this(yieldWindowNs, headroom, SystemNanoClock.INSTANCE);
    }

    /**
     * @param clock what lulls and the yield window are timed by: a test's own clock makes them independent of how the
     *              scheduler treats the test's threads.
     */
    NodeIdleStrategy(final long yieldWindowNs, final CpuHeadroom headroom, final NanoClock clock)
    {
        this(yieldWindowNs, DEFAULT_DEEP_IDLE_AFTER_NS, ClientActivity::notes, headroom, clock);
    }

    /**
     * @param clientActivity what {@link ClientActivity#notes()} is for the JVM: a test's own.
     */
    NodeIdleStrategy(
        final long yieldWindowNs,
        final long deepIdleAfterNs,
        final LongSupplier clientActivity,
        final CpuHeadroom headroom,
        final NanoClock clock)
    {
        if (yieldWindowNs < 0)
        {
            throw new IllegalArgumentException("yield window must not be negative: " + yieldWindowNs);
        }
        if (deepIdleAfterNs < 0)
        {
            throw new IllegalArgumentException("deep idle delay must not be negative: " + deepIdleAfterNs);
        }
        this.yieldWindowNs = yieldWindowNs;
        this.deepIdleAfterNs = deepIdleAfterNs;
        this.clientActivity = clientActivity;
        this.clientActivitySeen = clientActivity.getAsLong();
        this.clientActivitySeenNs = clock.nanoTime();
        this.headroom = headroom;
        this.clock = clock;
        this.peers = headroom.agents();
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
            if (lullStartNs != NO_LULL)
            {
                if (clock.nanoTime() - lullStartNs >= LULL_NS)
                {
                    // Work after a lull longer than the node's yield window: the start of a burst the others,
                    // parked by now, would each wait out a park for.
                    peers.wakeAllBut(this);
                }
                lullStartNs = NO_LULL;
            }
            if (wokenSinceWork || uselessPeerWakeUps != 0)
            {
                wokenSinceWork = false;
                uselessPeerWakeUps = 0;
            }
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
            SchedulerSlice.applyToCurrentThread(SchedulerSlice.AGENT_SLICE_NS);
            peers.register(this);
        }
        if (spins < MAX_SPINS)
        {
            spins++;
            Thread.onSpinWait();
        }
        else if (yields < MAX_YIELDS)
        {
            yields++;
            if (yields == MAX_YIELDS && lullStartNs == NO_LULL)
            {
                lullStartNs = clock.nanoTime();
            }
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
            if (wokenByPeer)
            {
                // Work is coming this way: start the back-off again, window included, rather than park longer.
                wokenByPeer = false;
                peerWakeUps++;
                wokenSinceWork = true;
                reset();
            }
            else
            {
                if (wokenSinceWork && parkPeriodNs >= MAX_PARK_NS)
                {
                    // Woken, and a whole back-off passed without work: this agent is not on the path of what woke it.
                    wokenSinceWork = false;
                    uselessPeerWakeUps++;
                }
                parkPeriodNs = Math.min(parkPeriodNs << 1, isInDeepIdle() ? DEEP_IDLE_MAX_PARK_NS : MAX_PARK_NS);
            }
        }
    }

    /**
     * Read only once parks have grown to their usual longest, so never while commands keep the agent busy.
     */
    private boolean isInDeepIdle()
    {
        if (deepIdleAfterNs == 0 || parkPeriodNs < MAX_PARK_NS)
        {
            return false;
        }
        final long nowNs = clock.nanoTime();
        final long activity = clientActivity.getAsLong();
        if (activity != clientActivitySeen)
        {
            clientActivitySeen = activity;
            clientActivitySeenNs = nowNs;
            return false;
        }
        return nowNs - clientActivitySeenNs >= deepIdleAfterNs;
    }

    private boolean isInYieldWindow()
    {
        if (yieldWindowNs == 0)
        {
            return false;
        }
        final long nowNs = clock.nanoTime();
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

    /**
     * @return how long the next park lasts, unless a peer ends it.
     */
    long parkPeriodNs()
    {
        return parkPeriodNs;
    }

    /**
     * @return how often a peer that found work ended a park of this agent.
     */
    long peerWakeUps()
    {
        return peerWakeUps;
    }

    /**
     * @return peer wake-ups in a row that found nothing to do (0 once the agent has work).
     */
    int uselessPeerWakeUps()
    {
        return uselessPeerWakeUps;
    }

    boolean isParked()
    {
        return parked;
    }

    /**
     * Called by a peer that found work after a lull: unpark this agent if it is parked, unless its recent wake-ups
     * found nothing to do.
     */
    void wakeIfParked()
    {
        if (parked && uselessPeerWakeUps < MAX_USELESS_PEER_WAKE_UPS)
        {
            wokenByPeer = true;
            LockSupport.unpark(owner);
        }
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
