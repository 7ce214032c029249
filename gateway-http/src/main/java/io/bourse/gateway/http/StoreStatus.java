package io.bourse.gateway.http;

/**
 * The post-trade store's progress, for {@code /metrics} and the monitor page: how far the database is behind the
 * committed cluster log. Read from any thread. A gateway without a store (its own process) has none, and says so.
 */
public interface StoreStatus
{
    /**
     * @return what the store is doing (e.g. FOLLOWING, RESTORING, FAILED).
     */
    String state();

    /**
     * @return the log position up to which every row is committed to the database.
     */
    long fenceLogPosition();

    /**
     * @return the cluster's commit position as the store last saw it.
     */
    long committedLogPosition();

    /**
     * @return bytes of committed log not yet in the database.
     */
    long lagBytes();

    /**
     * @return seconds the database is behind the cluster's time; 0 when caught up.
     */
    double lagSeconds();

    /**
     * @return snapshots at whose log position the store's engine had the leader's state hash, since it started.
     */
    long stateHashesAgreed();

    /**
     * @return snapshots at which it did not: the history written from there on may not be the exchange's.
     */
    long stateHashesDiverged();
}
