package io.bourse.cluster;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class NodeIdleStrategyTest
{
    private static final int PR_SET_TIMERSLACK = 29;
    private static final int PR_GET_TIMERSLACK = 30;
    private static final long MAX_PARK_NS = TimeUnit.MICROSECONDS.toNanos(100);
    private static final long DEEP_IDLE_MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    @EnabledOnOs(OS.LINUX)
    void theFirstIdleLowersTheTimerSlackOfTheIdlingThreadOnly() throws Exception
    {
        // Threads inherit their creator's slack, and this one may have idled in another test: 0 restores the default.
        restoreDefaultTimerSlack();
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

    /**
     * Per-thread slices came with Linux 6.12; /proc shows a thread's slice in its {@code sched} file.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void theFirstIdleShortensTheSchedulerSliceOfTheIdlingThreadOnly() throws Exception
    {
        final String[] version = System.getProperty("os.version").split("[.-]");
        assumeTrue(Integer.parseInt(version[0]) * 100 + Integer.parseInt(version[1]) >= 612,
            "per-thread scheduler slices need Linux 6.12, this is " + System.getProperty("os.version"));
        // Threads inherit their creator's slice, and this one may have idled in another test: 0 restores the default.
        assertTrue(SchedulerSlice.applyToCurrentThread(0));
        final AtomicLong before = new AtomicLong();
        final AtomicLong after = new AtomicLong();
        final Thread agent = new Thread(() ->
        {
            before.set(schedulerSliceNs());
            new NodeIdleStrategy().idle(0);
            after.set(schedulerSliceNs());
        });
        agent.start();
        agent.join(10_000);

        assertTrue(before.get() > SchedulerSlice.AGENT_SLICE_NS, "a new thread starts with the default slice, got " +
            before.get());
        assertEquals(SchedulerSlice.AGENT_SLICE_NS, after.get());
        assertTrue(schedulerSliceNs() > SchedulerSlice.AGENT_SLICE_NS, "the test thread's own slice is unchanged");
    }

    private static long schedulerSliceNs()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/thread-self/sched")))
            {
                if (line.startsWith("se.slice"))
                {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        throw new AssertionError("no se.slice in /proc/thread-self/sched");
    }

    @Test
    void anAgentThatFindsWorkAfterALullWakesItsParkedPeers() throws Exception
    {
        try (IdlePeers agents = new IdlePeers())
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (agents.sleeper.peerWakeUps() == 0 && System.nanoTime() < deadlineNs)
            {
                agents.workAfterALull();
            }
            assertTrue(agents.sleeper.peerWakeUps() > 0, "the parked peer was never woken within 10 s");
            assertEquals(0, agents.worker.peerWakeUps(), "an agent does not wake itself");
        }
    }

    @Test
    void workAfterAShortLullWakesNobody() throws Exception
    {
        try (IdlePeers agents = new IdlePeers())
        {
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            while (System.nanoTime() < untilNs)
            {
                agents.workAfter(TimeUnit.MICROSECONDS.toNanos(20));
            }
            assertTrue(agents.sleeper.parks() > 0, "the peer parked meanwhile");
            assertEquals(0, agents.sleeper.peerWakeUps(),
                "commands 20 µs apart find the agents awake: nobody is woken");
        }
    }

    @Test
    void anAgentThatKeepsFindingWorkWakesNobody() throws Exception
    {
        try (IdlePeers agents = new IdlePeers())
        {
            agents.worker.idle(0);
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            while (System.nanoTime() < untilNs)
            {
                agents.worker.idle(1);
            }
            assertTrue(agents.sleeper.parks() > 0, "the peer parked meanwhile");
            assertEquals(0, agents.sleeper.peerWakeUps());
        }
    }

    @Test
    void anAgentThatPeersKeepWakingForNothingIsLeftOutUntilItHasWorkOfItsOwn() throws Exception
    {
        try (IdlePeers agents = new IdlePeers())
        {
            final NodeIdleStrategy sleeper = agents.sleeper;
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (sleeper.uselessPeerWakeUps() < 4 && System.nanoTime() < deadlineNs)
            {
                agents.workAfterALull();
            }
            assertEquals(4, sleeper.uselessPeerWakeUps(), "wake-ups that found nothing, within 10 s");
            // A wake-up that raced with the end of the park that made it useless is taken at its next park.
            final long parks = sleeper.parks();
            while (sleeper.parks() < parks + 2 && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(1);
            }

            final long wakeUps = sleeper.peerWakeUps();
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            while (System.nanoTime() < untilNs)
            {
                agents.workAfterALull();
            }
            assertEquals(wakeUps, sleeper.peerWakeUps(), "left out while it has no work of its own");

            agents.sleeperWork.set(true);
            while (sleeper.uselessPeerWakeUps() != 0 && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(1);
            }
            assertEquals(0, sleeper.uselessPeerWakeUps(), "its own work counts it in again");
            while (sleeper.peerWakeUps() == wakeUps && System.nanoTime() < deadlineNs)
            {
                agents.workAfterALull();
            }
            assertTrue(sleeper.peerWakeUps() > wakeUps, "woken again within 10 s");
        }
    }

    @Test
    void aSecondWithoutClientActivityLetsParksGrowToAMillisecond()
    {
        final DeepIdleAgent agent = new DeepIdleAgent(TimeUnit.SECONDS.toNanos(1));
        agent.idleUntilParkIs(MAX_PARK_NS);
        agent.parkTimes(3);
        assertEquals(MAX_PARK_NS, agent.idle.parkPeriodNs(), "quiet for less than a second: parks stay at 0.1 ms");

        agent.clock.advance(TimeUnit.SECONDS.toNanos(1));
        agent.idleUntilParkIs(DEEP_IDLE_MAX_PARK_NS);
        agent.parkTimes(3);
        assertEquals(DEEP_IDLE_MAX_PARK_NS, agent.idle.parkPeriodNs(), "never beyond a millisecond");
    }

    @Test
    void clientActivityBringsParksBackToATenthOfAMillisecond()
    {
        final DeepIdleAgent agent = new DeepIdleAgent(TimeUnit.SECONDS.toNanos(1));
        agent.idleUntilParkIs(MAX_PARK_NS);
        agent.clock.advance(TimeUnit.SECONDS.toNanos(1));
        agent.idleUntilParkIs(DEEP_IDLE_MAX_PARK_NS);

        agent.activity.incrementAndGet();
        agent.parkTimes(1);
        assertEquals(MAX_PARK_NS, agent.idle.parkPeriodNs());
    }

    @Test
    void anAgentsOwnWorkDoesNotKeepItOutOfADeepIdle()
    {
        final DeepIdleAgent agent = new DeepIdleAgent(TimeUnit.SECONDS.toNanos(1));
        agent.idleUntilParkIs(MAX_PARK_NS);
        agent.clock.advance(TimeUnit.SECONDS.toNanos(1));
        // Timer work, as Aeron's agents have every few milliseconds: the parks start over, and still grow past 0.1 ms.
        agent.idle.idle(1);
        assertEquals(TimeUnit.MICROSECONDS.toNanos(1), agent.idle.parkPeriodNs());
        agent.idleUntilParkIs(DEEP_IDLE_MAX_PARK_NS);
    }

    @Test
    void aDeepIdleDelayOfZeroKeepsParksAtATenthOfAMillisecond()
    {
        final DeepIdleAgent agent = new DeepIdleAgent(0);
        agent.idleUntilParkIs(MAX_PARK_NS);
        agent.clock.advance(TimeUnit.HOURS.toNanos(1));
        agent.parkTimes(5);
        assertEquals(MAX_PARK_NS, agent.idle.parkPeriodNs());
    }

    /**
     * An agent idling on the test thread, with client activity and a clock of the test's own: its parks are real, the
     * time that passes without activity is what the test says.
     */
    private static final class DeepIdleAgent
    {
        final AtomicLong activity = new AtomicLong();
        final CachedNanoClock clock = new CachedNanoClock();
        final NodeIdleStrategy idle;

        DeepIdleAgent(final long deepIdleAfterNs)
        {
            idle = new NodeIdleStrategy(
                0, deepIdleAfterNs, activity::get, new CpuHeadroom(Path.of("/nonexistent/loadavg")), clock);
        }

        /**
         * Idle (parks doubling from 1 µs) until the next park is to last {@code periodNs}; fails after 100 parks.
         */
        void idleUntilParkIs(final long periodNs)
        {
            final long parks = idle.parks();
            while (idle.parkPeriodNs() != periodNs)
            {
                assertTrue(idle.parks() - parks < 100, "the next park lasts " + idle.parkPeriodNs() +
                    " ns after 100 parks, not " + periodNs);
                idle.idle(0);
            }
        }

        void parkTimes(final int count)
        {
            final long parks = idle.parks();
            while (idle.parks() < parks + count)
            {
                idle.idle(0);
            }
        }
    }

    /**
     * Two agents of one {@link CpuHeadroom} of their own (so no other test's agents among their peers), with no
     * window: a sleeper idling on its own thread (working once each time {@link #sleeperWork} is set) and a worker the
     * test drives, whose lulls are timed by the test's clock so that a descheduled test thread cannot lengthen them.
     */
    private static final class IdlePeers implements AutoCloseable
    {
        private final CpuHeadroom headroom = new CpuHeadroom(Path.of("/nonexistent/loadavg"));
        private final CachedNanoClock workerClock = new CachedNanoClock();
        final NodeIdleStrategy sleeper = new NodeIdleStrategy(0, headroom);
        final NodeIdleStrategy worker = new NodeIdleStrategy(0, headroom, workerClock);
        final AtomicBoolean sleeperWork = new AtomicBoolean();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread sleeperThread = new Thread(() ->
        {
            while (!stop.get())
            {
                sleeper.idle(sleeperWork.getAndSet(false) ? 1 : 0);
            }
        }, "idle-peer");

        IdlePeers()
        {
            sleeperThread.start();
        }

        /**
         * The worker idles for longer than a lull that wakes peers, then finds work.
         */
        void workAfterALull()
        {
            workAfter(TimeUnit.MICROSECONDS.toNanos(200));
        }

        /**
         * The worker idles until it has parked once, its clock advances by the lull, then it finds work.
         */
        void workAfter(final long lullNs)
        {
            final long parks = worker.parks();
            while (worker.parks() == parks)
            {
                worker.idle(0);
            }
            workerClock.advance(lullNs);
            worker.idle(1);
        }

        @Override
        public void close() throws InterruptedException
        {
            stop.set(true);
            sleeperThread.join(10_000);
        }
    }

    private static void restoreDefaultTimerSlack()
    {
        final Linker linker = Linker.nativeLinker();
        final MethodHandle prctl = linker.downcallHandle(
            linker.defaultLookup().find("prctl").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
        try
        {
            assertEquals(0, (int)prctl.invokeExact(PR_SET_TIMERSLACK, 0L));
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
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
