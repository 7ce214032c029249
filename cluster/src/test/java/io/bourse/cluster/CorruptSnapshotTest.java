package io.bourse.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.File;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A corrupted or truncated latest snapshot is found at start-up: the node falls back to the previous snapshot and
 * the log, or, when nothing is left to fall back to, refuses to start and names the file. It never starts with
 * wrong state.
 */
class CorruptSnapshotTest
{
    /**
     * How the latest snapshot is damaged on disk.
     */
    enum Damage
    {
        MESSAGE_BYTES,
        CUT_SHORT,
        /**
         * A frame's type neither data nor padding: Aeron's replay of it would never end.
         */
        FRAME_TYPE
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void damagedLatestSnapshotFallsBackToThePreviousSnapshotAndTheLog(final Damage damage) throws IOException
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            final ReferenceWorkload workload = twoSnapshotsWithCommandsBetweenAndAfter(cluster, 5 + damage.ordinal());
            final File file = latestServiceSnapshotFile(cluster);
            switch (damage)
            {
                case MESSAGE_BYTES -> JournalFiles.flipMessageBytesInTheMiddle(file);
                case CUT_SHORT -> JournalFiles.truncate(file, JournalFiles.dataLength(file) / 2);
                case FRAME_TYPE -> JournalFiles.damageFrameType(file);
            }

            restartAndExpectTheReferenceState(cluster, workload, file);
            if (damage == Damage.FRAME_TYPE)
            {
                assertTrue(cluster.logLines().stream().anyMatch(line ->
                    line.contains("damaged frame header at position") &&
                    line.contains("type 7 is neither data nor padding")), "found on disk, before a replay: " +
                    cluster.logLines());
            }
        }
    }

    @Test
    void corruptedSnapshotWithNothingToFallBackToStopsTheNodeNamingTheFile() throws IOException
    {
        try (TestCluster cluster = new TestCluster(1, context -> context
            .logTermLength(64 * 1024)
            .segmentFileLength(256 * 1024)
            .retainedSnapshots(1)))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(8);
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                workload.trade(client, 3_000);
                client.awaitAllAnswered();
                cluster.snapshot(0);
                workload.trade(client, 3_000);
                client.awaitAllAnswered();
                cluster.snapshot(0);
                TestCluster.await("the journal before the latest snapshot purged",
                    () -> cluster.logLines().stream().anyMatch(line -> line.contains("purged")));
                workload.trade(client, 100);
                client.awaitAllAnswered();
            }
            cluster.crash(0);
            final File file = latestServiceSnapshotFile(cluster);
            JournalFiles.flipMessageBytesInTheMiddle(file);

            final IllegalStateException error = assertThrows(IllegalStateException.class, () -> cluster.start(0));
            assertTrue(error.getMessage().contains(file.getPath()), "names the file: " + error.getMessage());
            assertTrue(error.getMessage().contains("no earlier snapshot or complete log is left to recover from"),
                error.getMessage());
        }
    }

    private static ReferenceWorkload twoSnapshotsWithCommandsBetweenAndAfter(final TestCluster cluster, final long seed)
    {
        final ReferenceWorkload workload = new ReferenceWorkload(seed);
        try (TestClient client = newClient(cluster))
        {
            workload.setUp(client);
            workload.trade(client, 300);
            client.awaitAllAnswered();
            cluster.snapshot(0);
            workload.trade(client, 300);
            client.awaitAllAnswered();
            cluster.snapshot(0);
            workload.trade(client, 300);
            client.awaitAllAnswered();
        }
        cluster.awaitSameState();
        cluster.crash(0);
        assertEquals(2, new JournalFiles(cluster.dataDir(0)).snapshots(0).size(), "two snapshots taken");
        return workload;
    }

    private static void restartAndExpectTheReferenceState(
        final TestCluster cluster, final ReferenceWorkload workload, final File badFile)
    {
        cluster.start(0);
        cluster.awaitLeader();
        cluster.awaitSameState();

        assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash(),
            "state after falling back; seed " + workload.seed());
        // The state loaded, and the state where the replay takes the later snapshot again, each checked against the
        // checkpoint sent when the snapshot was first taken.
        assertEquals(2, cluster.node(0).stateHashesAgreed(), cluster.logLines().toString());
        assertEquals(0, cluster.node(0).stateHashesDiverged(), cluster.logLines().toString());
        assertTrue(cluster.logLines().stream().anyMatch(line -> line.contains(badFile.getPath()) &&
            line.contains("invalidated 1 snapshot(s), recovering from the snapshot at log position")),
            "start-up names the bad snapshot's file and falls back to the previous one: " + cluster.logLines());
    }

    private static File latestServiceSnapshotFile(final TestCluster cluster)
    {
        final JournalFiles journal = new JournalFiles(cluster.dataDir(0));
        final File[] files = journal.segmentFiles(journal.latestServiceSnapshot().recordingId);
        assertEquals(1, files.length, "the snapshot fits in one segment file");
        return files[0];
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
