package io.bourse.gateway.fix;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A ring of fixed-size slots in a memory-mapped file, behind a count of the slots added and the time the ring was last
 * cleared (the trading day its slots belong to): what a session keeps of its recent past so that a restarted gateway
 * still knows it. A slot is written in place and then counted, with no system call; the page cache keeps it across a
 * crash of the process. The count is stored after the slot, so it never covers one not yet written, and a write cut
 * short loses only itself.
 */
final class MappedRing implements AutoCloseable
{
    /**
     * Reads one slot back.
     */
    @FunctionalInterface
    interface SlotReader
    {
        void read(UnsafeBuffer buffer, int offset);
    }

    private static final int COUNT_OFFSET = 0;
    private static final int CLEARED_AT_OFFSET = Long.BYTES;
    private static final int RING_OFFSET = 2 * Long.BYTES;

    private final int slotLength;
    private final int legacySlotLength;
    private final int capacity;
    private MappedByteBuffer mapped;
    private UnsafeBuffer file;
    private long added;

    /**
     * @param slotLength the bytes of one slot.
     * @param capacity   how many slots the ring holds; the oldest is overwritten when one more comes.
     */
    MappedRing(final int slotLength, final int capacity)
    {
        this(slotLength, 0, capacity);
    }

    /**
     * @param legacySlotLength the bytes of one slot in a file of an earlier layout, whose slots are the current ones
     *                         cut short: read back with the rest zero, then the file is made again; 0 when there is
     *                         none.
     */
    MappedRing(final int slotLength, final int legacySlotLength, final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.slotLength = slotLength;
        this.legacySlotLength = legacySlotLength;
        this.capacity = capacity;
    }

    /**
     * Read back the slots a file holds, oldest first and at most this ring's capacity of the most recent (none when it
     * does not exist, or when it was last cleared before the trading day began: they were an earlier day's), and write
     * every slot added from now on to it. A file made for another capacity, or of legacy slots, is made again for this
     * one with the slots read back.
     *
     * @param what              what the file is, for an error about it.
     * @param tradingDayStartMs when the current trading day began (the last end of day), epoch ms; Long.MIN_VALUE
     *                          when there are no trading days.
     * @param nowMs             the time now, epoch ms: when a file made now was last cleared.
     */
    void open(final File path, final String what, final long tradingDayStartMs, final long nowMs, final SlotReader reader)
    {
        final long length = RING_OFFSET + (long)capacity * slotLength;
        long clearedAtMs = nowMs;
        byte[] kept = new byte[0];
        if (path.exists())
        {
            final MappedByteBuffer existing = IoUtil.mapExistingFile(path, FileChannel.MapMode.READ_WRITE, what);
            final UnsafeBuffer buffer = new UnsafeBuffer(existing);
            final int ringBytes = buffer.capacity() - RING_OFFSET;
            final int fileSlotLength = ringBytes % slotLength != 0 && legacySlotLength > 0 &&
                ringBytes % legacySlotLength == 0 ? legacySlotLength : slotLength;
            final int slots = ringBytes / fileSlotLength;
            // A file of whole slots of another length is one its slots cannot be read from: made again, empty.
            final boolean sameDay = slots >= 1 && ringBytes % fileSlotLength == 0 &&
                buffer.getLong(CLEARED_AT_OFFSET) >= tradingDayStartMs;
            final long count = sameDay ? buffer.getLong(COUNT_OFFSET) : 0;
            final long first = Math.max(0, count - Math.min(slots, capacity));
            final UnsafeBuffer legacySlot = new UnsafeBuffer(new byte[slotLength]);
            for (long i = first; i < count; i++)
            {
                final int at = RING_OFFSET + (int)(i % slots) * fileSlotLength;
                if (fileSlotLength == slotLength)
                {
                    reader.read(buffer, at);
                }
                else
                {
                    legacySlot.setMemory(0, slotLength, (byte)0);
                    legacySlot.putBytes(0, buffer, at, fileSlotLength);
                    reader.read(legacySlot, 0);
                }
            }
            if (existing.capacity() == length)
            {
                mapped = existing;
                file = buffer;
                added = count;
                if (!sameDay)
                {
                    clear(nowMs);
                }
                return;
            }
            if (sameDay)
            {
                clearedAtMs = buffer.getLong(CLEARED_AT_OFFSET);
            }
            kept = new byte[(int)(count - first) * slotLength];
            for (long i = first; i < count; i++)
            {
                buffer.getBytes(RING_OFFSET + (int)(i % slots) * fileSlotLength, kept, (int)(i - first) * slotLength,
                    fileSlotLength);
            }
            IoUtil.unmap(existing);
            IoUtil.delete(path, false);
        }
        mapped = IoUtil.mapNewFile(path, length);
        file = new UnsafeBuffer(mapped);
        file.putLong(CLEARED_AT_OFFSET, clearedAtMs);
        for (int offset = 0; offset < kept.length; offset += slotLength)
        {
            file.putBytes(nextSlot(), kept, offset, slotLength);
            added();
        }
    }

    boolean isOpen()
    {
        return file != null;
    }

    /**
     * The mapped file, in which the slot at {@link #nextSlot()} is written before {@link #added()} counts it.
     */
    UnsafeBuffer buffer()
    {
        return file;
    }

    int nextSlot()
    {
        return RING_OFFSET + (int)(added % capacity) * slotLength;
    }

    void added()
    {
        added++;
        file.putLongOrdered(COUNT_OFFSET, added);
    }

    /**
     * Forget every slot: a new trading day.
     *
     * @param nowMs the time now, epoch ms: the file's trading day begins then.
     */
    void clear(final long nowMs)
    {
        if (file != null)
        {
            added = 0;
            file.putLongOrdered(COUNT_OFFSET, 0);
            file.putLongOrdered(CLEARED_AT_OFFSET, nowMs);
        }
    }

    public void close()
    {
        if (mapped != null)
        {
            IoUtil.unmap(mapped);
            mapped = null;
            file = null;
        }
    }
}
