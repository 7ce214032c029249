package io.bourse.cluster;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.protocol.codec.OrderCanceledDecoder;
import io.bourse.protocol.codec.Side;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Aeron takes messages of up to an eighth of the publication's term length, and throws on a longer one; and a
 * publication may only be half its term ahead of its reader. A batch of events has no bound (a mass cancel of many
 * orders, a sweep, many expiries at once), nor has the engine state a client asks for: both reach a client whole
 * whatever its egress term, the smallest Aeron allows (64 KiB: messages of up to 8 KiB, 32 KiB ahead) included, and
 * the node goes on.
 */
class EgressMessageLengthTest
{
    private static final String SMALLEST_TERM_EGRESS = "aeron:udp?endpoint=localhost:0|term-length=65536";
    private static final UnaryOperator<ExchangeClient.Context> SMALLEST_TERM =
        context -> context.egressChannel(SMALLEST_TERM_EGRESS);
    private static final int ACCOUNT = 1;
    private static final int ORDERS = 600;

    @Test
    void aBatchLongerThanTheClientsStreamTakesReachesEveryClientWholeLiveAndReplayed()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            cluster.awaitLeader();
            try (TestClient trader = new TestClient(cluster, SMALLEST_TERM);
                TestClient watcher = new TestClient(cluster))
            {
                trader.awaitConnected();
                watcher.awaitConnected();
                new ReferenceWorkload(5).setUp(trader);
                placeRestingOrders(trader, 1_000_000);
                trader.awaitAllAnswered();
                final TestClient.Batch before = trader.batches.get(trader.batches.size() - 1);

                final long massCancel = trader.send(trader.encoder.massCancel(trader.buffer, 0, ACCOUNT, 0, Side.NULL_VAL));
                final TestClient.Batch answer = trader.awaitAnswer(massCancel);
                assertEquals(ORDERS, answer.count(OrderCanceledDecoder.TEMPLATE_ID), "every order canceled, in one batch");
                final long next = trader.send(trader.encoder.limit(trader.buffer, 0, ACCOUNT, 2_000_000,
                    ReferenceWorkload.BTC_USD, Side.BUY, 5_000, 1));
                trader.awaitAnswer(next);
                TestCluster.await("the other client has the batch after the mass cancel", () ->
                {
                    watcher.client.doWork();
                    return watcher.batches.size() >= trader.batches.size();
                });
                assertEquals(batchSequences(trader.batches), batchSequences(watcher.batches), "the same batches");

                final List<TestClient.Batch> replayed = new ArrayList<>();
                final ExchangeClientListener replayListener = new ExchangeClientListener()
                {
                    public void onEventBatch(
                        final long batchSequence, final long logPosition, final long timestampNs,
                        final long clientId, final long requestSequence, final DirectBuffer buffer, final int offset,
                        final int length, final int eventCount)
                    {
                        replayed.add(new TestClient.Batch(batchSequence, logPosition, clientId, requestSequence,
                            TestClient.templateIds(buffer, offset, length, eventCount)));
                    }
                };
                try (ExchangeClient resumed = new ExchangeClient(SMALLEST_TERM.apply(new ExchangeClient.Context()
                    .ingressEndpoints(cluster.ingressEndpoints())
                    .resumeAfter(before.batchSequence(), before.logPosition())
                    .listener(replayListener))))
                {
                    TestCluster.await("the resumed client has the batches after its position", () ->
                    {
                        resumed.doWork();
                        return replayed.size() >= 2;
                    });
                }
                assertEquals(answer.batchSequence(), replayed.get(0).batchSequence());
                assertEquals(answer.templateIds(), replayed.get(0).templateIds(), "the mass cancel replayed whole");
            }
        }
    }

    @Test
    void aStateLongerThanTheClientsStreamTakesAtOnceReachesItWhole()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            cluster.awaitLeader();
            try (TestClient trader = new TestClient(cluster))
            {
                trader.awaitConnected();
                new ReferenceWorkload(6).setUp(trader);
                placeRestingOrders(trader, 1_000_000);
                placeRestingOrders(trader, 2_000_000);
                trader.awaitAllAnswered();

                final ExpandableArrayBuffer state = new ExpandableArrayBuffer();
                final int[] chunks = new int[1];
                final int[] length = new int[1];
                final boolean[] whole = new boolean[1];
                final ExchangeClientListener stateListener = new ExchangeClientListener()
                {
                    public void onEventBatch(
                        final long batchSequence, final long logPosition, final long timestampNs,
                        final long clientId, final long requestSequence, final DirectBuffer buffer, final int offset,
                        final int length, final int eventCount)
                    {
                    }

                    public void onStateChunk(
                        final long logPosition, final int chunkIndex, final boolean lastChunk, final long totalLength,
                        final DirectBuffer buffer, final int offset, final int chunkLength)
                    {
                        assertEquals(chunks[0]++, chunkIndex, "chunks in order");
                        state.putBytes(length[0], buffer, offset, chunkLength);
                        length[0] += chunkLength;
                        whole[0] = lastChunk && length[0] == totalLength;
                    }
                };
                try (ExchangeClient late = new ExchangeClient(SMALLEST_TERM.apply(new ExchangeClient.Context()
                    .ingressEndpoints(cluster.ingressEndpoints())
                    .listener(stateListener))))
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
                        return whole[0];
                    });
                }
                assertTrue(length[0] > 2 * 32 * 1024,
                    "more than twice what the stream holds: " + length[0] + " bytes in " + chunks[0] + " chunks");
                final Engine copy = new Engine(new EventEncoder((buffer, offset, chunkLength) -> { }));
                copy.loadSnapshot(state, 0, length[0]);
                assertEquals(cluster.node(0).service().engine().stateHash(), copy.stateHash(), "the engine's state");
            }
        }
    }

    /**
     * Orders of one account that rest far below the market: their cancels make a batch of about 96 KiB, longer than
     * the 8 KiB a 64 KiB term takes in one message and than the 32 KiB a publication of it may be ahead.
     */
    private static void placeRestingOrders(final TestClient trader, final long firstClientOrderId)
    {
        for (int i = 0; i < ORDERS; i++)
        {
            trader.send(trader.encoder.limit(trader.buffer, 0, ACCOUNT, firstClientOrderId + i,
                ReferenceWorkload.BTC_USD, Side.BUY, 5_000, 1));
            if (i % 50 == 49)
            {
                trader.awaitAllAnswered();
            }
        }
    }

    private static List<Long> batchSequences(final List<TestClient.Batch> batches)
    {
        return batches.stream().map(TestClient.Batch::batchSequence).toList();
    }
}
