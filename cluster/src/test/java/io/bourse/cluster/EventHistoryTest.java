package io.bourse.cluster;

import io.bourse.protocol.cluster.EventBatchEncoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventHistoryTest
{
    /**
     * Found by the kill -9 test: once the history was full, a batch that fit neither before the end of the ring
     * nor at its start was written past the end, the service threw, and the request was later reported as a retry
     * not in history.
     */
    @Test
    void keepsTheNewestBatchesOfMixedSizesWhenFull()
    {
        final long seed = 5;
        final SplittableRandom random = new SplittableRandom(seed);
        final EventHistory history = new EventHistory(64 * 1024);
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(8192);
        final EventBatchEncoder encoder = new EventBatchEncoder();
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        for (long sequence = 1; sequence <= 20_000; sequence++)
        {
            encoder.wrapAndApplyHeader(buffer, 0, header).batchSequence(sequence).logPosition(sequence * 100);
            final int length = MessageHeaderEncoder.ENCODED_LENGTH + EventBatchEncoder.BLOCK_LENGTH +
                random.nextInt(random.nextInt(10) == 0 ? 6_000 : 300);
            history.append(buffer, 0, length);

            final long expectedNewest = sequence;
            final long[] seen = {0, 0};
            history.forEach((ring, offset, ringLength, headOffset) ->
            {
                final long logPosition = ring.getLong(offset + MessageHeaderEncoder.ENCODED_LENGTH +
                    EventBatchEncoder.logPositionEncodingOffset());
                assertTrue(seen[0] == 0 || logPosition == seen[0] + 100, "contiguous, oldest first");
                seen[0] = logPosition;
                seen[1]++;
                return true;
            });
            assertEquals(expectedNewest * 100, seen[0], "the newest batch is held, seed " + seed);
            assertEquals(history.droppedUpToLogPosition(), (expectedNewest - seen[1]) * 100, "dropped ones counted");
        }
    }

    /**
     * A mark taken after a batch leads back to the batch after it while the ring grows, wraps, evicts and is reset
     * (a batch longer than half the history can need it empty and back at its start, where positions begin again);
     * to the oldest batch held once the marked one is gone. A visit from near a log position, by the history's own
     * marks, takes in every batch after it and few before it.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a wrong mark can make the ring loop for ever
    void aMarkLeadsToTheBatchAfterItsOwnAsTheHistoryGrowsAndEvicts()
    {
        final long seed = 11;
        final SplittableRandom random = new SplittableRandom(seed);
        final int capacity = 256 * 1024;
        final EventHistory history = new EventHistory(capacity);
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(capacity);
        final EventBatchEncoder encoder = new EventBatchEncoder();
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final int batches = 20_000;
        final long[] marks = new long[batches + 1];
        for (int sequence = 1; sequence <= batches; sequence++)
        {
            encoder.wrapAndApplyHeader(buffer, 0, header).batchSequence(sequence).logPosition(sequence * 100L);
            final int bodyLength = random.nextInt(500) == 0 ? capacity / 2 + random.nextInt(capacity / 4) :
                random.nextInt(random.nextInt(20) == 0 ? 6_000 : 300);
            history.append(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + EventBatchEncoder.BLOCK_LENGTH + bodyLength);
            final long[] oldest = {0};
            final int newest = sequence;
            history.forEach((ring, offset, length, headOffset) ->
            {
                final long batchSequence = batchSequence(ring, offset);
                if (oldest[0] == 0)
                {
                    oldest[0] = batchSequence;
                }
                if (batchSequence == newest)
                {
                    marks[newest] = history.markAfter(headOffset);
                }
                return true;
            });

            final int marked = 1 + random.nextInt(sequence);
            final long[] first = {0};
            history.forEachFrom(marks[marked], (ring, offset, length, headOffset) ->
            {
                first[0] = batchSequence(ring, offset);
                return false;
            });
            final long expected = marked == sequence ? 0 : Math.max(marked + 1, oldest[0]);
            assertEquals(expected, first[0], "first batch visited after the mark of batch " + marked + " of " +
                sequence + ", seed " + seed);

            // From near a log position: every batch after it, in order, and few before it.
            final long after = 100L * random.nextInt(sequence + 1);
            final long[] near = {0, Math.max(oldest[0], after / 100 + 1) - 1};
            history.forEachNear(after, (ring, offset, length, headOffset) ->
            {
                final long batchSequence = batchSequence(ring, offset);
                if (batchSequence * 100 <= after)
                {
                    near[0]++;
                }
                else
                {
                    assertEquals(near[1] + 1, batchSequence, "after log position " + after + ", seed " + seed);
                    near[1] = batchSequence;
                }
                return true;
            });
            assertEquals(sequence, near[1], "visited to the newest after log position " + after + ", seed " + seed);
            assertTrue(near[0] <= EventHistory.INDEX_INTERVAL, near[0] + " visited before log position " + after);
        }
    }

    private static long batchSequence(final org.agrona.DirectBuffer ring, final int offset)
    {
        return ring.getLong(offset + MessageHeaderEncoder.ENCODED_LENGTH + EventBatchEncoder.batchSequenceEncodingOffset());
    }
}
