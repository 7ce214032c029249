package io.bourse.cluster;

import io.aeron.Aeron;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.RecordingLog;

import java.io.File;

/**
 * Start-up check of the log the node is about to replay, run after {@link SnapshotPreflight} has chosen the snapshot
 * it recovers from and before the consensus module starts: every frame from that snapshot's log position to the end of
 * the log is checked on disk ({@link RecordedFrames}). A damaged frame refuses the start, naming the file and the
 * position: replayed, it would hang the node (a damaged header) or recover it to a state no client was told of (a
 * damaged command), and there is nothing else to recover those commands from on this member.
 */
final class LogPreflight
{
    private LogPreflight()
    {
    }

    /**
     * @param snapshot the snapshot replay starts after, or null to replay the log from its start.
     * @throws IllegalStateException when a frame to replay is damaged or missing.
     */
    static void run(final ClusterNode.Context context, final AeronArchive archive, final SnapshotPreflight.Checked snapshot)
    {
        final long fromPosition = snapshot == null ? 0 : snapshot.logPosition();
        // After a snapshot recorded with checksums, every frame of the log has one; a journal begun by a version that
        // recorded none may begin without.
        final boolean mayBeginWithout = snapshot == null || !snapshot.recordedWithChecksums();
        if (!new File(context.clusterDir(), RecordingLog.RECORDING_LOG_FILE_NAME).exists())
        {
            return;
        }
        final long recordingId;
        try (RecordingLog recordingLog = new RecordingLog(context.clusterDir(), false))
        {
            recordingId = recordingLog.findLastTermRecordingId();
        }
        if (recordingId == Aeron.NULL_VALUE)
        {
            return;
        }
        final long startNs = System.nanoTime();
        final RecordedFrames.Result result = new RecordedFrames(context.archiveDir())
            .check(RecordedFrames.describe(archive, recordingId), fromPosition, true, mayBeginWithout);
        if (result.problem() != null)
        {
            throw new IllegalStateException("cannot start: the log to replay from position " + result.startPosition() +
                " is damaged: " + result.problem() + "; restore the data directory from a backup (a cluster member " +
                "can also take another member's)");
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        context.log().printf("bourse node %d: checked the log to replay: %,d frames, %,d bytes from log position %,d " +
            "to %,d, in %.3f s%s%n", context.memberId(), result.frames(), result.bytes(), result.startPosition(),
            result.endPosition(), seconds, result.withoutChecksums() == 0 ? "" : String.format(" (%,d recorded " +
            "before the node recorded checksums: their headers checked alone)", result.withoutChecksums()));
    }
}
