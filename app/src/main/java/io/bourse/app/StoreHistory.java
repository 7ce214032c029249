package io.bourse.app;

import io.bourse.gateway.http.HistorySource;
import io.bourse.gateway.http.StoreStatus;
import io.bourse.store.HistoryQueries;
import io.bourse.store.Store;
import io.bourse.store.StoreMetrics;

import java.util.ArrayList;
import java.util.List;

/**
 * The post-trade store as the HTTP gateway sees it: its database's history queries for {@code /api/v1/history/*},
 * orders the gateway no longer holds, the trades and hours of trades for the ticker and candles, and its lag for
 * {@code /metrics} and the monitor. Adapts the store's types to the gateway's, so that neither module
 * depends on the other.
 */
final class StoreHistory implements HistorySource, StoreStatus, AutoCloseable
{
    private final HistoryQueries queries;
    private final StoreMetrics metrics;

    private StoreHistory(final HistoryQueries queries, final StoreMetrics metrics)
    {
        this.queries = queries;
        this.metrics = metrics;
    }

    /**
     * Open a query connection to the store's database (its own, so that requests never wait on the writer's
     * transaction).
     */
    static StoreHistory open(final Store.Context context, final StoreMetrics metrics)
    {
        return new StoreHistory(HistoryQueries.open(context.jdbcUrl(), context.sqliteFile(), context.user(),
            context.password()), metrics);
    }

    public Page<Trade> trades(
        final long accountId, final long fromNs, final long toNs, final Cursor after, final int limit)
    {
        final HistoryQueries.Page<HistoryQueries.Trade> page =
            queries.trades(accountId, fromNs, toNs, cursor(after), limit);
        final List<Trade> rows = page.rows().stream().map(t -> new Trade(t.tradeId(), t.instrumentId(), t.orderId(),
            t.side(), t.liquidity(), t.price(), t.quantity(), t.fee(), t.timestampNs())).toList();
        return new Page<>(rows, cursor(page.nextCursor()));
    }

    public Page<Order> orders(
        final long accountId, final long fromNs, final long toNs, final Cursor after, final int limit)
    {
        final HistoryQueries.Page<HistoryQueries.Order> page =
            queries.orders(accountId, fromNs, toNs, cursor(after), limit);
        final List<Order> rows = page.rows().stream().map(StoreHistory::order).toList();
        return new Page<>(rows, cursor(page.nextCursor()));
    }

    public Page<Transfer> transfers(
        final long accountId, final long fromNs, final long toNs, final Cursor after, final int limit)
    {
        final HistoryQueries.Page<HistoryQueries.Transfer> page =
            queries.transfers(accountId, fromNs, toNs, cursor(after), limit);
        final List<Transfer> rows = page.rows().stream().map(t -> new Transfer(t.transferId(), t.transactionId(),
            t.assetId(), t.direction(), t.amount(), t.timestampNs())).toList();
        return new Page<>(rows, cursor(page.nextCursor()));
    }

    public Order order(final long accountId, final long orderId)
    {
        final HistoryQueries.Order order = queries.order(accountId, orderId);
        return order == null ? null : order(order);
    }

    public Order orderByClientOrderId(final long accountId, final long clientOrderId)
    {
        final HistoryQueries.Order order = queries.orderByClientOrderId(accountId, clientOrderId);
        return order == null ? null : order(order);
    }

    public long lastTradeId()
    {
        return queries.lastTradeId();
    }

    public long firstTradeIdSince(final long fromNs)
    {
        return queries.firstTradeIdSince(fromNs);
    }

    public int trades(final long fromTradeId, final long beforeTradeId, final int limit, final TradeVisitor visitor)
    {
        return queries.trades(fromTradeId, beforeTradeId, limit, visitor::onTrade);
    }

    public boolean keepsHours()
    {
        return true;
    }

    public List<Hour> hourlyCandles(final int instrumentId, final long fromNs, final long toNs)
    {
        final List<Hour> hours = new ArrayList<>();
        queries.hourlyCandles(instrumentId, fromNs, toNs,
            (startNs, open, high, low, close, volume, quoteVolume, trades, firstTradeId, lastTradeId) ->
                hours.add(new Hour(startNs / 60_000_000_000L, open, high, low, close, volume, quoteVolume, trades)));
        return hours;
    }

    private static Order order(final HistoryQueries.Order o)
    {
        return new Order(o.orderId(), o.clientOrderId(), o.instrumentId(), o.side(), o.orderType(), o.timeInForce(),
            o.price(), o.quantity(), o.filledQuantity(), o.executedNotional(), o.status(),
            o.createdNs(), o.updatedNs(), o.cancelReason(), o.quoteAmount(), o.postOnly(), o.selfTradePrevention(),
            o.expiryNs(), o.stopPrice(), o.triggeredNs());
    }

    private static HistoryQueries.Cursor cursor(final Cursor cursor)
    {
        return cursor == null ? null : new HistoryQueries.Cursor(cursor.timeNs(), cursor.id());
    }

    private static Cursor cursor(final HistoryQueries.Cursor cursor)
    {
        return cursor == null ? null : new Cursor(cursor.timeNs(), cursor.id());
    }

    public String state()
    {
        return metrics.state().name();
    }

    public long fenceLogPosition()
    {
        return metrics.fenceLogPosition();
    }

    public long committedLogPosition()
    {
        return metrics.committedLogPosition();
    }

    public long lagBytes()
    {
        return metrics.lagBytes();
    }

    public double lagSeconds()
    {
        return metrics.lagSeconds();
    }

    public long stateHashesAgreed()
    {
        return metrics.stateHashesAgreed();
    }

    public long stateHashesDiverged()
    {
        return metrics.stateHashesDiverged();
    }

    public void close()
    {
        queries.close();
    }
}
