package io.bourse.cluster;

import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.StateHashCheckpointDecoder;
import io.bourse.protocol.cluster.StateHashCheckpointEncoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.Arrays;

/**
 * State hash checkpoints: replicas, recoveries and the post-trade store checked against the leader while they run.
 * <p>
 * As it takes a snapshot, the service offers its state hashes at the snapshot's log position as a service message
 * ({@code StateHashCheckpoint}); Aeron Cluster appends the leader's to the log, a little after that position. Whatever
 * applies the log (each member live, a member recovering from its journal, the post-trade store, {@code journal
 * verify}) notes its own hashes when it stands at a snapshot's position (it takes the snapshot, loads it, or passes the
 * cluster's snapshot action in the log) and compares them with the checkpoint when it comes through. A state that
 * went another way is then found at the next snapshot, rather than when it answers a client differently.
 * <p>
 * Single-threaded; allocates nothing.
 */
public final class StateHashCheckpoints
{
    /**
     * The message was not a checkpoint.
     */
    public static final int NOT_A_CHECKPOINT = 0;
    /**
     * The checkpoint's hashes are those noted at its position.
     */
    public static final int AGREED = 1;
    /**
     * They are not.
     */
    public static final int DIVERGED = 2;
    /**
     * No hashes were noted at its position (this state did not stand there: it started from a later snapshot, or
     * joined after it), so there was nothing to compare.
     */
    public static final int UNCHECKED = 3;
    /**
     * The checkpoint is the one this member sent: its own hashes, compared with themselves.
     */
    public static final int OWN = 4;

    /**
     * Positions noted and kept: the checkpoint of a snapshot comes a few messages after it, so only the last few can
     * still be waiting for theirs.
     */
    private static final int KEPT = 8;

    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final StateHashCheckpointDecoder decoder = new StateHashCheckpointDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final StateHashCheckpointEncoder encoder = new StateHashCheckpointEncoder();
    private final long[] positions = new long[KEPT];
    private final long[] stateHashes = new long[KEPT];
    private final long[] engineStateHashes = new long[KEPT];
    private final boolean[] serviceHashKnown = new boolean[KEPT];
    private final boolean[] sent = new boolean[KEPT];
    private int next;

    private long logPosition;
    private long stateHash;
    private long engineStateHash;
    private int memberId;
    private long ownStateHash;
    private long ownEngineStateHash;
    private boolean serviceHashCompared;

    public StateHashCheckpoints()
    {
        Arrays.fill(positions, -1);
    }

    /**
     * Note the service's hashes at a snapshot's log position.
     *
     * @param sent whether this member is offering them as the checkpoint the log will hold (it takes the snapshot
     *             live), rather than standing there again (it loaded the snapshot, takes it again as it replays its
     *             log at a restart, or replays the log offline): its own checkpoint is then no check of itself.
     */
    public void noteService(
        final long logPosition, final long stateHash, final long engineStateHash, final boolean sent)
    {
        note(logPosition, stateHash, engineStateHash, true, sent);
    }

    /**
     * Note an engine's hash alone at a snapshot's log position: a post-trade store has the engine, not the service's
     * bookkeeping.
     */
    public void noteEngine(final long logPosition, final long engineStateHash)
    {
        note(logPosition, 0, engineStateHash, false, false);
    }

    /**
     * Compare a service message of the log with the hashes noted at its position, if it is a checkpoint.
     *
     * @param ownMemberId this member's id, or -1 for a store or a tool.
     * @return {@link #NOT_A_CHECKPOINT}, {@link #AGREED}, {@link #DIVERGED}, {@link #UNCHECKED} or {@link #OWN}; the
     * checkpoint's fields and the hashes it was compared with are then readable here until the next call.
     */
    public int check(final DirectBuffer buffer, final int offset, final int length, final int ownMemberId)
    {
        if (length < MessageHeaderDecoder.ENCODED_LENGTH + StateHashCheckpointDecoder.BLOCK_LENGTH)
        {
            return NOT_A_CHECKPOINT;
        }
        headerDecoder.wrap(buffer, offset);
        if (headerDecoder.schemaId() != MessageHeaderDecoder.SCHEMA_ID ||
            headerDecoder.templateId() != StateHashCheckpointDecoder.TEMPLATE_ID ||
            headerDecoder.blockLength() != StateHashCheckpointDecoder.BLOCK_LENGTH)
        {
            return NOT_A_CHECKPOINT;
        }
        decoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(),
            headerDecoder.version());
        logPosition = decoder.logPosition();
        stateHash = decoder.stateHash();
        engineStateHash = decoder.engineStateHash();
        memberId = decoder.memberId();
        for (int i = 0; i < KEPT; i++)
        {
            if (positions[i] == logPosition)
            {
                ownStateHash = stateHashes[i];
                ownEngineStateHash = engineStateHashes[i];
                serviceHashCompared = serviceHashKnown[i];
                if (sent[i] && memberId == ownMemberId)
                {
                    return OWN;
                }
                final boolean agreed = ownEngineStateHash == engineStateHash &&
                    (!serviceHashCompared || ownStateHash == stateHash);
                return agreed ? AGREED : DIVERGED;
            }
        }
        return UNCHECKED;
    }

    /**
     * Encode a checkpoint, header included.
     *
     * @return its length.
     */
    public int encode(
        final MutableDirectBuffer buffer, final int offset, final long logPosition, final long stateHash,
        final long engineStateHash, final int memberId)
    {
        encoder.wrapAndApplyHeader(buffer, offset, headerEncoder)
            .logPosition(logPosition)
            .stateHash(stateHash)
            .engineStateHash(engineStateHash)
            .memberId(memberId);
        return MessageHeaderEncoder.ENCODED_LENGTH + StateHashCheckpointEncoder.BLOCK_LENGTH;
    }

    /**
     * @return the last checkpoint's log position: the snapshot's.
     */
    public long logPosition()
    {
        return logPosition;
    }

    /**
     * @return the member whose hashes the last checkpoint holds.
     */
    public int memberId()
    {
        return memberId;
    }

    public long stateHash()
    {
        return stateHash;
    }

    public long engineStateHash()
    {
        return engineStateHash;
    }

    /**
     * @return the service hash noted at the last checkpoint's position, when {@link #serviceHashCompared()}.
     */
    public long ownStateHash()
    {
        return ownStateHash;
    }

    public long ownEngineStateHash()
    {
        return ownEngineStateHash;
    }

    /**
     * @return whether the service's hashes were compared, or the engine's alone.
     */
    public boolean serviceHashCompared()
    {
        return serviceHashCompared;
    }

    private void note(
        final long logPosition, final long stateHash, final long engineStateHash, final boolean serviceHashKnown,
        final boolean sent)
    {
        positions[next] = logPosition;
        stateHashes[next] = stateHash;
        engineStateHashes[next] = engineStateHash;
        this.serviceHashKnown[next] = serviceHashKnown;
        this.sent[next] = sent;
        next = (next + 1) % KEPT;
    }
}
