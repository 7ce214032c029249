package io.bourse.cluster;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that starts late asks for the engine state and gets it whole, at the log position of its request.
 */
class StateRequestTest
{
    /**
     * Joins the chunks of a state answer.
     */
    private static final class StateCollector implements ExchangeClientListener
    {
        final ExpandableArrayBuffer state = new ExpandableArrayBuffer();
        final List<Long> batchPositions = new ArrayList<>();
        int length;
        int nextChunk;
        long statePosition = -1;

        public void onEventBatch(
            final long batchSequence, final long logPosition, final long timestampNs, final long clientId,
            final long requestSequence, final DirectBuffer buffer, final int offset, final int length,
            final int eventCount)
        {
            batchPositions.add(logPosition);
        }

        public void onStateChunk(
            final long logPosition, final int chunkIndex, final boolean lastChunk, final long totalLength,
            final DirectBuffer buffer, final int offset, final int length)
        {
            assertEquals(nextChunk++, chunkIndex, "chunks in order");
            state.putBytes(this.length, buffer, offset, length);
            this.length += length;
            if (lastChunk)
            {
                assertEquals(totalLength, this.length);
                statePosition = logPosition;
            }
        }
    }

    @Test
    void theStateAnswersTheAskingClientWithTheEngineSnapshotAtItsLogPosition()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            cluster.awaitLeader();
            final ReferenceWorkload workload = new ReferenceWorkload(21);
            try (TestClient trader = new TestClient(cluster))
            {
                trader.awaitConnected();
                workload.setUp(trader);
                workload.trade(trader, 400);
                trader.awaitAllAnswered();

                final StateCollector collector = new StateCollector();
                try (ExchangeClient late = new ExchangeClient(new ExchangeClient.Context()
                    .ingressEndpoints(cluster.ingressEndpoints())
                    .listener(collector)))
                {
                    TestCluster.await("late client connected", () ->
                    {
                        late.doWork();
                        return late.isConnected();
                    });
                    TestCluster.await("state request sent", late::requestState);
                    TestCluster.await("state received", () ->
                    {
                        late.doWork();
                        return collector.statePosition >= 0;
                    });

                    final Engine copy = new Engine(new EventEncoder((buffer, offset, length) -> { }));
                    copy.loadSnapshot(collector.state, 0, collector.length);
                    assertEquals(cluster.node(0).service().engine().stateHash(), copy.stateHash(),
                        "the state is the engine's, whole (seed " + workload.seed() + ")");
                    assertEquals(cluster.node(0).service().engine().openOrderCount(), copy.openOrderCount());
                    assertTrue(collector.statePosition <= cluster.node(0).service().appliedLogPosition());

                    // A batch after the state is delivered after it, with a greater log position.
                    workload.trade(trader, 1);
                    trader.awaitAllAnswered();
                    TestCluster.await("batch after the state", () ->
                    {
                        late.doWork();
                        return collector.batchPositions.stream().anyMatch(p -> p > collector.statePosition);
                    });
                }
            }
        }
    }
}
