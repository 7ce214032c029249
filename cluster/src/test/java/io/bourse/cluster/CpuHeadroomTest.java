package io.bourse.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuHeadroomTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void readsTheRunnableThreadsFromALoadAverageLine()
    {
        assertEquals(3, parse("0.52 0.58 0.59 3/1123 45678\n"));
        assertEquals(12, parse("10.00 9.00 8.00 12/345 6\n"));
        assertEquals(-1, parse("0.52 0.58 0.59\n"));
        assertEquals(-1, parse("0.52 0.58 0.59 x/12 3\n"));
    }

    @Test
    void allowsYieldingOnceSamplesShowNothingElseRunnable() throws IOException
    {
        final CpuHeadroom headroom = new CpuHeadroom(loadAverage(0));

        assertFalse(headroom.allowsYielding(0), "no yielding before the samples say the machine is idle");
        long nowNs = 0;
        for (int i = 0; i < 10; i++)
        {
            nowNs += MS;
            headroom.allowsYielding(nowNs);
        }
        assertTrue(headroom.allowsYielding(nowNs + MS), "average " + headroom.othersRunnableAverage());
    }

    @Test
    void refusesYieldingWhileAnotherThreadWantsTheCpu() throws IOException
    {
        final CpuHeadroom headroom = new CpuHeadroom(loadAverage(1));
        long nowNs = 0;
        for (int i = 0; i < 100; i++)
        {
            nowNs += MS;
            assertFalse(headroom.allowsYielding(nowNs), "sample " + i);
        }
    }

    @Test
    void samplesAtMostOnceAMillisecond() throws IOException
    {
        final CpuHeadroom headroom = new CpuHeadroom(loadAverage(0));
        for (int i = 0; i < 1000; i++)
        {
            headroom.allowsYielding(i);
        }
        assertTrue(headroom.othersRunnableAverage() > 200, "one sample only moves the average an eighth of the way, " +
            "got " + headroom.othersRunnableAverage());
    }

    @Test
    void theAwakeAgentsOfThisJvmAreNotCountedAsOtherLoad() throws IOException
    {
        final Path file = loadAverage(1);
        final CpuHeadroom headroom = new CpuHeadroom(file);
        final NodeIdleStrategy agent = new NodeIdleStrategy(TimeUnit.SECONDS.toNanos(1), headroom);
        agent.idle(0);

        long nowNs = 0;
        for (int i = 0; i < 20; i++)
        {
            nowNs += MS;
            headroom.allowsYielding(nowNs);
        }
        assertTrue(headroom.allowsYielding(nowNs + MS), "the one runnable thread is this test's awake agent");
        Reference.reachabilityFence(agent);
    }

    @Test
    void anAgentParksAtOnceInsteadOfYieldingWhenTheMachineIsBusy() throws IOException
    {
        final CpuHeadroom headroom = new CpuHeadroom(loadAverage(5));
        final NodeIdleStrategy agent = new NodeIdleStrategy(TimeUnit.SECONDS.toNanos(60), headroom);

        for (int i = 0; i < 40; i++)
        {
            agent.idle(0);
        }
        assertEquals(10, agent.parks(), "20 spins, 10 yields, then parks: no yield window");
    }

    @Test
    void anAgentYieldsThroughItsWindowWhenTheMachineIsIdle() throws IOException
    {
        final CpuHeadroom headroom = new CpuHeadroom(loadAverage(1));
        final NodeIdleStrategy agent = new NodeIdleStrategy(TimeUnit.SECONDS.toNanos(60), headroom);
        agent.idle(0);
        for (long nowNs = MS; nowNs < 30 * MS; nowNs += MS)
        {
            headroom.allowsYielding(nowNs);
        }

        for (int i = 0; i < 1000; i++)
        {
            agent.idle(0);
        }
        assertEquals(0, agent.parks(), "a 60 s window of yields");
    }

    @Test
    void isSaturatedWhileMoreThreadsThanCoresWantToRunBesidesTheCaller() throws IOException
    {
        final Path file = loadAverage(4);
        final CpuHeadroom headroom = new CpuHeadroom(file, 2);
        long nowNs = 0;
        for (int i = 0; i < 30; i++)
        {
            nowNs += MS;
            headroom.isSaturated(nowNs);
        }
        assertTrue(headroom.isSaturated(nowNs + MS), "the caller and three more threads on two cores, average " +
            headroom.demandAverage());

        loadAverage(2);
        for (int i = 0; i < 30; i++)
        {
            nowNs += MS;
            headroom.isSaturated(nowNs);
        }
        assertFalse(headroom.isSaturated(nowNs + MS), "the caller and one more thread, average " +
            headroom.demandAverage());
    }

    @Test
    void agentsInTheirYieldWindowDoNotSaturateTheMachine() throws IOException
    {
        final CpuHeadroom headroom = new CpuHeadroom(loadAverage(4), 2);
        final List<NodeIdleStrategy> agents = new ArrayList<>();
        for (int i = 0; i < 4; i++)
        {
            final NodeIdleStrategy agent = new NodeIdleStrategy(TimeUnit.SECONDS.toNanos(60), headroom);
            agent.idle(0);
            agents.add(agent);
        }
        // The agents decide on their window at System.nanoTime(): the samples here follow on from it.
        long nowNs = System.nanoTime();
        for (int i = 0; i < 30; i++)
        {
            nowNs += MS;
            headroom.allowsYielding(nowNs);
        }
        for (final NodeIdleStrategy agent : agents)
        {
            for (int i = 0; i < 40; i++)
            {
                agent.idle(0);
            }
            assertTrue(agent.isYielding());
        }
        for (int i = 0; i < 30; i++)
        {
            nowNs += MS;
            headroom.isSaturated(nowNs);
        }
        assertFalse(headroom.isSaturated(nowNs + MS), "four runnable threads, all agents yielding, average " +
            headroom.demandAverage());

        agents.forEach(NodeIdleStrategy::reset);
        for (int i = 0; i < 30; i++)
        {
            nowNs += MS;
            headroom.isSaturated(nowNs);
        }
        assertTrue(headroom.isSaturated(nowNs + MS), "the same four working, average " + headroom.demandAverage());
        assertFalse(agents.get(0).isYielding());
    }

    @Test
    void withoutALoadAverageTheWindowIsNeverAllowed()
    {
        final CpuHeadroom headroom = new CpuHeadroom(dir.resolve("missing"));
        for (int i = 1; i <= 100; i++)
        {
            assertFalse(headroom.allowsYielding(i * MS));
            assertFalse(headroom.isSaturated(i * MS), "background work does not wait on a signal it cannot read");
        }
    }

    private Path loadAverage(final int runnable) throws IOException
    {
        final Path file = dir.resolve("loadavg");
        Files.writeString(file, "0.10 0.20 0.30 " + runnable + "/321 4567\n");
        return file;
    }

    private static int parse(final String line)
    {
        final byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
        return CpuHeadroom.parseRunnable(ByteBuffer.wrap(bytes), bytes.length);
    }
}
