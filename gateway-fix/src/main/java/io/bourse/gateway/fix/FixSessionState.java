package io.bourse.gateway.fix;

import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.collections.LongArrayQueue;
import uk.co.real_logic.artio.builder.Encoder;
import uk.co.real_logic.artio.messages.SessionState;
import uk.co.real_logic.artio.session.Session;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A configured session's live state: its Artio session while logged on, its open orders by ClOrdID and those closed
 * most recently, the ClOrdIDs it used most recently (so that a PossDup resend is not executed twice), the reports
 * held for it while it is away, and the last event batch it was sent a report from (kept across restarts).
 */
final class FixSessionState
{
    /**
     * How many closed orders a session's cancels, replaces and status requests still find: about 0.5 MB a session.
     */
    static final int RECENTLY_CLOSED_CAPACITY = 1_000;
    final FixSessionSpec spec;
    final char[] accountChars;
    final Long2ObjectHashMap<FixOrder> openOrdersByClOrdId = new Long2ObjectHashMap<>();
    /**
     * Its orders closed most recently (filled, canceled, expired), by the ClOrdID they last had, and in a ring, oldest
     * first: a cancel or replace crossing a fill or a cancel on the wire is answered "too late" with the order's final
     * state, and a status request with that state, rather than as about an unknown order. Bounded: orders live on only
     * as long as the ring holds them.
     */
    private final Long2ObjectHashMap<FixOrder> recentlyClosedByClOrdId = new Long2ObjectHashMap<>();
    private final FixOrder[] recentlyClosed = new FixOrder[RECENTLY_CLOSED_CAPACITY];
    private int nextClosed;
    /**
     * The same orders kept in a file by the gateway, so that a restarted gateway still finds them.
     */
    final RecentlyClosedOrders closedOrdersKept = new RecentlyClosedOrders(RECENTLY_CLOSED_CAPACITY);
    /**
     * The ClOrdIDs it used most recently, so that a PossDup resend of an order already taken is not executed twice,
     * kept in a file by the gateway.
     */
    final RecentClOrdIds usedClOrdIds = new RecentClOrdIds();
    /**
     * The limit on the session's application messages: its own, or the gateway's.
     */
    final FixRateLimit rateLimit;
    /**
     * The session's token bucket of {@link #rateLimit}: tokens left when last counted, and when that was.
     */
    double rateTokens;
    long rateCountedNs;
    boolean rateCounted;
    /**
     * Messages for the session that Artio has not taken yet, oldest first: ExecutionReports of its orders made while
     * it was not logged on (fills of resting orders, the cancels of cancel-on-disconnect, expiries) and the gateway's
     * answers meanwhile, and whatever came while Artio's stream to its framer had no room. Sent, in order, as soon as
     * it is logged on and Artio takes them.
     */
    final ArrayDeque<Encoder> heldMessages = new ArrayDeque<>();
    /**
     * The batch sequence each held message was made from (-1 when made outside a batch) and its key within the batch
     * (see {@link #wasSent}), two values per message, in step with {@link #heldMessages}: what the session has been
     * sent once it is.
     */
    final LongArrayQueue heldBatches = new LongArrayQueue(Long.MIN_VALUE);
    /**
     * Orders closed while reports were held for the session: their CLOSED records wait until the reports are sent,
     * so that a gateway restarted meanwhile still knows the orders when the replay makes their reports again.
     */
    final LongArrayList closedWhileHeld = new LongArrayList();
    /**
     * Likewise the REPLACE_DONE records of replaces answered while reports were held for the session (by their engine
     * client order ids): a gateway restarted before the answers were sent makes them again from the replay.
     */
    final LongArrayList replacesDoneWhileHeld = new LongArrayList();
    /**
     * Likewise the NOT_ACCEPTED records of pending orders refused while reports were held for the session (by their
     * engine client order ids): a gateway restarted before the refusals were sent refuses them again.
     */
    final LongArrayList notAcceptedWhileHeld = new LongArrayList();
    /**
     * While reports are held: the batch before the one the first of them was made from, where a restarted gateway's
     * replay of the cluster's events must begin for them to be made again (they live in memory only); -1 otherwise.
     */
    long heldAfterBatchSequence = -1;
    long heldAfterLogPosition;
    /**
     * The last report this session was sent: the batch it was made from and its key within the batch, kept in a file
     * (whose position field holds the key), so that after a restart the replay's reports up to it are not sent again.
     */
    final FixEventPosition delivered;
    long sentBatchSequence;
    long sentKey;
    /**
     * The last inbound message the gateway handled in order (acted on, or seen answered by Artio): its sequence index
     * and MsgSeqNum, kept in a file. Artio counts a message as received when its engine has it, before the gateway has
     * handled it, so a gateway killed in between would never act on it, nor the counterparty send it again; with this
     * record a restarted gateway asks for those messages again ({@link #messagesToRequestAgain}).
     */
    final FixEventPosition handled;
    private boolean handledRecorded;
    private int handledSequenceIndex;
    private int handledMsgSeqNum;
    /**
     * The highest MsgSeqNum handed to Artio to send, with its sequence index, kept in a file
     * ({@link OutboundSequenceNumbers}).
     */
    final OutboundSequenceNumbers.Numbers outbound;
    /**
     * Cancel-on-disconnect of single orders in progress: the open orders whose cancel is not yet sent (the client's
     * buffer of unanswered commands can fill part way through a large session's orders).
     */
    final ArrayDeque<FixOrder> ordersToCancelOnDisconnect = new ArrayDeque<>();
    boolean cancelingOnDisconnect;
    /**
     * Logged out by the gateway at the end of day: its disconnect does not cancel its orders.
     */
    boolean loggedOutForEndOfDay;
    /**
     * An end of day came while it was logged on: its trading day turns ({@link #newTradingDay}) once it is logged out.
     */
    boolean newTradingDayDue;
    Session session;
    /**
     * The Artio session id and sequence index it had when last logged on (0 before its first logon in this run): what
     * names an answer the gateway makes itself once the session has gone away.
     */
    long lastSessionId;
    int lastSequenceIndex;
    long cancelOnDisconnectDeadlineNs = Long.MAX_VALUE;
    /**
     * Whether the session's cancel-on-disconnect is owed: it logged on with one, and its cancels have not all been sent
     * and answered since (nor was it logged out for the end of day, whose orders stay). Kept in a file when given one
     * ({@link #keepCancelOnDisconnectOwedIn}), so that a gateway that stops or crashes while the session is logged on
     * still owes it when it starts again.
     */
    private boolean cancelOnDisconnectOwed;
    private FixEventPosition cancelOnDisconnectOwedRecord;
    /**
     * Cancels of its cancel-on-disconnect sent and not yet answered.
     */
    int cancelsOnDisconnectUnanswered;

    /**
     * Take a token of the session's rate limit for an application message, now.
     *
     * @return false when it has none left (the message is refused if it is one that can be).
     */
    boolean takeRateToken()
    {
        return rateLimit.take(this);
    }

    /**
     * @param gatewayRateLimit the gateway's rate limit, the session's unless its spec has one of its own.
     */
    FixSessionState(
        final FixSessionSpec spec,
        final FixRateLimit gatewayRateLimit,
        final FixEventPosition delivered,
        final FixEventPosition handled,
        final FixEventPosition outbound)
    {
        this.outbound = new OutboundSequenceNumbers.Numbers(outbound);
        this.spec = spec;
        this.rateLimit = spec.rateLimit() == null ? gatewayRateLimit : FixRateLimit.of(spec.rateLimit());
        this.accountChars = Long.toString(spec.accountId()).toCharArray();
        this.delivered = delivered;
        this.sentBatchSequence = delivered.batchSequence();
        this.sentKey = delivered.logPosition();
        this.handled = handled;
        this.handledRecorded = handled.isRecorded();
        this.handledSequenceIndex = (int)handled.batchSequence();
        this.handledMsgSeqNum = (int)handled.logPosition();
    }

    /**
     * An inbound message was handled. Only the next message in order moves the record (or the first valid one of a new
     * sequence index): one that Artio took out of order, such as a message beyond a gap it asked to be resent, is
     * flagged invalid and comes again in order with the resend. A message in order that Artio refused with a Reject
     * while the session stayed logged on was counted and answered, so it moves the record too; one it flagged while
     * logging the session out was not acted on, and is asked for again at the next logon.
     *
     * @param isValid       whether Artio passed the message as valid.
     * @param isRejected    whether Artio flagged it invalid and answered it with a Reject, the session staying active.
     * @param sequenceIndex Artio's sequence index of the message.
     * @param msgSeqNum     the message's MsgSeqNum.
     * @param newSeqNo      a SequenceReset's NewSeqNo (the next number the counterparty sends), 0 for other messages.
     * @param isGapFill     whether a SequenceReset is a gap fill (only in order) rather than a reset (moves the record
     *                      wherever it comes).
     */
    void onHandled(
        final boolean isValid,
        final boolean isRejected,
        final int sequenceIndex,
        final int msgSeqNum,
        final int newSeqNo,
        final boolean isGapFill)
    {
        final int last;
        if (!handledRecorded || sequenceIndex != handledSequenceIndex)
        {
            if (!isValid)
            {
                return;
            }
            last = newSeqNo > 0 ? newSeqNo - 1 : msgSeqNum;
        }
        else if (newSeqNo > 0 && !isGapFill && isValid)
        {
            last = newSeqNo - 1;
        }
        else if (msgSeqNum == handledMsgSeqNum + 1 && (isValid || isRejected))
        {
            last = newSeqNo > 0 ? newSeqNo - 1 : msgSeqNum;
        }
        else
        {
            return;
        }
        handledRecorded = true;
        handledSequenceIndex = sequenceIndex;
        handledMsgSeqNum = last;
        handled.record(sequenceIndex, last);
    }

    /**
     * @param sequenceIndex         Artio's sequence index of the session as it logs on.
     * @param lastReceivedMsgSeqNum the last MsgSeqNum Artio counts as received.
     * @return the last MsgSeqNum this gateway handled, when Artio counts messages after it in the same sequence index
     * (taken by its engine before a gateway stopped without handling them), or -1 when there are none.
     */
    int messagesToRequestAgain(final int sequenceIndex, final int lastReceivedMsgSeqNum)
    {
        return handledRecorded && sequenceIndex == handledSequenceIndex && handledMsgSeqNum < lastReceivedMsgSeqNum ?
            handledMsgSeqNum : -1;
    }

    /**
     * @param key the report's key within its batch: from the index of the event it was made from and which side of a
     *            trade it reports, in the order a batch's reports are made, so the same each time the batch is
     *            handled (whichever of its reports are made: a replay makes none for the requests of a previous run).
     * @return whether the session was sent this report of a batch before (in this run or the one before a restart).
     */
    boolean wasSent(final long batchSequence, final long key)
    {
        return batchSequence < sentBatchSequence || batchSequence == sentBatchSequence && key <= sentKey;
    }

    /**
     * The session was sent this report of a batch: {@link #wasSent} knows it from now on.
     */
    void sent(final long batchSequence, final long key)
    {
        sentBatchSequence = batchSequence;
        sentKey = key;
    }

    /**
     * Record for a restart that the session was sent this report, once Artio has archived it: Artio resends what it
     * archived, and the restarted gateway leaves it out.
     */
    void recordDelivered(final long batchSequence, final long key)
    {
        delivered.record(batchSequence, key);
    }

    /**
     * Keep whether the session's cancel-on-disconnect is owed in a file, and take what an earlier run left in it.
     */
    void keepCancelOnDisconnectOwedIn(final FixEventPosition record)
    {
        cancelOnDisconnectOwedRecord = record;
        cancelOnDisconnectOwed = record.isRecorded() && record.batchSequence() == 1;
    }

    boolean cancelOnDisconnectOwed()
    {
        return cancelOnDisconnectOwed;
    }

    /**
     * Recorded only when it changes: at a logon, once the cancels are answered, at the end of day.
     */
    void cancelOnDisconnectOwed(final boolean owed)
    {
        if (owed != cancelOnDisconnectOwed)
        {
            cancelOnDisconnectOwed = owed;
            if (cancelOnDisconnectOwedRecord != null)
            {
                cancelOnDisconnectOwedRecord.record(owed ? 1 : 0, 0);
            }
        }
    }

    /**
     * Close the file given to {@link #keepCancelOnDisconnectOwedIn}, if any.
     */
    void closeCancelOnDisconnectOwedRecord()
    {
        if (cancelOnDisconnectOwedRecord != null)
        {
            cancelOnDisconnectOwedRecord.close();
        }
    }

    /**
     * The name of the file that keeps a session's last batch, from its SenderCompID: letters, digits, '-' and '_'
     * as they are, any other character as '%' and its four hex digits.
     */
    static String deliveredFileName(final String senderCompId)
    {
        return fileName(senderCompId, "-delivered.dat");
    }

    /**
     * The name of the file that keeps a session's last inbound message handled (see {@link #deliveredFileName}).
     */
    static String handledFileName(final String senderCompId)
    {
        return fileName(senderCompId, "-handled.dat");
    }

    /**
     * The name of the file that keeps the highest MsgSeqNum handed to Artio to send on a session (see
     * {@link #deliveredFileName}).
     */
    static String outboundFileName(final String senderCompId)
    {
        return fileName(senderCompId, "-outbound.dat");
    }

    /**
     * The name of the file that keeps whether a session's cancel-on-disconnect is owed (see
     * {@link #deliveredFileName}).
     */
    static String cancelOnDisconnectFileName(final String senderCompId)
    {
        return fileName(senderCompId, "-cancel-on-disconnect.dat");
    }

    /**
     * The name of the file that keeps the ClOrdIDs a session used most recently (see {@link RecentClOrdIds#keepIn}).
     */
    static String clOrdIdsFileName(final String senderCompId)
    {
        return fileName(senderCompId, "-clordids.dat");
    }

    /**
     * The name of the file that keeps a session's recently closed orders (see {@link RecentlyClosedOrders}).
     */
    static String closedOrdersFileName(final String senderCompId)
    {
        return fileName(senderCompId, "-closed.dat");
    }

    private static String fileName(final String senderCompId, final String suffix)
    {
        final StringBuilder name = new StringBuilder("session-");
        for (int i = 0; i < senderCompId.length(); i++)
        {
            final char c = senderCompId.charAt(i);
            if (c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_'))
            {
                name.append(c);
            }
            else
            {
                name.append('%').append(String.format("%04x", (int)c));
            }
        }
        return name.append(suffix).toString();
    }

    FixOrder findOpen(final char[] clOrdId, final int length)
    {
        final FixOrder order = openOrdersByClOrdId.get(FixOrder.hash(clOrdId, length));
        return order != null && order.clOrdIdEquals(clOrdId, length) ? order : null;
    }

    /**
     * An order of the session the exchange accepted has closed: found by {@link #findRecentlyClosed} until
     * {@link #RECENTLY_CLOSED_CAPACITY} more have.
     */
    void closed(final FixOrder order)
    {
        // An order whose close the file holds from before a restart, replayed: kept once, or every restart while its
        // CLOSED record waits (a session away) would add a copy and push out other orders.
        final FixOrder kept = recentlyClosedByClOrdId.get(order.clOrdIdHash);
        final boolean alreadyKept = kept != null && kept.orderId == order.orderId;
        restoredClosed(order);
        if (!alreadyKept)
        {
            closedOrdersKept.add(order, spec.senderCompId());
        }
    }

    /**
     * An order that had closed before the gateway restarted, as {@link #closedOrdersKept} read it back.
     */
    void restoredClosed(final FixOrder order)
    {
        final FixOrder oldest = recentlyClosed[nextClosed];
        if (oldest != null && recentlyClosedByClOrdId.get(oldest.clOrdIdHash) == oldest)
        {
            recentlyClosedByClOrdId.remove(oldest.clOrdIdHash);
        }
        recentlyClosed[nextClosed] = order;
        nextClosed = (nextClosed + 1) % recentlyClosed.length;
        recentlyClosedByClOrdId.put(order.clOrdIdHash, order);
    }

    /**
     * The end of day: ClOrdIDs need be unique only within a trading day, so the next day's may be those of this one.
     */
    void newTradingDay(final long nowMs)
    {
        newTradingDayDue = false;
        usedClOrdIds.clear(nowMs);
        closedOrdersKept.clear(nowMs);
        recentlyClosedByClOrdId.clear();
        Arrays.fill(recentlyClosed, null);
        nextClosed = 0;
    }

    FixOrder findRecentlyClosed(final char[] clOrdId, final int length)
    {
        final FixOrder order = recentlyClosedByClOrdId.get(FixOrder.hash(clOrdId, length));
        return order != null && order.clOrdIdEquals(clOrdId, length) ? order : null;
    }

    /**
     * A search of every order kept, for the rare question of an order known by its id only (a restore): the newest
     * close of that order, or null.
     */
    FixOrder findRecentlyClosed(final long orderId)
    {
        for (int i = 1; i <= recentlyClosed.length; i++)
        {
            final FixOrder order = recentlyClosed[(nextClosed - i + recentlyClosed.length) % recentlyClosed.length];
            if (order != null && order.orderId == orderId)
            {
                return order;
            }
        }
        return null;
    }

    boolean isLoggedOn()
    {
        return session != null && session.isConnected();
    }

    /**
     * @return whether a message handed to Artio now goes out on the session's connection: only once its Logon has
     * been answered. Artio numbers and archives a message sent before (the session connected, its Logon not yet
     * handled) or while logging out, without writing it to the socket: the client would only get it by asking for a
     * resend. Until then the gateway holds it.
     */
    boolean canSend()
    {
        return session != null && session.state() == SessionState.ACTIVE;
    }
}
