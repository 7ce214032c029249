package io.bourse.app.journal;

import io.aeron.CncFileDescriptor;
import io.aeron.CommonContext;
import io.aeron.cluster.ClusterControl;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;
import io.aeron.cluster.service.ClusterCounters;
import io.bourse.cluster.JournalReplay;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The {@code journal} commands: {@code inspect}, {@code dump} and {@code verify} read a stopped node's data
 * directory; {@code snapshot} asks a running node to take a snapshot.
 */
public final class JournalTool
{
    /**
     * The service id of the exchange service in the recording log (the consensus module's is -1).
     */
    public static final int SERVICE_ID = 0;
    /**
     * How long since its last heartbeat a media driver is taken for stopped: Aeron's clients' own default.
     */
    private static final long DRIVER_HEARTBEAT_TIMEOUT_MS = CommonContext.DEFAULT_DRIVER_TIMEOUT_MS;
    /**
     * How long a driver whose process is not seen is watched for a heartbeat before it is taken for stopped.
     */
    private static final long HEARTBEAT_WATCH_MS = 2_500;

    /**
     * What {@code verify} found.
     *
     * @param snapshotLogPosition 0 when there was no snapshot and the whole log was replayed.
     * @param fragmentChecks      what the checksums of the fragments read (snapshot and log tail) said.
     * @param checkpointsAgreed   state hash checkpoints in the tail whose hashes the replay's agreed with.
     * @param checkpointsDiverged those whose hashes it did not.
     */
    public record VerifyResult(
        long snapshotLogPosition, long snapshotBytes, long messages, long applied, long bytes, long endLogPosition,
        long stateHash, long engineStateHash, int openOrders, long snapshotLoadNs, long replayNs,
        Journal.FragmentChecks fragmentChecks, long checkpointsAgreed, long checkpointsDiverged)
    {
    }

    private final PrintStream out;

    public JournalTool(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * Print recordings, snapshots, and per message type counts and bytes of the log, with first and last times.
     */
    public void inspect(final File dataDir)
    {
        try (Journal journal = Journal.open(dataDir))
        {
            final Journal.Recording log = journal.logRecording();
            out.printf("journal of %s%n%n", dataDir.getAbsolutePath());
            out.println("recordings");
            out.printf("  %4s  %-22s  %14s  %14s  %14s  %s%n", "id", "holds", "start", "stop", "files (B)", "segments");
            for (final Journal.Recording recording : journal.recordings())
            {
                final boolean active = recording.stopPosition() == io.aeron.Aeron.NULL_VALUE;
                out.printf("  %4d  %-22s  %,14d  %14s  %,14d  %d%n", recording.recordingId(),
                    holds(journal, recording, log), journal.firstPosition(recording),
                    active ? String.format("%,d*", journal.endPosition(recording)) :
                        String.format("%,d", recording.stopPosition()),
                    journal.diskBytes(recording.recordingId()), journal.segmentFiles(recording.recordingId()).size());
                if (active)
                {
                    out.println("        * still open in the catalog: the node stopped without closing it (a crash); " +
                        "end found from the frames written");
                }
            }

            out.println();
            out.println("snapshots (recording log)");
            out.printf("  %14s  %-30s  %9s  %-17s  %12s  %s%n", "log position", "time (UTC)", "recording", "of",
                "size (B)", "valid");
            for (final RecordingLog.Entry snapshot : journal.snapshots())
            {
                final Journal.Recording recording = journal.recording(snapshot.recordingId);
                out.printf("  %,14d  %-30s  %9d  %-17s  %12s  %s%n", snapshot.logPosition, time(snapshot.timestamp),
                    snapshot.recordingId, snapshot.serviceId == -1 ? "consensus module" : "service " + snapshot.serviceId,
                    recording == null ? "purged" : String.format("%,d", journal.endPosition(recording) -
                        recording.startPosition()), snapshot.isValid ? "yes" : "no");
            }
            if (journal.snapshots().isEmpty())
            {
                out.println("  none: a restart replays the whole log");
            }

            out.println();
            if (log == null)
            {
                out.println("log: none recorded yet");
                return;
            }
            final long from = journal.firstPosition(log);
            final long end = journal.endPosition(log);
            final RecordingLog.Entry latest = journal.latestSnapshot(SERVICE_ID);
            final long tailFrom = latest == null ? from : latest.logPosition;
            final Tally whole = new Tally();
            final Tally tail = new Tally();
            final LogMessageDecoder decoder = new LogMessageDecoder();
            journal.scan(log, from, end, (buffer, offset, length, start, stop) ->
            {
                decoder.decode(buffer, offset, length);
                whole.add(decoder.type(), length, decoder.timestamp());
                if (start >= tailFrom)
                {
                    tail.add(decoder.type(), length, decoder.timestamp());
                }
            });
            out.printf("log: recording %d, positions %,d to %,d (%,d bytes)%s%n", log.recordingId(), from, end,
                end - from, from > 0 ? ", older segments purged" : "");
            out.printf("  %-24s  %12s  %14s%n", "message type", "count", "bytes");
            for (final Map.Entry<String, long[]> entry : whole.byType.entrySet())
            {
                out.printf("  %-24s  %,12d  %,14d%n", entry.getKey(), entry.getValue()[0], entry.getValue()[1]);
            }
            out.printf("  %-24s  %,12d  %,14d%n", "total", whole.messages, whole.bytes);
            out.printf("  first %s, last %s%n", time(whole.firstTimestamp), time(whole.lastTimestamp));
            out.println();
            out.printf("tail after the latest snapshot (from position %,d), what a restart replays: %,d messages, " +
                "%,d bytes, %,d bytes of log%n", tailFrom, tail.messages, tail.bytes, end - tailFrom);
            for (final Map.Entry<String, long[]> entry : tail.byType.entrySet())
            {
                out.printf("  %-24s  %,12d  %,14d%n", entry.getKey(), entry.getValue()[0], entry.getValue()[1]);
            }
        }
    }

    /**
     * Print one JSON object per log message: type, log positions, timestamp and decoded fields.
     *
     * @param fromSnapshot only the tail after the latest snapshot.
     * @param limit        at most this many messages, 0 for all.
     */
    public void dump(final File dataDir, final boolean fromSnapshot, final long limit)
    {
        try (Journal journal = Journal.open(dataDir))
        {
            final Journal.Recording log = journal.logRecording();
            if (log == null)
            {
                return;
            }
            final RecordingLog.Entry latest = journal.latestSnapshot(SERVICE_ID);
            final long from = fromSnapshot && latest != null ? latest.logPosition : journal.firstPosition(log);
            final LogMessageDecoder decoder = new LogMessageDecoder();
            final StringBuilder line = new StringBuilder(256);
            final long[] count = { 0 };
            journal.scan(log, from, Long.MAX_VALUE, (buffer, offset, length, start, stop) ->
            {
                if (limit > 0 && ++count[0] >= limit)
                {
                    // The rest of the journal is not read at all: it may be gigabytes.
                    journal.stopScan();
                }
                decoder.decode(buffer, offset, length);
                line.setLength(0);
                line.append("{\"type\":\"");
                Json.escape(decoder.type(), line);
                line.append("\",\"logPosition\":").append(start)
                    .append(",\"endLogPosition\":").append(stop)
                    .append(",\"length\":").append(length);
                if (decoder.timestamp() != LogMessageDecoder.NO_TIMESTAMP)
                {
                    line.append(",\"timestamp\":").append(decoder.timestamp());
                }
                decoder.appendJson(line);
                line.append('}');
                out.println(line);
            });
        }
    }

    /**
     * Replay the log from the latest valid snapshot through the exchange service, offline, and report the state
     * hash (comparable with a live node's) with counts, durations and rates.
     */
    public VerifyResult verify(final File dataDir, final int historyCapacityBytes)
    {
        try (Journal journal = Journal.open(dataDir))
        {
            final Journal.Recording log = journal.logRecording();
            final JournalReplay replay = new JournalReplay(historyCapacityBytes);
            final RecordingLog.Entry snapshot = journal.latestSnapshot(SERVICE_ID);
            final long loadStartNs = System.nanoTime();
            long fromPosition = 0;
            if (snapshot != null)
            {
                final Journal.Recording recording = journal.recording(snapshot.recordingId);
                if (recording == null)
                {
                    throw new IllegalStateException("snapshot recording " + snapshot.recordingId + " is not in the catalog");
                }
                journal.scan(recording, recording.startPosition(), Long.MAX_VALUE,
                    (buffer, offset, length, start, stop) -> replay.onSnapshotMessage(buffer, offset, length));
                fromPosition = snapshot.logPosition;
                // Said before the snapshot is loaded: a damaged header ends the scan, and the load would only say the
                // snapshot is cut short.
                failIfDamaged(journal.fragmentChecks());
            }
            replay.start(fromPosition);
            final long snapshotLoadNs = System.nanoTime() - loadStartNs;
            if (log != null && journal.firstPosition(log) > fromPosition)
            {
                throw new IllegalStateException("the log before position " + journal.firstPosition(log) +
                    " was purged, but the latest snapshot is at " + fromPosition);
            }
            final long[] counts = new long[3];
            final long replayStartNs = System.nanoTime();
            final long endPosition = log == null ? fromPosition : journal.scan(log, fromPosition, Long.MAX_VALUE,
                (buffer, offset, length, start, stop) ->
                {
                    counts[0]++;
                    counts[2] += length;
                    if (replay.onLogMessage(buffer, offset, length, stop))
                    {
                        counts[1]++;
                    }
                });
            final long replayNs = System.nanoTime() - replayStartNs;
            final VerifyResult result = new VerifyResult(fromPosition, replay.snapshotBytes(), counts[0], counts[1],
                counts[2], endPosition, replay.stateHash(), replay.engineStateHash(), replay.openOrderCount(),
                snapshotLoadNs, replayNs, journal.fragmentChecks(), replay.checkpointsAgreed(),
                replay.checkpointsDiverged());
            print(result);
            failIfDamaged(result.fragmentChecks());
            if (replay.firstDivergence() != null)
            {
                throw new IllegalStateException("the replay's state went another way than the node's: " +
                    replay.firstDivergence() + " (" + replay.checkpointsDiverged() + " state hash checkpoint(s) " +
                    "disagree); is this tool of the node's version?");
            }
            if (log != null && log.stopPosition() != io.aeron.Aeron.NULL_VALUE && endPosition < log.stopPosition())
            {
                throw new IllegalStateException("the log ends at position " + endPosition + ", before its recording's " +
                    "stop position " + log.stopPosition() + ": the rest is missing or zeroed on disk; restore the data " +
                    "directory from a backup or, in a cluster, from another member");
            }
            return result;
        }
    }

    private static void failIfDamaged(final Journal.FragmentChecks checks)
    {
        if (checks.damaged() > 0)
        {
            throw new IllegalStateException("the journal is damaged: " + checks.damaged() + " fragment(s), the " +
                "first with " + checks.firstDamage() + "; restore the data directory from a backup or, in a " +
                "cluster, from another member");
        }
    }

    /**
     * Ask a running node (through its media driver's counters) to take a snapshot and wait until it is taken.
     *
     * @return true when the snapshot was taken within the timeout.
     */
    public boolean snapshot(final String aeronDirectoryName, final long timeoutNs)
    {
        final File cncFile = new File(aeronDirectoryName, CncFileDescriptor.CNC_FILE);
        if (!cncFile.isFile())
        {
            throw new IllegalStateException("no running node: no media driver at " + aeronDirectoryName +
                " (give the node's --data-dir, or --aeron-dir when it was set)");
        }
        // A node that crashed leaves its media driver's files behind, and a request written to them would wait for
        // the whole timeout: the driver's process, or else its heartbeat (which goes stale only after 10 s), tells a
        // live one.
        final long deadPid = deadDriverProcess(cncFile);
        if (deadPid > 0)
        {
            throw new IllegalStateException("no running node: the media driver at " + aeronDirectoryName +
                " has stopped (its process " + deadPid + " is gone; its files are left from a node that is no " +
                "longer running)");
        }
        if (!driverActive(aeronDirectoryName))
        {
            throw new IllegalStateException("no running node: the media driver at " + aeronDirectoryName +
                " has stopped (its files are left from a node that is no longer running)");
        }
        final CountersReader counters = ClusterControl.mapCounters(cncFile);
        final AtomicCounter toggle = ClusterControl.findControlToggle(counters, 0);
        if (toggle == null)
        {
            throw new IllegalStateException("no consensus module found in the media driver at " + aeronDirectoryName);
        }
        final int snapshotCounterId = ClusterCounters.find(counters, ConsensusModule.Configuration.SNAPSHOT_COUNTER_TYPE_ID, 0);
        final long before = snapshotCounterId == -1 ? 0 : counters.getCounterValue(snapshotCounterId);
        final long startNs = System.nanoTime();
        if (!ClusterControl.ToggleState.SNAPSHOT.toggle(toggle))
        {
            throw new IllegalStateException("the node is busy with another control action (" +
                ClusterControl.ToggleState.get(toggle) + "); try again");
        }
        out.println("snapshot requested");
        while (System.nanoTime() - startNs < timeoutNs)
        {
            if (snapshotCounterId != -1 && counters.getCounterValue(snapshotCounterId) > before)
            {
                out.printf("snapshot taken in %.3f s (snapshots since the node started: %d)%n",
                    (System.nanoTime() - startNs) / 1e9, counters.getCounterValue(snapshotCounterId));
                return true;
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        out.printf("no snapshot within %d s (only the leader takes snapshots; is this node the leader?)%n",
            TimeUnit.NANOSECONDS.toSeconds(timeoutNs));
        return false;
    }

    /**
     * @return the process id the media driver's files name, when no such process runs on this machine and the driver's
     * heartbeat stands still; 0 when it runs (or another process took its id since: the heartbeat check after this
     * one tells then), when its heartbeat moves, or when the files name none.
     */
    private static long deadDriverProcess(final File cncFile)
    {
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(cncFile, "media driver CnC file");
        try
        {
            final UnsafeBuffer metaData = CncFileDescriptor.createMetaDataBuffer(mapped);
            if (metaData.getIntVolatile(CncFileDescriptor.cncVersionOffset(0)) != CncFileDescriptor.CNC_VERSION)
            {
                // Being written by a driver that is starting, or of another Aeron version: the heartbeat check says.
                return 0;
            }
            final long pid = CncFileDescriptor.pid(metaData);
            if (pid <= 0 || ProcessHandle.of(pid).isPresent())
            {
                return 0;
            }
            // No such process here, which is also what a driver in another PID namespace (another container sharing
            // the directory) looks like: a live driver moves its heartbeat on about once a second.
            final ManyToOneRingBuffer toDriver =
                new ManyToOneRingBuffer(CncFileDescriptor.createToDriverBuffer(mapped, metaData));
            final long heartbeatMs = toDriver.consumerHeartbeatTime();
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_WATCH_MS);
            while (System.nanoTime() < deadlineNs)
            {
                if (toDriver.consumerHeartbeatTime() != heartbeatMs)
                {
                    return 0;
                }
                Thread.sleep(50);
            }
            return pid;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 0;
        }
        finally
        {
            IoUtil.unmap(mapped);
        }
    }

    private static boolean driverActive(final String aeronDirectoryName)
    {
        try
        {
            return CommonContext.isDriverActive(new File(aeronDirectoryName), DRIVER_HEARTBEAT_TIMEOUT_MS, ignored -> { });
        }
        catch (final RuntimeException ex)
        {
            // A driver still starting, or one of another Aeron version.
            throw new IllegalStateException("cannot read the media driver's files at " + aeronDirectoryName + ": " +
                ex.getMessage(), ex);
        }
    }

    private void print(final VerifyResult result)
    {
        if (result.snapshotLogPosition() > 0 || result.snapshotBytes() > 0)
        {
            out.printf("snapshot: log position %,d, %,d bytes, loaded in %.3f s (%.1f MB/s)%n",
                result.snapshotLogPosition(), result.snapshotBytes(), result.snapshotLoadNs() / 1e9,
                result.snapshotBytes() / 1e6 / Math.max(result.snapshotLoadNs() / 1e9, 1e-9));
        }
        else
        {
            out.println("snapshot: none, replaying the whole log");
        }
        final double seconds = Math.max(result.replayNs() / 1e9, 1e-9);
        out.printf("log tail: %,d messages (%,d applied: commands and timers), %,d bytes, positions %,d to %,d, " +
            "replayed in %.3f s (%,.0f messages/s, %.1f MB/s)%n", result.messages(), result.applied(), result.bytes(),
            result.snapshotLogPosition(), result.endLogPosition(), result.replayNs() / 1e9, result.messages() / seconds,
            result.bytes() / 1e6 / seconds);
        out.printf("state hash %016x (engine %016x), %,d open orders, at log position %,d%n", result.stateHash(),
            result.engineStateHash(), result.openOrders(), result.endLogPosition());
        final Journal.FragmentChecks checks = result.fragmentChecks();
        out.printf("checksums: %,d fragments match, %,d recorded without a checksum, %,d damaged%n",
            checks.matched(), checks.withoutChecksum(), checks.damaged());
        out.printf("state hash checkpoints: %,d agree with the node's, %,d disagree%n", result.checkpointsAgreed(),
            result.checkpointsDiverged());
        if (checks.tornLastWrite())
        {
            out.println("the log ends in a write torn by a crash, left out (never committed; the node cuts it when " +
                "it next starts)");
        }
    }

    private static String holds(final Journal journal, final Journal.Recording recording, final Journal.Recording log)
    {
        if (log != null && recording.recordingId() == log.recordingId())
        {
            return "log";
        }
        for (final RecordingLog.Entry entry : journal.snapshots())
        {
            if (entry.recordingId == recording.recordingId())
            {
                return "snapshot (" + (entry.serviceId == -1 ? "consensus" : "service " + entry.serviceId) + ")";
            }
        }
        for (final RecordingLog.Entry entry : journal.entries())
        {
            if (entry.recordingId == recording.recordingId())
            {
                return "log (earlier term)";
            }
        }
        return "unreferenced";
    }

    private static String time(final long timestampNs)
    {
        return timestampNs == LogMessageDecoder.NO_TIMESTAMP || timestampNs == Long.MAX_VALUE ? "-" :
            Instant.ofEpochSecond(0, timestampNs).toString();
    }

    private static final class Tally
    {
        private final Map<String, long[]> byType = new TreeMap<>();
        private long messages;
        private long bytes;
        private long firstTimestamp = Long.MAX_VALUE;
        private long lastTimestamp = LogMessageDecoder.NO_TIMESTAMP;

        void add(final String type, final int length, final long timestamp)
        {
            final long[] tally = byType.computeIfAbsent(type, key -> new long[2]);
            tally[0]++;
            tally[1] += length;
            messages++;
            bytes += length;
            if (timestamp != LogMessageDecoder.NO_TIMESTAMP)
            {
                firstTimestamp = Math.min(firstTimestamp, timestamp);
                lastTimestamp = Math.max(lastTimestamp, timestamp);
            }
        }
    }
}
