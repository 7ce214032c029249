package io.bourse.store;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.List;

/**
 * One transaction's worth of history: the rows {@link HistoryWriter} built from the engine's events, the fence they
 * bring the database to and, at times, the store's snapshot there. Built on the store's thread, written by
 * {@link BatchCommitter} (on its own thread), then cleared and built again: two of them take turns.
 */
final class HistoryBatch
{
    static final String TRADE_COLUMNS = "trade_id, instrument_id, price, quantity, taker_side, maker_order_id, " +
        "maker_account_id, maker_fee, taker_order_id, taker_account_id, taker_fee, timestamp_ns, log_position, " +
        "settlement_entry_id, base_asset_id, quote_asset_id, " +
        "maker_base_available_delta, maker_base_reserved_delta, maker_base_available, maker_base_reserved, " +
        "maker_quote_available_delta, maker_quote_reserved_delta, maker_quote_available, maker_quote_reserved, " +
        "taker_base_available_delta, taker_base_reserved_delta, taker_base_available, taker_base_reserved, " +
        "taker_quote_available_delta, taker_quote_reserved_delta, taker_quote_available, taker_quote_reserved";
    static final String ORDER_CHANGE_COLUMNS = "event_id, order_id, account_id, kind, client_order_id, price, " +
        "quantity, filled_quantity, reason, timestamp_ns, log_position";
    static final String LEDGER_ENTRY_COLUMNS = "entry_id, account_id, asset_id, reason, available_delta, " +
        "reserved_delta, available, reserved, timestamp_ns, log_position";
    static final String TRANSFER_COLUMNS = "transfer_id, transaction_id, account_id, asset_id, amount, direction, " +
        "applied, timestamp_ns, log_position";

    final RowBuffer trades = new RowBuffer(columnCount(TRADE_COLUMNS));
    final RowBuffer orderChanges = new RowBuffer(columnCount(ORDER_CHANGE_COLUMNS));
    final RowBuffer ledgerEntries = new RowBuffer(columnCount(LEDGER_ENTRY_COLUMNS));
    final RowBuffer transfers = new RowBuffer(columnCount(TRANSFER_COLUMNS));
    /**
     * Rows of {@code candles_1h}: the hours that closed with this batch ({@link HourlyCandles}).
     */
    final RowBuffer candles = new RowBuffer(columnCount(HourlyCandles.COLUMNS));
    /**
     * Every order touched, by order id: its changes within the batch coalesce into one insert or update.
     */
    final Long2ObjectHashMap<OrderRow> orders = new Long2ObjectHashMap<>();
    /**
     * Balances changed: available, reserved, time of the last change.
     */
    final BalanceTable balances = new BalanceTable(3);
    private final List<OrderRow> orderRowPool = new ArrayList<>();

    /**
     * Rows in the batch, orders coalesced.
     */
    int rows;
    int tradeCount;

    long fenceLogPosition;
    long fenceTimestampNs;
    long snapshotLogPosition;
    /**
     * A snapshot taken at the fence, or null to keep the one in the database.
     */
    byte[] engineSnapshot;
    byte[] clientsSnapshot;
    long nextOrderEventId;
    long nextLedgerEntryId;
    long nextTransferId;

    OrderRow order(final long orderId)
    {
        OrderRow row = orders.get(orderId);
        if (row == null)
        {
            row = orderRowPool.isEmpty() ? new OrderRow() : orderRowPool.remove(orderRowPool.size() - 1);
            row.reset(orderId);
            orders.put(orderId, row);
            rows++;
        }
        return row;
    }

    void clear()
    {
        trades.clear();
        orderChanges.clear();
        ledgerEntries.clear();
        transfers.clear();
        candles.clear();
        orderRowPool.addAll(orders.values());
        orders.clear();
        balances.clear();
        rows = 0;
        tradeCount = 0;
        engineSnapshot = null;
        clientsSnapshot = null;
    }

    private static int columnCount(final String columns)
    {
        return columns.split(",").length;
    }

    /**
     * An order's pending row: coalesces every change to it within one batch.
     */
    static final class OrderRow
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
        long quoteAmount;
        boolean postOnly;
        String selfTradePrevention;
        /**
         * 0 for an order without an expiry.
         */
        long expiryNs;
        /**
         * A stop order's stop price, or 0: for a row of an order already written, 0 leaves the stored one.
         */
        long stopPrice;
        /**
         * When a stop order triggered, or 0: for a row of an order already written, 0 leaves the stored one.
         */
        long triggeredNs;
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
         * 0 while the order has no reservation in its row (a market order).
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
            reserveEntryId = 0;
            stopPrice = 0;
            triggeredNs = 0;
        }
    }
}
