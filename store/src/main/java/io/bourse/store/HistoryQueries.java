package io.bourse.store;

import java.io.File;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Read-only history for the HTTP API and reports: an account's trades, orders and transfers, newest first (by time,
 * then id), filtered by time and paged with a cursor (the time and id of the last row of the previous page). A page of
 * trades or orders costs a seek and its own rows in the per-account time indexes, however old the window and however
 * deep the page; transfers, an operator's few deposits and withdrawals, are read whole per account. Opens its own
 * connection, so it may be used from a request thread while the store writes; methods are synchronized on this
 * object.
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
     *
     * @param cancelReason        how it was canceled (the engine's CancelReason) when it was, else null.
     * @param quoteAmount         a market buy's amount of quote to spend; 0 for an order sized in base.
     * @param postOnly            whether it was post only; null, as are the two after it, for an order written before
     *                            the store kept its terms (schema version 5), whose quoteAmount reads 0.
     * @param selfTradePrevention the mode it traded under (the engine's SelfTradePrevention).
     * @param expiryNs            a GTD order's expiry, else 0.
     * @param stopPrice           a stop order's stop price, else 0.
     * @param triggeredNs         when a stop order's stop price was reached; 0 while it waits, and for other orders.
     */
    public record Order(
        long orderId, long accountId, long clientOrderId, int instrumentId, String side, String orderType,
        String timeInForce, long price, long quantity, long filledQuantity, long remainingQuantity,
        long executedNotional, String status, long createdNs, long updatedNs, String cancelReason, long quoteAmount,
        Boolean postOnly, String selfTradePrevention, long expiryNs, long stopPrice, long triggeredNs)
    {
    }

    /**
     * A deposit or withdrawal the exchange applied to the account (one refused as a repeat of an earlier transaction
     * id changed nothing, and is not one).
     *
     * @param transactionId the id the operator gave it.
     * @param direction     DEPOSIT or WITHDRAWAL.
     * @param amount        in the asset's minor units, positive.
     */
    public record Transfer(
        long transferId, long transactionId, int assetId, String direction, long amount, long timestampNs)
    {
    }

    /**
     * Where a page ended: the time and id of its last (oldest) row. The next page holds the rows after it.
     */
    public record Cursor(long timeNs, long id)
    {
    }

    /**
     * A page of rows, newest first.
     *
     * @param nextCursor pass as {@code after} for the next (older) page; null when this is the last page.
     */
    public record Page<T>(List<T> rows, Cursor nextCursor)
    {
    }

    private static final String ORDER_COLUMNS = "order_id, account_id, client_order_id, instrument_id, side, " +
        "order_type, time_in_force, price, quantity, filled_quantity, remaining_quantity, executed_notional, status, " +
        "created_ns, updated_ns, " +
        // How a canceled order ended, from its one CANCELED change (the order_changes index is by order).
        "(SELECT c.reason FROM order_changes c WHERE c.order_id = orders.order_id AND c.kind = 'CANCELED' LIMIT 1), " +
        "quote_amount, post_only, self_trade_prevention, expire_ns, stop_price, triggered_ns";

    private final String jdbcUrl;
    private final File sqliteFile;
    private final String user;
    private final String password;
    /**
     * Null after a query found the connection lost: the next query connects again.
     */
    private StoreDatabase database;
    private PreparedStatement tradesQuery;
    private PreparedStatement ordersQuery;
    private PreparedStatement orderQuery;
    private PreparedStatement orderByClientOrderIdQuery;
    private PreparedStatement firstTradeIdQuery;
    private PreparedStatement lastTradeIdQuery;
    private PreparedStatement firstTradeFromQuery;
    private PreparedStatement tradesFromQuery;
    private PreparedStatement transfersQuery;
    private PreparedStatement hourlyCandlesQuery;

    private HistoryQueries(final String jdbcUrl, final File sqliteFile, final String user, final String password)
    {
        this.jdbcUrl = jdbcUrl;
        this.sqliteFile = sqliteFile;
        this.user = user;
        this.password = password;
    }

    private void connect()
    {
        final StoreDatabase opened = StoreDatabase.open(jdbcUrl, sqliteFile, user, password);
        try
        {
            prepare(opened.connection());
        }
        catch (final SQLException ex)
        {
            opened.close();
            throw new StoreException("store database " + opened.description(), ex);
        }
        database = opened;
    }

    private void prepare(final Connection connection) throws SQLException
    {
        // Each side its own page from its own index, then the two merged: a union sorted as a whole would read and sort
        // all of the account's trades first. An account never trades with itself (self-trade prevention always
        // applies), so a trade is one row of its history.
        tradesQuery = connection.prepareStatement(
            "SELECT trade_id, instrument_id, order_id, side, liquidity, price, quantity, fee, timestamp_ns, log_position " +
            "FROM (" +
            "SELECT * FROM (SELECT trade_id, instrument_id, maker_order_id AS order_id, " +
            "CASE WHEN taker_side = 'BUY' THEN 'SELL' ELSE 'BUY' END AS side, 'MAKER' AS liquidity, price, quantity, " +
            "maker_fee AS fee, timestamp_ns, log_position FROM trades " +
            "WHERE maker_account_id = ? AND timestamp_ns >= ? AND timestamp_ns < ? " +
            "AND (timestamp_ns < ? OR trade_id < ?) " +
            "ORDER BY timestamp_ns DESC, trade_id DESC LIMIT ?) maker_side " +
            "UNION ALL " +
            "SELECT * FROM (SELECT trade_id, instrument_id, taker_order_id AS order_id, taker_side AS side, " +
            "'TAKER' AS liquidity, price, quantity, taker_fee AS fee, timestamp_ns, log_position FROM trades " +
            "WHERE taker_account_id = ? AND timestamp_ns >= ? AND timestamp_ns < ? " +
            "AND (timestamp_ns < ? OR trade_id < ?) " +
            "ORDER BY timestamp_ns DESC, trade_id DESC LIMIT ?) taker_side" +
            ") account_trades ORDER BY timestamp_ns DESC, trade_id DESC LIMIT ?");
        ordersQuery = connection.prepareStatement(
            "SELECT " + ORDER_COLUMNS + " FROM orders WHERE account_id = ? AND created_ns >= ? AND created_ns < ? " +
            "AND (created_ns < ? OR order_id < ?) " +
            "ORDER BY created_ns DESC, order_id DESC LIMIT ?");
        orderQuery = connection.prepareStatement(
            "SELECT " + ORDER_COLUMNS + " FROM orders WHERE order_id = ? AND account_id = ?");
        orderByClientOrderIdQuery = connection.prepareStatement(
            "SELECT " + ORDER_COLUMNS + " FROM orders WHERE account_id = ? AND client_order_id = ? " +
            // A replace may give an older order the id: the open order with it comes first.
            "ORDER BY CASE WHEN status IN ('NEW', 'PARTIALLY_FILLED') THEN 0 ELSE 1 END, order_id DESC LIMIT 1");
        // Apart: SQLite reads MIN or MAX alone from the key's ends, but both in one query from every row.
        firstTradeIdQuery = connection.prepareStatement("SELECT MIN(trade_id) FROM trades");
        lastTradeIdQuery = connection.prepareStatement("SELECT MAX(trade_id) FROM trades");
        firstTradeFromQuery = connection.prepareStatement(
            "SELECT trade_id, timestamp_ns FROM trades WHERE trade_id >= ? ORDER BY trade_id LIMIT 1");
        tradesFromQuery = connection.prepareStatement(
            "SELECT trade_id, instrument_id, price, quantity, timestamp_ns FROM trades " +
            "WHERE trade_id >= ? AND trade_id < ? ORDER BY trade_id LIMIT ?");
        // An account's transfers are few (an operator's deposits and withdrawals): its index entries are read whole.
        transfersQuery = connection.prepareStatement(
            "SELECT transfer_id, transaction_id, asset_id, direction, amount, timestamp_ns FROM transfers " +
            "WHERE account_id = ? AND timestamp_ns >= ? AND timestamp_ns < ? AND (timestamp_ns < ? OR transfer_id < ?) " +
            "AND applied ORDER BY timestamp_ns DESC, transfer_id DESC LIMIT ?");
        hourlyCandlesQuery = connection.prepareStatement("SELECT start_ns, open_price, high_price, low_price, " +
            "close_price, volume, quote_volume, trade_count, first_trade_id, last_trade_id FROM candles_1h " +
            "WHERE instrument_id = ? AND start_ns >= ? AND start_ns < ? ORDER BY start_ns");
    }

    /**
     * Open the store's database for queries (SQLite file or PostgreSQL URL as for {@link Store.Context}).
     */
    public static HistoryQueries open(final String jdbcUrl, final File sqliteFile, final String user, final String password)
    {
        final HistoryQueries queries = new HistoryQueries(jdbcUrl, sqliteFile, user, password);
        queries.connect();
        return queries;
    }

    /**
     * After a failed query: a failed statement leaves a PostgreSQL transaction aborted, and a lost connection stays
     * lost, so either would fail every later query. The transaction is rolled back, and a connection that no longer
     * answers is let go, for the next query to connect again.
     */
    private StoreException failed(final String what, final SQLException error)
    {
        final Connection connection = database.connection();
        boolean valid;
        try
        {
            connection.rollback();
            valid = connection.isValid(2);
        }
        catch (final SQLException ex)
        {
            error.addSuppressed(ex);
            valid = false;
        }
        if (!valid)
        {
            disconnect();
        }
        return new StoreException(what, error);
    }

    private void disconnect()
    {
        try
        {
            tradesQuery.close();
            ordersQuery.close();
            orderQuery.close();
            orderByClientOrderIdQuery.close();
            firstTradeIdQuery.close();
            lastTradeIdQuery.close();
            firstTradeFromQuery.close();
            tradesFromQuery.close();
            transfersQuery.close();
            hourlyCandlesQuery.close();
        }
        catch (final SQLException ignored)
        {
            // The connection is being let go: its statements go with it.
        }
        finally
        {
            database.close();
            database = null;
        }
    }

    /**
     * An account's trades, newest first.
     *
     * @param accountId the account.
     * @param fromNs    earliest trade time, inclusive (0 for no bound).
     * @param toNs      latest trade time, exclusive ({@link Long#MAX_VALUE} for no bound).
     * @param after     the previous page's cursor, or null for the first page.
     * @param limit     rows at most, 1 to {@link #MAX_PAGE_SIZE}.
     * @throws IllegalArgumentException for a bad limit, time range or cursor.
     */
    public synchronized Page<Trade> trades(
        final long accountId, final long fromNs, final long toNs, final Cursor after, final int limit)
    {
        checkPage(fromNs, toNs, after, limit);
        return read("trades of account " + accountId, () ->
        {
            int i = 1;
            for (int side = 0; side < 2; side++)
            {
                i = bindRange(tradesQuery, i, accountId, fromNs, toNs, after);
                // One more than asked: tells whether there is a next page.
                tradesQuery.setInt(i++, limit + 1);
            }
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
            final Trade last = trades.size() > limit ? trades.get(limit - 1) : null;
            return page(trades, limit, last == null ? null : new Cursor(last.timestampNs(), last.tradeId()));
        });
    }

    /**
     * An account's orders, newest first, in their current or final state.
     *
     * @param fromNs earliest creation time, inclusive (0 for no bound).
     * @param toNs   latest creation time, exclusive ({@link Long#MAX_VALUE} for no bound).
     * @param after  the previous page's cursor, or null for the first page.
     * @param limit  rows at most, 1 to {@link #MAX_PAGE_SIZE}.
     * @throws IllegalArgumentException for a bad limit, time range or cursor.
     */
    public synchronized Page<Order> orders(
        final long accountId, final long fromNs, final long toNs, final Cursor after, final int limit)
    {
        return pageOf(() -> ordersQuery, "orders", accountId, fromNs, toNs, after, limit, HistoryQueries::order,
            order -> new Cursor(order.createdNs(), order.orderId()));
    }

    /**
     * An account's deposits and withdrawals, newest first.
     *
     * @param fromNs earliest time, inclusive (0 for no bound).
     * @param toNs   latest time, exclusive ({@link Long#MAX_VALUE} for no bound).
     * @param after  the previous page's cursor, or null for the first page.
     * @param limit  rows at most, 1 to {@link #MAX_PAGE_SIZE}.
     * @throws IllegalArgumentException for a bad limit, time range or cursor.
     */
    public synchronized Page<Transfer> transfers(
        final long accountId, final long fromNs, final long toNs, final Cursor after, final int limit)
    {
        return pageOf(() -> transfersQuery, "transfers", accountId, fromNs, toNs, after, limit,
            rows -> new Transfer(rows.getLong(1), rows.getLong(2), rows.getInt(3), rows.getString(4), rows.getLong(5),
                rows.getLong(6)),
            transfer -> new Cursor(transfer.timestampNs(), transfer.transferId()));
    }

    /**
     * A read of the database, which may fail.
     */
    private interface SqlRead<T>
    {
        T run() throws SQLException;
    }

    /**
     * Run a read on the connection (made again first when a failed query let it go) and end its transaction.
     *
     * @param what what it reads, for the error.
     */
    private <T> T read(final String what, final SqlRead<T> read)
    {
        if (database == null)
        {
            connect();
        }
        try
        {
            final T result = read.run();
            database.connection().commit();
            return result;
        }
        catch (final SQLException ex)
        {
            throw failed(what, ex);
        }
    }

    /**
     * Reads a row of a query's result.
     */
    private interface RowReader<T>
    {
        T read(ResultSet rows) throws SQLException;
    }

    /**
     * A page of a statement that takes the account, the time range and the cursor ({@link #bindRange}), then the
     * limit.
     *
     * @param query the statement, as prepared on the connection this call uses (a lost connection is made again
     *              first, with new statements).
     */
    private <T> Page<T> pageOf(
        final Supplier<PreparedStatement> query, final String what, final long accountId, final long fromNs,
        final long toNs, final Cursor after, final int limit, final RowReader<T> reader,
        final Function<T, Cursor> cursorOf)
    {
        checkPage(fromNs, toNs, after, limit);
        return read(what + " of account " + accountId, () ->
        {
            final PreparedStatement statement = query.get();
            final int i = bindRange(statement, 1, accountId, fromNs, toNs, after);
            // One more than asked: tells whether there is a next page.
            statement.setInt(i, limit + 1);
            final List<T> rows = new ArrayList<>();
            try (ResultSet result = statement.executeQuery())
            {
                while (result.next())
                {
                    rows.add(reader.read(result));
                }
            }
            return page(rows, limit, rows.size() > limit ? cursorOf.apply(rows.get(limit - 1)) : null);
        });
    }

    /**
     * One of an account's orders by its id, or null when the store has none.
     */
    public synchronized Order order(final long accountId, final long orderId)
    {
        return oneOrder(() -> orderQuery, orderId, accountId, "order " + orderId + " of account " + accountId);
    }

    /**
     * An account's order by the id its client gave it, or null when the store has none: the open one with it, else the
     * newest, since a client order id is unique among an account's open orders only (a replace may give an order a new
     * one).
     */
    public synchronized Order orderByClientOrderId(final long accountId, final long clientOrderId)
    {
        return oneOrder(() -> orderByClientOrderIdQuery, accountId, clientOrderId,
            "order with client order id " + clientOrderId + " of account " + accountId);
    }

    /**
     * Reads the trades of {@link #trades}.
     */
    public interface TradeVisitor
    {
        void onTrade(long tradeId, int instrumentId, long price, long quantity, long timestampNs);
    }

    /**
     * @return the highest trade id in the store, 0 when it has none: trade ids are the engine's, 1, 2, 3 and so on,
     * so the store holds every trade up to it.
     */
    public synchronized long lastTradeId()
    {
        return read("the last trade id", () -> tradeId(lastTradeIdQuery));
    }

    /**
     * @return the lowest id of the trades with a time at or after {@code fromNs}, or one past the last trade when there
     * is none. No index has trades by time: as the engine's clock only moves on, trade ids and times rise together,
     * so it is found by a binary search over the ids (a few dozen reads of the primary key).
     */
    public synchronized long firstTradeIdSince(final long fromNs)
    {
        return read("the first trade since " + fromNs, () ->
        {
            final long last = tradeId(lastTradeIdQuery);
            long low = last == 0 ? 1 : tradeId(firstTradeIdQuery);
            long high = last + 1;
            // The lowest id whose first trade at or after it is at or after the time; high when there is none.
            while (low < high)
            {
                final long middle = low + (high - low) / 2;
                firstTradeFromQuery.setLong(1, middle);
                final boolean before;
                try (ResultSet rows = firstTradeFromQuery.executeQuery())
                {
                    before = rows.next() && rows.getLong(2) < fromNs;
                }
                if (before)
                {
                    low = middle + 1;
                }
                else
                {
                    high = middle;
                }
            }
            return low;
        });
    }

    /**
     * @return the one id the query reads, 0 when there is none (the table is empty).
     */
    private static long tradeId(final PreparedStatement query) throws SQLException
    {
        try (ResultSet rows = query.executeQuery())
        {
            return rows.next() ? rows.getLong(1) : 0;
        }
    }

    /**
     * Trades of all accounts with ids in [fromTradeId, beforeTradeId), in id order, at most {@code limit}: the HTTP
     * gateway reads a day of them in parts, so that other queries wait for one part at most.
     *
     * @return how many were read.
     */
    public synchronized int trades(
        final long fromTradeId, final long beforeTradeId, final int limit, final TradeVisitor visitor)
    {
        return read("trades from " + fromTradeId, () ->
        {
            tradesFromQuery.setLong(1, fromTradeId);
            tradesFromQuery.setLong(2, beforeTradeId);
            tradesFromQuery.setInt(3, limit);
            int count = 0;
            try (ResultSet rows = tradesFromQuery.executeQuery())
            {
                while (rows.next())
                {
                    visitor.onTrade(rows.getLong(1), rows.getInt(2), rows.getLong(3), rows.getLong(4), rows.getLong(5));
                    count++;
                }
            }
            return count;
        });
    }

    /**
     * Reads the hours of {@link #hourlyCandles}.
     */
    public interface HourVisitor
    {
        /**
         * @param quoteVolume price times quantity summed, in units of the price's and the quantity's scales together.
         */
        void onHour(long startNs, long open, long high, long low, long close, long volume, BigInteger quoteVolume,
            long trades, long firstTradeId, long lastTradeId);
    }

    /**
     * An instrument's closed hours with a trade that start in [fromNs, toNs), in time order: the hour being traded
     * has no row yet (it is written once the log's time has passed its end).
     */
    public synchronized void hourlyCandles(
        final int instrumentId, final long fromNs, final long toNs, final HourVisitor visitor)
    {
        read("hourly candles of instrument " + instrumentId, () ->
        {
            hourlyCandlesQuery.setInt(1, instrumentId);
            hourlyCandlesQuery.setLong(2, fromNs);
            hourlyCandlesQuery.setLong(3, toNs);
            try (ResultSet rows = hourlyCandlesQuery.executeQuery())
            {
                while (rows.next())
                {
                    visitor.onHour(rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4), rows.getLong(5),
                        rows.getLong(6), new BigInteger(rows.getString(7)), rows.getLong(8), rows.getLong(9),
                        rows.getLong(10));
                }
            }
            return null;
        });
    }

    /**
     * The one order a statement of two parameters finds, or null.
     *
     * @param query the statement, as prepared on the connection this call uses (see {@link #pageOf}).
     */
    private Order oneOrder(final Supplier<PreparedStatement> query, final long first, final long second,
        final String what)
    {
        return read(what, () ->
        {
            final PreparedStatement statement = query.get();
            statement.setLong(1, first);
            statement.setLong(2, second);
            final Order order;
            try (ResultSet rows = statement.executeQuery())
            {
                order = rows.next() ? order(rows) : null;
            }
            return order;
        });
    }

    private static Order order(final ResultSet rows) throws SQLException
    {
        final boolean postOnly = rows.getBoolean(18);
        final Boolean keptPostOnly = rows.wasNull() ? null : postOnly;
        return new Order(rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getInt(4), rows.getString(5),
            rows.getString(6), rows.getString(7), rows.getLong(8), rows.getLong(9), rows.getLong(10), rows.getLong(11),
            rows.getLong(12), rows.getString(13), rows.getLong(14), rows.getLong(15), rows.getString(16),
            rows.getLong(17), keptPostOnly, rows.getString(19), rows.getLong(20), rows.getLong(21), rows.getLong(22));
    }

    /**
     * Bind the account, the time range and the cursor: the range's upper bound is brought down to the cursor's time,
     * so that the index seek starts at the cursor rather than at the newest row.
     *
     * @return the next parameter index.
     */
    private static int bindRange(
        final PreparedStatement query, final int first, final long accountId, final long fromNs, final long toNs,
        final Cursor after) throws SQLException
    {
        int i = first;
        query.setLong(i++, accountId);
        query.setLong(i++, fromNs);
        query.setLong(i++, after == null ? toNs : Math.min(toNs, after.timeNs() + 1));
        query.setLong(i++, after == null ? Long.MAX_VALUE : after.timeNs());
        query.setLong(i++, after == null ? Long.MAX_VALUE : after.id());
        return i;
    }

    private static <T> Page<T> page(final List<T> rows, final int limit, final Cursor nextCursor)
    {
        return new Page<>(List.copyOf(rows.size() > limit ? rows.subList(0, limit) : rows), nextCursor);
    }

    private static void checkPage(final long fromNs, final long toNs, final Cursor after, final int limit)
    {
        if (limit < 1 || limit > MAX_PAGE_SIZE)
        {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_PAGE_SIZE + ", not " + limit);
        }
        if (fromNs < 0 || toNs <= fromNs)
        {
            throw new IllegalArgumentException("time range [" + fromNs + ", " + toNs + ") is empty or negative");
        }
        if (after != null && (after.timeNs() < 0 || after.timeNs() == Long.MAX_VALUE || after.id() < 1))
        {
            throw new IllegalArgumentException("cursor is not a row's time and id: " + after);
        }
    }

    public synchronized void close()
    {
        if (database != null)
        {
            disconnect();
        }
    }
}
