package io.bourse.gateway.fix;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * An event batch's sequence and a second value, kept in a file of the data directory. The gateway keeps one with the
 * batch after which a restarted gateway asks the cluster for the batches (and reports what happened to its orders
 * meanwhile: fills, cancels and expiries as they happened, not a summary), with its log position; one per session
 * with the last report the session was sent: its batch and, as the second value, its key within that batch; and one
 * per session with the last inbound message the gateway handled: its Artio sequence index and its MsgSeqNum.
 * <p>
 * Recorded after every batch that made a report (and every report sent, every message handled), so the file is
 * memory-mapped: a record is a few stores, no system call on the report path, and the operating system's page cache
 * keeps it across a crash of the process. Two slots are written in turn, each with a check value over its fields, so
 * that a process killed halfway through a record leaves the other slot, the previous record, to be read.
 */
final class FixEventPosition implements AutoCloseable
{
    private static final int SLOT_LENGTH = 4 * Long.BYTES;
    private static final int COUNTER_OFFSET = 0;
    private static final int SEQUENCE_OFFSET = Long.BYTES;
    private static final int POSITION_OFFSET = 2 * Long.BYTES;
    private static final int CHECK_OFFSET = 3 * Long.BYTES;
    private static final long CHECK_SEED = 0x426F757273654658L;

    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final long batchSequence;
    private final long logPosition;
    private long counter;

    FixEventPosition(final File file)
    {
        if (file.exists() && file.length() < 2 * SLOT_LENGTH)
        {
            // Not a whole record file (a crash while it was being made): start without a position.
            IoUtil.delete(file, false);
        }
        mapped = file.exists() ? IoUtil.mapExistingFile(file, FileChannel.MapMode.READ_WRITE, "FIX event position") :
            IoUtil.mapNewFile(file, 2 * SLOT_LENGTH);
        buffer = new UnsafeBuffer(mapped);
        long sequence = 0;
        long position = 0;
        for (int slot = 0; slot < 2; slot++)
        {
            final int offset = slot * SLOT_LENGTH;
            final long slotCounter = buffer.getLong(offset + COUNTER_OFFSET);
            final long slotSequence = buffer.getLong(offset + SEQUENCE_OFFSET);
            final long slotPosition = buffer.getLong(offset + POSITION_OFFSET);
            if (slotCounter > counter &&
                buffer.getLong(offset + CHECK_OFFSET) == check(slotCounter, slotSequence, slotPosition))
            {
                counter = slotCounter;
                sequence = slotSequence;
                position = slotPosition;
            }
        }
        batchSequence = sequence;
        logPosition = position;
    }

    /**
     * @return whether the file holds a record (from an earlier run, or since it was opened).
     */
    boolean isRecorded()
    {
        return counter > 0;
    }

    /**
     * @return the sequence of the last batch recorded by an earlier run, or 0 when there is none.
     */
    long batchSequence()
    {
        return batchSequence;
    }

    /**
     * @return the second value recorded with it: the gateway's batch's log position, or a session's report key.
     */
    long logPosition()
    {
        return logPosition;
    }

    void record(final long batchSequence, final long logPosition)
    {
        counter++;
        final int offset = (int)(counter & 1) * SLOT_LENGTH;
        buffer.putLong(offset + SEQUENCE_OFFSET, batchSequence);
        buffer.putLong(offset + POSITION_OFFSET, logPosition);
        buffer.putLong(offset + CHECK_OFFSET, check(counter, batchSequence, logPosition));
        buffer.putLongOrdered(offset + COUNTER_OFFSET, counter);
    }

    public void close()
    {
        IoUtil.unmap(mapped);
    }

    private static long check(final long counter, final long batchSequence, final long logPosition)
    {
        return CHECK_SEED ^ counter * 31 ^ batchSequence * 1_000_003L ^ logPosition;
    }
}
