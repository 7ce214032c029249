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
 * cluster's history; one that resumes from before what the history holds says there was a gap once and goes on from
 * the oldest batch held; one that resumes from a numbering the cluster never reached takes up the cluster's and says
 * there was a gap.
 */
class ResumeTest
{
    /**
     * Every batch delivered, as sequence and log position, and the gaps reported (whether renumbered, in step).
     */
    private static final class Batches implements ExchangeClientListener
    {
        final List<long[]> batches = new ArrayList<>();
        final List<Long> gaps = new ArrayList<>();
        final List<Boolean> renumbered = new ArrayList<>();

        public void onEventBatch(
            final long batchSequence, final long logPosition, final long timestampNs, final long clientId,
            final long requestSequence, final DirectBuffer buffer, final int offset, final int length,
            final int eventCount)
        {
            batches.add(new long[] { batchSequence, logPosition });
        }

        public void onGap(final long fromLogPosition, final boolean renumbered)
        {
            gaps.add(fromLogPosition);
            this.renumbered.add(renumbered);
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
                assertEquals(List.of(true), foreign.renumbered, "the client says it has missed what came before");
                assertTrue(foreign.batches.get(0)[0] > lastSequence);
            }
        }
    }

    @Test
    void aClientResumedFromBeforeTheHistoryIsToldOfTheGapOnceAndGoesOnFromTheOldestBatchHeld()
    {
        try (TestCluster cluster = new TestCluster(1, context -> context.historyCapacityBytes(4096)))
        {
            cluster.startAll();
            cluster.awaitLeader();
            final ReferenceWorkload workload = new ReferenceWorkload(32);
            try (TestClient trader = new TestClient(cluster))
            {
                trader.awaitConnected();
                workload.setUp(trader);
                trader.awaitAllAnswered();
                final TestClient.Batch resumePoint = trader.batches.get(trader.batches.size() - 1);
                // Far more than 4 KiB of batches: the cluster no longer holds the first ones after the resume point.
                workload.trade(trader, 300);
                trader.awaitAllAnswered();
                final long lastSequence = trader.batches.get(trader.batches.size() - 1).batchSequence();

                final Batches resumed = new Batches();
                try (ExchangeClient client = client(cluster, resumed, resumePoint.batchSequence(),
                    resumePoint.logPosition()))
                {
                    TestCluster.await("the resumed client has the batches up to " + lastSequence, () ->
                    {
                        client.doWork();
                        return resumed.lastSequence() >= lastSequence;
                    });
                    assertEquals(List.of(resumePoint.logPosition()), resumed.gaps, "one gap, after the resume point");
                    assertEquals(List.of(false), resumed.renumbered, "dropped from the history, not renumbered");
                    final long firstHeld = resumed.batches.get(0)[0];
                    assertTrue(firstHeld > resumePoint.batchSequence() + 1, "the first batches are no longer held");
                    for (int i = 0; i < resumed.batches.size(); i++)
                    {
                        assertEquals(firstHeld + i, resumed.batches.get(i)[0], "in order from the oldest held");
                    }

                    // And live from there on: the batches made now come as they are made.
                    workload.trade(trader, 20);
                    trader.awaitAllAnswered();
                    final long newLast = trader.batches.get(trader.batches.size() - 1).batchSequence();
                    TestCluster.await("the resumed client has the new batches up to " + newLast, () ->
                    {
                        client.doWork();
                        return resumed.lastSequence() >= newLast;
                    });
                    assertEquals(1, resumed.gaps.size(), "no gap after the first");
                    assertEquals(newLast - firstHeld + 1, resumed.batches.size(), "each batch once");
                }
            }
        }
    }

    @Test
    void aClientThatFellBehindPastTheHistoryIsToldOfTheGapOnceAndGoesOnLive()
    {
        try (TestCluster cluster = new TestCluster(1, context -> context.historyCapacityBytes(4096)))
        {
            cluster.startAll();
            cluster.awaitLeader();
            final ReferenceWorkload workload = new ReferenceWorkload(33);
            try (TestClient trader = new TestClient(cluster))
            {
                trader.awaitConnected();
                workload.setUp(trader);
                trader.awaitAllAnswered();
                final Batches slow = new Batches();
                // A small egress term: the cluster finds this client's stream full soon and drops what does not fit.
                try (ExchangeClient client = new ExchangeClient(new ExchangeClient.Context()
                    .ingressEndpoints(cluster.ingressEndpoints())
                    .egressChannel("aeron:udp?endpoint=localhost:0|term-length=65536")
                    .listener(slow)))
                {
                    awaitConnected(client);
                    workload.trade(trader, 5);
                    trader.awaitAllAnswered();
                    TestCluster.await("the slow client has a batch", () ->
                    {
                        client.doWork();
                        return !slow.batches.isEmpty();
                    });
                    final long lastBeforeSeen = slow.lastSequence();

                    // Not polled meanwhile: far more than its stream and the 4 KiB history hold.
                    workload.trade(trader, 1_000);
                    trader.awaitAllAnswered();
                    final long lastSequence = trader.batches.get(trader.batches.size() - 1).batchSequence();
                    TestCluster.await("the slow client has the batches up to " + lastSequence, () ->
                    {
                        client.doWork();
                        return slow.lastSequence() >= lastSequence;
                    });
                    assertEquals(1, slow.gaps.size(), "one gap");
                    assertEquals(List.of(false), slow.renumbered, "dropped from the history, not renumbered");
                    int gapAt = -1;
                    for (int i = 1; i < slow.batches.size(); i++)
                    {
                        if (slow.batches.get(i)[0] != slow.batches.get(i - 1)[0] + 1)
                        {
                            assertEquals(-1, gapAt, "batches in order but for the one gap");
                            gapAt = i;
                        }
                    }
                    assertTrue(gapAt > 0 && slow.batches.get(gapAt - 1)[0] >= lastBeforeSeen,
                        "the gap comes after what the client had seen");
                    assertEquals(slow.batches.get(gapAt - 1)[1], (long)slow.gaps.get(0),
                        "the gap is reported after the last batch delivered before it");
                }
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
