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
 * (its type, length, term id and offset, stream), and, when asked, every data frame's bytes after its header against
 * the CRC-32C the node's archive recorded in it ({@link RecordChecksum}). Frames a version of the node that recorded
 * no checksums wrote hold none: how they are told from damaged ones is the caller's {@link Checksums}. Not checked:
 * a header's flags and version, and a frame length changed within its 32-byte alignment (the checksum covers the
 * aligned frame).
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
     * What a check read: the frames and bytes it checked and where it started and stopped.
     *
     * @param withoutChecksums data frames recorded before the node recorded checksums, judged by their headers
     *                         alone.
     * @param problem          what is wrong with the first bad frame, naming its file and position, or null when
     *                         every frame read is sound.
     */
    public record Result(
        long frames, long startPosition, long endPosition, long withoutChecksums, String problem)
    {
        public long bytes()
        {
            return endPosition - startPosition;
        }
    }

    /**
     * Which data frames' bytes are checked against their checksums.
     */
    public enum Checksums
    {
        /**
         * None: their headers alone (a recording whose messages carry checksums of their own).
         */
        NONE,
        /**
         * All or none: a recording made in one go (a snapshot) by a version that recorded checksums or by one that
         * did not, so one frame that matches makes every frame that does not a damaged one.
         */
        ALL_OR_NONE,
        /**
         * From the first frame that matches on: a log begun by a version that recorded none and extended by one that
         * records them (a damaged frame before the first that matches cannot be told from them).
         */
        FROM_FIRST_MATCH,
        /**
         * Every one.
         */
        EVERY_FRAME
    }

    private final File archiveDir;
    private final CRC32C crc = new CRC32C();

    public RecordedFrames(final File archiveDir)
    {
        this.archiveDir = archiveDir;
    }

    /**
     * Check the frames of a recording from {@code fromPosition} (a frame boundary) to its stop position or, for one
     * never stopped, its last written frame. A frame missing before the stop position (a segment file gone or cut
     * short, or zeros where the catalog says frames were recorded) is a problem too.
     *
     * @param checksums which data frames' bytes to check against their checksums.
     */
    public Result check(final Recording recording, final long fromPosition, final Checksums checksums)
    {
        final long stopPosition = recording.stopPosition();
        final boolean open = stopPosition == AeronArchive.NULL_POSITION;
        final long startPosition = Math.max(fromPosition, recording.startPosition());
        long position = startPosition;
        long frames = 0;
        long matched = 0;
        long withoutChecksums = 0;
        String firstUnmatched = null;
        String problem = null;
        scan:
        while (open || position < stopPosition)
        {
            final long segmentBase = AeronArchive.segmentFileBasePosition(recording.startPosition(), position,
                recording.termBufferLength(), (int)recording.segmentFileLength());
            final File file = segmentFile(recording.recordingId(), segmentBase);
            if (!file.isFile())
            {
                problem = open ? null : "segment file " + file.getPath() + " is missing: the recording's frames from " +
                    "position " + position + " to its stop position " + stopPosition + " are not on disk";
                break;
            }
            final MappedByteBuffer mapped = map(file);
            try
            {
                final UnsafeBuffer segment = new UnsafeBuffer(mapped);
                final ByteBuffer view = mapped.duplicate();
                final long segmentEnd = segmentBase + segment.capacity();
                while ((open || position < stopPosition) && position < segmentEnd)
                {
                    final int offset = (int)(position - segmentBase);
                    final int frameLength = offset + DataHeaderFlyweight.HEADER_LENGTH > segment.capacity() ? 0 :
                        segment.getInt(offset);
                    if (frameLength == 0)
                    {
                        problem = open ? null : "no frame at position " + position + " in " + file.getPath() +
                            " (zeros), before the recording's stop position " + stopPosition + ": the rest of the " +
                            "recording is missing on disk";
                        break scan;
                    }
                    final String headerProblem = headerProblem(segment, offset, position, recording);
                    if (headerProblem != null)
                    {
                        problem = "damaged frame header at position " + position + " in " + file.getPath() +
                            " (offset " + offset + "): " + headerProblem;
                        break scan;
                    }
                    final int alignedLength = BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT);
                    final boolean data = segment.getShort(offset + DataHeaderFlyweight.TYPE_FIELD_OFFSET) ==
                        DataHeaderFlyweight.HDR_TYPE_DATA;
                    // Padding is recorded as its header alone: the rest of its length need not be in the file.
                    if (!open && (position + alignedLength > stopPosition ||
                        (data && offset + alignedLength > segment.capacity())))
                    {
                        problem = "frame at position " + position + " in " + file.getPath() + " runs past " +
                            (position + alignedLength > stopPosition ? "the recording's stop position " + stopPosition :
                            "the end of the file") + ": the rest of the recording is missing on disk";
                        break scan;
                    }
                    if (checksums != Checksums.NONE && data)
                    {
                        final boolean matches = RecordChecksum.frameMatches(view, crc, offset, alignedLength);
                        final String damage = matches ? null : "damaged frame at position " + position + " in " +
                            file.getPath() + " (offset " + offset + "): its bytes no longer match the checksum " +
                            "recorded with them";
                        if (matches)
                        {
                            matched++;
                            if (checksums == Checksums.ALL_OR_NONE && firstUnmatched != null)
                            {
                                problem = firstUnmatched;
                                break scan;
                            }
                        }
                        else if (matched > 0 || checksums == Checksums.EVERY_FRAME)
                        {
                            problem = damage;
                            break scan;
                        }
                        else
                        {
                            withoutChecksums++;
                            firstUnmatched = firstUnmatched == null ? damage : firstUnmatched;
                        }
                    }
                    frames++;
                    position += alignedLength;
                }
                if ((open || position < stopPosition) && position < segmentBase + recording.segmentFileLength())
                {
                    problem = open ? null : "segment file " + file.getPath() + " ends at position " + segmentEnd +
                        ", before the recording's stop position " + stopPosition + ": the rest of the recording is " +
                        "missing on disk";
                    break;
                }
            }
            finally
            {
                IoUtil.unmap(mapped);
            }
        }
        return new Result(frames, startPosition, position, withoutChecksums, problem);
    }

    /**
     * @return whether the recording's first data frame on disk matches its checksum: the version of the node that
     * wrote it recorded checksums (or there is none).
     */
    public boolean firstDataFrameMatches(final Recording recording)
    {
        final long position = recording.startPosition();
        final long segmentBase = AeronArchive.segmentFileBasePosition(position, position,
            recording.termBufferLength(), (int)recording.segmentFileLength());
        final File file = segmentFile(recording.recordingId(), segmentBase);
        if (!file.isFile())
        {
            return true;
        }
        final MappedByteBuffer mapped = map(file);
        try
        {
            final UnsafeBuffer segment = new UnsafeBuffer(mapped);
            int offset = (int)(position - segmentBase);
            while (offset + DataHeaderFlyweight.HEADER_LENGTH <= segment.capacity())
            {
                final int frameLength = segment.getInt(offset);
                // Nothing written, or a header that does not fit where it lies: every frame is then held to its
                // checksum.
                if (frameLength == 0 || headerProblem(segment, offset, segmentBase + offset, recording) != null)
                {
                    return true;
                }
                final int alignedLength = BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT);
                if (segment.getShort(offset + DataHeaderFlyweight.TYPE_FIELD_OFFSET) ==
                    DataHeaderFlyweight.HDR_TYPE_DATA)
                {
                    return RecordChecksum.frameMatches(mapped.duplicate(), crc, offset, alignedLength);
                }
                offset += alignedLength;
            }
            return true;
        }
        finally
        {
            IoUtil.unmap(mapped);
        }
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
        if (frameLength < DataHeaderFlyweight.HEADER_LENGTH || frameLength > termLength - termOffset)
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
