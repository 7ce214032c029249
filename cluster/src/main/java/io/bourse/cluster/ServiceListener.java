package io.bourse.cluster;

import io.aeron.cluster.service.Cluster;

/**
 * What the {@link ExchangeService} tells its host about: start-up figures, role changes and snapshots. Called on
 * the service thread; implementations must be quick.
 */
public interface ServiceListener
{
    /**
     * The service loaded its state from a snapshot.
     *
     * @param lengthBytes      size of the service snapshot.
     * @param snapshotTimeNs   cluster time of the last command in the snapshot.
     * @param durationNs       time taken to read and load it.
     * @param openOrders       orders resting after the load.
     */
    void onSnapshotLoaded(long lengthBytes, long snapshotTimeNs, long durationNs, int openOrders);

    /**
     * The log after the snapshot has been replayed and the node has joined the cluster.
     */
    void onLogReplayed(long commands, long bytes, long durationNs);

    void onRoleChange(Cluster.Role role);

    /**
     * A client asked for a snapshot, and this node is the leader: the host should trigger one.
     */
    void onSnapshotRequested();

    void onSnapshotTaken(long lengthBytes, long durationNs, int openOrders);

    /**
     * A state hash checkpoint of another member (or of this one before a restart) came through the log and was
     * compared with this member's hashes at its position.
     *
     * @param result     {@link StateHashCheckpoints#AGREED}, {@link StateHashCheckpoints#DIVERGED} or
     *                   {@link StateHashCheckpoints#UNCHECKED}.
     * @param checkpoint the checkpoint and the hashes it was compared with, readable during the call only.
     */
    void onStateHashCheckpoint(int result, StateHashCheckpoints checkpoint);
}
