package io.bourse.engine;

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

/**
 * The engine's output: every state change is reported through exactly one of these callbacks, in the order
 * of the message sequences documented at the top of the SBE schema. Arguments are primitives and enums so
 * that reporting allocates nothing; an implementation must not keep references between calls.
 */
public interface EngineListener
{
    void onCommandRejected(
        CommandType commandType, RejectReason reason, long accountId, long orderId, long clientOrderId,
        int instrumentId, long timestampNs);

    /**
     * @param selfTradePrevention the mode the order trades under, never {@code ACCOUNT_DEFAULT}.
     * @param expiryTimeNs        a GTD order's expiry; 0 for any other.
     * @param stopPrice           a stop order's trigger (the order waits off the book); 0 for any other.
     */
    void onOrderAccepted(
        long orderId, long clientOrderId, long accountId, int instrumentId, Side side, OrderType orderType,
        TimeInForce timeInForce, long price, long quantity, long quoteAmount, boolean postOnly,
        SelfTradePrevention selfTradePrevention, long expiryTimeNs, long stopPrice, long timestampNs);

    /**
     * A stop order's stop price was reached: the order enters the market now, and the events of its trading follow.
     *
     * @param price        a stop limit order's limit price; 0 for a stop market order.
     * @param triggerPrice the trade price that reached the stop price: the command's highest trade price for a buy
     *                     stop, its lowest for a sell stop.
     */
    void onOrderTriggered(
        long orderId, long clientOrderId, long accountId, int instrumentId, Side side, OrderType orderType, long price,
        long quantity, long stopPrice, long triggerPrice, long timestampNs);

    void onTrade(
        long tradeId, int instrumentId, long price, long quantity, Side takerSide,
        long makerOrderId, long makerClientOrderId, long makerAccountId,
        long makerFilledQuantity, long makerRemainingQuantity, long makerExecutedNotional, long makerFee,
        long takerOrderId, long takerClientOrderId, long takerAccountId,
        long takerFilledQuantity, long takerRemainingQuantity, long takerExecutedNotional, long takerFee,
        long timestampNs);

    void onOrderCanceled(
        long orderId, long clientOrderId, long accountId, int instrumentId, Side side, long price, long quantity,
        long filledQuantity, long executedNotional, CancelReason reason, long timestampNs);

    /**
     * @param priorityKept an untriggered stop order's: whether it keeps its place among the stops (its stop price
     *                     did not change).
     * @param stopPrice    an untriggered stop order's stop price after the replace; 0 for any other order.
     */
    void onOrderReplaced(
        long orderId, long origClientOrderId, long clientOrderId, long accountId, int instrumentId, Side side,
        long price, long quantity, long filledQuantity, boolean priorityKept, long stopPrice, long timestampNs);

    void onOrderRestated(
        long orderId, long clientOrderId, long accountId, int instrumentId, Side side, long price, long quantity,
        long filledQuantity, long timestampNs);

    void onOrderExpired(
        long orderId, long clientOrderId, long accountId, int instrumentId, Side side, long price, long quantity,
        long filledQuantity, long executedNotional, long timestampNs);

    /**
     * @param orderType MARKET only for an untriggered stop market order.
     * @param stopPrice an untriggered stop order's; 0 for any other order.
     */
    void onOrderStatus(
        long orderId, long clientOrderId, long accountId, int instrumentId, Side side, TimeInForce timeInForce,
        OrderStatus status, long price, long quantity, long filledQuantity, long executedNotional, long expiryTimeNs,
        OrderType orderType, long stopPrice, long timestampNs);

    void onBookLevelChanged(int instrumentId, Side side, long price, long quantity, int orderCount, long timestampNs);

    void onBalanceChanged(
        long accountId, int assetId, long available, long reserved, BalanceChangeReason reason, long timestampNs);

    void onTransferProcessed(
        long transactionId, long accountId, int assetId, long amount, TransferDirection direction, boolean applied,
        long timestampNs);

    void onMassCancelCompleted(long accountId, int instrumentId, Side side, int canceledCount, long timestampNs);

    void onAssetDefined(int assetId, int scale, String symbol, long timestampNs);

    void onInstrumentDefined(
        int instrumentId, String symbol, int baseAssetId, int quoteAssetId, int priceScale, long tickSize,
        int quantityScale, long lotSize, long minQuantity, long maxQuantity, int priceBandBps, long referencePrice,
        int makerFeePpm, int takerFeePpm, TradingState tradingState, long timestampNs);

    void onTradingStateChanged(int instrumentId, TradingState tradingState, long timestampNs);

    void onAccountLimitsChanged(
        long accountId, long maxOrderQuantity, long maxOrderNotional, int maxOpenOrders,
        SelfTradePrevention defaultSelfTradePrevention, long timestampNs);

    void onKillSwitchChanged(long accountId, boolean active, long timestampNs);

    /**
     * @param makerFeePpm the account's own rate, or -1 for each instrument's.
     * @param takerFeePpm likewise.
     */
    void onAccountFeesChanged(long accountId, int makerFeePpm, int takerFeePpm, long timestampNs);

    /**
     * An account's cancel-all-after switch was armed, disarmed (timeout and deadline 0) or triggered.
     *
     * @param timeoutMs     the timeout it was armed with.
     * @param deadlineNs    when it triggers, or when it was due if it triggered.
     * @param triggered     whether its deadline passed: the account's orders were canceled and the switch disarmed.
     * @param canceledCount how many orders it canceled when it triggered.
     */
    void onCancelAllAfterChanged(
        long accountId, long timeoutMs, long deadlineNs, boolean triggered, int canceledCount, long timestampNs);
}
