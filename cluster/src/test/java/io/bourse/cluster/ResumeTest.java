package io.bourse.cluster;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that resumes after a batch an earlier run dealt with gets every later batch, in order, from the
 * cluster's history; one that resumes from a numbering the cluster never reached takes up the cluster's and says
 * there was a gap.
 */
class ResumeTest
{
    /**
     * Every batch delivered, as sequence and log position, and the gaps reported.
     */
    private static final class Batches implements ExchangeClientListener
    {
        final List<long[]> batches = new ArrayList<>();
        final List<Long> gaps = new ArrayList<>();

        public void onEventBatch(
            final long batchSequence, final long logPosition, final long timestampNs, final long clientId,
            final long requestSequence, final DirectBuffer buffer, final int offset, final int length,
            final int eventCount)
        {
            batches.add(new long[] { batchSequence, logPosition });
        }

        public void onGap(final long fromLogPosition)
        {
            gaps.add(fromLogPosition);
        }

        long lastSequence()
        {
            return batches.isEmpty() ? 0 : batches.get(batches.size() - 1)[0];
        }
    }

    @Test
    void aResumedClientGetsTheBatchesAfterItsPositionInOrder()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            cluster.awaitLeader();
            final ReferenceWorkload workload = new ReferenceWorkload(31);
            try (TestClient trader = new TestClient(cluster))
            {
                trader.awaitConnected();
                workload.setUp(trader);
                workload.trade(trader, 100);
                trader.awaitAllAnswered();
                // The trader sees every batch, its own and others': its list is the cluster's whole stream.
                final TestClient.Batch resumePoint = trader.batches.get(trader.batches.size() / 2);
                workload.trade(trader, 100);
                trader.awaitAllAnswered();
                final long lastSequence = trader.batches.get(trader.batches.size() - 1).batchSequence();

                final Batches resumed = new Batches();
                try (ExchangeClient client = client(cluster, resumed, resumePoint.batchSequence(),
                    resumePoint.logPosition()))
                {
                    TestCluster.await("the resumed client has every batch up to " + lastSequence, () ->
                    {
                        client.doWork();
                        return resumed.lastSequence() >= lastSequence;
                    });
                }
                assertEquals(List.of(), resumed.gaps);
                assertEquals(lastSequence - resumePoint.batchSequence(), resumed.batches.size(),
                    "each batch after it, once");
                for (int i = 0; i < resumed.batches.size(); i++)
                {
                    assertEquals(resumePoint.batchSequence() + 1 + i, resumed.batches.get(i)[0], "in order");
                    assertTrue(resumed.batches.get(i)[1] > resumePoint.logPosition());
                }

                // A position from another cluster's journal: numbered beyond anything this one has made.
                final Batches foreign = new Batches();
                try (ExchangeClient client = client(cluster, foreign, lastSequence + 1_000, Long.MAX_VALUE / 2))
                {
                    awaitConnected(client);
                    workload.trade(trader, 10);
                    TestCluster.await("the client takes up the cluster's numbering", () ->
                    {
                        client.doWork();
                        trader.client.doWork();
                        return !foreign.batches.isEmpty();
                    });
                }
                assertEquals(1, foreign.gaps.size(), "the client says it has missed what came before");
                assertTrue(foreign.batches.get(0)[0] > lastSequence);
            }
        }
    }

    private static ExchangeClient client(
        final TestCluster cluster, final ExchangeClientListener listener, final long batchSequence,
        final long logPosition)
    {
        return new ExchangeClient(new ExchangeClient.Context()
            .ingressEndpoints(cluster.ingressEndpoints())
            .resumeAfter(batchSequence, logPosition)
            .listener(listener));
    }

    private static void awaitConnected(final ExchangeClient client)
    {
        TestCluster.await("client connected", () ->
        {
            client.doWork();
            return client.isConnected();
        });
    }
}
