package io.bourse.cluster;

import io.aeron.archive.codecs.CatalogHeaderEncoder;
import io.bourse.protocol.cluster.IgnoredReason;
import io.bourse.protocol.codec.OrderAcceptedDecoder;
import io.bourse.protocol.codec.Side;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SingleNodeTest
{
    @Test
    void appliesCommandsInOrderAndAnswersTheSender()
    {
        try (TestCluster cluster = new TestCluster(1); TestClient client = newClient(cluster))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(42);
            workload.setUp(client);
            workload.trade(client, 500);
            client.awaitAllAnswered();

            assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash(),
                "seed " + workload.seed());
            assertTrue(client.trades() > 0, "the workload trades");
            for (int i = 1; i < client.batches.size(); i++)
            {
                assertEquals(client.batches.get(i - 1).batchSequence() + 1, client.batches.get(i).batchSequence());
            }
        }
    }

    @Test
    void restartAfterCleanShutdownLoadsTheSnapshotAndKeepsTheState()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(7);
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                workload.trade(client, 300);
                client.awaitAllAnswered();
            }
            final long before = cluster.awaitSameState();

            cluster.stop(0);
            cluster.start(0);
            cluster.awaitLeader();

            assertEquals(before, cluster.awaitSameState());
            assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash());
            assertTrue(cluster.logLines().stream().anyMatch(line -> line.contains("loaded snapshot")),
                "start-up reports the snapshot it loaded: " + cluster.logLines());
        }
    }

    @Test
    void aNodeWhoseJournalIsSyncedToDiskAnswersAndRecoversAsAnyOther()
    {
        try (TestCluster cluster = new TestCluster(1, context -> context.journalSync(true)))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(13);
            try (TestClient client = newClient(cluster))
            {
                assertArrayEquals(new int[] {1, 1, 1}, cluster.node(0).fileSyncLevels(),
                    "recordings, the catalog and the recording log are synced to disk");
                workload.setUp(client);
                workload.trade(client, 300);
                client.awaitAllAnswered();
            }

            cluster.crash(0);
            startAndAwaitTheReferenceState(cluster, workload);
        }
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            assertArrayEquals(new int[] {0, 0, 0}, cluster.node(0).fileSyncLevels(), "Aeron's default: no syncs");
        }
    }

    /**
     * A kill between Aeron's two stores that add a recording to the catalog (its descriptor, then the header's next
     * recording id) leaves a catalog the archive refuses; the node counts the recording and starts.
     */
    @Test
    void aCatalogWhoseHeaderDoesNotCountItsLastRecordingIsRepairedAtStart() throws Exception
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(17);
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                workload.trade(client, 200);
                client.awaitAllAnswered();
            }
            cluster.crash(0);
            final Path catalog = new File(new File(cluster.dataDir(0), "archive"), "archive.catalog").toPath();
            final int offset = CatalogHeaderEncoder.nextRecordingIdEncodingOffset();
            try (FileChannel channel = FileChannel.open(catalog, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final ByteBuffer field = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
                channel.read(field, offset);
                final long counted = field.getLong(0);
                assertTrue(counted > 0, "the run recorded its log");
                field.clear();
                field.putLong(0, counted - 1);
                channel.write(field, offset);
            }

            startAndAwaitTheReferenceState(cluster, workload);
            assertTrue(cluster.logLines().stream().anyMatch(line -> line.contains("describes recording")),
                "start-up names the repair: " + cluster.logLines());
        }
    }

    @Test
    void snapshotPlusLogTailAfterACrashGivesTheStateOfAnUninterruptedRun()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(11);
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                workload.trade(client, 300);
                client.awaitAllAnswered();
                final long snapshots = cluster.node(0).snapshotCount();
                assertTrue(cluster.node(0).requestSnapshot());
                TestCluster.await("snapshot", () -> cluster.node(0).snapshotCount() > snapshots);
                workload.trade(client, 300);
                client.awaitAllAnswered();
            }

            cluster.crash(0);
            startAndAwaitTheReferenceState(cluster, workload);
            assertTrue(cluster.logLines().stream().anyMatch(line -> line.contains("replayed log tail")),
                "start-up reports the log tail it replayed: " + cluster.logLines());
        }
    }

    @Test
    void retriedRequestIsAppliedOnceAndItsOriginalAnswerIsSentAgain()
    {
        try (TestCluster cluster = new TestCluster(1); TestClient client = newClient(cluster))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(3);
            workload.setUp(client);
            client.awaitAllAnswered();

            final int length = client.encoder.limit(client.buffer, 0, 1, 77, ReferenceWorkload.BTC_USD, Side.BUY, 9_000, 5);
            final long sequence = client.send(length);
            final TestClient.Batch original = client.awaitAnswer(sequence);
            final int openOrders = cluster.node(0).service().engine().openOrderCount();

            try (RawSession retry = new RawSession(cluster))
            {
                retry.sendRequest(client.client.clientId(), sequence, client.buffer, length);
                final RawSession.Received resent = retry.awaitBatch();
                assertEquals(original.logPosition(), resent.logPosition());
                assertEquals(sequence, resent.requestSequence());
                assertTrue(resent.resent(), "marked as re-sent");
                assertEquals(1, resent.eventTemplateIds().stream().filter(id -> id == OrderAcceptedDecoder.TEMPLATE_ID).count());
            }
            cluster.awaitSameState();
            assertEquals(openOrders, cluster.node(0).service().engine().openOrderCount(), "applied once");
        }
    }

    /**
     * The service looks for a retried request's batch from where it found the previous one of that client, and from
     * the oldest batch held when that finds nothing: retries in order, out of order and of two clients interleaved
     * each get their own original answer.
     */
    @Test
    void retriesInAnyOrderAreEachAnsweredWithTheirOwnOriginalBatch()
    {
        try (TestCluster cluster = new TestCluster(1); TestClient client = newClient(cluster);
            TestClient other = new TestClient(cluster))
        {
            other.awaitConnected();
            final ReferenceWorkload workload = new ReferenceWorkload(3);
            workload.setUp(client);
            client.awaitAllAnswered();
            final int orders = 20;
            final long[] sequences = new long[orders];
            final long[] logPositions = new long[orders];
            final int[] lengths = new int[orders];
            final byte[][] requests = new byte[orders][];
            for (int i = 0; i < orders; i++)
            {
                final TestClient sender = i % 2 == 0 ? client : other;
                lengths[i] = sender.encoder.limit(sender.buffer, 0, 1, 100 + i, ReferenceWorkload.BTC_USD, Side.BUY,
                    9_000 - i, 5);
                requests[i] = new byte[lengths[i]];
                sender.buffer.getBytes(0, requests[i]);
                sequences[i] = sender.send(lengths[i]);
                logPositions[i] = sender.awaitAnswer(sequences[i]).logPosition();
            }

            try (RawSession retry = new RawSession(cluster))
            {
                for (final int i : new int[]{2, 4, 10, 12, 3, 0, 18, 5, 7, 6, 16, 19})
                {
                    final TestClient sender = i % 2 == 0 ? client : other;
                    retry.sendRequest(sender.client.clientId(), sequences[i],
                        new UnsafeBuffer(requests[i]), lengths[i]);
                    final RawSession.Received resent = retry.awaitBatch();
                    assertEquals(sequences[i], resent.requestSequence(), "order " + i);
                    assertEquals(logPositions[i], resent.logPosition(), "order " + i);
                    assertTrue(resent.resent(), "marked as re-sent");
                }
            }
        }
    }

    @Test
    void aRequestWhosePredecessorIsMissingIsRefusedAndBothApplyInOrderOnceItArrives()
    {
        try (TestCluster cluster = new TestCluster(1); TestClient client = newClient(cluster))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(5);
            workload.setUp(client);
            client.awaitAllAnswered();
            final int openOrders = cluster.node(0).service().engine().openOrderCount();
            final long clientId = client.client.clientId() + 1;

            try (RawSession raw = new RawSession(cluster))
            {
                raw.sendRequest(clientId, 2, client.buffer, secondOrder(client));
                final RawSession.Ignored refused = raw.awaitIgnored();
                assertEquals(new RawSession.Ignored(clientId, 2, IgnoredReason.OUT_OF_SEQUENCE), refused);

                raw.sendRequest(clientId, 1, client.buffer, firstOrder(client));
                raw.sendRequest(clientId, 2, client.buffer, secondOrder(client));
                final RawSession.Received first = raw.awaitBatch();
                final RawSession.Received second = raw.awaitBatch();
                assertEquals(List.of(1L, 2L), List.of(first.requestSequence(), second.requestSequence()));
                assertFalse(second.resent(), "request 2 applied now, not answered as a retry");
                assertTrue(second.eventTemplateIds().contains(OrderAcceptedDecoder.TEMPLATE_ID), "request 2 accepted");
            }
            cluster.awaitSameState();
            assertEquals(2, cluster.node(0).service().lastRequestSequence(clientId));
            assertEquals(openOrders + 2, cluster.node(0).service().engine().openOrderCount(), "both applied once");
        }
    }

    private static int firstOrder(final TestClient client)
    {
        return client.encoder.limit(client.buffer, 0, 1, 901, ReferenceWorkload.BTC_USD, Side.BUY, 9_000, 5);
    }

    private static int secondOrder(final TestClient client)
    {
        return client.encoder.limit(client.buffer, 0, 1, 902, ReferenceWorkload.BTC_USD, Side.BUY, 9_001, 5);
    }

    @Test
    void aClientThatStopsReadingMissesNothingAndNeverSlowsTheExchange()
    {
        try (TestCluster cluster = new TestCluster(1); TestClient trader = newClient(cluster);
            TestClient observer = new TestClient(cluster))
        {
            observer.awaitConnected();
            final ReferenceWorkload workload = new ReferenceWorkload(5);
            workload.setUp(trader);
            workload.trade(trader, 6_000);
            trader.awaitAllAnswered();
            assertTrue(cluster.node(0).service().droppedSends() > 0,
                "the observer's egress filled while it was not reading, so batches were dropped for it");

            final long lastBatch = trader.batches.get(trader.batches.size() - 1).batchSequence();
            TestCluster.await("observer caught up by replay", () ->
            {
                observer.client.doWork();
                return !observer.batches.isEmpty() &&
                    observer.batches.get(observer.batches.size() - 1).batchSequence() == lastBatch;
            });
            final long first = observer.batches.get(0).batchSequence();
            for (int i = 0; i < observer.batches.size(); i++)
            {
                assertEquals(first + i, observer.batches.get(i).batchSequence(), "every batch once, in order");
            }
            assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash());
        }
    }

    /**
     * Start the stopped node and wait until it leads with the state of the workload's reference engine.
     */
    private static void startAndAwaitTheReferenceState(final TestCluster cluster, final ReferenceWorkload workload)
    {
        cluster.start(0);
        cluster.awaitLeader();
        cluster.awaitSameState();
        assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash());
    }

        private static TestClient newClient(final TestCluster cluster)
    {
        cluster.startAll();
        cluster.awaitLeader();
        final TestClient client = new TestClient(cluster);
        client.awaitConnected();
        return client;
    }
}
