package io.bourse.cluster;

import io.bourse.protocol.codec.Side;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The clients in a single node's JVM (the gateways of {@code run}) take their answers over shared memory. Every batch
 * goes to every client, and a publication runs no further ahead than its slowest reader (half the node's 8 MiB IPC
 * term): each client has an egress stream of its own, so one that stops reading, a gateway whose thread is stalled,
 * falls behind alone while the others go on.
 */
class IpcEgressTest
{
    private static final int ORDERS = 40_000;
    private static final int ROUND = 500;

    @Test
    void aClientThatStopsReadingHoldsUpNoOtherClientOfTheNode()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            cluster.awaitLeader();
            try (TestClient stalled = new TestClient(cluster.node(0).clientContext());
                TestClient trader = new TestClient(cluster.node(0).clientContext()))
            {
                stalled.awaitConnected();
                trader.awaitConnected();
                new ReferenceWorkload(7).setUp(trader);
                trader.awaitAllAnswered();

                // From here on nothing reads the stalled client's stream. Its batches alone are more than the half
                // term a stream may run ahead: about 10 MB.
                final long startNs = System.nanoTime();
                for (int i = 0; i < ORDERS; i++)
                {
                    final long account = 1 + i % ReferenceWorkload.ACCOUNTS;
                    trader.send(trader.encoder.limit(trader.buffer, 0, account, 1_000_000 + i,
                        ReferenceWorkload.BTC_USD, Side.BUY, 5_000 - i % 1_000, 1));
                    if (i % ROUND == ROUND - 1)
                    {
                        trader.awaitAllAnswered();
                    }
                }
                trader.awaitAllAnswered();
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
                System.out.printf("IpcEgressTest: %d orders answered in %d ms, %d gaps, beside a client reading nothing%n",
                    ORDERS, elapsedMs, trader.gaps);
                assertEquals(0, trader.gaps, "batches the trader missed");
            }
        }
    }
}
