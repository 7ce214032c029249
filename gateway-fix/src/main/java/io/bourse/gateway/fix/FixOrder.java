package io.bourse.gateway.fix;

/**
 * What the gateway keeps of an order one of its sessions entered: the FIX identifiers the engine does not know
 * (ClOrdID strings), the engine identifiers, and what an ExecutionReport repeats. Re-used from a pool.
 */
final class FixOrder
{
    static final int MAX_ID_LENGTH = 64;

    final char[] clOrdId = new char[MAX_ID_LENGTH];
    int clOrdIdLength;
    final char[] origClOrdId = new char[MAX_ID_LENGTH];
    int origClOrdIdLength;
    long clOrdIdHash;

    FixSessionState session;
    long orderId;
    long engineClientOrderId;
    long accountId;
    FixInstrument instrument;
    char side;
    char ordType;
    /**
     * Its TimeInForce (59) as FIX spells it, the default resolved; 0 for an order recorded by a gateway that did not
     * keep it, whose reports then leave the field out.
     */
    char timeInForce;
    /**
     * Whether it was entered with ExecInst (18) 6, post only.
     */
    boolean postOnly;
    long price;
    /**
     * A stop order's StopPx (99), echoed on its reports; 0 for any other order, and for one recorded by a gateway that
     * did not keep it, until the exchange reports it again.
     */
    long stopPx;
    /**
     * When a GTD or Day order expires, epoch nanoseconds: a GTD order's ExpireTime (126), echoed on its reports, or the
     * gateway's end of day for a Day order. 0 for any other order, and for one recorded by a gateway that did not keep
     * it, until the exchange reports it again.
     */
    long expireTimeNs;
    /**
     * Whether a GTD order was given its expiry as ExpireDate (432), which its reports echo in place of ExpireTime.
     */
    boolean expireByDate;
    /**
     * Whether the exchange has said that the stop order triggered (it is a limit order in the book now, or was a market
     * order): its StopPx cannot change any more.
     */
    boolean triggered;
    long quantity;
    long filledQuantity;
    long executedNotional;
    long receivedNs;
    long commandSentNs;
    /**
     * Whether the order store has a PENDING record of it not yet followed by its acceptance or refusal.
     */
    boolean recordedPending;
    /**
     * A new order the exchange applied whose answer was among batches the cluster no longer holds.
     */
    boolean answerLost;
    /**
     * Whether the engine is to be asked about it, or has been and its answer is still to come: asked once at a time.
     */
    boolean queried;
    /**
     * A cancel or replace of it the exchange applied whose answer is among batches the cluster no longer holds: kept
     * until the engine's answer about the order tells whether it took effect.
     */
    FixGatewayAgent.Pending lostRequest;
    /**
     * A replace sent before a restart that the order's record already carries (its answer was handled, its report
     * perhaps not yet archived): kept until the replayed answer is reported again, or the query about the order
     * shows the replay had none.
     */
    FixGatewayAgent.Pending carriedReplace;
    /**
     * The OrdStatus (39) it closed with, canceled or expired, once the exchange said so; 0 while it is open or was
     * filled (which the quantities show). A cancel or replace of it the exchange then refuses is answered with it.
     */
    char closedStatus;

    void clOrdId(final char[] value, final int length)
    {
        System.arraycopy(value, 0, clOrdId, 0, length);
        clOrdIdLength = length;
        clOrdIdHash = hash(value, length);
    }

    void origClOrdId(final char[] value, final int length)
    {
        System.arraycopy(value, 0, origClOrdId, 0, length);
        origClOrdIdLength = length;
    }

    boolean clOrdIdEquals(final char[] value, final int length)
    {
        return length == clOrdIdLength && java.util.Arrays.equals(clOrdId, 0, length, value, 0, length);
    }

    void reset()
    {
        clOrdIdLength = 0;
        origClOrdIdLength = 0;
        clOrdIdHash = 0;
        session = null;
        orderId = 0;
        engineClientOrderId = 0;
        accountId = 0;
        instrument = null;
        side = 0;
        ordType = 0;
        timeInForce = 0;
        postOnly = false;
        price = 0;
        stopPx = 0;
        expireTimeNs = 0;
        expireByDate = false;
        triggered = false;
        quantity = 0;
        filledQuantity = 0;
        executedNotional = 0;
        receivedNs = 0;
        commandSentNs = 0;
        recordedPending = false;
        answerLost = false;
        queried = false;
        lostRequest = null;
        carriedReplace = null;
        closedStatus = 0;
    }

    /**
     * FNV-1a over the characters: the key of a session's orders by ClOrdID (equality is checked on lookup).
     */
    static long hash(final char[] value, final int length)
    {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < length; i++)
        {
            hash ^= value[i];
            hash *= 0x100000001b3L;
        }
        return hash;
    }
}
