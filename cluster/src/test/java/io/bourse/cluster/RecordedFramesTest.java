package io.bourse.cluster;

import io.aeron.archive.client.AeronArchive;
import io.aeron.protocol.DataHeaderFlyweight;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recording's frames checked on disk: a segment file written here as Aeron's archive writes one, with frames whose
 * checksums match (as the node records them), frames with none (as a version before checksums recorded them), and
 * damage.
 */
class RecordedFramesTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int SEGMENT_LENGTH = 4 * TERM_LENGTH;
    private static final int STREAM_ID = 100;
    private static final int INITIAL_TERM_ID = 7;
    private static final int FRAME_LENGTH = 96;

    @TempDir
    File archiveDir;

    @Test
    void everyFrameSoundIsNoProblemAndTheCheckEndsAtTheStopPosition() throws IOException
    {
        final RecordedFrames.Recording recording = write(new boolean[] {true, true, true, true});
        final RecordedFrames.Result result = check(recording, RecordedFrames.Checksums.EVERY_FRAME);
        assertNull(result.problem());
        assertEquals(4, result.frames());
        assertEquals(4L * FRAME_LENGTH, result.endPosition());
        assertTrue(new RecordedFrames(archiveDir).firstDataFrameMatches(recording));
    }

    @Test
    void aDamagedFrameIsFoundWhereverItIsWhenEveryFrameHasAChecksum() throws IOException
    {
        final RecordedFrames.Recording recording = write(new boolean[] {false, true, true});
        assertTrue(check(recording, RecordedFrames.Checksums.EVERY_FRAME).problem()
            .startsWith("damaged frame at position 0 "));
        assertTrue(check(recording, RecordedFrames.Checksums.ALL_OR_NONE).problem()
            .startsWith("damaged frame at position 0 "), "one frame matches: the one that does not is damaged");
        assertNull(check(recording, RecordedFrames.Checksums.FROM_FIRST_MATCH).problem(),
            "before the first frame that matches: taken for one recorded without a checksum");
        assertNull(check(recording, RecordedFrames.Checksums.NONE).problem());
    }

    @Test
    void framesWithoutChecksumsBeforeTheFirstWithOneAreAVersionBeforeChecksums() throws IOException
    {
        final RecordedFrames.Recording recording = write(new boolean[] {false, false, true, false});
        final RecordedFrames.Result result = check(recording, RecordedFrames.Checksums.FROM_FIRST_MATCH);
        assertTrue(result.problem().startsWith("damaged frame at position " + 3 * FRAME_LENGTH + " "),
            "after a frame with a checksum, one without is damaged: " + result.problem());
        assertEquals(2, result.withoutChecksums());

        final RecordedFrames.Recording old = write(new boolean[] {false, false, false});
        assertNull(check(old, RecordedFrames.Checksums.ALL_OR_NONE).problem(), "a snapshot recorded without any");
        assertEquals(3, check(old, RecordedFrames.Checksums.FROM_FIRST_MATCH).withoutChecksums());
        assertFalse(new RecordedFrames(archiveDir).firstDataFrameMatches(old));
    }

    @Test
    void aHeaderThatDoesNotFitWhereItLiesIsDamageEvenWithoutChecksums() throws IOException
    {
        final RecordedFrames.Recording recording = write(new boolean[] {true, true, true});
        patch(recording, FRAME_LENGTH + DataHeaderFlyweight.TYPE_FIELD_OFFSET, (short)7);
        assertEquals("type 7 is neither data nor padding", headerProblem(check(recording, RecordedFrames.Checksums.NONE)));

        patch(recording, FRAME_LENGTH + DataHeaderFlyweight.TYPE_FIELD_OFFSET, (short)DataHeaderFlyweight.HDR_TYPE_DATA);
        patchInt(recording, FRAME_LENGTH + DataHeaderFlyweight.TERM_OFFSET_FIELD_OFFSET, 0);
        assertEquals("term offset 0 where the frame lies at " + FRAME_LENGTH,
            headerProblem(check(recording, RecordedFrames.Checksums.NONE)));

        patchInt(recording, FRAME_LENGTH + DataHeaderFlyweight.TERM_OFFSET_FIELD_OFFSET, FRAME_LENGTH);
        patchInt(recording, FRAME_LENGTH, Integer.MAX_VALUE);
        assertEquals("length " + Integer.MAX_VALUE + " does not fit the term from offset " + FRAME_LENGTH,
            headerProblem(check(recording, RecordedFrames.Checksums.NONE)));
    }

    @Test
    void framesMissingBeforeTheStopPositionAreAProblemAndTheCheckEnds() throws IOException
    {
        final RecordedFrames.Recording recording = write(new boolean[] {true, true, true});
        final File file = new File(archiveDir, recording.recordingId() + "-0.rec");
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.setLength(FRAME_LENGTH + FRAME_LENGTH / 2);
        }
        final RecordedFrames.Result cut = check(recording, RecordedFrames.Checksums.NONE);
        assertTrue(cut.problem().contains("runs past the end of the file"), cut.problem());

        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.setLength(FRAME_LENGTH);
        }
        final RecordedFrames.Result shortFile = check(recording, RecordedFrames.Checksums.EVERY_FRAME);
        assertTrue(shortFile.problem().contains("ends at position " + FRAME_LENGTH + ", before the recording's stop " +
            "position " + 3 * FRAME_LENGTH), shortFile.problem());

        assertTrue(file.delete());
        final RecordedFrames.Result missing = check(recording, RecordedFrames.Checksums.EVERY_FRAME);
        assertTrue(missing.problem().startsWith("segment file " + file.getPath() + " is missing"), missing.problem());

        final RecordedFrames.Recording open = new RecordedFrames.Recording(recording.recordingId(), 0,
            AeronArchive.NULL_POSITION, INITIAL_TERM_ID, TERM_LENGTH, SEGMENT_LENGTH, STREAM_ID);
        assertNull(check(open, RecordedFrames.Checksums.EVERY_FRAME).problem(), "a recording never stopped ends where " +
            "its frames do");
    }

    private RecordedFrames.Result check(final RecordedFrames.Recording recording, final RecordedFrames.Checksums mode)
    {
        return new RecordedFrames(archiveDir).check(recording, 0, mode);
    }

    private static String headerProblem(final RecordedFrames.Result result)
    {
        assertTrue(result.problem().startsWith("damaged frame header at position " + FRAME_LENGTH + " "),
            result.problem());
        return result.problem().substring(result.problem().indexOf("): ") + 3);
    }

    private int nextRecordingId;

    /**
     * A stopped recording of data frames from position 0, in a segment file of its full length, each with its
     * checksum recorded or, where not, the session id a version without checksums left there.
     */
    private RecordedFrames.Recording write(final boolean[] checksummed) throws IOException
    {
        final int recordingId = nextRecordingId++;
        final ByteBuffer segment = ByteBuffer.allocate(SEGMENT_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < checksummed.length; i++)
        {
            final int offset = i * FRAME_LENGTH;
            segment.putInt(offset + DataHeaderFlyweight.FRAME_LENGTH_FIELD_OFFSET, FRAME_LENGTH)
                .put(offset + DataHeaderFlyweight.FLAGS_FIELD_OFFSET, (byte)DataHeaderFlyweight.BEGIN_AND_END_FLAGS)
                .putShort(offset + DataHeaderFlyweight.TYPE_FIELD_OFFSET, (short)DataHeaderFlyweight.HDR_TYPE_DATA)
                .putInt(offset + DataHeaderFlyweight.TERM_OFFSET_FIELD_OFFSET, offset)
                .putInt(offset + DataHeaderFlyweight.STREAM_ID_FIELD_OFFSET, STREAM_ID)
                .putInt(offset + DataHeaderFlyweight.TERM_ID_FIELD_OFFSET, INITIAL_TERM_ID);
            for (int b = DataHeaderFlyweight.HEADER_LENGTH; b < FRAME_LENGTH; b++)
            {
                segment.put(offset + b, (byte)(i * 31 + b));
            }
            final CRC32C crc = new CRC32C();
            crc.update(segment.slice(offset + DataHeaderFlyweight.HEADER_LENGTH,
                FRAME_LENGTH - DataHeaderFlyweight.HEADER_LENGTH));
            segment.putInt(offset + DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET,
                checksummed[i] ? (int)crc.getValue() : 12_345);
        }
        try (RandomAccessFile raf = new RandomAccessFile(new File(archiveDir, recordingId + "-0.rec"), "rw"))
        {
            raf.write(segment.array());
        }
        return new RecordedFrames.Recording(recordingId, 0, (long)checksummed.length * FRAME_LENGTH, INITIAL_TERM_ID,
            TERM_LENGTH, SEGMENT_LENGTH, STREAM_ID);
    }

    private void patch(final RecordedFrames.Recording recording, final int offset, final short value) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(new File(archiveDir, recording.recordingId() + "-0.rec"), "rw"))
        {
            raf.seek(offset);
            raf.writeShort(Short.reverseBytes(value));
        }
    }

    private void patchInt(final RecordedFrames.Recording recording, final int offset, final int value) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(new File(archiveDir, recording.recordingId() + "-0.rec"), "rw"))
        {
            raf.seek(offset);
            raf.writeInt(Integer.reverseBytes(value));
        }
    }
}
