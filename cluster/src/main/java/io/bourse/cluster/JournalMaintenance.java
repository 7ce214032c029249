package io.bourse.cluster;

import io.aeron.Aeron;
import io.aeron.archive.client.AeronArchive;
import io.aeron.archive.client.ArchiveException;
import io.aeron.archive.client.RecordingDescriptorConsumer;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusterCounters;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node's journal housekeeping: asks for a snapshot when enough log (bytes) or time has passed since the last
 * one, and after each snapshot purges what no retained snapshot needs: older snapshot recordings and the log
 * segments before the oldest retained snapshot, or before the {@link LogRetention} floor of a reader outside the node
 * when that is earlier. Node-local policy: it only triggers actions that the cluster
 * itself records, so it takes no part in the replicated state.
 */
final class JournalMaintenance implements Agent
{
    private static final long CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long REQUEST_RETRY_NS = TimeUnit.SECONDS.toNanos(5);

    private final ClusterNode.Context context;
    private final Aeron aeron;
    private final AeronArchive.Context archiveContext;
    private final ClusterNode node;
    private final RecordingDescriptor descriptor = new RecordingDescriptor();
    private AeronArchive archive;
    private long nextCheckNs;
    private long snapshotCount = -1;
    private long lastSnapshotLogPosition;
    private long lastSnapshotNs;
    private long lastRequestNs = Long.MIN_VALUE;
    private long purgedBeforeLogPosition;

    JournalMaintenance(
        final ClusterNode.Context context, final Aeron aeron, final AeronArchive.Context archiveContext,
        final ClusterNode node)
    {
        this.context = context;
        this.aeron = aeron;
        this.archiveContext = archiveContext;
        this.node = node;
    }

    public void onStart()
    {
        lastSnapshotNs = System.nanoTime();
        lastSnapshotLogPosition = latestSnapshotLogPosition();
    }

    public int doWork()
    {
        final long nowNs = System.nanoTime();
        if (nowNs < nextCheckNs)
        {
            return 0;
        }
        nextCheckNs = nowNs + CHECK_INTERVAL_NS;

        final CountersReader counters = aeron.countersReader();
        final int snapshotCounterId = ClusterCounters.find(counters, ConsensusModule.Configuration.SNAPSHOT_COUNTER_TYPE_ID, 0);
        final int commitPositionId = ClusterCounters.find(counters, ConsensusModule.Configuration.COMMIT_POSITION_TYPE_ID, 0);
        if (snapshotCounterId == -1 || commitPositionId == -1)
        {
            return 0;
        }

        final long snapshots = counters.getCounterValue(snapshotCounterId);
        if (snapshots != snapshotCount)
        {
            final boolean snapshotTaken = snapshotCount != -1;
            // Counted first: a purge that fails is retried after the next snapshot, not on every check.
            snapshotCount = snapshots;
            if (snapshotTaken)
            {
                lastSnapshotNs = nowNs;
                lastSnapshotLogPosition = latestSnapshotLogPosition();
                // The snapshot asked for is done: a log growing faster than one threshold per retry interval needs
                // the next one at once.
                lastRequestNs = Long.MIN_VALUE;
                purge();
            }
        }

        if (node.role() == Cluster.Role.LEADER)
        {
            // The state hash checkpoint the snapshot sends is not new state to snapshot.
            final long newLogBytes = counters.getCounterValue(commitPositionId) - lastSnapshotLogPosition -
                node.service().checkpointLogBytes(lastSnapshotLogPosition);
            final boolean due = newLogBytes >= context.snapshotLogBytes() ||
                (newLogBytes > 0 && nowNs - lastSnapshotNs >= context.snapshotIntervalNs());
            if (due && (lastRequestNs == Long.MIN_VALUE || nowNs - lastRequestNs >= REQUEST_RETRY_NS) &&
                node.requestSnapshot())
            {
                lastRequestNs = nowNs;
                return 1;
            }
        }
        return 0;
    }

    public void onClose()
    {
        CloseHelper.quietClose(archive);
    }

    public String roleName()
    {
        return "journal-maintenance";
    }

    private long latestSnapshotLogPosition()
    {
        final List<RecordingLog.Entry> snapshots = consensusSnapshots();
        return snapshots.isEmpty() ? 0 : snapshots.get(snapshots.size() - 1).logPosition;
    }

    /**
     * @return the valid snapshot entries of the consensus module, oldest first; each marks one cluster snapshot.
     */
    private List<RecordingLog.Entry> consensusSnapshots()
    {
        final List<RecordingLog.Entry> snapshots = new ArrayList<>();
        if (!context.clusterDir().isDirectory())
        {
            return snapshots;
        }
        try (RecordingLog recordingLog = new RecordingLog(context.clusterDir(), false))
        {
            for (final RecordingLog.Entry entry : recordingLog.entries())
            {
                if (entry.isValid && entry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT &&
                    entry.serviceId == ConsensusModule.Configuration.SERVICE_ID)
                {
                    snapshots.add(entry);
                }
            }
        }
        snapshots.sort((a, b) -> Long.compare(a.logPosition, b.logPosition));
        return snapshots;
    }

    /**
     * Purge the snapshot recordings older than the retained snapshots, and the log segments wholly before the oldest
     * retained snapshot.
     * <p>
     * The recording log keeps the purged snapshots' entries valid: Aeron offers no public way to invalidate an entry
     * other than the latest snapshot. That is safe because only snapshots older than every retained one are purged,
     * and Aeron's recovery plan always takes the newest valid snapshot, so it never selects a purged one while a
     * retained one is valid. The only start-up path that invalidates snapshots, {@link SnapshotPreflight}, walks
     * newest first and finds a purged one missing from the archive, so it invalidates it too and refuses to start
     * rather than recover from it. The log is kept from the segment holding the oldest retained snapshot's position,
     * so that recovery can fall back to that snapshot when a newer one turns out unreadable.
     */
    private void purge()
    {
        final List<RecordingLog.Entry> snapshots = consensusSnapshots();
        if (snapshots.size() <= context.retainedSnapshots())
        {
            return;
        }
        final long oldestRetainedLogPosition = snapshots.get(snapshots.size() - context.retainedSnapshots()).logPosition;
        if (archive == null)
        {
            archive = AeronArchive.connect(archiveContext.clone().aeron(aeron).ownsAeronClient(false));
        }

        final List<Long> staleSnapshotRecordings = new ArrayList<>();
        final long logRecordingId;
        try (RecordingLog recordingLog = new RecordingLog(context.clusterDir(), false))
        {
            for (final RecordingLog.Entry entry : recordingLog.entries())
            {
                if (entry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT && entry.logPosition < oldestRetainedLogPosition &&
                    entry.logPosition >= purgedBeforeLogPosition)
                {
                    staleSnapshotRecordings.add(entry.recordingId);
                }
            }
            logRecordingId = recordingLog.findLastTermRecordingId();
        }

        int purgedSnapshotRecordings = 0;
        boolean allStopped = true;
        for (final long recordingId : staleSnapshotRecordings)
        {
            // Already purged recordings are no longer listed. One without a stop position is either still being
            // written, so left for a later purge, or was cut short by a crash of the archive, so purged.
            if (archive.listRecording(recordingId, descriptor) == 1)
            {
                if (descriptor.stopPosition == AeronArchive.NULL_POSITION &&
                    archive.getRecordingPosition(recordingId) != AeronArchive.NULL_POSITION)
                {
                    allStopped = false;
                }
                else
                {
                    purgeRecordingIfPresent(recordingId);
                    purgedSnapshotRecordings++;
                }
            }
        }
        if (allStopped)
        {
            // Later purges need not look at these entries again: their recordings are gone.
            purgedBeforeLogPosition = oldestRetainedLogPosition;
        }

        // A reader of the journal outside the node (the post-trade store) may still need log the snapshots do not.
        final long retentionFloor = LogRetention.floor(context.dataDir());
        final long keepLogFrom = Math.min(oldestRetainedLogPosition, retentionFloor);
        if (retentionFloor < oldestRetainedLogPosition)
        {
            context.log().printf("bourse node %d: journal kept from log position %,d (not %,d) for the reader " +
                "named in %s%n", context.memberId(), retentionFloor, oldestRetainedLogPosition, LogRetention.FILE_NAME);
        }
        long purgedSegments = 0;
        long newStartPosition = AeronArchive.NULL_POSITION;
        if (logRecordingId != Aeron.NULL_VALUE)
        {
            if (archive.listRecording(logRecordingId, descriptor) == 1)
            {
                final long startPosition = descriptor.startPosition;
                newStartPosition = AeronArchive.segmentFileBasePosition(
                    startPosition, keepLogFrom, descriptor.termBufferLength, descriptor.segmentFileLength);
                if (newStartPosition > startPosition)
                {
                    purgedSegments = archive.purgeSegments(logRecordingId, newStartPosition);
                }
            }
        }
        if (purgedSnapshotRecordings > 0 || purgedSegments > 0)
        {
            context.log().printf("bourse node %d: purged %d journal segment(s) before log position %,d and %d " +
                "snapshot recording(s) before log position %,d%n", context.memberId(), purgedSegments,
                newStartPosition, purgedSnapshotRecordings, oldestRetainedLogPosition);
        }
    }

    private void purgeRecordingIfPresent(final long recordingId)
    {
        try
        {
            archive.purgeRecording(recordingId);
        }
        catch (final ArchiveException ex)
        {
            if (ex.errorCode() != ArchiveException.UNKNOWN_RECORDING)
            {
                throw ex;
            }
        }
    }

    /**
     * The fields of a recording's descriptor that purging needs.
     */
    private static final class RecordingDescriptor implements RecordingDescriptorConsumer
    {
        long startPosition;
        long stopPosition;
        int termBufferLength;
        int segmentFileLength;

        public void onRecordingDescriptor(
            final long controlSessionId,
            final long correlationId,
            final long recordingId,
            final long startTimestamp,
            final long stopTimestamp,
            final long startPosition,
            final long stopPosition,
            final int initialTermId,
            final int segmentFileLength,
            final int termBufferLength,
            final int mtuLength,
            final int sessionId,
            final int streamId,
            final String strippedChannel,
            final String originalChannel,
            final String sourceIdentity)
        {
            this.startPosition = startPosition;
            this.stopPosition = stopPosition;
            this.termBufferLength = termBufferLength;
            this.segmentFileLength = segmentFileLength;
        }
    }
}
