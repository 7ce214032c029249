package io.bourse.cluster.client;

import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.EgressListener;
import io.aeron.cluster.codecs.EventCode;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.Header;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.cluster.ProcessAeronDirectory;
import io.bourse.protocol.cluster.BatchContinueEncoder;
import io.bourse.protocol.cluster.BooleanType;
import io.bourse.protocol.cluster.EventBatchDecoder;
import io.bourse.protocol.cluster.EventBatchPartDecoder;
import io.bourse.protocol.cluster.IgnoredReason;
import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.ReplayCompleteDecoder;
import io.bourse.protocol.cluster.ReplayRequestEncoder;
import io.bourse.protocol.cluster.ReplayStartDecoder;
import io.bourse.protocol.cluster.RequestEncoder;
import io.bourse.protocol.cluster.RequestIgnoredDecoder;
import io.bourse.protocol.cluster.SnapshotRequestEncoder;
import io.bourse.protocol.cluster.StateChunkDecoder;
import io.bourse.protocol.cluster.StateContinueEncoder;
import io.bourse.protocol.cluster.StateRequestEncoder;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;

import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client of the exchange cluster for gateways and tools: numbers and sends engine commands, follows leader
 * changes, re-sends what was not answered, and delivers every event batch exactly once, in order.
 * <p>
 * Every command is kept until the batch answering it arrives. When the leader changes, or the session is lost
 * and re-opened, the client re-sends the unanswered commands under their original request sequences (the
 * cluster applies each only once), and asks for a replay of the batches it missed. Not thread safe: one thread
 * calls {@link #trySend} and {@link #doWork()}.
 */
public final class ExchangeClient implements Agent, AutoCloseable
{
    /**
     * Client configuration.
     */
    public static final class Context
    {
        private String ingressEndpoints;
        private String aeronDirectoryName;
        private String ingressChannel = "aeron:udp";
        private String egressChannel = "aeron:udp?endpoint=localhost:0";
        private int egressStreamId = AeronCluster.Configuration.egressStreamId();
        private long clientId;
        private int maxUnansweredBytes = 8 * 1024 * 1024;
        private long messageTimeoutNs = TimeUnit.SECONDS.toNanos(5);
        private long resendTimeoutNs = TimeUnit.SECONDS.toNanos(1);
        private long sessionLostTimeoutNs = TimeUnit.SECONDS.toNanos(3);
        private long sessionProbeTimeoutNs = TimeUnit.SECONDS.toNanos(1);
        private ExchangeClientListener listener;
        private ErrorHandler errorHandler = error -> System.err.println("bourse exchange client: " + error);
        private long resumeAfterBatchSequence;
        private long resumeAfterLogPosition;

        /**
         * Members' ingress endpoints: {@code 0=host:port,1=host:port,...}.
         */
        public Context ingressEndpoints(final String ingressEndpoints)
        {
            this.ingressEndpoints = ingressEndpoints;
            return this;
        }

        /**
         * Media driver to use; when null the client starts an embedded one of its own.
         */
        public Context aeronDirectoryName(final String aeronDirectoryName)
        {
            this.aeronDirectoryName = aeronDirectoryName;
            return this;
        }

        /**
         * {@code aeron:udp} (the default) to reach the members' ingress endpoints, or {@code aeron:ipc} for a client
         * that shares the media driver of a single embedded node (see {@code ClusterNode#clientContext()}).
         */
        public Context ingressChannel(final String ingressChannel)
        {
            this.ingressChannel = ingressChannel;
            return this;
        }

        public Context egressChannel(final String egressChannel)
        {
            this.egressChannel = egressChannel;
            return this;
        }

        /**
         * The stream the cluster's answers come on. The node sends to each channel and stream through one publication,
         * which runs no further ahead than its slowest reader: clients on one IPC egress channel must each have a
         * stream of their own, or one that stops reading holds up the others ({@code ClusterNode#clientContext()}
         * gives each its own). A UDP egress channel on an ephemeral port is the client's own already.
         */
        public Context egressStreamId(final int egressStreamId)
        {
            this.egressStreamId = egressStreamId;
            return this;
        }

        /**
         * Identity under which requests are numbered; random by default. Two live clients must never share one.
         */
        public Context clientId(final long clientId)
        {
            this.clientId = clientId;
            return this;
        }

        /**
         * Carry on from an earlier run's last batch: on connecting, the client asks the cluster for the batches after
         * it (those the cluster still holds; {@link ExchangeClientListener#onGap} when it no longer holds them all)
         * and delivers them, in order, before any later one. Without it a client starts from the next batch.
         * <p>
         * Should the cluster's first new batch carry a sequence at or below this one, the cluster is not the one the
         * position came from (its journal was started afresh): the client takes up its numbering and reports a gap.
         *
         * @param batchSequence the sequence of the last batch the earlier run had dealt with.
         * @param logPosition   that batch's log position.
         */
        public Context resumeAfter(final long batchSequence, final long logPosition)
        {
            this.resumeAfterBatchSequence = batchSequence;
            this.resumeAfterLogPosition = logPosition;
            return this;
        }

        /**
         * Bound on the commands held while unanswered; {@link #trySend} refuses more.
         */
        public Context maxUnansweredBytes(final int maxUnansweredBytes)
        {
            this.maxUnansweredBytes = maxUnansweredBytes;
            return this;
        }

        public Context messageTimeoutNs(final long messageTimeoutNs)
        {
            this.messageTimeoutNs = messageTimeoutNs;
            return this;
        }

        /**
         * When commands are unanswered and nothing has arrived for this long, re-send them and ask for a replay:
         * an answer dropped under egress back-pressure, or a replay request lost in a leader change, is otherwise
         * noticed only when a later batch arrives, which may never happen.
         */
        public Context resendTimeoutNs(final long resendTimeoutNs)
        {
            this.resendTimeoutNs = resendTimeoutNs;
            return this;
        }

        /**
         * When commands are unanswered and nothing at all has arrived from the cluster for this long, in spite of
         * the re-sends, the session is taken as lost and a new one connected (the unanswered commands are sent again
         * on it; the engine applies each once). A node killed and restarted at once, for instance, recovers this
         * client's session from its log and never tells the client that its old connection is gone: Aeron's own
         * timeouts noticed only after about 30 s, while the node was back in 1.5 s. The session probe ({@link
         * #sessionProbeTimeoutNs}) usually finds that out sooner; this is what still works when it cannot.
         */
        public Context sessionLostTimeoutNs(final long sessionLostTimeoutNs)
        {
            this.sessionLostTimeoutNs = sessionLostTimeoutNs;
            return this;
        }

        /**
         * When commands are unanswered and nothing has arrived from the cluster for this long, a second session is
         * opened beside the current one; if it opens while the current one is still silent, the client moves to it
         * (re-sending the unanswered commands, which the engine applies once). A node restarted after a crash is
         * back in well under a second but closes the sessions it recovers without a word to their clients: this is
         * what finds that out, before {@link #sessionLostTimeoutNs}. A node that is only busy (a snapshot of a large
         * book, a pause) answers on the current session first, and the new one is closed unused. An attempt that has
         * not opened within this long again is started over (its request may have gone to a node that died since).
         * Must be positive, and less than the session-lost timeout to take effect.
         */
        public Context sessionProbeTimeoutNs(final long sessionProbeTimeoutNs)
        {
            if (sessionProbeTimeoutNs <= 0)
            {
                throw new IllegalArgumentException("session probe timeout must be positive: " + sessionProbeTimeoutNs);
            }
            this.sessionProbeTimeoutNs = sessionProbeTimeoutNs;
            return this;
        }

        public Context listener(final ExchangeClientListener listener)
        {
            this.listener = listener;
            return this;
        }

        /**
         * Where the errors of the client's Aeron clients (and of its embedded media driver) go, on their own threads;
         * by default a line on standard error. Aeron's own default exits the JVM when the media driver has not
         * answered for its timeout (a process paused or starved that long): that would take a gateway down, with
         * the node too where it is embedded. This client instead sees its Aeron client closed and opens a new
         * session on a new one, re-sending what is unanswered.
         */
        public Context errorHandler(final ErrorHandler errorHandler)
        {
            this.errorHandler = errorHandler;
            return this;
        }
    }

    private static final long KEEP_ALIVE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * The cluster sends a round of state chunks or batch parts in one go: this long without one, the round is over.
     */
    private static final long ROUND_OVER_NS = TimeUnit.MICROSECONDS.toNanos(200);
    /**
     * Asked for more and none came: ask again this often.
     */
    private static final long CONTINUE_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * Media drivers launched by clients of this process, numbering their directories.
     */
    private static final AtomicInteger EMBEDDED_DRIVERS = new AtomicInteger();
    private static final int ENVELOPE_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + RequestEncoder.BLOCK_LENGTH;
    private static final int EVENTS_OFFSET = MessageHeaderDecoder.ENCODED_LENGTH + EventBatchDecoder.BLOCK_LENGTH;

    private final Context context;
    private final long clientId;
    private final ExchangeClientListener listener;
    private final MediaDriver embeddedDriver;
    private final ExpandableRingBuffer unanswered;
    private final ExpandableDirectByteBuffer sendBuffer = new ExpandableDirectByteBuffer(4096);
    private final UnsafeBuffer controlBuffer = new UnsafeBuffer(new byte[64]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final RequestEncoder requestEncoder = new RequestEncoder();
    private final ReplayRequestEncoder replayRequestEncoder = new ReplayRequestEncoder();
    private final SnapshotRequestEncoder snapshotRequestEncoder = new SnapshotRequestEncoder();
    private final StateRequestEncoder stateRequestEncoder = new StateRequestEncoder();
    private final StateChunkDecoder stateChunkDecoder = new StateChunkDecoder();
    private final StateContinueEncoder stateContinueEncoder = new StateContinueEncoder();
    private final BatchContinueEncoder batchContinueEncoder = new BatchContinueEncoder();
    private final EventBatchDecoder batchDecoder = new EventBatchDecoder();
    private final EventBatchPartDecoder batchPartDecoder = new EventBatchPartDecoder();
    private final ExpandableDirectByteBuffer partedBatch = new ExpandableDirectByteBuffer(16 * 1024);
    private final ReplayCompleteDecoder replayCompleteDecoder = new ReplayCompleteDecoder();
    private final ReplayStartDecoder replayStartDecoder = new ReplayStartDecoder();
    private final RequestIgnoredDecoder requestIgnoredDecoder = new RequestIgnoredDecoder();
    private final RequestDecoderView requestView = new RequestDecoderView();
    private final ExpandableRingBuffer.MessageConsumer sender = this::sendUnanswered;
    private final ExpandableRingBuffer.MessageConsumer answered = this::consumeAnswered;

    private AeronCluster cluster;
    private AeronCluster.AsyncConnect connecting;
    /**
     * A session being opened beside a silent current one ({@link Context#sessionProbeTimeoutNs}).
     */
    private AeronCluster.AsyncConnect probe;
    private long probeStartedNs;
    private long nextRequestSequence = 1;
    private long sentUpToSequence;
    private long answeredUpToSequence;
    private long lastBatchSequence;
    private long partedBatchSequence;
    /**
     * The log position of the state answer being read, -1 when none is; the next chunk it needs; whether the rest
     * has been asked for since the last chunk came.
     */
    private long stateAnswerPosition = -1;
    private int nextStateChunk;
    private boolean stateContinueSent;
    private long lastStateChunkNs;
    private long stateContinueSentNs;
    private int nextPartIndex = -1;
    private int partedBatchLength;
    private long lastPartNs;
    private boolean batchContinueSent;
    private long batchContinueSentNs;
    private long lastLogPosition;
    private boolean replayPending;
    // Requests numbered up to here when a refusal last made the client send again: their refusals are dealt with.
    private long resentAfterMissingUpTo;
    /**
     * Resumed from an earlier run and no batch of the cluster's own seen yet: the first is checked against the
     * resumed numbering.
     */
    private boolean checkResumedNumbering;
    private long batchesSinceReplayRequest;
    private long lastSendNs;
    private long lastProgressNs;
    // The last egress from the cluster, or the send of the oldest unanswered command if that is later.
    private long lastEgressNs;

    public ExchangeClient(final Context context)
    {
        this.context = context;
        this.listener = context.listener;
        this.clientId = context.clientId != 0 ? context.clientId : new SecureRandom().nextLong(1, Long.MAX_VALUE);
        this.unanswered = new ExpandableRingBuffer(64 * 1024, Integer.highestOneBit(context.maxUnansweredBytes), false);
        this.lastBatchSequence = context.resumeAfterBatchSequence;
        this.lastLogPosition = context.resumeAfterLogPosition;
        this.checkResumedNumbering = context.resumeAfterBatchSequence > 0;
        if (context.aeronDirectoryName == null)
        {
            embeddedDriver = MediaDriver.launch(new MediaDriver.Context()
                .aeronDirectoryName(ProcessAeronDirectory.forThisProcess("bourse-client",
                    Integer.toString(EMBEDDED_DRIVERS.incrementAndGet())))
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new NodeIdleStrategy())
                .termBufferSparseFile(true)
                .publicationTermBufferLength(4 * 1024 * 1024)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .errorHandler(context.errorHandler));
            context.aeronDirectoryName = embeddedDriver.aeronDirectoryName();
        }
        else
        {
            embeddedDriver = null;
        }
    }

    public long clientId()
    {
        return clientId;
    }

    /**
     * @return true once a session with the cluster is open.
     */
    public boolean isConnected()
    {
        // The Aeron client closes itself on a media driver timeout, leaving the session open but dead.
        return cluster != null && !cluster.isClosed() && !cluster.context().aeron().isClosed();
    }

    /**
     * Send one engine command (an SBE message of the engine schema, header included). The command is kept and
     * re-sent as needed until its answer arrives; when not connected it waits to be sent.
     *
     * @return the request sequence that will identify its answer, or -1 when too many commands are unanswered.
     */
    public long trySend(final DirectBuffer command, final int offset, final int length)
    {
        final long requestSequence = nextRequestSequence;
        if (answeredUpToSequence == requestSequence - 1)
        {
            // Nothing was outstanding: silence counts from now, not from the last answer, however long ago.
            lastEgressNs = System.nanoTime();
        }
        requestEncoder.wrapAndApplyHeader(sendBuffer, 0, headerEncoder)
            .clientId(clientId)
            .requestSequence(requestSequence);
        sendBuffer.putBytes(ENVELOPE_LENGTH, command, offset, length);
        if (!unanswered.append(sendBuffer, 0, ENVELOPE_LENGTH + length))
        {
            return -1;
        }
        nextRequestSequence++;
        if (sentUpToSequence == requestSequence - 1)
        {
            // The usual case: everything before is already sent, so send this one without walking the
            // unanswered commands (a walk per send would cost more the more commands are in flight).
            if (isConnected() && cluster.offer(sendBuffer, 0, ENVELOPE_LENGTH + length) > 0)
            {
                sentUpToSequence = requestSequence;
                lastSendNs = System.nanoTime();
            }
        }
        else
        {
            sendPending();
        }
        return requestSequence;
    }

    /**
     * Ask the cluster's leader to take a snapshot.
     *
     * @return true when the request was sent.
     */
    public boolean requestSnapshot()
    {
        snapshotRequestEncoder.wrapAndApplyHeader(controlBuffer, 0, headerEncoder).clientId(clientId);
        return isConnected() &&
            cluster.offer(controlBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + snapshotRequestEncoder.encodedLength()) > 0;
    }

    /**
     * Ask for the engine state at the position this request takes in the log: it arrives as
     * {@link ExchangeClientListener#onStateChunk} calls, after every batch before that position. A state longer than
     * this client's stream takes at once comes in rounds: the cluster sends about 1 MiB of chunks, or less when the
     * stream is full, and this client asks for the rest once it has read them. So the batches after the position may
     * come before the last chunk: a listener keeps them to apply once the state is whole. Asking again supersedes an
     * answer under way; the new answer starts at chunk 0.
     *
     * @return true when the request was sent.
     */
    public boolean requestState()
    {
        stateRequestEncoder.wrapAndApplyHeader(controlBuffer, 0, headerEncoder).clientId(clientId);
        return isConnected() &&
            cluster.offer(controlBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + stateRequestEncoder.encodedLength()) > 0;
    }

    /**
     * @return the number of commands sent and not yet answered.
     */
    public long unansweredCount()
    {
        return nextRequestSequence - 1 - answeredUpToSequence;
    }

    public int doWork()
    {
        if (!isConnected())
        {
            return connect();
        }
        int work = cluster.pollEgress();
        if (cluster.isClosed())
        {
            return work + 1;
        }
        final long nowNs = System.nanoTime();
        if (work > 0)
        {
            lastProgressNs = nowNs;
            lastEgressNs = nowNs;
            if (probe != null)
            {
                // The current session is alive after all.
                CloseHelper.quietClose(probe);
                probe = null;
            }
        }
        else if (unansweredCount() > 0 && nowNs - lastEgressNs > context.sessionLostTimeoutNs)
        {
            // Silence in spite of the re-sends: connect() closes this session and starts a new one.
            return 1 + connect();
        }
        else if (replayPending && batchesSinceReplayRequest > 0)
        {
            // The cluster stops a replay when this client's stream is full; once it is read, ask for the rest.
            requestReplay();
        }
        else if (nowNs - lastProgressNs > context.resendTimeoutNs)
        {
            // Quiet for a while: re-send what is unanswered, and ask for anything after the last batch seen,
            // since a batch dropped at the very end of a burst shows no gap until a later one arrives.
            lastProgressNs = nowNs;
            sentUpToSequence = answeredUpToSequence;
            if (lastBatchSequence > 0)
            {
                requestReplay();
            }
        }
        if (work == 0 && unansweredCount() > 0 && nowNs - lastEgressNs > context.sessionProbeTimeoutNs &&
            probeOpened(nowNs))
        {
            return 1;
        }
        if (work == 0 && nextPartIndex > 0 &&
            timeToAskForMore(nowNs, lastPartNs, batchContinueSent, batchContinueSentNs))
        {
            // A batch in parts, not whole. The cluster sends this client nothing else until the batch is over, so the
            // batch is asked for to the end even if not needed.
            batchContinueEncoder.wrapAndApplyHeader(controlBuffer, 0, headerEncoder)
                .clientId(clientId)
                .batchSequence(partedBatchSequence)
                .fromPartIndex(nextPartIndex);
            batchContinueSent = cluster.offer(
                controlBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + batchContinueEncoder.encodedLength()) > 0;
            batchContinueSentNs = nowNs;
        }
        if (work == 0 && stateAnswerPosition >= 0 &&
            timeToAskForMore(nowNs, lastStateChunkNs, stateContinueSent, stateContinueSentNs))
        {
            stateContinueEncoder.wrapAndApplyHeader(controlBuffer, 0, headerEncoder)
                .clientId(clientId)
                .logPosition(stateAnswerPosition)
                .fromChunkIndex(nextStateChunk);
            stateContinueSent = cluster.offer(
                controlBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + stateContinueEncoder.encodedLength()) > 0;
            stateContinueSentNs = nowNs;
        }
        work += sendPending();
        if (nowNs - lastSendNs > KEEP_ALIVE_INTERVAL_NS && cluster.sendKeepAlive())
        {
            lastSendNs = nowNs;
        }
        return work;
    }

    public String roleName()
    {
        return "exchange-client";
    }

    public void close()
    {
        CloseHelper.closeAll(probe, connecting, cluster, embeddedDriver);
        probe = null;
        connecting = null;
        cluster = null;
    }

    /**
     * Start or go on opening a session beside the silent current one.
     *
     * @return true when it opened: it is the client's session now, and the silent one is closed.
     */
    private boolean probeOpened(final long nowNs)
    {
        if (probe != null && nowNs - probeStartedNs > context.sessionProbeTimeoutNs)
        {
            // Its request may have reached a node that hung and was killed: it would wait out the message timeout.
            CloseHelper.quietClose(probe);
            probe = null;
        }
        if (probe == null)
        {
            probe = AeronCluster.asyncConnect(clusterContext());
            probeStartedNs = nowNs;
        }
        final AeronCluster opened;
        try
        {
            opened = probe.poll();
        }
        catch (final RuntimeException ex)
        {
            // Timed out while no leader answers: the next call starts again, unless the session is given up first.
            CloseHelper.quietClose(probe);
            probe = null;
            return false;
        }
        if (opened == null)
        {
            return false;
        }
        probe = null;
        CloseHelper.quietClose(cluster);
        cluster = opened;
        onSessionOpened();
        return true;
    }

    private AeronCluster.Context clusterContext()
    {
        return new AeronCluster.Context()
            .aeronDirectoryName(context.aeronDirectoryName)
            .ingressChannel(context.ingressChannel)
            .ingressEndpoints(context.ingressEndpoints)
            .egressChannel(context.egressChannel)
            .egressStreamId(context.egressStreamId)
            .messageTimeoutNs(context.messageTimeoutNs)
            .errorHandler(context.errorHandler)
            .egressListener(new Egress());
    }

    private int connect()
    {
        if (cluster != null)
        {
            CloseHelper.quietClose(cluster);
            cluster = null;
        }
        if (probe != null)
        {
            CloseHelper.quietClose(probe);
            probe = null;
        }
        if (connecting == null)
        {
            connecting = AeronCluster.asyncConnect(clusterContext());
        }
        try
        {
            final AeronCluster connected = connecting.poll();
            if (connected == null)
            {
                return 0;
            }
            cluster = connected;
            connecting = null;
        }
        catch (final RuntimeException ex)
        {
            // Timed out or refused while the cluster elects a leader: start a fresh attempt on the next call.
            CloseHelper.quietClose(connecting);
            connecting = null;
            return 0;
        }
        onSessionOpened();
        return 1;
    }

    /**
     * A new session is open: ask for the batches missed meanwhile and send every unanswered command again.
     */
    private void onSessionOpened()
    {
        listener.onConnected(cluster.leaderMemberId());
        replayPending = false;
        lastProgressNs = System.nanoTime();
        lastEgressNs = lastProgressNs;
        if (lastBatchSequence > 0)
        {
            requestReplay();
        }
        sentUpToSequence = answeredUpToSequence;
        resentAfterMissingUpTo = 0;
        sendPending();
    }

    private int sendPending()
    {
        if (!isConnected() || sentUpToSequence >= nextRequestSequence - 1)
        {
            return 0;
        }
        final long before = sentUpToSequence;
        unanswered.forEach(sender, Integer.MAX_VALUE);
        return (int)(sentUpToSequence - before);
    }

    private boolean sendUnanswered(
        final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        final long requestSequence = requestView.requestSequence(buffer, offset);
        if (requestSequence <= sentUpToSequence)
        {
            return true;
        }
        if (cluster.offer(buffer, offset, length) < 0)
        {
            return false;
        }
        sentUpToSequence = requestSequence;
        lastSendNs = System.nanoTime();
        return true;
    }

    private boolean consumeAnswered(
        final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        return requestView.requestSequence(buffer, offset) <= answeredUpToSequence;
    }

    private void onAnswered(final long requestSequence)
    {
        if (requestSequence > answeredUpToSequence)
        {
            answeredUpToSequence = requestSequence;
            sentUpToSequence = Math.max(sentUpToSequence, requestSequence);
            while (!unanswered.isEmpty() && unanswered.consume(answered, 1) == 1)
            {
                // Consumed one answered command; the consumer refuses the first unanswered one.
            }
        }
    }

    /**
     * The cluster refused a request because one before it never reached the log: send again from the first
     * unanswered one. Every request sent after the missing one is refused alike; one re-send answers them all.
     */
    private void resendAfterMissingRequest(final long requestSequence)
    {
        if (requestSequence > resentAfterMissingUpTo)
        {
            // Every request numbered so far, sent or not, goes out again after this in order: the refusals of any of
            // them that are still on their way ask for nothing more.
            resentAfterMissingUpTo = nextRequestSequence - 1;
            sentUpToSequence = answeredUpToSequence;
        }
    }

    private void requestReplay()
    {
        replayRequestEncoder.wrapAndApplyHeader(controlBuffer, 0, headerEncoder)
            .clientId(clientId)
            .fromLogPosition(lastLogPosition);
        replayPending = cluster.offer(
            controlBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + replayRequestEncoder.encodedLength()) > 0;
        batchesSinceReplayRequest = 0;
    }

    private void onEgress(final DirectBuffer buffer, final int offset, final int length)
    {
        headerDecoder.wrap(buffer, offset);
        if (headerDecoder.schemaId() != MessageHeaderDecoder.SCHEMA_ID)
        {
            return;
        }
        final int bodyOffset = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        switch (headerDecoder.templateId())
        {
            case EventBatchDecoder.TEMPLATE_ID ->
            {
                batchDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
                onBatch(buffer, offset, length);
            }
            case EventBatchPartDecoder.TEMPLATE_ID ->
            {
                batchPartDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
                onBatchPart();
            }
            case ReplayCompleteDecoder.TEMPLATE_ID ->
            {
                replayCompleteDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
                if (replayCompleteDecoder.clientId() == clientId)
                {
                    replayPending = false;
                }
            }
            case ReplayStartDecoder.TEMPLATE_ID ->
            {
                replayStartDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
                if (replayStartDecoder.clientId() == clientId)
                {
                    onReplayStart(replayStartDecoder.firstBatchSequence());
                }
            }
            case StateChunkDecoder.TEMPLATE_ID ->
            {
                stateChunkDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
                if (stateChunkDecoder.clientId() == clientId)
                {
                    final long logPosition = stateChunkDecoder.logPosition();
                    final int chunkIndex = stateChunkDecoder.chunkIndex();
                    final boolean lastChunk = stateChunkDecoder.lastChunk() == BooleanType.TRUE;
                    if (chunkIndex == 0)
                    {
                        stateAnswerPosition = logPosition;
                    }
                    else if (logPosition == stateAnswerPosition && chunkIndex < nextStateChunk)
                    {
                        // Sent again after this client asked for the rest while it was on its way.
                        return;
                    }
                    nextStateChunk = chunkIndex + 1;
                    stateContinueSent = false;
                    lastStateChunkNs = System.nanoTime();
                    if (lastChunk)
                    {
                        stateAnswerPosition = -1;
                    }
                    final long totalLength = stateChunkDecoder.totalLength();
                    final int payloadLength = stateChunkDecoder.payloadLength();
                    final int payloadOffset = stateChunkDecoder.limit() + StateChunkDecoder.payloadHeaderLength();
                    listener.onStateChunk(
                        logPosition, chunkIndex, lastChunk, totalLength, buffer, payloadOffset, payloadLength);
                }
            }
            case RequestIgnoredDecoder.TEMPLATE_ID ->
            {
                requestIgnoredDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
                if (requestIgnoredDecoder.clientId() == clientId)
                {
                    final long requestSequence = requestIgnoredDecoder.requestSequence();
                    if (requestIgnoredDecoder.reason() == IgnoredReason.OUT_OF_SEQUENCE)
                    {
                        resendAfterMissingRequest(requestSequence);
                    }
                    else
                    {
                        onAnswered(requestSequence);
                        listener.onRequestIgnored(requestSequence, requestIgnoredDecoder.reason());
                    }
                }
            }
            default ->
            {
            }
        }
    }

    /**
     * Stop joining the parts of a batch this client has now gone past: one it has whole after all, or had to go on
     * without (another leader's, cut short).
     */
    private void dropPartsUpTo(final long batchSequence)
    {
        if (nextPartIndex > 0 && partedBatchSequence <= batchSequence)
        {
            nextPartIndex = -1;
        }
    }

    /**
     * Whether to ask for the next round of a state answer or a batch in parts: none has come for a while, so the
     * cluster ended a round or found this client's stream full. It does not
     * answer an ask that comes before the client has read what it sent, so asking again costs nothing but the ask.
     */
    private static boolean timeToAskForMore(
        final long nowNs, final long lastReceivedNs, final boolean asked, final long askedNs)
    {
        return nowNs - lastReceivedNs > ROUND_OVER_NS && (!asked || nowNs - askedNs > CONTINUE_RETRY_NS);
    }

    /**
     * A replay begins with this batch: when it comes after the next one this client needs, those between are no
     * longer held by the cluster. Asking again would bring the same answer, so the client says so and takes up the
     * stream from there.
     */
    private void onReplayStart(final long firstBatchSequence)
    {
        if (lastBatchSequence != 0 && firstBatchSequence > lastBatchSequence + 1)
        {
            listener.onGap(lastLogPosition, false);
            lastBatchSequence = firstBatchSequence - 1;
            dropPartsUpTo(lastBatchSequence);
        }
    }

    /**
     * A batch too long for one egress message comes in parts, a round at a time: joined, it is taken as any other.
     * Parts come in order from the one cluster member that sends them; one out of order (another leader's, after a
     * change) drops the batch, which is then asked for again as a missing one is.
     */
    private void onBatchPart()
    {
        final int partIndex = batchPartDecoder.partIndex();
        final long batchSequence = batchPartDecoder.batchSequence();
        if (partIndex == 0)
        {
            partedBatchSequence = batchSequence;
            partedBatchLength = 0;
        }
        else if (partIndex != nextPartIndex || batchSequence != partedBatchSequence)
        {
            nextPartIndex = -1;
            return;
        }
        final int payloadLength = batchPartDecoder.payloadLength();
        batchPartDecoder.getPayload(partedBatch, partedBatchLength, payloadLength);
        partedBatchLength += payloadLength;
        nextPartIndex = partIndex + 1;
        lastPartNs = System.nanoTime();
        batchContinueSent = false;
        if (batchPartDecoder.lastPart() == BooleanType.TRUE)
        {
            nextPartIndex = -1;
            if (partedBatchLength == batchPartDecoder.batchLength())
            {
                onEgress(partedBatch, 0, partedBatchLength);
            }
        }
    }

    private void onBatch(final DirectBuffer buffer, final int offset, final int length)
    {
        final long batchSequence = batchDecoder.batchSequence();
        if (checkResumedNumbering && batchDecoder.resent() != BooleanType.TRUE)
        {
            checkResumedNumbering = false;
            if (batchSequence <= lastBatchSequence)
            {
                // A batch made now, numbered at or below the resumed one: another cluster's numbering.
                listener.onGap(lastLogPosition, true);
                lastBatchSequence = batchSequence - 1;
                replayPending = false;
            }
        }
        if (lastBatchSequence != 0 && batchSequence <= lastBatchSequence)
        {
            return;
        }
        if (lastBatchSequence != 0 && batchSequence != lastBatchSequence + 1)
        {
            if (!replayPending)
            {
                requestReplay();
            }
            return;
        }
        lastBatchSequence = batchSequence;
        batchesSinceReplayRequest++;
        dropPartsUpTo(batchSequence);
        lastLogPosition = batchDecoder.logPosition();
        if (batchDecoder.clientId() == clientId)
        {
            onAnswered(batchDecoder.requestSequence());
        }
        listener.onEventBatch(
            batchSequence, lastLogPosition, batchDecoder.timestampNs(), batchDecoder.clientId(),
            batchDecoder.requestSequence(), buffer, offset + EVENTS_OFFSET, length - EVENTS_OFFSET,
            batchDecoder.eventCount());
    }

    private final class Egress implements EgressListener
    {
        public void onMessage(
            final long clusterSessionId,
            final long timestamp,
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final Header header)
        {
            onEgress(buffer, offset, length);
        }

        public void onSessionEvent(
            final long correlationId,
            final long clusterSessionId,
            final long leadershipTermId,
            final int leaderMemberId,
            final EventCode code,
            final String detail)
        {
        }

        public void onNewLeader(
            final long clusterSessionId,
            final long leadershipTermId,
            final int leaderMemberId,
            final String ingressEndpoints)
        {
            // Commands sent to the old leader may not have been committed: send every unanswered one again.
            sentUpToSequence = answeredUpToSequence;
            resentAfterMissingUpTo = 0;
            replayPending = false;
            listener.onConnected(leaderMemberId);
        }
    }

    /**
     * Reads the request sequence of a stored request without a decoder allocation per call.
     */
    private static final class RequestDecoderView
    {
        private final io.bourse.protocol.cluster.RequestDecoder decoder = new io.bourse.protocol.cluster.RequestDecoder();

        long requestSequence(final DirectBuffer buffer, final int offset)
        {
            return decoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH,
                io.bourse.protocol.cluster.RequestDecoder.BLOCK_LENGTH,
                io.bourse.protocol.cluster.RequestDecoder.SCHEMA_VERSION).requestSequence();
        }
    }
}
