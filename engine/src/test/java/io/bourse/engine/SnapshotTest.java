package io.bourse.engine;

import io.bourse.protocol.codec.AccountRecordDecoder;
import io.bourse.protocol.codec.AssetRecordDecoder;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.InstrumentRecordDecoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.OrderRecordDecoder;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.SnapshotBeginDecoder;
import io.bourse.protocol.codec.SnapshotBeginEncoder;
import io.bourse.protocol.codec.SnapshotEndDecoder;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.TransactionIdBlocksRecordDecoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.ETH;
import static io.bourse.engine.EngineFixture.ETH_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshot → load → continue is indistinguishable from an uninterrupted run, and damaged snapshots are refused.
 */
class SnapshotTest
{
    private static final int COMMANDS_BEFORE = 3_000;
    private static final int COMMANDS_AFTER = 2_000;

    @ParameterizedTest
    @ValueSource(longs = { 1, 2, 3, 0x5EED_0004L, 0x5EED_0005L })
    void restoredEngineContinuesExactlyLikeTheOriginal(final long seed)
    {
        final Workload workload = new Workload(seed);
        final EngineFixture a = new EngineFixture();
        workload.prelude(a.engine, a.nowNs);
        for (int i = 0; i < COMMANDS_BEFORE; i++)
        {
            workload.next().applyTo(a.engine);
        }
        final long depositTransactionId = workload.coverage(a.engine);
        a.engine.validateInternalState();

        final byte[] snapshot = snapshot(a.engine);
        assertCovers(snapshot, seed);

        final EventRecorder recorderB = new EventRecorder();
        final Engine b = new Engine(recorderB);
        b.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length);
        assertEquals(a.engine.stateHash(), b.stateHash(), "seed " + seed);
        assertEquals(a.engine.lastTimestampNs(), b.lastTimestampNs(), "seed " + seed);
        assertEquals(a.engine.openOrderCount(), b.openOrderCount(), "seed " + seed);
        b.validateInternalState();
        assertArrayEquals(snapshot, snapshot(b), "a restored engine writes the snapshot it was loaded from, seed " + seed);

        final Command repeatDeposit = workload.deposit(depositTransactionId, 1, USD, 5);
        final Map<Object, Integer> tally = new HashMap<>();
        final long triggeredBefore = a.events.all(EventRecorder.CancelAllAfterChanged.class).stream()
            .filter(EventRecorder.CancelAllAfterChanged::triggered).count();
        for (int i = 0; i < COMMANDS_AFTER; i++)
        {
            final Command command = i == 0 ? repeatDeposit : workload.next();
            a.events.clear();
            recorderB.clear();
            command.applyTo(a.engine);
            command.applyTo(b);
            assertEquals(a.events.events(), recorderB.events(), "seed " + seed + " command " + i + ": " + command);
            assertEquals(a.engine.stateHash(), b.stateHash(), "seed " + seed + " command " + i + ": " + command);
            recorderB.events().forEach(event -> tally.merge(
                event instanceof EventRecorder.CommandRejected r ? r.reason() :
                event instanceof EventRecorder.CancelAllAfterChanged c && c.triggered() ? CancelReason.CANCEL_ALL_AFTER :
                event.getClass(), 1, Integer::sum));
            if (i == 0)
            {
                assertFalse(recorderB.only(EventRecorder.TransferProcessed.class).applied(),
                    "a deposit repeated after a restore is not applied again");
            }
        }
        assertTrue(tally.getOrDefault(EventRecorder.Trade.class, 0) > 100, "seed " + seed + ": " + tally);
        assertTrue(tally.getOrDefault(EventRecorder.OrderExpired.class, 0) > 0, "seed " + seed + ": " + tally);
        assertTrue(tally.getOrDefault(EventRecorder.OrderReplaced.class, 0) > 0, "seed " + seed + ": " + tally);
        assertTrue(tally.getOrDefault(EventRecorder.OrderTriggered.class, 0) > 0, "seed " + seed + ": " + tally);
        assertTrue(triggeredBefore + tally.getOrDefault(CancelReason.CANCEL_ALL_AFTER, 0) > 0,
            "switches triggered, seed " + seed + ": " + triggeredBefore + " before the snapshot; " + tally);
        final int rejected = tally.entrySet().stream()
            .filter(entry -> entry.getKey() instanceof RejectReason).mapToInt(Map.Entry::getValue).sum();
        assertTrue(rejected < COMMANDS_AFTER / 2,
            "seed " + seed + ": " + tally);
        a.engine.validateInternalState();
        b.validateInternalState();
        assertArrayEquals(snapshot(a.engine), snapshot(b), "seed " + seed);
    }

    @Test
    void snapshotOfTheSameStateIsByteIdentical()
    {
        final Engine engine = busyEngine(7);
        final byte[] first = snapshot(engine);
        final byte[] second = snapshot(engine);
        assertArrayEquals(first, second);

        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer();
        buffer.setMemory(0, 64, (byte)0x7F);
        final int length = engine.writeSnapshot(buffer, 64);
        assertEquals(first.length, length);
        final byte[] atOffset = new byte[length];
        buffer.getBytes(64, atOffset);
        assertArrayEquals(first, atOffset, "a snapshot written at an offset holds the same bytes");
    }

    @Test
    void snapshotLoadsFromAnOffset()
    {
        final Engine engine = busyEngine(8);
        final byte[] snapshot = snapshot(engine);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[snapshot.length + 100]);
        buffer.putBytes(37, snapshot);
        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(buffer, 37, snapshot.length);
        assertEquals(engine.stateHash(), restored.stateHash());
    }

    @Test
    void truncatedSnapshotIsRejected()
    {
        final byte[] snapshot = snapshot(busyEngine(9));
        for (final int length : new int[]{ 0, 5, MessageHeaderDecoder.ENCODED_LENGTH + 3, snapshot.length / 2,
            snapshot.length - SnapshotEndDecoder.BLOCK_LENGTH - MessageHeaderDecoder.ENCODED_LENGTH, snapshot.length - 1 })
        {
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Engine(new EventRecorder()).loadSnapshot(new UnsafeBuffer(snapshot), 0, length),
                "length " + length);
            assertTrue(e.getMessage().contains("truncated") || e.getMessage().contains("SnapshotBegin"),
                "length " + length + ": " + e.getMessage());
        }
    }

    @Test
    void flippedByteInAnOrderRecordIsRejected()
    {
        final byte[] snapshot = snapshot(busyEngine(10));
        final int order = findRecord(snapshot, OrderRecordDecoder.TEMPLATE_ID);
        final int[] fieldOffsets = {
            OrderRecordDecoder.priceEncodingOffset(), OrderRecordDecoder.quantityEncodingOffset(),
            OrderRecordDecoder.filledQuantityEncodingOffset(), OrderRecordDecoder.clientOrderIdEncodingOffset(),
            OrderRecordDecoder.orderIdEncodingOffset(), OrderRecordDecoder.feeReservePpmEncodingOffset() };
        for (final int fieldOffset : fieldOffsets)
        {
            final byte[] corrupt = snapshot.clone();
            corrupt[order + MessageHeaderDecoder.ENCODED_LENGTH + fieldOffset] ^= 0x01;
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Engine(new EventRecorder()).loadSnapshot(new UnsafeBuffer(corrupt), 0, corrupt.length),
                "field at " + fieldOffset);
            assertTrue(e.getMessage().contains("hash mismatch"), e.getMessage());
        }

        final byte[] badSide = snapshot.clone();
        badSide[order + MessageHeaderDecoder.ENCODED_LENGTH + OrderRecordDecoder.sideEncodingOffset()] = 9;
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> new Engine(new EventRecorder()).loadSnapshot(new UnsafeBuffer(badSide), 0, badSide.length));
        assertTrue(e.getMessage().contains("snapshot corrupt"), e.getMessage());
    }

    @Test
    void wrongRecordedHashIsRejected()
    {
        final byte[] snapshot = snapshot(busyEngine(11));
        final int end = findRecord(snapshot, SnapshotEndDecoder.TEMPLATE_ID);
        final UnsafeBuffer buffer = new UnsafeBuffer(snapshot);
        final int hashOffset = end + MessageHeaderDecoder.ENCODED_LENGTH + SnapshotEndDecoder.stateHashEncodingOffset();
        buffer.putLong(hashOffset, buffer.getLong(hashOffset) + 1);
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> new Engine(new EventRecorder()).loadSnapshot(buffer, 0, snapshot.length));
        assertTrue(e.getMessage().contains("state hash mismatch"), e.getMessage());
    }

    @Test
    void loadingIntoAnEngineThatHasStateIsRefused()
    {
        final byte[] snapshot = snapshot(busyEngine(12));
        final EngineFixture used = new EngineFixture();
        final long hash = used.engine.stateHash();
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> used.engine.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length));
        assertTrue(e.getMessage().contains("new engine"), e.getMessage());
        assertEquals(hash, used.engine.stateHash());

        final Engine withAccountOnly = new Engine(new EventRecorder());
        withAccountOnly.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.ACCOUNT_DEFAULT, 1);
        assertThrows(IllegalStateException.class,
            () -> withAccountOnly.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length));

        final Engine loadedTwice = new Engine(new EventRecorder());
        loadedTwice.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length);
        assertThrows(IllegalStateException.class,
            () -> loadedTwice.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length));
    }

    @Test
    void emptyEngineRoundTrips()
    {
        final Engine empty = new Engine(new EventRecorder());
        final byte[] snapshot = snapshot(empty);
        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length);
        assertEquals(empty.stateHash(), restored.stateHash());
    }

    @Test
    void stateHashSeesADifferentOrder()
    {
        final Engine one = busyEngine(13);
        final Engine two = busyEngine(13);
        for (final Engine engine : new Engine[]{ one, two })
        {
            // Whatever the workload left switched off, an order is accepted now.
            engine.setKillSwitch(0, false, engine.lastTimestampNs());
            engine.setKillSwitch(1, false, engine.lastTimestampNs());
            engine.setTradingState(BTC_USD, TradingState.OPEN, engine.lastTimestampNs());
        }
        assertEquals(one.stateHash(), two.stateHash());
        two.newOrder(1, 999_999, BTC_USD, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 9_900, 1, 0, 0, 0, two.lastTimestampNs() + 1);
        assertEquals(one.openOrderCount() + 1, two.openOrderCount(), "the order rests");
        assertNotEquals(one.stateHash(), two.stateHash());
    }

    @Test
    void ordersKeepTheirCreationAndUpdateTimesThroughASnapshot()
    {
        final EngineFixture f = new EngineFixture();
        f.fundAll(1);
        f.fundAll(2);
        f.limit(1, 1, Side.SELL, 100_00, 10);
        final long restingId = f.lastOrderId();
        final long created = f.nowNs;
        f.order(2, 2, BTC_USD, Side.BUY, OrderType.LIMIT, TimeInForce.IOC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
            100_00, 4, 0, 0);
        final long filled = f.nowNs;
        f.limit(2, 3, Side.BUY, 90_00, 5);
        final long untouchedId = f.lastOrderId();
        final long accepted = f.nowNs;
        f.limit(2, 4, Side.BUY, 80_00, 5);
        final long replacedId = f.lastOrderId();
        final long replacedCreated = f.nowNs;
        f.engine.replaceOrder(2, replacedId, 0, 0, 81_00, 5, 0, f.tick());
        final long replaced = f.nowNs;

        final byte[] snapshot = snapshot(f.engine);
        assertArrayEquals(new long[]{ created, filled }, orderTimes(snapshot, restingId), "a fill updates the maker");
        assertArrayEquals(new long[]{ accepted, accepted }, orderTimes(snapshot, untouchedId));
        assertArrayEquals(new long[]{ replacedCreated, replaced }, orderTimes(snapshot, replacedId),
            "a replace updates the order, and keeps its creation");
        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length);
        assertArrayEquals(snapshot, snapshot(restored), "the times are restored with the order");
    }

    @Test
    void aFormatTwoSnapshotLoadsWithItsOrdersTimesUnknown()
    {
        final Engine engine = busyEngine(14);
        // Accounts had no rates of their own then, nor stop orders, nor cancel-all-after switches.
        for (long account = 1; account <= Workload.ACCOUNTS + 2; account++)
        {
            engine.setAccountFees(account, -1, -1, engine.lastTimestampNs());
        }
        cancelStops(engine);
        disarmCancelAllAfter(engine);
        final byte[] formatTwo = asFormatTwo(snapshot(engine));
        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(formatTwo), 0, formatTwo.length);
        assertEquals(engine.stateHash(), restored.stateHash(), "the times are not part of the state hash");
        assertEquals(engine.openOrderCount(), restored.openOrderCount());
        restored.validateInternalState();
        final byte[] rewritten = snapshot(restored);
        final UnsafeBuffer buffer = new UnsafeBuffer(rewritten);
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final OrderRecordDecoder order = new OrderRecordDecoder();
        int orders = 0;
        for (int position = 0; position < rewritten.length;
            position += MessageHeaderDecoder.ENCODED_LENGTH + bodyLength(buffer, position, header))
        {
            header.wrap(buffer, position);
            if (header.templateId() == OrderRecordDecoder.TEMPLATE_ID)
            {
                order.wrapAndApplyHeader(buffer, position, header);
                assertEquals(0, order.createdTimeNs(), "order " + order.orderId());
                assertEquals(0, order.updatedTimeNs(), "order " + order.orderId());
                orders++;
            }
        }
        assertTrue(orders > 10, "orders " + orders);
    }

    @Test
    void aFormatFourSnapshotWithoutCancelAllAfterLoadsDisarmed()
    {
        final Engine engine = busyEngine(16);
        disarmCancelAllAfter(engine);
        final byte[] formatFour = asFormatFour(snapshot(engine));
        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(formatFour), 0, formatFour.length);
        assertEquals(engine.stateHash(), restored.stateHash(), "its recorded hash verifies, and the states agree");
        assertEquals(Long.MAX_VALUE, restored.nextCancelAllAfterNs());
        restored.validateInternalState();
        assertArrayEquals(snapshot(engine), snapshot(restored));
    }

    @Test
    void anArmedSwitchRoundTripsAndTriggersAfterTheLoadAsItWouldHave()
    {
        final Engine engine = busyEngine(17);
        final long deadlineNs = engine.nextCancelAllAfterNs();
        assertTrue(deadlineNs < Long.MAX_VALUE, "the coverage arms a switch");
        final EventRecorder restoredEvents = new EventRecorder();
        final Engine restored = new Engine(restoredEvents);
        final byte[] bytes = snapshot(engine);
        restored.loadSnapshot(new UnsafeBuffer(bytes), 0, bytes.length);
        assertEquals(engine.nextExpiryTimeNs(), restored.nextExpiryTimeNs());

        final EventRecorder originalEvents = (EventRecorder)engine.listener;
        originalEvents.clear();
        engine.expireOrders(deadlineNs);
        restored.expireOrders(deadlineNs);
        assertEquals(originalEvents.events(), restoredEvents.events());
        assertTrue(restoredEvents.all(EventRecorder.CancelAllAfterChanged.class).stream()
            .anyMatch(EventRecorder.CancelAllAfterChanged::triggered), restoredEvents.events().toString());
        assertEquals(engine.stateHash(), restored.stateHash());
        restored.validateInternalState();
    }

    private static void disarmCancelAllAfter(final Engine engine)
    {
        for (final long accountId : engine.accounts.keySet().stream().mapToLong(Long::longValue).toArray())
        {
            engine.setCancelAllAfter(accountId, 0, engine.lastTimestampNs());
        }
    }

    @Test
    void aFormatThreeSnapshotWithoutStopsLoads()
    {
        final Engine engine = busyEngine(15);
        cancelStops(engine);
        disarmCancelAllAfter(engine);
        final byte[] formatThree = asFormatThree(snapshot(engine));
        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(formatThree), 0, formatThree.length);
        assertEquals(engine.stateHash(), restored.stateHash(), "its recorded hash verifies, and the states agree");
        restored.validateInternalState();
        assertArrayEquals(snapshot(engine), snapshot(restored));
    }

    /**
     * Cancel every untriggered stop order, which snapshots before format 4 could not hold.
     */
    private static void cancelStops(final Engine engine)
    {
        for (final Instrument instrument : engine.instruments.values())
        {
            for (final Side side : new Side[]{ Side.BUY, Side.SELL })
            {
                Order stop;
                while ((stop = instrument.stops(side).next()) != null)
                {
                    engine.cancelOrder(stop.account.accountId, stop.orderId, 0, engine.lastTimestampNs());
                }
            }
        }
    }

    /**
     * The same snapshot as format 3 wrote it: every record of schema version 2, order records without the stop
     * terms, the last fields of their block.
     */
    static byte[] asFormatThree(final byte[] snapshot)
    {
        return asEarlierFormat(snapshot, 3, 2,
            OrderRecordDecoder.BLOCK_LENGTH - OrderRecordDecoder.stopPriceEncodingOffset(), ACCOUNT_CANCEL_ALL_AFTER_CUT);
    }

    /**
     * The same snapshot as format 4 wrote it: every record of schema version 3, account records without the
     * cancel-all-after switch, the last fields of their block.
     */
    static byte[] asFormatFour(final byte[] snapshot)
    {
        return asEarlierFormat(snapshot, 4, 3, 0, ACCOUNT_CANCEL_ALL_AFTER_CUT);
    }

    private static final int ACCOUNT_CANCEL_ALL_AFTER_CUT =
        AccountRecordDecoder.BLOCK_LENGTH - AccountRecordDecoder.cancelAllAfterTimeoutMsEncodingOffset();

    /**
     * The same snapshot as format 2 wrote it: the version in SnapshotBegin, every record of schema version 0, order
     * records without the times and stop terms and account records without the fee rates (the last fields of each
     * one's block).
     */
    static byte[] asFormatTwo(final byte[] snapshot)
    {
        return asEarlierFormat(snapshot, 2, 0,
            OrderRecordDecoder.BLOCK_LENGTH - OrderRecordDecoder.createdTimeNsEncodingOffset(),
            AccountRecordDecoder.BLOCK_LENGTH - AccountRecordDecoder.makerFeePpmEncodingOffset());
    }

    private static byte[] asEarlierFormat(
        final byte[] snapshot, final int format, final int schemaVersion, final int orderCut, final int accountCut)
    {
        final UnsafeBuffer in = new UnsafeBuffer(snapshot);
        final ExpandableArrayBuffer out = new ExpandableArrayBuffer();
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        int written = 0;
        for (int position = 0; position < snapshot.length;)
        {
            header.wrap(in, position);
            final int length = MessageHeaderDecoder.ENCODED_LENGTH + bodyLength(in, position, header);
            final int cut = header.templateId() == OrderRecordDecoder.TEMPLATE_ID ? orderCut :
                header.templateId() == AccountRecordDecoder.TEMPLATE_ID ? accountCut : 0;
            final int blockEnd = MessageHeaderDecoder.ENCODED_LENGTH + header.blockLength();
            out.putBytes(written, in, position, blockEnd - cut);
            out.putBytes(written + blockEnd - cut, in, position + blockEnd, length - blockEnd);
            final int copied = length - cut;
            final MessageHeaderEncoder outHeader = new MessageHeaderEncoder().wrap(out, written);
            outHeader.version(schemaVersion);
            outHeader.blockLength(header.blockLength() - cut);
            if (header.templateId() == SnapshotBeginDecoder.TEMPLATE_ID)
            {
                new SnapshotBeginEncoder().wrap(out, written + MessageHeaderEncoder.ENCODED_LENGTH).formatVersion(format);
            }
            written += copied;
            position += length;
        }
        final byte[] bytes = new byte[written];
        out.getBytes(0, bytes);
        return bytes;
    }

    /**
     * @return the order's creation and update times as the snapshot records them.
     */
    private static long[] orderTimes(final byte[] snapshot, final long orderId)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(snapshot);
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final OrderRecordDecoder order = new OrderRecordDecoder();
        for (int position = 0; position < snapshot.length;
            position += MessageHeaderDecoder.ENCODED_LENGTH + bodyLength(buffer, position, header))
        {
            header.wrap(buffer, position);
            if (header.templateId() == OrderRecordDecoder.TEMPLATE_ID &&
                order.wrapAndApplyHeader(buffer, position, header).orderId() == orderId)
            {
                return new long[]{ order.createdTimeNs(), order.updatedTimeNs() };
            }
        }
        throw new AssertionError("no record of order " + orderId);
    }

    private static Engine busyEngine(final long seed)
    {
        final Workload workload = new Workload(seed);
        final EngineFixture f = new EngineFixture();
        workload.prelude(f.engine, f.nowNs);
        for (int i = 0; i < 500; i++)
        {
            workload.next().applyTo(f.engine);
        }
        workload.coverage(f.engine);
        return f.engine;
    }

    static byte[] snapshot(final Engine engine)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer();
        final int length = engine.writeSnapshot(buffer, 0);
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    /**
     * @return the offset of the first record (its header) with the template id.
     */
    private static int findRecord(final byte[] snapshot, final int templateId)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(snapshot);
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        int position = 0;
        while (position < snapshot.length)
        {
            header.wrap(buffer, position);
            if (header.templateId() == templateId)
            {
                return position;
            }
            position += MessageHeaderDecoder.ENCODED_LENGTH + bodyLength(buffer, position, header);
        }
        throw new AssertionError("no record with template " + templateId);
    }

    static int bodyLength(final DirectBuffer buffer, final int position, final MessageHeaderDecoder header)
    {
        final int body = position + MessageHeaderDecoder.ENCODED_LENGTH;
        final int blockLength = header.blockLength();
        final int version = header.version();
        return switch (header.templateId())
        {
            case SnapshotBeginDecoder.TEMPLATE_ID ->
                new SnapshotBeginDecoder().wrap(buffer, body, blockLength, version).sbeDecodedLength();
            case AssetRecordDecoder.TEMPLATE_ID ->
                new AssetRecordDecoder().wrap(buffer, body, blockLength, version).sbeDecodedLength();
            case InstrumentRecordDecoder.TEMPLATE_ID ->
                new InstrumentRecordDecoder().wrap(buffer, body, blockLength, version).sbeDecodedLength();
            case AccountRecordDecoder.TEMPLATE_ID ->
                new AccountRecordDecoder().wrap(buffer, body, blockLength, version).sbeDecodedLength();
            case OrderRecordDecoder.TEMPLATE_ID ->
                new OrderRecordDecoder().wrap(buffer, body, blockLength, version).sbeDecodedLength();
            case TransactionIdBlocksRecordDecoder.TEMPLATE_ID ->
                new TransactionIdBlocksRecordDecoder().wrap(buffer, body, blockLength, version).sbeDecodedLength();
            case SnapshotEndDecoder.TEMPLATE_ID ->
                new SnapshotEndDecoder().wrap(buffer, body, blockLength, version).sbeDecodedLength();
            default -> throw new AssertionError("unknown template " + header.templateId());
        };
    }

    /**
     * The snapshot holds what the round trip is meant to exercise: GTD and partially filled orders, a kill
     * switch, limits, a non-open trading state and transaction ids.
     */
    private static void assertCovers(final byte[] snapshot, final long seed)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(snapshot);
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        int gtdOrders = 0;
        int partiallyFilled = 0;
        int killSwitches = 0;
        int limited = 0;
        int ownFees = 0;
        int cancelAllAfter = 0;
        int notOpen = 0;
        int transactionIds = 0;
        int stops = 0;
        int position = 0;
        while (position < snapshot.length)
        {
            header.wrap(buffer, position);
            final int body = position + MessageHeaderDecoder.ENCODED_LENGTH;
            switch (header.templateId())
            {
                case OrderRecordDecoder.TEMPLATE_ID ->
                {
                    final OrderRecordDecoder order =
                        new OrderRecordDecoder().wrap(buffer, body, header.blockLength(), header.version());
                    gtdOrders += order.timeInForce() == TimeInForce.GTD ? 1 : 0;
                    partiallyFilled += order.filledQuantity() > 0 ? 1 : 0;
                    stops += order.stopPrice() > 0 ? 1 : 0;
                }
                case AccountRecordDecoder.TEMPLATE_ID ->
                {
                    final AccountRecordDecoder account =
                        new AccountRecordDecoder().wrap(buffer, body, header.blockLength(), header.version());
                    killSwitches += account.killSwitch() == BooleanType.TRUE ? 1 : 0;
                    limited += account.maxOpenOrders() > 0 || account.maxOrderQuantity() > 0 ? 1 : 0;
                    ownFees += account.makerFeePpm() >= 0 || account.takerFeePpm() >= 0 ? 1 : 0;
                    cancelAllAfter += account.cancelAllAfterDeadlineNs() > 0 ? 1 : 0;
                }
                case InstrumentRecordDecoder.TEMPLATE_ID ->
                {
                    final InstrumentRecordDecoder instrument =
                        new InstrumentRecordDecoder().wrap(buffer, body, header.blockLength(), header.version());
                    notOpen += instrument.tradingState() != TradingState.OPEN ? 1 : 0;
                }
                case TransactionIdBlocksRecordDecoder.TEMPLATE_ID ->
                {
                    final TransactionIdBlocksRecordDecoder ids = new TransactionIdBlocksRecordDecoder();
                    ids.wrap(buffer, body, header.blockLength(), header.version());
                    for (final TransactionIdBlocksRecordDecoder.BlocksDecoder block : ids.blocks())
                    {
                        transactionIds += Long.bitCount(block.bits());
                    }
                }
                default ->
                {
                }
            }
            position += MessageHeaderDecoder.ENCODED_LENGTH + bodyLength(buffer, position, header);
        }
        final String counts = "seed " + seed + ": gtd " + gtdOrders + ", partially filled " + partiallyFilled +
            ", kill switches " + killSwitches + ", limited " + limited + ", own fees " + ownFees + ", not open " + notOpen +
            ", transaction ids " + transactionIds + ", stops " + stops + ", cancel-all-after " + cancelAllAfter;
        assertTrue(gtdOrders > 0 && partiallyFilled > 0 && killSwitches > 0 && limited > 0 && ownFees > 0 && notOpen > 0 &&
            transactionIds > 0 && stops >= 3 && cancelAllAfter > 0, counts);
    }

    /**
     * One engine command with its time fixed when generated, so it can be applied to two engines alike.
     */
    record Command(String description, long nowNs, Action action)
    {
        void applyTo(final Engine engine)
        {
            action.apply(engine, nowNs);
        }

        public String toString()
        {
            return description + " at " + nowNs;
        }
    }

    @FunctionalInterface
    interface Action
    {
        void apply(Engine engine, long nowNs);
    }

    /**
     * A compact seeded generator of mostly valid commands over a few accounts and both fixture instruments, with
     * prices clustered so that orders cross, and occasional admin commands (limits, kill switches, trading
     * states, transfers, including repeated transaction ids).
     */
    static final class Workload
    {
        static final int ACCOUNTS = 4;
        private static final int KEEP_CLIENT_ORDER_IDS = 12;

        private final Random random;
        private final Random switchRandom;
        private final List<List<Long>> clientOrderIds = new ArrayList<>();
        private final List<Long> transactionIds = new ArrayList<>();
        private long nowNs;
        private long nextClientOrderId = 1;
        private long nextTransactionId = 1_000;
        private long killedAccount = -1;
        private int haltedInstrument;

        Workload(final long seed)
        {
            random = new Random(seed);
            switchRandom = new Random(~seed);
            for (int i = 0; i <= ACCOUNTS + 2; i++)
            {
                clientOrderIds.add(new ArrayList<>());
            }
        }

        /**
         * Fund the accounts (applied directly to the engine before the generated commands).
         */
        void prelude(final Engine engine, final long startNs)
        {
            nowNs = startNs;
            for (int account = 1; account <= ACCOUNTS; account++)
            {
                deposit(nextTransactionId++, account, BTC, 100_000_000_000L).applyTo(engine);
                deposit(nextTransactionId++, account, ETH, 100_000_000_000L).applyTo(engine);
                deposit(nextTransactionId++, account, USD, 100_000_000_000L).applyTo(engine);
            }
        }

        /**
         * Make sure the state holds every kind of thing a snapshot must carry, whatever the random commands did.
         *
         * @return a transaction id already applied.
         */
        long coverage(final Engine engine)
        {
            final long a = ACCOUNTS + 1;
            final long b = ACCOUNTS + 2;
            final int instrumentId = 3;
            final List<Command> commands = new ArrayList<>();
            // A book of its own, which the random orders never reach, to be sure of a partially filled order.
            commands.add(command("define", (e, t) -> e.defineInstrument(instrumentId, "BTC-USD.2", BTC, USD, 2, 1, 4, 1,
                1, 0, 0, 0, EngineFixture.MAKER_FEE_PPM, EngineFixture.TAKER_FEE_PPM, TradingState.OPEN, t)));
            commands.add(command("global kill switch off", (e, t) -> e.setKillSwitch(0, false, t)));
            final long transactionId = nextTransactionId;
            commands.add(deposit(nextTransactionId++, a, USD, 100_000_000_000L));
            commands.add(deposit(nextTransactionId++, a, BTC, 100_000_000_000L));
            commands.add(deposit(nextTransactionId++, b, USD, 100_000_000_000L));
            commands.add(command("limits", (e, t) -> e.setAccountLimits(a, 1_000, 0, 50, SelfTradePrevention.DECREMENT, t)));
            commands.add(command("fees", (e, t) -> e.setAccountFees(a, 0, 500, t)));
            commands.add(command("cancel all after", (e, t) -> e.setCancelAllAfter(a, Engine.MAX_CANCEL_ALL_AFTER_MS, t)));
            commands.add(order(a, nextClientOrderId++, instrumentId, Side.SELL, OrderType.LIMIT, TimeInForce.GTD, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 30_000, 10, 0, nowNs + 1_000_000_000_000L, 0));
            commands.add(order(a, nextClientOrderId++, instrumentId, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 29_000, 10, 0, 0, 0));
            commands.add(order(b, nextClientOrderId++, instrumentId, Side.BUY, OrderType.LIMIT, TimeInForce.IOC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 29_000, 4, 0, 0, 0));
            // Untriggered stops of both kinds on both sides, on the book the random orders never reach.
            commands.add(order(b, nextClientOrderId++, instrumentId, Side.BUY, OrderType.LIMIT, TimeInForce.GTD, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 31_000, 2, 0, nowNs + 1_000_000_000_000L, 30_500));
            commands.add(order(b, nextClientOrderId++, instrumentId, Side.BUY, OrderType.MARKET, TimeInForce.GTC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 0, 0, 50_000, 0, 30_000));
            commands.add(order(a, nextClientOrderId++, instrumentId, Side.SELL, OrderType.MARKET, TimeInForce.IOC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 0, 3, 0, 0, 28_000));
            commands.add(command("kill switch", (e, t) -> e.setKillSwitch(b, true, t)));
            commands.add(command("post only", (e, t) -> e.setTradingState(ETH_USD, TradingState.POST_ONLY, t)));
            for (final Command command : commands)
            {
                command.applyTo(engine);
            }
            return transactionId;
        }

        Command next()
        {
            final int roll = random.nextInt(100);
            final long account = 1 + random.nextInt(ACCOUNTS);
            if (roll < 45)
            {
                return randomOrder(account);
            }
            if (roll < 57)
            {
                final long clientOrderId = recentClientOrderId(account);
                clientOrderIds.get((int)account).remove(clientOrderId);
                return command("cancel " + account + "/" + clientOrderId,
                    (e, t) -> e.cancelOrder(account, 0, clientOrderId, t));
            }
            if (roll < 69)
            {
                final long clientOrderId = recentClientOrderId(account);
                final long newClientOrderId = random.nextInt(4) == 0 ? newClientOrderId(account) : 0;
                if (newClientOrderId != 0)
                {
                    remember(account, newClientOrderId);
                }
                final long price = 9_985 + random.nextInt(31);
                final long quantity = 1 + random.nextInt(30);
                // A stop price now and then: refused unless the order is an untriggered stop.
                final long stopPrice = random.nextInt(4) == 0 ? 9_985 + random.nextInt(31) : 0;
                return command("replace " + account + "/" + clientOrderId + " as " + newClientOrderId + " " +
                    quantity + "@" + price + " stop " + stopPrice,
                    (e, t) -> e.replaceOrder(account, 0, clientOrderId, newClientOrderId, price, quantity, stopPrice, t));
            }
            if (roll < 72)
            {
                final int instrumentId = random.nextInt(3);
                final Side side = random.nextBoolean() ? Side.NULL_VAL : randomSide();
                return command("mass cancel " + account + " " + instrumentId + " " + side,
                    (e, t) -> e.massCancel(account, instrumentId, side, t));
            }
            if (roll < 75)
            {
                final long clientOrderId = recentClientOrderId(account);
                return command("query " + account + "/" + clientOrderId,
                    (e, t) -> e.queryOrder(account, 0, clientOrderId, t));
            }
            if (roll < 80 && switchRandom.nextInt(20) == 0)
            {
                // Seldom, so that an account often goes the 1,000 to 2,000 commands of a deadline (1 µs each) without
                // arming its switch again, which then triggers at an expiry; or disarmed. Drawn apart, so that the
                // other commands are those of the workloads before switches, the odd expiry replaced.
                final long timeoutMs = switchRandom.nextInt(4) == 0 ? 0 : 1 + switchRandom.nextInt(2);
                return command("cancel all after " + account + " " + timeoutMs + " ms",
                    (e, t) -> e.setCancelAllAfter(account, timeoutMs, t));
            }
            if (roll < 80)
            {
                return command("expire", (e, t) -> e.expireOrders(t));
            }
            if (roll < 85)
            {
                final long transactionId = nextTransactionId++;
                transactionIds.add(transactionId);
                return deposit(transactionId, account, 1 + random.nextInt(3), 1 + random.nextInt(10_000_000));
            }
            if (roll < 87 && !transactionIds.isEmpty())
            {
                final long transactionId = transactionIds.get(random.nextInt(transactionIds.size()));
                return deposit(transactionId, account, USD, 1 + random.nextInt(10_000_000));
            }
            if (roll < 90)
            {
                final long transactionId = nextTransactionId++;
                final int assetId = 1 + random.nextInt(3);
                final long amount = 1 + random.nextInt(1_000_000);
                return command("withdraw " + transactionId + " " + account + " " + assetId + " " + amount,
                    (e, t) -> e.withdraw(transactionId, account, assetId, amount, t));
            }
            if (roll < 92)
            {
                // An account's own rates, or back to the instruments'; a rate now and then above the instruments'.
                final int maker = random.nextInt(3) == 0 ? -1 : random.nextInt(3_000);
                final int taker = random.nextInt(3) == 0 ? -1 : random.nextInt(3_000);
                return command("fees " + account + " " + maker + " " + taker,
                    (e, t) -> e.setAccountFees(account, maker, taker, t));
            }
            if (roll < 94)
            {
                final long maxOrderQuantity = random.nextInt(3) != 0 ? 0 : 20 + random.nextInt(30);
                final long maxOrderNotional = random.nextInt(3) != 0 ? 0 : 200_000 + random.nextInt(500_000);
                final int maxOpenOrders = random.nextInt(3) != 0 ? 0 : 5 + random.nextInt(20);
                final SelfTradePrevention stp = randomStp();
                return command("limits " + account + " " + maxOrderQuantity + " " + maxOrderNotional + " " +
                    maxOpenOrders + " " + stp,
                    (e, t) -> e.setAccountLimits(account, maxOrderQuantity, maxOrderNotional, maxOpenOrders, stp, t));
            }
            if (roll < 97)
            {
                // At most one kill switch is on at a time, and the next kill switch command turns it off again.
                final long target = killedAccount >= 0 ? killedAccount : random.nextInt(8) == 0 ? 0 : account;
                final boolean active = killedAccount < 0;
                killedAccount = active ? target : -1;
                return command("kill switch " + target + " " + active, (e, t) -> e.setKillSwitch(target, active, t));
            }
            final int instrumentId = haltedInstrument != 0 ? haltedInstrument : random.nextBoolean() ? BTC_USD : ETH_USD;
            final TradingState state = haltedInstrument != 0 ? TradingState.OPEN :
                new TradingState[]{ TradingState.HALTED, TradingState.CANCEL_ONLY, TradingState.POST_ONLY }[random.nextInt(3)];
            haltedInstrument = state == TradingState.OPEN ? 0 : instrumentId;
            return command("trading state " + instrumentId + " " + state,
                (e, t) -> e.setTradingState(instrumentId, state, t));
        }

        Command deposit(final long transactionId, final long accountId, final int assetId, final long amount)
        {
            return command("deposit " + transactionId + " " + accountId + " " + assetId + " " + amount,
                (e, t) -> e.deposit(transactionId, accountId, assetId, amount, t));
        }

        private Command randomOrder(final long account)
        {
            final int instrumentId = random.nextInt(4) == 0 ? ETH_USD : BTC_USD;
            final Side side = randomSide();
            final SelfTradePrevention stp = random.nextInt(3) == 0 ? randomStp() : SelfTradePrevention.ACCOUNT_DEFAULT;
            final long clientOrderId = newClientOrderId(account);
            if (random.nextInt(10) == 0)
            {
                // A stop near where the price trades, so that stops are refused as already reached, wait, and trigger.
                remember(account, clientOrderId);
                final long stopPrice = 9_985 + random.nextInt(31);
                final boolean market = random.nextInt(3) == 0;
                final boolean byQuote = market && side == Side.BUY && random.nextBoolean();
                final TimeInForce tif = new TimeInForce[]{ TimeInForce.GTC, TimeInForce.GTD, TimeInForce.IOC,
                    TimeInForce.FOK }[random.nextInt(byQuote ? 3 : 4)];
                final long expiry = tif == TimeInForce.GTD ? nowNs + 1_000L * (2 + random.nextInt(400)) : 0;
                final long price = market ? 0 : side == Side.BUY ? stopPrice + random.nextInt(10) : stopPrice - random.nextInt(10);
                return order(account, clientOrderId, instrumentId, side, market ? OrderType.MARKET : OrderType.LIMIT, tif,
                    false, stp, price, byQuote ? 0 : 1 + random.nextInt(30), byQuote ? 1_000 + random.nextInt(400_000) : 0,
                    expiry, stopPrice);
            }
            if (random.nextInt(7) == 0)
            {
                final TimeInForce tif = random.nextInt(3) == 0 ? TimeInForce.FOK : TimeInForce.IOC;
                final boolean byQuote = side == Side.BUY && random.nextBoolean();
                return order(account, clientOrderId, instrumentId, side, OrderType.MARKET, tif, false, stp, 0,
                    byQuote ? 0 : 1 + random.nextInt(40), byQuote ? 1_000 + random.nextInt(400_000) : 0, 0, 0);
            }
            final int tifRoll = random.nextInt(100);
            final TimeInForce tif = tifRoll < 55 ? TimeInForce.GTC : tifRoll < 75 ? TimeInForce.GTD :
                tifRoll < 90 ? TimeInForce.IOC : TimeInForce.FOK;
            final boolean postOnly = tif == TimeInForce.GTC && random.nextInt(10) == 0;
            final long expiry = tif == TimeInForce.GTD ? nowNs + 1_000L * (2 + random.nextInt(400)) : 0;
            if (tif == TimeInForce.GTC || tif == TimeInForce.GTD)
            {
                remember(account, clientOrderId);
            }
            // Buys mostly below 10 000 and sells mostly above, overlapping a little: some cross, most rest.
            final long price = side == Side.BUY ? 10_005 - random.nextInt(30) : 9_995 + random.nextInt(30);
            return order(account, clientOrderId, instrumentId, side, OrderType.LIMIT, tif, postOnly, stp,
                price, 1 + random.nextInt(30), 0, expiry, 0);
        }

        private Command order(
            final long accountId, final long clientOrderId, final int instrumentId, final Side side,
            final OrderType orderType, final TimeInForce timeInForce, final boolean postOnly,
            final SelfTradePrevention stp, final long price, final long quantity, final long quoteAmount,
            final long expiryTimeNs, final long stopPrice)
        {
            return command(
                "order " + accountId + "/" + clientOrderId + " " + instrumentId + " " + side + " " + orderType + " " +
                    timeInForce + (postOnly ? " post-only " : " ") + stp + " " + quantity + "@" + price + " q" +
                    quoteAmount + " x" + expiryTimeNs + " stop " + stopPrice,
                (e, t) -> e.newOrder(accountId, clientOrderId, instrumentId, side, orderType, timeInForce, postOnly, stp,
                    price, quantity, quoteAmount, expiryTimeNs, stopPrice, t));
        }

        private long newClientOrderId(final long account)
        {
            return nextClientOrderId++;
        }

        private void remember(final long account, final long clientOrderId)
        {
            final List<Long> ids = clientOrderIds.get((int)account);
            ids.add(clientOrderId);
            if (ids.size() > KEEP_CLIENT_ORDER_IDS)
            {
                ids.remove(0);
            }
        }

        private long recentClientOrderId(final long account)
        {
            final List<Long> ids = clientOrderIds.get((int)account);
            return ids.isEmpty() ? 1 : ids.get(random.nextInt(ids.size()));
        }

        private Side randomSide()
        {
            return random.nextBoolean() ? Side.BUY : Side.SELL;
        }

        private SelfTradePrevention randomStp()
        {
            final SelfTradePrevention[] modes = {
                SelfTradePrevention.ACCOUNT_DEFAULT, SelfTradePrevention.CANCEL_RESTING,
                SelfTradePrevention.CANCEL_AGGRESSOR, SelfTradePrevention.CANCEL_BOTH, SelfTradePrevention.DECREMENT };
            return modes[random.nextInt(modes.length)];
        }

        /**
         * Time advances by 1 µs per command generated.
         */
        private Command command(final String description, final Action action)
        {
            nowNs += 1_000;
            return new Command(description, nowNs, action);
        }
    }
}
