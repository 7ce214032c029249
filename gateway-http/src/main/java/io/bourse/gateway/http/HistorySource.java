package io.bourse.gateway.http;

import java.math.BigInteger;
import java.util.List;

/**
 * Where the history endpoints ({@code /api/v1/history/trades}, {@code /orders}, {@code /transfers}) read an
 * account's past trades, orders, deposits and withdrawals, and where the ticker and the candles read the trades and
 * hours of trades the gateway did not see: the post-trade store's database, adapted by whoever starts the gateway. The gateway calls it from a worker thread (never an event loop or the gateway thread), because a
 * database query blocks.
 * <p>
 * Rows come newest first, by time and then id. Paging is by cursor: the time and id of the last row of the previous
 * page, null for the first page. Times are the cluster's timestamps in epoch nanoseconds; the range is [fromNs, toNs).
 */
public interface HistorySource
{
    /**
     * Most rows one page may hold.
     */
    int MAX_LIMIT = 1000;

    /**
     * One trade as the asking account saw it.
     *
     * @param side      the account's side: BUY or SELL.
     * @param liquidity MAKER or TAKER.
     * @param fee       the fee the account paid, in quote minor units.
     */
    record Trade(long tradeId, int instrumentId, long orderId, String side, String liquidity, long price,
        long quantity, long fee, long timestampNs)
    {
    }

    /**
     * An order in its current or final state, in engine units.
     *
     * @param cancelReason        how it was canceled (the engine's CancelReason) when it was, else null.
     * @param quoteAmount         a market buy's amount of quote to spend; 0 for an order sized in base.
     * @param postOnly            whether it was post only; null, as is the mode, when the source did not keep it.
     * @param selfTradePrevention the mode it traded under (the engine's SelfTradePrevention), or null.
     * @param expiryNs            a GTD order's expiry, else 0.
     */
    record Order(long orderId, long clientOrderId, int instrumentId, String side, String type, String timeInForce,
        long price, long quantity, long filledQuantity, long executedNotional, String status,
        long createdNs, long updatedNs, String cancelReason, long quoteAmount, Boolean postOnly,
        String selfTradePrevention, long expiryNs, long stopPrice, long triggeredNs)
    {
    }

    /**
     * A deposit or withdrawal applied to the account, in engine units.
     *
     * @param transactionId the id the operator gave it.
     * @param direction     DEPOSIT or WITHDRAWAL.
     * @param amount        in the asset's minor units, positive.
     */
    record Transfer(long transferId, long transactionId, int assetId, String direction, long amount, long timestampNs)
    {
    }

    /**
     * Where a page ended: the time and id of its last (oldest) row.
     */
    record Cursor(long timeNs, long id)
    {
    }

    /**
     * A page of rows, newest first.
     *
     * @param nextCursor the cursor of the next (older) page, or null when this is the last one.
     */
    record Page<T>(List<T> rows, Cursor nextCursor)
    {
    }

    /**
     * An account's trades with a time in [fromNs, toNs), after the cursor (from the newest when null).
     *
     * @param limit 1 to {@link #MAX_LIMIT}.
     */
    Page<Trade> trades(long accountId, long fromNs, long toNs, Cursor after, int limit);

    /**
     * An account's orders created in [fromNs, toNs), after the cursor (from the newest when null).
     *
     * @param limit 1 to {@link #MAX_LIMIT}.
     */
    Page<Order> orders(long accountId, long fromNs, long toNs, Cursor after, int limit);

    /**
     * An account's deposits and withdrawals with a time in [fromNs, toNs), after the cursor (from the newest when null).
     *
     * @param limit 1 to {@link #MAX_LIMIT}.
     */
    Page<Transfer> transfers(long accountId, long fromNs, long toNs, Cursor after, int limit);

    /**
     * One of an account's orders by its id.
     *
     * @return the order in its current or final state, or null when the account has no such order in the store (or
     * the source does not look orders up by id).
     */
    default Order order(final long accountId, final long orderId)
    {
        return null;
    }

    /**
     * An account's order by the id its client gave it: the open one with it, else the newest, since a client order id
     * is unique among an account's open orders only.
     *
     * @return the order in its current or final state, or null when the account has no such order in the store (or
     * the source does not look orders up by client order id).
     */
    default Order orderByClientOrderId(final long accountId, final long clientOrderId)
    {
        return null;
    }

    /**
     * Reads the trades of {@link #trades}.
     */
    interface TradeVisitor
    {
        void onTrade(long tradeId, int instrumentId, long price, long quantity, long timestampNs);
    }

    /**
     * @return the highest trade id the source holds (trade ids are the engine's, 1, 2, 3 and so on: it holds every
     * trade up to it), 0 when none, or -1 when the source does not list trades (the default).
     */
    default long lastTradeId()
    {
        return -1;
    }

    /**
     * @return the lowest id of the trades with a time at or after {@code fromNs}, or one past the last trade when
     * there is none. Not called when {@link #lastTradeId()} is -1.
     */
    default long firstTradeIdSince(final long fromNs)
    {
        throw new UnsupportedOperationException("this history source does not list trades");
    }

    /**
     * Trades of all accounts with ids in [fromTradeId, beforeTradeId), in id order (the order the exchange made them),
     * at most {@code limit}: for the ticker's day and the candles of the trades the gateway did not see. Not called
     * when {@link #lastTradeId()} is -1.
     *
     * @return how many were read.
     */
    default int trades(final long fromTradeId, final long beforeTradeId, final int limit, final TradeVisitor visitor)
    {
        throw new UnsupportedOperationException("this history source does not list trades");
    }

    /**
     * An instrument's hours of trades, summed: the candles of an hour or more that are older than the gateway's day.
     *
     * @param startMinute the hour's start, in minutes since the epoch.
     */
    record Hour(long startMinute, long open, long high, long low, long close, long volume, BigInteger quoteVolume,
        long trades)
    {
    }

    /**
     * @return whether the source keeps trades by the hour ({@link #hourlyCandles}); false by default.
     */
    default boolean keepsHours()
    {
        return false;
    }

    /**
     * An instrument's closed hours with a trade that start in [fromNs, toNs), in time order; the hour being traded
     * has none yet. Not called when {@link #keepsHours()} is false.
     */
    default List<Hour> hourlyCandles(final int instrumentId, final long fromNs, final long toNs)
    {
        throw new UnsupportedOperationException("this history source does not keep trades by the hour");
    }
}
