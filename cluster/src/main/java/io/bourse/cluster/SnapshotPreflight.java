package io.bourse.cluster;

import io.aeron.Aeron;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;
import io.aeron.cluster.codecs.MessageHeaderDecoder;
import org.agrona.concurrent.IdleStrategy;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Start-up check of the snapshots the node is about to recover from, run after the archive starts and before the
 * consensus module does. The latest snapshot of the service is replayed from the local archive and read exactly as
 * the service would read it (chunks in order, complete, CRC-32C). A snapshot that fails is invalidated in the
 * recording log, so that Aeron Cluster recovers from the previous good snapshot, or from the start of the log, and
 * replays the log from there. When neither is left the node refuses to start, naming the file, rather than start
 * with wrong state.
 * <p>
 * The snapshot it read and checked is handed to the service, which then does not read the same recording a second
 * time: on a large book that second read was a third of the restart.
 */
final class SnapshotPreflight
{
    private static final int SERVICE_ID = 0;
    private static final int REPLAY_STREAM_ID = 1_000_107;
    private static final long REPLAY_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private final ClusterNode.Context context;
    private final AeronArchive archive;
    private final ServiceSnapshot serviceSnapshot = new ServiceSnapshot();
    private final RecordedFrames frames;
    private ServiceSnapshot.Loaded lastLoaded;

    /**
     * One snapshot of the cluster: the consensus module's entry and the service's, and what is wrong with it.
     */
    private record Snapshot(RecordingLog.Entry consensusEntry, RecordingLog.Entry serviceEntry)
    {
    }

    /**
     * The service snapshot that passed the check, and the log position it was taken at.
     */
    record Checked(long logPosition, ServiceSnapshot.Loaded loaded)
    {
    }

    SnapshotPreflight(final ClusterNode.Context context, final AeronArchive archive)
    {
        this.context = context;
        this.archive = archive;
        this.frames = new RecordedFrames(context.archiveDir());
    }

    /**
     * Check the latest snapshot and fall back past every bad one.
     *
     * @return the snapshot the node will recover from, read and checked, or null when it recovers from the log alone.
     * @throws IllegalStateException naming the bad snapshot's files when there is nothing good to fall back to.
     */
    Checked run()
    {
        if (!new File(context.clusterDir(), RecordingLog.RECORDING_LOG_FILE_NAME).exists())
        {
            return null;
        }
        try (RecordingLog recordingLog = new RecordingLog(context.clusterDir(), false))
        {
            final List<Snapshot> snapshots = snapshotsNewestFirst(recordingLog);
            int good = 0;
            String firstProblem = null;
            while (good < snapshots.size())
            {
                final String problem = problem(snapshots.get(good));
                if (problem == null)
                {
                    break;
                }
                if (firstProblem == null)
                {
                    firstProblem = problem;
                }
                else
                {
                    context.log().printf("bourse node %d: %s%n", context.memberId(), problem);
                }
                good++;
            }
            final Checked checked = good < snapshots.size() ?
                new Checked(snapshots.get(good).serviceEntry().logPosition, lastLoaded) : null;
            if (good == 0)
            {
                return checked;
            }
            if (good == snapshots.size() && !logStartsAtZero(recordingLog))
            {
                throw new IllegalStateException(firstProblem + ", and no earlier snapshot or " +
                    "complete log is left to recover from");
            }
            for (int i = 0; i < good; i++)
            {
                recordingLog.invalidateLatestSnapshot();
            }
            recordingLog.force(1);
            context.log().printf("bourse node %d: %s; invalidated %d snapshot(s), recovering from %s%n",
                context.memberId(), firstProblem, good, good == snapshots.size() ? "the start of the log" :
                "the snapshot at log position " + snapshots.get(good).consensusEntry().logPosition + " plus the log");
            return checked;
        }
    }

    private static List<Snapshot> snapshotsNewestFirst(final RecordingLog recordingLog)
    {
        final List<RecordingLog.Entry> entries = recordingLog.entries();
        final List<Snapshot> snapshots = new ArrayList<>();
        for (int i = entries.size() - 1; i > 0; i--)
        {
            final RecordingLog.Entry entry = entries.get(i);
            if (entry.isValid && entry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT &&
                entry.serviceId == ConsensusModule.Configuration.SERVICE_ID)
            {
                final RecordingLog.Entry serviceEntry = entries.get(i - 1);
                if (serviceEntry.isValid && serviceEntry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT &&
                    serviceEntry.serviceId == SERVICE_ID && serviceEntry.logPosition == entry.logPosition)
                {
                    snapshots.add(new Snapshot(entry, serviceEntry));
                }
            }
        }
        snapshots.sort((a, b) -> Long.compare(b.consensusEntry().logPosition, a.consensusEntry().logPosition));
        return snapshots;
    }

    /**
     * @return what is wrong with a snapshot, naming its file, or null when it reads back whole.
     */
    private String problem(final Snapshot snapshot)
    {
        final long consensusRecordingId = snapshot.consensusEntry().recordingId;
        if (!isComplete(consensusRecordingId))
        {
            return "consensus module snapshot recording " + consensusRecordingId + " is missing or incomplete (" +
                files(consensusRecordingId) + ")";
        }
        final long recordingId = snapshot.serviceEntry().recordingId;
        // Checked on disk before either is replayed: Aeron's replay of a frame whose header is damaged never ends. The
        // service's chunks carry a CRC-32C of their own, checked as they are read, so its frames' need not be.
        for (final long checkedId : new long[] {consensusRecordingId, recordingId})
        {
            final String damage = frameProblem(checkedId, checkedId == consensusRecordingId);
            if (damage != null)
            {
                return (checkedId == recordingId ? "service" : "consensus module") + " snapshot at log position " +
                    snapshot.serviceEntry().logPosition + " is unusable: " + damage;
            }
        }
        try
        {
            final long startNs = System.nanoTime();
            verifyServiceSnapshot(recordingId, REPLAY_STREAM_ID + (int)(recordingId & 0xFFFF));
            final double seconds = (System.nanoTime() - startNs) / 1e9;
            context.log().printf("bourse node %d: read and checked snapshot: %,d bytes at log position %,d, in %.3f s " +
                "(%.1f MB/s)%n", context.memberId(), lastLoaded.lengthBytes(), snapshot.serviceEntry().logPosition,
                seconds, lastLoaded.lengthBytes() / 1e6 / Math.max(seconds, 1e-9));
            return null;
        }
        catch (final RuntimeException ex)
        {
            return "service snapshot at log position " + snapshot.serviceEntry().logPosition + " in " +
                files(recordingId) + " is unusable: " + ex.getMessage();
        }
    }

    /**
     * @param checksums whether to check the frames' checksums (the consensus module's snapshot, whose messages carry
     *                  none of their own).
     */
    private String frameProblem(final long recordingId, final boolean checksums)
    {
        try
        {
            return frames.check(RecordedFrames.describe(archive, recordingId), 0,
                checksums ? RecordedFrames.Checksums.ALL_OR_NONE : RecordedFrames.Checksums.NONE).problem();
        }
        catch (final RuntimeException ex)
        {
            return "recording " + recordingId + " cannot be read (" + files(recordingId) + "): " + ex.getMessage();
        }
    }

    private boolean isComplete(final long recordingId)
    {
        try
        {
            return archive.getStopPosition(recordingId) != AeronArchive.NULL_POSITION;
        }
        catch (final RuntimeException ex)
        {
            return false;
        }
    }

    private void verifyServiceSnapshot(final long recordingId, final int streamId)
    {
        final long startPosition = archive.getStartPosition(recordingId);
        final long stopPosition = archive.getStopPosition(recordingId);
        if (stopPosition == AeronArchive.NULL_POSITION)
        {
            throw new IllegalStateException("recording was never stopped");
        }
        final Aeron aeron = archive.context().aeron();
        final String channel = "aeron:ipc";
        try (Subscription subscription = aeron.addSubscription(channel, streamId))
        {
            final int sessionId = (int)archive.startReplay(
                recordingId, startPosition, stopPosition - startPosition, channel, streamId);
            final DeadlineIdleStrategy idle = new DeadlineIdleStrategy(System.nanoTime() + REPLAY_TIMEOUT_NS);
            Image image;
            while ((image = subscription.imageBySessionId(sessionId)) == null)
            {
                idle.idle();
            }
            skipSnapshotBeginMarker(image, idle);
            lastLoaded = serviceSnapshot.load(image, idle);
        }
    }

    /**
     * The container writes Aeron's own records (begin marker, client sessions) ahead of the service's state, and
     * reads them before the service sees the image.
     */
    private static void skipSnapshotBeginMarker(final Image image, final IdleStrategy idle)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final boolean[] serviceStateReached = { false };
        int aeronRecords = 0;
        while (!serviceStateReached[0])
        {
            final int fragments = image.controlledPoll((buffer, offset, length, frameHeader) ->
            {
                if (header.wrap(buffer, offset).schemaId() == MessageHeaderDecoder.SCHEMA_ID)
                {
                    return ControlledFragmentHandler.Action.CONTINUE;
                }
                serviceStateReached[0] = true;
                return ControlledFragmentHandler.Action.ABORT;
            }, 1);
            aeronRecords += fragments;
            if (fragments == 0 && !serviceStateReached[0])
            {
                if (image.isEndOfStream() || image.isClosed())
                {
                    throw new IllegalStateException("snapshot ended before the service's state");
                }
                idle.idle();
            }
        }
        if (aeronRecords == 0)
        {
            throw new IllegalStateException("snapshot does not start with a snapshot marker");
        }
    }

    private boolean logStartsAtZero(final RecordingLog recordingLog)
    {
        for (final RecordingLog.Entry entry : recordingLog.entries())
        {
            if (entry.isValid && entry.type == RecordingLog.ENTRY_TYPE_TERM)
            {
                try
                {
                    return entry.termBaseLogPosition == 0 && archive.getStartPosition(entry.recordingId) == 0;
                }
                catch (final RuntimeException ex)
                {
                    return false;
                }
            }
        }
        return false;
    }

    private String files(final long recordingId)
    {
        final File[] files = context.archiveDir().listFiles((dir, name) ->
            name.startsWith(recordingId + "-") && name.endsWith(".rec"));
        if (files == null || files.length == 0)
        {
            return new File(context.archiveDir(), recordingId + "-*.rec") + " (no such file)";
        }
        final StringBuilder names = new StringBuilder();
        for (final File file : files)
        {
            names.append(names.isEmpty() ? "" : ", ").append(file.getPath());
        }
        return names.toString();
    }

    /**
     * Sleeps between polls and gives up at a deadline, so that a replay that stalls ends the check.
     */
    private static final class DeadlineIdleStrategy implements IdleStrategy
    {
        private final long deadlineNs;

        DeadlineIdleStrategy(final long deadlineNs)
        {
            this.deadlineNs = deadlineNs;
        }

        public void idle(final int workCount)
        {
            if (workCount <= 0)
            {
                idle();
            }
        }

        public void idle()
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("replay stalled for " +
                    TimeUnit.NANOSECONDS.toSeconds(REPLAY_TIMEOUT_NS) + " s");
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", ex);
            }
        }

        public void reset()
        {
        }
    }
}
