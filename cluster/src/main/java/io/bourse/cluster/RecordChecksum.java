package io.bourse.cluster;

import io.aeron.archive.checksum.Checksum;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
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
final class RecordChecksum implements Checksum
{
    private static final long VIEW_LENGTH = 1L << 30;
    private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

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
     * The checksum of bytes read from a file, as {@link #compute} gives it for the same bytes in memory.
     */
    static int of(final byte[] bytes, final int offset, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int)crc.getValue();
    }

    private static final class State
    {
        private final CRC32C crc = new CRC32C();
        private long address;
        private ByteBuffer view;
    }
}
