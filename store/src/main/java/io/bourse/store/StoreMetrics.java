package io.bourse.store;

/**
 * What the post-trade store reports about its progress, readable from any thread (for a metrics endpoint, a monitor
 * page or the command line). Positions are cluster log positions in bytes.
 */
public interface StoreMetrics
{
    /**
     * @return the fence: the log position up to which every row is committed to the database.
     */
    long fenceLogPosition();

    /**
     * @return the cluster's commit position as last seen: how far the log the store may read goes.
     */
    long committedLogPosition();

    /**
     * @return bytes of committed log not yet written to the database: {@code committed - fence}, never negative.
     */
    long lagBytes();

    /**
     * @return how far behind the database is in time: 0 when {@link #lagBytes()} is 0, otherwise the wall-clock time
     * since the cluster time of the last message written, or since the store found itself behind after being caught
     * up if that is later.
     */
    double lagSeconds();

    /**
     * @return trades written since the store started.
     */
    long tradesWritten();

    /**
     * @return rows written since the store started (all tables, orders counted once per batch).
     */
    long rowsWritten();

    /**
     * @return transactions committed since the store started.
     */
    long batchesCommitted();

    /**
     * @return the cluster's snapshots at whose log position the store's engine had the leader's hash, since the store
     * started ({@link io.bourse.cluster.StateHashCheckpoints}).
     */
    long stateHashesAgreed();

    /**
     * @return those at which it did not: from there on the history written may not be the exchange's.
     */
    long stateHashesDiverged();

    /**
     * @return what the store is doing: see {@link StoreState}.
     */
    StoreState state();

    /**
     * @return why the store stopped, when {@link #state()} is {@link StoreState#FAILED}, else null.
     */
    String failure();

    /**
     * @return a one-line summary for logs and the command line.
     */
    default String summary()
    {
        return String.format("store %s: fence %,d, committed %,d, lag %,d bytes (%.3f s), %,d trades and %,d rows " +
            "in %,d batches", state(), fenceLogPosition(), committedLogPosition(), lagBytes(), lagSeconds(),
            tradesWritten(), rowsWritten(), batchesCommitted());
    }
}
