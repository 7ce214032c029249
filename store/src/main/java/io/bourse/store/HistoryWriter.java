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
import org.agrona.collections.Long2ObjectHashMap;
import org.postgresql.PGConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns the engine's events into rows, batched into one database transaction per {@link #commit}: trades, orders
 * (current state, coalesced so that an order touched many times in a batch is written once), order events, the
 * balance ledger, current balances and transfers. The fence moves in the same transaction, so a batch is either
 * wholly in the database with its fence or not at all.
 * <p>
 * Rows are what writing costs, so a change that belongs to another row is written into it: a trade's row carries its
 * four settlements, which the engine publishes straight after the trade, and an order's row its acceptance and the
 * reservation the engine makes straight after accepting it. The {@code ledger} and {@code order_events} views show
 * them as entries and events like any other; each keeps one id sequence, numbered in the order the engine made them.
 * <p>
 * While {@link #writing(boolean)} is off (the store replaying up to its fence after a restart) events only update
 * the in-memory balances that ledger deltas are computed from. Single-threaded.
 */
final class HistoryWriter implements EngineListener, AutoCloseable
{
    private static final String[] BALANCE_REASONS = reasonNames();

    private final Connection connection;
    private final RowBatch trades;
    private final RowBatch newOrders;
    private final PreparedStatement updateOrderFill;
    private final PreparedStatement updateOrderTerms;
    /**
     * PostgreSQL: order updates and balance upserts go as one set-based statement per kind and batch, their values in
     * arrays (null on SQLite, where a statement per row costs no round trip and no server-side statement overhead).
     */
    private final ArrayRows orderFillRows;
    private final ArrayRows orderTermsRows;
    private final ArrayRows balanceRows;
    private final RowBatch orderEvents;
    private final RowBatch ledger;
    private final PreparedStatement upsertBalance;
    private final RowBatch transfers;
    private final PreparedStatement updateFence;
    private final PreparedStatement deleteSnapshot;
    private final PreparedStatement insertSnapshot;

    private final Long2ObjectHashMap<OrderRow> pendingOrders = new Long2ObjectHashMap<>();
    private final List<OrderRow> orderRowPool = new ArrayList<>();
    private final Long2ObjectHashMap<long[]> balances = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<long[]> pendingBalances = new Long2ObjectHashMap<>();

    private final PendingTrade trade = new PendingTrade();
    /**
     * The order accepted by the current message, until its reservation is attached to its row.
     */
    private OrderRow acceptedRow;
    private boolean writing;
    private long logPosition;
    private long nextOrderEventId;
    private long nextLedgerEntryId;
    private long nextTransferId;
    private int pendingRows;
    private int pendingTrades;
    private long tradesWritten;
    private long rowsWritten;

    HistoryWriter(final StoreDatabase database) throws SQLException
    {
        connection = database.connection();
        trades = RowBatch.of(database, "trades", "trade_id, instrument_id, price, quantity, taker_side, " +
            "maker_order_id, maker_account_id, maker_fee, taker_order_id, taker_account_id, taker_fee, timestamp_ns, " +
            "log_position, settlement_entry_id, base_asset_id, quote_asset_id, " +
            "maker_base_available_delta, maker_base_reserved_delta, maker_base_available, maker_base_reserved, " +
            "maker_quote_available_delta, maker_quote_reserved_delta, maker_quote_available, maker_quote_reserved, " +
            "taker_base_available_delta, taker_base_reserved_delta, taker_base_available, taker_base_reserved, " +
            "taker_quote_available_delta, taker_quote_reserved_delta, taker_quote_available, taker_quote_reserved");
        newOrders = RowBatch.of(database, "orders", "order_id, account_id, client_order_id, instrument_id, side, " +
            "order_type, time_in_force, price, quantity, filled_quantity, remaining_quantity, executed_notional, status, " +
            "created_ns, updated_ns, log_position, accepted_event_id, accepted_client_order_id, accepted_price, " +
            "accepted_quantity, created_log_position, reserve_entry_id, reserve_asset_id, reserve_amount, " +
            "reserve_available, reserve_reserved");
        if (database.dialect() == StoreDatabase.Dialect.POSTGRESQL)
        {
            // unnest() of parameter arrays: the planner takes it for a few rows and joins by the primary key, one
            // statement and one round trip for the batch instead of one execution per row.
            updateOrderFill = connection.prepareStatement("UPDATE orders AS o SET filled_quantity = u.filled_quantity, " +
                "remaining_quantity = u.remaining_quantity, executed_notional = u.executed_notional, status = u.status, " +
                "updated_ns = u.updated_ns, log_position = u.log_position FROM unnest(?::bigint[], ?::bigint[], " +
                "?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::varchar[]) AS u(order_id, filled_quantity, " +
                "remaining_quantity, executed_notional, updated_ns, log_position, status) WHERE o.order_id = u.order_id");
            updateOrderTerms = connection.prepareStatement("UPDATE orders AS o SET client_order_id = u.client_order_id, " +
                "price = u.price, quantity = u.quantity, filled_quantity = u.filled_quantity, " +
                "remaining_quantity = u.remaining_quantity, status = u.status, updated_ns = u.updated_ns, " +
                "log_position = u.log_position FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], " +
                "?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::varchar[]) AS u(order_id, client_order_id, " +
                "price, quantity, filled_quantity, remaining_quantity, updated_ns, log_position, status) " +
                "WHERE o.order_id = u.order_id");
            upsertBalance = connection.prepareStatement("INSERT INTO balances (account_id, asset_id, available, " +
                "reserved, updated_ns) SELECT account_id, asset_id, available, reserved, updated_ns FROM " +
                "unnest(?::bigint[], ?::int[], ?::bigint[], ?::bigint[], ?::bigint[]) AS u(account_id, asset_id, " +
                "available, reserved, updated_ns) ON CONFLICT (account_id, asset_id) DO UPDATE SET " +
                "available = excluded.available, reserved = excluded.reserved, updated_ns = excluded.updated_ns");
            orderFillRows = new ArrayRows(6, true);
            orderTermsRows = new ArrayRows(8, true);
            balanceRows = new ArrayRows(5, false);
        }
        else
        {
            updateOrderFill = connection.prepareStatement("UPDATE orders SET filled_quantity = ?, " +
                "remaining_quantity = ?, executed_notional = ?, status = ?, updated_ns = ?, log_position = ? " +
                "WHERE order_id = ?");
            updateOrderTerms = connection.prepareStatement("UPDATE orders SET client_order_id = ?, price = ?, " +
                "quantity = ?, filled_quantity = ?, remaining_quantity = ?, status = ?, updated_ns = ?, " +
                "log_position = ? WHERE order_id = ?");
            upsertBalance = connection.prepareStatement("INSERT INTO balances (account_id, asset_id, available, " +
                "reserved, updated_ns) VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, asset_id) DO UPDATE SET " +
                "available = excluded.available, reserved = excluded.reserved, updated_ns = excluded.updated_ns");
            orderFillRows = null;
            orderTermsRows = null;
            balanceRows = null;
        }
        orderEvents = RowBatch.of(database, "order_changes", "event_id, order_id, account_id, kind, client_order_id, " +
            "price, quantity, filled_quantity, reason, timestamp_ns, log_position");
        ledger = RowBatch.of(database, "ledger_entries", "entry_id, account_id, asset_id, reason, available_delta, " +
            "reserved_delta, available, reserved, timestamp_ns, log_position");
        transfers = RowBatch.of(database, "transfers", "transfer_id, transaction_id, account_id, asset_id, amount, " +
            "direction, applied, timestamp_ns, log_position");
        updateFence = connection.prepareStatement("UPDATE store_fence SET log_position = ?, timestamp_ns = ?, " +
            "snapshot_log_position = ?, next_order_event_id = ?, next_ledger_entry_id = ?, next_transfer_id = ? " +
            "WHERE id = 1");
        deleteSnapshot = connection.prepareStatement("DELETE FROM store_snapshot");
        insertSnapshot = connection.prepareStatement(
            "INSERT INTO store_snapshot (id, log_position, engine, clients) VALUES (1, ?, ?, ?)");
        loadCounters();
    }

    /**
     * Load what the database holds as of the fence: the current balances, which ledger deltas continue from, and the
     * next row ids.
     */
    private void loadCounters() throws SQLException
    {
        try (Statement statement = connection.createStatement())
        {
            try (ResultSet rows = statement.executeQuery("SELECT account_id, asset_id, available, reserved FROM balances"))
            {
                while (rows.next())
                {
                    balances.put(balanceKey(rows.getLong(1), rows.getInt(2)), new long[]{ rows.getLong(3), rows.getLong(4) });
                }
            }
            try (ResultSet rows = statement.executeQuery(
                "SELECT next_order_event_id, next_ledger_entry_id, next_transfer_id FROM store_fence WHERE id = 1"))
            {
                if (!rows.next())
                {
                    throw new SQLException("store_fence row missing");
                }
                nextOrderEventId = rows.getLong(1);
                nextLedgerEntryId = rows.getLong(2);
                nextTransferId = rows.getLong(3);
            }
        }
        connection.commit();
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
     * a commit) means the engine's events are not what this writer was built for, and rows would be wrong.
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
     * @return rows added since the last commit (orders coalesced).
     */
    int pendingRows()
    {
        return pendingRows;
    }

    long tradesWritten()
    {
        return tradesWritten;
    }

    long rowsWritten()
    {
        return rowsWritten;
    }

    /**
     * Write the pending rows, the fence and, when given, the store's snapshot, in one transaction.
     *
     * @param fenceLogPosition    the log position up to which every row is now written.
     * @param fenceTimestampNs    cluster time of the message at the fence.
     * @param snapshotLogPosition where the store's latest snapshot was taken.
     * @param engineSnapshot      a new snapshot taken at {@code fenceLogPosition}, or null to keep the current one.
     * @param clientsSnapshot     the request sequences part of the new snapshot, or null.
     */
    void commit(
        final long fenceLogPosition,
        final long fenceTimestampNs,
        final long snapshotLogPosition,
        final byte[] engineSnapshot,
        final byte[] clientsSnapshot) throws SQLException
    {
        expectSettlements();
        try
        {
            flushOrders();
            flushBalances();
            newOrders.flush();
            trades.flush();
            if (orderTermsRows != null)
            {
                orderTermsRows.execute(updateOrderTerms);
                orderFillRows.execute(updateOrderFill);
            }
            else
            {
                updateOrderTerms.executeBatch();
                updateOrderFill.executeBatch();
            }
            orderEvents.flush();
            ledger.flush();
            if (balanceRows != null)
            {
                balanceRows.execute(upsertBalance);
            }
            else
            {
                upsertBalance.executeBatch();
            }
            transfers.flush();
            if (engineSnapshot != null)
            {
                deleteSnapshot.executeUpdate();
                insertSnapshot.setLong(1, fenceLogPosition);
                insertSnapshot.setBytes(2, engineSnapshot);
                insertSnapshot.setBytes(3, clientsSnapshot);
                insertSnapshot.executeUpdate();
            }
            updateFence.setLong(1, fenceLogPosition);
            updateFence.setLong(2, fenceTimestampNs);
            updateFence.setLong(3, snapshotLogPosition);
            updateFence.setLong(4, nextOrderEventId);
            updateFence.setLong(5, nextLedgerEntryId);
            updateFence.setLong(6, nextTransferId);
            if (updateFence.executeUpdate() != 1)
            {
                throw new SQLException("store_fence row missing");
            }
            connection.commit();
        }
        catch (final SQLException ex)
        {
            connection.rollback();
            throw ex;
        }
        rowsWritten += pendingRows;
        tradesWritten += pendingTrades;
        pendingRows = 0;
        pendingTrades = 0;
    }

    private void flushOrders() throws SQLException
    {
        for (final OrderRow row : pendingOrders.values())
        {
            if (row.isNew)
            {
                newOrders.column(row.orderId).column(row.accountId).column(row.clientOrderId).column(row.instrumentId)
                    .column(row.side).column(row.orderType).column(row.timeInForce).column(row.price)
                    .column(row.quantity).column(row.filledQuantity).column(row.remainingQuantity)
                    .column(row.executedNotional).column(row.status).column(row.createdNs).column(row.updatedNs)
                    .column(row.logPosition).column(row.acceptedEventId).column(row.acceptedClientOrderId)
                    .column(row.acceptedPrice).column(row.acceptedQuantity).column(row.createdLogPosition);
                if (row.reserveEntryId != 0)
                {
                    newOrders.column(row.reserveEntryId).column(row.reserveAssetId).column(row.reserveAmount)
                        .column(row.reserveAvailable).column(row.reserveReserved);
                }
                else
                {
                    newOrders.nullColumn().nullColumn().nullColumn().nullColumn().nullColumn();
                }
                newOrders.endRow();
            }
            else
            {
                if (row.termsChanged && orderTermsRows != null)
                {
                    orderTermsRows.add(row.orderId).add(row.clientOrderId).add(row.price).add(row.quantity)
                        .add(row.filledQuantity).add(row.remainingQuantity).add(row.updatedNs).add(row.logPosition)
                        .endRow(row.status);
                }
                else if (row.termsChanged)
                {
                    int i = 1;
                    updateOrderTerms.setLong(i++, row.clientOrderId);
                    updateOrderTerms.setLong(i++, row.price);
                    updateOrderTerms.setLong(i++, row.quantity);
                    updateOrderTerms.setLong(i++, row.filledQuantity);
                    updateOrderTerms.setLong(i++, row.remainingQuantity);
                    updateOrderTerms.setString(i++, row.status);
                    updateOrderTerms.setLong(i++, row.updatedNs);
                    updateOrderTerms.setLong(i++, row.logPosition);
                    updateOrderTerms.setLong(i, row.orderId);
                    updateOrderTerms.addBatch();
                }
                if (row.fillChanged && orderFillRows != null)
                {
                    orderFillRows.add(row.orderId).add(row.filledQuantity).add(row.remainingQuantity)
                        .add(row.executedNotional).add(row.updatedNs).add(row.logPosition).endRow(row.status);
                }
                else if (row.fillChanged)
                {
                    int i = 1;
                    updateOrderFill.setLong(i++, row.filledQuantity);
                    updateOrderFill.setLong(i++, row.remainingQuantity);
                    updateOrderFill.setLong(i++, row.executedNotional);
                    updateOrderFill.setString(i++, row.status);
                    updateOrderFill.setLong(i++, row.updatedNs);
                    updateOrderFill.setLong(i++, row.logPosition);
                    updateOrderFill.setLong(i, row.orderId);
                    updateOrderFill.addBatch();
                }
            }
            orderRowPool.add(row);
        }
        pendingOrders.clear();
    }

    private void flushBalances() throws SQLException
    {
        final Long2ObjectHashMap<long[]>.EntryIterator iterator = pendingBalances.entrySet().iterator();
        while (iterator.hasNext())
        {
            iterator.next();
            final long key = iterator.getLongKey();
            final long[] balance = iterator.getValue();
            if (balanceRows != null)
            {
                balanceRows.add(key >>> 20).add(key & 0xFFFFF).add(balance[0]).add(balance[1]).add(balance[2])
                    .endRow(null);
                continue;
            }
            upsertBalance.setLong(1, key >>> 20);
            upsertBalance.setInt(2, (int)(key & 0xFFFFF));
            upsertBalance.setLong(3, balance[0]);
            upsertBalance.setLong(4, balance[1]);
            upsertBalance.setLong(5, balance[2]);
            upsertBalance.addBatch();
        }
        pendingBalances.clear();
    }

    private OrderRow pendingOrder(final long orderId)
    {
        OrderRow row = pendingOrders.get(orderId);
        if (row == null)
        {
            row = orderRowPool.isEmpty() ? new OrderRow() : orderRowPool.remove(orderRowPool.size() - 1);
            row.reset(orderId);
            pendingOrders.put(orderId, row);
            pendingRows++;
        }
        return row;
    }

    private void orderEvent(
        final long orderId, final long accountId, final String kind, final long clientOrderId, final long price,
        final long quantity, final long filledQuantity, final String reason, final long timestampNs)
    {
        try
        {
            orderEvents.column(nextOrderEventId++).column(orderId).column(accountId).column(kind).column(clientOrderId)
                .column(price).column(quantity).column(filledQuantity).column(reason).column(timestampNs)
                .column(logPosition).endRow();
            pendingRows++;
        }
        catch (final SQLException ex)
        {
            throw new StoreException("order event for order " + orderId, ex);
        }
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
        final long quoteAmount, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        final OrderRow row = pendingOrder(orderId);
        row.isNew = true;
        row.accountId = accountId;
        row.clientOrderId = clientOrderId;
        row.instrumentId = instrumentId;
        row.side = side.name();
        row.orderType = orderType.name();
        row.timeInForce = timeInForce.name();
        row.price = price;
        row.quantity = quantity;
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
        row.reserveEntryId = 0;
        // The engine reserves for a limit order straight after accepting it: that entry goes into this row.
        acceptedRow = row;
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
        pendingRows++;
        pendingTrades++;
        fill(makerOrderId, makerFilledQuantity, makerRemainingQuantity, makerExecutedNotional, timestampNs);
        fill(takerOrderId, takerFilledQuantity, takerRemainingQuantity, takerExecutedNotional, timestampNs);
    }

    private void fill(
        final long orderId, final long filledQuantity, final long remainingQuantity, final long executedNotional,
        final long timestampNs)
    {
        final OrderRow row = pendingOrder(orderId);
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
        close(orderId, filledQuantity, executedNotional, "CANCELED", timestampNs);
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
        final OrderRow row = pendingOrder(orderId);
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
        final boolean priorityKept, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        terms(orderId, clientOrderId, price, quantity, filledQuantity, timestampNs);
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
        final OrderRow row = pendingOrder(orderId);
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
        final long filledQuantity, final long executedNotional, final long expiryTimeNs, final long timestampNs)
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
        final long key = balanceKey(accountId, assetId);
        long[] balance = balances.get(key);
        if (balance == null)
        {
            balance = new long[2];
            balances.put(key, balance);
        }
        final long availableDelta = available - balance[0];
        final long reservedDelta = reserved - balance[1];
        balance[0] = available;
        balance[1] = reserved;
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
        long[] pending = pendingBalances.get(key);
        if (pending == null)
        {
            pending = new long[3];
            pendingBalances.put(key, pending);
            pendingRows++;
        }
        pending[0] = available;
        pending[1] = reserved;
        pending[2] = timestampNs;
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
        try
        {
            trades.column(trade.tradeId).column(trade.instrumentId).column(trade.price).column(trade.quantity)
                .column(trade.takerSide.name()).column(trade.makerOrderId).column(trade.makerAccountId)
                .column(trade.makerFee).column(trade.takerOrderId).column(trade.takerAccountId).column(trade.takerFee)
                .column(trade.timestampNs).column(trade.logPosition).column(nextLedgerEntryId)
                .column(trade.baseAssetId).column(trade.quoteAssetId);
            for (final long value : trade.settlement)
            {
                trades.column(value);
            }
            trades.endRow();
        }
        catch (final SQLException ex)
        {
            throw new StoreException("trade " + trade.tradeId, ex);
        }
        nextLedgerEntryId += 4;
        trade.pending = false;
    }

    private void ledgerEntry(
        final long accountId, final int assetId, final BalanceChangeReason reason, final long availableDelta,
        final long reservedDelta, final long available, final long reserved, final long timestampNs)
    {
        try
        {
            ledger.column(nextLedgerEntryId++).column(accountId).column(assetId).column(BALANCE_REASONS[reason.value()])
                .column(availableDelta).column(reservedDelta).column(available).column(reserved).column(timestampNs)
                .column(logPosition).endRow();
        }
        catch (final SQLException ex)
        {
            throw new StoreException("ledger entry for account " + accountId, ex);
        }
        pendingRows++;
    }

    public void onTransferProcessed(
        final long transactionId, final long accountId, final int assetId, final long amount,
        final TransferDirection direction, final boolean applied, final long timestampNs)
    {
        if (!writing)
        {
            return;
        }
        try
        {
            transfers.column(nextTransferId++).column(transactionId).column(accountId).column(assetId).column(amount)
                .column(direction.name()).column(applied).column(timestampNs).column(logPosition).endRow();
        }
        catch (final SQLException ex)
        {
            throw new StoreException("transfer " + transactionId, ex);
        }
        pendingRows++;
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

    public void close()
    {
        try
        {
            for (final RowBatch batch : List.of(trades, newOrders, orderEvents, ledger, transfers))
            {
                batch.close();
            }
            for (final Statement statement : List.of(
                updateOrderFill, updateOrderTerms, upsertBalance, updateFence, deleteSnapshot, insertSnapshot))
            {
                statement.close();
            }
        }
        catch (final SQLException ex)
        {
            throw new StoreException("closing statements", ex);
        }
    }

    /**
     * Accounts up to 2^44 and assets up to 2^20 in one key; the engine's asset ids are small integers.
     */
    private static long balanceKey(final long accountId, final int assetId)
    {
        return (accountId << 20) | (assetId & 0xFFFFF);
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
     * Rows of one set-based PostgreSQL statement, column by column: long columns, then optionally one text column,
     * each bound as an array parameter in that order.
     */
    private static final class ArrayRows
    {
        private final long[][] numbers;
        private final String[] noTexts = new String[0];
        private String[] texts;
        private final boolean hasText;
        private int column;
        private int rows;

        ArrayRows(final int numberColumns, final boolean hasText)
        {
            numbers = new long[numberColumns][1024];
            texts = hasText ? new String[1024] : noTexts;
            this.hasText = hasText;
        }

        ArrayRows add(final long value)
        {
            if (rows == numbers[column].length)
            {
                numbers[column] = Arrays.copyOf(numbers[column], rows * 2);
            }
            numbers[column++][rows] = value;
            return this;
        }

        void endRow(final String text)
        {
            if (hasText)
            {
                if (rows == texts.length)
                {
                    texts = Arrays.copyOf(texts, rows * 2);
                }
                texts[rows] = text;
            }
            column = 0;
            rows++;
        }

        void execute(final PreparedStatement statement) throws SQLException
        {
            if (rows == 0)
            {
                return;
            }
            try
            {
                // PostgreSQL's own createArrayOf takes primitive arrays, without boxing every value.
                final PGConnection connection = statement.getConnection().unwrap(PGConnection.class);
                int parameter = 1;
                for (final long[] values : numbers)
                {
                    statement.setArray(parameter++, connection.createArrayOf("bigint", Arrays.copyOf(values, rows)));
                }
                if (hasText)
                {
                    statement.setArray(parameter, connection.createArrayOf("varchar", Arrays.copyOf(texts, rows)));
                }
                statement.executeUpdate();
            }
            finally
            {
                Arrays.fill(texts, 0, hasText ? rows : 0, null);
                rows = 0;
                column = 0;
            }
        }
    }

    /**
     * An order's pending row: coalesces every change to it within one batch.
     */
    private static final class OrderRow
    {
        long orderId;
        boolean isNew;
        boolean termsChanged;
        boolean fillChanged;
        long accountId;
        long clientOrderId;
        int instrumentId;
        String side;
        String orderType;
        String timeInForce;
        long price;
        long quantity;
        long filledQuantity;
        long remainingQuantity;
        long executedNotional;
        String status;
        long createdNs;
        long updatedNs;
        long logPosition;
        long acceptedEventId;
        long acceptedClientOrderId;
        long acceptedPrice;
        long acceptedQuantity;
        long createdLogPosition;
        /**
         * 0 while the order has no reservation of its own row (a market order, or the row of an older order).
         */
        long reserveEntryId;
        int reserveAssetId;
        long reserveAmount;
        long reserveAvailable;
        long reserveReserved;

        void reset(final long orderId)
        {
            this.orderId = orderId;
            isNew = false;
            termsChanged = false;
            fillChanged = false;
        }
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
