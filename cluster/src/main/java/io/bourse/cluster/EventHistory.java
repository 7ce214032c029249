package io.bourse.cluster;

import io.bourse.protocol.cluster.EventBatchDecoder;
import io.bourse.protocol.cluster.MessageHeaderDecoder;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongArrayList;

import java.nio.ByteOrder;

/**
 * The most recent event batches, oldest first, bounded in bytes: what the service re-sends for a retried request
 * or a client's replay request. Part of the replicated state: every node builds the same history from the log.
 */
final class EventHistory
{
    private static final int BATCH_LOG_POSITION_OFFSET = MessageHeaderDecoder.ENCODED_LENGTH + EventBatchDecoder.logPositionEncodingOffset();
    static final int INDEX_INTERVAL = 64;

    private final ExpandableRingBuffer ring;
    private final ExpandableRingBuffer.MessageConsumer evictor = this::onEvict;
    private long droppedUpToLogPosition;
    /**
     * What the ring's positions have been moved back by, so that a mark ({@link #markAfter}), the ring's position
     * plus this, never moves: a reset starts them again from 0, and so does growing (which, as {@link #fits} has it,
     * happens only while the head is still at 0, moving nothing; counted all the same, as the ring's contract has it).
     */
    private long positionBase;
    /**
     * Every {@link #INDEX_INTERVAL}th batch held: its log position and a mark of its start, oldest first, so that a
     * replay from a log position starts near it instead of at the oldest batch.
     */
    private final LongArrayList indexLogPositions = new LongArrayList();
    private final LongArrayList indexMarks = new LongArrayList();
    private int sinceIndexed;

    /**
     * @param capacityBytes a power of two: the most the history holds, record headers included.
     */
    EventHistory(final int capacityBytes)
    {
        ring = new ExpandableRingBuffer(Math.min(capacityBytes, 64 * 1024), capacityBytes, false);
    }

    /**
     * Keep a batch, evicting the oldest ones as needed.
     */
    void append(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length + 2 * ExpandableRingBuffer.HEADER_LENGTH > ring.maxCapacity())
        {
            droppedUpToLogPosition = buffer.getLong(offset + BATCH_LOG_POSITION_OFFSET, ByteOrder.LITTLE_ENDIAN);
            return;
        }
        final int alignedLength = BitUtil.align(
            ExpandableRingBuffer.HEADER_LENGTH + length, ExpandableRingBuffer.HEADER_ALIGNMENT);
        while (!fits(alignedLength))
        {
            if (ring.isEmpty())
            {
                positionBase += ring.head();
                ring.reset(ring.capacity());
                break;
            }
            ring.consume(evictor, 1);
        }
        final int capacity = ring.capacity();
        final long head = ring.head();
        if (!ring.append(buffer, offset, length))
        {
            throw new IllegalStateException("event history cannot hold a batch of " + length + " bytes");
        }
        if (ring.capacity() != capacity)
        {
            // Grown: the batches held were copied to the start of the new buffer.
            positionBase += head;
        }
        while (!indexMarks.isEmpty() && indexMarks.getLong(0) - positionBase < ring.head())
        {
            indexMarks.removeAt(0);
            indexLogPositions.removeAt(0);
        }
        if (++sinceIndexed == INDEX_INTERVAL)
        {
            sinceIndexed = 0;
            indexLogPositions.addLong(buffer.getLong(offset + BATCH_LOG_POSITION_OFFSET, ByteOrder.LITTLE_ENDIAN));
            // The batch ends the ring (any padding the ring wrote goes before it).
            indexMarks.addLong(positionBase + ring.tail() - alignedLength);
        }
    }

    /**
     * Visit the batches held, oldest first, until the consumer returns false.
     */
    void forEach(final ExpandableRingBuffer.MessageConsumer consumer)
    {
        ring.forEach(consumer, Integer.MAX_VALUE);
    }

    /**
     * Visit the batches held from a mark on, oldest first, until the consumer returns false; from the oldest when the
     * batch the mark names is no longer held.
     *
     * @param mark from {@link #markAfter}, or of a batch's start as {@link #forEachNear} has it.
     */
    void forEachFrom(final long mark, final ExpandableRingBuffer.MessageConsumer consumer)
    {
        final long headOffset = mark - positionBase - ring.head();
        ring.forEach(headOffset > 0 && headOffset <= ring.size() ? (int)headOffset : 0, consumer, Integer.MAX_VALUE);
    }

    /**
     * Visit the batches held, oldest first, until the consumer returns false, from one at most
     * {@link #INDEX_INTERVAL} batches before the first after a log position (from the oldest when that is nearer):
     * every batch after the position is visited, and few before it.
     */
    void forEachNear(final long afterLogPosition, final ExpandableRingBuffer.MessageConsumer consumer)
    {
        long mark = 0;
        for (int i = indexLogPositions.size() - 1; i >= 0; i--)
        {
            if (indexLogPositions.getLong(i) <= afterLogPosition)
            {
                mark = indexMarks.getLong(i);
                break;
            }
        }
        forEachFrom(mark, consumer);
    }

    /**
     * @param headOffset as a consumer of {@link #forEach} or {@link #forEachFrom} was given it with a batch.
     * @return a mark of the batch after that one, for {@link #forEachFrom}, valid however the history changes.
     */
    long markAfter(final int headOffset)
    {
        return positionBase + ring.head() + headOffset;
    }

    /**
     * @return the log position of the newest batch no longer held, 0 when none was dropped.
     */
    long droppedUpToLogPosition()
    {
        return droppedUpToLogPosition;
    }

    void droppedUpToLogPosition(final long logPosition)
    {
        droppedUpToLogPosition = logPosition;
    }

    int size()
    {
        return ring.size();
    }

    /**
     * Whether {@link ExpandableRingBuffer#append} can place the record without growing past its maximum capacity.
     * It must not be called otherwise: at maximum capacity, a record that fits neither before the end of the buffer
     * nor, after padding, at its start is written past the end (Agrona 2.4.1), so evict until it fits one way.
     */
    private boolean fits(final int alignedLength)
    {
        final int capacity = ring.capacity();
        final boolean canGrow = BitUtil.findNextPositivePowerOfTwo(capacity + alignedLength) <= ring.maxCapacity();
        final int free = capacity - ring.size();
        if (alignedLength > free)
        {
            return canGrow;
        }
        final int headOffset = (int)ring.head() & (capacity - 1);
        final int tailOffset = (int)ring.tail() & (capacity - 1);
        if (tailOffset >= headOffset)
        {
            final int toEnd = capacity - tailOffset;
            if (alignedLength > toEnd && alignedLength > free - toEnd)
            {
                return canGrow;
            }
        }
        return true;
    }

    private boolean onEvict(
        final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        droppedUpToLogPosition = buffer.getLong(offset + BATCH_LOG_POSITION_OFFSET, ByteOrder.LITTLE_ENDIAN);
        return true;
    }
}
