package io.bourse.cluster;

import io.aeron.Aeron;
import io.aeron.DirectBufferVector;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.ClusterException;
import io.aeron.cluster.codecs.ClusterAction;
import io.aeron.cluster.codecs.ClusterActionRequestDecoder;
import io.aeron.cluster.codecs.MessageHeaderDecoder;
import io.aeron.cluster.codecs.SessionMessageHeaderDecoder;
import io.aeron.cluster.codecs.TimerEventDecoder;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.logbuffer.BufferClaim;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Replays a node's journal offline, without Aeron: the messages of a service snapshot recording, then the cluster
 * log messages after the snapshot's position, applied to a real {@link ExchangeService} exactly as the clustered
 * service container would apply them. The result must have the live node's {@link #stateHash()}.
 * <p>
 * The service runs as a follower with no client sessions, so it sends nothing. Not thread safe.
 */
public final class JournalReplay
{
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final SessionMessageHeaderDecoder sessionHeaderDecoder = new SessionMessageHeaderDecoder();
    private final TimerEventDecoder timerEventDecoder = new TimerEventDecoder();
    private final ClusterActionRequestDecoder actionDecoder = new ClusterActionRequestDecoder();
    private final ServiceSnapshot serviceSnapshot = new ServiceSnapshot();
    private final ServiceSnapshot.ChunkCollector collector = new ServiceSnapshot.ChunkCollector();
    private final ExchangeService service;
    private final OfflineCluster cluster = new OfflineCluster();
    private final OfflineSession session = new OfflineSession();
    private long snapshotBytes;
    private boolean started;
    private long checkpointsAgreed;
    private long checkpointsDiverged;
    private long checkpointsUnchecked;
    private String firstDivergence;

    /**
     * @param historyCapacityBytes the node's event history capacity: it is part of the replicated state.
     */
    public JournalReplay(final int historyCapacityBytes)
    {
        service = new ExchangeService(historyCapacityBytes, new ServiceListener()
        {
            public void onSnapshotLoaded(
                final long lengthBytes, final long snapshotTimeNs, final long durationNs, final int openOrders)
            {
                snapshotBytes = lengthBytes;
            }

            public void onLogReplayed(final long commands, final long bytes, final long durationNs)
            {
            }

            public void onRoleChange(final Cluster.Role newRole)
            {
            }

            public void onSnapshotRequested()
            {
            }

            public void onSnapshotTaken(final long lengthBytes, final long durationNs, final int openOrders)
            {
            }

            public void onStateHashCheckpoint(final int result, final StateHashCheckpoints checkpoint)
            {
                if (result == StateHashCheckpoints.AGREED)
                {
                    checkpointsAgreed++;
                }
                else if (result == StateHashCheckpoints.DIVERGED)
                {
                    checkpointsDiverged++;
                    if (firstDivergence == null)
                    {
                        firstDivergence = String.format("at log position %,d the replay's state hash is %016x " +
                            "(engine %016x), member %d's was %016x (engine %016x)", checkpoint.logPosition(),
                            checkpoint.ownStateHash(), checkpoint.ownEngineStateHash(), checkpoint.memberId(),
                            checkpoint.stateHash(), checkpoint.engineStateHash());
                    }
                }
                else
                {
                    checkpointsUnchecked++;
                }
            }
        });
    }

    /**
     * One whole message of the service's snapshot recording, in recording order. Aeron Cluster's own markers and
     * session records are skipped: the exchange's state is in its chunks.
     */
    public void onSnapshotMessage(final DirectBuffer buffer, final int offset, final int length)
    {
        headerDecoder.wrap(buffer, offset);
        if (headerDecoder.schemaId() != MessageHeaderDecoder.SCHEMA_ID && !collector.isComplete())
        {
            collector.onFragment(buffer, offset, length, null);
        }
    }

    /**
     * Start the service from the snapshot messages given so far, or from empty state when there were none.
     *
     * @param logPosition the snapshot's log position, or 0.
     */
    public void start(final long logPosition)
    {
        if (started)
        {
            throw new IllegalStateException("already started");
        }
        started = true;
        cluster.logPosition = logPosition;
        final ServiceSnapshot.Loaded loaded;
        if (collector.isComplete())
        {
            loaded = serviceSnapshot.decode(collector);
        }
        else if (snapshotBytesSeen())
        {
            throw new ClusterException("service snapshot truncated: its last chunk is missing");
        }
        else
        {
            loaded = null;
        }
        service.start(cluster, loaded, System.nanoTime());
    }

    /**
     * One whole message of the cluster log (Aeron Cluster's header first).
     *
     * @param logPosition the log position after the message, as the service sees it.
     * @return true when the message was applied to the service (an ingress message or a timer).
     */
    public boolean onLogMessage(final DirectBuffer buffer, final int offset, final int length, final long logPosition)
    {
        headerDecoder.wrap(buffer, offset);
        if (headerDecoder.schemaId() != MessageHeaderDecoder.SCHEMA_ID)
        {
            throw new ClusterException("not a cluster log message: schema " + headerDecoder.schemaId());
        }
        cluster.logPosition = logPosition;
        final int templateId = headerDecoder.templateId();
        if (templateId == SessionMessageHeaderDecoder.TEMPLATE_ID)
        {
            sessionHeaderDecoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH,
                headerDecoder.blockLength(), headerDecoder.version());
            cluster.timeNs = sessionHeaderDecoder.timestamp();
            session.id = sessionHeaderDecoder.clusterSessionId();
            // Aeron Cluster numbers the services' own messages below zero, and hands them to the service sessionless:
            // they change no state, and are not counted as applied.
            final boolean serviceMessage = session.id < 0;
            service.onSessionMessage(serviceMessage ? null : session, sessionHeaderDecoder.timestamp(), buffer,
                offset + AeronCluster.SESSION_HEADER_LENGTH, length - AeronCluster.SESSION_HEADER_LENGTH, null);
            return !serviceMessage;
        }
        if (templateId == TimerEventDecoder.TEMPLATE_ID)
        {
            timerEventDecoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH,
                headerDecoder.blockLength(), headerDecoder.version());
            cluster.timeNs = timerEventDecoder.timestamp();
            service.onTimerEvent(timerEventDecoder.correlationId(), timerEventDecoder.timestamp());
            return true;
        }
        if (templateId == ClusterActionRequestDecoder.TEMPLATE_ID)
        {
            actionDecoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH,
                headerDecoder.blockLength(), headerDecoder.version());
            if (isSnapshot(actionDecoder))
            {
                service.noteCheckpointPosition(actionDecoder.logPosition());
            }
        }
        return false;
    }

    /**
     * @return whether a cluster action in the log is the members' taking a snapshot there (not a standby's).
     */
    public static boolean isSnapshot(final ClusterActionRequestDecoder action)
    {
        return action.action() == ClusterAction.SNAPSHOT &&
            (action.flags() == ClusterActionRequestDecoder.flagsNullValue() ||
            action.flags() == io.aeron.cluster.ConsensusModule.CLUSTER_ACTION_FLAGS_DEFAULT);
    }

    /**
     * @return state hash checkpoints in the log replayed whose hashes the replay's agreed with at their position.
     */
    public long checkpointsAgreed()
    {
        return checkpointsAgreed;
    }

    /**
     * @return those whose hashes the replay's did not agree with.
     */
    public long checkpointsDiverged()
    {
        return checkpointsDiverged;
    }

    /**
     * @return those at a position the replay did not stand at (before the snapshot it started from).
     */
    public long checkpointsUnchecked()
    {
        return checkpointsUnchecked;
    }

    /**
     * @return the first divergence, described, or null.
     */
    public String firstDivergence()
    {
        return firstDivergence;
    }

    /**
     * @return the digest of the service's state, comparable with {@link ExchangeService#stateHash()} of a node.
     */
    public long stateHash()
    {
        return service.stateHash();
    }

    /**
     * @return the engine's own state hash.
     */
    public long engineStateHash()
    {
        return service.engine().stateHash();
    }

    public int openOrderCount()
    {
        return service.engine().openOrderCount();
    }

    /**
     * @return the length of the service snapshot payload loaded, 0 when none.
     */
    public long snapshotBytes()
    {
        return snapshotBytes;
    }

    private boolean snapshotBytesSeen()
    {
        return collector.isStarted();
    }

    private static final class OfflineSession implements ClientSession
    {
        private long id;

        public long id()
        {
            return id;
        }

        public int responseStreamId()
        {
            return 0;
        }

        public String responseChannel()
        {
            return "";
        }

        public byte[] encodedPrincipal()
        {
            return new byte[0];
        }

        public void close()
        {
        }

        public boolean isClosing()
        {
            return false;
        }

        public long offer(final DirectBuffer buffer, final int offset, final int length)
        {
            return length;
        }

        public long offer(final DirectBufferVector[] vectors)
        {
            return 1;
        }

        public long tryClaim(final int length, final BufferClaim bufferClaim)
        {
            return 1;
        }
    }

    private static final class OfflineCluster implements Cluster
    {
        private final IdleStrategy idleStrategy = NoOpIdleStrategy.INSTANCE;
        private long logPosition;
        private long timeNs;

        public int memberId()
        {
            return -1;
        }

        public Role role()
        {
            return Role.FOLLOWER;
        }

        public long logPosition()
        {
            return logPosition;
        }

        public Aeron aeron()
        {
            return null;
        }

        public ClusteredServiceContainer.Context context()
        {
            return null;
        }

        public ClientSession getClientSession(final long clusterSessionId)
        {
            return null;
        }

        public Collection<ClientSession> clientSessions()
        {
            return List.of();
        }

        public void forEachClientSession(final Consumer<? super ClientSession> action)
        {
        }

        public boolean closeClientSession(final long clusterSessionId)
        {
            return false;
        }

        public long time()
        {
            return timeNs;
        }

        public TimeUnit timeUnit()
        {
            return TimeUnit.NANOSECONDS;
        }

        public boolean scheduleTimer(final long correlationId, final long deadline)
        {
            // The timer's firing is in the log as a TimerEvent.
            return true;
        }

        public boolean cancelTimer(final long correlationId)
        {
            return true;
        }

        public long offer(final DirectBuffer buffer, final int offset, final int length)
        {
            return length;
        }

        public long offer(final DirectBufferVector[] vectors)
        {
            return 1;
        }

        public long tryClaim(final int length, final BufferClaim bufferClaim)
        {
            return 1;
        }

        public IdleStrategy idleStrategy()
        {
            return idleStrategy;
        }
    }
}
