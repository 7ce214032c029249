package io.bourse.store;

import io.bourse.engine.EngineListener;
import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.OrderStatus;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.TransferDirection;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Turns the engine's events into rows of a {@link HistoryBatch}: trades, orders (current state, coalesced so that an
 * order touched many times in a batch is written once), order events, the balance ledger, current balances and
 * transfers. {@link BatchCommitter} writes the batch with its fence in one transaction.
 * <p>
 * Rows are what writing costs, so a change that belongs to another row is written into it: a trade's row carries its
 * four settlements, which the engine publishes straight after the trade, and an order's row its acceptance and the
 * reservation the engine makes straight after accepting it. The {@code ledger} and {@code order_events} views show
 * them as entries and events like any other; each keeps one id sequence, numbered in the order the engine made them.
 * <p>
 * While {@link #writing(boolean)} is off (the store replaying up to its fence after a restart) events only update
 * the in-memory balances that ledger deltas are computed from. Single-threaded.
 */
final class HistoryWriter implements EngineListener
{
    private static final String[] BALANCE_REASONS = reasonNames();

    /**
     * Each account's balance of each asset as last written: available, reserved.
     */
    private final BalanceTable balances = new BalanceTable(2);
    private final PendingTrade trade = new PendingTrade();
    private final HourlyCandles candles = new HourlyCandles();
    private HistoryBatch batch;
    /**
     * The order accepted by the current message, until its reservation is attached to its row.
     */
    private HistoryBatch.OrderRow acceptedRow;
    private boolean writing;
    private long logPosition;
    private long nextOrderEventId;
    private long nextLedgerEntryId;
    private long nextTransferId;

    /**
     * @param database read for what it holds as of the fence: the current balances, which ledger deltas continue from,
     *                 the next row ids, and the trades of the hour the fence is in, which no candle row has yet.
     * @param batch    the batch to fill first.
     */
    HistoryWriter(final StoreDatabase database, final HistoryBatch batch) throws SQLException
    {
        this.batch = batch;
        final Connection connection = database.connection();
        final long fenceTimestampNs;
        try (Statement statement = connection.createStatement())
        {
            try (ResultSet rows = statement.executeQuery("SELECT account_id, asset_id, available, reserved FROM balances"))
            {
                while (rows.next())
                {
                    final long[] balance = balances.getOrCreate(rows.getLong(1), rows.getInt(2));
                    balance[BalanceTable.FIRST_VALUE] = rows.getLong(3);
                    balance[BalanceTable.FIRST_VALUE + 1] = rows.getLong(4);
                }
            }
            try (ResultSet rows = statement.executeQuery(
                "SELECT next_order_event_id, next_ledger_entry_id, next_transfer_id, timestamp_ns FROM store_fence " +
                "WHERE id = 1"))
            {
                if (!rows.next())
                {
                    throw new SQLException("store_fence row missing");
                }
                nextOrderEventId = rows.getLong(1);
                nextLedgerEntryId = rows.getLong(2);
                nextTransferId = rows.getLong(3);
                fenceTimestampNs = rows.getLong(4);
            }
        }
        connection.commit();
        candles.load(connection, fenceTimestampNs, batch.candles);
    }

    /**
     * @param writing false while replaying log that is already in the database (before the fence).
     */
    void writing(final boolean writing)
    {
        this.writing = writing;
    }

    /**
     * @param logPosition the log position of the message whose events follow.
     */
    void logPosition(final long logPosition)
    {
        expectSettlements();
        this.logPosition = logPosition;
        acceptedRow = null;
    }

    /**
     * A trade's four settlements follow it within its message; a trade still waiting for them at the next message (or
     * the end of a batch) means the engine's events are not what this writer was built for, and rows would be wrong.
     */
    private void expectSettlements()
    {
        if (trade.pending)
        {
            throw new StoreException("trade " + trade.tradeId + ": " + trade.settlements + " of its 4 settlements " +
                "before the next message", null);
        }
    }

    /**
     * @return rows in the batch being filled (orders coalesced).
     */
    int pendingRows()
    {
        return batch.rows;
    }

    /**
     * Close the batch being filled at a message boundary: it brings the database to the given fence.
     *
     * @param fenceLogPosition    the log position up to which the batch holds every row.
     * @param fenceTimestampNs    cluster time of the message at the fence.
     * @param snapshotLogPosition where the store's latest snapshot is (this batch's, when it has one).
     * @param engineSnapshot      a snapshot taken at {@code fenceLogPosition}, or null to keep the current one.
     * @param clientsSnapshot     the request sequences part of that snapshot, or null.
     * @return the batch, ready for {@link BatchCommitter#commit}; fill the next with {@link #startBatch}.
     */
    HistoryBatch seal(
        final long fenceLogPosition,
        final long fenceTimestampNs,
        final long snapshotLogPosition,
        final byte[] engineSnapshot,
        final byte[] clientsSnapshot)
    {
        expectSettlements();
        acceptedRow = null;
        final HistoryBatch sealed = batch;
        candles.closeBefore(fenceTimestampNs, sealed.candles);
        sealed.fenceLogPosition = fenceLogPosition;
        sealed.fenceTimestampNs = fenceTimestampNs;
        sealed.snapshotLogPosition = snapshotLogPosition;
        sealed.engineSnapshot = engineSnapshot;
        sealed.clientsSnapshot = clientsSnapshot;
        sealed.nextOrderEventId = nextOrderEventId;
        sealed.nextLedgerEntryId = nextLedgerEntryId;
        sealed.nextTransferId = nextTransferId;
        batch = null;
        return sealed;
    }

    /**
     * @param next the batch to fill after {@link #seal}: cleared here.
     */
    void startBatch(final HistoryBatch next)
    {
        next.clear();
        batch = next;
    }

    private void orderEvent(
        final long orderId, final long accountId, final String kind, final long clientOrderId, final long price,
        final long quantity, final long filledQuantity, final String reason, final long timestampNs)
    {
        batch.orderChanges.column(nextOrderEventId++).column(orderId).column(accountId).column(kind).column(clientOrderId)
            .column(price).column(quantity).column(filledQuantity).column(reason).column(timestampNs)
            .column(logPosition).endRow();
        batch.rows++;
    }

    // ------------------------------------------------------------------------------------------------ events

    public void onCommandRejected(
        final CommandType commandType, final RejectReason reason, final long accountId, final long orderId,
        final long clientOrderId, final int instrumentId, final long timestampNs)
    {
        // A rejected command changes nothing; the client was told. Not history.
    }

    public void onOrderAccepted(
        final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
        final OrderType orderType, final TimeInForce timeInForce, final long price, final long quantity,
        final long quoteAmount, final boolean postOnly, final SelfTradePrevention selfTradePrevention,
        final long expiryTimeNs, final long stopPrice, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        final HistoryBatch.OrderRow row = batch.order(orderId);
        row.isNew = true;
        row.accountId = accountId;
        row.clientOrderId = clientOrderId;
        row.instrumentId = instrumentId;
        row.side = side.name();
        row.orderType = orderType.name();
        row.timeInForce = timeInForce.name();
        row.price = price;
        row.quantity = quantity;
        row.quoteAmount = quoteAmount;
        row.postOnly = postOnly;
        row.selfTradePrevention = selfTradePrevention.name();
        row.expiryNs = expiryTimeNs;
        row.stopPrice = stopPrice;
        row.triggeredNs = 0;
        // Rows are pooled: every column of a new order is set here, none is left from the row's previous order.
        row.filledQuantity = 0;
        row.remainingQuantity = quantity;
        row.executedNotional = 0;
        row.status = OrderStatus.NEW.name();
        row.createdNs = timestampNs;
        row.updatedNs = timestampNs;
        row.logPosition = logPosition;
        row.acceptedEventId = nextOrderEventId++;
        row.acceptedClientOrderId = clientOrderId;
        row.acceptedPrice = price;
        row.acceptedQuantity = quantity;
        row.createdLogPosition = logPosition;
        // The engine reserves for a limit order (and a stop order) straight after accepting it: that entry goes into
        // this row.
        acceptedRow = row;
    }

    public void onOrderTriggered(
        final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
        final OrderType orderType, final long price, final long quantity, final long stopPrice, final long triggerPrice,
        final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        terms(orderId, clientOrderId, price, quantity, 0, timestampNs);
        batch.order(orderId).triggeredNs = timestampNs;
        orderEvent(orderId, accountId, "TRIGGERED", clientOrderId, price, quantity, 0, null, timestampNs);
    }

    public void onTrade(
        final long tradeId, final int instrumentId, final long price, final long quantity, final Side takerSide,
        final long makerOrderId, final long makerClientOrderId, final long makerAccountId,
        final long makerFilledQuantity, final long makerRemainingQuantity, final long makerExecutedNotional,
        final long makerFee, final long takerOrderId, final long takerClientOrderId, final long takerAccountId,
        final long takerFilledQuantity, final long takerRemainingQuantity, final long takerExecutedNotional,
        final long takerFee, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        expectSettlements();
        acceptedRow = null;
        trade.start(tradeId, instrumentId, price, quantity, takerSide, makerOrderId, makerAccountId, makerFee,
            takerOrderId, takerAccountId, takerFee, timestampNs, logPosition);
        batch.rows++;
        batch.tradeCount++;
        candles.add(tradeId, instrumentId, price, quantity, timestampNs, batch.candles);
        fill(makerOrderId, makerFilledQuantity, makerRemainingQuantity, makerExecutedNotional, timestampNs);
        fill(takerOrderId, takerFilledQuantity, takerRemainingQuantity, takerExecutedNotional, timestampNs);
    }

    private void fill(
        final long orderId, final long filledQuantity, final long remainingQuantity, final long executedNotional,
        final long timestampNs)
    {
        final HistoryBatch.OrderRow row = batch.order(orderId);
        row.fillChanged = true;
        row.filledQuantity = filledQuantity;
        row.remainingQuantity = remainingQuantity;
        row.executedNotional = executedNotional;
        row.status = remainingQuantity == 0 ? "FILLED" : OrderStatus.PARTIALLY_FILLED.name();
        row.updatedNs = timestampNs;
        row.logPosition = logPosition;
    }

    public void onOrderCanceled(
        final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
        final long price, final long quantity, final long filledQuantity, final long executedNotional,
        final CancelReason reason, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        // A market buy by quote amount ends so (QUOTE_AMOUNT_SPENT) after its fills: it is done, as the live API shows
        // it; the event keeps how it ended.
        close(orderId, filledQuantity, executedNotional,
            reason == CancelReason.QUOTE_AMOUNT_SPENT && filledQuantity > 0 ? "FILLED" : "CANCELED", timestampNs);
        orderEvent(orderId, accountId, "CANCELED", clientOrderId, price, quantity, filledQuantity, reason.name(),
            timestampNs);
    }

    public void onOrderExpired(
        final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
        final long price, final long quantity, final long filledQuantity, final long executedNotional,
        final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        close(orderId, filledQuantity, executedNotional, "EXPIRED", timestampNs);
        orderEvent(orderId, accountId, "EXPIRED", clientOrderId, price, quantity, filledQuantity, null, timestampNs);
    }

    private void close(
        final long orderId, final long filledQuantity, final long executedNotional, final String status,
        final long timestampNs)
    {
        final HistoryBatch.OrderRow row = batch.order(orderId);
        row.fillChanged = true;
        row.filledQuantity = filledQuantity;
        row.remainingQuantity = 0;
        row.executedNotional = executedNotional;
        row.status = status;
        row.updatedNs = timestampNs;
        row.logPosition = logPosition;
    }

    public void onOrderReplaced(
        final long orderId, final long origClientOrderId, final long clientOrderId, final long accountId,
        final int instrumentId, final Side side, final long price, final long quantity, final long filledQuantity,
        final boolean priorityKept, final long stopPrice, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        terms(orderId, clientOrderId, price, quantity, filledQuantity, timestampNs);
        if (stopPrice != 0)
        {
            batch.order(orderId).stopPrice = stopPrice;
        }
        orderEvent(orderId, accountId, "REPLACED", clientOrderId, price, quantity, filledQuantity,
            priorityKept ? "PRIORITY_KEPT" : "PRIORITY_LOST", timestampNs);
    }

    public void onOrderRestated(
        final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
        final long price, final long quantity, final long filledQuantity, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        terms(orderId, clientOrderId, price, quantity, filledQuantity, timestampNs);
        orderEvent(orderId, accountId, "RESTATED", clientOrderId, price, quantity, filledQuantity, null, timestampNs);
    }

    private void terms(
        final long orderId, final long clientOrderId, final long price, final long quantity, final long filledQuantity,
        final long timestampNs)
    {
        final HistoryBatch.OrderRow row = batch.order(orderId);
        row.termsChanged = true;
        row.clientOrderId = clientOrderId;
        row.price = price;
        row.quantity = quantity;
        row.filledQuantity = filledQuantity;
        row.remainingQuantity = quantity - filledQuantity;
        row.status = filledQuantity == 0 ? OrderStatus.NEW.name() : OrderStatus.PARTIALLY_FILLED.name();
        row.updatedNs = timestampNs;
        row.logPosition = logPosition;
    }

    public void onOrderStatus(
        final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
        final TimeInForce timeInForce, final OrderStatus status, final long price, final long quantity,
        final long filledQuantity, final long executedNotional, final long expiryTimeNs, final OrderType orderType,
        final long stopPrice, final long timestampNs)
    {
        // A query answer, not a change.
    }

    public void onBookLevelChanged(
        final int instrumentId, final Side side, final long price, final long quantity, final int orderCount,
        final long timestampNs)
    {
        // Market data, not history: the trades and orders hold what happened.
    }

    public void onBalanceChanged(
        final long accountId, final int assetId, final long available, final long reserved,
        final BalanceChangeReason reason, final long timestampNs)
    {
        final long[] balance = balances.getOrCreate(accountId, assetId);
        final long availableDelta = available - balance[BalanceTable.FIRST_VALUE];
        final long reservedDelta = reserved - balance[BalanceTable.FIRST_VALUE + 1];
        balance[BalanceTable.FIRST_VALUE] = available;
        balance[BalanceTable.FIRST_VALUE + 1] = reserved;
        if (!writing)
        {
            return;
        }
        if (trade.pending && reason == BalanceChangeReason.TRADE)
        {
            settle(accountId, assetId, availableDelta, reservedDelta, available, reserved);
        }
        else if (acceptedRow != null && reason == BalanceChangeReason.RESERVE && acceptedRow.accountId == accountId &&
            availableDelta == -reservedDelta)
        {
            acceptedRow.reserveEntryId = nextLedgerEntryId++;
            acceptedRow.reserveAssetId = assetId;
            acceptedRow.reserveAmount = reservedDelta;
            acceptedRow.reserveAvailable = available;
            acceptedRow.reserveReserved = reserved;
            acceptedRow = null;
        }
        else
        {
            ledgerEntry(accountId, assetId, reason, availableDelta, reservedDelta, available, reserved, timestampNs);
        }
        final int balancesBefore = batch.balances.size();
        final long[] pending = batch.balances.getOrCreate(accountId, assetId);
        if (batch.balances.size() > balancesBefore)
        {
            batch.rows++;
        }
        pending[BalanceTable.FIRST_VALUE] = available;
        pending[BalanceTable.FIRST_VALUE + 1] = reserved;
        pending[BalanceTable.FIRST_VALUE + 2] = timestampNs;
    }

    /**
     * The next of the pending trade's settlements, in the engine's order: maker base, maker quote, taker base, taker
     * quote. The trade's row is written with the fourth.
     */
    private void settle(
        final long accountId, final int assetId, final long availableDelta, final long reservedDelta,
        final long available, final long reserved)
    {
        final int index = trade.settlements;
        final long expectedAccount = index < 2 ? trade.makerAccountId : trade.takerAccountId;
        if (index == 0)
        {
            trade.baseAssetId = assetId;
        }
        else if (index == 1)
        {
            trade.quoteAssetId = assetId;
        }
        final int expectedAsset = index % 2 == 0 ? trade.baseAssetId : trade.quoteAssetId;
        if (accountId != expectedAccount || assetId != expectedAsset ||
            (index > 0 && trade.baseAssetId == trade.quoteAssetId))
        {
            throw new StoreException("trade " + trade.tradeId + ": settlement " + (index + 1) + " is for account " +
                accountId + " asset " + assetId + ", not the account and asset expected", null);
        }
        final int at = index * 4;
        trade.settlement[at] = availableDelta;
        trade.settlement[at + 1] = reservedDelta;
        trade.settlement[at + 2] = available;
        trade.settlement[at + 3] = reserved;
        if (++trade.settlements < 4)
        {
            return;
        }
        batch.trades.column(trade.tradeId).column(trade.instrumentId).column(trade.price).column(trade.quantity)
            .column(trade.takerSide.name()).column(trade.makerOrderId).column(trade.makerAccountId)
            .column(trade.makerFee).column(trade.takerOrderId).column(trade.takerAccountId).column(trade.takerFee)
            .column(trade.timestampNs).column(trade.logPosition).column(nextLedgerEntryId)
            .column(trade.baseAssetId).column(trade.quoteAssetId);
        for (final long value : trade.settlement)
        {
            batch.trades.column(value);
        }
        batch.trades.endRow();
        nextLedgerEntryId += 4;
        trade.pending = false;
    }

    private void ledgerEntry(
        final long accountId, final int assetId, final BalanceChangeReason reason, final long availableDelta,
        final long reservedDelta, final long available, final long reserved, final long timestampNs)
    {
        batch.ledgerEntries.column(nextLedgerEntryId++).column(accountId).column(assetId).column(BALANCE_REASONS[reason.value()])
            .column(availableDelta).column(reservedDelta).column(available).column(reserved).column(timestampNs)
            .column(logPosition).endRow();
        batch.rows++;
    }

    public void onTransferProcessed(
        final long transactionId, final long accountId, final int assetId, final long amount,
        final TransferDirection direction, final boolean applied, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        batch.transfers.column(nextTransferId++).column(transactionId).column(accountId).column(assetId).column(amount)
            .column(direction.name()).column(applied).column(timestampNs).column(logPosition).endRow();
        batch.rows++;
    }

    public void onMassCancelCompleted(
        final long accountId, final int instrumentId, final Side side, final int canceledCount, final long timestampNs)
    {
        // Each canceled order has its own OrderCanceled event.
    }

    public void onAssetDefined(final int assetId, final int scale, final String symbol, final long timestampNs)
    {
    }

    public void onInstrumentDefined(
        final int instrumentId, final String symbol, final int baseAssetId, final int quoteAssetId, final int priceScale,
        final long tickSize, final int quantityScale, final long lotSize, final long minQuantity, final long maxQuantity,
        final int priceBandBps, final long referencePrice, final int makerFeePpm, final int takerFeePpm,
        final TradingState tradingState, final long timestampNs)
    {
    }

    public void onTradingStateChanged(final int instrumentId, final TradingState tradingState, final long timestampNs)
    {
    }

    public void onAccountLimitsChanged(
        final long accountId, final long maxOrderQuantity, final long maxOrderNotional, final int maxOpenOrders,
        final SelfTradePrevention defaultSelfTradePrevention, final long timestampNs)
    {
    }

    public void onKillSwitchChanged(final long accountId, final boolean active, final long timestampNs)
    {
    }

    public void onAccountFeesChanged(
        final long accountId, final int makerFeePpm, final int takerFeePpm, final long timestampNs)
    {
    }

    public void onCancelAllAfterChanged(
        final long accountId,
        final long timeoutMs,
        final long deadlineNs,
        final boolean triggered,
        final int canceledCount,
        final long timestampNs)
    {
    }

    private static String[] reasonNames()
    {
        final String[] names = new String[256];
        for (final BalanceChangeReason reason : BalanceChangeReason.values())
        {
            if (reason != BalanceChangeReason.NULL_VAL)
            {
                names[reason.value()] = reason.name();
            }
        }
        return names;
    }

    /**
     * A trade whose row waits for its four settlements, which the engine publishes straight after it.
     */
    private static final class PendingTrade
    {
        final long[] settlement = new long[16];
        boolean pending;
        int settlements;
        long tradeId;
        int instrumentId;
        long price;
        long quantity;
        Side takerSide;
        long makerOrderId;
        long makerAccountId;
        long makerFee;
        long takerOrderId;
        long takerAccountId;
        long takerFee;
        long timestampNs;
        long logPosition;
        int baseAssetId;
        int quoteAssetId;

        void start(
            final long tradeId, final int instrumentId, final long price, final long quantity, final Side takerSide,
            final long makerOrderId, final long makerAccountId, final long makerFee, final long takerOrderId,
            final long takerAccountId, final long takerFee, final long timestampNs, final long logPosition)
        {
            pending = true;
            settlements = 0;
            this.tradeId = tradeId;
            this.instrumentId = instrumentId;
            this.price = price;
            this.quantity = quantity;
            this.takerSide = takerSide;
            this.makerOrderId = makerOrderId;
            this.makerAccountId = makerAccountId;
            this.makerFee = makerFee;
            this.takerOrderId = takerOrderId;
            this.takerAccountId = takerAccountId;
            this.takerFee = takerFee;
            this.timestampNs = timestampNs;
            this.logPosition = logPosition;
        }
    }
}
