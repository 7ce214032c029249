package io.bourse.cluster;

import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.ImageFragmentAssembler;
import io.aeron.Publication;
import io.aeron.cluster.client.ClusterException;
import io.aeron.logbuffer.Header;
import io.bourse.engine.Engine;
import io.bourse.protocol.cluster.BooleanType;
import io.bourse.protocol.cluster.ClientRecordDecoder;
import io.bourse.protocol.cluster.ClientRecordEncoder;
import io.bourse.protocol.cluster.HistoryRecordDecoder;
import io.bourse.protocol.cluster.HistoryRecordEncoder;
import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.ServiceSnapshotChunkDecoder;
import io.bourse.protocol.cluster.ServiceSnapshotChunkEncoder;
import io.bourse.protocol.cluster.ServiceStateBeginDecoder;
import io.bourse.protocol.cluster.ServiceStateBeginEncoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Writes the service's state into Aeron Cluster's snapshot publication and reads it back from the snapshot image.
 * <p>
 * The state (retry bookkeeping, event history, then the engine's own snapshot) is built in memory, protected by
 * a CRC-32C, and sent in chunks small enough for any term length, so that a truncated or corrupted snapshot is
 * detected before any of it is used.
 */
final class ServiceSnapshot
{
    static final int FORMAT_VERSION = 1;
    private static final int CHUNK_BYTES = 256 * 1024;
    private static final int MIN_LENGTH_HINT_BYTES = 1024 * 1024;
    private static final UnsafeBuffer RELEASED = new UnsafeBuffer(new byte[MessageHeaderDecoder.ENCODED_LENGTH]);
    private static final int MAX_LENGTH_HINT_BYTES = ExpandableDirectByteBuffer.MAX_BUFFER_LENGTH;

    /**
     * A snapshot read back: the payload and where its parts are.
     */
    record Loaded(
        DirectBuffer payload,
        long lengthBytes,
        long nextBatchSequence,
        long droppedUpToLogPosition,
        Long2LongHashMap lastRequestSequenceByClient,
        IntArrayList historyOffsets,
        IntArrayList historyLengths,
        int engineOffset,
        int engineLength)
    {
    }

    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();

    /**
     * Capacity of the next snapshot's buffer. A large book's snapshot grown from a small buffer in steps of half again
     * holds the last two steps at once (and, until a collection, the earlier ones): near the direct memory limit that
     * fails where one buffer of the expected size fits.
     */
    private int lengthHintBytes = MIN_LENGTH_HINT_BYTES;

    /**
     * Size the next snapshot's buffer for about this many bytes (a quarter more, for the book's growth meanwhile).
     */
    void expectLength(final long lengthBytes)
    {
        lengthHintBytes =
            (int)Math.min(MAX_LENGTH_HINT_BYTES, Math.max(MIN_LENGTH_HINT_BYTES, lengthBytes + (lengthBytes >> 2)));
    }

    /**
     * @return the number of payload bytes written.
     */
    long write(
        final ExclusivePublication publication,
        final IdleStrategy idleStrategy,
        final long nextBatchSequence,
        final Long2LongHashMap lastRequestSequenceByClient,
        final EventHistory history,
        final Engine engine)
    {
        final ExpandableDirectByteBuffer payload = new ExpandableDirectByteBuffer(lengthHintBytes);
        final long[] clientIds = lastRequestSequenceByClient.keySet().stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(clientIds);

        final int[] position = { 0 };
        final int[] historyCount = { 0 };
        final HistoryRecordEncoder historyEncoder = new HistoryRecordEncoder();
        final ServiceStateBeginEncoder beginEncoder = new ServiceStateBeginEncoder();
        position[0] = MessageHeaderEncoder.ENCODED_LENGTH + ServiceStateBeginEncoder.BLOCK_LENGTH;

        final ClientRecordEncoder clientEncoder = new ClientRecordEncoder();
        for (final long clientId : clientIds)
        {
            clientEncoder.wrapAndApplyHeader(payload, position[0], headerEncoder)
                .clientId(clientId)
                .lastRequestSequence(lastRequestSequenceByClient.get(clientId));
            position[0] += MessageHeaderEncoder.ENCODED_LENGTH + clientEncoder.encodedLength();
        }
        history.forEach((buffer, offset, length, headOffset) ->
        {
            historyEncoder.wrapAndApplyHeader(payload, position[0], headerEncoder).putBatch(buffer, offset, length);
            position[0] += MessageHeaderEncoder.ENCODED_LENGTH + historyEncoder.encodedLength();
            historyCount[0]++;
            return true;
        });
        beginEncoder.wrapAndApplyHeader(payload, 0, headerEncoder)
            .formatVersion(FORMAT_VERSION)
            .nextBatchSequence(nextBatchSequence)
            .clientCount(clientIds.length)
            .historyCount(historyCount[0])
            .droppedUpToLogPosition(history.droppedUpToLogPosition());

        final int totalLength = position[0] + engine.writeSnapshot(payload, position[0]);
        expectLength(totalLength);
        final CRC32C crc = new CRC32C();
        crc.update(payload.byteBuffer().duplicate().position(0).limit(totalLength));

        final ExpandableDirectByteBuffer chunkBuffer = new ExpandableDirectByteBuffer(CHUNK_BYTES + 128);
        final ServiceSnapshotChunkEncoder chunkEncoder = new ServiceSnapshotChunkEncoder();
        int chunkIndex = 0;
        for (int start = 0; start < totalLength || chunkIndex == 0; start += CHUNK_BYTES)
        {
            final int length = Math.min(CHUNK_BYTES, totalLength - start);
            final boolean last = start + length >= totalLength;
            chunkEncoder.wrapAndApplyHeader(chunkBuffer, 0, headerEncoder)
                .chunkIndex(chunkIndex++)
                .lastChunk(last ? BooleanType.TRUE : BooleanType.FALSE)
                .totalLength(totalLength)
                .crc32c(last ? (int)crc.getValue() : 0)
                .putPayload(payload, start, length);
            offer(publication, idleStrategy, chunkBuffer, MessageHeaderEncoder.ENCODED_LENGTH + chunkEncoder.encodedLength());
        }
        return totalLength;
    }

    Loaded load(final Image image, final IdleStrategy idleStrategy)
    {
        final ChunkCollector collector = new ChunkCollector();
        final ImageFragmentAssembler assembler = new ImageFragmentAssembler(collector::onFragment);
        while (!collector.complete)
        {
            final int fragments = image.poll(assembler, 16);
            if (fragments == 0)
            {
                if (image.isEndOfStream() || image.isClosed())
                {
                    throw new ClusterException("service snapshot truncated: ended after " + collector.length +
                        " bytes in " + collector.nextChunkIndex + " chunks, without its last chunk");
                }
                idleStrategy.idle();
            }
            else
            {
                idleStrategy.reset();
            }
        }
        return decode(collector);
    }

    /**
     * Decode the chunks a collector gathered, checking their CRC-32C; also used to read a snapshot offline.
     */
    Loaded decode(final ChunkCollector collector)
    {
        final ExpandableDirectByteBuffer payload = collector.payload;
        final int totalLength = collector.length;
        final CRC32C crc = new CRC32C();
        crc.update(payload.byteBuffer().duplicate().position(0).limit(totalLength));
        if ((int)crc.getValue() != collector.crc32c)
        {
            throw new ClusterException("service snapshot corrupt: CRC-32C " + Integer.toHexString((int)crc.getValue()) +
                " but recorded " + Integer.toHexString(collector.crc32c));
        }

        headerDecoder.wrap(payload, 0);
        if (headerDecoder.templateId() != ServiceStateBeginDecoder.TEMPLATE_ID)
        {
            throw new ClusterException("service snapshot does not start with ServiceStateBegin");
        }
        final ServiceStateBeginDecoder begin = new ServiceStateBeginDecoder()
            .wrap(payload, MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(), headerDecoder.version());
        if (begin.formatVersion() != FORMAT_VERSION)
        {
            throw new ClusterException("unsupported service snapshot format " + begin.formatVersion());
        }
        int position = MessageHeaderDecoder.ENCODED_LENGTH + begin.encodedLength();

        final Long2LongHashMap clients = new Long2LongHashMap(0);
        final ClientRecordDecoder clientDecoder = new ClientRecordDecoder();
        for (int i = 0; i < begin.clientCount(); i++)
        {
            headerDecoder.wrap(payload, position);
            clientDecoder.wrap(payload, position + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(),
                headerDecoder.version());
            clients.put(clientDecoder.clientId(), clientDecoder.lastRequestSequence());
            position += MessageHeaderDecoder.ENCODED_LENGTH + clientDecoder.encodedLength();
        }

        final IntArrayList historyOffsets = new IntArrayList();
        final IntArrayList historyLengths = new IntArrayList();
        final HistoryRecordDecoder historyDecoder = new HistoryRecordDecoder();
        for (int i = 0; i < begin.historyCount(); i++)
        {
            headerDecoder.wrap(payload, position);
            historyDecoder.wrap(payload, position + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(),
                headerDecoder.version());
            final int batchLength = historyDecoder.batchLength();
            historyOffsets.addInt(historyDecoder.limit() + HistoryRecordDecoder.batchHeaderLength());
            historyLengths.addInt(batchLength);
            historyDecoder.skipBatch();
            position = historyDecoder.limit();
        }

        final Loaded loaded = new Loaded(payload, totalLength, begin.nextBatchSequence(),
            begin.droppedUpToLogPosition(), clients, historyOffsets, historyLengths, position, totalLength - position);
        // The Loaded holds the payload for as long as its user needs it; this long-lived decoder must not.
        headerDecoder.wrap(RELEASED, 0);
        return loaded;
    }

    private static void offer(
        final ExclusivePublication publication, final IdleStrategy idleStrategy, final DirectBuffer buffer, final int length)
    {
        long result;
        while ((result = publication.offer(buffer, 0, length)) < 0)
        {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
            {
                throw new ClusterException("snapshot publication failed: " + Publication.errorString(result));
            }
            idleStrategy.idle();
        }
        idleStrategy.reset();
    }

    /**
     * Gathers the chunks of a service snapshot, one whole message at a time.
     */
    static final class ChunkCollector
    {
        private final ExpandableDirectByteBuffer payload = new ExpandableDirectByteBuffer(1024 * 1024);
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
        private final ServiceSnapshotChunkDecoder chunk = new ServiceSnapshotChunkDecoder();
        private int length;
        private int nextChunkIndex;
        private int crc32c;
        private boolean complete;

        boolean isComplete()
        {
            return complete;
        }

        boolean isStarted()
        {
            return nextChunkIndex > 0;
        }

        void onFragment(final DirectBuffer buffer, final int offset, final int fragmentLength, final Header fragmentHeader)
        {
            header.wrap(buffer, offset);
            if (header.schemaId() != MessageHeaderDecoder.SCHEMA_ID ||
                header.templateId() != ServiceSnapshotChunkDecoder.TEMPLATE_ID)
            {
                throw new ClusterException("service snapshot holds an unexpected message, template " + header.templateId());
            }
            chunk.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
            if (chunk.chunkIndex() != nextChunkIndex)
            {
                throw new ClusterException("service snapshot chunk " + chunk.chunkIndex() + " where " + nextChunkIndex +
                    " was expected");
            }
            nextChunkIndex++;
            final boolean last = chunk.lastChunk() == BooleanType.TRUE;
            final int totalLength = (int)chunk.totalLength();
            crc32c = chunk.crc32c();
            if (length == 0)
            {
                // Size the buffer once: growing by doubling would copy a large snapshot several times.
                payload.checkLimit(totalLength);
            }
            final int payloadLength = chunk.payloadLength();
            chunk.getPayload(payload, length, payloadLength);
            length += payloadLength;
            if (length > totalLength || (last && length != totalLength))
            {
                throw new ClusterException("service snapshot length " + length + " does not match recorded " + totalLength);
            }
            complete = last;
        }
    }
}
