package io.bourse.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A log damaged on disk where the node would replay it is found at start-up: the node refuses to start, naming the
 * file and the position, rather than hang in Aeron's replay of a damaged header or recover to a state no client was
 * told of by applying a damaged command. Damage before the snapshot it recovers from is not replayed, and does not
 * stop it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CorruptLogTest
{
    @Test
    void damagedCommandInTheLogToReplayStopsTheNodeNamingTheFileAndPosition() throws IOException
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.tradeThenCrash(new ReferenceWorkload(11), false);
            final File file = onlyLogSegment(cluster);
            final long frame = JournalFiles.flipMessageBytesAfter(file, JournalFiles.dataLength(file) / 2);

            final IllegalStateException error = assertThrows(IllegalStateException.class, () -> cluster.start(0));
            assertTrue(error.getMessage().startsWith("the log to replay from position 0 is damaged: " +
                "damaged frame at position " + (JournalFiles.segmentBase(file) + frame) + " in " + file.getPath()),
                error.getMessage());
            assertTrue(error.getMessage().contains("no longer match the checksum"), error.getMessage());
        }
    }

    @Test
    void damagedFrameHeaderInTheLogToReplayStopsTheNodeInsteadOfHanging() throws IOException
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.tradeThenCrash(new ReferenceWorkload(12), false);
            final File file = onlyLogSegment(cluster);
            JournalFiles.damageFrameType(file);

            final IllegalStateException error = assertThrows(IllegalStateException.class, () -> cluster.start(0));
            assertTrue(error.getMessage().startsWith("the log to replay from position 0 is damaged: " +
                "damaged frame header at position "), error.getMessage());
            assertTrue(error.getMessage().contains(file.getPath()) &&
                error.getMessage().contains("type 7 is neither data nor padding"), error.getMessage());
        }
    }

    @Test
    void damageBeforeTheSnapshotRecoveredFromIsNotReplayedAndDoesNotStopTheNode() throws IOException
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(13);
            cluster.tradeThenCrash(workload, true);
            final File file = onlyLogSegment(cluster);
            final long snapshotPosition = new JournalFiles(cluster.dataDir(0)).latestServiceSnapshot().logPosition;
            final long frame = JournalFiles.flipMessageBytesAfter(file, snapshotPosition / 4);
            assertTrue(JournalFiles.segmentBase(file) + frame < snapshotPosition, "damaged before the snapshot");

            cluster.start(0);
            cluster.awaitLeader();
            cluster.awaitSameState();
            assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash(),
                "seed " + workload.seed());
            assertTrue(cluster.logLines().stream().anyMatch(line ->
                line.contains("checked the log to replay: ") &&
                line.contains(String.format("from log position %,d to ", snapshotPosition))),
                "checks the log from the snapshot on: " + cluster.logLines());
        }
    }

    private static File onlyLogSegment(final TestCluster cluster)
    {
        final JournalFiles journal = new JournalFiles(cluster.dataDir(0));
        final File[] files = journal.segmentFiles(journal.logRecordingId());
        assertEquals(1, files.length, "the log fits in one segment file");
        return files[0];
    }
}
