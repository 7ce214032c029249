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
     * @param fromPosition the log position replay starts at: the snapshot's, or 0 without one.
     * @return the log position the log ends at, as checked; 0 when there is no log.
     * @throws IllegalStateException when a frame to replay is damaged or missing.
     */
    static long run(final ClusterNode.Context context, final AeronArchive archive, final long fromPosition)
    {
        if (!new File(context.clusterDir(), RecordingLog.RECORDING_LOG_FILE_NAME).exists())
        {
            return 0;
        }
        final long recordingId;
        try (RecordingLog recordingLog = new RecordingLog(context.clusterDir(), false))
        {
            recordingId = recordingLog.findLastTermRecordingId();
        }
        if (recordingId == Aeron.NULL_VALUE)
        {
            return 0;
        }
        final long startNs = System.nanoTime();
        final RecordedFrames frames = new RecordedFrames(context.archiveDir());
        final RecordedFrames.Recording log = RecordedFrames.describe(archive, recordingId);
        // Aeron extends one recording for the log: begun by a version that recorded checksums, every frame has one;
        // begun by an earlier one, the frames before the first with one are that version's.
        final RecordedFrames.Result result = frames.check(log, fromPosition, frames.firstDataFrameMatches(log) ?
            RecordedFrames.Checksums.EVERY_FRAME : RecordedFrames.Checksums.FROM_FIRST_MATCH);
        if (result.problem() != null)
        {
            throw new IllegalStateException("the log to replay from position " + result.startPosition() +
                " is damaged: " + result.problem() + "; restore the data directory from a backup (a cluster member " +
                "can also take another member's)");
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        context.log().printf("bourse node %d: checked the log to replay: %,d frames, %,d bytes from log position %,d " +
            "to %,d, in %.3f s%s%n", context.memberId(), result.frames(), result.bytes(), result.startPosition(),
            result.endPosition(), seconds, result.withoutChecksums() == 0 ? "" : String.format(" (%,d recorded " +
            "before the node recorded checksums: their headers checked alone)", result.withoutChecksums()));
        return result.endPosition();
    }
}
