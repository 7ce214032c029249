package io.bourse.cluster;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

/**
 * The idle strategy of every Bourse agent: spin briefly, yield, then park for growing intervals, on a thread whose
 * Linux timer slack is lowered to 1 ns the first time it idles.
 * <p>
 * Why: on two cores a busy-spinning agent starves the others, so agents must park; but Linux rounds every timed
 * sleep of a normal thread up by its timer slack (50 µs by default), so a 1 µs park really lasts ~55 µs and each
 * hop of a message through the node's agents paid that. With the slack at 1 ns a park lasts about what was asked.
 * Where {@code prctl} is unavailable (not Linux, or native access denied) the strategy is a plain back-off.
 */
public final class NodeIdleStrategy implements IdleStrategy
{
    private static final int PR_SET_TIMERSLACK = 29;
    private static final MethodHandle PRCTL = prctl();

    private final BackoffIdleStrategy backoff;
    private boolean slackLowered;

    /**
     * The default: 20 spins, 10 yields, parks from 1 µs to {@code maxParkNs}.
     *
     * @param maxParkNs longest park: bounds both the wake-up delay of an idle agent and its CPU use when idle.
     */
    public NodeIdleStrategy(final long maxParkNs)
    {
        backoff = new BackoffIdleStrategy(20, 10, TimeUnit.MICROSECONDS.toNanos(1), maxParkNs);
    }

    /**
     * The node's default: parks of at most 100 µs, which keeps an idle node's wake-ups (a few thousand a second per
     * agent) cheap next to the gateways sharing its two cores.
     */
    public NodeIdleStrategy()
    {
        this(TimeUnit.MICROSECONDS.toNanos(100));
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
            backoff.reset();
        }
    }

    @Override
    public void idle()
    {
        if (!slackLowered)
        {
            slackLowered = true;
            lowerTimerSlackOfCurrentThread();
        }
        backoff.idle();
    }

    @Override
    public void reset()
    {
        backoff.reset();
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
