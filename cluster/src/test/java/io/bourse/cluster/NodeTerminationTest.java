package io.bourse.cluster;

import io.aeron.Aeron;
import io.aeron.cluster.ClusterControl;
import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node whose consensus module and service terminate while the node is not closing cannot go on, and must not stay
 * up looking healthy: it hands that to its fatal-error action (by default a halt with exit code 70). Here the cluster
 * is shut down by another tool, as Aeron's {@code ClusterTool} would, through the cluster's control toggle. (A node
 * paused past Aeron's timeouts is in {@link NodePauseTest}.) A node that closes itself does not count.
 */
class NodeTerminationTest
{
    @Test
    void aClusterShutDownByAnotherToolStopsTheNodeThroughItsFatalErrorAction()
    {
        final List<Throwable> fatal = new CopyOnWriteArrayList<>();
        try (TestCluster cluster = new TestCluster(1, context -> context.onFatalError(fatal::add)))
        {
            cluster.startAll();
            cluster.awaitLeader();
            try (Aeron tool = Aeron.connect(new Aeron.Context()
                .aeronDirectoryName(cluster.node(0).context().aeronDirectoryName())
                .errorHandler(error -> System.err.println("tool: " + error))))
            {
                final AtomicCounter toggle = ClusterControl.findControlToggle(tool.countersReader(), 0);
                assertTrue(ClusterControl.ToggleState.SHUTDOWN.toggle(toggle), "the shutdown toggle was taken");
            }
            TestCluster.await(() -> "the node's fatal-error action, called " + fatal, () -> !fatal.isEmpty());
            TestCluster.sleepMs(200);
            assertEquals(1, fatal.size(), "one fatal-error action, whichever component ended first: " + fatal);
            assertTrue(cluster.logLines().stream().anyMatch(line -> line.contains(
                "terminated while the node was not closing; the node stops (restarted, it recovers from its " +
                "journal)")), "the node says why it stops");
        }
    }

    @Test
    void aNodeThatClosesItselfDoesNotCallItsFatalErrorAction()
    {
        final List<Throwable> fatal = new CopyOnWriteArrayList<>();
        try (TestCluster cluster = new TestCluster(1, context -> context.onFatalError(fatal::add)))
        {
            cluster.startAll();
            cluster.awaitLeader();
            cluster.stop(0);
            assertEquals(List.of(), fatal);
        }
    }
}
