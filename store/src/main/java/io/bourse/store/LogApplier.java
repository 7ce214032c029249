package io.bourse.store;

import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.codecs.ClusterActionRequestDecoder;
import io.aeron.cluster.codecs.SessionMessageHeaderDecoder;
import io.aeron.cluster.codecs.TimerEventDecoder;
import io.bourse.cluster.JournalReplay;
import io.bourse.cluster.RequestAdmission;
import io.bourse.cluster.StateHashCheckpoints;
import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EngineListener;
import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.RequestDecoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Applies cluster log messages to an {@link Engine} exactly as {@code io.bourse.cluster.ExchangeService} does, so that
 * the engine here produces the same events as the node's: a request envelope is unwrapped and applied once per
 * (client, request sequence), with the message's cluster timestamp; a retry is not applied again; the expiry timer
 * event expires orders at its timestamp; malformed requests and the replay and snapshot requests change nothing.
 * Whether the two agree is checked at each snapshot the cluster takes: the engine's hash where the log has the snapshot
 * action is compared with the hash the leader sent for that position ({@link StateHashCheckpoints}).
 * <p>
 * Single-threaded; allocates nothing per message.
 */
final class LogApplier
{
    /**
     * The expiry timer's correlation id in {@code ExchangeService}.
     */
    static final long EXPIRY_TIMER_ID = 1;

    private static final int ENVELOPE_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH + RequestDecoder.BLOCK_LENGTH;

    private final io.aeron.cluster.codecs.MessageHeaderDecoder clusterHeader =
        new io.aeron.cluster.codecs.MessageHeaderDecoder();
    private final SessionMessageHeaderDecoder sessionHeader = new SessionMessageHeaderDecoder();
    private final TimerEventDecoder timerEvent = new TimerEventDecoder();
    private final ClusterActionRequestDecoder action = new ClusterActionRequestDecoder();
    private final StateHashCheckpoints checkpoints = new StateHashCheckpoints();
    private final CheckpointListener checkpointListener;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final RequestDecoder request = new RequestDecoder();
    private final Long2LongHashMap lastRequestSequenceByClient = new Long2LongHashMap(0);
    private final Engine engine;
    private final CommandAdapter commandAdapter;
    private long lastTimestampNs;

    /**
     * Told of each state hash checkpoint compared with the engine's hash at its position.
     */
    @FunctionalInterface
    interface CheckpointListener
    {
        /**
         * @param result     {@link StateHashCheckpoints#AGREED}, {@link StateHashCheckpoints#DIVERGED} or
         *                   {@link StateHashCheckpoints#UNCHECKED}.
         * @param checkpoint readable during the call only.
         */
        void onCheckpoint(int result, StateHashCheckpoints checkpoint);
    }

    LogApplier(final EngineListener listener, final CheckpointListener checkpointListener)
    {
        this.checkpointListener = checkpointListener;
        engine = new Engine(listener);
        commandAdapter = new CommandAdapter(engine);
    }

    /**
     * Apply one whole cluster log message (Aeron Cluster's header first).
     *
     * @return true when it was a session message or a timer event (one the service applies).
     */
    boolean onLogMessage(final DirectBuffer buffer, final int offset, final int length)
    {
        clusterHeader.wrap(buffer, offset);
        if (clusterHeader.schemaId() != io.aeron.cluster.codecs.MessageHeaderDecoder.SCHEMA_ID)
        {
            throw new IllegalStateException("not a cluster log message: schema " + clusterHeader.schemaId());
        }
        final int templateId = clusterHeader.templateId();
        final int bodyOffset = offset + io.aeron.cluster.codecs.MessageHeaderDecoder.ENCODED_LENGTH;
        if (templateId == SessionMessageHeaderDecoder.TEMPLATE_ID)
        {
            sessionHeader.wrap(buffer, bodyOffset, clusterHeader.blockLength(), clusterHeader.version());
            lastTimestampNs = sessionHeader.timestamp();
            // Aeron Cluster numbers the services' own messages below zero: the service changes nothing for them.
            if (sessionHeader.clusterSessionId() < 0)
            {
                onServiceMessage(buffer, offset + AeronCluster.SESSION_HEADER_LENGTH,
                    length - AeronCluster.SESSION_HEADER_LENGTH);
            }
            else
            {
                onSessionMessage(buffer, offset + AeronCluster.SESSION_HEADER_LENGTH,
                    length - AeronCluster.SESSION_HEADER_LENGTH, lastTimestampNs);
            }
            return true;
        }
        if (templateId == ClusterActionRequestDecoder.TEMPLATE_ID)
        {
            action.wrap(buffer, bodyOffset, clusterHeader.blockLength(), clusterHeader.version());
            if (JournalReplay.isSnapshot(action))
            {
                checkpoints.noteEngine(action.logPosition(), engine.stateHash());
            }
            return false;
        }
        if (templateId == TimerEventDecoder.TEMPLATE_ID)
        {
            timerEvent.wrap(buffer, bodyOffset, clusterHeader.blockLength(), clusterHeader.version());
            lastTimestampNs = timerEvent.timestamp();
            if (timerEvent.correlationId() == EXPIRY_TIMER_ID)
            {
                engine.expireOrders(lastTimestampNs);
            }
            return true;
        }
        return false;
    }

    private void onServiceMessage(final DirectBuffer buffer, final int offset, final int length)
    {
        final int result = checkpoints.check(buffer, offset, length, -1);
        if (result != StateHashCheckpoints.NOT_A_CHECKPOINT)
        {
            checkpointListener.onCheckpoint(result, checkpoints);
        }
    }

    private void onSessionMessage(final DirectBuffer buffer, final int offset, final int length, final long timestampNs)
    {
        if (length < MessageHeaderDecoder.ENCODED_LENGTH)
        {
            return;
        }
        header.wrap(buffer, offset);
        if (!RequestAdmission.isRequest(header, length))
        {
            return;
        }
        request.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
        if (RequestAdmission.admit(lastRequestSequenceByClient, request.clientId(), request.requestSequence()) !=
            RequestAdmission.NEXT)
        {
            return;
        }
        commandAdapter.onCommand(buffer, offset + ENVELOPE_LENGTH, length - ENVELOPE_LENGTH, timestampNs);
    }

    /**
     * @return cluster time of the last message applied.
     */
    long lastTimestampNs()
    {
        return lastTimestampNs;
    }

    long engineStateHash()
    {
        return engine.stateHash();
    }

    Engine engine()
    {
        return engine;
    }

    /**
     * @return the engine's state as snapshot records.
     */
    byte[] engineSnapshot(final ExpandableArrayBuffer scratch)
    {
        final int length = engine.writeSnapshot(scratch, 0);
        final byte[] bytes = new byte[length];
        scratch.getBytes(0, bytes);
        return bytes;
    }

    /**
     * @return the last request sequence of each client: (count, then clientId and sequence pairs), little-endian.
     */
    byte[] clientsSnapshot()
    {
        final MutableDirectBuffer buffer = new UnsafeBuffer(new byte[4 + lastRequestSequenceByClient.size() * 16]);
        buffer.putInt(0, lastRequestSequenceByClient.size());
        int offset = 4;
        final Long2LongHashMap.EntryIterator iterator = lastRequestSequenceByClient.entrySet().iterator();
        while (iterator.hasNext())
        {
            iterator.next();
            buffer.putLong(offset, iterator.getLongKey());
            buffer.putLong(offset + 8, iterator.getLongValue());
            offset += 16;
        }
        return buffer.byteArray();
    }

    /**
     * Restore the state saved by {@link #engineSnapshot} and {@link #clientsSnapshot}; before any message.
     */
    void load(final byte[] engineSnapshot, final byte[] clientsSnapshot)
    {
        engine.loadSnapshot(new UnsafeBuffer(engineSnapshot), 0, engineSnapshot.length);
        final UnsafeBuffer buffer = new UnsafeBuffer(clientsSnapshot);
        final int count = buffer.getInt(0);
        if (clientsSnapshot.length != 4 + count * 16)
        {
            throw new IllegalStateException("store snapshot: client table of " + clientsSnapshot.length +
                " bytes does not hold " + count + " clients");
        }
        for (int i = 0, offset = 4; i < count; i++, offset += 16)
        {
            lastRequestSequenceByClient.put(buffer.getLong(offset), buffer.getLong(offset + 8));
        }
        lastTimestampNs = engine.lastTimestampNs();
    }
}
