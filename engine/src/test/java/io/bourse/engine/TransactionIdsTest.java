package io.bourse.engine;

import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.SnapshotBeginDecoder;
import io.bourse.protocol.codec.SnapshotBeginEncoder;
import io.bourse.protocol.codec.SnapshotEndDecoder;
import io.bourse.protocol.codec.SnapshotEndEncoder;
import io.bourse.protocol.codec.TransactionIdBlocksRecordDecoder;
import io.bourse.protocol.codec.TransactionIdsRecordEncoder;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Applied transfer ids are remembered for ever, a bit per id when they come in sequence, and snapshots of either
 * format keep them.
 */
class TransactionIdsTest
{
    private static final long IN_SEQUENCE = 100_000;
    private static final long[] SPARSE = { 63, 64, 1L << 40, (1L << 40) + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE };

    @Test
    void idsInSequenceTakeABitEachAndEveryAppliedIdIsRefusedAgain()
    {
        final EngineFixture f = engineWithTransfers();
        final int blocksInSequence = (int)(IN_SEQUENCE / 64 + 1);
        // 63 and 64 fall in the sequence's blocks; the other four make two blocks of their own.
        assertEquals(blocksInSequence + 2, f.engine.transactionIds.blockCount());

        assertRepeatsRefused(f.engine, f);
        assertTrue(deposit(f.engine, f, IN_SEQUENCE + 1), "the next id in sequence is applied");
        assertTrue(deposit(f.engine, f, 1L << 41), "an id next to none is applied");
    }

    @Test
    void snapshotKeepsTheBlocksAndIsSmall()
    {
        final EngineFixture f = engineWithTransfers();
        final byte[] snapshot = SnapshotTest.snapshot(f.engine);
        final int blocksRecorded = blocksIn(snapshot);
        assertEquals(f.engine.transactionIds.blockCount(), blocksRecorded);
        // 16 bytes a block: about 25 KB for 100,000 ids in sequence, where 8 bytes an id took 800 KB.
        assertTrue(snapshot.length < 40_000, "snapshot of " + snapshot.length + " bytes");

        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length);
        assertEquals(f.engine.stateHash(), restored.stateHash());
        assertRepeatsRefused(restored, f);
    }

    @Test
    void snapshotOfFormatOneWithIdsOneByOneStillLoads()
    {
        final EngineFixture f = engineWithTransfers();
        final byte[] formatOne = asFormatOne(SnapshotTest.snapshot(f.engine));

        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(formatOne), 0, formatOne.length);
        assertEquals(f.engine.stateHash(), restored.stateHash(), "the state hash does not depend on the format");
        assertEquals(f.engine.transactionIds.blockCount(), restored.transactionIds.blockCount());
        assertRepeatsRefused(restored, f);
    }

    @Test
    void sellsOfAFormatOneSnapshotLoseTheFeeCapTheyNoLongerHave()
    {
        final EngineFixture f = engineWithTransfers();
        f.engine.deposit(IN_SEQUENCE + 1_000, 8, EngineFixture.BTC, 1_000_000_000L, f.tick());
        f.limit(8, 1, io.bourse.protocol.codec.Side.SELL, 10_000, 5);
        final Order sell = f.engine.ordersById.get(f.lastOrderId());
        // As format 1's engine entered it: capped at the fee rate of its entry.
        sell.feeReservePpm = EngineFixture.TAKER_FEE_PPM;
        final byte[] formatOne = asFormatOne(SnapshotTest.snapshot(f.engine));

        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(formatOne), 0, formatOne.length);
        assertEquals(0, restored.ordersById.get(sell.orderId).feeReservePpm);
        sell.feeReservePpm = 0;
        assertEquals(f.engine.stateHash(), restored.stateHash(), "as an engine that replayed the same orders");
        restored.validateInternalState();
    }

    @Test
    void damagedBlocksAreRefused()
    {
        final EngineFixture f = engineWithTransfers();
        final byte[] snapshot = SnapshotTest.snapshot(f.engine);
        final UnsafeBuffer buffer = new UnsafeBuffer(snapshot);
        final int firstEntry = entryOfBlockZero(buffer);

        final long bits = buffer.getLong(firstEntry + 8);
        buffer.putLong(firstEntry + 8, 0);
        final IllegalStateException empty = assertThrows(IllegalStateException.class,
            () -> new Engine(new EventRecorder()).loadSnapshot(buffer, 0, snapshot.length));
        assertTrue(empty.getMessage().contains("invalid transaction id block 0: 0"), empty.getMessage());

        buffer.putLong(firstEntry + 8, bits);
        buffer.putLong(firstEntry + 16, 0);
        buffer.putLong(firstEntry + 24, bits);
        final IllegalStateException twice = assertThrows(IllegalStateException.class,
            () -> new Engine(new EventRecorder()).loadSnapshot(buffer, 0, snapshot.length));
        assertTrue(twice.getMessage().contains("transaction id block 0 recorded twice"), twice.getMessage());
    }

    private static EngineFixture engineWithTransfers()
    {
        final EngineFixture f = new EngineFixture();
        for (long id = 1; id <= IN_SEQUENCE; id++)
        {
            assertTrue(deposit(f.engine, f, id), "id " + id);
        }
        for (final long id : SPARSE)
        {
            deposit(f.engine, f, id);
        }
        return f;
    }

    private static void assertRepeatsRefused(final Engine engine, final EngineFixture f)
    {
        for (final long id : new long[]{ 1, 2, 63, 64, 65, IN_SEQUENCE - 1, IN_SEQUENCE })
        {
            assertFalse(deposit(engine, f, id), "id " + id + " in sequence applied twice");
        }
        for (final long id : SPARSE)
        {
            assertFalse(deposit(engine, f, id), "sparse id " + id + " applied twice");
        }
    }

    /**
     * @return whether the deposit was applied.
     */
    private static boolean deposit(final Engine engine, final EngineFixture f, final long transactionId)
    {
        final EventRecorder recorder = (EventRecorder)engine.listener;
        recorder.clear();
        engine.deposit(transactionId, 7, USD, 1, f.tick());
        return recorder.events().stream()
            .filter(EventRecorder.TransferProcessed.class::isInstance)
            .map(EventRecorder.TransferProcessed.class::cast)
            .findFirst().orElseThrow(() -> new AssertionError("no answer: " + recorder.events()))
            .applied();
    }

    /**
     * @return the offset of the entry for block 0 (ids 1 to 63: every bit but the lowest) in the snapshot.
     */
    private static int entryOfBlockZero(final UnsafeBuffer snapshot)
    {
        for (int offset = 0; offset + 16 <= snapshot.capacity(); offset++)
        {
            if (snapshot.getLong(offset) == 0 && snapshot.getLong(offset + 8) == 0xFFFF_FFFF_FFFF_FFFEL)
            {
                return offset;
            }
        }
        throw new AssertionError("no entry for block 0");
    }

    private static int blocksIn(final byte[] snapshot)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(snapshot);
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final TransactionIdBlocksRecordDecoder blocks = new TransactionIdBlocksRecordDecoder();
        int count = 0;
        for (int position = 0; position < snapshot.length; position += recordLength(buffer, position, header))
        {
            if (header.wrap(buffer, position).templateId() == TransactionIdBlocksRecordDecoder.TEMPLATE_ID)
            {
                count += blocks.wrapAndApplyHeader(buffer, position, header).blocks().count();
            }
        }
        return count;
    }

    /**
     * The same snapshot as format 1 wrote it: the version in SnapshotBegin, and the ids of the blocks one by one, at
     * most 8,192 to a record.
     */
    private static byte[] asFormatOne(final byte[] snapshot)
    {
        final byte[] formatTwo = SnapshotTest.asFormatTwo(snapshot);
        final UnsafeBuffer in = new UnsafeBuffer(formatTwo);
        final ExpandableArrayBuffer out = new ExpandableArrayBuffer();
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
        final TransactionIdBlocksRecordDecoder blocks = new TransactionIdBlocksRecordDecoder();
        final List<Long> applied = new ArrayList<>();
        int written = 0;
        int records = 0;
        for (int position = 0; position < formatTwo.length; position += recordLength(in, position, header))
        {
            header.wrap(in, position);
            if (header.templateId() == TransactionIdBlocksRecordDecoder.TEMPLATE_ID)
            {
                for (final TransactionIdBlocksRecordDecoder.BlocksDecoder block :
                    blocks.wrapAndApplyHeader(in, position, header).blocks())
                {
                    for (int bit = 0; bit < 64; bit++)
                    {
                        if ((block.bits() & (1L << bit)) != 0)
                        {
                            applied.add(block.block() * 64 + bit);
                        }
                    }
                }
                continue;
            }
            if (header.templateId() == SnapshotEndDecoder.TEMPLATE_ID)
            {
                final TransactionIdsRecordEncoder ids = new TransactionIdsRecordEncoder();
                for (int start = 0; start < applied.size(); start += 8192)
                {
                    final List<Long> chunk = applied.subList(start, Math.min(applied.size(), start + 8192));
                    final TransactionIdsRecordEncoder.TransactionIdsEncoder group =
                        ids.wrapAndApplyHeader(out, written, headerEncoder).transactionIdsCount(chunk.size());
                    chunk.forEach(id -> group.next().transactionId(id));
                    written += MessageHeaderEncoder.ENCODED_LENGTH + ids.encodedLength();
                    records++;
                }
            }
            final int length = recordLength(in, position, header);
            out.putBytes(written, in, position, length);
            if (header.templateId() == SnapshotBeginDecoder.TEMPLATE_ID)
            {
                new SnapshotBeginEncoder().wrap(out, written + MessageHeaderEncoder.ENCODED_LENGTH).formatVersion(1);
            }
            else if (header.templateId() == SnapshotEndDecoder.TEMPLATE_ID)
            {
                new SnapshotEndEncoder().wrap(out, written + MessageHeaderEncoder.ENCODED_LENGTH).recordCount(records);
            }
            else
            {
                records++;
            }
            written += length;
        }
        final byte[] bytes = new byte[written];
        out.getBytes(0, bytes);
        return bytes;
    }

    /**
     * @return the length of the record at the position, header included; leaves the header wrapping it.
     */
    private static int recordLength(final UnsafeBuffer buffer, final int position, final MessageHeaderDecoder header)
    {
        header.wrap(buffer, position);
        return MessageHeaderDecoder.ENCODED_LENGTH + SnapshotTest.bodyLength(buffer, position, header);
    }
}
