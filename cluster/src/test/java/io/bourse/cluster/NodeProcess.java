package io.bourse.cluster;

import io.aeron.archive.ArchiveTool;
import io.aeron.cluster.ClusterTool;
import io.aeron.cluster.service.Cluster;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One {@link ClusterNode} in a process of its own, for tests that kill it with {@code kill -9}.
 * <p>
 * Arguments: data directory, port base, Aeron directory. Prints {@value #READY} once the node leads, then obeys
 * lines on stdin: {@code state <clientId>} prints
 * {@code state <appliedLogPosition> <engineStateHash> <lastRequestSequenceOfClient> <openOrders>}, all of one log
 * position whatever the traffic (see {@link ExchangeService#probeState}); {@code stop} shuts down cleanly (with the shutdown snapshot) and exits.
 */
public final class NodeProcess
{
    public static final String READY = "node-ready";
    static final String STATE = "state";
    static final String STOPPED = "node-stopped";

    private static final long LEADER_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    private NodeProcess()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final ClusterNode node = ClusterNode.launch(new ClusterNode.Context()
            .dataDir(new File(args[0]))
            .portBase(Integer.parseInt(args[1]))
            .aeronDirectoryName(args[2])
            .log(out));
        final long deadlineNs = System.nanoTime() + LEADER_TIMEOUT_NS;
        while (node.role() != Cluster.Role.LEADER)
        {
            if (System.nanoTime() > deadlineNs)
            {
                out.println("node did not become leader within 60 s; its threads:");
                // What recovery is waiting for: the consensus module's and the service's stacks say where it stopped.
                Thread.getAllStackTraces().forEach((thread, stack) ->
                {
                    out.println("  thread " + thread.getName() + " (" + thread.getState() + ")");
                    for (final StackTraceElement frame : stack)
                    {
                        out.println("    at " + frame);
                    }
                });
                out.println("the cluster components' error logs:");
                ClusterTool.errors(out, node.context().clusterDir());
                ArchiveTool.printErrors(out, node.context().archiveDir());
                node.abort();
                System.exit(1);
            }
            Thread.sleep(1);
        }
        out.println(READY);

        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null)
        {
            if (line.startsWith(STATE + " "))
            {
                final long clientId = Long.parseLong(line.substring(STATE.length() + 1));
                final ExchangeService.State state = node.service().probeState(clientId).get(30, TimeUnit.SECONDS);
                out.println(STATE + " " + state.logPosition() + " " + state.engineStateHash() + " " +
                    state.lastRequestSequence() + " " + state.openOrders());
            }
            else if (line.equals("stop"))
            {
                break;
            }
        }
        node.close();
        out.println(STOPPED);
        System.exit(0);
    }
}
