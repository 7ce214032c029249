package io.bourse.cluster;

import io.aeron.protocol.DataHeaderFlyweight;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a last fragment that spans a page boundary is judged: torn only when it is data whose bytes do not match the
 * checksum recorded with it. Segment files here are laid out as the archive records them.
 */
class TornWriteRepairTest
{
    private static final int PAGE = 4096;
    private static final int HEADER = DataHeaderFlyweight.HEADER_LENGTH;
    /**
     * The last fragment follows a first one of 96 bytes: this much of its payload lies before the page boundary.
     * Payloads are whole multiples of the frame alignment, so the checksum covers exactly the payload.
     */
    private static final int BEFORE_BOUNDARY = PAGE - 96 - HEADER;

    @TempDir
    File dir;

    @Test
    void theChecksumOfBytesAtAnAddressIsTheirCrc32c()
    {
        final byte[] bytes = new byte[1000];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte)(i * 31);
        }
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(2000));
        direct.putBytes(500, bytes);
        final RecordChecksum checksum = new RecordChecksum();
        assertEquals(crc32c(bytes, 100, 800), checksum.compute(direct.addressOffset(), 600, 800));
        assertEquals(crc32c(bytes, 0, 1000), checksum.compute(direct.addressOffset(), 500, 1000));
    }

    @Test
    void aDataFragmentCutShortAtAPageBoundaryIsTorn() throws IOException
    {
        final byte[] payload = payload(PAGE + 192, (byte)0x5A);
        final File segment = segment(payload, BEFORE_BOUNDARY, false);
        assertTrue(TornWriteRepair.isLastFragmentTorn(segment, 0));
    }

    @Test
    void aWholeDataFragmentEndingInZerosIsKept() throws IOException
    {
        final byte[] payload = payload(PAGE + 192, (byte)0x5A);
        // Its bytes after the page boundary are all zero, as a torn write's would be; its checksum says it is whole.
        Arrays.fill(payload, BEFORE_BOUNDARY, payload.length, (byte)0);
        final File segment = segment(payload, payload.length, false);
        assertFalse(TornWriteRepair.isLastFragmentTorn(segment, 0));
    }

    @Test
    void paddingIsKept() throws IOException
    {
        final File segment = segment(new byte[PAGE + 192], 0, true);
        assertFalse(TornWriteRepair.isLastFragmentTorn(segment, 0));
    }

    /**
     * The CrashRecoveryTest case: far into the segment, where Aeron's chunks of 1 MiB start off a page boundary and
     * its own check misses the tear, a fragment whose last 64 bytes were never written. It is found by its checksum
     * and cut, the file keeping its length.
     */
    @Test
    void aTornFragmentFarIntoTheSegmentIsFoundAndCut() throws IOException
    {
        final File file = new File(dir, "0-0.rec");
        final long segmentLength = 4L * 1024 * 1024;
        long tornOffset;
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.setLength(segmentLength);
            final byte[] body = payload(128, (byte)7);
            long offset = 0;
            // Whole fragments of 160 bytes, past the first MiB, up to one that would span a page boundary with 96
            // of its bytes before it, as in that run.
            while (offset < 1_100_000 || offset % PAGE != PAGE - 96)
            {
                raf.seek(offset);
                raf.write(frame(body, body.length, false));
                offset += 160;
            }
            tornOffset = offset;
            raf.seek(offset);
            raf.write(frame(body, 64, false));
        }
        assertEquals(tornOffset, TornWriteRepair.tornLastFragmentOffset(file, 0, TornWriteRepair.NO_SESSION_ID));
        assertEquals(-1, TornWriteRepair.tornLastFragmentOffset(file, 0, crc32c(body(), 0, 128)),
            "a fragment whose session id field holds the recording's session id has no checksum to judge it by");

        TornWriteRepair.cut(file, tornOffset, segmentLength);
        assertEquals(segmentLength, file.length());
        assertFalse(TornWriteRepair.isLastFragmentTorn(file, 0), "the fragment before it is whole");
        try (RandomAccessFile raf = new RandomAccessFile(file, "r"))
        {
            final byte[] rest = new byte[PAGE];
            raf.seek(tornOffset);
            raf.readFully(rest);
            assertTrue(Arrays.equals(new byte[PAGE], rest), "zeros from the cut on");
        }
    }

    private static byte[] body()
    {
        return payload(128, (byte)7);
    }

    private static byte[] payload(final int length, final byte value)
    {
        final byte[] payload = new byte[length];
        Arrays.fill(payload, value);
        return payload;
    }

    /**
     * A segment with one small whole data fragment, then a last fragment of the given payload that spans the next page
     * boundary, of which only {@code writtenPayload} bytes reach the file.
     */
    private File segment(final byte[] lastPayload, final int writtenPayload, final boolean padding)
        throws IOException
    {
        final File file = new File(dir, "0-0.rec");
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.setLength(4L * PAGE);
            final byte[] first = payload(64, (byte)1);
            raf.write(frame(first, first.length, false));
            raf.write(frame(lastPayload, writtenPayload, padding));
        }
        return file;
    }

    private static byte[] frame(final byte[] payload, final int writtenPayload, final boolean padding)
    {
        final ByteBuffer frame = ByteBuffer.allocate(HEADER + writtenPayload).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(DataHeaderFlyweight.FRAME_LENGTH_FIELD_OFFSET, HEADER + payload.length)
            .putShort(DataHeaderFlyweight.TYPE_FIELD_OFFSET,
                (short)(padding ? DataHeaderFlyweight.HDR_TYPE_PAD : DataHeaderFlyweight.HDR_TYPE_DATA))
            .putInt(DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET, crc32c(payload, 0, payload.length));
        frame.put(HEADER, payload, 0, writtenPayload);
        return frame.array();
    }

    private static int crc32c(final byte[] bytes, final int offset, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int)crc.getValue();
    }
}
