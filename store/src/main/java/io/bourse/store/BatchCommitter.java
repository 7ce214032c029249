package io.bourse.store;

import org.postgresql.PGConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

/**
 * Writes a {@link HistoryBatch} into the database in one transaction: its rows, its fence and, when it has one, the
 * store's snapshot. So a batch is either wholly in the database with its fence or not at all. Used by one thread at a
 * time (the store's committing thread).
 */
final class BatchCommitter implements AutoCloseable
{
    private final Connection connection;
    private final BulkInsert trades;
    private final BulkInsert newOrders;
    private final BulkInsert orderChanges;
    private final BulkInsert ledgerEntries;
    private final BulkInsert transfers;
    private final BulkInsert candles;
    /**
     * New orders' rows, built from the batch's coalesced orders when it is written.
     */
    private final RowBuffer newOrderRows = new RowBuffer(NEW_ORDER_COLUMNS.split(",").length);
    private final PreparedStatement updateOrderFill;
    private final PreparedStatement updateOrderTerms;
    /**
     * PostgreSQL: order updates and balance upserts go as one set-based statement per kind and batch, their values in
     * arrays (null on SQLite, where a statement per row costs no round trip and no server-side statement overhead).
     */
    private final ArrayRows orderFillRows;
    private final ArrayRows orderTermsRows;
    private final ArrayRows balanceRows;
    private final PreparedStatement upsertBalance;
    private final PreparedStatement updateFence;
    private final PreparedStatement deleteSnapshot;
    private final PreparedStatement insertSnapshot;
    /**
     * SQLite: switches the durability of the next commit (null on PostgreSQL, whose commits are durable).
     */
    private final Statement sqlitePragma;

    private static final String NEW_ORDER_COLUMNS = "order_id, account_id, client_order_id, instrument_id, side, " +
        "order_type, time_in_force, price, quantity, filled_quantity, remaining_quantity, executed_notional, status, " +
        "created_ns, updated_ns, log_position, accepted_event_id, accepted_client_order_id, accepted_price, " +
        "accepted_quantity, created_log_position, reserve_entry_id, reserve_asset_id, reserve_amount, " +
        "reserve_available, reserve_reserved, quote_amount, post_only, self_trade_prevention, expire_ns, stop_price, " +
        "triggered_ns";

    /**
     * A stop order's terms as a terms update sets them from the two values given: 0 (an update that is not about them)
     * keeps the stored ones.
     */
    private static String stopTerms(final String newStopPrice, final String newTriggeredNs)
    {
        return "stop_price = COALESCE(NULLIF(" + newStopPrice + ", 0), stop_price), " +
            "triggered_ns = COALESCE(NULLIF(" + newTriggeredNs + ", 0), triggered_ns)";
    }

    private static void columnOrNull(final RowBuffer rows, final long value)
    {
        if (value != 0)
        {
            rows.column(value);
        }
        else
        {
            rows.nullColumn();
        }
    }

    private long tradesWritten;
    private long rowsWritten;

    BatchCommitter(final StoreDatabase database) throws SQLException
    {
        connection = database.connection();
        trades = BulkInsert.of(database, "trades", HistoryBatch.TRADE_COLUMNS);
        newOrders = BulkInsert.of(database, "orders", NEW_ORDER_COLUMNS);
        orderChanges = BulkInsert.of(database, "order_changes", HistoryBatch.ORDER_CHANGE_COLUMNS);
        ledgerEntries = BulkInsert.of(database, "ledger_entries", HistoryBatch.LEDGER_ENTRY_COLUMNS);
        transfers = BulkInsert.of(database, "transfers", HistoryBatch.TRANSFER_COLUMNS);
        candles = BulkInsert.of(database, "candles_1h", HourlyCandles.COLUMNS);
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
                "log_position = u.log_position, " + stopTerms("u.new_stop_price", "u.new_triggered_ns") + " FROM unnest(?::bigint[], ?::bigint[], " +
                "?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], " +
                "?::bigint[], ?::varchar[]) AS u(order_id, client_order_id, price, quantity, filled_quantity, " +
                "remaining_quantity, updated_ns, log_position, new_stop_price, new_triggered_ns, status) " +
                "WHERE o.order_id = u.order_id");
            upsertBalance = connection.prepareStatement("INSERT INTO balances (account_id, asset_id, available, " +
                "reserved, updated_ns) SELECT account_id, asset_id, available, reserved, updated_ns FROM " +
                "unnest(?::bigint[], ?::int[], ?::bigint[], ?::bigint[], ?::bigint[]) AS u(account_id, asset_id, " +
                "available, reserved, updated_ns) ON CONFLICT (account_id, asset_id) DO UPDATE SET " +
                "available = excluded.available, reserved = excluded.reserved, updated_ns = excluded.updated_ns");
            orderFillRows = new ArrayRows(6, true);
            orderTermsRows = new ArrayRows(10, true);
            balanceRows = new ArrayRows(5, false);
            sqlitePragma = null;
        }
        else
        {
            updateOrderFill = connection.prepareStatement("UPDATE orders SET filled_quantity = ?, " +
                "remaining_quantity = ?, executed_notional = ?, status = ?, updated_ns = ?, log_position = ? " +
                "WHERE order_id = ?");
            updateOrderTerms = connection.prepareStatement("UPDATE orders SET client_order_id = ?, price = ?, " +
                "quantity = ?, filled_quantity = ?, remaining_quantity = ?, status = ?, updated_ns = ?, " +
                "log_position = ?, " + stopTerms("?", "?") + " WHERE order_id = ?");
            upsertBalance = connection.prepareStatement("INSERT INTO balances (account_id, asset_id, available, " +
                "reserved, updated_ns) VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, asset_id) DO UPDATE SET " +
                "available = excluded.available, reserved = excluded.reserved, updated_ns = excluded.updated_ns");
            orderFillRows = null;
            orderTermsRows = null;
            balanceRows = null;
            sqlitePragma = connection.createStatement();
        }
        updateFence = connection.prepareStatement("UPDATE store_fence SET log_position = ?, timestamp_ns = ?, " +
            "snapshot_log_position = ?, next_order_event_id = ?, next_ledger_entry_id = ?, next_transfer_id = ? " +
            "WHERE id = 1");
        deleteSnapshot = connection.prepareStatement("DELETE FROM store_snapshot");
        insertSnapshot = connection.prepareStatement(
            "INSERT INTO store_snapshot (id, log_position, engine, clients) VALUES (1, ?, ?, ?)");
    }

    /**
     * @return trades written by the batches committed so far.
     */
    long tradesWritten()
    {
        return tradesWritten;
    }

    /**
     * @return rows written by the batches committed so far (orders coalesced within a batch).
     */
    long rowsWritten()
    {
        return rowsWritten;
    }

    /**
     * Write the batch, its fence and its snapshot if it has one, in one transaction; rolled back on failure. A batch
     * with a snapshot is committed durably even on SQLite (whose other commits survive a crash of the process but may be
     * lost with the machine's power): once it returns, the node's journal may be purged up to that snapshot, and a
     * commit lost after that would leave the store needing log that is gone.
     */
    void commit(final HistoryBatch batch) throws SQLException
    {
        final boolean durable = sqlitePragma != null && batch.engineSnapshot != null;
        if (durable)
        {
            sqliteSynchronous("FULL");
        }
        try
        {
            flushOrders(batch);
            flushBalances(batch);
            newOrders.write(newOrderRows);
            trades.write(batch.trades);
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
            orderChanges.write(batch.orderChanges);
            ledgerEntries.write(batch.ledgerEntries);
            if (balanceRows != null)
            {
                balanceRows.execute(upsertBalance);
            }
            else
            {
                upsertBalance.executeBatch();
            }
            transfers.write(batch.transfers);
            candles.write(batch.candles);
            if (batch.engineSnapshot != null)
            {
                deleteSnapshot.executeUpdate();
                insertSnapshot.setLong(1, batch.fenceLogPosition);
                insertSnapshot.setBytes(2, batch.engineSnapshot);
                insertSnapshot.setBytes(3, batch.clientsSnapshot);
                insertSnapshot.executeUpdate();
            }
            updateFence.setLong(1, batch.fenceLogPosition);
            updateFence.setLong(2, batch.fenceTimestampNs);
            updateFence.setLong(3, batch.snapshotLogPosition);
            updateFence.setLong(4, batch.nextOrderEventId);
            updateFence.setLong(5, batch.nextLedgerEntryId);
            updateFence.setLong(6, batch.nextTransferId);
            if (updateFence.executeUpdate() != 1)
            {
                throw new SQLException("store_fence row missing");
            }
            connection.commit();
        }
        catch (final SQLException ex)
        {
            throw rolledBack(ex);
        }
        finally
        {
            newOrderRows.clear();
        }
        // Not after a failure: the connection may then refuse it too, hiding the first error, and the store starts
        // again on a new connection anyway.
        if (durable)
        {
            sqliteSynchronous("NORMAL");
        }
        rowsWritten += batch.rows;
        tradesWritten += batch.tradeCount;
    }

    /**
     * Roll the failed batch back, and say why it failed. SQLite rolls a transaction back itself on some errors (a full
     * disk, an I/O error), and the rollback then fails too: the first error is the one that says what happened.
     */
    private SQLException rolledBack(final SQLException failure)
    {
        try
        {
            connection.rollback();
        }
        catch (final SQLException rollbackFailed)
        {
            failure.addSuppressed(rollbackFailed);
        }
        return failure;
    }

    /**
     * Set SQLite's {@code synchronous} for the commits that follow: FULL syncs the write-ahead log at each commit,
     * NORMAL (the store's setting, see {@link StoreDatabase}) only at checkpoints. SQLite refuses the change inside a
     * transaction, and the driver opens the next one at each commit, so it is made between two.
     */
    private void sqliteSynchronous(final String level) throws SQLException
    {
        connection.setAutoCommit(true);
        sqlitePragma.execute("PRAGMA synchronous = " + level);
        connection.setAutoCommit(false);
    }

    private void flushOrders(final HistoryBatch batch) throws SQLException
    {
        for (final HistoryBatch.OrderRow row : batch.orders.values())
        {
            if (row.isNew)
            {
                newOrderRows.column(row.orderId).column(row.accountId).column(row.clientOrderId).column(row.instrumentId)
                    .column(row.side).column(row.orderType).column(row.timeInForce).column(row.price)
                    .column(row.quantity).column(row.filledQuantity).column(row.remainingQuantity)
                    .column(row.executedNotional).column(row.status).column(row.createdNs).column(row.updatedNs)
                    .column(row.logPosition).column(row.acceptedEventId).column(row.acceptedClientOrderId)
                    .column(row.acceptedPrice).column(row.acceptedQuantity).column(row.createdLogPosition);
                if (row.reserveEntryId != 0)
                {
                    newOrderRows.column(row.reserveEntryId).column(row.reserveAssetId).column(row.reserveAmount)
                        .column(row.reserveAvailable).column(row.reserveReserved);
                }
                else
                {
                    newOrderRows.nullColumn().nullColumn().nullColumn().nullColumn().nullColumn();
                }
                newOrderRows.column(row.quoteAmount).column(row.postOnly).column(row.selfTradePrevention);
                columnOrNull(newOrderRows, row.expiryNs);
                columnOrNull(newOrderRows, row.stopPrice);
                columnOrNull(newOrderRows, row.triggeredNs);
                newOrderRows.endRow();
            }
            else
            {
                if (row.termsChanged && orderTermsRows != null)
                {
                    orderTermsRows.add(row.orderId).add(row.clientOrderId).add(row.price).add(row.quantity)
                        .add(row.filledQuantity).add(row.remainingQuantity).add(row.updatedNs).add(row.logPosition)
                        .add(row.stopPrice).add(row.triggeredNs).endRow(row.status);
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
                    updateOrderTerms.setLong(i++, row.stopPrice);
                    updateOrderTerms.setLong(i++, row.triggeredNs);
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
        }
    }

    private void flushBalances(final HistoryBatch batch) throws SQLException
    {
        for (final long[] balance : batch.balances.entries())
        {
            final long accountId = balance[BalanceTable.ACCOUNT_ID];
            final int assetId = (int)balance[BalanceTable.ASSET_ID];
            final long available = balance[BalanceTable.FIRST_VALUE];
            final long reserved = balance[BalanceTable.FIRST_VALUE + 1];
            final long timestampNs = balance[BalanceTable.FIRST_VALUE + 2];
            if (balanceRows != null)
            {
                balanceRows.add(accountId).add(assetId).add(available).add(reserved).add(timestampNs).endRow(null);
                continue;
            }
            upsertBalance.setLong(1, accountId);
            upsertBalance.setInt(2, assetId);
            upsertBalance.setLong(3, available);
            upsertBalance.setLong(4, reserved);
            upsertBalance.setLong(5, timestampNs);
            upsertBalance.addBatch();
        }
    }

    public void close()
    {
        try
        {
            for (final BulkInsert insert : List.of(trades, newOrders, orderChanges, ledgerEntries, transfers))
            {
                insert.close();
            }
            for (final Statement statement : List.of(
                updateOrderFill, updateOrderTerms, upsertBalance, updateFence, deleteSnapshot, insertSnapshot))
            {
                statement.close();
            }
            if (sqlitePragma != null)
            {
                sqlitePragma.close();
            }
        }
        catch (final SQLException ex)
        {
            throw new StoreException("closing statements", ex);
        }
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
}
