package io.bourse.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeIdleStrategyTest
{
    private static final int PR_GET_TIMERSLACK = 30;

    @Test
    @EnabledOnOs(OS.LINUX)
    void theFirstIdleLowersTheTimerSlackOfTheIdlingThreadOnly() throws Exception
    {
        final AtomicInteger before = new AtomicInteger();
        final AtomicInteger after = new AtomicInteger();
        final Thread agent = new Thread(() ->
        {
            before.set(timerSlackNs());
            final NodeIdleStrategy idle = new NodeIdleStrategy();
            idle.idle(0);
            after.set(timerSlackNs());
        });
        agent.start();
        agent.join(10_000);

        assertTrue(before.get() > 1, "a new thread starts with the default slack, got " + before.get());
        assertEquals(1, after.get());
        assertTrue(timerSlackNs() > 1, "the test thread's own slack is unchanged");
    }

    @Test
    void anAgentThatFindsWorkAfterItParkedWakesItsParkedPeers() throws Exception
    {
        final ParkedAgents peers = new ParkedAgents();
        final NodeIdleStrategy sleeper = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final NodeIdleStrategy worker = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread sleeperThread = idleUntil(stop, sleeper);
        try
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (sleeper.peerWakeUps() == 0 && System.nanoTime() < deadlineNs)
            {
                wakePeersAfterALull(worker);
            }
            assertTrue(sleeper.peerWakeUps() > 0, "the parked peer was never woken within 10 s");
            assertEquals(0, worker.peerWakeUps(), "an agent does not wake itself");
        }
        finally
        {
            stop.set(true);
            sleeperThread.join(10_000);
        }
    }

    @Test
    void workAfterAShortLullWakesNobody() throws Exception
    {
        final ParkedAgents peers = new ParkedAgents();
        final NodeIdleStrategy sleeper = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final NodeIdleStrategy worker = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread sleeperThread = idleUntil(stop, sleeper);
        try
        {
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            while (System.nanoTime() < untilNs)
            {
                final long lullEndNs = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(20);
                while (System.nanoTime() < lullEndNs)
                {
                    worker.idle(0);
                }
                worker.idle(1);
            }
            assertTrue(sleeper.parks() > 0, "the peer parked meanwhile");
            assertEquals(0, sleeper.peerWakeUps(), "commands 20 µs apart find the agents awake: nobody is woken");
        }
        finally
        {
            stop.set(true);
            sleeperThread.join(10_000);
        }
    }

    @Test
    void anAgentThatKeepsFindingWorkWakesNobody() throws Exception
    {
        final ParkedAgents peers = new ParkedAgents();
        final NodeIdleStrategy sleeper = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final NodeIdleStrategy worker = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread sleeperThread = idleUntil(stop, sleeper);
        try
        {
            worker.idle(0);
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            while (System.nanoTime() < untilNs)
            {
                worker.idle(1);
            }
            assertTrue(sleeper.parks() > 0, "the peer parked meanwhile");
            assertEquals(0, sleeper.peerWakeUps());
        }
        finally
        {
            stop.set(true);
            sleeperThread.join(10_000);
        }
    }

    @Test
    void anAgentThatPeersKeepWakingForNothingIsLeftOutUntilItHasWorkOfItsOwn() throws Exception
    {
        final ParkedAgents peers = new ParkedAgents();
        final NodeIdleStrategy sleeper = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final NodeIdleStrategy worker = new NodeIdleStrategy(0, NO_HEADROOM, peers);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicBoolean sleeperWork = new AtomicBoolean();
        final Thread sleeperThread = new Thread(() ->
        {
            while (!stop.get())
            {
                sleeper.idle(sleeperWork.getAndSet(false) ? 1 : 0);
            }
        }, "idle-peer");
        sleeperThread.start();
        try
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (sleeper.uselessPeerWakeUps() < 4 && System.nanoTime() < deadlineNs)
            {
                wakePeersAfterALull(worker);
            }
            assertEquals(4, sleeper.uselessPeerWakeUps(), "wake-ups that found nothing, within 10 s");

            final long wakeUps = sleeper.peerWakeUps();
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            while (System.nanoTime() < untilNs)
            {
                wakePeersAfterALull(worker);
            }
            assertEquals(wakeUps, sleeper.peerWakeUps(), "left out while it has no work of its own");

            sleeperWork.set(true);
            while (sleeper.uselessPeerWakeUps() != 0 && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(1);
            }
            assertEquals(0, sleeper.uselessPeerWakeUps(), "its own work counts it in again");
            while (sleeper.peerWakeUps() == wakeUps && System.nanoTime() < deadlineNs)
            {
                wakePeersAfterALull(worker);
            }
            assertTrue(sleeper.peerWakeUps() > wakeUps, "woken again within 10 s");
        }
        finally
        {
            stop.set(true);
            sleeperThread.join(10_000);
        }
    }

    /**
     * Idle for longer than a lull that wakes peers (and park at least once), then find work.
     */
    private static void wakePeersAfterALull(final NodeIdleStrategy worker)
    {
        final long parks = worker.parks();
        final long lullEndNs = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(200);
        while (worker.parks() == parks || System.nanoTime() < lullEndNs)
        {
            worker.idle(0);
        }
        worker.idle(1);
    }

    private static final CpuHeadroom NO_HEADROOM = new CpuHeadroom(Path.of("/nonexistent/loadavg"));

    private static Thread idleUntil(final AtomicBoolean stop, final NodeIdleStrategy idle)
    {
        final Thread thread = new Thread(() ->
        {
            while (!stop.get())
            {
                idle.idle(0);
            }
        }, "idle-peer");
        thread.start();
        return thread;
    }

    private static int timerSlackNs()
    {
        final Linker linker = Linker.nativeLinker();
        final MethodHandle prctl = linker.downcallHandle(
            linker.defaultLookup().find("prctl").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(1));
        try
        {
            return (int)prctl.invokeExact(PR_GET_TIMERSLACK);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
