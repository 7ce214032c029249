package io.bourse.cluster;

import io.bourse.protocol.cluster.EventBatchEncoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

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
}
