package io.bourse.engine;

import io.bourse.protocol.codec.AccountRecordDecoder;
import io.bourse.protocol.codec.AccountRecordEncoder;
import io.bourse.protocol.codec.AssetRecordDecoder;
import io.bourse.protocol.codec.AssetRecordEncoder;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.InstrumentRecordDecoder;
import io.bourse.protocol.codec.InstrumentRecordEncoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.OrderRecordDecoder;
import io.bourse.protocol.codec.OrderRecordEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.SnapshotBeginDecoder;
import io.bourse.protocol.codec.SnapshotBeginEncoder;
import io.bourse.protocol.codec.SnapshotEndDecoder;
import io.bourse.protocol.codec.SnapshotEndEncoder;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TransactionIdBlocksRecordDecoder;
import io.bourse.protocol.codec.TransactionIdBlocksRecordEncoder;
import io.bourse.protocol.codec.TransactionIdsRecordDecoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes an engine's whole state as a sequence of SBE snapshot records and loads it back.
 * <p>
 * Records are written in a canonical order (assets by definition, instruments and accounts by id, orders in book
 * priority, transaction id blocks sorted), so two engines in the same state write the same bytes. Loading checks the
 * state hash recorded at the end against the hash of what was loaded.
 */
final class SnapshotCodec
{
    static final int FORMAT_VERSION = 5;
    /**
     * Format 4 held no cancel-all-after switch (AccountRecords of schema version 3 or earlier); such snapshots still
     * load, every switch disarmed.
     */
    private static final int FORMAT_VERSION_WITHOUT_CANCEL_ALL_AFTER = 4;
    /**
     * Format 3 held no stop orders (OrderRecords of schema version 1 or 2); such snapshots still load.
     */
    private static final int FORMAT_VERSION_WITHOUT_STOPS = 3;
    /**
     * Format 1 recorded transaction ids one by one (TransactionIdsRecord); such snapshots still load.
     */
    private static final int FORMAT_VERSION_IDS_ONE_BY_ONE = 1;
    /**
     * Format 2 recorded no order's creation or update time (schema version 0 OrderRecords); such snapshots still load,
     * their orders with both times 0.
     */
    private static final int FORMAT_VERSION_WITHOUT_ORDER_TIMES = 2;
    private static final int TRANSACTION_ID_BLOCKS_PER_RECORD = 4096;

    /**
     * What the flyweight fields are left wrapping after a snapshot is written or read: a field still wrapping the
     * snapshot's buffer would keep that buffer (a hundred MB for a million orders) from being freed.
     */
    private static final UnsafeBuffer RELEASED = new UnsafeBuffer(new byte[MessageHeaderEncoder.ENCODED_LENGTH]);

    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final OrderRecordDecoder orderDecoder = new OrderRecordDecoder();

    /**
     * @return the most orders a snapshot of this length can hold: by the shortest order record, a format-2 one,
     * without the times.
     */
    static int maxOrders(final int snapshotLength)
    {
        return snapshotLength / (MessageHeaderEncoder.ENCODED_LENGTH + OrderRecordEncoder.createdTimeNsEncodingOffset());
    }

    int write(final Engine engine, final MutableDirectBuffer buffer, final int offset)
    {
        int position = offset;
        long records = 0;

        final SnapshotBeginEncoder begin = new SnapshotBeginEncoder();
        begin.wrapAndApplyHeader(buffer, position, headerEncoder)
            .formatVersion(FORMAT_VERSION)
            .nextOrderId(engine.nextOrderId)
            .nextTradeId(engine.nextTradeId)
            .globalKillSwitch(engine.globalKillSwitch ? BooleanType.TRUE : BooleanType.FALSE)
            .timestampNs(engine.lastTimestampNs);
        position += MessageHeaderEncoder.ENCODED_LENGTH + begin.encodedLength();

        final AssetRecordEncoder assetEncoder = new AssetRecordEncoder();
        for (int i = 0; i < engine.assetCount; i++)
        {
            final Asset asset = engine.assetsByIndex[i];
            assetEncoder.wrapAndApplyHeader(buffer, position, headerEncoder)
                .assetId(asset.assetId)
                .scale((short)asset.scale)
                .symbol(asset.symbol)
                .totalSupply(asset.totalSupply)
                .feesCollected(asset.feesCollected);
            position += MessageHeaderEncoder.ENCODED_LENGTH + assetEncoder.encodedLength();
            records++;
        }

        final int[] instrumentIds = engine.instruments.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
        final InstrumentRecordEncoder instrumentEncoder = new InstrumentRecordEncoder();
        for (final int instrumentId : instrumentIds)
        {
            final Instrument instrument = engine.instruments.get(instrumentId);
            instrumentEncoder.wrapAndApplyHeader(buffer, position, headerEncoder)
                .instrumentId(instrumentId)
                .symbol(instrument.symbol)
                .baseAssetId(instrument.baseAsset.assetId)
                .quoteAssetId(instrument.quoteAsset.assetId)
                .priceScale((short)instrument.priceScale)
                .tickSize(instrument.tickSize)
                .quantityScale((short)instrument.quantityScale)
                .lotSize(instrument.lotSize)
                .minQuantity(instrument.minQuantity)
                .maxQuantity(instrument.maxQuantity)
                .priceBandBps(instrument.priceBandBps)
                .referencePrice(instrument.referencePrice)
                .makerFeePpm(instrument.makerFeePpm)
                .takerFeePpm(instrument.takerFeePpm)
                .tradingState(instrument.tradingState)
                .lastTradePrice(instrument.lastTradePrice);
            position += MessageHeaderEncoder.ENCODED_LENGTH + instrumentEncoder.encodedLength();
            records++;
        }

        final long[] accountIds = engine.accounts.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        final AccountRecordEncoder accountEncoder = new AccountRecordEncoder();
        for (final long accountId : accountIds)
        {
            final Account account = engine.accounts.get(accountId);
            accountEncoder.wrapAndApplyHeader(buffer, position, headerEncoder)
                .accountId(accountId)
                .maxOrderQuantity(account.maxOrderQuantity)
                .maxOrderNotional(account.maxOrderNotional)
                .maxOpenOrders(account.maxOpenOrders)
                .defaultSelfTradePrevention(account.defaultSelfTradePrevention)
                .killSwitch(account.killSwitch ? BooleanType.TRUE : BooleanType.FALSE)
                .makerFeePpm(account.makerFeePpm)
                .takerFeePpm(account.takerFeePpm)
                .cancelAllAfterTimeoutMs(account.cancelAllAfterTimeoutMs)
                .cancelAllAfterDeadlineNs(account.cancelAllAfterDeadlineNs);
            final AccountRecordEncoder.BalancesEncoder balances = accountEncoder.balancesCount(engine.assetCount);
            for (int i = 0; i < engine.assetCount; i++)
            {
                balances.next()
                    .assetId(engine.assetsByIndex[i].assetId)
                    .available(account.available[i])
                    .reserved(account.reserved[i]);
            }
            position += MessageHeaderEncoder.ENCODED_LENGTH + accountEncoder.encodedLength();
            records++;
        }

        final OrderRecordEncoder orderEncoder = new OrderRecordEncoder();
        for (final int instrumentId : instrumentIds)
        {
            final Instrument instrument = engine.instruments.get(instrumentId);
            final OrderBook book = instrument.book;
            for (final Side side : new Side[]{ Side.BUY, Side.SELL })
            {
                for (Order order = book.best(side); order != null; order = book.next(order))
                {
                    position += writeOrder(orderEncoder, buffer, position, order);
                    records++;
                }
            }
            for (final Side side : new Side[]{ Side.BUY, Side.SELL })
            {
                // The last to trigger first: loading then appends each to its list rather than moving every one before.
                final StopOrders stops = instrument.stops(side);
                for (int i = stops.size() - 1; i >= 0; i--)
                {
                    position += writeOrder(orderEncoder, buffer, position, stops.get(i));
                    records++;
                }
            }
        }

        final long[] blocks = new long[engine.transactionIds.blockCount()];
        final int[] blockCount = new int[1];
        engine.transactionIds.forEachBlock((block, bits) -> blocks[blockCount[0]++] = block);
        Arrays.sort(blocks);
        final TransactionIdBlocksRecordEncoder blocksEncoder = new TransactionIdBlocksRecordEncoder();
        for (int start = 0; start < blocks.length; start += TRANSACTION_ID_BLOCKS_PER_RECORD)
        {
            final int count = Math.min(TRANSACTION_ID_BLOCKS_PER_RECORD, blocks.length - start);
            blocksEncoder.wrapAndApplyHeader(buffer, position, headerEncoder);
            final TransactionIdBlocksRecordEncoder.BlocksEncoder entries = blocksEncoder.blocksCount(count);
            for (int i = start; i < start + count; i++)
            {
                entries.next().block(blocks[i]).bits(engine.transactionIds.bits(blocks[i]));
            }
            position += MessageHeaderEncoder.ENCODED_LENGTH + blocksEncoder.encodedLength();
            records++;
        }

        final SnapshotEndEncoder end = new SnapshotEndEncoder();
        end.wrapAndApplyHeader(buffer, position, headerEncoder)
            .stateHash(engine.stateHash())
            .recordCount(records);
        position += MessageHeaderEncoder.ENCODED_LENGTH + end.encodedLength();
        headerEncoder.wrap(RELEASED, 0);
        return position - offset;
    }

    private int writeOrder(
        final OrderRecordEncoder orderEncoder, final MutableDirectBuffer buffer, final int position, final Order order)
    {
        orderEncoder.wrapAndApplyHeader(buffer, position, headerEncoder)
            .orderId(order.orderId)
            .clientOrderId(order.clientOrderId)
            .accountId(order.account.accountId)
            .instrumentId(order.instrument.instrumentId)
            .side(order.side)
            .timeInForce(order.timeInForce)
            .selfTradePrevention(order.selfTradePrevention)
            .postOnly(order.postOnly ? BooleanType.TRUE : BooleanType.FALSE)
            .price(order.price)
            .quantity(order.quantity)
            .filledQuantity(order.filledQuantity)
            .executedNotional(order.executedNotional)
            .expiryTimeNs(order.expiryTimeNs)
            .feeReservePpm(order.feeReservePpm)
            .createdTimeNs(order.createdNs)
            .updatedTimeNs(order.updatedNs)
            .stopPrice(order.stopPrice)
            .orderType(order.market ? OrderType.MARKET : OrderType.LIMIT)
            .quoteAmount(order.quoteAmount);
        return MessageHeaderEncoder.ENCODED_LENGTH + orderEncoder.encodedLength();
    }

    void load(final Engine engine, final DirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            loadRecords(engine, buffer, offset, length);
        }
        catch (final IllegalArgumentException | IndexOutOfBoundsException ex)
        {
            // The SBE decoders reject invalid enum values and the buffer reads past its end by throwing these:
            // report them as the corrupt snapshot they are, like every other snapshot problem.
            throw new IllegalStateException("snapshot corrupt: " + ex.getMessage(), ex);
        }
        finally
        {
            headerDecoder.wrap(RELEASED, 0);
            orderDecoder.wrap(RELEASED, 0, 0, 0);
        }
    }

    private void loadRecords(final Engine engine, final DirectBuffer buffer, final int offset, final int length)
    {
        if (engine.nextOrderId != 1 || engine.assetCount != 0 || !engine.accounts.isEmpty())
        {
            throw new IllegalStateException("a snapshot can only be loaded into a new engine");
        }
        // Sized once for every order the snapshot can hold rather than rehashed again and again as a million-order
        // book loads. The orders themselves are allocated as they load: a pool filled for them first would run the
        // same allocation in a loop of its own, which a cold JVM interprets (0.6 s for a million orders on 2 cores).
        engine.ordersById = engine.orderTable(maxOrders(length));
        final int limit = offset + length;
        int position = offset;
        long records = 0;
        boolean begun = false;
        int format = 0;
        while (position < limit)
        {
            if (limit - position < MessageHeaderDecoder.ENCODED_LENGTH)
            {
                throw new IllegalStateException("snapshot truncated at byte " + (position - offset));
            }
            headerDecoder.wrap(buffer, position);
            final int templateId = headerDecoder.templateId();
            final int blockLength = headerDecoder.blockLength();
            final int version = headerDecoder.version();
            if (headerDecoder.schemaId() != MessageHeaderDecoder.SCHEMA_ID)
            {
                throw new IllegalStateException("not a Bourse snapshot record at byte " + (position - offset));
            }
            final int body = position + MessageHeaderDecoder.ENCODED_LENGTH;
            if (body + blockLength > limit)
            {
                throw new IllegalStateException("snapshot truncated at byte " + (position - offset));
            }
            if (!begun && templateId != SnapshotBeginDecoder.TEMPLATE_ID)
            {
                throw new IllegalStateException("snapshot does not start with SnapshotBegin");
            }
            switch (templateId)
            {
                case SnapshotBeginDecoder.TEMPLATE_ID ->
                {
                    final SnapshotBeginDecoder decoder = new SnapshotBeginDecoder().wrap(buffer, body, blockLength, version);
                    format = decoder.formatVersion();
                    if (format != FORMAT_VERSION && format != FORMAT_VERSION_WITHOUT_CANCEL_ALL_AFTER &&
                        format != FORMAT_VERSION_WITHOUT_STOPS &&
                        format != FORMAT_VERSION_WITHOUT_ORDER_TIMES && format != FORMAT_VERSION_IDS_ONE_BY_ONE)
                    {
                        throw new IllegalStateException("unsupported snapshot format " + format);
                    }
                    engine.nextOrderId = decoder.nextOrderId();
                    engine.nextTradeId = decoder.nextTradeId();
                    engine.globalKillSwitch = decoder.globalKillSwitch() == BooleanType.TRUE;
                    engine.lastTimestampNs = decoder.timestampNs();
                    begun = true;
                    position = body + decoder.encodedLength();
                }
                case AssetRecordDecoder.TEMPLATE_ID ->
                {
                    final AssetRecordDecoder decoder = new AssetRecordDecoder().wrap(buffer, body, blockLength, version);
                    final Asset asset = new Asset(decoder.assetId(), engine.assetCount, decoder.scale(), decoder.symbol());
                    asset.totalSupply = decoder.totalSupply();
                    asset.feesCollected = decoder.feesCollected();
                    engine.addAsset(asset);
                    position = body + decoder.encodedLength();
                }
                case InstrumentRecordDecoder.TEMPLATE_ID -> position = loadInstrument(engine, buffer, body, blockLength, version);
                case AccountRecordDecoder.TEMPLATE_ID -> position = loadAccount(engine, buffer, body, blockLength, version);
                case OrderRecordDecoder.TEMPLATE_ID -> position = loadOrder(engine, buffer, body, blockLength, version);
                case TransactionIdsRecordDecoder.TEMPLATE_ID ->
                {
                    final TransactionIdsRecordDecoder decoder =
                        new TransactionIdsRecordDecoder().wrap(buffer, body, blockLength, version);
                    for (final TransactionIdsRecordDecoder.TransactionIdsDecoder id : decoder.transactionIds())
                    {
                        engine.transactionIds.add(id.transactionId());
                    }
                    position = decoder.limit();
                }
                case TransactionIdBlocksRecordDecoder.TEMPLATE_ID ->
                {
                    final TransactionIdBlocksRecordDecoder decoder =
                        new TransactionIdBlocksRecordDecoder().wrap(buffer, body, blockLength, version);
                    for (final TransactionIdBlocksRecordDecoder.BlocksDecoder entry : decoder.blocks())
                    {
                        engine.transactionIds.addBlock(entry.block(), entry.bits());
                    }
                    position = decoder.limit();
                }
                case SnapshotEndDecoder.TEMPLATE_ID ->
                {
                    final SnapshotEndDecoder decoder = new SnapshotEndDecoder().wrap(buffer, body, blockLength, version);
                    if (decoder.recordCount() != records)
                    {
                        throw new IllegalStateException(
                            "snapshot holds " + records + " records but says " + decoder.recordCount());
                    }
                    final long hash = engine.stateHash();
                    if (hash != decoder.stateHash())
                    {
                        throw new IllegalStateException("snapshot state hash mismatch: recorded " +
                            Long.toHexString(decoder.stateHash()) + ", loaded state " + Long.toHexString(hash));
                    }
                    if (format == FORMAT_VERSION_IDS_ONE_BY_ONE)
                    {
                        clearSellFeeReserves(engine);
                    }
                    return;
                }
                default -> throw new IllegalStateException("unknown snapshot record template " + templateId);
            }
            if (templateId != SnapshotBeginDecoder.TEMPLATE_ID)
            {
                records++;
            }
            if (position > limit)
            {
                throw new IllegalStateException("snapshot truncated inside a record");
            }
        }
        throw new IllegalStateException("snapshot truncated: no SnapshotEnd record");
    }

    /**
     * Format 1 recorded the fee rate a sell was entered with, which capped its fees; a sell now pays the rate in force
     * and records 0. Cleared once the recorded hash has verified, so that an engine restored from a format-1 snapshot
     * has the state (and hash) of one that replayed the same orders.
     */
    private static void clearSellFeeReserves(final Engine engine)
    {
        for (final Order order : engine.ordersById.values())
        {
            if (!order.isBuy())
            {
                order.feeReservePpm = 0;
            }
        }
    }

    private static int loadInstrument(
        final Engine engine, final DirectBuffer buffer, final int body, final int blockLength, final int version)
    {
        final InstrumentRecordDecoder decoder = new InstrumentRecordDecoder().wrap(buffer, body, blockLength, version);
        final Instrument instrument = new Instrument(decoder.instrumentId(), engine.context.orderBookFactory().get());
        instrument.symbol = decoder.symbol();
        instrument.baseAsset = require(engine, decoder.baseAssetId());
        instrument.quoteAsset = require(engine, decoder.quoteAssetId());
        instrument.priceScale = decoder.priceScale();
        instrument.tickSize = decoder.tickSize();
        instrument.quantityScale = decoder.quantityScale();
        instrument.lotSize = decoder.lotSize();
        instrument.minQuantity = decoder.minQuantity();
        instrument.maxQuantity = decoder.maxQuantity();
        instrument.priceBandBps = decoder.priceBandBps();
        instrument.referencePrice = decoder.referencePrice();
        instrument.makerFeePpm = decoder.makerFeePpm();
        instrument.takerFeePpm = decoder.takerFeePpm();
        instrument.tradingState = decoder.tradingState();
        instrument.lastTradePrice = decoder.lastTradePrice();
        instrument.quotePerTickLot = Amounts.multiply(instrument.tickSize, instrument.lotSize) *
            Amounts.powerOfTen(instrument.quoteAsset.scale) /
            Amounts.powerOfTen(instrument.priceScale + instrument.quantityScale);
        instrument.basePerLot = instrument.lotSize *
            Amounts.powerOfTen(instrument.baseAsset.scale - instrument.quantityScale);
        instrument.updateBand();
        engine.instruments.put(instrument.instrumentId, instrument);
        return body + decoder.encodedLength();
    }

    private static int loadAccount(
        final Engine engine, final DirectBuffer buffer, final int body, final int blockLength, final int version)
    {
        final AccountRecordDecoder decoder = new AccountRecordDecoder().wrap(buffer, body, blockLength, version);
        final Account account = engine.accountOrCreate(decoder.accountId());
        account.maxOrderQuantity = decoder.maxOrderQuantity();
        account.maxOrderNotional = decoder.maxOrderNotional();
        account.maxOpenOrders = decoder.maxOpenOrders();
        account.defaultSelfTradePrevention = decoder.defaultSelfTradePrevention();
        account.killSwitch = decoder.killSwitch() == BooleanType.TRUE;
        // Records from before accounts had rates of their own hold none: the instruments' rates.
        account.makerFeePpm = decoder.makerFeePpm() == AccountRecordDecoder.makerFeePpmNullValue() ?
            Account.INSTRUMENT_FEE_RATE : decoder.makerFeePpm();
        account.takerFeePpm = decoder.takerFeePpm() == AccountRecordDecoder.takerFeePpmNullValue() ?
            Account.INSTRUMENT_FEE_RATE : decoder.takerFeePpm();
        if (!Engine.validAccountFeeRate(account.makerFeePpm) || !Engine.validAccountFeeRate(account.takerFeePpm))
        {
            // A negative rate would credit the payer.
            throw new IllegalStateException("snapshot: account " + account.accountId + " has fee rates " +
                account.makerFeePpm + " and " + account.takerFeePpm + ", outside -1 and 0 to 1,000,000");
        }
        // Records from before the switch hold none: disarmed.
        final long timeoutMs =
            decoder.cancelAllAfterTimeoutMs() == AccountRecordDecoder.cancelAllAfterTimeoutMsNullValue() ?
            0 : decoder.cancelAllAfterTimeoutMs();
        final long deadlineNs =
            decoder.cancelAllAfterDeadlineNs() == AccountRecordDecoder.cancelAllAfterDeadlineNsNullValue() ?
            0 : decoder.cancelAllAfterDeadlineNs();
        if (timeoutMs < 0 || timeoutMs > Engine.MAX_CANCEL_ALL_AFTER_MS || deadlineNs < 0 ||
            (timeoutMs == 0) != (deadlineNs == 0))
        {
            throw new IllegalStateException("snapshot: account " + account.accountId +
                " has a cancel-all-after timeout of " + timeoutMs + " ms and deadline " + deadlineNs +
                ": not a switch armed or disarmed");
        }
        engine.restoreCancelAllAfter(account, timeoutMs, deadlineNs);
        for (final AccountRecordDecoder.BalancesDecoder balance : decoder.balances())
        {
            final int index = require(engine, balance.assetId()).index;
            account.available[index] = balance.available();
            account.reserved[index] = balance.reserved();
        }
        return decoder.limit();
    }

    private int loadOrder(
        final Engine engine, final DirectBuffer buffer, final int body, final int blockLength, final int version)
    {
        // One decoder for every order record: a snapshot can hold millions and is loaded in a cold JVM.
        final OrderRecordDecoder decoder = orderDecoder.wrap(buffer, body, blockLength, version);
        final Instrument instrument = engine.instruments.get(decoder.instrumentId());
        final Account account = engine.accounts.get(decoder.accountId());
        if (instrument == null || account == null)
        {
            throw new IllegalStateException("snapshot order " + decoder.orderId() + " names an unknown instrument or account");
        }
        // Not from the pool: its spare stays for the orders that come after the snapshot.
        final Order order = new Order();
        order.orderId = decoder.orderId();
        order.clientOrderId = decoder.clientOrderId();
        order.account = account;
        order.instrument = instrument;
        order.side = decoder.side();
        order.timeInForce = decoder.timeInForce();
        order.selfTradePrevention = decoder.selfTradePrevention();
        order.postOnly = decoder.postOnly() == BooleanType.TRUE;
        order.price = decoder.price();
        order.quantity = decoder.quantity();
        order.filledQuantity = decoder.filledQuantity();
        order.executedNotional = decoder.executedNotional();
        order.expiryTimeNs = decoder.expiryTimeNs();
        order.feeReservePpm = decoder.feeReservePpm();
        order.createdNs = orderTime(decoder.createdTimeNs());
        order.updatedNs = orderTime(decoder.updatedTimeNs());
        // Records from before stop orders hold none of these: a resting limit order.
        final long stopPrice = decoder.stopPrice();
        order.stopPrice = stopPrice == OrderRecordDecoder.stopPriceNullValue() ? 0 : stopPrice;
        order.market = decoder.orderType() == OrderType.MARKET;
        final long quoteAmount = decoder.quoteAmount();
        order.quoteAmount = quoteAmount == OrderRecordDecoder.quoteAmountNullValue() ? 0 : quoteAmount;
        if (order.stopPrice < 0 || (order.market && (order.stopPrice == 0 || order.price != 0)) ||
            order.quoteAmount < 0 || (order.quoteAmount != 0 && (!order.market || !order.isBuy())) ||
            order.stopPrice % instrument.tickSize != 0)
        {
            throw new IllegalStateException("snapshot order " + order.orderId + " has inconsistent stop terms: stop price " +
                order.stopPrice + ", market " + order.market + ", price " + order.price + ", quote amount " +
                order.quoteAmount);
        }
        engine.ordersById.put(order.orderId, order);
        account.openOrdersByClientOrderId.put(order.clientOrderId, order);
        if (order.timeInForce == TimeInForce.GTD)
        {
            engine.expiryQueue.add(order);
        }
        if (order.isUntriggeredStop())
        {
            instrument.stops(order.side).add(order);
        }
        else
        {
            instrument.book.add(order);
        }
        return body + decoder.encodedLength();
    }

    /**
     * A record of schema version 0 reads a time it does not hold as SBE's null value: such an order's time is unknown.
     */
    private static long orderTime(final long recorded)
    {
        return recorded == OrderRecordDecoder.createdTimeNsNullValue() ? 0 : recorded;
    }

    private static Asset require(final Engine engine, final int assetId)
    {
        final Asset asset = engine.assets.get(assetId);
        if (asset == null)
        {
            throw new IllegalStateException("snapshot names unknown asset " + assetId);
        }
        return asset;
    }
}
