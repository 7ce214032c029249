package io.bourse.app.journal;

import io.aeron.Aeron;
import io.aeron.archive.CatalogView;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.RecordingLog;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import io.bourse.cluster.DataDirectoryLock;
import io.bourse.cluster.RecordChecksum;
import io.bourse.cluster.RecordedFrames;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A stopped node's journal, read straight from its files without Aeron running: the archive's catalog and
 * recording segment files under {@code <data>/archive}, and the cluster's recording log under {@code <data>/cluster}
 * (which recordings hold the log and which hold snapshots). The data directory is locked while open, so that a
 * node cannot start meanwhile.
 */
public final class Journal implements AutoCloseable
{
    /**
     * One recording of the archive, as its catalog describes it.
     *
     * @param stopPosition {@link Aeron#NULL_VALUE} when the recording was still active when its node stopped
     *                     (a crash); its end is then where the written frames end.
     */
    public record Recording(
        long recordingId, long startTimestampMs, long stopTimestampMs, long startPosition, long stopPosition,
        int initialTermId, int segmentFileLength, int termBufferLength, int streamId, String channel)
    {
        /**
         * Where its frames lie, for checking their headers.
         */
        RecordedFrames.Recording frames()
        {
            return new RecordedFrames.Recording(recordingId, startPosition, stopPosition, initialTermId,
                termBufferLength, segmentFileLength, streamId);
        }
    }

    /**
     * Receives whole messages (fragments reassembled) of a recording, in order.
     */
    @FunctionalInterface
    public interface MessageHandler
    {
        /**
         * @param startPosition position of the message's first frame.
         * @param endPosition   position after its last frame: the log position a clustered service sees for it.
         */
        void onMessage(DirectBuffer buffer, int offset, int length, long startPosition, long endPosition);
    }

    /**
     * What the data fragments' checksums said, over every scan since the journal was opened. The node records a
     * CRC-32C of each data fragment in its header; a journal recorded before it did has none, which shows as
     * fragments that do not match before the first one that does.
     *
     * @param matched              fragments whose bytes match their checksum.
     * @param withoutChecksum      fragments before the first match of their scan: recorded without checksums.
     * @param damaged              fragments after a match whose bytes do not match: damaged since they were written.
     * @param firstDamagedPosition the position of the first damaged fragment, or -1.
     * @param firstDamage          what is wrong with it, or null.
     * @param tornLastWrite        whether a scan ended at a last fragment that a crash tore (the node cuts it when it
     *                             next starts; it was never committed).
     */
    public record FragmentChecks(
        long matched, long withoutChecksum, long damaged, long firstDamagedPosition, String firstDamage,
        boolean tornLastWrite)
    {
    }

    /**
     * The page size the archive judges torn writes by.
     */
    private static final int PAGE_SIZE = 4096;

    private final File dataDir;
    private final File archiveDir;
    private long checksumsMatched;
    private long checksumsMissing;
    private long fragmentsDamaged;
    private long firstDamagedPosition = -1;
    private String firstDamage;
    private boolean tornLastWrite;
    /**
     * Set by a handler that has seen what it wants: the scan ends after the message it was handed.
     */
    private boolean scanStopped;
    private final DataDirectoryLock lock;
    private final Map<Long, Recording> recordings = new TreeMap<>();
    private final List<RecordingLog.Entry> entries;
    private final Map<Long, Long> foundEndPositions = new TreeMap<>();

    private Journal(final File dataDir)
    {
        this.dataDir = dataDir;
        this.archiveDir = new File(dataDir, "archive");
        final File clusterDir = new File(dataDir, "cluster");
        if (!new File(archiveDir, "archive.catalog").isFile() ||
            !new File(clusterDir, RecordingLog.RECORDING_LOG_FILE_NAME).isFile())
        {
            throw new IllegalArgumentException("no journal in " + dataDir.getAbsolutePath() +
                " (expected archive/archive.catalog and cluster/recording.log)");
        }
        lock = DataDirectoryLock.tryAcquire(dataDir);
        if (lock == null)
        {
            throw new IllegalStateException("a node is running on " + dataDir.getAbsolutePath() +
                "; the journal tools read a stopped node's data (use 'journal snapshot' on a running one)");
        }
        CatalogView.listRecordings(archiveDir, (controlSessionId, correlationId, recordingId, startTimestamp,
            stopTimestamp, startPosition, stopPosition, initialTermId, segmentFileLength, termBufferLength,
            mtuLength, sessionId, streamId, strippedChannel, originalChannel, sourceIdentity) ->
            recordings.put(recordingId, new Recording(recordingId, startTimestamp, stopTimestamp, startPosition,
                stopPosition, initialTermId, segmentFileLength, termBufferLength, streamId, strippedChannel)));
        try (RecordingLog recordingLog = new RecordingLog(clusterDir, false))
        {
            entries = List.copyOf(recordingLog.entries());
        }
    }

    /**
     * Open a stopped node's journal.
     *
     * @throws IllegalStateException    when a node is running on the directory.
     * @throws IllegalArgumentException when the directory holds no journal.
     */
    public static Journal open(final File dataDir)
    {
        return new Journal(dataDir);
    }

    public File dataDir()
    {
        return dataDir;
    }

    public List<Recording> recordings()
    {
        return List.copyOf(recordings.values());
    }

    public Recording recording(final long recordingId)
    {
        return recordings.get(recordingId);
    }

    /**
     * @return the recording log's entries: terms of the log and snapshots, oldest first.
     */
    public List<RecordingLog.Entry> entries()
    {
        return entries;
    }

    /**
     * @return the recording holding the cluster log (that of the latest term), or null when there is none.
     */
    public Recording logRecording()
    {
        RecordingLog.Entry term = null;
        for (final RecordingLog.Entry entry : entries)
        {
            if (entry.type == RecordingLog.ENTRY_TYPE_TERM && entry.isValid)
            {
                term = entry;
            }
        }
        return term == null ? null : recordings.get(term.recordingId);
    }

    /**
     * @return the snapshots in the recording log, oldest first, including the consensus module's (service id -1).
     */
    public List<RecordingLog.Entry> snapshots()
    {
        final List<RecordingLog.Entry> snapshots = new ArrayList<>();
        for (final RecordingLog.Entry entry : entries)
        {
            if (entry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT)
            {
                snapshots.add(entry);
            }
        }
        return snapshots;
    }

    /**
     * @return the latest valid snapshot of the given service, or null.
     */
    public RecordingLog.Entry latestSnapshot(final int serviceId)
    {
        RecordingLog.Entry latest = null;
        for (final RecordingLog.Entry entry : snapshots())
        {
            if (entry.serviceId == serviceId && entry.isValid)
            {
                latest = entry;
            }
        }
        return latest;
    }

    /**
     * @return the segment files a recording has on disk, by base position.
     */
    public TreeMap<Long, File> segmentFiles(final long recordingId)
    {
        final TreeMap<Long, File> files = new TreeMap<>();
        final String prefix = recordingId + "-";
        final File[] found = archiveDir.listFiles((dir, name) -> name.startsWith(prefix) && name.endsWith(".rec"));
        if (found != null)
        {
            for (final File file : found)
            {
                final String name = file.getName();
                try
                {
                    files.put(Long.parseLong(name.substring(prefix.length(), name.length() - 4)), file);
                }
                catch (final NumberFormatException ignore)
                {
                    // Not a segment file name.
                }
            }
        }
        return files;
    }

    /**
     * @return bytes the recording's segment files take on disk (sparse files count what is allocated, as
     *         reported by their length).
     */
    public long diskBytes(final long recordingId)
    {
        long bytes = 0;
        for (final File file : segmentFiles(recordingId).values())
        {
            bytes += file.length();
        }
        return bytes;
    }

    /**
     * @return where the recording's data ends: its stop position, or after a crash where its written frames end.
     */
    public long endPosition(final Recording recording)
    {
        if (recording.stopPosition() != Aeron.NULL_VALUE)
        {
            return recording.stopPosition();
        }
        return foundEndPositions.computeIfAbsent(recording.recordingId(), recordingId ->
            scan(recording, firstPosition(recording), Long.MAX_VALUE, (buffer, offset, length, start, end) -> {}));
    }

    /**
     * @return the first position whose data is still on disk: the start, or the base of the oldest segment kept.
     */
    public long firstPosition(final Recording recording)
    {
        final TreeMap<Long, File> files = segmentFiles(recording.recordingId());
        return files.isEmpty() ? recording.startPosition() : Math.max(recording.startPosition(), files.firstKey());
    }

    /**
     * Read the whole messages of a recording from {@code fromPosition} (a message boundary) up to
     * {@code toPosition} or the end of its data.
     *
     * @return the position after the last message read.
     */
    public long scan(final Recording recording, final long fromPosition, final long toPosition, final MessageHandler handler)
    {
        final long limit = recording.stopPosition() == Aeron.NULL_VALUE ? toPosition :
            Math.min(toPosition, recording.stopPosition());
        final RecordedFrames.Recording frames = recording.frames();
        final ExpandableArrayBuffer assembly = new ExpandableArrayBuffer(4096);
        boolean checksummed = false;
        int assembledLength = 0;
        long assemblyStart = 0;
        long position = fromPosition;
        long messageEnd = fromPosition;
        scanStopped = false;
        while (position < limit && !scanStopped)
        {
            final long segmentBase = AeronArchive.segmentFileBasePosition(
                recording.startPosition(), position, recording.termBufferLength(), recording.segmentFileLength());
            final File file = new File(archiveDir, recording.recordingId() + "-" + segmentBase + ".rec");
            if (!file.isFile())
            {
                break;
            }
            final MappedByteBuffer mapped = map(file);
            try
            {
                final UnsafeBuffer segment = new UnsafeBuffer(mapped);
                final long segmentEnd = segmentBase + segment.capacity();
                while (position < limit && position < segmentEnd && !scanStopped)
                {
                    final int offset = (int)(position - segmentBase);
                    final int frameLength = segment.getIntVolatile(offset);
                    if (frameLength == 0)
                    {
                        return messageEnd;
                    }
                    final String headerProblem = RecordedFrames.headerProblem(segment, offset, position, frames);
                    if (headerProblem != null)
                    {
                        // Its length cannot be trusted, so neither can where the frames after it start.
                        fragmentsDamaged++;
                        firstDamagedPosition = firstDamagedPosition == -1 ? position : firstDamagedPosition;
                        firstDamage = firstDamage == null ? "a header at position " + position + " that does not " +
                            "fit where it lies (" + headerProblem + "): the frames after it cannot be read" :
                            firstDamage;
                        return messageEnd;
                    }
                    final int alignedLength = BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT);
                    final long nextPosition = position + alignedLength;
                    if (segment.getShort(offset + DataHeaderFlyweight.TYPE_FIELD_OFFSET) == DataHeaderFlyweight.HDR_TYPE_DATA)
                    {
                        if (RecordChecksum.frameMatches(mapped, offset, alignedLength))
                        {
                            checksumsMatched++;
                            checksummed = true;
                        }
                        else if (recording.stopPosition() == Aeron.NULL_VALUE &&
                            (nextPosition >= segmentEnd || segment.getIntVolatile((int)(nextPosition - segmentBase)) == 0) &&
                            runsIntoAnEmptyPage(segment, offset, alignedLength))
                        {
                            // The open recording's last fragment, not wholly written when the node was killed: what
                            // the archive takes for a torn write, and the node cuts when it next starts.
                            tornLastWrite = true;
                            return messageEnd;
                        }
                        else if (!checksummed)
                        {
                            checksumsMissing++;
                        }
                        else
                        {
                            fragmentsDamaged++;
                            firstDamagedPosition = firstDamagedPosition == -1 ? position : firstDamagedPosition;
                            firstDamage = firstDamage == null ? "bytes at position " + position + " that no longer " +
                                "match their checksum" : firstDamage;
                        }
                        final byte flags = segment.getByte(offset + DataHeaderFlyweight.FLAGS_FIELD_OFFSET);
                        final int payloadOffset = offset + DataHeaderFlyweight.HEADER_LENGTH;
                        final int payloadLength = frameLength - DataHeaderFlyweight.HEADER_LENGTH;
                        if ((flags & FrameDescriptor.UNFRAGMENTED) == FrameDescriptor.UNFRAGMENTED)
                        {
                            handler.onMessage(segment, payloadOffset, payloadLength, position, nextPosition);
                            messageEnd = nextPosition;
                        }
                        else if ((flags & FrameDescriptor.BEGIN_FRAG_FLAG) != 0)
                        {
                            assembly.putBytes(0, segment, payloadOffset, payloadLength);
                            assembledLength = payloadLength;
                            assemblyStart = position;
                        }
                        else if (assembledLength > 0)
                        {
                            assembly.putBytes(assembledLength, segment, payloadOffset, payloadLength);
                            assembledLength += payloadLength;
                            if ((flags & FrameDescriptor.END_FRAG_FLAG) != 0)
                            {
                                handler.onMessage(assembly, 0, assembledLength, assemblyStart, nextPosition);
                                assembledLength = 0;
                                messageEnd = nextPosition;
                            }
                        }
                    }
                    else
                    {
                        messageEnd = nextPosition;
                    }
                    position = nextPosition;
                }
            }
            finally
            {
                IoUtil.unmap(mapped);
            }
        }
        return messageEnd;
    }

    /**
     * End the scan under way after the message being handled.
     */
    public void stopScan()
    {
        scanStopped = true;
    }

    public void close()
    {
        lock.close();
    }

    /**
     * @return what the fragments' checksums said in the scans so far.
     */
    public FragmentChecks fragmentChecks()
    {
        return new FragmentChecks(checksumsMatched, checksumsMissing, fragmentsDamaged, firstDamagedPosition,
            firstDamage, tornLastWrite);
    }

    /**
     * @return whether the fragment spans a page boundary and a page after it holds only zeros within the fragment.
     */
    private static boolean runsIntoAnEmptyPage(final UnsafeBuffer segment, final int offset, final int alignedLength)
    {
        final int end = Math.min(offset + alignedLength, segment.capacity());
        for (int page = (offset / PAGE_SIZE + 1) * PAGE_SIZE; page < end; page += PAGE_SIZE)
        {
            boolean empty = true;
            for (int i = page; i < Math.min(page + PAGE_SIZE, end) && empty; i++)
            {
                empty = segment.getByte(i) == 0;
            }
            if (empty)
            {
                return true;
            }
        }
        return false;
    }

    private static MappedByteBuffer map(final File file)
    {
        try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.READ))
        {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read " + file + ": " + ex.getMessage(), ex);
        }
    }
}
