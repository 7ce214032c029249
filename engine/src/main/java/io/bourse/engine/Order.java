package io.bourse.engine;

import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;

/**
 * An order inside the engine: pooled and re-used, never exposed outside the package.
 * <p>
 * Fields are laid out to keep a resting order small (the memory budget is per resting order), so the
 * book links live here too and are owned by whichever {@link OrderBook} holds the order.
 */
final class Order
{
    long orderId;
    long clientOrderId;
    long price;
    /** Total quantity, filled part included; 0 for a market buy by quote amount. */
    long quantity;
    long filledQuantity;
    /** Sum of price × quantity of the fills, in quote minor units. */
    long executedNotional;
    long expiryTimeNs;
    /** A stop order's trigger until it triggers; 0 for any other order and once triggered. */
    long stopPrice;
    /** A market buy's by quote amount: what it may spend, fees included; 0 otherwise. */
    long quoteAmount;
    /**
     * When the order was accepted and when its terms or fills last changed (cluster time). What a user is shown of
     * it; not part of the state hash, since snapshots before format 3 do not carry them.
     */
    long createdNs;
    long updatedNs;
    Account account;
    Instrument instrument;
    Side side;
    TimeInForce timeInForce;
    /** Resolved mode: never {@link SelfTradePrevention#ACCOUNT_DEFAULT}. */
    SelfTradePrevention selfTradePrevention;
    /**
     * A buy's: the fee rate its reservation was computed with, which its fees never exceed. 0 for a sell, which pays the
     * rate in force from its proceeds.
     */
    int feeReservePpm;
    int expiryIndex = -1;
    boolean postOnly;
    /** A market order: held open only as an untriggered stop. */
    boolean market;

    Order prev;
    Order next;
    PriceLevel level;

    long remainingQuantity()
    {
        return quantity - filledQuantity;
    }

    boolean isUntriggeredStop()
    {
        return stopPrice != 0;
    }

    boolean isBuy()
    {
        return side == Side.BUY;
    }

    /**
     * @return whether a GTD order's expiry has come, whether or not the expiry sweep has retired it yet.
     */
    boolean isDue(final long nowNs)
    {
        return timeInForce == TimeInForce.GTD && expiryTimeNs <= nowNs;
    }

    void clear()
    {
        account = null;
        instrument = null;
        prev = null;
        next = null;
        level = null;
        expiryIndex = -1;
    }
}
