package io.bourse.cluster;

import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a stopped or running node's journal files for tests: the recording log's entries and the archive's
 * segment files ({@code <recordingId>-<segmentBasePosition>.rec}).
 */
final class JournalFiles
{
    private static final int FRAME_HEADER_LENGTH = io.aeron.protocol.DataHeaderFlyweight.HEADER_LENGTH;
    private static final int FRAME_ALIGNMENT = io.aeron.logbuffer.FrameDescriptor.FRAME_ALIGNMENT;

    private final File dataDir;

    JournalFiles(final File dataDir)
    {
        this.dataDir = dataDir;
    }

    /**
     * @return valid snapshot entries of the given service (0 for the exchange, -1 for the consensus module), oldest first.
     */
    List<RecordingLog.Entry> snapshots(final int serviceId)
    {
        final List<RecordingLog.Entry> snapshots = new ArrayList<>();
        try (RecordingLog recordingLog = new RecordingLog(new File(dataDir, "cluster"), false))
        {
            for (final RecordingLog.Entry entry : recordingLog.entries())
            {
                if (entry.isValid && entry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT && entry.serviceId == serviceId)
                {
                    snapshots.add(entry);
                }
            }
        }
        snapshots.sort((a, b) -> Long.compare(a.logPosition, b.logPosition));
        return snapshots;
    }

    String describe()
    {
        try (RecordingLog recordingLog = new RecordingLog(new File(dataDir, "cluster"), false))
        {
            return recordingLog.toString();
        }
    }

    RecordingLog.Entry latestServiceSnapshot()
    {
        final List<RecordingLog.Entry> snapshots = snapshots(0);
        return snapshots.get(snapshots.size() - 1);
    }

    long logRecordingId()
    {
        try (RecordingLog recordingLog = new RecordingLog(new File(dataDir, "cluster"), false))
        {
            return recordingLog.findLastTermRecordingId();
        }
    }

    static int consensusModuleServiceId()
    {
        return ConsensusModule.Configuration.SERVICE_ID;
    }

    /**
     * @return the recording's segment files, in position order.
     */
    File[] segmentFiles(final long recordingId)
    {
        final File[] files = new File(dataDir, "archive").listFiles((dir, name) ->
            name.startsWith(recordingId + "-") && name.endsWith(".rec"));
        final File[] sorted = files == null ? new File[0] : files;
        Arrays.sort(sorted, (a, b) -> Long.compare(segmentBase(a), segmentBase(b)));
        return sorted;
    }

    static long segmentBase(final File segmentFile)
    {
        final String name = segmentFile.getName();
        return Long.parseLong(name.substring(name.indexOf('-') + 1, name.length() - ".rec".length()));
    }

    /**
     * @return the length of a segment file up to its last non-zero byte: segment files may be pre-allocated.
     */
    static long dataLength(final File file) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "r"))
        {
            final byte[] bytes = new byte[(int)raf.length()];
            raf.readFully(bytes);
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] == 0)
            {
                end--;
            }
            return end;
        }
    }

    /**
     * Flip 8 bytes of a recording segment in the middle of its data, within the message of the data frame there (or
     * of the next data frame whose message is long enough), never in a frame's header ({@link #damageFrameType}
     * damages one). A damaged message is what a node must find.
     */
    static void flipMessageBytesInTheMiddle(final File file) throws IOException
    {
        flipMessageBytesAfter(file, dataLength(file) / 2);
    }

    /**
     * Flip 8 bytes of the message of the first data frame of a segment file that ends after {@code offset} and whose
     * message is long enough.
     *
     * @return the offset of the frame damaged.
     */
    static long flipMessageBytesAfter(final File file, final long offset) throws IOException
    {
        final int count = 8;
        final long frame = dataFrameAfter(file, offset, count);
        final int frameLength = readFrameLength(file, frame);
        flipBytes(file, Math.max(frame + FRAME_HEADER_LENGTH, Math.min(offset, frame + frameLength - count)), count);
        return frame;
    }

    /**
     * Change the type in the header of the data frame in the middle of a segment file's data to one Aeron has no
     * such type for: Aeron's archive replays such a frame by looping for ever (its ReplaySession reads the frame
     * again and again), and the archive then never closes.
     */
    static void damageFrameType(final File file) throws IOException
    {
        final long frame = dataFrameAfter(file, dataLength(file) / 2, 0);
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.seek(frame + io.aeron.protocol.HeaderFlyweight.TYPE_FIELD_OFFSET);
            raf.writeShort(Short.reverseBytes((short)7));
        }
    }

    /**
     * Change a hash in the state hash checkpoint a segment file holds (the first), and record the frame's checksum
     * again, as a member whose state went another way would have sent it: a frame that is whole, with another
     * member's hash.
     *
     * @param engine whether to change the engine's hash, or the service's.
     * @return the log position the checkpoint names.
     */
    static long alterCheckpointHash(final File file, final boolean engine) throws IOException
    {
        // Data frame header (32), Aeron Cluster's session header (32), our message header (8), then the checkpoint's
        // logPosition, stateHash, engineStateHash and memberId.
        final int message = FRAME_HEADER_LENGTH + 32;
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            long frame = 0;
            while (frame + FRAME_HEADER_LENGTH <= raf.length())
            {
                raf.seek(frame);
                final int frameLength = Integer.reverseBytes(raf.readInt());
                if (frameLength <= 0)
                {
                    break;
                }
                final int aligned = (frameLength + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT;
                final byte[] bytes = new byte[aligned];
                raf.seek(frame);
                raf.readFully(bytes);
                final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                if (frameLength >= message + 8 + io.bourse.protocol.cluster.StateHashCheckpointDecoder.BLOCK_LENGTH &&
                    buffer.getShort(io.aeron.protocol.HeaderFlyweight.TYPE_FIELD_OFFSET) ==
                    io.aeron.protocol.HeaderFlyweight.HDR_TYPE_DATA &&
                    buffer.getShort(message + 2) == io.bourse.protocol.cluster.StateHashCheckpointDecoder.TEMPLATE_ID &&
                    buffer.getShort(message + 4) == io.bourse.protocol.cluster.StateHashCheckpointDecoder.SCHEMA_ID)
                {
                    final int hash = message + 8 + (engine ? 16 : 8);
                    buffer.putLong(hash, ~buffer.getLong(hash));
                    final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                    crc.update(bytes, FRAME_HEADER_LENGTH, aligned - FRAME_HEADER_LENGTH);
                    buffer.putInt(io.aeron.protocol.DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET, (int)crc.getValue());
                    raf.seek(frame);
                    raf.write(bytes);
                    return buffer.getLong(message + 8);
                }
                frame += aligned;
            }
        }
        throw new IllegalStateException("no state hash checkpoint in " + file);
    }

    private static long dataFrameAfter(final File file, final long offset, final int messageLength) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "r"))
        {
            long frame = 0;
            while (frame + FRAME_HEADER_LENGTH <= raf.length())
            {
                raf.seek(frame);
                final int frameLength = Integer.reverseBytes(raf.readInt());
                if (frameLength <= 0 || frameLength > raf.length() - frame)
                {
                    break;
                }
                raf.seek(frame + io.aeron.protocol.HeaderFlyweight.TYPE_FIELD_OFFSET);
                final boolean data =
                    Short.reverseBytes(raf.readShort()) == io.aeron.protocol.HeaderFlyweight.HDR_TYPE_DATA;
                final long next = frame + ((frameLength + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT);
                if (data && next > offset && frameLength - FRAME_HEADER_LENGTH >= messageLength)
                {
                    return frame;
                }
                frame = next;
            }
        }
        throw new IllegalStateException(
            "no data frame with a message of " + messageLength + " bytes after offset " + offset + " of " + file);
    }

    private static int readFrameLength(final File file, final long frame) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "r"))
        {
            raf.seek(frame);
            return Integer.reverseBytes(raf.readInt());
        }
    }

    private static void flipBytes(final File file, final long position, final int count) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            for (int i = 0; i < count; i++)
            {
                raf.seek(position + i);
                final int value = raf.read();
                raf.seek(position + i);
                raf.write(value ^ 0xFF);
            }
        }
    }

    static void truncate(final File file, final long length) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.setLength(length);
        }
    }
}
