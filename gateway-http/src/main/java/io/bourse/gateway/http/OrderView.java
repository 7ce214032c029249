package io.bourse.gateway.http;

/**
 * An order as the event stream describes it; owned by the gateway thread.
 */
final class OrderView
{
    long orderId;
    long clientOrderId;
    long accountId;
    int instrumentId;
    String side;
    String type;
    String timeInForce;
    long price;
    long quantity;
    long quoteAmount;
    /**
     * Post only, and the mode the order trades under: null when a node older than schema version 1 did not say.
     */
    Boolean postOnly;
    String selfTradePrevention;
    /**
     * A GTD order's expiry; 0 for any other.
     */
    long expiryNs;
    /**
     * A stop order's stop price (kept once it has triggered), 0 for any other order; {@link #triggeredNs} says when it
     * triggered, 0 while it waits off the book.
     */
    long stopPrice;
    long triggeredNs;
    long filledQuantity;
    long executedNotional;
    String status;
    String cancelReason;
    long createdNs;
    long updatedNs;
    /**
     * The gateway's last publication of event batches that sent this order to its subscribers.
     */
    long publication;

    boolean isOpen()
    {
        return isOpen(status);
    }

    /**
     * @return whether an order in that status (as the API and the store name it) is open.
     */
    static boolean isOpen(final String status)
    {
        return "NEW".equals(status) || "PARTIALLY_FILLED".equals(status);
    }
}
