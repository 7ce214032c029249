package io.bourse.store;

import java.io.File;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Read-only history for the HTTP API and reports: an account's trades and orders, newest first, filtered by time and
 * paged with a cursor (the id of the last row of the previous page). Opens its own connection, so it may be used
 * from a request thread while the store writes; methods are synchronized on this object.
 */
public final class HistoryQueries implements AutoCloseable
{
    /**
     * Largest page a query returns.
     */
    public static final int MAX_PAGE_SIZE = 1000;

    /**
     * One trade, as seen by the account asked about.
     *
     * @param side      the account's side: BUY or SELL.
     * @param liquidity MAKER or TAKER.
     * @param fee       the fee the account paid.
     */
    public record Trade(
        long tradeId, int instrumentId, long orderId, String side, String liquidity, long price, long quantity, long fee,
        long timestampNs, long logPosition)
    {
    }

    /**
     * An order in its current (or final) state.
     */
    public record Order(
        long orderId, long accountId, long clientOrderId, int instrumentId, String side, String orderType,
        String timeInForce, long price, long quantity, long filledQuantity, long remainingQuantity,
        long executedNotional, String status, long createdNs, long updatedNs)
    {
    }

    /**
     * A page of rows, newest first.
     *
     * @param nextCursor pass as {@code beforeId} for the next (older) page; 0 when this is the last page.
     */
    public record Page<T>(List<T> rows, long nextCursor)
    {
    }

    private final StoreDatabase database;
    private final PreparedStatement tradesQuery;
    private final PreparedStatement ordersQuery;

    private HistoryQueries(final StoreDatabase database) throws SQLException
    {
        this.database = database;
        final Connection connection = database.connection();
        // Each side by its own index, merged: an OR over two columns would scan on SQLite.
        tradesQuery = connection.prepareStatement(
            "SELECT trade_id, instrument_id, order_id, side, liquidity, price, quantity, fee, timestamp_ns, log_position " +
            "FROM (" +
            "SELECT trade_id, instrument_id, maker_order_id AS order_id, " +
            "CASE WHEN taker_side = 'BUY' THEN 'SELL' ELSE 'BUY' END AS side, 'MAKER' AS liquidity, price, quantity, " +
            "maker_fee AS fee, timestamp_ns, log_position FROM trades " +
            "WHERE maker_account_id = ? AND trade_id < ? AND timestamp_ns >= ? AND timestamp_ns < ? " +
            "UNION ALL " +
            "SELECT trade_id, instrument_id, taker_order_id, taker_side, 'TAKER', price, quantity, taker_fee, " +
            "timestamp_ns, log_position FROM trades " +
            "WHERE taker_account_id = ? AND trade_id < ? AND timestamp_ns >= ? AND timestamp_ns < ?" +
            ") account_trades ORDER BY trade_id DESC, liquidity LIMIT ?");
        ordersQuery = connection.prepareStatement(
            "SELECT order_id, account_id, client_order_id, instrument_id, side, order_type, time_in_force, price, " +
            "quantity, filled_quantity, remaining_quantity, executed_notional, status, created_ns, updated_ns " +
            "FROM orders WHERE account_id = ? AND order_id < ? AND created_ns >= ? AND created_ns < ? " +
            "ORDER BY order_id DESC LIMIT ?");
    }

    /**
     * Open the store's database for queries (SQLite file or PostgreSQL URL as for {@link Store.Context}).
     */
    public static HistoryQueries open(final String jdbcUrl, final File sqliteFile, final String user, final String password)
    {
        final StoreDatabase database = StoreDatabase.open(jdbcUrl, sqliteFile, user, password);
        try
        {
            return new HistoryQueries(database);
        }
        catch (final SQLException ex)
        {
            database.close();
            throw new StoreException("store database " + database.description(), ex);
        }
    }

    /**
     * An account's trades, newest first. A self-trade appears twice, once per side.
     *
     * @param accountId the account.
     * @param fromNs    earliest trade time, inclusive (0 for no bound).
     * @param toNs      latest trade time, exclusive ({@link Long#MAX_VALUE} for no bound).
     * @param beforeId  only trades with a smaller trade id: the previous page's cursor, or 0 for the first page.
     * @param limit     rows at most, 1 to {@link #MAX_PAGE_SIZE}.
     * @throws IllegalArgumentException for a bad limit or time range.
     */
    public synchronized Page<Trade> trades(
        final long accountId, final long fromNs, final long toNs, final long beforeId, final int limit)
    {
        checkPage(fromNs, toNs, beforeId, limit);
        final long before = beforeId == 0 ? Long.MAX_VALUE : beforeId;
        try
        {
            int i = 1;
            for (int side = 0; side < 2; side++)
            {
                tradesQuery.setLong(i++, accountId);
                tradesQuery.setLong(i++, before);
                tradesQuery.setLong(i++, fromNs);
                tradesQuery.setLong(i++, toNs);
            }
            // One more than asked: tells whether there is a next page.
            tradesQuery.setInt(i, limit + 1);
            final List<Trade> trades = new ArrayList<>();
            try (ResultSet rows = tradesQuery.executeQuery())
            {
                while (rows.next())
                {
                    trades.add(new Trade(rows.getLong(1), rows.getInt(2), rows.getLong(3), rows.getString(4),
                        rows.getString(5), rows.getLong(6), rows.getLong(7), rows.getLong(8), rows.getLong(9),
                        rows.getLong(10)));
                }
            }
            database.connection().commit();
            return page(trades, limit, trades.size() > limit ? trades.get(limit - 1).tradeId() : 0);
        }
        catch (final SQLException ex)
        {
            throw new StoreException("trades of account " + accountId, ex);
        }
    }

    /**
     * An account's orders, newest first, in their current or final state.
     *
     * @param fromNs   earliest creation time, inclusive (0 for no bound).
     * @param toNs     latest creation time, exclusive ({@link Long#MAX_VALUE} for no bound).
     * @param beforeId only orders with a smaller order id: the previous page's cursor, or 0 for the first page.
     * @param limit    rows at most, 1 to {@link #MAX_PAGE_SIZE}.
     */
    public synchronized Page<Order> orders(
        final long accountId, final long fromNs, final long toNs, final long beforeId, final int limit)
    {
        checkPage(fromNs, toNs, beforeId, limit);
        try
        {
            ordersQuery.setLong(1, accountId);
            ordersQuery.setLong(2, beforeId == 0 ? Long.MAX_VALUE : beforeId);
            ordersQuery.setLong(3, fromNs);
            ordersQuery.setLong(4, toNs);
            ordersQuery.setInt(5, limit + 1);
            final List<Order> orders = new ArrayList<>();
            try (ResultSet rows = ordersQuery.executeQuery())
            {
                while (rows.next())
                {
                    orders.add(new Order(rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getInt(4),
                        rows.getString(5), rows.getString(6), rows.getString(7), rows.getLong(8), rows.getLong(9),
                        rows.getLong(10), rows.getLong(11), rows.getLong(12), rows.getString(13), rows.getLong(14),
                        rows.getLong(15)));
                }
            }
            database.connection().commit();
            return page(orders, limit, orders.size() > limit ? orders.get(limit - 1).orderId() : 0);
        }
        catch (final SQLException ex)
        {
            throw new StoreException("orders of account " + accountId, ex);
        }
    }

    private static <T> Page<T> page(final List<T> rows, final int limit, final long nextCursor)
    {
        return new Page<>(List.copyOf(rows.size() > limit ? rows.subList(0, limit) : rows), nextCursor);
    }

    private static void checkPage(final long fromNs, final long toNs, final long beforeId, final int limit)
    {
        if (limit < 1 || limit > MAX_PAGE_SIZE)
        {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_PAGE_SIZE + ", not " + limit);
        }
        if (fromNs < 0 || toNs <= fromNs)
        {
            throw new IllegalArgumentException("time range [" + fromNs + ", " + toNs + ") is empty or negative");
        }
        if (beforeId < 0)
        {
            throw new IllegalArgumentException("cursor must not be negative: " + beforeId);
        }
    }

    public synchronized void close()
    {
        try
        {
            tradesQuery.close();
            ordersQuery.close();
        }
        catch (final SQLException ex)
        {
            throw new StoreException("closing queries", ex);
        }
        finally
        {
            database.close();
        }
    }
}
