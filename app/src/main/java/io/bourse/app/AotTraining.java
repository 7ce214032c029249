package io.bourse.app;

import io.aeron.cluster.service.Cluster;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.OrderFlow;
import io.bourse.cluster.client.ExchangeClient;
import org.agrona.CloseHelper;
import org.agrona.ExpandableArrayBuffer;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The workload that trains the JVM's AOT cache of the app's jar ({@code ./bourse} runs {@code bourse aot-training}
 * once per build with {@code -XX:AOTCacheOutput}). A cache holds the classes the training loaded and linked and the
 * method profiles it gathered, so the paths it runs hot are the ones a later start gets ahead: a node's start, live
 * order flow through the client, sequencer and engine, a snapshot, and above all recovery (a snapshot load and a long
 * log replay after a crash), which is what a restart waits for. A few seconds of order flow would train the replay
 * path too little to help it; this is a few hundred thousand commands.
 */
final class AotTraining
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(120);
    private static final int COMMANDS = 400_000;
    private static final int IN_FLIGHT = 4096;

    private final OrderFlow flow = new OrderFlow(1);
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);

    private AotTraining()
    {
    }

    /**
     * Run the training on a fresh data directory: order flow with a snapshot half way, a crash (no shutdown snapshot),
     * then recovery by a second node in the same JVM, stopped cleanly.
     *
     * @param contexts a new node context for the scratch data directory at each call.
     */
    static void run(final Supplier<ClusterNode.Context> contexts, final PrintStream out)
    {
        final long startNs = System.nanoTime();
        final ClusterNode node = ClusterNode.launch(contexts.get());
        try
        {
            new AotTraining().orderFlow(node);
        }
        finally
        {
            node.abort();
        }
        final ClusterNode recovered = ClusterNode.launch(contexts.get());
        try
        {
            await("the recovered node to lead", () -> recovered.role() == Cluster.Role.LEADER);
        }
        finally
        {
            CloseHelper.close(recovered);
        }
        out.printf("bourse: AOT training done: %,d commands, a snapshot, a crash and a recovery, in %.1f s%n",
            COMMANDS, (System.nanoTime() - startNs) / 1e9);
    }

    private void orderFlow(final ClusterNode node)
    {
        await("the node to lead", () -> node.role() == Cluster.Role.LEADER);
        final ExchangeClient client = new ExchangeClient(node.clientContext().listener(
            (batchSequence, logPosition, timestampNs, clientId, requestSequence, events, offset, length, count) ->
            {
            }));
        try
        {
            await("the client to connect", () ->
            {
                client.doWork();
                return client.isConnected();
            });
            int length;
            while ((length = flow.nextSetUp(buffer)) > 0)
            {
                send(client, length);
            }
            for (int i = 0; i < COMMANDS; i++)
            {
                send(client, flow.next(buffer));
                if (i == COMMANDS / 2)
                {
                    final long snapshots = node.snapshotCount();
                    await("the snapshot request to be sent", node::requestSnapshot);
                    await("a snapshot", () -> node.snapshotCount() > snapshots);
                }
            }
            await("every command answered", () ->
            {
                client.doWork();
                return client.unansweredCount() == 0;
            });
        }
        finally
        {
            CloseHelper.close(client);
        }
    }

    private void send(final ExchangeClient client, final int length)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (client.unansweredCount() >= IN_FLIGHT || client.trySend(buffer, 0, length) < 0)
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("AOT training: the node stopped answering");
            }
            if (client.doWork() == 0)
            {
                Thread.yield();
            }
        }
        client.doWork();
    }

    private static void await(final String what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("AOT training: timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
