package io.bourse.cluster;

import io.aeron.cluster.RecordingLog;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots are taken on policy (log bytes or elapsed time since the last one) and on demand; the journal that no
 * retained snapshot needs is purged; and the node restarts with the right state from what is left.
 */
class JournalRetentionTest
{
    private static final int RETAINED_SNAPSHOTS = 2;
    private static final Pattern PURGED_SEGMENTS = Pattern.compile("purged (\\d+) journal segment\\(s\\)");

    @Test
    void snapshotPolicyByLogBytesTakesSnapshotsAndPurgesOldJournal()
    {
        // A small journal, so that a few hundred KiB of log span several segments: 64 KiB log terms (Aeron's
        // minimum) and 256 KiB segments (a power of two and a multiple of the term length, as the archive requires).
        try (TestCluster cluster = new TestCluster(1, context -> context
            .logTermLength(64 * 1024)
            .segmentFileLength(256 * 1024)
            .snapshotLogBytes(200 * 1024)
            .retainedSnapshots(RETAINED_SNAPSHOTS)))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(21);
            final JournalFiles journal = new JournalFiles(cluster.dataDir(0));
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                tradeUntil(cluster, client, workload, () -> cluster.node(0).snapshotCount() >= 4 &&
                    journal.snapshots(JournalFiles.consensusModuleServiceId()).size() >= 4);
            }
            awaitPurged(cluster, journal);
            assertRetainedJournal(journal, workload);
            assertTrue(cluster.logLines().stream().anyMatch(JournalRetentionTest::purgedSomeSegments),
                "the node reports the segments it purged: " + cluster.logLines());

            cluster.crash(0);
            restartAndExpectTheReferenceState(cluster, workload);
            assertTrue(cluster.logLines().stream().noneMatch(line -> line.contains("invalidated")),
                "recovery after the purge needs no fallback: " + cluster.logLines());

            try (TestClient client = new TestClient(cluster))
            {
                client.awaitConnected();
                final long snapshotsBefore = journal.snapshots(JournalFiles.consensusModuleServiceId()).size();
                tradeUntil(cluster, client, workload, () ->
                    journal.snapshots(JournalFiles.consensusModuleServiceId()).size() >= snapshotsBefore + 2);
            }
            awaitPurged(cluster, journal);
            assertRetainedJournal(journal, workload);

            cluster.stop(0);
            restartAndExpectTheReferenceState(cluster, workload);
            assertNoMaintenanceErrors(cluster);
        }
    }

    @Test
    void startUpFallsBackOnlyToARetainedSnapshotAndItsLog() throws IOException
    {
        try (TestCluster cluster = new TestCluster(1, context -> context
            .logTermLength(64 * 1024)
            .segmentFileLength(256 * 1024)
            .snapshotLogBytes(200 * 1024)
            .retainedSnapshots(RETAINED_SNAPSHOTS)))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(24);
            final JournalFiles journal = new JournalFiles(cluster.dataDir(0));
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                tradeUntil(cluster, client, workload, () ->
                    journal.snapshots(JournalFiles.consensusModuleServiceId()).size() > RETAINED_SNAPSHOTS);
            }
            awaitPurged(cluster, journal);
            cluster.crash(0);
            assertRetainedJournal(journal, workload);

            final List<RecordingLog.Entry> retained = journal.snapshots(0);
            corrupt(journal, retained.get(retained.size() - 1));
            restartAndExpectTheReferenceState(cluster, workload);
            assertTrue(cluster.logLines().stream().anyMatch(line ->
                line.contains("invalidated 1 snapshot(s), recovering from the snapshot at log position " +
                retained.get(retained.size() - RETAINED_SNAPSHOTS).logPosition)),
                "falls back to the oldest retained snapshot and the log kept after it: " + cluster.logLines());

            // The log replayed after the fallback is due a snapshot again: let the node take it and purge.
            awaitPurged(cluster, journal);
            cluster.crash(0);
            final List<RecordingLog.Entry> nowRetained = journal.snapshots(0);
            for (int i = nowRetained.size() - RETAINED_SNAPSHOTS; i < nowRetained.size(); i++)
            {
                corrupt(journal, nowRetained.get(i));
            }
            final IllegalStateException error = assertThrows(IllegalStateException.class, () -> cluster.start(0),
                "no retained snapshot is left: the node must not recover from a purged one");
            assertTrue(error.getMessage().contains("no earlier snapshot or complete log is left to recover from"),
                error.getMessage());
            assertTrue(cluster.logLines().stream().anyMatch(line -> line.contains("is missing or incomplete")),
                "the purged snapshots are found missing: " + cluster.logLines());
            assertNoMaintenanceErrors(cluster);
        }
    }

    @Test
    void snapshotPolicyByElapsedTime()
    {
        final long intervalNs = TimeUnit.SECONDS.toNanos(1);
        try (TestCluster cluster = new TestCluster(1, context -> context.snapshotIntervalNs(intervalNs)))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(22);
            final JournalFiles journal = new JournalFiles(cluster.dataDir(0));
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                client.awaitAllAnswered();
                awaitSnapshotCovering(journal, cluster.node(0).service().appliedLogPosition());

                // The recording log has the snapshot a moment before the counter does.
                final long snapshots = journal.snapshots(JournalFiles.consensusModuleServiceId()).size();
                TestCluster.await("snapshot counted", () -> cluster.node(0).snapshotCount() == snapshots);
                TestCluster.sleepMs(3 * TimeUnit.NANOSECONDS.toMillis(intervalNs));
                assertEquals(snapshots, cluster.node(0).snapshotCount(), "no snapshot while there is no new log");
                assertEquals(snapshots, journal.snapshots(JournalFiles.consensusModuleServiceId()).size(),
                    journal.describe());

                for (int i = 0; i < 2; i++)
                {
                    workload.trade(client, 1);
                    client.awaitAllAnswered();
                    awaitSnapshotCovering(journal, cluster.node(0).service().appliedLogPosition());
                }
                assertTrue(cluster.node(0).service().appliedLogPosition() < cluster.node(0).context().snapshotLogBytes(),
                    "the byte threshold was never reached");
            }
            assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash());
        }
    }

    @Test
    void snapshotOnDemandThroughTheClient()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(23);
            final JournalFiles journal = new JournalFiles(cluster.dataDir(0));
            try (TestClient client = newClient(cluster))
            {
                workload.setUp(client);
                workload.trade(client, 100);
                client.awaitAllAnswered();
                final long snapshots = cluster.node(0).snapshotCount();

                TestCluster.await("snapshot request sent", () ->
                {
                    client.client.doWork();
                    return client.client.requestSnapshot();
                });
                TestCluster.await("snapshot taken", () ->
                {
                    client.client.doWork();
                    return cluster.node(0).snapshotCount() > snapshots;
                });
                assertEquals(snapshots + 1, journal.snapshots(JournalFiles.consensusModuleServiceId()).size(),
                    journal.describe());
                assertTrue(journal.latestServiceSnapshot().logPosition >= client.answers.values().stream()
                    .mapToLong(TestClient.Batch::logPosition).max().orElseThrow(), "the snapshot covers every command");
            }
        }
    }

    /**
     * Trade in rounds, every command answered before the next round, so that the snapshot policy sees the log grow
     * in steps smaller than its threshold.
     */
    private static void tradeUntil(
        final TestCluster cluster,
        final TestClient client,
        final ReferenceWorkload workload,
        final BooleanSupplier done)
    {
        final long deadlineNs = System.nanoTime() + TestCluster.TIMEOUT_NS;
        while (!done.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out trading until the snapshot policy had acted: seed " +
                    workload.seed() + ", " + cluster.node(0).snapshotCount() + " snapshot(s), log position " +
                    cluster.node(0).service().appliedLogPosition() + ", " + cluster.logLines());
            }
            workload.trade(client, 300);
            client.awaitAllAnswered();
        }
    }

    /**
     * @return true when only the retained snapshots' recordings are left and the log starts in the segment that holds
     * the oldest retained snapshot's position.
     */
    private static boolean isPurged(final JournalFiles journal, final long segmentFileLength)
    {
        if (journal.snapshots(JournalFiles.consensusModuleServiceId()).size() <= RETAINED_SNAPSHOTS)
        {
            return false;
        }
        final long oldestRetainedLogPosition = oldestRetainedLogPosition(journal);
        for (final RecordingLog.Entry entry : snapshotEntries(journal))
        {
            if (entry.logPosition < oldestRetainedLogPosition && journal.segmentFiles(entry.recordingId).length > 0)
            {
                return false;
            }
        }
        final File[] logSegments = journal.segmentFiles(journal.logRecordingId());
        return logSegments.length > 0 &&
            JournalFiles.segmentBase(logSegments[0]) + segmentFileLength > oldestRetainedLogPosition;
    }

    /**
     * Wait until the policy has no snapshot left to take for the log so far, and the purge after the latest one is
     * done: the journal then stays as it is until more commands come.
     */
    private static void awaitPurged(final TestCluster cluster, final JournalFiles journal)
    {
        TestCluster.await(() -> "snapshots before the retained ones and the log before them purged: " +
            journal.describe() + " " + cluster.logLines(), () ->
        {
            final List<RecordingLog.Entry> snapshots = journal.snapshots(JournalFiles.consensusModuleServiceId());
            return !snapshots.isEmpty() && cluster.node(0).service().appliedLogPosition() -
                snapshots.get(snapshots.size() - 1).logPosition < cluster.node(0).context().snapshotLogBytes() &&
                isPurged(journal, cluster.node(0).context().segmentFileLength());
        });
    }

    private static void corrupt(final JournalFiles journal, final RecordingLog.Entry serviceSnapshot)
        throws IOException
    {
        final File[] files = journal.segmentFiles(serviceSnapshot.recordingId);
        JournalFiles.flipMessageBytesInTheMiddle(files[0]);
    }

    private static void assertRetainedJournal(final JournalFiles journal, final ReferenceWorkload workload)
    {
        final String description = "seed " + workload.seed() + ", " + journal.describe();
        final long oldestRetainedLogPosition = oldestRetainedLogPosition(journal);
        int retained = 0;
        for (final RecordingLog.Entry entry : snapshotEntries(journal))
        {
            final int files = journal.segmentFiles(entry.recordingId).length;
            if (entry.logPosition < oldestRetainedLogPosition)
            {
                assertEquals(0, files, "snapshot recording " + entry.recordingId + " is purged: " + description);
            }
            else
            {
                assertNotEquals(0, files, "snapshot recording " + entry.recordingId + " is kept: " + description);
                retained++;
            }
        }
        assertEquals(2 * RETAINED_SNAPSHOTS, retained, "a consensus and a service recording per retained snapshot: " +
            description);

        final File[] logSegments = journal.segmentFiles(journal.logRecordingId());
        final long logStartPosition = JournalFiles.segmentBase(logSegments[0]);
        assertTrue(logStartPosition > 0, "the log's first segments are purged: " + description);
        assertTrue(logStartPosition <= oldestRetainedLogPosition,
            "the log from the oldest retained snapshot on is kept: log starts at " + logStartPosition + ", " +
            description);
    }

    private static void restartAndExpectTheReferenceState(final TestCluster cluster, final ReferenceWorkload workload)
    {
        final int loadedBefore = countLines(cluster, "loaded snapshot");
        cluster.start(0);
        cluster.awaitLeader();
        cluster.awaitSameState();
        assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash(),
            "state after restart; seed " + workload.seed());
        assertEquals(loadedBefore + 1, countLines(cluster, "loaded snapshot"),
            "the restart loads a retained snapshot: " + cluster.logLines());
    }

    private static void awaitSnapshotCovering(final JournalFiles journal, final long logPosition)
    {
        TestCluster.await(() -> "a snapshot at log position " + logPosition + " or later: " + journal.describe(), () ->
        {
            final List<RecordingLog.Entry> snapshots = journal.snapshots(JournalFiles.consensusModuleServiceId());
            return !snapshots.isEmpty() && snapshots.get(snapshots.size() - 1).logPosition >= logPosition;
        });
    }

    private static List<RecordingLog.Entry> snapshotEntries(final JournalFiles journal)
    {
        final List<RecordingLog.Entry> entries = new ArrayList<>(journal.snapshots(0));
        entries.addAll(journal.snapshots(JournalFiles.consensusModuleServiceId()));
        return entries;
    }

    private static long oldestRetainedLogPosition(final JournalFiles journal)
    {
        final List<RecordingLog.Entry> snapshots = journal.snapshots(JournalFiles.consensusModuleServiceId());
        assertFalse(snapshots.size() < RETAINED_SNAPSHOTS, journal.describe());
        return snapshots.get(snapshots.size() - RETAINED_SNAPSHOTS).logPosition;
    }

    private static boolean purgedSomeSegments(final String line)
    {
        final Matcher matcher = PURGED_SEGMENTS.matcher(line);
        return matcher.find() && Long.parseLong(matcher.group(1)) > 0;
    }

    private static void assertNoMaintenanceErrors(final TestCluster cluster)
    {
        assertEquals(0, countLines(cluster, "journal maintenance error"), cluster.logLines().toString());
    }

    private static int countLines(final TestCluster cluster, final String text)
    {
        synchronized (cluster.logLines())
        {
            return (int)cluster.logLines().stream().filter(line -> line.contains(text)).count();
        }
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
