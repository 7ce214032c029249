/**
 * The post-trade store: history in SQLite (default) or PostgreSQL, written from the committed cluster log exactly
 * once, off the matching path.
 * <p>
 * <b>How.</b> {@link io.bourse.store.Store} replays the member's log recording from its archive (following it live,
 * never past the cluster's commit position) and applies each message to its own copy of the deterministic engine,
 * exactly as the clustered service does (same request de-duplication, cluster timestamps and expiry timer), so it
 * sees the same events; at each snapshot of the cluster its engine's state hash is compared with the one the leader
 * sent through the log for that position ({@link io.bourse.cluster.StateHashCheckpoints}), and a disagreement is
 * logged and counted ({@link io.bourse.store.StoreMetrics#stateHashesDiverged()}). The events become rows, gathered in
 * batches; a commit thread writes one batch while the store's thread fills the next. A change that belongs to another
 * row is written into it (a trade's row carries its settlements, an order's row its acceptance and reservation), and
 * the {@code ledger} and {@code order_events} views show them with the others: rows are what writing costs.
 * <p>
 * <b>Exactly once.</b> Rows for a batch of messages and the log position after the batch (the fence) are committed in
 * one transaction. A message is written only if it lies after the fence. On a restart the engine is restored from the
 * store's own snapshot (taken at a fence and saved in the same transaction as that fence), the log between the
 * snapshot and the fence is replayed without writing, and writing resumes after the fence. Trade ids are primary keys,
 * so a violation could not pass silently.
 * <p>
 * <b>Retention.</b> The store needs the log from its snapshot on. It says so in
 * {@link io.bourse.cluster.LogRetention} (a file in the node's data directory, written when the database is opened and
 * after each new store snapshot is committed); the node's journal purge never removes log at or after that position.
 * A store on an empty database of a node whose journal was already purged refuses to start and says why; so does one
 * whose fence lies beyond the end of the node's journal (a database written from another journal: the node's data
 * directory wiped or restored from an older backup while the database was kept). A journal of another history that
 * has already grown past the fence is refused when the replay reaches the fence: the last message up to it must be the
 * one the store had applied when it wrote the fence (their cluster timestamps are compared), unless the journal has no
 * session message or timer event between the store's snapshot and its fence (a snapshot at the fence: a store
 * stopped, or idle, since it wrote one).
 * <p>
 * <b>Failures.</b> A store that fails (its database unreachable, a disk full, the node's media driver gone) closes
 * everything and, after a wait that doubles with each failure in a row, opens the database again and resumes from its
 * fence, as after a crash ({@link io.bourse.store.Store.Context#restartDelayMs}).
 * <p>
 * <b>Off the matching path.</b> The store's threads run at nice 19, and while the machine is saturated it stands
 * aside altogether (state {@code DEFERRING}) for at most {@code store.defer.max.ms} after it fell behind, then follows
 * regardless until caught up: history lags a peak instead of slowing it ({@link io.bourse.store.Store.Context#maxDeferralMs}).
 * <p>
 * <b>Candles.</b> Each instrument's trades are also summed by the hour ({@code candles_1h}): a row is written once
 * its hour has closed by the log's time, with the batch whose fence passes the hour's end, so a row is never
 * rewritten; a restarted store sums its open hour again from the trades no row holds yet.
 * <p>
 * <b>Reading.</b> {@link io.bourse.store.StoreMetrics} (fence, committed position, lag in bytes and seconds) for
 * metrics and monitor pages; {@link io.bourse.store.HistoryQueries} for an account's trades and orders, paged and
 * filtered by time, and an instrument's hours, for the HTTP API.
 */
package io.bourse.store;
