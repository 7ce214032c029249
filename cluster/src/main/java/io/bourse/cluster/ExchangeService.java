package io.bourse.cluster;

import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.codecs.CloseReason;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredService;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.logbuffer.Header;
import io.aeron.protocol.DataHeaderFlyweight;
import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.protocol.cluster.BatchContinueDecoder;
import io.bourse.protocol.cluster.BooleanType;
import io.bourse.protocol.cluster.EventBatchDecoder;
import io.bourse.protocol.cluster.EventBatchEncoder;
import io.bourse.protocol.cluster.EventBatchPartEncoder;
import io.bourse.protocol.cluster.IgnoredReason;
import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.ReplayCompleteEncoder;
import io.bourse.protocol.cluster.ReplayRequestDecoder;
import io.bourse.protocol.cluster.ReplayStartEncoder;
import io.bourse.protocol.cluster.RequestDecoder;
import io.bourse.protocol.cluster.RequestIgnoredEncoder;
import io.bourse.protocol.cluster.SnapshotRequestDecoder;
import io.bourse.protocol.cluster.StateChunkEncoder;
import io.bourse.protocol.cluster.StateContinueDecoder;
import io.bourse.protocol.cluster.StateRequestDecoder;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The clustered service: applies each committed ingress request to the {@link Engine} and sends the events it
 * produced, as one {@code EventBatch}, to every connected client.
 * <p>
 * Everything here is driven by the log: requests, cluster time and timers. Retries are recognised by the
 * client's request sequence and answered from the {@link EventHistory} instead of being applied again; a request
 * that arrives before one of the client's earlier ones is not applied yet (see {@link RequestAdmission}); GTD
 * expiry runs on a cluster timer set to the engine's earliest expiry. On a follower, sending is a no-op, so every
 * node runs the same code and reaches the same state.
 */
public final class ExchangeService implements ClusteredService
{
    private static final long EXPIRY_TIMER_ID = 1;
    private static final int MAX_SEND_ATTEMPTS = 3;
    private static final int ENVELOPE_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH + RequestDecoder.BLOCK_LENGTH;
    private static final int EVENTS_OFFSET = MessageHeaderEncoder.ENCODED_LENGTH + EventBatchEncoder.BLOCK_LENGTH;
    /**
     * The longest egress message of ours. Aeron takes messages of up to an eighth of the term length, and the
     * smallest term is 64 KiB; the cluster adds a 32-byte session header. A message no longer than this can be
     * offered to any client, whatever its egress term: longer would make {@code offer} throw.
     */
    static final int EGRESS_MESSAGE_BYTES = 8 * 1024 - 64;
    private static final int STATE_CHUNK_BYTES = EGRESS_MESSAGE_BYTES - MessageHeaderEncoder.ENCODED_LENGTH -
        StateChunkEncoder.BLOCK_LENGTH - StateChunkEncoder.payloadHeaderLength();
    /**
     * State chunks or batch parts sent at a time, about 1 MiB: half of what a UDP client's stream may hold ahead of
     * it with the node's terms.
     */
    private static final int CHUNKS_PER_ROUND = 128;
    private static final int SENT_WHOLE = 0;
    private static final int ROUND_OVER = 1;
    private static final int SESSION_GONE = 2;
    private static final int BATCH_PART_BYTES = EGRESS_MESSAGE_BYTES - MessageHeaderEncoder.ENCODED_LENGTH -
        EventBatchPartEncoder.BLOCK_LENGTH - EventBatchPartEncoder.payloadHeaderLength();

    private final ServiceListener serviceListener;
    private final EventHistory history;
    private final Long2LongHashMap lastRequestSequenceByClient = new Long2LongHashMap(0);
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final RequestDecoder requestDecoder = new RequestDecoder();
    private final ReplayRequestDecoder replayRequestDecoder = new ReplayRequestDecoder();
    private final SnapshotRequestDecoder snapshotRequestDecoder = new SnapshotRequestDecoder();
    private final StateRequestDecoder stateRequestDecoder = new StateRequestDecoder();
    private final StateContinueDecoder stateContinueDecoder = new StateContinueDecoder();
    private final BatchContinueDecoder batchContinueDecoder = new BatchContinueDecoder();
    private final StateChunkEncoder stateChunkEncoder = new StateChunkEncoder();
    private final EventBatchEncoder batchEncoder = new EventBatchEncoder();
    private final EventBatchDecoder batchDecoder = new EventBatchDecoder();
    private final EventBatchDecoder partedBatchDecoder = new EventBatchDecoder();
    private final EventBatchPartEncoder batchPartEncoder = new EventBatchPartEncoder();
    /**
     * One piece of a {@link RoundedSend}: a state chunk or a batch part.
     */
    private final UnsafeBuffer pieceBuffer = new UnsafeBuffer(new byte[EGRESS_MESSAGE_BYTES]);
    private final ReplayCompleteEncoder replayCompleteEncoder = new ReplayCompleteEncoder();
    private final ReplayStartEncoder replayStartEncoder = new ReplayStartEncoder();
    private final RequestIgnoredEncoder requestIgnoredEncoder = new RequestIgnoredEncoder();
    private final ExpandableDirectByteBuffer batchBuffer = new ExpandableDirectByteBuffer(64 * 1024);
    private final ExpandableDirectByteBuffer resendBuffer = new ExpandableDirectByteBuffer(64 * 1024);
    private final UnsafeBuffer replyBuffer = new UnsafeBuffer(new byte[128]);
    private final Long2ObjectHashMap<RoundedSend> stateSendsBySession = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<RoundedSend> batchSendsBySession = new Long2ObjectHashMap<>();
    private int lastStateLength = 64 * 1024;
    private final Consumer<ClientSession> broadcaster = this::sendBatch;
    private final ServiceSnapshot serviceSnapshot = new ServiceSnapshot();
    private final Queue<StateProbe> stateProbes = new ConcurrentLinkedQueue<>();
    private final StateHashCheckpoints checkpoints = new StateHashCheckpoints();
    private final UnsafeBuffer checkpointBuffer = new UnsafeBuffer(new byte[64]);
    /**
     * The snapshot position the last checkpoint applied names, and the log bytes it took: log the snapshot policy
     * does not count as new.
     */
    private volatile long lastCheckpointLogPosition = -1;
    private volatile int lastCheckpointLogBytes;

    private Cluster cluster;
    private IdleStrategy idleStrategy;
    private Engine engine;
    private CommandAdapter commandAdapter;
    private long nextBatchSequence = 1;
    private int batchLength;
    private int batchEventCount;
    private long scheduledExpiryNs = Long.MAX_VALUE;
    private volatile long appliedLogPosition;
    private long droppedSends;

    private ClientSession replaySession;
    private long replayClientId;
    private long replayFromLogPosition;
    private boolean replayStarted;
    private boolean replayStopped;
    private long retryClientId;
    private long retryRequestSequence;
    private int resentCount;
    /**
     * Where the last retried request's batch was found: a client that re-sends what is unanswered re-sends many
     * requests in order, and each one's batch is after the one before, so the search for the next starts there
     * instead of at the oldest batch held (the whole history, 8 MiB by default, for every retry).
     */
    private long lastRetryClientId;
    private long lastRetryRequestSequence;
    private long lastRetryMark;

    private long recoveryStartNs;
    private final long recoveryStartEpochNs = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis() - 1_000);
    private long recoveryCommands;
    private long recoveryBytes;
    private boolean recovering = true;
    private SnapshotPreflight.Checked checkedSnapshot;
    private long logEndAtStart;

    /**
     * @param historyCapacityBytes power of two: how many bytes of recent event batches to keep for retries and replays.
     * @param serviceListener      told about start-up, recovery and snapshots; called on the service thread.
     */
    public ExchangeService(final int historyCapacityBytes, final ServiceListener serviceListener)
    {
        this.history = new EventHistory(historyCapacityBytes);
        this.serviceListener = serviceListener;
    }

    /**
     * Recover from a snapshot the node already read and checked at start-up, instead of reading it again from the
     * image, when the cluster recovers from the snapshot taken at that log position (the same state: the service is
     * deterministic).
     *
     * @param checked the snapshot, read back whole with its CRC checked, and where it was taken; null for none.
     */
    void useCheckedSnapshot(final SnapshotPreflight.Checked checked)
    {
        checkedSnapshot = checked;
    }

    /**
     * Where the member's log ended when it started: a snapshot taken up to there is one taken again as the log is
     * replayed, whose checkpoint in the log was sent before the restart.
     */
    void logEndAtStart(final long logPosition)
    {
        logEndAtStart = logPosition;
    }

    public void onStart(final Cluster cluster, final Image snapshotImage)
    {
        final long startNs = System.nanoTime();
        ServiceSnapshot.Loaded loaded = null;
        if (snapshotImage != null)
        {
            loaded = checkedSnapshot != null && checkedSnapshot.logPosition() == cluster.logPosition() ?
                checkedSnapshot.loaded() : serviceSnapshot.load(snapshotImage, cluster.idleStrategy());
        }
        checkedSnapshot = null;
        start(cluster, loaded, startNs);
    }

    /**
     * Start from a snapshot already read (or none): the live start above, and the offline {@link JournalReplay}.
     */
    void start(final Cluster cluster, final ServiceSnapshot.Loaded loaded, final long loadStartNs)
    {
        this.cluster = cluster;
        this.idleStrategy = cluster.idleStrategy();
        engine = new Engine(new EventEncoder(this::onEvent));
        commandAdapter = new CommandAdapter(engine);
        if (loaded != null)
        {
            loadState(loaded);
            noteCheckpointPosition(cluster.logPosition());
            serviceSnapshot.expectLength(loaded.lengthBytes());
            serviceListener.onSnapshotLoaded(
                loaded.lengthBytes(), engine.lastTimestampNs(), System.nanoTime() - loadStartNs, engine.openOrderCount());
        }
        scheduledExpiryNs = engine.nextExpiryTimeNs();
        appliedLogPosition = cluster.logPosition();
        recoveryStartNs = System.nanoTime();
    }

    public void onSessionOpen(final ClientSession session, final long timestamp)
    {
    }

    public void onSessionClose(final ClientSession session, final long timestamp, final CloseReason closeReason)
    {
        stateSendsBySession.remove(session.id());
        batchSendsBySession.remove(session.id());
    }

    public void onSessionMessage(
        final ClientSession session,
        final long timestamp,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final Header header)
    {
        if (session == null)
        {
            onServiceMessage(buffer, offset, length);
            appliedLogPosition = cluster.logPosition();
            return;
        }
        ClientActivity.note();
        if (recovering)
        {
            recoveryCommands++;
            recoveryBytes += length;
        }
        if (length < MessageHeaderDecoder.ENCODED_LENGTH)
        {
            ignore(session, 0, 0, IgnoredReason.MALFORMED);
            return;
        }
        headerDecoder.wrap(buffer, offset);
        final int templateId = headerDecoder.templateId();
        final int bodyOffset = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        // A block of another length is from another version of the schema: decoding a shorter one would read the
        // bytes after the message, which a replay need not have the same.
        if (headerDecoder.schemaId() != MessageHeaderDecoder.SCHEMA_ID ||
            headerDecoder.blockLength() != blockLength(templateId) ||
            length - MessageHeaderDecoder.ENCODED_LENGTH < headerDecoder.blockLength())
        {
            ignore(session, 0, 0, IgnoredReason.MALFORMED);
        }
        else if (RequestAdmission.isRequest(headerDecoder, length))
        {
            requestDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
            onRequest(session, timestamp, requestDecoder.clientId(), requestDecoder.requestSequence(),
                buffer, offset + ENVELOPE_LENGTH, length - ENVELOPE_LENGTH);
        }
        else if (templateId == ReplayRequestDecoder.TEMPLATE_ID)
        {
            replayRequestDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
            replay(session, replayRequestDecoder.clientId(), replayRequestDecoder.fromLogPosition());
        }
        else if (templateId == SnapshotRequestDecoder.TEMPLATE_ID)
        {
            snapshotRequestDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
            if (cluster.role() == Cluster.Role.LEADER)
            {
                serviceListener.onSnapshotRequested();
            }
        }
        else if (templateId == StateRequestDecoder.TEMPLATE_ID)
        {
            stateRequestDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
            sendState(session, stateRequestDecoder.clientId());
        }
        else if (templateId == BatchContinueDecoder.TEMPLATE_ID)
        {
            batchContinueDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
            continueRound(batchSendsBySession, session, batchContinueDecoder.batchSequence(),
                batchContinueDecoder.fromPartIndex());
        }
        else if (templateId == StateContinueDecoder.TEMPLATE_ID)
        {
            stateContinueDecoder.wrap(buffer, bodyOffset, headerDecoder.blockLength(), headerDecoder.version());
            continueRound(stateSendsBySession, session, stateContinueDecoder.logPosition(),
                stateContinueDecoder.fromChunkIndex());
        }
        else
        {
            ignore(session, 0, 0, IgnoredReason.MALFORMED);
        }
        appliedLogPosition = cluster.logPosition();
    }

    /**
     * @return the block length of the client message with the template id, or -1 when it is not one.
     */
    private static int blockLength(final int templateId)
    {
        return switch (templateId)
        {
            case RequestDecoder.TEMPLATE_ID -> RequestDecoder.BLOCK_LENGTH;
            case ReplayRequestDecoder.TEMPLATE_ID -> ReplayRequestDecoder.BLOCK_LENGTH;
            case SnapshotRequestDecoder.TEMPLATE_ID -> SnapshotRequestDecoder.BLOCK_LENGTH;
            case StateRequestDecoder.TEMPLATE_ID -> StateRequestDecoder.BLOCK_LENGTH;
            case BatchContinueDecoder.TEMPLATE_ID -> BatchContinueDecoder.BLOCK_LENGTH;
            case StateContinueDecoder.TEMPLATE_ID -> StateContinueDecoder.BLOCK_LENGTH;
            default -> -1;
        };
    }

    public void onTimerEvent(final long correlationId, final long timestamp)
    {
        if (correlationId == EXPIRY_TIMER_ID)
        {
            scheduledExpiryNs = Long.MAX_VALUE;
            beginBatch();
            engine.expireOrders(timestamp);
            endBatch(timestamp, 0, 0);
            rescheduleExpiry();
        }
        appliedLogPosition = cluster.logPosition();
    }

    public void onTakeSnapshot(final ExclusivePublication snapshotPublication)
    {
        final long startNs = System.nanoTime();
        final long bytes = serviceSnapshot.write(
            snapshotPublication, idleStrategy, nextBatchSequence, lastRequestSequenceByClient, history, engine);
        final long engineStateHash = engine.stateHash();
        final long stateHash = stateHash(engineStateHash);
        // A snapshot taken again as the log is replayed at a restart is of the past: the checkpoint in the log then was
        // sent before the restart (by this member, when it led), and is compared like any other.
        checkpoints.noteService(
            cluster.logPosition(), stateHash, engineStateHash, cluster.logPosition() > logEndAtStart);
        offerCheckpoint(checkpoints.encode(
            checkpointBuffer, 0, cluster.logPosition(), stateHash, engineStateHash, cluster.memberId()));
        serviceListener.onSnapshotTaken(bytes, System.nanoTime() - startNs, engine.openOrderCount());
    }

    /**
     * Note the service's hashes at a snapshot's log position, where it stands now: one it loaded, or, replaying a
     * journal offline, one the cluster took there. A checkpoint for the position is then compared with them.
     */
    void noteCheckpointPosition(final long logPosition)
    {
        final long engineStateHash = engine.stateHash();
        checkpoints.noteService(logPosition, stateHash(engineStateHash), engineStateHash, false);
    }

    /**
     * Offer the checkpoint until the cluster takes it, as Aeron's container does its snapshot acknowledgement: Aeron
     * numbers service messages in the order they are offered, the same on every member, so none is left out.
     */
    private void offerCheckpoint(final int length)
    {
        long result;
        while ((result = cluster.offer(checkpointBuffer, 0, length)) == Publication.BACK_PRESSURED ||
            result == Publication.ADMIN_ACTION)
        {
            idleStrategy.idle();
        }
        idleStrategy.reset();
    }

    /**
     * A message the cluster's services sent (the leader's, sequenced in the log): a state hash checkpoint, compared
     * with this member's hashes at its position. It changes no state.
     */
    private void onServiceMessage(final DirectBuffer buffer, final int offset, final int length)
    {
        final int result = checkpoints.check(buffer, offset, length, cluster.memberId());
        if (result == StateHashCheckpoints.NOT_A_CHECKPOINT)
        {
            return;
        }
        lastCheckpointLogBytes = BitUtil.align(
            DataHeaderFlyweight.HEADER_LENGTH + AeronCluster.SESSION_HEADER_LENGTH + length,
            FrameDescriptor.FRAME_ALIGNMENT);
        lastCheckpointLogPosition = checkpoints.logPosition();
        if (result != StateHashCheckpoints.OWN)
        {
            serviceListener.onStateHashCheckpoint(result, checkpoints);
        }
    }

    /**
     * @return the log bytes the checkpoint of the snapshot at {@code snapshotLogPosition} took, once it has been
     * applied, else 0: log after a snapshot that is not new state. Safe to read from any thread.
     */
    public long checkpointLogBytes(final long snapshotLogPosition)
    {
        final int bytes = lastCheckpointLogBytes;
        return lastCheckpointLogPosition == snapshotLogPosition ? bytes : 0;
    }

    public void onRoleChange(final Cluster.Role newRole)
    {
        endRecovery();
        serviceListener.onRoleChange(newRole);
    }

    public void onNewLeadershipTermEvent(
        final long leadershipTermId,
        final long logPosition,
        final long timestamp,
        final long termBaseLogPosition,
        final int leaderMemberId,
        final int logSessionId,
        final TimeUnit timeUnit,
        final int appVersion)
    {
        // Terms replayed from the journal carry their old start times; a term started now ends the recovery.
        // A follower may never change role, so this is how its start-up learns the replay is over.
        if (recovering && timeUnit.toNanos(timestamp) >= recoveryStartEpochNs)
        {
            endRecovery();
        }
    }

    public void onTerminate(final Cluster cluster)
    {
    }

    /**
     * Answers {@link #probeState} on the service thread, between two messages.
     */
    public int doBackgroundWork(final long nowNs)
    {
        if (engine == null || stateProbes.isEmpty())
        {
            return 0;
        }
        int answered = 0;
        StateProbe probe;
        while ((probe = stateProbes.poll()) != null)
        {
            probe.result.complete(new State(appliedLogPosition, stateHash(), engine.stateHash(),
                lastRequestSequenceByClient.get(probe.clientId), engine.openOrderCount()));
            answered++;
        }
        return answered;
    }

    /**
     * Read the replicated state from any thread, whatever the traffic: the service thread takes it between two
     * messages, so every part of it is of the same log position. It holds the matching thread while it hashes the
     * whole state (milliseconds for a large book): a tool for checks and operators, not for every request.
     *
     * @param clientId whose last applied request sequence to include.
     * @return completed on the service thread once the node has started.
     */
    public CompletableFuture<State> probeState(final long clientId)
    {
        final StateProbe probe = new StateProbe(clientId, new CompletableFuture<>());
        stateProbes.add(probe);
        return probe.result;
    }

    /**
     * The replicated state at one log position.
     *
     * @param logPosition         the position of the last message applied.
     * @param stateHash           {@link #stateHash()}.
     * @param engineStateHash     {@link #engineStateHash()}.
     * @param lastRequestSequence the probed client's last applied request sequence, 0 for none.
     * @param openOrders          orders resting in all books.
     */
    public record State(
        long logPosition, long stateHash, long engineStateHash, long lastRequestSequence, int openOrders)
    {
    }

    private record StateProbe(long clientId, CompletableFuture<State> result)
    {
    }

    /**
     * A payload too long for one egress message going out to one session in pieces, a round at a time: a state
     * answer in chunks, or a batch in parts. {@code key} is what the client's ask for the next round names (the
     * state's log position, or the batch's sequence); the payload is where it was made while the first round is sent,
     * then a copy of its own for a batch, whose buffer the next batch reuses.
     */
    private static final class RoundedSend
    {
        final boolean state;
        final ClientSession session;
        final long clientId;
        final long key;
        final int length;
        DirectBuffer payload;
        int offset;
        int nextIndex;

        RoundedSend(
            final boolean state, final ClientSession session, final long clientId, final long key,
            final DirectBuffer payload, final int offset, final int length)
        {
            this.state = state;
            this.session = session;
            this.clientId = clientId;
            this.key = key;
            this.payload = payload;
            this.offset = offset;
            this.length = length;
        }

        void keepCopy()
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, payload, offset, length);
            payload = copy;
            offset = 0;
        }
    }

    /**
     * @return the log position of the last message applied; safe to read from any thread.
     */
    public long appliedLogPosition()
    {
        return appliedLogPosition;
    }

    /**
     * Digest of the replicated state: the engine's state hash combined with the batch sequence and the requests
     * applied per client. Which batches the history still holds is left out: a member restarted from a snapshot lays
     * its history out afresh and so lets its oldest batches go at other moments than one that ran through, and
     * either answers a retry rightly (with the batch, or as no longer held). Read it from another thread only while
     * no message is being applied (e.g. after {@link #appliedLogPosition()} has stopped moving).
     */
    public long stateHash()
    {
        return stateHash(engine.stateHash());
    }

    private long stateHash(final long engineStateHash)
    {
        long hash = engineStateHash * 31 + nextBatchSequence;
        long clients = 0;
        final Long2LongHashMap.EntryIterator iterator = lastRequestSequenceByClient.entrySet().iterator();
        while (iterator.hasNext())
        {
            iterator.next();
            clients += Long.hashCode(iterator.getLongKey()) * 0x9E3779B97F4A7C15L + iterator.getLongValue();
        }
        return hash * 31 + clients;
    }

    /**
     * The engine's own state hash, comparable with that of another engine fed the same log (the post-trade store's).
     * Same threading rule as {@link #stateHash()}.
     */
    public long engineStateHash()
    {
        return engine.stateHash();
    }

    /**
     * @return batches that could not be sent to a session because it stayed back-pressured.
     */
    public long droppedSends()
    {
        return droppedSends;
    }

    Engine engine()
    {
        return engine;
    }

    /**
     * @return the highest request sequence applied for the client, 0 for none; same threading rule as
     * {@link #stateHash()}.
     */
    long lastRequestSequence(final long clientId)
    {
        return lastRequestSequenceByClient.get(clientId);
    }

    private void onRequest(
        final ClientSession session,
        final long timestamp,
        final long clientId,
        final long requestSequence,
        final DirectBuffer buffer,
        final int commandOffset,
        final int commandLength)
    {
        final int admission = RequestAdmission.admit(lastRequestSequenceByClient, clientId, requestSequence);
        if (admission == RequestAdmission.APPLIED_BEFORE)
        {
            resendOriginal(session, clientId, requestSequence);
            return;
        }
        if (admission == RequestAdmission.OUT_OF_SEQUENCE)
        {
            ignore(session, clientId, requestSequence, IgnoredReason.OUT_OF_SEQUENCE);
            return;
        }
        beginBatch();
        commandAdapter.onCommand(buffer, commandOffset, commandLength, timestamp);
        endBatch(timestamp, clientId, requestSequence);
        rescheduleExpiry();
    }

    private void endRecovery()
    {
        if (recovering)
        {
            recovering = false;
            serviceListener.onLogReplayed(recoveryCommands, recoveryBytes, System.nanoTime() - recoveryStartNs);
        }
        appliedLogPosition = Math.max(appliedLogPosition, cluster.logPosition());
    }

    private void beginBatch()
    {
        batchLength = EVENTS_OFFSET;
        batchEventCount = 0;
    }

    private void onEvent(final DirectBuffer buffer, final int offset, final int length)
    {
        batchBuffer.putBytes(batchLength, buffer, offset, length);
        batchLength += length;
        batchEventCount++;
    }

    private void endBatch(final long timestamp, final long clientId, final long requestSequence)
    {
        batchEncoder.wrapAndApplyHeader(batchBuffer, 0, headerEncoder)
            .batchSequence(nextBatchSequence++)
            .logPosition(cluster.logPosition())
            .timestampNs(timestamp)
            .clientId(clientId)
            .requestSequence(requestSequence)
            .eventCount(batchEventCount)
            .resent(BooleanType.FALSE);
        history.append(batchBuffer, 0, batchLength);
        cluster.forEachClientSession(broadcaster);
    }

    private void sendBatch(final ClientSession session)
    {
        if (!batchSendsBySession.isEmpty() && batchSendsBySession.containsKey(session.id()))
        {
            // Behind a batch in parts: this one is in the history for the replay the client asks for after it.
            return;
        }
        sendBatch(session, batchBuffer, 0, batchLength);
    }

    /**
     * Send one {@code EventBatch} message, in {@code EventBatchPart}s when it is too long for one egress message (a
     * mass cancel, a sweep of many orders or many expiries at once). The parts go a round at a time, as a state
     * answer's chunks do, for the same reason: a client may only be 2 MiB behind (4 MiB for an IPC client), and a
     * batch has no bound. Once its first part is sent, the rest is kept, and the batches after it
     * are not sent to that session meanwhile: the client asks for the next round once it has read one
     * ({@link #continueRound}), then for the batches it missed, from the history.
     *
     * @return true when sent whole.
     */
    private boolean sendBatch(
        final ClientSession session, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length <= EGRESS_MESSAGE_BYTES)
        {
            return send(session, buffer, offset, length);
        }
        partedBatchDecoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, EventBatchDecoder.BLOCK_LENGTH,
            EventBatchDecoder.SCHEMA_VERSION);
        final RoundedSend parted =
            new RoundedSend(false, session, 0, partedBatchDecoder.batchSequence(), buffer, offset, length);
        final int result = sendRound(parted);
        if (result == ROUND_OVER)
        {
            if (parted.nextIndex == 0)
            {
                // Not even the first part: the client knows nothing of it and will not ask for the rest. It finds
                // the batch missing instead, as any other dropped, and asks for it again.
                droppedSends++;
                return false;
            }
            parted.keepCopy();
            batchSendsBySession.put(session.id(), parted);
        }
        return result == SENT_WHOLE;
    }

    /**
     * Go on with a state answer or a batch in parts once the client has read every piece sent so far. An ask from a
     * piece before the next one to send comes from a client that has not read them all yet, and is not answered: it
     * asks again when it has. Nor is one for a send no longer kept (another leader's, or superseded): the client asks
     * again from the start when nothing comes.
     */
    private void continueRound(
        final Long2ObjectHashMap<RoundedSend> sends, final ClientSession session, final long key, final int fromIndex)
    {
        final RoundedSend send = sends.get(session.id());
        if (send == null || send.key != key || fromIndex != send.nextIndex)
        {
            return;
        }
        if (sendRound(send) != ROUND_OVER)
        {
            sends.remove(session.id());
        }
    }

    /**
     * Send the next pieces, at most a round's worth: the client's stream may only run half its term ahead of it, and
     * the matching thread copies every byte.
     *
     * @return {@link #SENT_WHOLE}, {@link #ROUND_OVER} (more to send: the round's worth is sent or the stream is
     * full), or {@link #SESSION_GONE}.
     */
    private int sendRound(final RoundedSend send)
    {
        final int pieceBytes = send.state ? STATE_CHUNK_BYTES : BATCH_PART_BYTES;
        for (int pieces = 0; pieces < CHUNKS_PER_ROUND; pieces++)
        {
            final int pieceOffset = send.nextIndex * pieceBytes;
            final int pieceLength = Math.min(pieceBytes, send.length - pieceOffset);
            final boolean last = pieceOffset + pieceLength >= send.length;
            final BooleanType lastPiece = last ? BooleanType.TRUE : BooleanType.FALSE;
            final int encodedLength;
            if (send.state)
            {
                encodedLength = stateChunkEncoder.wrapAndApplyHeader(pieceBuffer, 0, headerEncoder)
                    .clientId(send.clientId)
                    .logPosition(send.key)
                    .chunkIndex(send.nextIndex)
                    .lastChunk(lastPiece)
                    .totalLength(send.length)
                    .putPayload(send.payload, send.offset + pieceOffset, pieceLength)
                    .encodedLength();
            }
            else
            {
                encodedLength = batchPartEncoder.wrapAndApplyHeader(pieceBuffer, 0, headerEncoder)
                    .batchSequence(send.key)
                    .partIndex(send.nextIndex)
                    .lastPart(lastPiece)
                    .batchLength(send.length)
                    .putPayload(send.payload, send.offset + pieceOffset, pieceLength)
                    .encodedLength();
            }
            final long result = send.session.offer(pieceBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + encodedLength);
            if (result <= 0)
            {
                return result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION ?
                    ROUND_OVER : SESSION_GONE;
            }
            if (last)
            {
                return SENT_WHOLE;
            }
            send.nextIndex++;
        }
        return ROUND_OVER;
    }

    /**
     * Offer to one session without waiting on it: a client that does not keep up must never stall the matching
     * thread for everyone else. A batch it misses is noticed by its sequence number and replayed from the history.
     *
     * @return true when sent.
     */
    private boolean send(final ClientSession session, final DirectBuffer buffer, final int offset, final int length)
    {
        for (int attempt = 0; attempt < MAX_SEND_ATTEMPTS; attempt++)
        {
            final long result = session.offer(buffer, offset, length);
            if (result > 0)
            {
                return true;
            }
            if (result != Publication.ADMIN_ACTION)
            {
                break;
            }
        }
        droppedSends++;
        return false;
    }

    private void rescheduleExpiry()
    {
        final long nextExpiryNs = engine.nextExpiryTimeNs();
        if (nextExpiryNs != scheduledExpiryNs)
        {
            if (nextExpiryNs == Long.MAX_VALUE)
            {
                cluster.cancelTimer(EXPIRY_TIMER_ID);
            }
            else
            {
                cluster.scheduleTimer(EXPIRY_TIMER_ID, nextExpiryNs);
            }
            scheduledExpiryNs = nextExpiryNs;
        }
    }

    private void resendOriginal(final ClientSession session, final long clientId, final long requestSequence)
    {
        if (!batchSendsBySession.isEmpty() && batchSendsBySession.containsKey(session.id()))
        {
            // The client asks again once it has the batch in parts.
            return;
        }
        retryClientId = clientId;
        retryRequestSequence = requestSequence;
        replaySession = session;
        resentCount = 0;
        if (clientId == lastRetryClientId && requestSequence > lastRetryRequestSequence)
        {
            history.forEachFrom(lastRetryMark, this::resendIfRetried);
        }
        if (clientId != lastRetryClientId || requestSequence != lastRetryRequestSequence)
        {
            // Not found after the last one (none yet, another client's, or an earlier request): from the oldest.
            history.forEach(this::resendIfRetried);
        }
        replaySession = null;
        if (resentCount == 0)
        {
            ignore(session, clientId, requestSequence, IgnoredReason.RETRY_NOT_IN_HISTORY);
        }
    }

    private boolean resendIfRetried(
        final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        batchDecoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, EventBatchDecoder.BLOCK_LENGTH,
            EventBatchDecoder.SCHEMA_VERSION);
        if (batchDecoder.clientId() == retryClientId && batchDecoder.requestSequence() == retryRequestSequence)
        {
            resend(buffer, offset, length);
            lastRetryClientId = retryClientId;
            lastRetryRequestSequence = retryRequestSequence;
            lastRetryMark = history.markAfter(headOffset);
            return false;
        }
        return true;
    }

    /**
     * Re-send to one session the batches held after a log position: a {@code ReplayStart} naming the first, the
     * batches, then a {@code ReplayComplete}. A client that missed batches no longer held learns it from the start's
     * sequence and goes on from there.
     */
    private void replay(final ClientSession session, final long clientId, final long fromLogPosition)
    {
        if (!batchSendsBySession.isEmpty() && batchSendsBySession.containsKey(session.id()))
        {
            // The client asks again once it has the batch in parts.
            return;
        }
        replaySession = session;
        replayClientId = clientId;
        replayFromLogPosition = fromLogPosition;
        replayStarted = false;
        replayStopped = false;
        resentCount = 0;
        history.forEachNear(fromLogPosition, this::resendIfAfter);
        if (!replayStarted && !replayStopped)
        {
            // Nothing held after the position: the next batch made is the first the client can have.
            sendReplayStart(nextBatchSequence);
        }
        replaySession = null;
        replayCompleteEncoder.wrapAndApplyHeader(replyBuffer, 0, headerEncoder)
            .clientId(clientId)
            .fromLogPosition(fromLogPosition)
            .batchCount(resentCount);
        send(session, replyBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + replayCompleteEncoder.encodedLength());
    }

    private boolean resendIfAfter(
        final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        batchDecoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, EventBatchDecoder.BLOCK_LENGTH,
            EventBatchDecoder.SCHEMA_VERSION);
        if (batchDecoder.logPosition() <= replayFromLogPosition)
        {
            return true;
        }
        if (!replayStarted && !sendReplayStart(batchDecoder.batchSequence()) || !resend(buffer, offset, length))
        {
            // Back-pressure: the client asks again for the rest.
            replayStopped = true;
            return false;
        }
        return true;
    }

    private boolean sendReplayStart(final long firstBatchSequence)
    {
        replayStartEncoder.wrapAndApplyHeader(replyBuffer, 0, headerEncoder)
            .clientId(replayClientId)
            .fromLogPosition(replayFromLogPosition)
            .firstBatchSequence(firstBatchSequence);
        replayStarted = send(
            replaySession, replyBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + replayStartEncoder.encodedLength());
        return replayStarted;
    }

    /**
     * @return false when the session is back-pressured: the rest of a replay waits for the client to ask again.
     */
    private boolean resend(final DirectBuffer buffer, final int offset, final int length)
    {
        resendBuffer.putBytes(0, buffer, offset, length);
        batchEncoder.wrap(resendBuffer, MessageHeaderEncoder.ENCODED_LENGTH).resent(BooleanType.TRUE);
        if (!sendBatch(replaySession, resendBuffer, 0, length))
        {
            return false;
        }
        resentCount++;
        return true;
    }

    /**
     * Answer a StateRequest with the engine snapshot at this log position, to the asking session only, in chunks.
     * Changes no replicated state, so a follower (whose sends are no-ops) stays identical. The chunks go a round at a
     * time: a client may only be half its egress term behind (2 MiB for a UDP client with the node's 4 MiB terms, 4
     * MiB for an IPC client with its 8 MiB terms), and a large book's state is longer than that. The rest is kept for the
     * client to ask for once it has read a round ({@link #continueRound}); a newer request of the session's
     * supersedes it. Rare and off the order path, hence a buffer per answer.
     */
    private void sendState(final ClientSession session, final long clientId)
    {
        final ExpandableDirectByteBuffer state = new ExpandableDirectByteBuffer(lastStateLength);
        final int totalLength = engine.writeSnapshot(state, 0);
        lastStateLength = Math.max(64 * 1024, totalLength);
        final RoundedSend send = new RoundedSend(true, session, clientId, cluster.logPosition(), state, 0, totalLength);
        if (sendRound(send) == ROUND_OVER)
        {
            stateSendsBySession.put(session.id(), send);
        }
        else
        {
            stateSendsBySession.remove(session.id());
        }
    }

    private void ignore(
        final ClientSession session, final long clientId, final long requestSequence, final IgnoredReason reason)
    {
        requestIgnoredEncoder.wrapAndApplyHeader(replyBuffer, 0, headerEncoder)
            .clientId(clientId)
            .requestSequence(requestSequence)
            .reason(reason);
        send(session, replyBuffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + requestIgnoredEncoder.encodedLength());
    }

    private void loadState(final ServiceSnapshot.Loaded loaded)
    {
        nextBatchSequence = loaded.nextBatchSequence();
        lastRequestSequenceByClient.putAll(loaded.lastRequestSequenceByClient());
        history.droppedUpToLogPosition(loaded.droppedUpToLogPosition());
        final DirectBuffer payload = loaded.payload();
        for (int i = 0; i < loaded.historyOffsets().size(); i++)
        {
            history.append(payload, loaded.historyOffsets().getInt(i), loaded.historyLengths().getInt(i));
        }
        engine.loadSnapshot(payload, loaded.engineOffset(), loaded.engineLength());
    }
}
