package io.bourse.cluster;

import io.aeron.Aeron;
import io.aeron.archive.client.AeronArchive;
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
 * segments before the oldest retained snapshot. Node-local policy: it only triggers actions that the cluster
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
    private AeronArchive archive;
    private long nextCheckNs;
    private long snapshotCount = -1;
    private long lastSnapshotLogPosition;
    private long lastSnapshotNs;
    private long lastRequestNs;

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
            if (snapshotCount != -1)
            {
                lastSnapshotNs = nowNs;
                lastSnapshotLogPosition = latestSnapshotLogPosition();
                purge();
            }
            snapshotCount = snapshots;
        }

        if (node.role() == Cluster.Role.LEADER)
        {
            final long newLogBytes = counters.getCounterValue(commitPositionId) - lastSnapshotLogPosition;
            final boolean due = newLogBytes >= context.snapshotLogBytes() ||
                (newLogBytes > 0 && nowNs - lastSnapshotNs >= context.snapshotIntervalNs());
            if (due && nowNs - lastRequestNs >= REQUEST_RETRY_NS && node.requestSnapshot())
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
        long logRecordingId = -1;
        try (RecordingLog recordingLog = new RecordingLog(context.clusterDir(), false))
        {
            for (final RecordingLog.Entry entry : recordingLog.entries())
            {
                if (entry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT && entry.logPosition < oldestRetainedLogPosition)
                {
                    staleSnapshotRecordings.add(entry.recordingId);
                }
            }
            logRecordingId = recordingLog.findLastTermRecordingId();
        }

        for (final long recordingId : staleSnapshotRecordings)
        {
            if (archive.getStopPosition(recordingId) != AeronArchive.NULL_POSITION ||
                archive.getRecordingPosition(recordingId) == AeronArchive.NULL_POSITION)
            {
                purgeRecordingIfPresent(recordingId);
            }
        }

        if (logRecordingId != io.aeron.Aeron.NULL_VALUE)
        {
            final long[] descriptor = new long[3];
            archive.listRecording(logRecordingId,
                (controlSessionId, correlationId, recordingId, startTimestamp, stopTimestamp, startPosition,
                    stopPosition, initialTermId, segmentFileLength, termBufferLength, mtuLength, sessionId, streamId,
                    strippedChannel, originalChannel, sourceIdentity) ->
                {
                    descriptor[0] = startPosition;
                    descriptor[1] = termBufferLength;
                    descriptor[2] = segmentFileLength;
                });
            final long startPosition = descriptor[0];
            final long newStartPosition = AeronArchive.segmentFileBasePosition(
                startPosition, oldestRetainedLogPosition, (int)descriptor[1], (int)descriptor[2]);
            if (newStartPosition > startPosition)
            {
                final long segments = archive.purgeSegments(logRecordingId, newStartPosition);
                context.log().printf("bourse node %d: purged %d journal segment(s) before log position %,d%n",
                    context.memberId(), segments, newStartPosition);
            }
        }
    }

    private void purgeRecordingIfPresent(final long recordingId)
    {
        try
        {
            archive.purgeRecording(recordingId);
        }
        catch (final io.aeron.archive.client.ArchiveException ex)
        {
            if (ex.errorCode() != io.aeron.archive.client.ArchiveException.UNKNOWN_RECORDING)
            {
                throw ex;
            }
        }
    }
}
