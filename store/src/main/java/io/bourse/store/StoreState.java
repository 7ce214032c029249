package io.bourse.store;

/**
 * The store's state, as {@link StoreMetrics#state()} reports it.
 */
public enum StoreState
{
    /** Opening the database and waiting for the node's journal (a log recording) to exist. */
    STARTING,
    /** Replaying log already in the database (from its snapshot up to its fence), writing nothing. */
    RESTORING,
    /** Writing the committed log into the database. */
    FOLLOWING,
    /**
     * Following, but standing aside while the machine is saturated, for at most {@code store.defer.max.ms} after it
     * fell behind: see {@link Store.Context#maxDeferralMs}.
     */
    DEFERRING,
    /** The node's log recording stopped (node stopped or restarting): waiting to replay again from the fence. */
    WAITING_FOR_NODE,
    /** Stopped on an error; see {@link StoreMetrics#failure()}. Restarting resumes from the fence. */
    FAILED,
    /** Closed. */
    CLOSED;

    /**
     * @return true when following the log, writing or standing aside for a while.
     */
    public boolean isFollowing()
    {
        return this == FOLLOWING || this == DEFERRING;
    }
}
