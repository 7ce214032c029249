package io.bourse.cluster;

import org.agrona.IoUtil;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node process paused for longer than Aeron's timeouts (10 s: a frozen VM, a stop-the-world pause, a starved
 * container) finds, when it goes on, that Aeron has closed the clients of its components, and its consensus module and
 * service terminate. Left up without them the process would look healthy to a supervisor and answer nothing; it stops
 * instead with the fatal exit code, saying why, and restarted on its directory it has every command it acknowledged.
 */
class NodePauseTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    /**
     * Past Aeron's default driver timeout and client liveness timeout, both 10 s.
     */
    private static final long PAUSE_MS = 12_000;

    @Test
    void aNodePausedPastAeronsTimeoutsStopsWithTheFatalExitCodeAndRecoversWhenRestarted() throws Exception
    {
        final Path baseDir = Files.createTempDirectory("bourse-node-pause");
        final File dataDir = baseDir.resolve("node").toFile();
        final String aeronDir = new File(new File("/dev/shm").isDirectory() ? "/dev/shm" : baseDir.toString(),
            "bourse-node-pause-" + ProcessHandle.current().pid()).getPath();
        final int portBase = TestCluster.freePortBase(1);
        final ReferenceWorkload workload = new ReferenceWorkload(System.nanoTime());
        JavaChildProcess node = startNode(dataDir, portBase, aeronDir);
        try (TestClient trader = new TestClient("0=localhost:" + portBase, UnaryOperator.identity()))
        {
            trader.awaitConnected();
            workload.setUp(trader);
            workload.trade(trader, 100);
            trader.awaitAllAnswered();

            node.signal("STOP");
            TestCluster.sleepMs(PAUSE_MS);
            node.signal("CONT");
            assertEquals(FatalErrors.EXIT_CODE, node.awaitExitCode(), "the paused node's exit code");
            // Whichever comes first: a component's report of its Aeron client's timeout, or its termination.
            assertTrue(node.hasPrinted("stops (restarted, it recovers from its journal)"), "the node says it stops");

            node = startNode(dataDir, portBase, aeronDir);
            node.send(NodeProcess.STATE + " 0");
            final String[] state = node.awaitLine(NodeProcess.STATE + " ", TIMEOUT_NS).split(" ");
            assertEquals(workload.reference.stateHash(), Long.parseLong(state[2]),
                "every acknowledged command recovered; seed " + workload.seed());
        }
        finally
        {
            node.kill();
            IoUtil.delete(new File(aeronDir), true);
            IoUtil.delete(baseDir.toFile(), true);
        }
    }

    private static JavaChildProcess startNode(final File dataDir, final int portBase, final String aeronDir)
    {
        return JavaChildProcess.start("node", List.of("-Xms128m", "-Xmx128m", "-XX:+UseSerialGC"),
            NodeProcess.class.getName(), List.of(dataDir.getPath(), Integer.toString(portBase), aeronDir),
            NodeProcess.READY, TIMEOUT_NS);
    }
}
