package io.bourse.cluster;

import io.aeron.archive.client.AeronArchive;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Checks a recording's frames as they lie in its segment files, before anything replays them.
 * <p>
 * Aeron's archive replays what its files hold without looking: a frame whose header was damaged on disk, so that its
 * type is neither data nor padding, makes its replay loop for ever (the node would hang at start, and its archive
 * never close), and a data frame whose message was damaged is replayed as it is (the engine would apply a command no
 * client sent and recover to a state no client was told of). Every frame's header is checked against where it lies
 * (its type, length, term id and offset, stream), and every data frame's bytes against the CRC-32C the node's archive
 * recorded in it ({@link RecordChecksum}). A data frame without a matching checksum before the first one with one was
 * recorded before the node recorded checksums and is not judged (a damaged one there cannot be told from it).
 */
public final class RecordedFrames
{
    /**
     * Where a recording's frames lie: the catalog's description of it.
     *
     * @param stopPosition {@link AeronArchive#NULL_POSITION} for a recording never stopped: its frames are read up to
     *                     the first unwritten one.
     */
    public record Recording(
        long recordingId, long startPosition, long stopPosition, int initialTermId, int termBufferLength,
        long segmentFileLength, int streamId)
    {
    }

    /**
     * What a check read: the frames and bytes it checked and where it stopped.
     *
     * @param problem what is wrong with the first bad frame, naming its file and position, or null when every frame
     *                read is sound.
     */
    public record Result(long frames, long bytes, long endPosition, String problem)
    {
    }

    private final File archiveDir;
    private final CRC32C crc = new CRC32C();

    public RecordedFrames(final File archiveDir)
    {
        this.archiveDir = archiveDir;
    }

    /**
     * Check the frames of a recording from {@code fromPosition} (a frame boundary) to its stop position or, for one
     * never stopped, its last written frame. A frame missing before the stop position (a segment file gone, or zeros
     * where the catalog says frames were recorded) is a problem too.
     */
    public Result check(final Recording recording, final long fromPosition)
    {
        final long stopPosition = recording.stopPosition();
        long position = Math.max(fromPosition, recording.startPosition());
        long frames = 0;
        boolean checksummed = false;
        while (stopPosition == AeronArchive.NULL_POSITION || position < stopPosition)
        {
            final long segmentBase = AeronArchive.segmentFileBasePosition(recording.startPosition(), position,
                recording.termBufferLength(), (int)recording.segmentFileLength());
            final File file = segmentFile(recording.recordingId(), segmentBase);
            if (!file.isFile())
            {
                return stopPosition == AeronArchive.NULL_POSITION ?
                    new Result(frames, position - fromPosition, position, null) :
                    new Result(frames, position - fromPosition, position, "segment file " + file.getPath() +
                        " is missing: the recording's frames from position " + position + " to its stop position " +
                        stopPosition + " are not on disk");
            }
            final MappedByteBuffer mapped = map(file);
            try
            {
                final UnsafeBuffer segment = new UnsafeBuffer(mapped);
                final ByteBuffer view = mapped.duplicate();
                final long segmentEnd = segmentBase + segment.capacity();
                while ((stopPosition == AeronArchive.NULL_POSITION || position < stopPosition) && position < segmentEnd)
                {
                    final int offset = (int)(position - segmentBase);
                    final int frameLength = offset + DataHeaderFlyweight.HEADER_LENGTH > segment.capacity() ? 0 :
                        segment.getInt(offset);
                    if (frameLength == 0)
                    {
                        return stopPosition == AeronArchive.NULL_POSITION ?
                            new Result(frames, position - fromPosition, position, null) :
                            new Result(frames, position - fromPosition, position, "no frame at position " + position +
                                " in " + file.getPath() + " (zeros), before the recording's stop position " +
                                stopPosition + ": the rest of the recording is missing on disk");
                    }
                    final String headerProblem = headerProblem(segment, offset, position, recording);
                    if (headerProblem != null)
                    {
                        return new Result(frames, position - fromPosition, position, "damaged frame header at " +
                            "position " + position + " in " + file.getPath() + " (offset " + offset + "): " +
                            headerProblem);
                    }
                    final int alignedLength = BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT);
                    if (segment.getShort(offset + DataHeaderFlyweight.TYPE_FIELD_OFFSET) == DataHeaderFlyweight.HDR_TYPE_DATA)
                    {
                        if (checksumMatches(view, segment, offset, alignedLength))
                        {
                            checksummed = true;
                        }
                        else if (checksummed)
                        {
                            return new Result(frames, position - fromPosition, position, "damaged frame at position " +
                                position + " in " + file.getPath() + " (offset " + offset + "): its bytes no longer " +
                                "match the checksum recorded with them");
                        }
                    }
                    frames++;
                    position += alignedLength;
                }
            }
            finally
            {
                IoUtil.unmap(mapped);
            }
        }
        return new Result(frames, position - fromPosition, position, null);
    }

    /**
     * What is wrong with the header of a recorded frame of non-zero length, or null when it is what the recording's
     * frame at {@code position} must be.
     *
     * @param segment the segment file's bytes (little-endian, as Aeron writes them).
     * @param offset  where the frame starts in {@code segment}, at least a header's length before its end.
     */
    public static String headerProblem(
        final DirectBuffer segment, final int offset, final long position, final Recording recording)
    {
        final int frameLength = segment.getInt(offset + DataHeaderFlyweight.FRAME_LENGTH_FIELD_OFFSET);
        final int type = segment.getShort(offset + DataHeaderFlyweight.TYPE_FIELD_OFFSET) & 0xFFFF;
        final int termLength = recording.termBufferLength();
        final int termOffset = (int)(position & (termLength - 1));
        final int termId = recording.initialTermId() + (int)(position >>> Integer.numberOfTrailingZeros(termLength));
        if (type != DataHeaderFlyweight.HDR_TYPE_DATA && type != DataHeaderFlyweight.HDR_TYPE_PAD)
        {
            return "type " + type + " is neither data nor padding";
        }
        if (frameLength < DataHeaderFlyweight.HEADER_LENGTH ||
            termOffset + (long)BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT) > termLength)
        {
            return "length " + frameLength + " does not fit the term from offset " + termOffset;
        }
        if (segment.getInt(offset + DataHeaderFlyweight.TERM_OFFSET_FIELD_OFFSET) != termOffset)
        {
            return "term offset " + segment.getInt(offset + DataHeaderFlyweight.TERM_OFFSET_FIELD_OFFSET) +
                " where the frame lies at " + termOffset;
        }
        if (segment.getInt(offset + DataHeaderFlyweight.TERM_ID_FIELD_OFFSET) != termId)
        {
            return "term id " + segment.getInt(offset + DataHeaderFlyweight.TERM_ID_FIELD_OFFSET) +
                " where the frame lies in term " + termId;
        }
        if (segment.getInt(offset + DataHeaderFlyweight.STREAM_ID_FIELD_OFFSET) != recording.streamId())
        {
            return "stream id " + segment.getInt(offset + DataHeaderFlyweight.STREAM_ID_FIELD_OFFSET) +
                " where the recording is of stream " + recording.streamId();
        }
        return null;
    }

    /**
     * The recording's description, as its archive has it.
     */
    public static Recording describe(final AeronArchive archive, final long recordingId)
    {
        final Recording[] found = new Recording[1];
        archive.listRecording(recordingId, (controlSessionId, correlationId, id, startTimestamp, stopTimestamp,
            startPosition, stopPosition, initialTermId, segmentFileLength, termBufferLength, mtuLength, sessionId,
            streamId, strippedChannel, originalChannel, sourceIdentity) ->
            found[0] = new Recording(id, startPosition, stopPosition, initialTermId, termBufferLength,
                segmentFileLength, streamId));
        if (found[0] == null)
        {
            throw new IllegalStateException("recording " + recordingId + " is not in the archive's catalog");
        }
        return found[0];
    }

    private File segmentFile(final long recordingId, final long segmentBase)
    {
        return new File(archiveDir, recordingId + "-" + segmentBase + ".rec");
    }

    /**
     * Whether a data frame's bytes after its header match the CRC-32C the archive recorded in its session id field
     * (the frame cut short at the end of the file, as {@link RecordChecksum#frameMatches} reads it).
     */
    private boolean checksumMatches(
        final ByteBuffer view, final UnsafeBuffer segment, final int offset, final int alignedLength)
    {
        view.clear().limit(Math.min(offset + alignedLength, view.capacity()))
            .position(offset + DataHeaderFlyweight.HEADER_LENGTH);
        crc.reset();
        crc.update(view);
        return (int)crc.getValue() == segment.getInt(offset + DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET);
    }

    private static MappedByteBuffer map(final File file)
    {
        try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.READ))
        {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("reading " + file, ex);
        }
    }
}
