package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.cluster.IgnoredReason;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.internal.http.WebSocketInternal;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.OffsetEpochNanoClock;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The gateway's one thread towards the cluster: owns the {@link ExchangeClient}, the {@link ReadModel} and the
 * WebSocket subscriptions. Request threads hand it work through a bounded queue ({@link #submit}); it sends
 * commands, matches answers to requests by request sequence, applies every batch to the read model and fans the
 * changes out to subscribers, each message numbered per instrument so that a subscriber notices a gap.
 */
final class GatewayAgent implements Agent, ExchangeClientListener
{
    private static final long STATE_RETRY_NS = TimeUnit.SECONDS.toNanos(3);
    /**
     * The most bytes of batches kept while the state comes in; beyond it they are let go and the state asked for
     * again, at a later position.
     */
    private static final int MAX_KEPT_BATCH_BYTES = 64 * 1024 * 1024;
    private static final int KEPT_BATCH_HEADER = Long.BYTES + Integer.BYTES;
    private static final long TIMEOUT_SWEEP_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * How long a cancel a closed WebSocket connection asked for is sent again while the exchange pushes back.
     */
    private static final long CANCEL_RETRY_NS = TimeUnit.SECONDS.toNanos(5);
    /**
     * How many orders a WebSocket connection keeps as placed before it first forgets the closed ones: pruning a set
     * only when it has doubled keeps the work per placement constant.
     */
    static final int PLACED_ORDERS_PRUNED_FROM = 64;

    /**
     * What the messages pushed to a WebSocket connection (market data, its private channels, heartbeats) may take while
     * they wait, made and not yet taken by its socket, before more are dropped: room for a burst of a few thousand that
     * a client reading at full speed takes in a moment. The book's and the private channels' numbers show the gap.
     */
    static final int WS_QUEUE_BYTES = 1024 * 1024;
    /**
     * What the answers to a connection's own messages may take while they wait. Answers are never dropped: past this
     * the connection is closed instead ({@link #SLOW_CONSUMER_CLOSE}), rather than leave its client waiting for one
     * that will not come. Answers are few and small: only a client that sends on and has stopped reading gets here.
     */
    static final int WS_ANSWERS_QUEUE_BYTES = 4 * WS_QUEUE_BYTES;
    /**
     * What a waiting message is counted as beyond its characters: the objects that carry it to the socket.
     */
    static final int WS_MESSAGE_OVERHEAD_BYTES = 256;
    /**
     * The close code of a connection that could not be given an answer: policy violation, as a slow consumer.
     */
    static final short SLOW_CONSUMER_CLOSE = 1008;
    static final String SLOW_CONSUMER_REASON = "slow consumer: an answer could not be queued behind what is unread";
    /**
     * How long a connection closed as a slow consumer stays open after its close was sent, for its client to read what
     * it was sent and the close: then it is cut off.
     */
    static final long SLOW_CONSUMER_CLOSE_GRACE_MS = 10_000;

    /**
     * One WebSocket connection's subscriptions, authentication and orders in flight; touched only on the gateway
     * thread but for what is said otherwise.
     */
    static final class WsSession
    {
        final ServerWebSocket socket;
        /**
         * The connection's event loop, where its messages are written: written from the gateway thread, each would
         * queue in Vert.x's cross-thread queue, which reports itself full at 16 messages and so dropped bursts
         * (a batch's book updates, a mass cancel's orders) to clients that were keeping up.
         */
        final Context eventLoop;
        /**
         * Messages made for it in this duty cycle, handed to {@link #eventLoop} together at the cycle's end, and their
         * bytes.
         */
        final ArrayList<String> outbox = new ArrayList<>();
        long outboxPushBytes;
        long outboxAnswerBytes;
        boolean flushQueued;
        /**
         * What the pushed messages and the answers handed to the event loop take ({@link #WS_MESSAGE_OVERHEAD_BYTES}
         * each more than their characters) until the socket has taken them (the kernel's send buffer): what bounds a
         * connection whose client, or event loop, falls behind.
         */
        final AtomicLong handedPushBytes = new AtomicLong();
        final AtomicLong handedAnswerBytes = new AtomicLong();
        /**
         * Set once an answer could not be queued, on the gateway thread or the event loop: nothing the connection
         * sends is acted on any more.
         */
        volatile boolean slow;
        /**
         * Set on the gateway thread with {@link #slow}: nothing more is queued, and the connection is closed after the
         * messages made so far ({@link #closeAsSlowConsumer}).
         */
        boolean closingAsSlow;
        /**
         * Set on the connection's event loop as its close as a slow consumer is sent: nothing more is written to it.
         */
        boolean slowCloseSent;
        long accountId;
        /**
         * The key the connection authenticated with: its orders are counted against that key's rate limit.
         */
        String apiKey;
        boolean readOnly;
        /**
         * Orders sent and not yet answered, and pongs held until they are: a pong comes after the answers to the
         * messages sent before its ping.
         */
        int ordersInFlight;
        int pongsHeld;
        /**
         * Run on the gateway thread when the connection closes, or null: its {@code cancelOnDisconnect}.
         */
        Runnable cancelOnDisconnect;
        /**
         * The orders the connection placed that may still be open, what a {@code cancelOnDisconnect} of the
         * connection's orders cancels; pruned of closed ones once it has doubled since the last pruning.
         */
        final LongHashSet placedOrders = new LongHashSet();
        /**
         * The client order ids of the connection's placements whose outcome is unknown (timed out, answer lost): they
         * may rest on the exchange all the same.
         */
        final LongHashSet unansweredPlacements = new LongHashSet();
        int placedOrdersPruneAt = PLACED_ORDERS_PRUNED_FROM;
        /**
         * Set when the connection's orders were canceled as it closed: an order placed before the close and answered
         * after it is canceled as soon as it is answered.
         */
        boolean cancelsLatePlacements;
        boolean closed;
        /**
         * The last sequence number of each of the connection's private channels, by {@link PrivateChannel#ordinal}:
         * each message meant for it takes the next one, sent or dropped, so that a gap tells the client it missed one.
         */
        final long[] privateSequences = new long[PrivateChannel.values().length];
        /**
         * Set by the connection's event loop when it closes. The close is also handed to the gateway thread as a task,
         * but the task queue may be full then; the heartbeat removes what such a lost task would have.
         */
        volatile boolean disconnected;

        WsSession(final ServerWebSocket socket, final Context eventLoop)
        {
            this.socket = socket;
            this.eventLoop = eventLoop;
        }
    }

    private record PendingCommand(Command command, long sentNs, long sentEpochNs)
    {
    }

    /**
     * Commands pushed back, to send again in the next duty cycle.
     */
    private final ArrayList<BackPressureRetried> retrying = new ArrayList<>();
    private final ExchangeClient client;
    private final GatewayMetrics metrics;
    private final long heartbeatIntervalNs;
    private final long commandTimeoutNs;
    private final ManyToOneConcurrentArrayQueue<Consumer<GatewayAgent>> tasks;
    private final Consumer<Consumer<GatewayAgent>> runTask = task -> task.accept(this);
    private final ReadModel model;
    private final ReadModel.Changes changes = new ReadModel.Changes();
    private final Answer answer = new Answer();
    private final EpochNanoClock epochClock = new OffsetEpochNanoClock();
    private final CommandEncoder encoder = new CommandEncoder();
    private final ExpandableDirectByteBuffer commandBuffer = new ExpandableDirectByteBuffer(256);
    private final ExpandableArrayBuffer stateAssembly = new ExpandableArrayBuffer(64 * 1024);
    /**
     * The batches that come while the state does (log position, length, events), for those after its position.
     */
    private final ExpandableArrayBuffer keptBatches = new ExpandableArrayBuffer(64 * 1024);
    private final Long2ObjectHashMap<PendingCommand> pending = new Long2ObjectHashMap<>();
    private final Set<WsSession> sessions = new LinkedHashSet<>();
    private final Int2ObjectHashMap<Set<WsSession>> bookSubscribers = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<Set<WsSession>> tradeSubscribers = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<Set<WsSession>> tickerSubscribers = new Int2ObjectHashMap<>();
    /**
     * Each private channel's subscribers by account, by {@link PrivateChannel#ordinal}.
     */
    private final Long2ObjectHashMap<Set<WsSession>>[] privateSubscribers = newPrivateSubscribers();
    private final Long2ObjectHashMap<Set<WsSession>> orderSubscribers = privateSubscribers[PrivateChannel.ORDERS.ordinal()];
    private final Long2ObjectHashMap<Set<WsSession>> fillSubscribers = privateSubscribers[PrivateChannel.FILLS.ordinal()];
    private final Long2ObjectHashMap<Set<WsSession>> balanceSubscribers =
        privateSubscribers[PrivateChannel.BALANCES.ordinal()];
    private final IntHashSet touchedInstruments = new IntHashSet();
    private final List<WsSession> disconnectedSessions = new ArrayList<>();
    /**
     * The connections with messages queued in this duty cycle.
     */
    private final List<WsSession> flushing = new ArrayList<>();

    private volatile boolean live;
    private volatile int leaderMemberId = -1;
    private volatile int wsSessionCount;
    /**
     * The model's count of armed cancel-all-after switches and of those triggered, for other threads.
     */
    private volatile int cancelAllAfterArmed;
    private volatile long cancelAllAfterTriggered;
    private long statePosition = -1;
    /**
     * The log position of the last batch the model has applied, or of the state it loaded: how far the gateway's
     * knowledge of the exchange goes.
     */
    private long appliedLogPosition = -1;
    /**
     * Told of the trades each state loaded leaves the model's bars without, or null.
     */
    private Consumer<ReadModel.MissingTrades> missingTradesListener;
    private long stateRequestedNs;
    /**
     * The cluster numbers its batches afresh since the state was last loaded: it is not the one the gateway's history
     * came from, whose order ids it may use again.
     */
    private boolean anotherCluster;
    private boolean stateRequested;
    /**
     * After a gap, until the next answer to a command of this gateway's: commands before it still waiting lost theirs.
     */
    private boolean answersMayBeLost;
    private int nextChunkIndex;
    private int stateLength;
    private int keptBatchesLength;
    private long lastHeartbeatNs;
    private long lastTimeoutSweepNs;
    private long publications;

    GatewayAgent(final ExchangeClient.Context clientContext, final GatewayMetrics metrics, final int queueCapacity,
        final long heartbeatIntervalNs, final long commandTimeoutNs, final ReadModel model)
    {
        this.metrics = metrics;
        this.model = model;
        this.heartbeatIntervalNs = heartbeatIntervalNs;
        this.commandTimeoutNs = commandTimeoutNs;
        this.tasks = new ManyToOneConcurrentArrayQueue<>(queueCapacity);
        this.client = new ExchangeClient(clientContext.listener(this));
    }

    /**
     * Be told, on the gateway thread, of the trades a state the model loads leaves its bars without: those made before
     * the first, or while the gateway was cut off. Set before the agent starts.
     */
    void onMissingTrades(final Consumer<ReadModel.MissingTrades> listener)
    {
        missingTradesListener = listener;
    }

    /**
     * Hand work to the gateway thread.
     *
     * @return false when the queue is full (the caller answers 503).
     */
    boolean submit(final Consumer<GatewayAgent> task)
    {
        return tasks.offer(task);
    }

    /**
     * @return true once the read model holds the engine state and follows the event stream.
     */
    boolean isLive()
    {
        return live;
    }

    private void sendTicker(final int instrumentId)
    {
        final Set<WsSession> subscribers = tickerSubscribers.get(instrumentId);
        final InstrumentView instrument = model.instrument(instrumentId);
        if (instrument != null && subscribers != null && !subscribers.isEmpty())
        {
            sendAll(subscribers, Views.ticker(model, instrument).toString());
        }
    }

    /**
     * Count trades the model's bars were missing ({@link ReadModel#joinMissingTrades}), and send the tickers they
     * change: on a quiet market no trade would.
     */
    void joinMissingTrades(final ReadModel.MissingTrades range, final Map<Integer, MinuteBars> found)
    {
        if (model.joinMissingTrades(range, found))
        {
            found.keySet().forEach(this::sendTicker);
        }
    }

    /**
     * @return the log position up to which the model holds the exchange's state (meaningful while {@link #isLive()}).
     */
    long appliedLogPosition()
    {
        return appliedLogPosition;
    }

    boolean isConnected()
    {
        return client.isConnected();
    }

    int leaderMemberId()
    {
        return leaderMemberId;
    }

    /**
     * @return how many accounts of the exchange have a cancel-all-after switch armed; read from any thread.
     */
    int cancelAllAfterArmed()
    {
        return cancelAllAfterArmed;
    }

    /**
     * @return how many cancel-all-after switches this gateway has seen trigger; read from any thread.
     */
    long cancelAllAfterTriggered()
    {
        return cancelAllAfterTriggered;
    }

    int wsSessionCount()
    {
        return wsSessionCount;
    }

    long unansweredCount()
    {
        return pending.size();
    }

    ReadModel model()
    {
        return model;
    }

    Map<String, InstrumentView> instruments()
    {
        return model.instrumentsBySymbol();
    }

    ExchangeClient client()
    {
        return client;
    }

    public int doWork()
    {
        final long nowNs = System.nanoTime();
        int work = client.doWork();
        work += tasks.drain(runTask, 1024);
        work += retryPushedBack();
        if (client.isConnected() && !live &&
            (!stateRequested || nowNs - stateRequestedNs > STATE_RETRY_NS))
        {
            stateRequested = client.requestState();
            stateRequestedNs = nowNs;
            nextChunkIndex = 0;
        }
        if (nowNs - lastHeartbeatNs > heartbeatIntervalNs)
        {
            lastHeartbeatNs = nowNs;
            heartbeat();
        }
        if (nowNs - lastTimeoutSweepNs > TIMEOUT_SWEEP_NS && !pending.isEmpty())
        {
            lastTimeoutSweepNs = nowNs;
            work += answerTimedOut(nowNs);
        }
        if (metrics.sample(nowNs))
        {
            work++;
        }
        flushWebSockets();
        return work;
    }

    public String roleName()
    {
        return "bourse-http-gateway";
    }

    public void onClose()
    {
        client.close();
        final ApiException stopping = new ApiException(503, "GATEWAY_STOPPING", "the gateway is stopping", null);
        for (final PendingCommand p : pending.values())
        {
            p.command().complete(null, stopping);
        }
        pending.clear();
        for (final BackPressureRetried command : retrying)
        {
            // Past its retries: answered, not kept.
            command.command.complete(null, stopping);
        }
        retrying.clear();
    }

    /**
     * Answer the commands that have waited longer than the timeout, and forget them: their answers, should they come,
     * only update the read model.
     */
    private int answerTimedOut(final long nowNs)
    {
        final int before = pending.size();
        pending.values().removeIf(p ->
        {
            if (nowNs - p.sentNs() <= commandTimeoutNs)
            {
                return false;
            }
            metrics.commandsTimedOut.increment();
            p.command().complete(null, new ApiException(504, "OUTCOME_UNKNOWN", "no answer from the exchange within " +
                TimeUnit.NANOSECONDS.toMillis(commandTimeoutNs) + " ms: it may still apply the request, so query " +
                "the order (by its clientOrderId) before retrying", null));
            return true;
        });
        return before - pending.size();
    }

    /**
     * Send a command; its answer completes it. Called on the gateway thread.
     */
    void send(final Command command)
    {
        if (!live)
        {
            command.complete(null, new ApiException(503, "NOT_READY",
                "the gateway is not connected to the exchange yet (or is catching up)", null, 1));
            return;
        }
        if (!client.isConnected())
        {
            // Sent later, when the exchange is back, an order would trade at a time its client did not choose.
            command.complete(null, new ApiException(503, "NOT_CONNECTED",
                "the gateway has lost its connection to the exchange: the request was not sent", null, 1));
            return;
        }
        final int length = command.encode(encoder, commandBuffer);
        final long requestSequence = client.trySend(commandBuffer, 0, length);
        if (requestSequence < 0)
        {
            metrics.commandsBackPressured.increment();
            command.complete(null, new ApiException(503, "BACK_PRESSURE",
                "too many commands in flight to the exchange; retry shortly", null, 1));
            return;
        }
        metrics.commandsSent.increment();
        pending.put(requestSequence, new PendingCommand(command, System.nanoTime(), epochClock.nanoTime()));
    }

    boolean requestSnapshot()
    {
        return client.requestSnapshot();
    }

    public void onEventBatch(
        final long batchSequence, final long logPosition, final long timestampNs, final long clientId,
        final long requestSequence, final DirectBuffer buffer, final int offset, final int length, final int eventCount)
    {
        metrics.batches.increment();
        if (!live)
        {
            keepUntilLive(logPosition, buffer, offset, length);
        }
        else if (logPosition > statePosition)
        {
            changes.clear();
            model.apply(buffer, offset, length, changes);
            appliedLogPosition = logPosition;
            publish();
            publishCancelAllAfter();
        }
        if (clientId == client.clientId())
        {
            if (answersMayBeLost)
            {
                answersMayBeLost = false;
                completeLostAnswers(requestSequence);
            }
            final PendingCommand p = pending.remove(requestSequence);
            if (p != null)
            {
                final long nowEpochNs = epochClock.nanoTime();
                metrics.recordRoundTrip(System.nanoTime() - p.sentNs(), timestampNs - p.sentEpochNs(), nowEpochNs - timestampNs);
                answer.read(buffer, offset, length);
                if (answer.rejectReason != null)
                {
                    metrics.reject(answer.rejectReason);
                }
                Object response = null;
                ApiException error = null;
                try
                {
                    response = p.command().answer(answer, model);
                }
                catch (final ApiException ex)
                {
                    error = ex;
                }
                p.command().complete(response, error);
            }
        }
    }

    public void onStateChunk(
        final long logPosition, final int chunkIndex, final boolean lastChunk, final long totalLength,
        final DirectBuffer buffer, final int offset, final int length)
    {
        if (live)
        {
            return;
        }
        if (chunkIndex == 0)
        {
            // An answer starts, superseding any under way.
            stateLength = 0;
            nextChunkIndex = 0;
        }
        else if (chunkIndex != nextChunkIndex)
        {
            // A chunk went missing: the retry timer asks again.
            nextChunkIndex = -1;
            return;
        }
        // A long state comes as the stream drains: the retry timer counts from its last chunk.
        stateRequestedNs = System.nanoTime();
        stateAssembly.putBytes(stateLength, buffer, offset, length);
        stateLength += length;
        nextChunkIndex++;
        if (lastChunk)
        {
            if (stateLength != totalLength)
            {
                nextChunkIndex = -1;
                return;
            }
            model.loadState(stateAssembly, 0, stateLength, !anotherCluster);
            anotherCluster = false;
            statePosition = logPosition;
            applyKeptBatches();
            appliedLogPosition = statePosition;
            live = true;
            publishCancelAllAfter();
            if (missingTradesListener != null && model.missingTradesOfLastState() != null)
            {
                missingTradesListener.accept(model.missingTradesOfLastState());
            }
            stateRequested = false;
            resendBookSnapshots();
            resendPrivateSnapshots();
        }
    }

    private void keepUntilLive(final long logPosition, final DirectBuffer buffer, final int offset, final int length)
    {
        if (keptBatchesLength + KEPT_BATCH_HEADER + length > MAX_KEPT_BATCH_BYTES)
        {
            // Too many to keep: the state under way is let go, and one after them asked for.
            keptBatchesLength = 0;
            nextChunkIndex = -1;
            stateRequested = false;
            return;
        }
        keptBatches.putLong(keptBatchesLength, logPosition);
        keptBatches.putInt(keptBatchesLength + Long.BYTES, length);
        keptBatches.putBytes(keptBatchesLength + KEPT_BATCH_HEADER, buffer, offset, length);
        keptBatchesLength += KEPT_BATCH_HEADER + length;
    }

    /**
     * The batches after the state's position that came before its last chunk, in order: the subscribers get book
     * snapshots of the result.
     */
    private void applyKeptBatches()
    {
        int position = 0;
        while (position < keptBatchesLength)
        {
            final long logPosition = keptBatches.getLong(position);
            final int length = keptBatches.getInt(position + Long.BYTES);
            if (logPosition > statePosition)
            {
                changes.clear();
                model.apply(keptBatches, position + KEPT_BATCH_HEADER, length, changes);
                statePosition = logPosition;
            }
            position += KEPT_BATCH_HEADER + length;
        }
        keptBatchesLength = 0;
    }

    public void onGap(final long fromLogPosition, final boolean renumbered)
    {
        // Batches are lost for good: the read model is stale until the state is fetched again.
        live = false;
        anotherCluster |= renumbered;
        keptBatchesLength = 0;
        stateRequested = false;
        answersMayBeLost = true;
        metrics.eventGaps.increment();
    }

    /**
     * Answers to this gateway's requests come in the order of the requests: the first to come after a gap tells
     * that every command before it still waiting was applied and had its answer among the batches missed.
     */
    private void completeLostAnswers(final long answeredRequestSequence)
    {
        pending.entrySet().removeIf(entry ->
        {
            if (entry.getKey() >= answeredRequestSequence)
            {
                return false;
            }
            entry.getValue().command().complete(null, outcomeUnknown("its answer was among events the gateway " +
                "missed"));
            metrics.answersLost.increment();
            return true;
        });
    }

    private static ApiException outcomeUnknown(final String why)
    {
        return new ApiException(503, "OUTCOME_UNKNOWN",
            "the exchange applied this request but " + why + ": query the order before retrying", null);
    }

    public void onRequestIgnored(final long requestSequence, final IgnoredReason reason)
    {
        final PendingCommand p = pending.remove(requestSequence);
        if (p != null)
        {
            if (reason == IgnoredReason.RETRY_NOT_IN_HISTORY)
            {
                metrics.answersLost.increment();
                p.command().complete(null, outcomeUnknown("its answer is no longer held"));
            }
            else
            {
                p.command().complete(null, new ApiException(503, "OUTCOME_UNKNOWN",
                    "the exchange did not apply this request (" + reason + "): query the order before retrying", null));
            }
        }
    }

    public void onConnected(final int leaderMemberId)
    {
        this.leaderMemberId = leaderMemberId;
    }

    // ------------------------------------------------------------------------------------------------ WebSocket

    void onWsOpen(final WsSession session)
    {
        sessions.add(session);
        wsSessionCount = sessions.size();
    }

    private void removeDisconnected()
    {
        final List<WsSession> gone = disconnectedSessions;
        gone.clear();
        for (final WsSession session : sessions)
        {
            if (session.disconnected)
            {
                gone.add(session);
            }
        }
        for (int i = 0; i < gone.size(); i++)
        {
            onWsClose(gone.get(i));
        }
        gone.clear();
    }

    void onWsClose(final WsSession session)
    {
        session.closed = true;
        if (session.cancelOnDisconnect != null)
        {
            final Runnable cancel = session.cancelOnDisconnect;
            // Cleared first: a close seen twice (its task, and the heartbeat's sweep) cancels once.
            session.cancelOnDisconnect = null;
            cancel.run();
        }
        sessions.remove(session);
        wsSessionCount = sessions.size();
        for (final Set<WsSession> set : bookSubscribers.values())
        {
            set.remove(session);
        }
        for (final Set<WsSession> set : tradeSubscribers.values())
        {
            set.remove(session);
        }
        for (final Set<WsSession> set : tickerSubscribers.values())
        {
            set.remove(session);
        }
        for (final Long2ObjectHashMap<Set<WsSession>> channel : privateSubscribers)
        {
            unsubscribePrivate(channel, session);
        }
    }

    /**
     * A command sent again while the exchange pushes back (BACK_PRESSURE), until a deadline: a cancel that a closed
     * connection asked for, which nobody is there to send again, and which many connections closing at once (a
     * network blip) send together.
     */
    private final class BackPressureRetried implements Command
    {
        private final Command command;
        private final long deadlineNs;

        BackPressureRetried(final Command command, final long deadlineNs)
        {
            this.command = command;
            this.deadlineNs = deadlineNs;
        }

        public int encode(final io.bourse.protocol.CommandEncoder encoder, final org.agrona.MutableDirectBuffer buffer)
        {
            return command.encode(encoder, buffer);
        }

        public Object answer(final Answer answer, final ReadModel model)
        {
            return command.answer(answer, model);
        }

        public void complete(final Object response, final ApiException error)
        {
            if (error != null && error.code.equals("BACK_PRESSURE") && System.nanoTime() < deadlineNs)
            {
                retrying.add(this);
                return;
            }
            command.complete(response, error);
        }
    }

    /**
     * Send a cancel that nobody is there to send again (a closed connection's), sent again while the exchange pushes
     * back for up to {@link #CANCEL_RETRY_NS}.
     */
    void sendCancelRetried(final Command cancel)
    {
        sendOrAnswer(new BackPressureRetried(cancel, System.nanoTime() + CANCEL_RETRY_NS));
    }

    /**
     * Send a command. One refused at once (by its encoding's checks, or back-pressure) is answered at once, and so is a
     * defect (500): a request is never left unanswered.
     */
    void sendOrAnswer(final Command command)
    {
        try
        {
            send(command);
        }
        catch (final ApiException error)
        {
            command.complete(null, error);
        }
        catch (final RuntimeException defect)
        {
            command.complete(null, ApiException.internal(defect));
        }
    }

    /**
     * Send again the commands pushed back in an earlier duty cycle.
     */
    private int retryPushedBack()
    {
        if (retrying.isEmpty())
        {
            return 0;
        }
        final BackPressureRetried[] again = retrying.toArray(new BackPressureRetried[0]);
        retrying.clear();
        for (final BackPressureRetried command : again)
        {
            sendOrAnswer(command);
        }
        return again.length;
    }

    /**
     * Subscribe to a public channel of an instrument; a book subscription (or re-subscription, to resync) is
     * answered with a snapshot carrying the instrument's current sequence.
     */
    void subscribe(final WsSession session, final String channel, final InstrumentView instrument, final boolean on)
    {
        if (session.closed || session.disconnected)
        {
            // Its close may have been handled already: it would stay in the set.
            return;
        }
        final Int2ObjectHashMap<Set<WsSession>> map = switch (channel)
        {
            case "book" -> bookSubscribers;
            case "trades" -> tradeSubscribers;
            default -> tickerSubscribers;
        };
        final Set<WsSession> set = map.computeIfAbsent(instrument.id(), ignored -> new LinkedHashSet<>());
        if (!on)
        {
            set.remove(session);
            sendControl(session, "unsubscribed", channel, instrument.symbol());
            return;
        }
        set.add(session);
        sendControl(session, "subscribed", channel, instrument.symbol());
        final ReadModel.Market market = model.market(instrument.id());
        if ("book".equals(channel))
        {
            send(session, bookSnapshot(market, instrument));
        }
        else if ("ticker".equals(channel))
        {
            send(session, Views.ticker(model, instrument).toString());
        }
    }

    /**
     * The private channels of a connection authenticated for an account: its orders, its fills and its balances.
     */
    enum PrivateChannel
    {
        ORDERS, FILLS, BALANCES;

        final String channel = name().toLowerCase(java.util.Locale.ROOT);
    }

    @SuppressWarnings("unchecked")
    private static Long2ObjectHashMap<Set<WsSession>>[] newPrivateSubscribers()
    {
        final Long2ObjectHashMap<Set<WsSession>>[] maps = new Long2ObjectHashMap[PrivateChannel.values().length];
        for (int i = 0; i < maps.length; i++)
        {
            maps[i] = new Long2ObjectHashMap<>();
        }
        return maps;
    }

    void subscribePrivate(final WsSession session, final PrivateChannel channel, final boolean on)
    {
        if (session.closed || session.disconnected)
        {
            return;
        }
        final Long2ObjectHashMap<Set<WsSession>> subscribers = privateSubscribers[channel.ordinal()];
        if (!on)
        {
            unsubscribePrivate(subscribers, session);
            sendControl(session, "unsubscribed", channel.channel, null);
            return;
        }
        subscribers.computeIfAbsent(session.accountId, ignored -> new LinkedHashSet<>()).add(session);
        sendControl(session, "subscribed", channel.channel, null);
        send(session, privateSnapshot(session, channel));
    }

    private ObjectNode balancesMessage(final String type, final long accountId)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("type", type);
        node.setAll(Views.balances(model, accountId));
        return node;
    }

    private static void unsubscribePrivate(final Long2ObjectHashMap<Set<WsSession>> channel, final WsSession session)
    {
        final Set<WsSession> subscribed = channel.get(session.accountId);
        if (subscribed != null && subscribed.remove(session) && subscribed.isEmpty())
        {
            // So that a channel nobody follows is skipped whole when a batch is published.
            channel.remove(session.accountId);
        }
    }

    /**
     * The account's open orders, its recent fills newest first, or its balances, and the sequence number the channel's
     * next message will follow.
     */
    private String privateSnapshot(final WsSession session, final PrivateChannel channel)
    {
        if (channel == PrivateChannel.BALANCES)
        {
            final ObjectNode node = balancesMessage("balances.snapshot", session.accountId);
            node.put("sequence", session.privateSequences[channel.ordinal()]);
            return node.toString();
        }
        final boolean orders = channel == PrivateChannel.ORDERS;
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("type", channel.channel + ".snapshot");
        node.put("sequence", session.privateSequences[channel.ordinal()]);
        final ArrayNode array = node.putArray(channel.channel);
        final ReadModel.AccountState account = model.existingAccount(session.accountId);
        if (account != null && orders)
        {
            account.openOrders.values().stream()
                .sorted(Comparator.comparingLong(o -> o.orderId))
                .forEach(o -> array.add(privateOrder(o, model.instrument(o.instrumentId))));
        }
        else if (account != null)
        {
            account.fills.forEach(fill -> array.add(Views.fill(fill, model.instrument(fill.instrumentId()))));
        }
        return node.toString();
    }

    /**
     * After the state was fetched again: every private subscriber starts again from a snapshot, as book subscribers do.
     * The changes of the gap were never published, so the snapshot's number skips one: a subscriber whose snapshot is
     * dropped too still sees a gap in the next message.
     */
    private void resendPrivateSnapshots()
    {
        for (final PrivateChannel channel : PrivateChannel.values())
        {
            for (final Set<WsSession> subscribers : privateSubscribers[channel.ordinal()].values())
            {
                for (final WsSession session : subscribers)
                {
                    session.privateSequences[channel.ordinal()]++;
                    send(session, privateSnapshot(session, channel));
                }
            }
        }
    }

    /**
     * An order as the orders channel has it: "type" names the message, so the order's own (LIMIT or MARKET) is
     * "orderType".
     */
    private static ObjectNode privateOrder(final OrderView order, final InstrumentView instrument)
    {
        final ObjectNode node = Views.order(order, instrument);
        node.set("orderType", node.remove("type"));
        return node;
    }

    /**
     * A private message to each of the account's subscribers, numbered per connection.
     */
    private void sendPrivate(final Set<WsSession> subscribers, final ObjectNode node, final PrivateChannel channel)
    {
        for (final WsSession session : subscribers)
        {
            node.put("sequence", ++session.privateSequences[channel.ordinal()]);
            send(session, node.toString());
        }
    }

    void sendControl(final WsSession session, final String type, final String channel, final String symbol)
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("type", type);
        node.put("channel", channel);
        if (symbol != null)
        {
            node.put("symbol", symbol);
        }
        answer(session, node.toString());
    }

    /**
     * Queue a message pushed to a connection (market data, a private channel's): written by its event loop once this
     * duty cycle ends ({@link #flushWebSockets}), or dropped when its pushed messages waiting take
     * {@link #WS_QUEUE_BYTES} already (a slow subscriber misses messages, and resyncs).
     */
    void send(final WsSession session, final String text)
    {
        if (session.closed || session.closingAsSlow)
        {
            return;
        }
        // Checked before the message is counted, so that one larger than the bound (a deep book's or a large
        // account's snapshot) goes to a connection that is keeping up.
        if (session.handedPushBytes.get() + session.outboxPushBytes >= WS_QUEUE_BYTES)
        {
            metrics.wsDropped.increment();
            return;
        }
        queue(session, text);
        session.outboxPushBytes += cost(text);
    }

    /**
     * Queue an answer to one of the connection's own messages (a response, an error, a pong, a subscription's
     * confirmation): never dropped. Past {@link #WS_ANSWERS_QUEUE_BYTES} of answers waiting, the connection is closed
     * instead, once what was queued before has been handed to its event loop.
     */
    void answer(final WsSession session, final String text)
    {
        if (session.closed || session.closingAsSlow)
        {
            return;
        }
        if (session.handedAnswerBytes.get() + session.outboxAnswerBytes >= WS_ANSWERS_QUEUE_BYTES)
        {
            closeAfterFlush(session);
            return;
        }
        queue(session, text);
        session.outboxAnswerBytes += cost(text);
    }

    /**
     * Close a connection found to be a slow consumer once what was made for it so far has been written.
     */
    void closeAfterFlush(final WsSession session)
    {
        session.slow = true;
        if (!session.closed && !session.closingAsSlow)
        {
            session.closingAsSlow = true;
            toFlush(session);
        }
    }

    /**
     * @return what a waiting message is counted as.
     */
    static long cost(final String text)
    {
        return text.length() + WS_MESSAGE_OVERHEAD_BYTES;
    }

    private void queue(final WsSession session, final String text)
    {
        toFlush(session);
        session.outbox.add(text);
    }

    private void toFlush(final WsSession session)
    {
        if (!session.flushQueued)
        {
            session.flushQueued = true;
            flushing.add(session);
        }
    }

    /**
     * Close a connection that did not take an answer, once, on its event loop: nothing more is written to it, the close
     * follows what it has not read, and the connection is cut off if still open {@link #SLOW_CONSUMER_CLOSE_GRACE_MS}
     * later. What it sends meanwhile is read and not acted on.
     */
    static void closeAsSlowConsumer(final WsSession session, final GatewayMetrics metrics)
    {
        if (session.slowCloseSent || session.socket.isClosed())
        {
            return;
        }
        session.slow = true;
        session.slowCloseSent = true;
        metrics.wsSlowConsumers.increment();
        session.socket.close(SLOW_CONSUMER_CLOSE, SLOW_CONSUMER_REASON);
        session.eventLoop.owner().setTimer(SLOW_CONSUMER_CLOSE_GRACE_MS, ignored ->
        {
            if (!session.socket.isClosed() && session.socket instanceof WebSocketInternal internal)
            {
                internal.channelHandlerContext().channel().close();
            }
        });
    }

    /**
     * Hand each connection's messages of this duty cycle to its event loop, one task per connection.
     */
    private void flushWebSockets()
    {
        for (int i = 0; i < flushing.size(); i++)
        {
            final WsSession session = flushing.get(i);
            final String[] messages = session.outbox.toArray(new String[0]);
            final long pushBytes = session.outboxPushBytes;
            final long answerBytes = session.outboxAnswerBytes;
            final boolean closeAfter = session.closingAsSlow;
            session.outbox.clear();
            session.outboxPushBytes = 0;
            session.outboxAnswerBytes = 0;
            session.flushQueued = false;
            session.handedPushBytes.addAndGet(pushBytes);
            session.handedAnswerBytes.addAndGet(answerBytes);
            try
            {
                session.eventLoop.runOnContext(ignored ->
                {
                    write(session, messages, pushBytes, answerBytes);
                    if (closeAfter)
                    {
                        closeAsSlowConsumer(session, metrics);
                    }
                });
            }
            catch (final RuntimeException ex)
            {
                // The event loop is shutting down with the gateway: nothing can be written to the connection.
                release(session, pushBytes, answerBytes);
                metrics.wsDropped.add(messages.length);
            }
        }
        flushing.clear();
    }

    /**
     * On the connection's event loop: its bytes count until the socket has taken the last message, its writes
     * completing in order, and completing (failed) when the connection closes with them unwritten.
     */
    private void write(final WsSession session, final String[] messages, final long pushBytes, final long answerBytes)
    {
        Future<Void> last = null;
        try
        {
            for (final String message : messages)
            {
                if (session.slowCloseSent || session.socket.isClosed())
                {
                    metrics.wsDropped.increment();
                }
                else
                {
                    metrics.wsMessages.increment();
                    last = session.socket.writeTextMessage(message);
                }
            }
        }
        finally
        {
            if (last == null)
            {
                release(session, pushBytes, answerBytes);
            }
            else
            {
                last.onComplete(written -> release(session, pushBytes, answerBytes));
            }
        }
    }

    private static void release(final WsSession session, final long pushBytes, final long answerBytes)
    {
        session.handedPushBytes.addAndGet(-pushBytes);
        session.handedAnswerBytes.addAndGet(-answerBytes);
    }

    private void sendAll(final Set<WsSession> subscribers, final String text)
    {
        if (subscribers != null)
        {
            for (final WsSession session : subscribers)
            {
                send(session, text);
            }
        }
    }

    private static String bookSnapshot(final ReadModel.Market market, final InstrumentView instrument)
    {
        final ObjectNode node = Views.book(market, Integer.MAX_VALUE, instrument);
        node.put("type", "book.snapshot");
        return node.toString();
    }

    private void resendBookSnapshots()
    {
        for (final Map.Entry<Integer, Set<WsSession>> entry : bookSubscribers.entrySet())
        {
            final InstrumentView instrument = model.instrument(entry.getKey());
            if (instrument != null && !entry.getValue().isEmpty())
            {
                sendAll(entry.getValue(), bookSnapshot(model.market(instrument.id()), instrument));
            }
        }
    }

    private void heartbeat()
    {
        if (sessions.isEmpty())
        {
            return;
        }
        removeDisconnected();
        // A quiet market and a gateway cut off from the exchange look the same without it: "live" is false while the
        // data sent may be stale (no connection to the cluster, or the state being fetched again).
        final String text = "{\"type\":\"heartbeat\",\"time\":" + System.currentTimeMillis() + ",\"live\":" +
            (live && client.isConnected()) + "}";
        for (final WsSession session : sessions)
        {
            send(session, text);
        }
    }

    private void publishCancelAllAfter()
    {
        cancelAllAfterArmed = model.cancelAllAfterArmed();
        cancelAllAfterTriggered = model.cancelAllAfterTriggered();
    }

    private void publish()
    {
        final IntHashSet touched = touchedInstruments;
        touched.clear();
        for (final Map.Entry<Integer, List<ReadModel.LevelChange>> entry : changes.levels.entrySet())
        {
            final int instrumentId = entry.getKey();
            final InstrumentView instrument = model.instrument(instrumentId);
            final ReadModel.Market market = model.market(instrumentId);
            market.sequence++;
            touched.add(instrumentId);
            final Set<WsSession> subscribers = bookSubscribers.get(instrumentId);
            if (instrument != null && subscribers != null && !subscribers.isEmpty())
            {
                final ObjectNode node = Views.MAPPER.createObjectNode();
                node.put("type", "book.update");
                node.put("symbol", instrument.symbol());
                node.put("sequence", market.sequence);
                node.set("changes", Views.levelChanges(entry.getValue(), instrument));
                sendAll(subscribers, node.toString());
            }
        }
        for (final ReadModel.TradeView trade : changes.trades)
        {
            touched.add(trade.instrumentId());
            final Set<WsSession> subscribers = tradeSubscribers.get(trade.instrumentId());
            final InstrumentView instrument = model.instrument(trade.instrumentId());
            if (instrument != null && subscribers != null && !subscribers.isEmpty())
            {
                final ObjectNode node = Views.trade(trade, instrument);
                node.put("type", "trade");
                sendAll(subscribers, node.toString());
            }
        }
        for (final IntHashSet.IntIterator it = touched.iterator(); it.hasNext(); )
        {
            sendTicker(it.nextValue());
        }
        // Fills before the order states they lead to, as an execution report stream would have them.
        for (int i = 0; i < changes.fills.size(); i++)
        {
            final ReadModel.FillView fill = changes.fills.get(i);
            final Set<WsSession> subscribers = fillSubscribers.get(changes.fillAccounts.get(i));
            final InstrumentView instrument = model.instrument(fill.instrumentId());
            if (instrument != null && subscribers != null && !subscribers.isEmpty())
            {
                final ObjectNode node = Views.fill(fill, instrument);
                node.put("type", "fill");
                sendPrivate(subscribers, node, PrivateChannel.FILLS);
            }
        }
        if (!orderSubscribers.isEmpty())
        {
            // An order changed by several events of the batch is listed once for each; it is sent once, as it ends.
            final long publication = ++publications;
            for (final OrderView order : changes.orders)
            {
                final Set<WsSession> subscribers = orderSubscribers.get(order.accountId);
                final InstrumentView instrument = model.instrument(order.instrumentId);
                if (instrument != null && subscribers != null && !subscribers.isEmpty() &&
                    order.publication != publication)
                {
                    order.publication = publication;
                    final ObjectNode node = privateOrder(order, instrument);
                    node.put("type", "order");
                    sendPrivate(subscribers, node, PrivateChannel.ORDERS);
                }
            }
        }
        if (!balanceSubscribers.isEmpty())
        {
            // After the orders that moved them: each account's balances once for the batch, as they end.
            for (final LongHashSet.LongIterator it = changes.balanceAccounts.iterator(); it.hasNext(); )
            {
                final long accountId = it.nextValue();
                final Set<WsSession> subscribers = balanceSubscribers.get(accountId);
                if (subscribers != null && !subscribers.isEmpty())
                {
                    sendPrivate(subscribers, balancesMessage("balances", accountId), PrivateChannel.BALANCES);
                }
            }
        }
    }
}
