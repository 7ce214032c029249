package io.bourse.gateway.fix;

import io.aeron.Publication;
import io.aeron.logbuffer.ControlledFragmentHandler.Action;
import io.bourse.cluster.ClientActivity;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.gateway.fix.codecs.builder.BusinessMessageRejectEncoder;
import io.bourse.gateway.fix.codecs.builder.ExecutionReportEncoder;
import io.bourse.gateway.fix.codecs.builder.OrderCancelRejectEncoder;
import io.bourse.gateway.fix.codecs.builder.OrderMassCancelReportEncoder;
import io.bourse.gateway.fix.codecs.builder.HeaderEncoder;
import io.bourse.gateway.fix.codecs.builder.HeartbeatEncoder;
import io.bourse.gateway.fix.codecs.decoder.EmailDecoder;
import io.bourse.gateway.fix.codecs.decoder.HeaderDecoder;
import io.bourse.gateway.fix.codecs.decoder.NewOrderSingleDecoder;
import io.bourse.gateway.fix.codecs.decoder.OrderCancelReplaceRequestDecoder;
import io.bourse.gateway.fix.codecs.decoder.OrderCancelRequestDecoder;
import io.bourse.gateway.fix.codecs.decoder.OrderMassCancelRequestDecoder;
import io.bourse.gateway.fix.codecs.decoder.OrderMassStatusRequestDecoder;
import io.bourse.gateway.fix.codecs.decoder.OrderStatusRequestDecoder;
import io.bourse.gateway.fix.codecs.decoder.SecurityDefinitionDecoder;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.CommandRejectedDecoder;
import io.bourse.protocol.codec.MassCancelCompletedDecoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.OrderAcceptedDecoder;
import io.bourse.protocol.codec.OrderCanceledDecoder;
import io.bourse.protocol.codec.OrderExpiredDecoder;
import io.bourse.protocol.codec.OrderReplacedDecoder;
import io.bourse.protocol.codec.OrderRestatedDecoder;
import io.bourse.protocol.codec.OrderTriggeredDecoder;
import io.bourse.protocol.codec.OrderStatusReportDecoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradeDecoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.collections.Object2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import uk.co.real_logic.artio.builder.Encoder;
import uk.co.real_logic.artio.fields.EpochFractionFormat;
import uk.co.real_logic.artio.fields.UtcTimestampEncoder;
import uk.co.real_logic.artio.GatewayProcess;
import uk.co.real_logic.artio.library.FixLibrary;
import uk.co.real_logic.artio.library.OnMessageInfo;
import uk.co.real_logic.artio.library.SessionAcquireHandler;
import uk.co.real_logic.artio.library.SessionAcquiredInfo;
import uk.co.real_logic.artio.library.SessionHandler;
import uk.co.real_logic.artio.messages.DisconnectReason;
import uk.co.real_logic.artio.messages.SessionState;
import uk.co.real_logic.artio.session.Session;
import uk.co.real_logic.artio.session.SessionWriter;
import uk.co.real_logic.artio.util.MutableAsciiBuffer;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static io.aeron.logbuffer.ControlledFragmentHandler.Action.CONTINUE;

/**
 * The gateway's duty cycle, on one thread: polls Artio's library (FIX in) and the exchange client (events in),
 * turns FIX application messages into engine commands and engine events into ExecutionReports, and runs the
 * cancel-on-disconnect timers.
 * <p>
 * Identifiers: the engine's clientOrderId of an order is derived from the FIX message that created it (Artio's
 * persistent session id, the session's sequence index and the message's MsgSeqNum), so it is unique per account
 * across restarts without a counter; ExecIDs are the cluster log position of the command plus the event's index in
 * its batch, unique across restarts and fail-overs because the log is; OrderIDs are the engine's order ids.
 */
final class FixGatewayAgent implements Agent, SessionAcquireHandler, SessionHandler, ExchangeClientListener
{
    /**
     * Messages held for one session, at most (reports mostly): about a kilobyte each, this bounds what a session that
     * never comes back costs. Past it the oldest are dropped (and counted); every report carries the order's CumQty
     * and LeavesQty, so the ones that remain still give the orders' current state.
     */
    static final int MAX_HELD_MESSAGES_PER_SESSION = 10_000;
    private static final int MAX_SPARE_REPORT_ENCODERS = 1024;
    private static final byte[] END_OF_DAY_LOGOUT_TEXT =
        "End of day: sequence numbers reset to 1".getBytes(StandardCharsets.US_ASCII);

    private static final int PENDING_NEW = 1;
    private static final int PENDING_CANCEL = 2;
    private static final int PENDING_REPLACE = 3;
    private static final int PENDING_STATUS = 4;
    private static final int PENDING_MASS_CANCEL = 5;
    private static final int PENDING_CANCEL_ON_DISCONNECT = 6;
    private static final int PENDING_RESTORE = 7;
    private static final int PENDING_MASS_STATUS = 8;

    /**
     * Records kept once Artio has archived the reports before them ({@link AfterArchive}): a session's last report
     * delivered (batch, key), an order's CLOSED record (order id), a pending order's not-accepted record (client order
     * id), where a restart's replay resumes (after a batch: its sequence and log position), a replace answered
     * (its client order id), and an open order's record as the order stands then (the order): after a report no
     * replay makes again, or once reports held for its session are sent.
     */
    private static final int DELIVERED = 1;
    private static final int CLOSED = 2;
    private static final int NOT_ACCEPTED = 3;
    private static final int RESUME_AFTER = 4;
    private static final int REPLACE_DONE = 5;
    private static final int OPEN = 6;
    private static final long CLOSE_ARCHIVE_WAIT_NS = TimeUnit.SECONDS.toNanos(2);
    /**
     * Tries to publish one filler Heartbeat before giving up (back-pressure at a logon is brief, if any).
     */
    private static final int FILLER_ATTEMPTS = 10_000;
    private static final int MSG_TYPE_TAG = 35;
    private static final int CL_ORD_ID_TAG = 11;
    private static final int MSG_SEQ_NUM_TAG = 34;
    private static final int NEW_SEQ_NO_TAG = 36;
    private static final int GAP_FILL_FLAG_TAG = 123;
    private static final long SEQUENCE_RESET_MESSAGE_TYPE = '4';
    /**
     * How soon cancel-on-disconnect tries again when the client's buffer of unanswered commands was full.
     */
    private static final long CANCEL_ON_DISCONNECT_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final char ORD_TYPE_STOP = '3';
    private static final char ORD_TYPE_STOP_LIMIT = '4';
    private static final char EXEC_NEW = '0';
    private static final char EXEC_CANCELED = '4';
    private static final char EXEC_REPLACED = '5';
    private static final char EXEC_REJECTED = '8';
    private static final char EXEC_EXPIRED = 'C';
    private static final char EXEC_RESTATED = 'D';
    private static final char EXEC_TRADE = 'F';
    /**
     * CommType (13) of a fill's Commission: an amount, in the instrument's quote asset.
     */
    private static final char COMM_TYPE_ABSOLUTE = '3';
    private static final char EXEC_STATUS = 'I';
    private static final char STATUS_NEW = '0';
    private static final char STATUS_PARTIAL = '1';
    private static final char STATUS_FILLED = '2';
    private static final char STATUS_CANCELED = '4';
    private static final char STATUS_REJECTED = '8';
    private static final char STATUS_EXPIRED = 'C';
    private static final char STATUS_DONE_FOR_DAY = '3';
    private static final char STATUS_PENDING_NEW = 'A';
    private static final char[] NONE = "NONE".toCharArray();
    private static final char[] MASS_STATUS_MSG_TYPE = "AF".toCharArray();
    private static final int MASS_STATUS_BY_SYMBOL = 1;
    private static final int MASS_STATUS_ALL_ORDERS = 7;
    /**
     * Side 7: a report about no order, which has none.
     */
    private static final char SIDE_UNDISCLOSED = '7';
    /**
     * ExecInst (18) 6, participate don't initiate: what a post-only order is entered with, echoed in its reports.
     */
    private static final char[] POST_ONLY = { '6' };
    private static final char TIME_IN_FORCE_DAY = '0';
    /**
     * How long before the end of day Day orders expire: their reports then go out before the end of day's Logout, in
     * the day's sequence, rather than being held for the next Logon.
     */
    private static final long DAY_ORDERS_CLOSE_BEFORE_END_OF_DAY_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long NANOS_PER_DAY = TimeUnit.DAYS.toNanos(1);
    private static final char TIME_IN_FORCE_GTD = '6';
    private static final String DAY_ORDER_TOO_LATE = "Too late for a Day order: the trading day is closing";
    private static final String INVALID_EXPIRE_TIME = "ExpireTime (126) is not a date and time between 1970 and 2261";
    private static final String INVALID_EXPIRE_DATE = "ExpireDate (432) is not a date between 1970 and 2261";
    private static final String MASS_CANCEL_NOT_SUPPORTED = "0";
    private static final String MASS_CANCEL_UNKNOWN_SECURITY = "1";
    /**
     * ExecRestatementReason (378) of a restatement by the exchange's self-trade prevention, and of those the gateway
     * makes itself to catch a client up (the Text says why).
     */
    private static final int RESTATEMENT_MARKET_OPTION = 8;
    private static final int RESTATEMENT_OTHER = 99;
    private static final String RESTATED_AFTER_RESTART = "Filled while the gateway was down";
    private static final String RESTATED_AFTER_GAP = "Filled while the gateway missed the exchange's events";
    private static final String CLOSED_AFTER_RESTART =
        "Closed while the gateway was down; fills not reported here are in the exchange's trade history";
    private static final String CLOSED_BEFORE_RESTART =
        "Closed before the gateway restarted (OrdStatus and CumQty give how); fills not reported here are in the " +
        "exchange's trade history";
    private static final String CLOSED_AFTER_GAP =
        "Closed while the gateway missed the exchange's events; fills not reported here are in the exchange's " +
        "trade history";
    private static final String REPLACED_ANSWER_LOST = "Replaced; its answer was among events the gateway missed";
    private static final String OVERTAKEN_ANSWER_LOST =
        "Overtaken by a later replace, which the order carries now; whether this one took effect before it is not " +
        "known (its answer was among events the gateway missed)";
    private static final String NOT_APPLIED_ANSWER_LOST =
        "Not applied: the order is open as it was (the answer was among events the gateway missed)";
    private static final String REPLACE_TOO_LATE_AFTER_RESTART =
        "Too late: the order was done before this replace was answered (the gateway restarted meanwhile)";
    private static final String ORDER_CLOSED = "Too late: the order is closed (OrdStatus gives how)";
    private static final String DONE_ANSWER_LOST =
        "The order is done; this request's answer was among events the gateway missed";
    private static final String MASS_CANCEL_ANSWER_LOST =
        "Applied by the exchange, its answer among events the gateway missed: each order it canceled is reported " +
        "done, and how many it canceled is not known";
    private static final String CLOSED_ANSWER_LOST =
        "Applied by the exchange and no longer open, its answer among events the gateway missed; how it ended is " +
        "in the exchange's order and trade history";

    /**
     * Every MsgType of FIX 4.4: one of these the gateway does not handle is answered with a BusinessMessageReject
     * (unsupported message type); anything else with a session Reject (invalid MsgType).
     */
    private static final String[] FIX44_MSG_TYPES = {
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F", "G", "H", "J", "K", "L", "M",
        "N", "P", "Q", "R", "S", "T", "V", "W", "X", "Y", "Z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k",
        "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "AA", "AB", "AC", "AD", "AE", "AF",
        "AG", "AH", "AI", "AJ", "AK", "AL", "AM", "AN", "AO", "AP", "AQ", "AR", "AS", "AT", "AU", "AV", "AW", "AX",
        "AY", "AZ", "BA", "BB", "BC", "BD", "BE", "BF", "BG", "BH"};

    private FixLibrary library;
    private ExchangeClient client;
    private final FixOrderStore store;
    private final FixEventPosition eventPosition;
    /**
     * Whether the batch being handled made a report: its position is then recorded once it is handled.
     */
    private boolean batchReported;
    /**
     * The sequence of the batch being handled, {@link Long#MAX_VALUE} outside one (a report made then is never one a
     * session was sent before a restart).
     */
    private long reportBatchSequence = Long.MAX_VALUE;
    /**
     * The last batch handled: where a replay must begin for a report held from the next one to be made again.
     */
    private long previousBatchSequence;
    private long previousLogPosition;
    /**
     * The last batch that made a report, recorded as soon as it is handled (where {@link #eventPosition} waits for
     * Artio's archive): the previous run's, read at the start, bounds the batches whose reports it may have sent.
     */
    private final FixEventPosition handledPosition;
    /**
     * Reports the replay after a restart makes again from batches up to this one may have reached the client before
     * the gateway stopped (sent, but not yet recorded as delivered): they go out with PossResend (97=Y), so that the
     * client checks their ExecIDs, which are the same as before, instead of taking a fill twice.
     */
    private long handledBeforeRestart;
    /**
     * Whether the batch being handled is in {@link #handledPosition} yet: recorded before its first message goes out.
     */
    private boolean batchHandledRecorded;
    /**
     * Sessions with messages held for them: while there are any, the recorded position stays before the first.
     */
    private int sessionsHolding;
    private final Map<String, FixSessionState> sessionsByCompId;
    private final Object2ObjectHashMap<String, FixInstrument> instrumentsBySymbol = new Object2ObjectHashMap<>();
    private final Int2ObjectHashMap<FixInstrument> instrumentsById = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<FixSessionState> sessionsById = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<FixOrder> ordersByOrderId = new Long2ObjectHashMap<>();
    /**
     * New orders a previous run sent (or was about to send) without seeing the answer, by their engine client order
     * id: the replay of the cluster's events, or a query after it, tells what became of each.
     */
    private final Long2ObjectHashMap<FixOrder> pendingRestored = new Long2ObjectHashMap<>();
    /**
     * Replaces a previous run sent (or was about to send) without reporting the answer, by their engine client order
     * id: the replayed answer is reported under the replace's ClOrdID; with none, the query about the order after the
     * replay tells whether it took effect.
     */
    private final Long2ObjectHashMap<Pending> replacesRestored = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Pending> pendingByRequest = new Long2ObjectHashMap<>();
    private final ArrayDeque<Pending> pendingPool = new ArrayDeque<>();
    private final java.util.HashSet<String> fix44MsgTypes = new java.util.HashSet<>(List.of(FIX44_MSG_TYPES));
    private final AtomicCounter droppedMessages;
    private final AtomicCounter rateLimited;
    private final FixApplicationMessageOverride applicationMessageOverride;
    private final FixLatencyProbe latencyProbe;
    private final EpochNanoClock clock;
    /**
     * The gateway's end of day (when Day orders expire), nanoseconds into the UTC day; -1 when it has none.
     */
    private final long endOfDayNsOfDay;
    private long eventsReceivedNs;

    private final MutableAsciiBuffer asciiBuffer = new MutableAsciiBuffer();
    private final HeaderDecoder headerDecoder = new HeaderDecoder();
    private final NewOrderSingleDecoder newOrderSingle = new NewOrderSingleDecoder();
    private final OrderCancelRequestDecoder cancelRequest = new OrderCancelRequestDecoder();
    private final OrderCancelReplaceRequestDecoder replaceRequest = new OrderCancelReplaceRequestDecoder();
    private final OrderStatusRequestDecoder statusRequest = new OrderStatusRequestDecoder();
    private final OrderMassCancelRequestDecoder massCancelRequest = new OrderMassCancelRequestDecoder();
    private final OrderMassStatusRequestDecoder massStatusRequest = new OrderMassStatusRequestDecoder();
    /**
     * The orders a mass status request reports, gathered and put in order (by OrderID, those not yet acknowledged
     * last); reused.
     */
    private final ArrayList<FixOrder> massStatusOrders = new ArrayList<>();
    private final SecurityDefinitionDecoder securityDefinition = new SecurityDefinitionDecoder();
    private final EmailDecoder email = new EmailDecoder();
    private final FixRepeatingGroups repeatingGroups = FixRepeatingGroups.load();

    private final ExecutionReportEncoder executionReport = new ExecutionReportEncoder();
    private final ArrayDeque<ExecutionReportEncoder> spareReportEncoders = new ArrayDeque<>();
    /** Sessions logged on with messages still held for them: only these are visited, only while there are any. */
    private final ArrayList<FixSessionState> sessionsSendingHeldMessages = new ArrayList<>();
    /**
     * Sessions gone with cancel-on-disconnect configured, until their cancels are sent or they log on again.
     */
    private final ArrayList<FixSessionState> sessionsAwaitingCancelOnDisconnect = new ArrayList<>();
    /**
     * Orders whose state is still to be asked of the engine: restored from the gateway's store, or open when events
     * were missed for good. One that changed meanwhile is restated.
     */
    private final ArrayDeque<FixOrder> ordersToQuery = new ArrayDeque<>();
    /**
     * Why a queried order is restated: the gateway missed events while running, rather than while down. A gap in the
     * events before the first batch since the start is the time the gateway was down.
     */
    private boolean missedEventsWhileUp;
    private boolean batchHandledSinceStart;
    /**
     * After a gap, until the next answer to a request of this gateway's: requests before it still waiting lost theirs.
     */
    private boolean answersMayBeLost;
    private final LongArrayList lostRequests = new LongArrayList();
    private final OrderCancelRejectEncoder cancelReject = new OrderCancelRejectEncoder();
    private final OrderMassCancelReportEncoder massCancelReport = new OrderMassCancelReportEncoder();
    private final BusinessMessageRejectEncoder businessReject = new BusinessMessageRejectEncoder();
    private final char[] failedClOrdId = new char[FixOrder.MAX_ID_LENGTH];
    /**
     * Messages made for sessions (sent or held): whether the handling of an inbound one had answered it yet.
     */
    private long messagesMade;
    private final SessionRejectEncoder sessionReject = new SessionRejectEncoder();
    private final UtcTimestampEncoder timestampEncoder = new UtcTimestampEncoder();
    /**
     * A report's ExpireTime: Artio's encoder keeps a reference to the bytes, so it needs its own beside TransactTime's.
     * In milliseconds, as FIX 4.4 has it and TransactTime is, unless the client gave a finer one.
     */
    private final UtcTimestampEncoder expireTimeEncoder = new UtcTimestampEncoder();
    private final UtcTimestampEncoder expireTimeNanosEncoder = new UtcTimestampEncoder(EpochFractionFormat.NANOSECONDS);
    /**
     * A report's ExpireDate, {@code YYYYMMDD}: its own bytes, for the same reason.
     */
    private final byte[] expireDate = new byte[8];
    private final UnsafeBuffer idBuffer = new UnsafeBuffer(new byte[64]);
    private final UnsafeBuffer orderIdBuffer = new UnsafeBuffer(new byte[32]);
    private final char[] msgTypeChars = new char[8];

    private final MessageHeaderDecoder eventHeader = new MessageHeaderDecoder();
    private final CommandRejectedDecoder commandRejected = new CommandRejectedDecoder();
    private final OrderAcceptedDecoder orderAccepted = new OrderAcceptedDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final OrderCanceledDecoder orderCanceled = new OrderCanceledDecoder();
    private final OrderReplacedDecoder orderReplaced = new OrderReplacedDecoder();
    private final OrderExpiredDecoder orderExpired = new OrderExpiredDecoder();
    private final OrderRestatedDecoder orderRestated = new OrderRestatedDecoder();
    private final OrderTriggeredDecoder orderTriggered = new OrderTriggeredDecoder();
    private final OrderStatusReportDecoder orderStatus = new OrderStatusReportDecoder();
    private final MassCancelCompletedDecoder massCancelCompleted = new MassCancelCompletedDecoder();
    private final CommandEncoder commandEncoder = new CommandEncoder();
    private final ExpandableArrayBuffer commandBuffer = new ExpandableArrayBuffer(256);

    private long logPosition;
    private int eventIndex;
    // Written by this agent's thread on logon and disconnect, read by monitoring threads.
    private volatile int loggedOnSessions;
    /**
     * Set by the end of day ({@link #requestEndOfDayLogout}) until every logged-on session has been sent its Logout.
     */
    private volatile boolean endOfDayLogoutRequested;
    private volatile boolean newTradingDayRequested;
    /**
     * How far the library had written its stream to Artio when a session last disconnected: every message of the
     * sessions gone is before it (their last Logout too), and Artio's index of sent sequence numbers must have read
     * that far before a session is reset.
     */
    private volatile long positionAtLastDisconnect;
    // A release store (lazySet) per change: no fence on the order path, visible to monitoring soon after.
    private final AtomicInteger openOrders = new AtomicInteger();
    private boolean makerLeg;
    private long timestampNs;
    private final PrintStream log;
    private final ResendRequestNumbers resendRequestNumbers;
    private final DeferredDisconnects deferredDisconnects;
    private final OutboundSequenceNumbers outboundSequenceNumbers;
    /**
     * The Heartbeats that fill numbers handed over before a kill but not recorded (see {@link #continueAfterRecorded}).
     */
    private final HeartbeatEncoder filler = new HeartbeatEncoder();
    private final UtcTimestampEncoder fillerTime = new UtcTimestampEncoder();
    /**
     * Whether sessions keep their sequence numbers across logons and restarts (always, but for tests of the
     * acceptance definitions): only then does a session go on after the last number an earlier run handed over.
     */
    private final boolean persistentSequenceNumbers;
    /**
     * The records that wait until Artio has archived the reports sent before them: reports delivered, orders closed,
     * where a restart's replay resumes.
     */
    private final AfterArchive afterArchive = new AfterArchive();
    private final AfterArchive.Keeper keeper = this::keep;
    private final OutboundArchivePosition archivePosition;
    /**
     * The outbound stream's position after the last message this gateway handed to Artio.
     */
    private long lastSentPosition;

    FixGatewayAgent(
        final FixOrderStore store,
        final FixEventPosition eventPosition,
        final FixEventPosition handledPosition,
        final Map<String, FixSessionState> sessionsByCompId,
        final List<FixInstrument> instruments,
        final AtomicCounter droppedMessages,
        final AtomicCounter rateLimited,
        final FixApplicationMessageOverride applicationMessageOverride,
        final FixLatencyProbe latencyProbe,
        final EpochNanoClock clock,
        final PrintStream log,
        final ResendRequestNumbers resendRequestNumbers,
        final DeferredDisconnects deferredDisconnects,
        final OutboundSequenceNumbers outboundSequenceNumbers,
        final boolean persistentSequenceNumbers,
        final OutboundArchivePosition archivePosition,
        final LocalTime endOfDayUtc)
    {
        this.endOfDayNsOfDay = endOfDayUtc == null ? -1 : endOfDayUtc.toNanoOfDay();
        this.outboundSequenceNumbers = outboundSequenceNumbers;
        this.persistentSequenceNumbers = persistentSequenceNumbers;
        this.log = log;
        this.archivePosition = archivePosition;
        this.resendRequestNumbers = resendRequestNumbers;
        this.deferredDisconnects = deferredDisconnects;
        this.latencyProbe = latencyProbe;
        this.clock = clock;
        this.applicationMessageOverride = applicationMessageOverride;
        this.store = store;
        this.eventPosition = eventPosition;
        this.handledPosition = handledPosition;
        // Without a recorded position the replay starts afresh, and the handled record (if any) is of no use.
        this.handledBeforeRestart = eventPosition.isRecorded() ? handledPosition.batchSequence() : 0;
        this.previousBatchSequence = eventPosition.batchSequence();
        this.previousLogPosition = eventPosition.logPosition();
        this.sessionsByCompId = sessionsByCompId;
        this.droppedMessages = droppedMessages;
        this.rateLimited = rateLimited;
        for (final FixInstrument instrument : instruments)
        {
            instrumentsBySymbol.put(instrument.symbol(), instrument);
            instrumentsById.put(instrument.instrumentId(), instrument);
        }
    }

    /**
     * Hand over the connected library and the client, both polled from now on by this agent's thread only.
     */
    void start(final FixLibrary library, final ExchangeClient client)
    {
        this.library = library;
        this.client = client;
    }

    /**
     * Take back the open orders and the replaces under way a previous run recorded, and ask the engine about each
     * order: one that closed while the gateway was away is forgotten. Take back too the orders each session had seen
     * close, so that a request about one is still answered with its final state.
     */
    void restore(
        final List<FixOrderStore.Entry> entries,
        final List<FixOrderStore.Entry> replacing,
        final Map<String, List<RecentlyClosedOrders.Closed>> closedBySession)
    {
        for (final Map.Entry<String, List<RecentlyClosedOrders.Closed>> sessionClosed : closedBySession.entrySet())
        {
            final FixSessionState session = sessionsByCompId.get(sessionClosed.getKey());
            for (final RecentlyClosedOrders.Closed closed : sessionClosed.getValue())
            {
                final FixInstrument instrument = instrumentsById.get(closed.entry().instrumentId());
                if (session != null && instrument != null)
                {
                    final FixOrder order = restoredOrder(session, instrument, closed.entry());
                    order.closedStatus = closed.closedStatus();
                    session.restoredClosed(order);
                }
            }
        }
        for (final FixOrderStore.Entry entry : entries)
        {
            final FixSessionState session = sessionsByCompId.get(entry.senderCompId());
            final FixInstrument instrument = instrumentsById.get(entry.instrumentId());
            if (session == null || instrument == null)
            {
                continue;
            }
            final FixOrder order = restoredOrder(session, instrument, entry);
            session.usedClOrdIds.add(order.clOrdIdHash);
            if (order.orderId == 0)
            {
                order.recordedPending = true;
                pendingRestored.put(order.engineClientOrderId, order);
                continue;
            }
            ordersByOrderId.put(order.orderId, order);
            session.openOrdersByClOrdId.put(order.clOrdIdHash, order);
        }
        // A replace sent while its order was pending names no order id; a later one of the same order, sent once it
        // was accepted, names the order by the same OrigClOrdID and its id.
        final Map<String, Long> orderIdsByOrigClOrdId = new java.util.HashMap<>();
        for (final FixOrderStore.Entry entry : replacing)
        {
            if (entry.orderId() != 0)
            {
                orderIdsByOrigClOrdId.put(origClOrdIdKey(entry), entry.orderId());
            }
        }
        for (final FixOrderStore.Entry entry : replacing)
        {
            restoreReplace(entry, orderIdsByOrigClOrdId.getOrDefault(origClOrdIdKey(entry), 0L));
        }
        queryOpenAndPendingOrders();
        openOrders.lazySet(ordersByOrderId.size());
        owedCancelsOnDisconnect();
    }

    /**
     * Sessions logged on with a cancel-on-disconnect when the gateway last stopped, or crashed, are owed it as though
     * they disconnected as it starts again: their orders are canceled after their grace period from now (however long
     * the gateway was down; an ACCOUNT session's cancel takes every order of the account then, placed through any
     * channel meanwhile) unless they log on first.
     */
    private void owedCancelsOnDisconnect()
    {
        for (final FixSessionState state : sessionsByCompId.values())
        {
            // One that logged on already, as the library connected, owes nothing.
            if (!state.cancelOnDisconnectOwed() || state.session != null)
            {
                continue;
            }
            if (state.spec.cancelOnDisconnect() == FixSessionSpec.CancelOnDisconnect.NONE)
            {
                state.cancelOnDisconnectOwed(false);
                continue;
            }
            log.println("bourse: FIX session " + state.spec.senderCompId() + " owed its cancel-on-disconnect (" +
                state.spec.cancelOnDisconnect() + ") when the gateway stopped (logged on, or away and not yet " +
                "canceled): due in " + state.spec.cancelOnDisconnectGraceMs() + " ms unless it logs on first");
            state.cancelOnDisconnectDeadlineNs =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(state.spec.cancelOnDisconnectGraceMs());
            if (!sessionsAwaitingCancelOnDisconnect.contains(state))
            {
                sessionsAwaitingCancelOnDisconnect.add(state);
            }
        }
    }

    /**
     * A replace sent before the restart whose answer was not reported. Its order is open (or pending) still: the
     * replayed answer is reported when it comes; failing that, it waits as a lost request on the order, for the query
     * about the order to tell whether it took effect. An order whose record already carries it (the answer was handled,
     * its report not yet archived) waits for the replayed answer alone. An order no longer held was done before the
     * answer came, and closed records are kept only after the reports before them: the exchange refused the replace as
     * too late.
     */
    private void restoreReplace(final FixOrderStore.Entry entry, final long laterOrderId)
    {
        final FixSessionState session = sessionsByCompId.get(entry.senderCompId());
        if (session == null)
        {
            store.writeReplaceDone(entry.engineClientOrderId());
            return;
        }
        final char[] clOrdId = entry.clOrdId().toCharArray();
        final char[] origClOrdId = entry.origClOrdId().toCharArray();
        session.usedClOrdIds.add(FixOrder.hash(clOrdId, clOrdId.length));
        final FixOrder order = replacedOrder(session, entry, clOrdId, origClOrdId, laterOrderId);
        if (order == null)
        {
            final FixOrder done = newOrder();
            done.orderId = entry.orderId();
            rejectCancel(session, done, clOrdId, clOrdId.length, origClOrdId, origClOrdId.length, '2',
                FixRejects.CXL_REJ_TOO_LATE, REPLACE_TOO_LATE_AFTER_RESTART, STATUS_DONE_FOR_DAY);
            replaceDone(session, entry.engineClientOrderId());
            return;
        }
        final Pending replace = newPending(PENDING_REPLACE, session, order);
        replace.engineClientOrderId = entry.engineClientOrderId();
        replace.clOrdId(clOrdId, clOrdId.length);
        replace.origClOrdId(origClOrdId, origClOrdId.length);
        replacesRestored.put(replace.engineClientOrderId, replace);
        if (order.engineClientOrderId == replace.engineClientOrderId)
        {
            order.carriedReplace = replace;
        }
        else
        {
            chainLostRequest(order, replace);
        }
    }

    /**
     * @return the order a restored replace is about: by its order id; for a replace sent before the order's acceptance
     * was handled, the pending order by the ClOrdID it had, or the open one it became since (by that ClOrdID, by the
     * replace's when its record carries the replace, or by the order id a later replace of it names); null when the
     * gateway no longer holds it.
     */
    private FixOrder replacedOrder(
        final FixSessionState session,
        final FixOrderStore.Entry entry,
        final char[] clOrdId,
        final char[] origClOrdId,
        final long laterOrderId)
    {
        FixOrder order;
        if (entry.orderId() != 0)
        {
            order = ordersByOrderId.get(entry.orderId());
        }
        else
        {
            order = pendingRestored(session, origClOrdId);
            if (order == null)
            {
                order = session.findOpen(origClOrdId, origClOrdId.length);
            }
            if (order == null)
            {
                order = session.findOpen(clOrdId, clOrdId.length);
            }
            if (order == null && laterOrderId != 0)
            {
                order = ordersByOrderId.get(laterOrderId);
            }
        }
        return order != null && order.accountId == entry.accountId() ? order : null;
    }

    private static String origClOrdIdKey(final FixOrderStore.Entry entry)
    {
        return entry.senderCompId() + '\u0000' + entry.origClOrdId();
    }

    private FixOrder pendingRestored(final FixSessionState session, final char[] clOrdId)
    {
        return pendingRestored(session, clOrdId, clOrdId.length);
    }

    /**
     * @return the session's order by that ClOrdID that a restart left waiting for the exchange to say whether it was
     * accepted, or null.
     */
    private FixOrder pendingRestored(final FixSessionState session, final char[] clOrdId, final int length)
    {
        for (final FixOrder order : pendingRestored.values())
        {
            if (order.session == session && order.clOrdIdEquals(clOrdId, length))
            {
                return order;
            }
        }
        return null;
    }

    /**
     * @return orders the exchange acknowledged and the gateway holds open; any thread.
     */
    int openOrderCount()
    {
        return openOrders.get();
    }

    public int doWork()
    {
        int work = library.poll(16);
        work += deferredDisconnects.poll();
        if (endOfDayLogoutRequested)
        {
            work += logOutForEndOfDay();
        }
        if (afterArchive.size() > 0)
        {
            work += afterArchive.keep(archivePosition.position(), keeper);
        }
        if (client == null)
        {
            return work;
        }
        work += client.doWork();
        if (!ordersToQuery.isEmpty() && client.isConnected())
        {
            work += queryOrders();
        }
        if (!sessionsAwaitingCancelOnDisconnect.isEmpty())
        {
            work += checkCancelOnDisconnect(System.nanoTime());
        }
        if (!sessionsSendingHeldMessages.isEmpty())
        {
            work += sendHeldMessages();
        }
        return work;
    }

    public String roleName()
    {
        return "fix-gateway";
    }

    /**
     * A gateway stopped on purpose keeps the records whose reports Artio archives meanwhile (it is still running), so
     * that its restart sends none of them twice; what is not archived within {@link #CLOSE_ARCHIVE_WAIT_NS} is left to
     * the restart's replay.
     */
    public void onClose()
    {
        final long deadlineNs = System.nanoTime() + CLOSE_ARCHIVE_WAIT_NS;
        while (afterArchive.size() > 0)
        {
            afterArchive.keep(archivePosition.position(), keeper);
            if (afterArchive.size() == 0 || System.nanoTime() - deadlineNs >= 0)
            {
                break;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    // ------------------------------------------------------------------------------------------------ sessions

    /**
     * Log every session out, with a Logout saying it is the end of day, and disconnect it; its orders stay (no
     * cancel-on-disconnect). Any thread; done on the gateway's thread.
     */
    void requestEndOfDayLogout()
    {
        newTradingDayRequested = true;
        endOfDayLogoutRequested = true;
    }

    private int logOutForEndOfDay()
    {
        int loggedOut = 0;
        boolean all = true;
        if (newTradingDayRequested)
        {
            newTradingDayRequested = false;
            final long nowMs = System.currentTimeMillis();
            for (final FixSessionState state : sessionsByCompId.values())
            {
                if (state.isLoggedOn())
                {
                    // Once logged out (or gone).
                    state.newTradingDayDue = true;
                }
                else
                {
                    // Away at the end of day: its next logon is in the new trading day.
                    state.newTradingDay(nowMs);
                }
            }
        }
        for (final FixSessionState state : sessionsById.values())
        {
            if (!state.loggedOutForEndOfDay)
            {
                state.loggedOutForEndOfDay = true;
                if (state.session.logoutAndDisconnect(END_OF_DAY_LOGOUT_TEXT) < 0)
                {
                    state.loggedOutForEndOfDay = false;
                    all = false;
                }
                else
                {
                    state.newTradingDay(System.currentTimeMillis());
                    loggedOut++;
                }
            }
        }
        endOfDayLogoutRequested = !all;
        return loggedOut;
    }

    /**
     * @return how far the library had written its stream to Artio when a session last disconnected (0 before any):
     * once no session is logged on, every message numbered so far is before it; any thread.
     */
    long positionAtLastDisconnect()
    {
        return positionAtLastDisconnect;
    }

    /**
     * @return sessions logged on now (acquired by this library and not yet disconnected); any thread.
     */
    int loggedOnSessions()
    {
        return loggedOnSessions;
    }

    /**
     * @return sessions configured.
     */
    int configuredSessions()
    {
        return sessionsByCompId.size();
    }

    public SessionHandler onSessionAcquired(final Session session, final SessionAcquiredInfo acquiredInfo)
    {
        final FixSessionState state = sessionsByCompId.get(session.compositeKey().remoteCompId());
        if (state != null)
        {
            state.session = session;
            state.lastSessionId = session.id();
            state.lastSequenceIndex = session.sequenceIndex();
            continueAfterRecorded(state, session);
            outboundSequenceNumbers.track(session.connectionId(), state.outbound);
            requestUnhandledMessagesAgain(state, session);
            stopCancelOnDisconnect(state);
            if (state.spec.cancelOnDisconnect() != FixSessionSpec.CancelOnDisconnect.NONE)
            {
                state.cancelOnDisconnectOwed(true);
            }
            sessionsById.put(session.id(), state);
            loggedOnSessions = sessionsById.size();
            if (!state.heldMessages.isEmpty() && !sessionsSendingHeldMessages.contains(state))
            {
                sessionsSendingHeldMessages.add(state);
            }
        }
        return this;
    }

    /**
     * A gateway killed before Artio recorded the last messages it had been handed comes back counting fewer sent than
     * the counterparty may have had, and would send those numbers again (refused as too low, the counterparty logging
     * out at each logon until Artio's numbers pass its own): the session goes on after the last number handed over
     * instead, before its Logon is answered ({@link OutboundSequenceNumbers}).
     * <p>
     * The numbers in between are first filled, each with a Heartbeat written to Artio's log under no connection, so
     * that the framer sends them nowhere, but Artio's index has a message for every number. Its replay finds a
     * resend's first message by counting index records as numbers: a number without one would make every later
     * resend start that many messages late (and Artio's gap fill for them carries the wrong MsgSeqNum, so the
     * counterparty waits for ever). A resend of the filled numbers is a gap fill, Heartbeats being replayed as one;
     * what went under them before the kill was never recorded as delivered ({@link AfterArchive}), so the gateway
     * sends it again. When Artio's log will not take a filler, the session goes on after the last one taken.
     */
    private void continueAfterRecorded(final FixSessionState state, final Session session)
    {
        if (!persistentSequenceNumbers)
        {
            return;
        }
        final int lastSent = session.lastSentMsgSeqNum();
        final int lastRecorded = state.outbound.beyond(session.sequenceIndex(), lastSent);
        if (lastRecorded < 0)
        {
            return;
        }
        final SessionWriter writer =
            library.sessionWriter(session.id(), GatewayProcess.NO_CONNECTION_ID, session.sequenceIndex());
        filler.header()
            .senderCompID(session.compositeKey().localCompId())
            .targetCompID(session.compositeKey().remoteCompId());
        int filled = lastSent;
        while (filled < lastRecorded && fill(writer, filled + 1))
        {
            filled++;
        }
        if (filled > lastSent)
        {
            session.lastSentMsgSeqNum(filled);
        }
        log.println("bourse: FIX session " + state.spec.senderCompId() + ": MsgSeqNum " + (lastSent + 1) +
            (lastRecorded > lastSent + 1 ? ".." + lastRecorded : "") + " handed to Artio before the gateway stopped " +
            "but not recorded by it; " + (filled == lastRecorded ? "filled with Heartbeats (a resend of them is a " +
            "gap fill), going on from " + (filled + 1) : "Artio's log took fillers only up to " + filled + ", so the " +
            "client may refuse the numbers after it as too low until they pass its own"));
    }

    private boolean fill(final SessionWriter writer, final int msgSeqNum)
    {
        final int timeLength = fillerTime.encodeFrom(clock.nanoTime(), TimeUnit.NANOSECONDS);
        filler.header().msgSeqNum(msgSeqNum).sendingTime(fillerTime.buffer(), timeLength);
        for (int attempt = 0; attempt < FILLER_ATTEMPTS; attempt++)
        {
            if (writer.send(filler, msgSeqNum) > 0)
            {
                return true;
            }
            Thread.yield();
        }
        return false;
    }

    /**
     * Artio's engine counts a message as received once it has it, before this gateway has handled it: a gateway killed
     * in between comes back with Artio expecting the counterparty's next message, and the messages in between (orders
     * among them) would never be acted on nor sent again. Artio is set back to the last message handled before the
     * session's logon is processed, so that it asks the counterparty to resend the rest (a ResendRequest at logon),
     * and the gateway acts on them as they come again.
     */
    private void requestUnhandledMessagesAgain(final FixSessionState state, final Session session)
    {
        final int sequenceIndex = session.sequenceIndex();
        final int lastReceived = session.lastReceivedMsgSeqNum();
        final int lastHandled = state.messagesToRequestAgain(sequenceIndex, lastReceived);
        if (lastHandled >= 0)
        {
            session.lastReceivedMsgSeqNum(lastHandled);
            // Setting the number lower also starts a new sequence index in Artio, as after a reset; this is not one.
            session.sequenceIndex(sequenceIndex);
            log.println("bourse: FIX session " + state.spec.senderCompId() + ": messages " +
                (lastHandled + 1) + ".." + lastReceived + " were taken but not handled before the gateway stopped; " +
                "asking for them again");
        }
    }

    public void onSessionStart(final Session session)
    {
    }

    public Action onDisconnect(final int libraryId, final Session session, final DisconnectReason reason)
    {
        resendRequestNumbers.onDisconnect(session.connectionId());
        deferredDisconnects.onDisconnect(session.connectionId());
        outboundSequenceNumbers.untrack(session.connectionId());
        final FixSessionState state = sessionsById.remove(session.id());
        // Before the count: a thread that sees no session left sees this position too.
        positionAtLastDisconnect = archivePosition.publishedPosition();
        loggedOnSessions = sessionsById.size();
        if (state != null && state.session == session)
        {
            // A reset during the session moved its sequence index on since its logon.
            state.lastSequenceIndex = session.sequenceIndex();
            state.session = null;
            if (state.newTradingDayDue)
            {
                state.newTradingDay(System.currentTimeMillis());
            }
            if (state.loggedOutForEndOfDay)
            {
                // The venue logged it out, not the client: its orders stay.
                state.loggedOutForEndOfDay = false;
                state.cancelOnDisconnectOwed(false);
            }
            else if (state.spec.cancelOnDisconnect() != FixSessionSpec.CancelOnDisconnect.NONE)
            {
                state.cancelOnDisconnectDeadlineNs =
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(state.spec.cancelOnDisconnectGraceMs());
                if (!sessionsAwaitingCancelOnDisconnect.contains(state))
                {
                    sessionsAwaitingCancelOnDisconnect.add(state);
                }
            }
        }
        return CONTINUE;
    }

    public void onTimeout(final int libraryId, final Session session)
    {
    }

    public void onSlowStatus(final int libraryId, final Session session, final boolean hasBecomeSlow)
    {
    }

    public Action onMessage(
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int libraryId,
        final Session session,
        final int sequenceIndex,
        final long messageType,
        final long timestampInNs,
        final long position,
        final OnMessageInfo messageInfo)
    {
        ClientActivity.note();
        // Artio's answers to the message (a Heartbeat, a Reject, a ResendRequest) went out as it processed it.
        resendRequestNumbers.countIfUncounted(session);
        final FixSessionState state = sessionsById.get(session.id());
        if (state != null)
        {
            final boolean isValid = messageInfo.isValid();
            final long madeBefore = messagesMade;
            final long unansweredBefore = client != null ? client.unansweredCount() : 0;
            try
            {
                handleMessage(state, buffer, offset, length, session, sequenceIndex, messageType, timestampInNs,
                    isValid);
            }
            catch (final UncheckedIOException ex)
            {
                // The gateway's own records could not be written: fatal (FixGateway.agentErrors).
                throw ex;
            }
            catch (final RuntimeException ex)
            {
                onHandlingFailed(state, buffer, offset, length, ex, messagesMade != madeBefore,
                    client != null && client.unansweredCount() != unansweredBefore);
            }
            // Recorded once acted on: a gateway stopped in between asks for the message again, and a NewOrderSingle
            // that comes again is known by its ClOrdID, not executed twice.
            recordHandled(state, buffer, offset, length, sequenceIndex, messageType, isValid,
                !isValid && session.state() == SessionState.ACTIVE);
        }
        return CONTINUE;
    }

    private void handleMessage(
        final FixSessionState state,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final Session session,
        final int sequenceIndex,
        final long messageType,
        final long timestampInNs,
        final boolean isValid)
    {
        if (!isValid)
        {
            // Artio has already answered a message that failed its session-level checks; it is not acted on.
            return;
        }
        asciiBuffer.wrap(buffer);
        if (applicationMessageOverride != null && messageType != NewOrderSingleDecoder.MESSAGE_TYPE &&
            messageType != SecurityDefinitionDecoder.MESSAGE_TYPE && messageType != EmailDecoder.MESSAGE_TYPE &&
            !isSessionMessage(messageType))
        {
            // Test-only echo mode: there is no exchange behind the gateway to take the other messages.
            headerDecoder.reset();
            headerDecoder.decode(asciiBuffer, offset, length);
            onUnsupportedMessage(state, headerDecoder);
            return;
        }
        if (messageType == NewOrderSingleDecoder.MESSAGE_TYPE)
        {
            newOrderSingle.reset();
            newOrderSingle.decode(asciiBuffer, offset, length);
            final HeaderDecoder header = newOrderSingle.header();
            // Orders seldom carry repeating groups: their layout is only checked (a scan of the message) when the
            // decoder saw one (FixRepeatingGroupsTest checks that these are all of NewOrderSingle's groups).
            final boolean hasGroups =
                newOrderSingle.hasNoPartyIDsGroupCounter() || newOrderSingle.hasNoTradingSessionsGroupCounter();
            if (validates(state, newOrderSingle.validate(), newOrderSingle.invalidTagId(),
                newOrderSingle.rejectReason(), header, "D") &&
                (!hasGroups || groupsValid(state, header, "D", messageType, buffer, offset, length)) &&
                timestampsValid(state, header, "D", newOrderSingle.transactTime(),
                newOrderSingle.transactTimeLength(), newOrderSingle.hasExpireTime() ? newOrderSingle.expireTime() : null,
                newOrderSingle.hasExpireTime() ? newOrderSingle.expireTimeLength() : 0,
                newOrderSingle.hasExpireDate() ? newOrderSingle.expireDate() : null,
                newOrderSingle.hasExpireDate() ? newOrderSingle.expireDateLength() : 0))
            {
                if (applicationMessageOverride != null)
                {
                    applicationMessageOverride.onApplicationMessage(
                        session, messageType, header, buffer, offset, length);
                }
                else
                {
                    onNewOrderSingle(state, sequenceIndex, timestampInNs);
                }
            }
        }
        else if (messageType == OrderCancelRequestDecoder.MESSAGE_TYPE)
        {
            cancelRequest.reset();
            cancelRequest.decode(asciiBuffer, offset, length);
            if (validates(state, cancelRequest.validate(), cancelRequest.invalidTagId(),
                cancelRequest.rejectReason(), cancelRequest.header(), "F"))
            {
                onCancelRequest(state);
            }
        }
        else if (messageType == OrderCancelReplaceRequestDecoder.MESSAGE_TYPE)
        {
            replaceRequest.reset();
            replaceRequest.decode(asciiBuffer, offset, length);
            if (validates(state, replaceRequest.validate(), replaceRequest.invalidTagId(),
                replaceRequest.rejectReason(), replaceRequest.header(), "G") &&
                timestampsValid(state, replaceRequest.header(), "G", replaceRequest.transactTime(),
                replaceRequest.transactTimeLength(),
                replaceRequest.hasExpireTime() ? replaceRequest.expireTime() : null,
                replaceRequest.hasExpireTime() ? replaceRequest.expireTimeLength() : 0,
                replaceRequest.hasExpireDate() ? replaceRequest.expireDate() : null,
                replaceRequest.hasExpireDate() ? replaceRequest.expireDateLength() : 0))
            {
                onReplaceRequest(state, sequenceIndex);
            }
        }
        else if (messageType == OrderStatusRequestDecoder.MESSAGE_TYPE)
        {
            statusRequest.reset();
            statusRequest.decode(asciiBuffer, offset, length);
            if (validates(state, statusRequest.validate(), statusRequest.invalidTagId(),
                statusRequest.rejectReason(), statusRequest.header(), "H"))
            {
                onStatusRequest(state);
            }
        }
        else if (messageType == OrderMassStatusRequestDecoder.MESSAGE_TYPE)
        {
            massStatusRequest.reset();
            massStatusRequest.decode(asciiBuffer, offset, length);
            if (validates(state, massStatusRequest.validate(), massStatusRequest.invalidTagId(),
                massStatusRequest.rejectReason(), massStatusRequest.header(), "AF"))
            {
                onMassStatusRequest(state);
            }
        }
        else if (messageType == OrderMassCancelRequestDecoder.MESSAGE_TYPE)
        {
            massCancelRequest.reset();
            massCancelRequest.decode(asciiBuffer, offset, length);
            if (validates(state, massCancelRequest.validate(), massCancelRequest.invalidTagId(),
                massCancelRequest.rejectReason(), massCancelRequest.header(), "q"))
            {
                onMassCancelRequest(state);
            }
        }
        else if (messageType == SecurityDefinitionDecoder.MESSAGE_TYPE)
        {
            securityDefinition.reset();
            securityDefinition.decode(asciiBuffer, offset, length);
            if (validates(state, securityDefinition.validate(), securityDefinition.invalidTagId(),
                securityDefinition.rejectReason(), securityDefinition.header(), "d") &&
                groupsValid(state, securityDefinition.header(), "d", messageType, buffer, offset, length))
            {
                onNotTradedMessage(session, state, messageType, securityDefinition.header(), buffer, offset, length);
            }
        }
        else if (messageType == EmailDecoder.MESSAGE_TYPE)
        {
            email.reset();
            email.decode(asciiBuffer, offset, length);
            if (validates(state, email.validate(), email.invalidTagId(), email.rejectReason(), email.header(), "C") &&
                groupsValid(state, email.header(), "C", messageType, buffer, offset, length))
            {
                onNotTradedMessage(session, state, messageType, email.header(), buffer, offset, length);
            }
        }
        else if (!isSessionMessage(messageType))
        {
            headerDecoder.reset();
            headerDecoder.decode(asciiBuffer, offset, length);
            onUnsupportedMessage(state, headerDecoder);
        }
    }

    /**
     * A defect of the gateway's threw while it handled a message. When nothing had gone out for it yet, the client is
     * told, rather than left waiting for an answer that will not come; when the message was already answered, or its
     * command already sent to the exchange (whose answer is reported as any other), a reject would contradict what
     * happened, so the failure is only logged. Either way the message is then recorded as handled like any other, so
     * that a restart does not meet the same defect again.
     */
    private void onHandlingFailed(
        final FixSessionState state,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final RuntimeException failure,
        final boolean answered,
        final boolean commandSent)
    {
        final boolean reject = !answered && !commandSent;
        log.println("bourse: FIX session " + state.spec.senderCompId() + ": failed to handle a message (" +
            (reject ? "answered with a BusinessMessageReject" : answered ? "it had been answered already" :
            "its command had gone to the exchange") + "): " +
            buffer.getStringWithoutLengthAscii(offset, length).replace((char)FixMessageFields.SOH, '|'));
        failure.printStackTrace(log);
        if (!reject)
        {
            return;
        }
        businessReject.reset();
        businessReject.refSeqNum(FixMessageFields.intField(buffer, offset, length, MSG_SEQ_NUM_TAG))
            .refMsgType(msgTypeChars, FixMessageFields.copyValue(buffer, offset, length, MSG_TYPE_TAG, msgTypeChars))
            .businessRejectReason(FixRejects.BUSINESS_OTHER)
            .text("The gateway failed to handle this message (internal error: " +
                failure.getClass().getSimpleName() + "); it was not sent to the exchange: send it again (an " +
                "order, cancel or replace under a new ClOrdID)");
        final int clOrdIdLength =
            FixMessageFields.copyValue(buffer, offset, length, CL_ORD_ID_TAG, failedClOrdId);
        if (clOrdIdLength > 0)
        {
            businessReject.businessRejectRefID(failedClOrdId, clOrdIdLength);
        }
        send(state, businessReject);
    }

    /**
     * Note an inbound message as handled in the session's record (see {@link FixSessionState#onHandled}); a
     * SequenceReset carries the number the counterparty sends next (NewSeqNo) and whether it fills a gap.
     */
    private static void recordHandled(
        final FixSessionState state,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int sequenceIndex,
        final long messageType,
        final boolean isValid,
        final boolean isRejected)
    {
        final int msgSeqNum = FixMessageFields.intField(buffer, offset, length, MSG_SEQ_NUM_TAG);
        if (msgSeqNum <= 0)
        {
            return;
        }
        int newSeqNo = 0;
        boolean isGapFill = false;
        if (messageType == SEQUENCE_RESET_MESSAGE_TYPE)
        {
            newSeqNo = Math.max(0, FixMessageFields.intField(buffer, offset, length, NEW_SEQ_NO_TAG));
            final int gapFill = FixMessageFields.fieldValueOffset(buffer, offset, length, GAP_FILL_FLAG_TAG);
            isGapFill = gapFill >= 0 && buffer.getByte(gapFill) == 'Y';
        }
        state.onHandled(isValid, isRejected, sequenceIndex, msgSeqNum, newSeqNo, isGapFill);
    }

    private static boolean isSessionMessage(final long messageType)
    {
        // Heartbeat, TestRequest, ResendRequest, Reject, SequenceReset, Logout, Logon: single characters.
        return messageType == '0' || messageType == '1' || messageType == '2' || messageType == '3' ||
            messageType == '4' || messageType == '5' || messageType == 'A';
    }

    private boolean validates(
        final FixSessionState state,
        final boolean valid,
        final int invalidTagId,
        final int rejectReason,
        final HeaderDecoder header,
        final String msgType)
    {
        if (valid)
        {
            return true;
        }
        sessionReject.reset();
        reverseRoute(header, sessionReject.header());
        sessionReject.refSeqNum(header.msgSeqNum())
            .refMsgType(msgType)
            .sessionRejectReason(rejectReason);
        if (invalidTagId > 0)
        {
            sessionReject.refTagID(invalidTagId);
        }
        send(state, sessionReject);
        return false;
    }

    /**
     * Artio's decoders keep UTCTimestamp and LocalMktDate fields as bytes without checking them: TransactTime (60),
     * ExpireTime (126) and ExpireDate (432) in a bad format get a session Reject (incorrect data format) rather than
     * being passed on.
     */
    private boolean timestampsValid(
        final FixSessionState state,
        final HeaderDecoder header,
        final String msgType,
        final byte[] transactTime,
        final int transactTimeLength,
        final byte[] expireTime,
        final int expireTimeLength,
        final byte[] expireDate,
        final int expireDateLength)
    {
        final int badTag = !FixTimestamps.isUtcTimestamp(transactTime, transactTimeLength) ? 60 :
            expireTime != null && !FixTimestamps.isUtcTimestamp(expireTime, expireTimeLength) ? 126 :
            expireDate != null && !FixTimestamps.isLocalMktDate(expireDate, expireDateLength) ? 432 : 0;
        return badTag == 0 || validates(state, false, badTag, FixRejects.SESSION_INCORRECT_DATA_FORMAT, header, msgType);
    }

    /**
     * Repeating groups whose entries do not start with their delimiter or have their fields out of order get a
     * session Reject: Artio's decoders do not check either.
     */
    private boolean groupsValid(
        final FixSessionState state,
        final HeaderDecoder header,
        final String msgType,
        final long messageType,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        if (repeatingGroups.validate(messageType, buffer, offset, length))
        {
            return true;
        }
        sessionReject.reset();
        reverseRoute(header, sessionReject.header());
        sessionReject.refSeqNum(header.msgSeqNum())
            .refMsgType(msgType)
            .refTagID(repeatingGroups.invalidTagId())
            .sessionRejectReason(FixRejects.SESSION_REPEATING_GROUP_FIELDS_OUT_OF_ORDER);
        if (repeatingGroups.groupWithoutDelimiterTag() != 0)
        {
            sessionReject.groupWithoutDelimiter(
                repeatingGroups.groupWithoutDelimiterTag(), repeatingGroups.delimiterTag());
        }
        send(state, sessionReject);
        return false;
    }

    /**
     * A well-formed message of a type in the dictionary that the exchange does not trade on: unsupported, unless a
     * test has taken such messages over.
     */
    private void onNotTradedMessage(
        final Session session,
        final FixSessionState state,
        final long messageType,
        final HeaderDecoder header,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        if (applicationMessageOverride != null)
        {
            applicationMessageOverride.onApplicationMessage(session, messageType, header, buffer, offset, length);
        }
        else
        {
            onUnsupportedMessage(state, header);
        }
    }

    private void onUnsupportedMessage(final FixSessionState state, final HeaderDecoder header)
    {
        final int msgTypeLength = Math.min(header.msgTypeLength(), msgTypeChars.length);
        System.arraycopy(header.msgType(), 0, msgTypeChars, 0, msgTypeLength);
        final String msgType = new String(msgTypeChars, 0, msgTypeLength);
        if (fix44MsgTypes.contains(msgType))
        {
            businessReject.reset();
            reverseRoute(header, businessReject.header());
            businessReject.refSeqNum(header.msgSeqNum())
                .refMsgType(msgTypeChars, msgTypeLength)
                .businessRejectReason(FixRejects.BUSINESS_UNSUPPORTED_MESSAGE_TYPE)
                .text("Unsupported Message Type");
            send(state, businessReject);
        }
        else
        {
            sessionReject.reset();
            reverseRoute(header, sessionReject.header());
            sessionReject.refSeqNum(header.msgSeqNum())
                .refTagID(35)
                .refMsgType(msgTypeChars, msgTypeLength)
                .sessionRejectReason(FixRejects.SESSION_INVALID_MSG_TYPE);
            send(state, sessionReject);
        }
    }

    /**
     * A reply to a message routed through a third party goes back the way it came (FIX 4.4 Vol 2, third-party
     * routing): OnBehalfOf* (115, 116, 144) of the message answered become DeliverTo* (128, 129, 145) of the
     * answer, and DeliverTo* become OnBehalfOf*. Empty values are not copied (the message was invalid for them).
     */
    private static void reverseRoute(final HeaderDecoder in, final HeaderEncoder out)
    {
        if (in.hasOnBehalfOfCompID() && in.onBehalfOfCompIDLength() > 0)
        {
            out.deliverToCompID(in.onBehalfOfCompID(), in.onBehalfOfCompIDLength());
        }
        if (in.hasOnBehalfOfSubID() && in.onBehalfOfSubIDLength() > 0)
        {
            out.deliverToSubID(in.onBehalfOfSubID(), in.onBehalfOfSubIDLength());
        }
        if (in.hasOnBehalfOfLocationID() && in.onBehalfOfLocationIDLength() > 0)
        {
            out.deliverToLocationID(in.onBehalfOfLocationID(), in.onBehalfOfLocationIDLength());
        }
        if (in.hasDeliverToCompID() && in.deliverToCompIDLength() > 0)
        {
            out.onBehalfOfCompID(in.deliverToCompID(), in.deliverToCompIDLength());
        }
        if (in.hasDeliverToSubID() && in.deliverToSubIDLength() > 0)
        {
            out.onBehalfOfSubID(in.deliverToSubID(), in.deliverToSubIDLength());
        }
        if (in.hasDeliverToLocationID() && in.deliverToLocationIDLength() > 0)
        {
            out.onBehalfOfLocationID(in.deliverToLocationID(), in.deliverToLocationIDLength());
        }
    }

    // ------------------------------------------------------------------------------------------------ orders in

    private void onNewOrderSingle(final FixSessionState state, final int sequenceIndex, final long receivedNs)
    {
        final NewOrderSingleDecoder in = newOrderSingle;
        final int msgSeqNum = in.header().msgSeqNum();
        final char[] clOrdId = in.clOrdID();
        final int clOrdIdLength = in.clOrdIDLength();
        if (clOrdIdLength > FixOrder.MAX_ID_LENGTH)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER, "ClOrdID longer than 64 characters");
            return;
        }
        final long clOrdIdHash = FixOrder.hash(clOrdId, clOrdIdLength);
        final boolean open = state.findOpen(clOrdId, clOrdIdLength) != null;
        if (open || state.usedClOrdIds.contains(clOrdIdHash))
        {
            // A session-level resend (PossDupFlag) or an application's own (PossResend) of an order already taken is
            // not answered again; any other order under a ClOrdID in use is refused. Neither may trade twice.
            final HeaderDecoder header = in.header();
            if ((header.hasPossDupFlag() && header.possDupFlag()) || (header.hasPossResend() && header.possResend()))
            {
                return;
            }
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_DUPLICATE_ORDER,
                open ? "Duplicate ClOrdID of an open order" : "Duplicate ClOrdID of a recent order");
            return;
        }
        if (refusedForRate(state))
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER, state.rateLimit.refusal());
            return;
        }
        if (in.hasAccount() && !accountMatches(state, in.account(), in.accountLength()))
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_UNKNOWN_ACCOUNT,
                "Account does not belong to this session");
            return;
        }
        final FixInstrument instrument = instrument(in.symbol(), in.symbolLength());
        if (instrument == null)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_UNKNOWN_SYMBOL, "Unknown Symbol");
            return;
        }
        final Side side = side(in.side());
        if (side == null)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_UNSUPPORTED, "Side must be 1 (Buy) or 2 (Sell)");
            return;
        }
        final char ordType = in.ordType();
        final OrderType orderType = ordType == '2' || ordType == ORD_TYPE_STOP_LIMIT ? OrderType.LIMIT :
            ordType == '1' || ordType == ORD_TYPE_STOP ? OrderType.MARKET : null;
        if (orderType == null)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_UNSUPPORTED,
                "OrdType must be 1 (Market), 2 (Limit), 3 (Stop) or 4 (Stop limit)");
            return;
        }
        final boolean stop = ordType == ORD_TYPE_STOP || ordType == ORD_TYPE_STOP_LIMIT;
        final char fixTimeInForce = in.hasTimeInForce() ? in.timeInForce() : 0;
        final boolean day = fixTimeInForce == TIME_IN_FORCE_DAY;
        if (day && endOfDayNsOfDay < 0)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_UNSUPPORTED,
                "TimeInForce 0 (Day) needs the gateway's end of day (fix.end.of.day.utc), and it has none");
            return;
        }
        final TimeInForce timeInForce = timeInForce(fixTimeInForce, orderType, stop);
        if (timeInForce == null)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_UNSUPPORTED,
                "TimeInForce must be 0 (Day), 1 (GTC), 3 (IOC), 4 (FOK) or 6 (GTD); market orders IOC or FOK");
            return;
        }
        final boolean byDate = in.hasExpireDate();
        final long expireTimeNs = day ? dayOrderExpiryNs(System.currentTimeMillis() * 1_000_000L) :
            in.hasExpireTime() ? FixTimestamps.epochNanos(in.expireTime(), in.expireTimeLength()) :
            byDate ? expiryOfDate(FixTimestamps.epochDay(in.expireDate(), in.expireDateLength())) : 0;
        final String expiryProblem = expiryProblem(timeInForce == TimeInForce.GTD && !day, in.hasExpireTime(), byDate,
            expireTimeNs);
        if (expiryProblem != null)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER, expiryProblem);
            return;
        }
        final long stopPx = stop && in.hasStopPx() ? FixDecimals.toScaled(in.stopPx(), instrument.priceScale()) : 0;
        final String stopProblem = stopProblem(ordType, in.hasStopPx(), stopPx);
        if (stopProblem != null)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER, stopProblem);
            return;
        }
        if (!in.hasOrderQty())
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_INCORRECT_QUANTITY, "OrderQty (38) required");
            return;
        }
        final long quantity = FixDecimals.toScaled(in.orderQty(), instrument.quantityScale());
        if (quantity == FixDecimals.INVALID || quantity <= 0)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_INCORRECT_QUANTITY,
                "OrderQty must be positive with at most the instrument's quantity decimals");
            return;
        }
        long price = 0;
        if (orderType == OrderType.LIMIT)
        {
            if (!in.hasPrice())
            {
                rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER, "Price (44) required on a limit order");
                return;
            }
            price = FixDecimals.toScaled(in.price(), instrument.priceScale());
            if (price == FixDecimals.INVALID || price <= 0)
            {
                rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER,
                    "Price must be positive with at most the instrument's price decimals");
                return;
            }
        }
        else if (in.hasPrice())
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER,
                "Price not allowed on a market or stop order (OrdType 1 or 3)");
            return;
        }
        final boolean hasExecInst = in.hasExecInst();
        final String unsupported = unsupportedInstruction(hasExecInst ? in.execInst() : null,
            hasExecInst ? in.execInstLength() : 0, in.hasMinQty());
        if (unsupported != null)
        {
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_UNSUPPORTED, unsupported);
            return;
        }
        final boolean postOnly = in.hasExecInst() && contains(in.execInst(), in.execInstLength(), '6');

        final FixOrder order = newOrder();
        order.session = state;
        order.clOrdId(clOrdId, clOrdIdLength);
        order.engineClientOrderId = engineClientOrderId(state, sequenceIndex, msgSeqNum);
        order.accountId = state.spec.accountId();
        order.instrument = instrument;
        order.side = in.side();
        order.ordType = in.ordType();
        order.timeInForce = day ? TIME_IN_FORCE_DAY : fixTimeInForce(timeInForce);
        order.postOnly = postOnly;
        order.price = price;
        order.stopPx = stopPx;
        order.expireTimeNs = expireTimeNs;
        order.expireByDate = byDate;
        order.quantity = quantity;
        order.receivedNs = receivedNs;
        final int length = commandEncoder.newOrder(commandBuffer, 0, order.accountId, order.engineClientOrderId,
            instrument.instrumentId(), side, orderType, timeInForce, postOnly, SelfTradePrevention.ACCOUNT_DEFAULT,
            price, quantity, 0, expireTimeNs, stopPx);
        // Recorded before it is sent: a gateway that stops before the answer comes still knows, after a restart, the
        // ClOrdID and session of the order the answer is about (else an order live at the exchange is one its client
        // never hears of).
        store.writePending(order);
        order.recordedPending = true;
        final long requestSequence = client.trySend(commandBuffer, 0, length);
        if (requestSequence < 0)
        {
            store.writeNotAccepted(order.engineClientOrderId);
            rejectNewOrder(state, in, msgSeqNum, FixRejects.ORD_REJ_OTHER, "Exchange busy: too many orders in flight");
            return;
        }
        if (latencyProbe != null)
        {
            order.commandSentNs = clock.nanoTime();
        }
        state.usedClOrdIds.add(clOrdIdHash);
        state.openOrdersByClOrdId.put(clOrdIdHash, order);
        final Pending pending = newPending(PENDING_NEW, state, order);
        pendingByRequest.put(requestSequence, pending);
    }

    /**
     * Whether a NewOrderSingle or OrderCancelReplaceRequest of the session is over its rate, and so refused (counted).
     */
    private boolean refusedForRate(final FixSessionState state)
    {
        if (state.takeRateToken())
        {
            return false;
        }
        rateLimited.increment();
        return true;
    }

    private void onCancelRequest(final FixSessionState state)
    {
        // Counted against the session's rate, never refused for it.
        state.takeRateToken();
        final OrderCancelRequestDecoder in = cancelRequest;
        final int msgSeqNum = in.header().msgSeqNum();
        if (in.clOrdIDLength() > FixOrder.MAX_ID_LENGTH)
        {
            rejectCancel(state, null, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '1', FixRejects.CXL_REJ_OTHER, "ClOrdID longer than 64 characters");
            return;
        }
        final FixOrder order = state.findOpen(in.origClOrdID(), in.origClOrdIDLength());
        if (order == null)
        {
            refuseForClosedOrUnknown(state, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(),
                in.origClOrdIDLength(), '1');
            return;
        }
        if (in.side() != order.side || !symbolMatches(order, in.symbol(), in.symbolLength()))
        {
            rejectCancel(state, order, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '1', FixRejects.CXL_REJ_OTHER, "Side or Symbol does not match the order");
            return;
        }
        final int length = commandEncoder.cancelOrder(
            commandBuffer, 0, order.accountId, order.orderId, order.orderId == 0 ? order.engineClientOrderId : 0);
        final long requestSequence = client.trySend(commandBuffer, 0, length);
        if (requestSequence < 0)
        {
            rejectCancel(state, order, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '1', FixRejects.CXL_REJ_OTHER, "Exchange busy: too many orders in flight");
            return;
        }
        final Pending pending = newPending(PENDING_CANCEL, state, order);
        pending.clOrdId(in.clOrdID(), in.clOrdIDLength());
        pending.origClOrdId(in.origClOrdID(), in.origClOrdIDLength());
        pending.msgSeqNum = msgSeqNum;
        pendingByRequest.put(requestSequence, pending);
    }

    private void onReplaceRequest(final FixSessionState state, final int sequenceIndex)
    {
        final OrderCancelReplaceRequestDecoder in = replaceRequest;
        final int msgSeqNum = in.header().msgSeqNum();
        if (in.clOrdIDLength() > FixOrder.MAX_ID_LENGTH)
        {
            rejectCancel(state, null, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '2', FixRejects.CXL_REJ_OTHER, "ClOrdID longer than 64 characters");
            return;
        }
        final FixOrder order = state.findOpen(in.origClOrdID(), in.origClOrdIDLength());
        if (order == null)
        {
            refuseForClosedOrUnknown(state, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(),
                in.origClOrdIDLength(), '2');
            return;
        }
        if (refusedForRate(state))
        {
            rejectCancel(state, order, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '2', FixRejects.CXL_REJ_OTHER, state.rateLimit.refusal());
            return;
        }
        // Read once: checked by replaceProblem, then sent. A stop market order (OrdType 3) names no price.
        final long price = order.ordType == ORD_TYPE_STOP || !in.hasPrice() ? 0 :
            FixDecimals.toScaled(in.price(), order.instrument.priceScale());
        final long quantity =
            in.hasOrderQty() ? FixDecimals.toScaled(in.orderQty(), order.instrument.quantityScale()) : 0;
        final long requestedStopPx =
            in.hasStopPx() ? FixDecimals.toScaled(in.stopPx(), order.instrument.priceScale()) : 0;
        final String problem = replaceProblem(order, in, price, quantity, requestedStopPx);
        if (problem != null)
        {
            rejectCancel(state, order, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '2', FixRejects.CXL_REJ_OTHER, problem);
            return;
        }
        if (state.findOpen(in.clOrdID(), in.clOrdIDLength()) != null ||
            state.usedClOrdIds.contains(FixOrder.hash(in.clOrdID(), in.clOrdIDLength())))
        {
            rejectCancel(state, order, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '2', FixRejects.CXL_REJ_DUPLICATE_CLORDID, "Duplicate ClOrdID");
            return;
        }
        final long newEngineClientOrderId = engineClientOrderId(state, sequenceIndex, msgSeqNum);
        // 0 keeps the stop price: a triggered order's StopPx, sent again unchanged, is no change.
        final long stopPx = order.triggered ? 0 : requestedStopPx;
        final int length = commandEncoder.replaceOrder(commandBuffer, 0, order.accountId, order.orderId,
            order.orderId == 0 ? order.engineClientOrderId : 0, newEngineClientOrderId, price, quantity, stopPx);
        // Recorded before it is sent, as a new order is: a gateway that stops before the answer still reports it.
        store.writeReplacing(order, newEngineClientOrderId, price, quantity, stopPx != 0 ? stopPx : order.stopPx,
            in.clOrdID(), in.clOrdIDLength());
        final long requestSequence = client.trySend(commandBuffer, 0, length);
        if (requestSequence < 0)
        {
            store.writeReplaceDone(newEngineClientOrderId);
            rejectCancel(state, order, in.clOrdID(), in.clOrdIDLength(), in.origClOrdID(), in.origClOrdIDLength(),
                '2', FixRejects.CXL_REJ_OTHER, "Exchange busy: too many orders in flight");
            return;
        }
        // Taken now, not when the replace is done: a new order or another replace under it meanwhile is a duplicate.
        state.usedClOrdIds.add(FixOrder.hash(in.clOrdID(), in.clOrdIDLength()));
        final Pending pending = newPending(PENDING_REPLACE, state, order);
        pending.engineClientOrderId = newEngineClientOrderId;
        pending.clOrdId(in.clOrdID(), in.clOrdIDLength());
        pending.origClOrdId(in.origClOrdID(), in.origClOrdIDLength());
        pending.msgSeqNum = msgSeqNum;
        pendingByRequest.put(requestSequence, pending);
    }

    /**
     * A cancel or replace of an order the session does not hold open: too late, with the order's final state, when it
     * closed recently (the request crossed its fill or cancel on the wire); unknown otherwise.
     */
    private void refuseForClosedOrUnknown(
        final FixSessionState state,
        final char[] clOrdId,
        final int clOrdIdLength,
        final char[] origClOrdId,
        final int origClOrdIdLength,
        final char responseTo)
    {
        final FixOrder closed = state.findRecentlyClosed(origClOrdId, origClOrdIdLength);
        if (closed != null)
        {
            rejectCancel(state, closed, clOrdId, clOrdIdLength, origClOrdId, origClOrdIdLength, responseTo,
                FixRejects.CXL_REJ_TOO_LATE, ORDER_CLOSED, ordStatus(closed));
        }
        else
        {
            rejectCancel(state, null, clOrdId, clOrdIdLength, origClOrdId, origClOrdIdLength, responseTo,
                FixRejects.CXL_REJ_UNKNOWN_ORDER, "Unknown order");
        }
    }

    /**
     * @param price    the request's Price on the instrument's grid (0 when it names none, or for a stop market order).
     * @param quantity the request's OrderQty on the instrument's grid (0 when it names none).
     * @param stopPx   the request's StopPx on the instrument's grid (0 when it names none).
     * @return why the replace is refused, or null.
     */
    private String replaceProblem(
        final FixOrder order,
        final OrderCancelReplaceRequestDecoder in,
        final long price,
        final long quantity,
        final long stopPx)
    {
        if (in.side() != order.side || !symbolMatches(order, in.symbol(), in.symbolLength()))
        {
            return "Side or Symbol does not match the order";
        }
        final char ordType = order.ordType;
        if (in.ordType() != ordType || ordType == '1')
        {
            return "Only limit and stop orders can be replaced, and OrdType cannot change";
        }
        final boolean hasExecInst = in.hasExecInst();
        final String unsupported = unsupportedInstruction(hasExecInst ? in.execInst() : null,
            hasExecInst ? in.execInstLength() : 0, in.hasMinQty());
        if (unsupported != null)
        {
            return unsupported;
        }
        // The exchange's replace changes price, quantity and stop price only: any other term named must be the
        // order's own, else the sender would believe it changed.
        if (in.hasTimeInForce() && order.timeInForce != 0 && in.timeInForce() != order.timeInForce)
        {
            return "TimeInForce cannot change on a replace";
        }
        if (in.hasExpireTime())
        {
            if (order.timeInForce != TIME_IN_FORCE_GTD)
            {
                return "ExpireTime (126) only on a GTD order";
            }
            final long expireTimeNs = FixTimestamps.epochNanos(in.expireTime(), in.expireTimeLength());
            if (expireTimeNs == FixTimestamps.INVALID)
            {
                return INVALID_EXPIRE_TIME;
            }
            if (order.expireTimeNs != 0 && expireTimeNs != order.expireTimeNs)
            {
                return "ExpireTime cannot change on a replace";
            }
        }
        if (in.hasExpireDate())
        {
            if (order.timeInForce != TIME_IN_FORCE_GTD)
            {
                return "ExpireDate (432) only on a GTD order";
            }
            if (in.hasExpireTime())
            {
                return "ExpireTime (126) and ExpireDate (432) together: give one";
            }
            final long expireTimeNs = expiryOfDate(FixTimestamps.epochDay(in.expireDate(), in.expireDateLength()));
            if (expireTimeNs == FixTimestamps.INVALID)
            {
                return INVALID_EXPIRE_DATE;
            }
            // The same expiry, however the order was given it: the date's is compared as an instant, as ExpireTime's.
            if (order.expireTimeNs != 0 && expireTimeNs != order.expireTimeNs)
            {
                return "ExpireDate cannot change on a replace";
            }
        }
        final boolean priced = ordType != ORD_TYPE_STOP;
        if (!in.hasOrderQty() || (priced && !in.hasPrice()))
        {
            return priced ? "Price (44) and OrderQty (38) required" : "OrderQty (38) required";
        }
        if (!priced && in.hasPrice())
        {
            return "Price not allowed on a stop order (OrdType 3)";
        }
        if (priced && (price == FixDecimals.INVALID || price <= 0))
        {
            return "Price must be positive with at most the instrument's price decimals";
        }
        if (quantity == FixDecimals.INVALID || quantity <= 0)
        {
            return "OrderQty must be positive with at most the instrument's quantity decimals";
        }
        if (!in.hasStopPx())
        {
            return null;
        }
        if (ordType == '2')
        {
            return "StopPx not allowed on a limit order";
        }
        // A stop order that has triggered is a limit order now: its StopPx may be sent again, not changed.
        return order.triggered && stopPx != order.stopPx ? "StopPx cannot change: the stop order has triggered" :
            stopProblem(ordType, true, stopPx);
    }

    /**
     * What the exchange says of an order's stop terms in a status: the stop price of one still waiting for it (which a
     * replace may have moved); 0 for one that has triggered, if it was a stop order.
     */
    private static void stopTerms(final FixOrder order, final long stopPrice)
    {
        if (stopPrice != 0 && stopPrice != OrderStatusReportDecoder.stopPriceNullValue())
        {
            order.stopPx = stopPrice;
        }
        else if (order.ordType == ORD_TYPE_STOP || order.ordType == ORD_TYPE_STOP_LIMIT)
        {
            order.triggered = true;
        }
    }

    /**
     * @return why a stop price is wrong for the OrdType, or null: a stop order (3 or 4) needs a positive StopPx (99) on
     * the instrument's price decimals (or, on a replace, none to keep its own), and no other order may have one.
     */
    private static String stopProblem(final char ordType, final boolean hasStopPx, final long stopPx)
    {
        final boolean stop = ordType == ORD_TYPE_STOP || ordType == ORD_TYPE_STOP_LIMIT;
        if (!stop)
        {
            return hasStopPx ? "StopPx (99) only on a stop order (OrdType 3 or 4)" : null;
        }
        if (!hasStopPx)
        {
            return "StopPx (99) required on a stop order";
        }
        return stopPx == FixDecimals.INVALID || stopPx <= 0 ?
            "StopPx must be positive with at most the instrument's price decimals" : null;
    }

    /**
     * @return the stop price an event gives an order, or the one the gateway knew when it gives none (an order that
     * is not, or no longer, waiting for its stop price keeps the StopPx it was entered with on its reports).
     */
    private static long stopPx(final long eventStopPrice, final long known)
    {
        return eventStopPrice == 0 || eventStopPrice == OrderReplacedDecoder.stopPriceNullValue() ? known : eventStopPrice;
    }

    /**
     * @return the expiry an event gives an order, or the one the gateway knew when it gives none (an event of a version
     * before expiries were carried).
     */
    private static long expireTimeNs(final long eventExpiryTimeNs, final long known)
    {
        return eventExpiryTimeNs == OrderAcceptedDecoder.expiryTimeNsNullValue() ? known : eventExpiryTimeNs;
    }

    private void onStatusRequest(final FixSessionState state)
    {
        // Counted against the session's rate, never refused for it.
        state.takeRateToken();
        final OrderStatusRequestDecoder in = statusRequest;
        final int clOrdIdLength = in.clOrdIDLength();
        final FixOrder open = state.findOpen(in.clOrdID(), clOrdIdLength);
        final FixOrder closed = open == null ? state.findRecentlyClosed(in.clOrdID(), clOrdIdLength) : null;
        // An order a restart left waiting for the exchange's word is answered as not yet acknowledged, not unknown.
        final FixOrder order = open != null || closed != null ? open : pendingRestored(state, in.clOrdID(), clOrdIdLength);
        if (closed != null)
        {
            // Its final state, as its last report gave it.
            answerStatusFromGateway(state, closed, in, null);
            return;
        }
        if (order == null || order.orderId == 0)
        {
            executionReport.reset();
            idBuffer.putStringWithoutLengthAscii(0, "S");
            executionReport
                .orderID(NONE)
                .clOrdID(in.clOrdID(), Math.min(in.clOrdIDLength(), FixOrder.MAX_ID_LENGTH))
                .execID(localExecId(state, in.header().msgSeqNum()))
                .execType(EXEC_STATUS)
                .ordStatus(order == null ? STATUS_REJECTED : STATUS_PENDING_NEW)
                .symbol(in.symbol(), in.symbolLength())
                .side(in.side())
                .leavesQty(order == null ? 0 : order.quantity, order == null ? 0 : order.instrument.quantityScale())
                .cumQty(0, 0)
                .avgPx(0, 0)
                .text(order == null ? "Unknown order" : "Order not yet acknowledged");
            if (in.hasOrdStatusReqID())
            {
                executionReport.ordStatusReqID(in.ordStatusReqID(), in.ordStatusReqIDLength());
            }
            transactTime(System.currentTimeMillis() * 1_000_000L);
            send(state, executionReport);
            return;
        }
        final int length = commandEncoder.queryOrder(commandBuffer, 0, order.accountId, order.orderId, 0);
        final long requestSequence = client.trySend(commandBuffer, 0, length);
        if (requestSequence < 0)
        {
            // The exchange cannot be asked now: answer from the gateway's record, current up to the last event.
            answerStatusFromGateway(state, order, in, "Exchange busy: status as last reported by the exchange");
            return;
        }
        pendingByRequest.put(requestSequence, statusRequester(state, order, in));
    }

    private Pending statusRequester(
        final FixSessionState state, final FixOrder order, final OrderStatusRequestDecoder in)
    {
        final Pending requester = newPending(PENDING_STATUS, state, order);
        if (in.hasOrdStatusReqID())
        {
            requester.clOrdId(in.ordStatusReqID(), Math.min(in.ordStatusReqIDLength(), FixOrder.MAX_ID_LENGTH));
        }
        requester.msgSeqNum = in.header().msgSeqNum();
        requester.sequenceIndex = state.session != null ? state.session.sequenceIndex() : state.lastSequenceIndex;
        return requester;
    }

    /**
     * A status answer made by the gateway from its own record of the order (named by the request, see
     * {@link #sendReport}).
     */
    private void answerStatusFromGateway(
        final FixSessionState state, final FixOrder order, final OrderStatusRequestDecoder in, final String text)
    {
        final Pending requester = statusRequester(state, order, in);
        sendReport(order, EXEC_STATUS, ordStatus(order), 0, 0, 0, text, requester, 0);
        releasePending(requester);
    }

    /**
     * OrderMassStatusRequest: an ExecutionReport (ExecType I) for each of the session's open orders that match, all
     * orders (7) or those of a Symbol (1), of a Side when given, from the gateway's record of each, current up to the
     * last event it handled (as a status request answered by the gateway is); the last says LastRptRequested, and
     * each carries the request's MassStatusReqID and how many there are. The session's own orders: those of its
     * account entered by another session have ClOrdIDs it never sent. An order not yet acknowledged, or that a restart
     * left waiting for the exchange to say whether it accepted it, is reported pending (OrdStatus A).
     */
    private void onMassStatusRequest(final FixSessionState state)
    {
        // Counted against the session's rate, never refused for it.
        state.takeRateToken();
        final OrderMassStatusRequestDecoder in = massStatusRequest;
        final int requestType = in.massStatusReqType();
        FixInstrument instrument = null;
        String problem = null;
        int reason = FixRejects.BUSINESS_OTHER;
        if (in.massStatusReqIDLength() > FixOrder.MAX_ID_LENGTH)
        {
            problem = "MassStatusReqID longer than " + FixOrder.MAX_ID_LENGTH + " characters";
        }
        else if (requestType == MASS_STATUS_BY_SYMBOL)
        {
            instrument = in.hasSymbol() ? instrument(in.symbol(), in.symbolLength()) : null;
            if (!in.hasSymbol())
            {
                problem = "Symbol is required with MassStatusReqType 1 (orders of a Symbol)";
                reason = FixRejects.BUSINESS_CONDITIONALLY_REQUIRED_FIELD_MISSING;
            }
            else if (instrument == null)
            {
                problem = "Unknown Symbol";
                reason = FixRejects.BUSINESS_UNKNOWN_SECURITY;
            }
        }
        else if (requestType != MASS_STATUS_ALL_ORDERS)
        {
            problem = "MassStatusReqType must be 1 (orders of a Symbol) or 7 (all orders)";
        }
        if (problem == null && in.hasSide() && side(in.side()) == null)
        {
            problem = "Side must be 1 (Buy) or 2 (Sell)";
        }
        final ArrayList<FixOrder> orders = massStatusOrders;
        try
        {
            if (problem == null)
            {
                for (final FixOrder order : state.openOrdersByClOrdId.values())
                {
                    if (massStatusMatches(order, instrument, in))
                    {
                        orders.add(order);
                    }
                }
                // And those a restart left waiting for the exchange to say whether it accepted them.
                for (final FixOrder order : pendingRestored.values())
                {
                    if (order.session == state && massStatusMatches(order, instrument, in))
                    {
                        orders.add(order);
                    }
                }
                // Reports Artio cannot take at once are held, up to a bound past which the oldest (fills, perhaps)
                // would go: a request that could push them out is refused instead.
                if (state.heldMessages.size() + orders.size() > MAX_HELD_MESSAGES_PER_SESSION)
                {
                    problem = orders.size() + " open orders match, more than the gateway can report at once now: " +
                        "ask for a Symbol or a Side, or again later";
                }
            }
            if (problem != null)
            {
                businessReject.reset();
                reverseRoute(in.header(), businessReject.header());
                businessReject.refSeqNum(in.header().msgSeqNum())
                    .refMsgType(MASS_STATUS_MSG_TYPE, MASS_STATUS_MSG_TYPE.length)
                    .businessRejectRefID(in.massStatusReqID(),
                        Math.min(in.massStatusReqIDLength(), FixOrder.MAX_ID_LENGTH))
                    .businessRejectReason(reason)
                    .text(problem);
                send(state, businessReject);
                return;
            }
            orders.sort(FixGatewayAgent::byOrderIdUnacknowledgedLast);
            reportMassStatus(state, in, orders);
        }
        finally
        {
            orders.clear();
        }
    }

    private void reportMassStatus(
        final FixSessionState state, final OrderMassStatusRequestDecoder in, final ArrayList<FixOrder> orders)
    {
        final Pending requester = newPending(PENDING_MASS_STATUS, state, null);
        try
        {
            requester.clOrdId(in.massStatusReqID(), in.massStatusReqIDLength());
            requester.msgSeqNum = in.header().msgSeqNum();
            requester.sequenceIndex = state.session != null ? state.session.sequenceIndex() : state.lastSequenceIndex;
            requester.reports = orders.size();
            if (orders.isEmpty())
            {
                executionReport.reset();
                executionReport
                    .orderID(NONE)
                    .massStatusReqID(requester.clOrdId, requester.clOrdIdLength)
                    .totNumReports(0)
                    .lastRptRequested(true)
                    .execID(massStatusExecId(requester))
                    .execType(EXEC_STATUS)
                    .ordStatus(STATUS_REJECTED)
                    .account(state.accountChars)
                    .side(in.hasSide() ? in.side() : SIDE_UNDISCLOSED)
                    .leavesQty(0, 0)
                    .cumQty(0, 0)
                    .avgPx(0, 0)
                    .text("No open orders match");
                if (in.massStatusReqType() == MASS_STATUS_BY_SYMBOL)
                {
                    executionReport.symbol(in.symbol(), in.symbolLength());
                }
                else
                {
                    executionReport.symbol(NONE);
                }
                transactTime(System.currentTimeMillis() * 1_000_000L);
                send(state, executionReport);
            }
            for (int i = 0; i < orders.size(); i++)
            {
                final FixOrder order = orders.get(i);
                requester.reportIndex = i + 1;
                sendReport(order, EXEC_STATUS, order.orderId == 0 ? STATUS_PENDING_NEW : ordStatus(order), 0, 0, 0,
                    order.orderId == 0 ? "Order not yet acknowledged" : null, requester, 0);
            }
        }
        finally
        {
            releasePending(requester);
        }
    }

    /**
     * @param instrument the request's Symbol's, or null for all.
     */
    private static boolean massStatusMatches(
        final FixOrder order, final FixInstrument instrument, final OrderMassStatusRequestDecoder in)
    {
        return (instrument == null || order.instrument == instrument) && (!in.hasSide() || order.side == in.side());
    }

    private static int byOrderIdUnacknowledgedLast(final FixOrder a, final FixOrder b)
    {
        return a.orderId == 0 || b.orderId == 0 ? Boolean.compare(a.orderId == 0, b.orderId == 0) :
            Long.compare(a.orderId, b.orderId);
    }

    /**
     * A mass status report's ExecID: the request's (see {@link #localExecId}) and the report's number among them.
     */
    private DirectBuffer massStatusExecId(final Pending requester)
    {
        final DirectBuffer requestId = localExecId(requester.session, requester.sequenceIndex, requester.msgSeqNum);
        int length = requestId.capacity();
        idBuffer.putByte(length++, (byte)'.');
        length += idBuffer.putIntAscii(length, requester.reportIndex);
        localExecIdView.wrap(idBuffer, 0, length);
        return localExecIdView;
    }

    private void onMassCancelRequest(final FixSessionState state)
    {
        // Counted against the session's rate, never refused for it.
        state.takeRateToken();
        final OrderMassCancelRequestDecoder in = massCancelRequest;
        final char requestType = in.massCancelRequestType();
        int instrumentId = 0;
        String problem = null;
        // MassCancelRejectReason (532) is a CHAR to QuickFIX/J: its "99" (other) fails a client's validation, so a
        // reason without a value of its own is given in Text alone.
        String rejectReason = null;
        if (requestType == '1')
        {
            final FixInstrument instrument = in.hasSymbol() ? instrument(in.symbol(), in.symbolLength()) : null;
            if (instrument == null)
            {
                problem = "Unknown Symbol";
                rejectReason = MASS_CANCEL_UNKNOWN_SECURITY;
            }
            else
            {
                instrumentId = instrument.instrumentId();
            }
        }
        else if (requestType != '7')
        {
            problem = "MassCancelRequestType must be 1 (by Symbol) or 7 (all orders)";
            rejectReason = MASS_CANCEL_NOT_SUPPORTED;
        }
        final Side side = in.hasSide() ? side(in.side()) : null;
        if (problem == null && in.hasSide() && side == null)
        {
            problem = "Side must be 1 (Buy) or 2 (Sell)";
        }
        long requestSequence = -1;
        if (problem == null)
        {
            final int length = commandEncoder.massCancel(commandBuffer, 0, state.spec.accountId(), instrumentId,
                side == null ? Side.NULL_VAL : side);
            requestSequence = client.trySend(commandBuffer, 0, length);
            if (requestSequence < 0)
            {
                problem = "Exchange busy: too many orders in flight";
            }
        }
        if (problem != null)
        {
            massCancelReport.reset();
            massCancelReport
                .clOrdID(in.clOrdID(), Math.min(in.clOrdIDLength(), FixOrder.MAX_ID_LENGTH))
                .orderID(NONE)
                .massCancelRequestType(requestType)
                .massCancelResponse('0')
                .text(problem);
            if (rejectReason != null)
            {
                massCancelReport.massCancelRejectReason(rejectReason);
            }
            send(state, massCancelReport);
            return;
        }
        final Pending pending = newPending(PENDING_MASS_CANCEL, state, null);
        pending.clOrdId(in.clOrdID(), Math.min(in.clOrdIDLength(), FixOrder.MAX_ID_LENGTH));
        pending.massCancelRequestType = requestType;
        pendingByRequest.put(requestSequence, pending);
    }

    // ------------------------------------------------------------------------------------------------ events in

    public void onEventBatch(
        final long batchSequence,
        final long logPosition,
        final long timestampNs,
        final long clientId,
        final long requestSequence,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int eventCount)
    {
        final boolean ownRequest = clientId == client.clientId();
        final Pending pending = ownRequest ? pendingByRequest.remove(requestSequence) : null;
        if (ownRequest && answersMayBeLost)
        {
            answersMayBeLost = false;
            sweepLostAnswers(requestSequence);
        }
        if (pending != null && pending.type == PENDING_RESTORE)
        {
            pending.order.queried = false;
        }
        batchHandledSinceStart = true;
        if (latencyProbe != null)
        {
            eventsReceivedNs = clock.nanoTime();
        }
        batchReported = false;
        batchHandledRecorded = false;
        if (batchSequence > handledBeforeRestart)
        {
            // Past every batch the previous run handled: nothing from here on was made before.
            handledBeforeRestart = 0;
        }
        if (!eventPosition.isRecorded() && batchSequence > 1)
        {
            // The first batch of a gateway with nowhere to resume from (a first start, or its record lost): that is
            // recorded now, before any report of it goes to Artio. Left to the record made once Artio has archived
            // a report, a kill before that would restart from the next batch, and the fills reported meanwhile would
            // be neither made again nor restated (the order's record already counts them). Reports held from now on
            // are made again from here too; those held before any batch were not made from one. Not before the
            // exchange's first batch (1), which no position names: it cannot accept an order (no account holds
            // anything before a deposit, a batch of its own), and a refusal in it is answered by the restore's query.
            previousBatchSequence = batchSequence - 1;
            previousLogPosition = logPosition - 1;
            for (final FixSessionState session : sessionsByCompId.values())
            {
                if (session.heldAfterBatchSequence == 0)
                {
                    session.heldAfterBatchSequence = previousBatchSequence;
                    session.heldAfterLogPosition = previousLogPosition;
                }
            }
            recordResumePosition(previousBatchSequence, previousLogPosition);
        }
        this.logPosition = logPosition;
        this.timestampNs = timestampNs;
        reportBatchSequence = batchSequence;
        try
        {
            int position = offset;
            for (int i = 0; i < eventCount; i++)
            {
                eventIndex = i;
                eventHeader.wrap(buffer, position);
                final int bodyOffset = position + MessageHeaderDecoder.ENCODED_LENGTH;
                onEvent(eventHeader.templateId(), buffer, bodyOffset, eventHeader.blockLength(),
                    eventHeader.version(), pending);
                position = bodyOffset + eventHeader.blockLength();
            }
        }
        finally
        {
            reportBatchSequence = Long.MAX_VALUE;
        }
        if (pending != null)
        {
            if (pending.type == PENDING_NEW && pending.order.orderId == 0 && !pending.rejected)
            {
                // Neither accepted nor rejected: nothing to track.
                closeOrder(pending.order);
            }
            else if (pending.type == PENDING_REPLACE && !pending.settled)
            {
                // Its batch answers it, whatever the gateway made of the answer.
                replaceSettled(pending);
            }
            releasePending(pending);
        }
        if (batchReported)
        {
            afterArchive.add(lastSentPosition, RESUME_AFTER, null, batchSequence, logPosition);
        }
        previousBatchSequence = batchSequence;
        previousLogPosition = logPosition;
    }

    /**
     * Batches were missed that the cluster no longer holds (the gateway was away, or fell behind, longer than the
     * cluster's history lasts), or the cluster is another one whose batches are numbered afresh. The reports those
     * batches would have made are never made: every open order is asked about, one that traded meanwhile is
     * restated and one that closed meanwhile is reported done; requests whose answers were among those batches are
     * found with the next answer. Numbered afresh, the sessions' last batches no longer say which reports they were
     * sent, and none is left out as sent before.
     */
    public void onGap(final long fromLogPosition, final boolean renumbered)
    {
        if (renumbered)
        {
            for (final FixSessionState session : sessionsByCompId.values())
            {
                delivered(session, 0, 0);
            }
            handledBeforeRestart = 0;
            handledPosition.record(0, 0);
        }
        missedEventsWhileUp |= batchHandledSinceStart;
        answersMayBeLost = true;
        queryOpenAndPendingOrders();
        log.println("bourse: FIX gateway: the events after log position " + fromLogPosition + " are no longer held " +
            (renumbered ? "(the cluster numbers its events afresh)" : "by the cluster (the gateway was away or " +
            "behind for longer than its history lasts)") + "; the " + ordersToQuery.size() + " open or pending " +
            "order(s) are asked about, and restated where they changed");
    }

    /**
     * Answers to this gateway's own requests come in the order of the requests: the first to come after a gap tells
     * that every request before it still waiting had its answer among the batches missed.
     */
    private void sweepLostAnswers(final long answeredRequestSequence)
    {
        lostRequests.clear();
        for (final Long2ObjectHashMap<Pending>.KeyIterator it = pendingByRequest.keySet().iterator(); it.hasNext(); )
        {
            final long requestSequence = it.nextLong();
            if (requestSequence < answeredRequestSequence)
            {
                lostRequests.addLong(requestSequence);
            }
        }
        for (int i = 0; i < lostRequests.size(); i++)
        {
            onAnswerLost(pendingByRequest.remove(lostRequests.getLong(i)));
        }
        if (!lostRequests.isEmpty())
        {
            log.println("bourse: FIX gateway: the answers to " + lostRequests.size() + " request(s) were among " +
                "those events; what each did is asked of the engine");
        }
    }

    /**
     * A request the exchange applied whose answer is among batches the cluster no longer holds. What it did is asked
     * of the engine instead: a new order by its client order id, as one sent before a restart is; an order a cancel,
     * replace or query was about by its order id (restated, or reported done, when the answer differs from what the
     * gateway knows).
     */
    private void onAnswerLost(final Pending pending)
    {
        final FixOrder order = pending.order;
        if (pending.type == PENDING_NEW && order.orderId == 0)
        {
            order.answerLost = true;
            pendingRestored.put(order.engineClientOrderId, order);
            queueQuery(order);
        }
        else if (pending.type == PENDING_RESTORE)
        {
            order.queried = false;
            queueQuery(order);
        }
        else if ((pending.type == PENDING_CANCEL || pending.type == PENDING_REPLACE) &&
            ordersByOrderId.get(order.orderId) == order)
        {
            // Whether it took effect shows in the engine's answer about the order; the requester is answered then.
            chainLostRequest(order, pending);
            queueQuery(order);
            return;
        }
        else if (pending.type == PENDING_CANCEL || pending.type == PENDING_REPLACE)
        {
            // Its order is closed already: it is done, whatever the request did.
            answerLostRequests(order, pending, null, DONE_ANSWER_LOST, STATUS_DONE_FOR_DAY);
            return;
        }
        else if (pending.type == PENDING_STATUS && ordersByOrderId.get(order.orderId) == order)
        {
            // The gateway's own view; the query after the gap restates the order if the exchange's differs.
            sendReport(order, EXEC_STATUS, ordStatus(order), 0, 0, 0, null, pending, 0);
        }
        else if (pending.type == PENDING_MASS_CANCEL)
        {
            // The orders it canceled are among the open ones the gap made the gateway ask about.
            massCancelReport.reset();
            madeFromBatch(massCancelReport.header());
            massCancelReport
                .clOrdID(pending.clOrdId, pending.clOrdIdLength)
                .orderID(NONE)
                .massCancelRequestType(pending.massCancelRequestType)
                .massCancelResponse(pending.massCancelRequestType)
                .text(MASS_CANCEL_ANSWER_LOST);
            send(pending.session, massCancelReport);
        }
        else if (order != null && order.orderId != 0)
        {
            queueQuery(order);
        }
        releasePending(pending);
    }

    private static void chainLostRequest(final FixOrder order, final Pending request)
    {
        if (order.lostRequest == null)
        {
            order.lostRequest = request;
        }
        else
        {
            Pending last = order.lostRequest;
            while (last.nextLost != null)
            {
                last = last.nextLost;
            }
            last.nextLost = request;
        }
    }

    private static void unchainLostRequest(final FixOrder order, final Pending request)
    {
        if (order.lostRequest == request)
        {
            order.lostRequest = request.nextLost;
        }
        else
        {
            for (Pending before = order.lostRequest; before != null; before = before.nextLost)
            {
                if (before.nextLost == request)
                {
                    before.nextLost = request.nextLost;
                    break;
                }
            }
        }
        request.nextLost = null;
    }

    /**
     * A replace's answer has been reported (or it needs none): once the report is archived, a restart no longer
     * restores it.
     */
    private void replaceSettled(final Pending replace)
    {
        replace.settled = true;
        if (replacesRestored.get(replace.engineClientOrderId) == replace)
        {
            replacesRestored.remove(replace.engineClientOrderId);
        }
        replaceDone(replace.session, replace.engineClientOrderId);
    }

    /**
     * The replace's REPLACE_DONE record, kept once its answer is archived; while the session's reports are held (it is
     * away), once they have been sent: a restart meanwhile makes the answer again from the replay.
     */
    private void replaceDone(final FixSessionState session, final long engineClientOrderId)
    {
        if (session.heldMessages.isEmpty())
        {
            afterArchive.add(lastSentPosition, REPLACE_DONE, null, engineClientOrderId, 0);
        }
        else
        {
            session.replacesDoneWhileHeld.addLong(engineClientOrderId);
        }
    }

    private void queryOpenAndPendingOrders()
    {
        for (final FixOrder order : ordersByOrderId.values())
        {
            queueQuery(order);
        }
        for (final FixOrder order : pendingRestored.values())
        {
            queueQuery(order);
        }
    }

    private void queueQuery(final FixOrder order)
    {
        if (!order.queried)
        {
            order.queried = true;
            ordersToQuery.add(order);
        }
    }

    public void onRequestIgnored(final long requestSequence, final io.bourse.protocol.cluster.IgnoredReason reason)
    {
        final Pending pending = pendingByRequest.remove(requestSequence);
        if (pending != null)
        {
            if (reason == io.bourse.protocol.cluster.IgnoredReason.RETRY_NOT_IN_HISTORY)
            {
                onAnswerLost(pending);
                return;
            }
            if (pending.type == PENDING_NEW && pending.order.orderId == 0)
            {
                sendReport(pending.order, EXEC_REJECTED, STATUS_REJECTED, 0, 0, FixRejects.ORD_REJ_OTHER,
                    "Not applied by the exchange: " + reason, null, 0);
                closeOrder(pending.order);
            }
            else if (pending.type == PENDING_CANCEL || pending.type == PENDING_REPLACE)
            {
                rejectCancel(pending.session, pending.order, pending.clOrdId, pending.clOrdIdLength,
                    pending.origClOrdId, pending.origClOrdIdLength, pending.type == PENDING_CANCEL ? '1' : '2',
                    FixRejects.CXL_REJ_OTHER, "Not applied by the exchange: " + reason);
                if (pending.type == PENDING_REPLACE)
                {
                    replaceSettled(pending);
                }
            }
            releasePending(pending);
        }
    }

    private void onEvent(
        final int templateId,
        final DirectBuffer buffer,
        final int offset,
        final int blockLength,
        final int version,
        final Pending pending)
    {
        switch (templateId)
        {
            case CommandRejectedDecoder.TEMPLATE_ID ->
            {
                commandRejected.wrap(buffer, offset, blockLength, version);
                if (pending != null)
                {
                    onRejected(pending, commandRejected.reason());
                }
                else if (commandRejected.commandType() == io.bourse.protocol.codec.CommandType.NEW_ORDER)
                {
                    // The replay after a restart: the refusal of an order sent before it that was still pending.
                    final FixOrder order = pendingRestored.get(commandRejected.clientOrderId());
                    if (order != null && order.accountId == commandRejected.accountId())
                    {
                        pendingRestored.remove(order.engineClientOrderId);
                        rejectOrder(order, commandRejected.reason());
                    }
                }
                else if (commandRejected.commandType() == io.bourse.protocol.codec.CommandType.REPLACE_ORDER)
                {
                    // The replay after a restart: the refusal of a replace sent before it.
                    final Pending replace = replacesRestored.get(commandRejected.clientOrderId());
                    if (replace != null && replace.order.accountId == commandRejected.accountId())
                    {
                        final FixOrder order = replace.order;
                        if (order.carriedReplace == replace)
                        {
                            order.carriedReplace = null;
                        }
                        else
                        {
                            unchainLostRequest(order, replace);
                        }
                        onRejected(replace, commandRejected.reason());
                        releasePending(replace);
                    }
                }
            }
            case OrderAcceptedDecoder.TEMPLATE_ID ->
            {
                orderAccepted.wrap(buffer, offset, blockLength, version);
                if (pending != null && pending.type == PENDING_NEW &&
                    pending.order.engineClientOrderId == orderAccepted.clientOrderId() &&
                    pending.order.accountId == orderAccepted.accountId())
                {
                    final FixOrder order = pending.order;
                    order.orderId = orderAccepted.orderId();
                    ordersByOrderId.put(order.orderId, order);
                    openOrders.lazySet(ordersByOrderId.size());
                    store.writeOpen(order);
                    order.recordedPending = false;
                    sendReport(order, EXEC_NEW, STATUS_NEW, 0, 0, 0, null, null, 0);
                    if (latencyProbe != null)
                    {
                        latencyProbe.onNewOrderAcknowledged(order.clOrdId, order.clOrdIdLength, order.receivedNs,
                            order.commandSentNs, timestampNs, eventsReceivedNs, clock.nanoTime());
                    }
                }
                else if (pending == null)
                {
                    // The replay after a restart: the acceptance of an order sent before it that was still pending,
                    // or of a restored order whose session was not sent it (held for it while it was away), is
                    // reported; one its session was sent is left out by sendReport.
                    FixOrder order = ordersByOrderId.get(orderAccepted.orderId());
                    if (order == null)
                    {
                        order = adoptPending(orderAccepted.accountId(), orderAccepted.clientOrderId(),
                            orderAccepted.orderId());
                    }
                    if (order != null && order.engineClientOrderId == orderAccepted.clientOrderId())
                    {
                        // Reported as it was accepted, though its record may count fills (or a restatement) made
                        // after: the replay makes those again next, and each brings the order up to date.
                        order.quantity = orderAccepted.quantity();
                        order.stopPx = stopPx(orderAccepted.stopPrice(), order.stopPx);
                        order.expireTimeNs = expireTimeNs(orderAccepted.expiryTimeNs(), order.expireTimeNs);
                        order.filledQuantity = 0;
                        order.executedNotional = 0;
                        sendReport(order, EXEC_NEW, STATUS_NEW, 0, 0, 0, null, null, 0);
                    }
                }
            }
            case TradeDecoder.TEMPLATE_ID ->
            {
                trade.wrap(buffer, offset, blockLength, version);
                final FixOrder maker = ordersByOrderId.get(trade.makerOrderId());
                if (maker != null)
                {
                    // Both sides of a trade report from one event: the maker's ExecID gets its own suffix.
                    makerLeg = true;
                    onFill(maker, trade.quantity(), trade.price(), trade.makerFilledQuantity(),
                        trade.makerRemainingQuantity(), trade.makerExecutedNotional(), trade.makerFee());
                    makerLeg = false;
                }
                final FixOrder taker = ordersByOrderId.get(trade.takerOrderId());
                if (taker != null)
                {
                    onFill(taker, trade.quantity(), trade.price(), trade.takerFilledQuantity(),
                        trade.takerRemainingQuantity(), trade.takerExecutedNotional(), trade.takerFee());
                }
            }
            case OrderCanceledDecoder.TEMPLATE_ID ->
            {
                orderCanceled.wrap(buffer, offset, blockLength, version);
                final FixOrder order = ordersByOrderId.get(orderCanceled.orderId());
                if (order != null)
                {
                    order.filledQuantity = orderCanceled.filledQuantity();
                    order.executedNotional = orderCanceled.executedNotional();
                    if (pending != null && pending.type == PENDING_CANCEL && pending.order == order)
                    {
                        sendReport(order, EXEC_CANCELED, STATUS_CANCELED, 0, 0, 0, null, pending, 0);
                    }
                    else
                    {
                        sendReport(order, EXEC_CANCELED, STATUS_CANCELED, 0, 0, 0,
                            FixRejects.cancelText(orderCanceled.reason()), null, 0);
                    }
                    order.closedStatus = STATUS_CANCELED;
                    closeOrder(order);
                }
            }
            case OrderExpiredDecoder.TEMPLATE_ID ->
            {
                orderExpired.wrap(buffer, offset, blockLength, version);
                final FixOrder order = ordersByOrderId.get(orderExpired.orderId());
                if (order != null)
                {
                    order.filledQuantity = orderExpired.filledQuantity();
                    order.executedNotional = orderExpired.executedNotional();
                    sendReport(order, EXEC_EXPIRED, STATUS_EXPIRED, 0, 0, 0, null, null, 0);
                    order.closedStatus = STATUS_EXPIRED;
                    closeOrder(order);
                }
            }
            case OrderReplacedDecoder.TEMPLATE_ID ->
            {
                orderReplaced.wrap(buffer, offset, blockLength, version);
                final FixOrder order = ordersByOrderId.get(orderReplaced.orderId());
                final Pending replace = order == null ? null : pending != null ? pending :
                    replacesRestored.get(orderReplaced.clientOrderId());
                if (replace != null && replace.type == PENDING_REPLACE && replace.order == order)
                {
                    final String text = orderReplaced.priorityKept() == io.bourse.protocol.codec.BooleanType.TRUE ?
                        "Replaced; time priority kept" : "Replaced; time priority lost";
                    final Pending carried = order.carriedReplace;
                    if (pending == null)
                    {
                        // The replay after a restart: a replace sent before it.
                        unchainLostRequest(order, replace);
                    }
                    if (pending == null && carried != null &&
                        replace.engineClientOrderId <= carried.engineClientOrderId)
                    {
                        // The order's record carries this replace already, or a later one: only the report is made
                        // again, on the terms this one gave.
                        if (carried == replace)
                        {
                            order.carriedReplace = null;
                        }
                        final FixOrder view = replacedView(order, replace, orderReplaced);
                        sendReport(view, EXEC_REPLACED, ordStatus(view), 0, 0, 0, text, null, 0);
                    }
                    else
                    {
                        order.stopPx = stopPx(orderReplaced.stopPrice(), order.stopPx);
                        replaced(order, replace, orderReplaced.clientOrderId(), orderReplaced.price(),
                            orderReplaced.quantity(), orderReplaced.filledQuantity(), true);
                        sendReport(order, EXEC_REPLACED, ordStatus(order), 0, 0, 0, text, null, 0);
                    }
                    // Now, not at the end of the batch: before the CLOSED record of a fill later in it.
                    replaceSettled(replace);
                    if (pending == null)
                    {
                        releasePending(replace);
                    }
                }
            }
            case OrderTriggeredDecoder.TEMPLATE_ID ->
            {
                // No report: FIX 4.4 has no ExecType for it, and the order's fills (or its rest) follow.
                orderTriggered.wrap(buffer, offset, blockLength, version);
                final FixOrder order = ordersByOrderId.get(orderTriggered.orderId());
                if (order != null)
                {
                    order.triggered = true;
                    if (ordersByOrderId.get(order.orderId) == order && order.session.heldMessages.isEmpty() &&
                        order.session.canSend())
                    {
                        // So that a restarted gateway knows its StopPx can no longer change. Else the record stays
                        // where the reports sent left it (see onFill), and the replay after a restart says it again.
                        store.writeOpen(order);
                    }
                }
            }
            case OrderRestatedDecoder.TEMPLATE_ID ->
            {
                orderRestated.wrap(buffer, offset, blockLength, version);
                final FixOrder order = ordersByOrderId.get(orderRestated.orderId());
                if (order != null)
                {
                    order.quantity = orderRestated.quantity();
                    restatementReason = RESTATEMENT_MARKET_OPTION;
                    sendReport(order, EXEC_RESTATED, ordStatus(order), 0, 0, 0, "Restated by self-trade prevention",
                        null, 0);
                    restatementReason = RESTATEMENT_OTHER;
                    if (order.session.heldMessages.isEmpty())
                    {
                        // Else the record stays where the reports sent left it (see onFill).
                        store.writeOpen(order);
                    }
                }
            }
            case OrderStatusReportDecoder.TEMPLATE_ID ->
            {
                orderStatus.wrap(buffer, offset, blockLength, version);
                if (pending != null && pending.order != null && pending.order.timeInForce == 0)
                {
                    // Recorded by a gateway that did not keep it: the engine says.
                    pending.order.timeInForce = fixTimeInForce(orderStatus.timeInForce());
                }
                if (pending != null && pending.order != null)
                {
                    stopTerms(pending.order, orderStatus.stopPrice());
                    pending.order.expireTimeNs =
                        expireTimeNs(orderStatus.expiryTimeNs(), pending.order.expireTimeNs);
                }
                if (pending != null && pending.type == PENDING_STATUS)
                {
                    final FixOrder order = pending.order;
                    order.filledQuantity = orderStatus.filledQuantity();
                    order.executedNotional = orderStatus.executedNotional();
                    order.quantity = orderStatus.quantity();
                    sendReport(order, EXEC_STATUS, ordStatus(order), 0, 0, 0, null, pending, 0);
                }
                else if (pending != null && pending.type == PENDING_RESTORE && pending.order.orderId == 0)
                {
                    // Open at the exchange, but its acceptance was among events the cluster no longer holds.
                    final FixOrder order = pending.order;
                    order.filledQuantity = orderStatus.filledQuantity();
                    order.executedNotional = orderStatus.executedNotional();
                    order.quantity = orderStatus.quantity();
                    if (adoptPending(orderStatus.accountId(), order.engineClientOrderId, orderStatus.orderId()) ==
                        order)
                    {
                        sendReport(order, EXEC_NEW, ordStatus(order), 0, 0, 0, null, null, 0);
                        // Found by the client order id it was sent with: no replace of it took effect.
                        final Pending lost = order.lostRequest;
                        order.lostRequest = null;
                        answerLostRequests(order, lost, null, NOT_APPLIED_ANSWER_LOST, (char)0);
                    }
                }
                else if (pending != null && pending.type == PENDING_RESTORE &&
                    ordersByOrderId.get(pending.order.orderId) == pending.order)
                {
                    final FixOrder order = pending.order;
                    settleCarriedReplace(order);
                    final Pending lost = order.lostRequest;
                    order.lostRequest = null;
                    Pending applied = null;
                    for (Pending request = lost; request != null; request = request.nextLost)
                    {
                        if (request.type == PENDING_REPLACE &&
                            request.engineClientOrderId == orderStatus.clientOrderId() &&
                            request.engineClientOrderId != order.engineClientOrderId)
                        {
                            applied = request;
                        }
                    }
                    if (applied != null)
                    {
                        // The replace took effect: the order carries its client order id now.
                        order.executedNotional = orderStatus.executedNotional();
                        replaced(order, applied, orderStatus.clientOrderId(), orderStatus.price(),
                            orderStatus.quantity(), orderStatus.filledQuantity(), false);
                        sendReport(order, EXEC_REPLACED, ordStatus(order), 0, 0, 0, REPLACED_ANSWER_LOST, null, 0);
                        // Before the replace's REPLACE_DONE (answerLostRequests): a record without the replace and
                        // no replace left to answer would leave the order under its old ClOrdID.
                        recordOnceArchived(order);
                    }
                    else
                    {
                        // Fills while the gateway was down, or among events it missed: their reports were never
                        // made, so the order's totals catch up and the client gets one Restated report with them.
                        final boolean changed = order.filledQuantity != orderStatus.filledQuantity() ||
                            order.quantity != orderStatus.quantity();
                        order.filledQuantity = orderStatus.filledQuantity();
                        order.executedNotional = orderStatus.executedNotional();
                        order.quantity = orderStatus.quantity();
                        if (changed)
                        {
                            sendReport(order, EXEC_RESTATED, ordStatus(order), 0, 0, 0,
                                missedEventsWhileUp ? RESTATED_AFTER_GAP : RESTATED_AFTER_RESTART, null, 0);
                            recordOnceArchived(order);
                        }
                    }
                    // The others were applied and refused, or (a replace) overtaken by a later one: the order is
                    // open on the terms just reported.
                    answerLostRequests(order, lost, applied, NOT_APPLIED_ANSWER_LOST, (char)0);
                }
            }
            case MassCancelCompletedDecoder.TEMPLATE_ID ->
            {
                massCancelCompleted.wrap(buffer, offset, blockLength, version);
                if (pending != null && pending.type == PENDING_MASS_CANCEL)
                {
                    massCancelReport.reset();
                    madeFromBatch(massCancelReport.header());
                    orderIdBuffer.putStringWithoutLengthAscii(0, "M");
                    final int idLength = 1 + orderIdBuffer.putLongAscii(1, logPosition);
                    massCancelReport
                        .clOrdID(pending.clOrdId, pending.clOrdIdLength)
                        .orderID(orderIdBuffer, 0, idLength)
                        .massCancelRequestType(pending.massCancelRequestType)
                        .massCancelResponse(pending.massCancelRequestType)
                        .totalAffectedOrders(massCancelCompleted.canceledCount());
                    transactTimeOnMassCancel();
                    send(pending.session, massCancelReport);
                }
            }
            default ->
            {
            }
        }
    }

    private void onRejected(final Pending pending, final RejectReason reason)
    {
        switch (pending.type)
        {
            case PENDING_NEW ->
            {
                pending.rejected = true;
                rejectOrder(pending.order, reason);
            }
            case PENDING_CANCEL, PENDING_REPLACE ->
            {
                final FixOrder order = pending.order;
                rejectCancel(order.session, order, pending.clOrdId, pending.clOrdIdLength, pending.origClOrdId,
                    pending.origClOrdIdLength, pending.type == PENDING_CANCEL ? '1' : '2',
                    reason == RejectReason.UNKNOWN_ORDER ? FixRejects.CXL_REJ_TOO_LATE : FixRejects.CXL_REJ_OTHER,
                    FixRejects.engineText(reason));
                if (pending.type == PENDING_REPLACE)
                {
                    replaceSettled(pending);
                }
            }
            case PENDING_STATUS, PENDING_RESTORE ->
            {
                final FixOrder order = pending.order;
                // An account the exchange does not know has no open order either (an order refused for it, say).
                final boolean notOpen = reason == RejectReason.UNKNOWN_ORDER || reason == RejectReason.UNKNOWN_ACCOUNT;
                if (notOpen && order.orderId == 0 &&
                    pendingRestored.remove(order.engineClientOrderId) == order)
                {
                    if (order.answerLost)
                    {
                        // Applied, and not open: filled, canceled or refused, its answer no longer held anywhere.
                        sendReport(order, EXEC_RESTATED, STATUS_DONE_FOR_DAY, 0, 0, 0, CLOSED_ANSWER_LOST, null, 0);
                    }
                    else
                    {
                        // Sent before the restart, and neither the replayed events nor the exchange's open orders
                        // know it: it never reached the exchange (or closed during events the cluster no longer
                        // holds).
                        sendReport(order, EXEC_REJECTED, STATUS_REJECTED, 0, 0, FixRejects.ORD_REJ_OTHER,
                            "Not known to the exchange after the gateway restarted", null, 0);
                    }
                    closeOrder(order);
                }
                else if (notOpen && pending.type == PENDING_RESTORE &&
                    pending.engineClientOrderId != 0 && pending.engineClientOrderId != order.engineClientOrderId &&
                    ordersByOrderId.get(order.orderId) == order)
                {
                    // Asked by the client order id it was sent with, and since adopted and replaced by the replay:
                    // asked again by its order id.
                    queueQuery(order);
                }
                else if (notOpen)
                {
                    if (order.orderId != 0 && ordersByOrderId.get(order.orderId) == order)
                    {
                        // Closed (filled, canceled or expired) among events the gateway never saw: the client learns
                        // that it is done rather than hold it open for ever. Which way it ended is not known here.
                        // One report, under the first cancel or replace whose answer was lost if any; the others are
                        // told the order is done.
                        final boolean restore = pending.type == PENDING_RESTORE;
                        final Pending lost = order.lostRequest;
                        order.lostRequest = null;
                        // One that closed before the restart, whose record of it was not yet cleared: the session's
                        // closed orders tell how, and with what filled.
                        final FixOrder closed = restore ? closedBeforeRestart(order) : null;
                        final char status = closed != null ? ordStatus(closed) : STATUS_DONE_FOR_DAY;
                        if (closed != null)
                        {
                            adoptClose(order, closed);
                        }
                        sendReport(order, restore ? EXEC_RESTATED : EXEC_STATUS, status, 0, 0, 0,
                            closed != null ? CLOSED_BEFORE_RESTART :
                            missedEventsWhileUp || !restore ? CLOSED_AFTER_GAP : CLOSED_AFTER_RESTART,
                            restore ? lost : pending, 0);
                        answerLostRequests(order, lost, restore ? lost : null,
                            closed != null ? CLOSED_BEFORE_RESTART : CLOSED_AFTER_GAP, status);
                        order.closedStatus = status;
                    }
                    closeOrder(order);
                }
            }
            case PENDING_MASS_CANCEL ->
            {
                massCancelReport.reset();
                madeFromBatch(massCancelReport.header());
                massCancelReport
                    .clOrdID(pending.clOrdId, pending.clOrdIdLength)
                    .orderID(NONE)
                    .massCancelRequestType(pending.massCancelRequestType)
                    .massCancelResponse('0')
                    .text(FixRejects.engineText(reason));
                send(pending.session, massCancelReport);
            }
            default ->
            {
            }
        }
    }

    private void onFill(
        final FixOrder order,
        final long lastQuantity,
        final long lastPrice,
        final long filledQuantity,
        final long remainingQuantity,
        final long executedNotional,
        final long fee)
    {
        order.filledQuantity = filledQuantity;
        order.executedNotional = executedNotional;
        final char status = remainingQuantity == 0 ? STATUS_FILLED : STATUS_PARTIAL;
        fillFee = fee;
        sendReport(order, EXEC_TRADE, status, lastQuantity, lastPrice, 0, null, null, remainingQuantity);
        if (remainingQuantity == 0)
        {
            closeOrder(order);
        }
        else if (ordersByOrderId.get(order.orderId) == order && order.session.heldMessages.isEmpty() &&
            order.session.canSend())
        {
            // The record keeps up with the reports its client has, so that a restart resuming after them starts
            // from these totals. While reports are held for a session away its records stay where the reports sent
            // left them, the replay after a restart begins before the first held report and makes them again, and
            // the records catch up once the held reports are sent.
            store.writeOpen(order);
        }
    }

    // ------------------------------------------------------------------------------------------------ reports out

    /**
     * A message is being made from the batch being handled, if any: the batch is recorded as handled before it goes
     * out, and one made again by the replay after a restart carries PossResend (see {@link #handledBeforeRestart}).
     */
    private void madeFromBatch(final HeaderEncoder header)
    {
        if (reportBatchSequence == Long.MAX_VALUE)
        {
            return;
        }
        if (!batchHandledRecorded)
        {
            batchHandledRecorded = true;
            handledPosition.record(reportBatchSequence, logPosition);
        }
        if (reportBatchSequence <= handledBeforeRestart)
        {
            header.possResend(true);
        }
    }

    private void sendReport(
        final FixOrder order,
        final char execType,
        final char ordStatus,
        final long lastQuantity,
        final long lastPrice,
        final int ordRejReason,
        final CharSequence text,
        final Pending requester,
        final long remainingQuantity)
    {
        final FixSessionState session = order.session;
        final FixInstrument instrument = order.instrument;
        final ExecutionReportEncoder report = executionReport;
        batchReported = true;
        final boolean inBatch = reportBatchSequence != Long.MAX_VALUE;
        // A trade reports its maker first: that side gets the lower key.
        final long key = inBatch ? 2L * eventIndex + (makerLeg ? 1 : 2) : 0;
        if (inBatch && session.wasSent(reportBatchSequence, key))
        {
            // The replay after a restart: the session was sent this report before.
            return;
        }
        report.reset();
        madeFromBatch(report.header());
        if (order.orderId != 0)
        {
            report.orderID(orderIdBuffer, 0, orderIdBuffer.putLongAscii(0, order.orderId));
        }
        else
        {
            report.orderID(NONE);
        }
        if (requester != null && (requester.type == PENDING_CANCEL || requester.type == PENDING_REPLACE))
        {
            report.clOrdID(requester.clOrdId, requester.clOrdIdLength).origClOrdID(order.clOrdId, order.clOrdIdLength);
        }
        else
        {
            report.clOrdID(order.clOrdId, order.clOrdIdLength);
            if (execType == EXEC_REPLACED)
            {
                report.origClOrdID(order.origClOrdId, order.origClOrdIdLength);
            }
            if (requester != null && requester.type == PENDING_STATUS && requester.clOrdIdLength > 0)
            {
                report.ordStatusReqID(requester.clOrdId, requester.clOrdIdLength);
            }
            else if (requester != null && requester.type == PENDING_MASS_STATUS)
            {
                report.massStatusReqID(requester.clOrdId, requester.clOrdIdLength)
                    .totNumReports(requester.reports)
                    .lastRptRequested(requester.reportIndex == requester.reports);
            }
        }
        if (!inBatch && requester != null && requester.type == PENDING_MASS_STATUS)
        {
            report.execID(massStatusExecId(requester));
        }
        else if (!inBatch && requester != null && requester.type == PENDING_STATUS)
        {
            // A status answer the gateway made from its own record (no event batch names it): named by the request.
            report.execID(localExecId(session, requester.sequenceIndex, requester.msgSeqNum));
        }
        else if (order.orderId == 0 && execType == EXEC_REJECTED)
        {
            // A new order the exchange refused: named by the FIX message that created it, which stays known (and
            // unique) when the session has gone away before the answer came and the report is held for it.
            idBuffer.putByte(0, (byte)'G');
            report.execID(idBuffer, 0, 1 + idBuffer.putLongAscii(1, order.engineClientOrderId));
        }
        else
        {
            final int idLength = idBuffer.putLongAscii(0, logPosition);
            idBuffer.putByte(idLength, (byte)'.');
            final int indexLength = idBuffer.putIntAscii(idLength + 1, eventIndex * 2 + (makerLeg ? 1 : 0));
            report.execID(idBuffer, 0, idLength + 1 + indexLength);
        }
        final boolean terminal = ordStatus == STATUS_CANCELED || ordStatus == STATUS_REJECTED ||
            ordStatus == STATUS_EXPIRED || ordStatus == STATUS_FILLED || ordStatus == STATUS_DONE_FOR_DAY;
        final long leaves = terminal ? 0 :
            (execType == EXEC_TRADE ? remainingQuantity : Math.max(0, order.quantity - order.filledQuantity));
        report.execType(execType)
            .ordStatus(ordStatus)
            .account(session.accountChars)
            .symbol(instrument.symbol())
            .side(order.side)
            .ordType(order.ordType)
            .orderQty(order.quantity, instrument.quantityScale())
            .leavesQty(leaves, instrument.quantityScale())
            .cumQty(order.filledQuantity, instrument.quantityScale());
        if (order.ordType == '2' || order.ordType == ORD_TYPE_STOP_LIMIT)
        {
            report.price(order.price, instrument.priceScale());
        }
        if (order.stopPx != 0)
        {
            report.stopPx(order.stopPx, instrument.priceScale());
        }
        if (order.timeInForce != 0)
        {
            report.timeInForce(order.timeInForce);
        }
        if (order.expireTimeNs != 0 && order.timeInForce == TIME_IN_FORCE_GTD && order.expireByDate)
        {
            FixTimestamps.writeLocalMktDate(dateOfExpiry(order.expireTimeNs), expireDate);
            report.expireDate(expireDate, expireDate.length);
        }
        else if (order.expireTimeNs != 0 && order.timeInForce == TIME_IN_FORCE_GTD)
        {
            final UtcTimestampEncoder encoder =
                order.expireTimeNs % 1_000_000 == 0 ? expireTimeEncoder : expireTimeNanosEncoder;
            report.expireTime(encoder.buffer(), encoder.encodeFrom(order.expireTimeNs, TimeUnit.NANOSECONDS));
        }
        if (order.postOnly)
        {
            report.execInst(POST_ONLY);
        }
        averagePrice(report, order);
        if (execType == EXEC_TRADE)
        {
            report.lastQty(lastQuantity, instrument.quantityScale()).lastPx(lastPrice, instrument.priceScale())
                .commission(fillFee, instrument.quoteAssetScale()).commType(COMM_TYPE_ABSOLUTE);
        }
        if (execType == EXEC_REJECTED)
        {
            report.ordRejReason(ordRejReason);
        }
        else if (execType == EXEC_RESTATED)
        {
            report.execRestatementReason(restatementReason);
        }
        if (text != null)
        {
            report.text(text);
        }
        transactTime(timestampNs != 0 ? timestampNs : System.currentTimeMillis() * 1_000_000L);
        if (send(session, report, inBatch ? reportBatchSequence : -1, key) && inBatch)
        {
            delivered(session, reportBatchSequence, key);
        }
    }

    /**
     * @param batchSequence the batch the report was made from, -1 for one made outside a batch (which a replay does not
     *                      make again, so sending it moves nothing).
     * @param key           the report's key within that batch (see {@link FixSessionState#wasSent}).
     */
    private void hold(final FixSessionState session, final Encoder message, final long batchSequence, final long key)
    {
        if (session.heldMessages.size() == MAX_HELD_MESSAGES_PER_SESSION)
        {
            recycle(session.heldMessages.pollFirst());
            session.heldBatches.pollLong();
            session.heldBatches.pollLong();
            droppedMessages.increment();
        }
        session.heldMessages.addLast(copyOf(message));
        session.heldBatches.offerLong(batchSequence);
        session.heldBatches.offerLong(key);
        if (session.heldAfterBatchSequence < 0)
        {
            // The resume point recorded is not past the previous batch, and from now on stays before this one.
            session.heldAfterBatchSequence = previousBatchSequence;
            session.heldAfterLogPosition = previousLogPosition;
            sessionsHolding++;
        }
        if (session.session != null && !sessionsSendingHeldMessages.contains(session))
        {
            // Acquired but not able to send now (its Logon not answered yet): sent once it can, without waiting
            // for another logon.
            sessionsSendingHeldMessages.add(session);
        }
    }

    /**
     * Send the messages held for sessions logged on (again), oldest first, as far as Artio takes them now.
     */
    private int sendHeldMessages()
    {
        int sent = 0;
        for (int i = sessionsSendingHeldMessages.size() - 1; i >= 0; i--)
        {
            final FixSessionState session = sessionsSendingHeldMessages.get(i);
            while (!session.heldMessages.isEmpty() && session.canSend())
            {
                if (!trySend(session, session.heldMessages.peekFirst()))
                {
                    // Back-pressure: the rest go on a later duty cycle, still in order.
                    break;
                }
                recycle(session.heldMessages.pollFirst());
                final long batchSequence = session.heldBatches.pollLong();
                final long key = session.heldBatches.pollLong();
                if (batchSequence >= 0)
                {
                    delivered(session, batchSequence, key);
                }
                sent++;
            }
            if (session.heldMessages.isEmpty())
            {
                heldMessagesSent(session);
            }
            if (session.heldMessages.isEmpty() || session.session == null)
            {
                // Done, or gone again: its next logon puts it back.
                sessionsSendingHeldMessages.remove(i);
            }
        }
        return sent;
    }

    /**
     * The last report held for a session has been sent: the records of its orders catch up, and the recorded
     * position no longer needs to stay before its reports.
     */
    private void heldMessagesSent(final FixSessionState session)
    {
        // Each once the reports sent before it are archived. The open orders' records first: a replace the restore's
        // query reported must be in its order's record before its REPLACE_DONE. Then replaces, before CLOSED: a
        // restart between the two must not find a replace whose order is already closed.
        for (final FixOrder order : session.openOrdersByClOrdId.values())
        {
            if (order.orderId != 0 && ordersByOrderId.get(order.orderId) == order)
            {
                afterArchive.add(lastSentPosition, OPEN, order, 0, 0);
            }
        }
        addAfterArchive(REPLACE_DONE, session.replacesDoneWhileHeld);
        addAfterArchive(CLOSED, session.closedWhileHeld);
        addAfterArchive(NOT_ACCEPTED, session.notAcceptedWhileHeld);
        if (session.heldAfterBatchSequence >= 0)
        {
            session.heldAfterBatchSequence = -1;
            sessionsHolding--;
            afterArchive.add(lastSentPosition, RESUME_AFTER, null, previousBatchSequence, previousLogPosition);
        }
    }

    /**
     * Records of one type, each about one id, that waited for a session's held reports: added in order, and the list
     * cleared.
     */
    private void addAfterArchive(final int type, final LongArrayList ids)
    {
        for (int i = 0; i < ids.size(); i++)
        {
            afterArchive.add(lastSentPosition, type, null, ids.getLong(i), 0);
        }
        ids.clear();
    }

    /**
     * A report about the order that no replay makes again (only the restore's query after a restart, which makes it
     * as long as the order's record does not have what it reports) was just made: the record gets it once the report
     * is archived, or, held for a session away, once the session's held reports are sent (heldMessagesSent).
     */
    private void recordOnceArchived(final FixOrder order)
    {
        if (order.session.heldMessages.isEmpty())
        {
            afterArchive.add(lastSentPosition, OPEN, order, 0, 0);
        }
    }

    /**
     * Record where a restarted gateway's replay begins: before the first report still held for any session (held
     * reports live in memory only, the replay makes them again), else after the given batch, whose reports (and all
     * before them) Artio has archived.
     */
    private void recordResumePosition(final long afterBatchSequence, final long afterLogPosition)
    {
        long batchSequence = afterBatchSequence;
        long position = afterLogPosition;
        for (final FixSessionState session : sessionsByCompId.values())
        {
            if (session.heldAfterBatchSequence >= 0 && session.heldAfterBatchSequence < batchSequence)
            {
                batchSequence = session.heldAfterBatchSequence;
                position = session.heldAfterLogPosition;
            }
        }
        if (batchSequence > 0)
        {
            // Else before the gateway's first batch: no position names that, and onEventBatch records one at it.
            eventPosition.record(batchSequence, position);
        }
    }

    /**
     * The session was sent this report of a batch: known at once (a replay meanwhile leaves it out), recorded once
     * Artio has archived it.
     */
    private void delivered(final FixSessionState session, final long batchSequence, final long key)
    {
        session.sent(batchSequence, key);
        afterArchive.add(lastSentPosition, DELIVERED, session, batchSequence, key);
    }

    private void keep(final int type, final Object subject, final long first, final long second)
    {
        switch (type)
        {
            case DELIVERED -> ((FixSessionState)subject).recordDelivered(first, second);
            case CLOSED -> store.writeClosed(first);
            case NOT_ACCEPTED -> store.writeNotAccepted(first);
            case RESUME_AFTER -> recordResumePosition(first, second);
            case REPLACE_DONE -> store.writeReplaceDone(first);
            // As the order stands now: changes since are events a replay makes again (but for a report a gap's query
            // made and held meanwhile, a narrow case left open), and an order closed since has its CLOSED record
            // after this one.
            case OPEN -> store.writeOpen((FixOrder)subject);
            default -> throw new IllegalStateException("unknown record type " + type);
        }
    }

    private void recycle(final Encoder message)
    {
        if (message instanceof ExecutionReportEncoder report && spareReportEncoders.size() < MAX_SPARE_REPORT_ENCODERS)
        {
            spareReportEncoders.addLast(report);
        }
    }

    private void averagePrice(final ExecutionReportEncoder report, final FixOrder order)
    {
        if (order.filledQuantity == 0)
        {
            report.avgPx(0, 0);
            return;
        }
        // Notional is in minor units of the quote asset: average = notional / filled, shown with four decimals more
        // than a price so that the rounding is below a tick. A reporting figure, so a double is precise enough.
        final FixInstrument instrument = order.instrument;
        final int scale = instrument.priceScale() + 4;
        final double average = (double)order.executedNotional / Math.pow(10, instrument.quoteAssetScale()) /
            ((double)order.filledQuantity / Math.pow(10, instrument.quantityScale()));
        report.avgPx(Math.round(average * Math.pow(10, scale)), scale);
    }

    private void transactTime(final long epochNs)
    {
        final int length = timestampEncoder.encodeFrom(epochNs, TimeUnit.NANOSECONDS);
        executionReport.transactTime(timestampEncoder.buffer(), length);
    }

    private void transactTimeOnMassCancel()
    {
        final int length = timestampEncoder.encodeFrom(timestampNs, TimeUnit.NANOSECONDS);
        massCancelReport.transactTime(timestampEncoder.buffer(), length);
    }

    private void rejectNewOrder(
        final FixSessionState state,
        final NewOrderSingleDecoder in,
        final int msgSeqNum,
        final int ordRejReason,
        final String text)
    {
        final ExecutionReportEncoder report = executionReport;
        report.reset();
        report.orderID(NONE)
            .clOrdID(in.clOrdID(), Math.min(in.clOrdIDLength(), FixOrder.MAX_ID_LENGTH))
            .execID(localExecId(state, msgSeqNum))
            .execType(EXEC_REJECTED)
            .ordStatus(STATUS_REJECTED)
            .ordRejReason(ordRejReason)
            .symbol(in.symbol(), in.symbolLength())
            .side(in.side())
            .ordType(in.ordType())
            .leavesQty(0, 0)
            .cumQty(0, 0)
            .avgPx(0, 0)
            .text(text);
        if (in.hasOrderQty())
        {
            report.orderQty(in.orderQty());
        }
        if (in.hasPrice())
        {
            report.price(in.price());
        }
        if (in.hasStopPx())
        {
            report.stopPx(in.stopPx());
        }
        if (in.hasExpireTime())
        {
            report.expireTime(in.expireTime(), in.expireTimeLength());
        }
        if (in.hasExpireDate())
        {
            report.expireDate(in.expireDate(), in.expireDateLength());
        }
        transactTime(System.currentTimeMillis() * 1_000_000L);
        send(state, report);
    }

    /**
     * Answer with an OrderCancelReject each lost request chained on an order but the one already answered with a
     * report (null for none), and return them to the pool. Those sent before the reported one were overtaken by it:
     * whether they took effect first is not known, and the client is told so rather than that they were not applied.
     *
     * @param doneStatus the OrdStatus of an order that is done (closed), or 0 for one open on the terms last reported.
     */
    private void answerLostRequests(
        final FixOrder order, final Pending lost, final Pending reported, final String text, final char doneStatus)
    {
        final boolean done = doneStatus != 0;
        boolean overtaken = reported != null;
        for (Pending request = lost; request != null; request = request.nextLost)
        {
            if (request == reported)
            {
                overtaken = false;
            }
            else
            {
                rejectCancel(order.session, order, request.clOrdId, request.clOrdIdLength, request.origClOrdId,
                    request.origClOrdIdLength, request.type == PENDING_CANCEL ? '1' : '2',
                    done ? FixRejects.CXL_REJ_TOO_LATE : FixRejects.CXL_REJ_OTHER,
                    overtaken ? OVERTAKEN_ANSWER_LOST : text, done ? doneStatus : ordStatus(order));
            }
            if (request.type == PENDING_REPLACE)
            {
                // After its answer, so that the record waits for that answer to be archived.
                replaceSettled(request);
            }
        }
        releaseLostRequests(lost);
    }

    private void releaseLostRequests(final Pending lost)
    {
        Pending request = lost;
        while (request != null)
        {
            final Pending next = request.nextLost;
            releasePending(request);
            request = next;
        }
    }

    /**
     * A replace took effect: the order goes by the replace's ClOrdID (the one it had becomes its OrigClOrdID) and
     * takes its new terms.
     *
     * @param recordNow whether the order's record takes the replace now (its answer is an event, which a replay makes
     *                  again) or is left to the caller (the answer is the restore's query: see recordOnceArchived).
     */
    private void replaced(
        final FixOrder order,
        final Pending replace,
        final long engineClientOrderId,
        final long price,
        final long quantity,
        final long filledQuantity,
        final boolean recordNow)
    {
        final FixSessionState session = order.session;
        session.openOrdersByClOrdId.remove(order.clOrdIdHash);
        order.origClOrdId(order.clOrdId, order.clOrdIdLength);
        order.clOrdId(replace.clOrdId, replace.clOrdIdLength);
        session.openOrdersByClOrdId.put(order.clOrdIdHash, order);
        session.usedClOrdIds.add(order.clOrdIdHash);
        order.engineClientOrderId = engineClientOrderId;
        order.price = price;
        order.quantity = quantity;
        order.filledQuantity = filledQuantity;
        if (recordNow)
        {
            store.writeOpen(order);
        }
    }

    /**
     * The order as a replace replayed after a restart left it, for its report when the order has since moved on: its
     * ClOrdIDs, terms and fills those of the replace.
     */
    private static FixOrder replacedView(
        final FixOrder order, final Pending replace, final OrderReplacedDecoder orderReplaced)
    {
        final FixOrder view = newOrder();
        view.session = order.session;
        view.orderId = order.orderId;
        view.engineClientOrderId = replace.engineClientOrderId;
        view.accountId = order.accountId;
        view.instrument = order.instrument;
        view.side = order.side;
        view.ordType = order.ordType;
        view.timeInForce = order.timeInForce;
        view.postOnly = order.postOnly;
        view.price = orderReplaced.price();
        view.stopPx = stopPx(orderReplaced.stopPrice(), order.stopPx);
        view.expireTimeNs = order.expireTimeNs;
        view.expireByDate = order.expireByDate;
        view.triggered = order.triggered;
        view.quantity = orderReplaced.quantity();
        view.filledQuantity = orderReplaced.filledQuantity();
        // The event does not carry the notional then: the average price the order has now stands for it.
        view.executedNotional = order.filledQuantity == 0 ? 0 :
            (long)((double)order.executedNotional * view.filledQuantity / order.filledQuantity);
        view.clOrdId(replace.clOrdId, replace.clOrdIdLength);
        view.origClOrdId(replace.origClOrdId, replace.origClOrdIdLength);
        return view;
    }

    private void rejectCancel(
        final FixSessionState state,
        final FixOrder order,
        final char[] clOrdId,
        final int clOrdIdLength,
        final char[] origClOrdId,
        final int origClOrdIdLength,
        final char responseTo,
        final int reason,
        final String text)
    {
        rejectCancel(state, order, clOrdId, clOrdIdLength, origClOrdId, origClOrdIdLength, responseTo, reason, text,
            order == null ? STATUS_REJECTED : ordStatus(order));
    }

    private void rejectCancel(
        final FixSessionState state,
        final FixOrder order,
        final char[] clOrdId,
        final int clOrdIdLength,
        final char[] origClOrdId,
        final int origClOrdIdLength,
        final char responseTo,
        final int reason,
        final String text,
        final char ordStatus)
    {
        final OrderCancelRejectEncoder reject = cancelReject;
        reject.reset();
        madeFromBatch(reject.header());
        if (order != null && order.orderId != 0)
        {
            reject.orderID(orderIdBuffer, 0, orderIdBuffer.putLongAscii(0, order.orderId));
        }
        else
        {
            reject.orderID(NONE);
        }
        reject.clOrdID(clOrdId, Math.min(clOrdIdLength, FixOrder.MAX_ID_LENGTH))
            .origClOrdID(origClOrdId, Math.min(origClOrdIdLength, FixOrder.MAX_ID_LENGTH))
            .ordStatus(ordStatus)
            .cxlRejResponseTo(responseTo)
            .cxlRejReason(reason)
            .text(text);
        send(state, reject);
    }

    private void send(final FixSessionState state, final Encoder message)
    {
        send(state, message, -1, 0);
    }

    /**
     * Hand a message to Artio for the session, or hold it, behind any held before it: while the session is away,
     * or when Artio's stream to its framer has no room now (the framer or Artio's archiver is behind). Held messages
     * go out in order as Artio takes them ({@link #sendHeldMessages}); none is dropped unless a session away has
     * {@link #MAX_HELD_MESSAGES_PER_SESSION} held.
     *
     * @param batchSequence the batch a report was made from, -1 for a message made outside a batch.
     * @param key           the report's key within that batch.
     * @return whether Artio took it now.
     */
    private boolean send(final FixSessionState state, final Encoder message, final long batchSequence, final long key)
    {
        if (state.canSend() && state.heldMessages.isEmpty() && trySend(state, message))
        {
            messagesMade++;
            return true;
        }
        hold(state, message, batchSequence, key);
        messagesMade++;
        return false;
    }

    /**
     * One offer to Artio, and one more after an administrative action (a term rotation: worth retrying at once).
     * Back-pressure is not waited out here: the library is not polled on this path, as that would re-enter the
     * handlers, so the framer can only catch up while the gateway's thread is doing something else.
     */
    private boolean trySend(final FixSessionState state, final Encoder message)
    {
        final Session session = state.session;
        state.outbound.beforeNextSend(session);
        long position = session.trySend(message);
        if (position == Publication.ADMIN_ACTION)
        {
            position = session.trySend(message);
        }
        if (position < 0)
        {
            return false;
        }
        lastSentPosition = position;
        return true;
    }

    /**
     * A copy of a message to hold, with its PossResend: reports from a pool, as a session away collects many; the
     * gateway's other answers, rare, each in a new encoder of its type, with the routing of their header.
     */
    private Encoder copyOf(final Encoder message)
    {
        return switch (message)
        {
            case ExecutionReportEncoder report ->
            {
                final ExecutionReportEncoder copy = report.copyTo(
                    spareReportEncoders.isEmpty() ? new ExecutionReportEncoder() : spareReportEncoders.pollFirst());
                keepPossResend(report.header(), copy.header());
                yield copy;
            }
            case OrderCancelRejectEncoder reject ->
            {
                final OrderCancelRejectEncoder copy = reject.copyTo(new OrderCancelRejectEncoder());
                keepPossResend(reject.header(), copy.header());
                yield copy;
            }
            case OrderMassCancelReportEncoder report ->
            {
                final OrderMassCancelReportEncoder copy = report.copyTo(new OrderMassCancelReportEncoder());
                keepPossResend(report.header(), copy.header());
                yield copy;
            }
            case BusinessMessageRejectEncoder reject ->
            {
                final BusinessMessageRejectEncoder copy = reject.copyTo(new BusinessMessageRejectEncoder());
                reject.header().copyTo(copy.header());
                yield copy;
            }
            case SessionRejectEncoder reject ->
            {
                final SessionRejectEncoder copy = reject.copyTo(new SessionRejectEncoder());
                reject.header().copyTo(copy.header());
                yield copy;
            }
            default -> throw new IllegalArgumentException("the gateway does not send " + message.getClass());
        };
    }

    /**
     * A held copy of a message the replay after a restart made again keeps its PossResend (see
     * {@link #handledBeforeRestart}); copying a message leaves its header behind.
     */
    private static void keepPossResend(final HeaderEncoder from, final HeaderEncoder to)
    {
        if (from.hasPossResend())
        {
            to.possResend(true);
        }
    }

    private DirectBuffer localExecId(final FixSessionState state, final int msgSeqNum)
    {
        return localExecId(state, state.session != null ? state.session.sequenceIndex() : state.lastSequenceIndex,
            msgSeqNum);
    }

    /**
     * Answers given by the gateway itself, not sequenced by the cluster: unique by session and inbound MsgSeqNum, and
     * the session's sequence index when the request came, which grows on every sequence reset. An answer for a session
     * that has gone away since its request takes the session id it last had.
     */
    private DirectBuffer localExecId(final FixSessionState state, final int sequenceIndex, final int msgSeqNum)
    {
        final Session session = state.session;
        int length = 0;
        idBuffer.putByte(length++, (byte)'G');
        length += idBuffer.putLongAscii(length, session != null ? session.id() : state.lastSessionId);
        idBuffer.putByte(length++, (byte)'.');
        length += idBuffer.putIntAscii(length, sequenceIndex);
        idBuffer.putByte(length++, (byte)'.');
        length += idBuffer.putIntAscii(length, msgSeqNum);
        localExecIdView.wrap(idBuffer, 0, length);
        return localExecIdView;
    }

    private final UnsafeBuffer localExecIdView = new UnsafeBuffer(0, 0);
    /**
     * The ExecRestatementReason of the restatement being reported: the exchange's self-trade prevention's while its
     * event is, else {@link #RESTATEMENT_OTHER}.
     */
    private int restatementReason = RESTATEMENT_OTHER;
    /**
     * The fee of the fill being reported, in the quote asset's minor units: its Commission (12).
     */
    private long fillFee;

    // ------------------------------------------------------------------------------------------------ timers

    private int checkCancelOnDisconnect(final long nowNs)
    {
        int work = 0;
        for (int i = sessionsAwaitingCancelOnDisconnect.size() - 1; i >= 0; i--)
        {
            final FixSessionState state = sessionsAwaitingCancelOnDisconnect.get(i);
            // One owed from before a restart waits until the exchange has said what became of the session's orders
            // that were waiting for its answer, so that each is canceled by its order id.
            if (nowNs >= state.cancelOnDisconnectDeadlineNs && !hasPendingRestored(state))
            {
                work++;
                if (cancelOnDisconnect(state))
                {
                    state.cancelOnDisconnectDeadlineNs = Long.MAX_VALUE;
                    sessionsAwaitingCancelOnDisconnect.remove(i);
                    paidCancelOnDisconnect(state);
                }
                else
                {
                    // The client's buffer of unanswered commands is full: the rest are sent once answers free it.
                    state.cancelOnDisconnectDeadlineNs = nowNs + CANCEL_ON_DISCONNECT_RETRY_NS;
                }
            }
        }
        return work;
    }

    private boolean hasPendingRestored(final FixSessionState state)
    {
        for (final FixOrder order : pendingRestored.values())
        {
            if (order.session == state)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Owed no more once every cancel is sent and answered (a cancel the client holds while the cluster is away, or
     * one whose answer is not yet in, is not yet the exchange's), unless the session has logged on again meanwhile.
     */
    private void paidCancelOnDisconnect(final FixSessionState state)
    {
        if (state.cancelsOnDisconnectUnanswered == 0 && state.session == null &&
            !sessionsAwaitingCancelOnDisconnect.contains(state))
        {
            state.cancelOnDisconnectOwed(false);
        }
    }

    /**
     * @return true when every cancel is sent; false when the client could take no more, to be called again.
     */
    private boolean cancelOnDisconnect(final FixSessionState state)
    {
        if (state.spec.cancelOnDisconnect() == FixSessionSpec.CancelOnDisconnect.ACCOUNT)
        {
            final int length = commandEncoder.massCancel(commandBuffer, 0, state.spec.accountId(), 0, Side.NULL_VAL);
            final long requestSequence = client.trySend(commandBuffer, 0, length);
            if (requestSequence < 0)
            {
                return false;
            }
            pendingByRequest.put(requestSequence, newPending(PENDING_CANCEL_ON_DISCONNECT, state, null));
            state.cancelsOnDisconnectUnanswered++;
            return true;
        }
        if (!state.cancelingOnDisconnect)
        {
            state.cancelingOnDisconnect = true;
            state.ordersToCancelOnDisconnect.addAll(state.openOrdersByClOrdId.values());
        }
        FixOrder order;
        while ((order = state.ordersToCancelOnDisconnect.peekFirst()) != null)
        {
            if (state.openOrdersByClOrdId.get(order.clOrdIdHash) == order)
            {
                final int length = commandEncoder.cancelOrder(commandBuffer, 0, order.accountId, order.orderId,
                    order.orderId == 0 ? order.engineClientOrderId : 0);
                final long requestSequence = client.trySend(commandBuffer, 0, length);
                if (requestSequence < 0)
                {
                    return false;
                }
                pendingByRequest.put(requestSequence, newPending(PENDING_CANCEL_ON_DISCONNECT, state, order));
                state.cancelsOnDisconnectUnanswered++;
            }
            state.ordersToCancelOnDisconnect.pollFirst();
        }
        state.cancelingOnDisconnect = false;
        return true;
    }

    /**
     * Logged on again: cancels already sent go ahead, the rest are not sent.
     */
    private void stopCancelOnDisconnect(final FixSessionState state)
    {
        state.cancelOnDisconnectDeadlineNs = Long.MAX_VALUE;
        state.cancelingOnDisconnect = false;
        state.ordersToCancelOnDisconnect.clear();
        sessionsAwaitingCancelOnDisconnect.remove(state);
    }

    /**
     * Ask the engine about each order to query (restored from the gateway's store, or open across a gap in the events),
     * as many as the client takes now.
     */
    private int queryOrders()
    {
        int sent = 0;
        FixOrder order;
        while ((order = ordersToQuery.peekFirst()) != null)
        {
            final boolean pendingOrder = order.orderId == 0;
            if (pendingOrder ? pendingRestored.get(order.engineClientOrderId) == order :
                ordersByOrderId.get(order.orderId) == order)
            {
                // A pending order is asked about by its client order id: the answer comes after the replayed events,
                // so it is still pending only when they said nothing of it.
                final int length = commandEncoder.queryOrder(commandBuffer, 0, order.accountId, order.orderId,
                    pendingOrder ? order.engineClientOrderId : 0);
                final long requestSequence = client.trySend(commandBuffer, 0, length);
                if (requestSequence < 0)
                {
                    break;
                }
                final Pending query = newPending(PENDING_RESTORE, order.session, order);
                // The client order id it was asked by, for a pending order: a replace the replay reports before the
                // answer gives the order another.
                query.engineClientOrderId = pendingOrder ? order.engineClientOrderId : 0;
                pendingByRequest.put(requestSequence, query);
                sent++;
            }
            else
            {
                // Closed, or adopted, meanwhile: nothing to ask.
                order.queried = false;
            }
            ordersToQuery.pollFirst();
        }
        return sent;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private void rejectOrder(final FixOrder order, final RejectReason reason)
    {
        // The expiry of a Day order is the gateway's, not one its client named.
        final String text = order.timeInForce == TIME_IN_FORCE_DAY && reason == RejectReason.EXPIRY_IN_PAST ?
            DAY_ORDER_TOO_LATE : FixRejects.engineText(reason);
        sendReport(order, EXEC_REJECTED, STATUS_REJECTED, 0, 0, FixRejects.ordRejReason(reason), text, null, 0);
        closeOrder(order);
    }

    /**
     * A pending order restored from the previous run was accepted: it is open from now on.
     *
     * @return the order, or null when no pending order of the account has this client order id.
     */
    private FixOrder adoptPending(final long accountId, final long engineClientOrderId, final long orderId)
    {
        final FixOrder order = pendingRestored.get(engineClientOrderId);
        if (order == null || order.accountId != accountId)
        {
            return null;
        }
        pendingRestored.remove(engineClientOrderId);
        order.orderId = orderId;
        ordersByOrderId.put(orderId, order);
        order.session.openOrdersByClOrdId.put(order.clOrdIdHash, order);
        openOrders.lazySet(ordersByOrderId.size());
        store.writeOpen(order);
        order.recordedPending = false;
        return order;
    }

    private void closeOrder(final FixOrder order)
    {
        final FixSessionState session = order.session;
        // Cancels and replaces of it whose answers were lost: it is done, whatever they did.
        final Pending lost = order.lostRequest;
        order.lostRequest = null;
        answerLostRequests(order, lost, null, DONE_ANSWER_LOST, STATUS_DONE_FOR_DAY);
        settleCarriedReplace(order);
        if (order.orderId == 0 && order.recordedPending)
        {
            order.recordedPending = false;
            if (session.heldMessages.isEmpty() || order.answerLost)
            {
                // An order applied whose answer was lost goes now, its report held or not: after a restart the query
                // would not find it open, and would call it never received (a false refusal being worse than a lost
                // "done" report).
                afterArchive.add(lastSentPosition, NOT_ACCEPTED, null, order.engineClientOrderId, 0);
            }
            else
            {
                // Its refusal is held: a gateway restarted before sending it still knows the order, and the replay
                // (or the restore's query) refuses it again.
                session.notAcceptedWhileHeld.addLong(order.engineClientOrderId);
            }
        }
        if (session.openOrdersByClOrdId.get(order.clOrdIdHash) == order)
        {
            session.openOrdersByClOrdId.remove(order.clOrdIdHash);
        }
        if (order.orderId != 0 && ordersByOrderId.remove(order.orderId) != null)
        {
            session.closed(order);
            openOrders.lazySet(ordersByOrderId.size());
            if (session.heldMessages.isEmpty())
            {
                afterArchive.add(lastSentPosition, CLOSED, null, order.orderId, 0);
            }
            else
            {
                session.closedWhileHeld.addLong(order.orderId);
            }
        }
    }

    /**
     * A restored replace the order's record carries, whose answer the replay did not bring (it was reported before
     * the restart): nothing is left to report.
     */
    private void settleCarriedReplace(final FixOrder order)
    {
        final Pending replace = order.carriedReplace;
        if (replace != null)
        {
            order.carriedReplace = null;
            replaceSettled(replace);
            releasePending(replace);
        }
    }

    private static long engineClientOrderId(final FixSessionState state, final int sequenceIndex, final int msgSeqNum)
    {
        return ((state.session.id() & 0xFFFFL) << 47) | ((sequenceIndex & 0x7FFFL) << 32) | (msgSeqNum & 0xFFFFFFFFL);
    }

    private FixInstrument instrument(final char[] symbol, final int length)
    {
        // Symbols are few and short: a linear scan avoids building a String per order.
        for (final FixInstrument instrument : instrumentsBySymbol.values())
        {
            final String name = instrument.symbol();
            if (name.length() == length)
            {
                boolean equal = true;
                for (int i = 0; i < length && equal; i++)
                {
                    equal = name.charAt(i) == symbol[i];
                }
                if (equal)
                {
                    return instrument;
                }
            }
        }
        return null;
    }

    private static boolean symbolMatches(final FixOrder order, final char[] symbol, final int length)
    {
        final String name = order.instrument.symbol();
        if (name.length() != length)
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            if (name.charAt(i) != symbol[i])
            {
                return false;
            }
        }
        return true;
    }

    private static boolean accountMatches(final FixSessionState state, final char[] account, final int length)
    {
        return length == state.accountChars.length &&
            java.util.Arrays.equals(state.accountChars, 0, length, account, 0, length);
    }

    private static boolean contains(final char[] value, final int length, final char wanted)
    {
        for (int i = 0; i < length; i++)
        {
            if (value[i] == wanted)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * What the exchange cannot do that an order or replace asks for: an execution instruction other than post-only, or
     * a minimum quantity. Refused rather than ignored, so that an order is never worked in a way its sender excluded.
     *
     * @param execInst ExecInst (18), or null when the message has none.
     * @return the refusal's text, or null when the order asks for nothing of the kind.
     */
    private static String unsupportedInstruction(
        final char[] execInst, final int execInstLength, final boolean hasMinQty)
    {
        // ExecInst (18) is a space-separated list of values; only 6 (participate don't initiate: post-only) is taken.
        for (int i = 0; i < execInstLength; i++)
        {
            if (execInst[i] != '6' && execInst[i] != ' ')
            {
                return "ExecInst (18) supports only 6 (post-only)";
            }
        }
        return hasMinQty ? "MinQty (110) is not supported" : null;
    }

    /**
     * @param nowNs the wall clock's time, epoch nanoseconds, as the end of day is scheduled by.
     * @return when a Day order entered then expires: {@link #DAY_ORDERS_CLOSE_BEFORE_END_OF_DAY_NS} before the
     * gateway's next end of day (one entered later is the exchange's to refuse as too late), epoch nanoseconds.
     */
    private long dayOrderExpiryNs(final long nowNs)
    {
        // Good through the trading date under way: the one its next end of day closes.
        return expiryOfDate(Math.floorDiv(nowNs - endOfTradingDayNs(), NANOS_PER_DAY) + 1);
    }

    /**
     * @param expireTimeNs the expiry ExpireTime (126) or ExpireDate (432) gives, {@link FixTimestamps#INVALID} when it
     *                     names no real instant or date.
     * @return why an order's expiry is wrong for its TimeInForce, or null: a GTD order (6) needs ExpireTime or
     * ExpireDate, one of them, that is real, and no other order may have either. One already past is the exchange's
     * to refuse, by its own clock.
     */
    private static String expiryProblem(
        final boolean gtd, final boolean hasExpireTime, final boolean hasExpireDate, final long expireTimeNs)
    {
        if (!gtd)
        {
            return hasExpireTime ? "ExpireTime (126) only with TimeInForce 6 (GTD)" :
                hasExpireDate ? "ExpireDate (432) only with TimeInForce 6 (GTD)" : null;
        }
        if (hasExpireTime == hasExpireDate)
        {
            return hasExpireTime ? "ExpireTime (126) and ExpireDate (432) together: give one" :
                "ExpireTime (126) or ExpireDate (432) required with TimeInForce 6 (GTD)";
        }
        return expireTimeNs != FixTimestamps.INVALID ? null : hasExpireTime ? INVALID_EXPIRE_TIME : INVALID_EXPIRE_DATE;
    }

    /**
     * The trading day a date names ends at the first end of day after its start, 00:00 UTC (at 24:00 for a gateway
     * whose end of day is midnight, or that has none): a GTD order given it as ExpireDate (432) trades through it and
     * expires a second before that end, as a Day order does on its last day.
     *
     * @return when an order good through the date expires, or {@link FixTimestamps#INVALID} for an invalid date.
     */
    private long expiryOfDate(final long epochDay)
    {
        if (epochDay == FixTimestamps.INVALID)
        {
            return FixTimestamps.INVALID;
        }
        return epochDay * NANOS_PER_DAY + endOfTradingDayNs() - DAY_ORDERS_CLOSE_BEFORE_END_OF_DAY_NS;
    }

    /**
     * @return the date, days since 1970-01-01, whose orders good through it expire at {@code expireTimeNs}: what
     * {@link #expiryOfDate} was given.
     */
    private long dateOfExpiry(final long expireTimeNs)
    {
        return Math.floorDiv(expireTimeNs + DAY_ORDERS_CLOSE_BEFORE_END_OF_DAY_NS - endOfTradingDayNs(), NANOS_PER_DAY);
    }

    /**
     * @return when a trading day ends after its date's 00:00 UTC: the gateway's end of day, or 24 hours when that is
     * midnight or there is none.
     */
    private long endOfTradingDayNs()
    {
        return endOfDayNsOfDay > 0 ? endOfDayNsOfDay : NANOS_PER_DAY;
    }

    private static Side side(final char side)
    {
        return side == '1' ? Side.BUY : side == '2' ? Side.SELL : null;
    }

    /**
     * @param stop whether it is a stop order: a stop market order waits GTC (the default) for its stop price.
     */
    private static TimeInForce timeInForce(final char timeInForce, final OrderType orderType, final boolean stop)
    {
        final boolean market = orderType == OrderType.MARKET && !stop;
        return switch (timeInForce)
        {
            case 0 -> market ? TimeInForce.IOC : TimeInForce.GTC;
            case '1' -> market ? null : TimeInForce.GTC;
            case '3' -> TimeInForce.IOC;
            case '4' -> TimeInForce.FOK;
            // A Day order is one good till the gateway's end of day.
            case TIME_IN_FORCE_GTD, TIME_IN_FORCE_DAY -> market ? null : TimeInForce.GTD;
            default -> null;
        };
    }

    private static char fixTimeInForce(final TimeInForce timeInForce)
    {
        return switch (timeInForce)
        {
            case GTC -> '1';
            case IOC -> '3';
            case FOK -> '4';
            case GTD -> TIME_IN_FORCE_GTD;
            default -> 0;
        };
    }

    /**
     * A restored open order takes the state its close was kept with, so that what is reported and kept from now on
     * (its report, the answers to its lost requests, the session's closed orders) is that state, not the open
     * record's. It leaves the session's open orders under the ClOrdID it had there first.
     */
    private static void adoptClose(final FixOrder order, final FixOrder closed)
    {
        final FixSessionState session = order.session;
        if (session.openOrdersByClOrdId.get(order.clOrdIdHash) == order)
        {
            session.openOrdersByClOrdId.remove(order.clOrdIdHash);
        }
        order.clOrdId(closed.clOrdId, closed.clOrdIdLength);
        order.origClOrdId(closed.origClOrdId, closed.origClOrdIdLength);
        order.quantity = closed.quantity;
        order.price = closed.price;
        order.stopPx = closed.stopPx;
        order.triggered = closed.triggered;
        order.filledQuantity = closed.filledQuantity;
        order.executedNotional = closed.executedNotional;
    }

    /**
     * @return the session's closed order that a restored open one is, when its close was kept before the restart.
     */
    private static FixOrder closedBeforeRestart(final FixOrder order)
    {
        final FixOrder closed = order.session.findRecentlyClosed(order.orderId);
        // The same order, not one of another exchange history whose ids ran over the same numbers.
        return closed != null && closed != order && closed.accountId == order.accountId &&
            closed.instrument == order.instrument && closed.side == order.side ? closed : null;
    }

    private static char ordStatus(final FixOrder order)
    {
        if (order.closedStatus != 0)
        {
            return order.closedStatus;
        }
        return order.filledQuantity == 0 ? STATUS_NEW :
            order.filledQuantity < order.quantity ? STATUS_PARTIAL : STATUS_FILLED;
    }

    private static FixOrder restoredOrder(
        final FixSessionState session, final FixInstrument instrument, final FixOrderStore.Entry entry)
    {
        final FixOrder order = newOrder();
        order.session = session;
        order.orderId = entry.orderId();
        order.engineClientOrderId = entry.engineClientOrderId();
        order.accountId = entry.accountId();
        order.instrument = instrument;
        order.side = entry.side();
        order.ordType = entry.ordType();
        order.timeInForce = entry.timeInForce();
        order.postOnly = entry.postOnly();
        order.price = entry.price();
        order.stopPx = entry.stopPx();
        order.expireTimeNs = entry.expireTimeNs();
        order.triggered = entry.triggered();
        order.expireByDate = entry.expireByDate();
        order.quantity = entry.quantity();
        order.filledQuantity = entry.filledQuantity();
        order.executedNotional = entry.executedNotional();
        order.clOrdId(entry.clOrdId().toCharArray(), entry.clOrdId().length());
        order.origClOrdId(entry.origClOrdId().toCharArray(), entry.origClOrdId().length());
        return order;
    }

    private static FixOrder newOrder()
    {
        // One object per order: a pending command or a late event may still refer to a closed order, so orders
        // are left to the garbage collector rather than pooled.
        return new FixOrder();
    }

    private Pending newPending(final int type, final FixSessionState session, final FixOrder order)
    {
        Pending pending = pendingPool.poll();
        if (pending == null)
        {
            pending = new Pending();
        }
        pending.type = type;
        pending.session = session;
        pending.order = order;
        return pending;
    }

    private void releasePending(final Pending pending)
    {
        if (pending.type == PENDING_CANCEL_ON_DISCONNECT)
        {
            pending.session.cancelsOnDisconnectUnanswered--;
            paidCancelOnDisconnect(pending.session);
        }
        pending.type = 0;
        pending.session = null;
        pending.order = null;
        pending.clOrdIdLength = 0;
        pending.origClOrdIdLength = 0;
        pending.msgSeqNum = 0;
        pending.sequenceIndex = 0;
        pending.massCancelRequestType = 0;
        pending.reports = 0;
        pending.reportIndex = 0;
        pending.rejected = false;
        pending.settled = false;
        pending.engineClientOrderId = 0;
        pending.nextLost = null;
        pendingPool.offer(pending);
    }

    /**
     * A command sent and not yet answered, with what its answer needs.
     */
    static final class Pending
    {
        int type;
        FixSessionState session;
        FixOrder order;
        final char[] clOrdId = new char[FixOrder.MAX_ID_LENGTH];
        int clOrdIdLength;
        /**
         * A cancel's or replace's OrigClOrdID (41) as the request gave it, which its refusal echoes.
         */
        final char[] origClOrdId = new char[FixOrder.MAX_ID_LENGTH];
        int origClOrdIdLength;
        int msgSeqNum;
        /**
         * A status request's session's sequence index when it came, which with its MsgSeqNum names the answer.
         */
        int sequenceIndex;
        char massCancelRequestType;
        /**
         * A mass status request's reports, and the number of the one being sent (from 1).
         */
        int reports;
        int reportIndex;
        boolean rejected;
        /**
         * For a replace: its REPLACE_DONE record has been made (see {@link #replaceSettled}).
         */
        boolean settled;
        /**
         * The client order id a replace gives the order; for the query about a pending order after a restart, the
         * client order id it was asked by.
         */
        long engineClientOrderId;
        /**
         * The next cancel or replace of the same order whose answer was lost (see {@link FixOrder#lostRequest}).
         */
        Pending nextLost;

        void clOrdId(final char[] value, final int length)
        {
            System.arraycopy(value, 0, clOrdId, 0, length);
            clOrdIdLength = length;
        }

        void origClOrdId(final char[] value, final int length)
        {
            System.arraycopy(value, 0, origClOrdId, 0, length);
            origClOrdIdLength = length;
        }
    }
}
