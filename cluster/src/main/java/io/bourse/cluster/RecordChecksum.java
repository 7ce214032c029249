package io.bourse.cluster;

import io.aeron.archive.checksum.Checksum;
import io.aeron.protocol.DataHeaderFlyweight;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * CRC-32C of recorded fragments, for the archive to store in each fragment it records (the same value as Aeron's
 * {@code CRC-32C}, so {@code ArchiveTool verify -a CRC-32C} can check the journal).
 * <p>
 * Aeron's own implementation reaches a private method of the JDK and needs {@code --add-opens java.base/java.util.zip}
 * on every JVM that loads it; this one uses the JDK's public {@link CRC32C#update(ByteBuffer)}, just as fast on a
 * direct buffer. The archive passes a raw address: each thread keeps a {@link ByteBuffer} view of the last address
 * it was given (the archive's checksum buffer, the same at every call), so steady-state recording allocates nothing.
 */
public final class RecordChecksum implements Checksum
{
    private static final long VIEW_LENGTH = 1L << 30;
    private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

    /**
     * The CRC-32C of {@code length} bytes at {@code address + offset}.
     */
    public int compute(final long address, final int offset, final int length)
    {
        final State state = STATE.get();
        if (address != state.address || state.view == null)
        {
            // Only [offset, offset + length) is ever read: a window as large as any buffer the archive checksums.
            state.view = MemorySegment.ofAddress(address).reinterpret(VIEW_LENGTH).asByteBuffer();
            state.address = address;
        }
        final ByteBuffer view = state.view;
        view.limit(offset + length).position(offset);
        final CRC32C crc = state.crc;
        crc.reset();
        crc.update(view);
        return (int)crc.getValue();
    }

    /**
     * Whether a recorded data frame's bytes match the checksum the archive wrote into its header (its session id
     * field, computed over the rest of the aligned frame). For tools reading segment files; allocates.
     *
     * @param buffer        holding the frame, in a segment's byte order (little-endian).
     * @param frameOffset   where the frame starts.
     * @param alignedLength the frame's length aligned to 32 bytes, cut short at the end of the buffer.
     */
    public static boolean frameMatches(final ByteBuffer buffer, final int frameOffset, final int alignedLength)
    {
        return frameMatches(buffer.duplicate(), new CRC32C(), frameOffset, alignedLength);
    }

    /**
     * {@link #frameMatches(ByteBuffer, int, int)} without allocating, for checks of every frame of a recording.
     *
     * @param view a view of the frames' buffer of the caller's, whose position, limit and byte order it sets.
     * @param crc  of the caller's, reset here.
     */
    public static boolean frameMatches(
        final ByteBuffer view, final CRC32C crc, final int frameOffset, final int alignedLength)
    {
        view.order(ByteOrder.LITTLE_ENDIAN).clear().limit(Math.min(frameOffset + alignedLength, view.capacity()))
            .position(frameOffset + DataHeaderFlyweight.HEADER_LENGTH);
        crc.reset();
        crc.update(view);
        return (int)crc.getValue() == view.getInt(frameOffset + DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET);
    }

    private static final class State
    {
        private final CRC32C crc = new CRC32C();
        private long address;
        private ByteBuffer view;
    }
}
