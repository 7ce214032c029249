package io.bourse.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The store on SQLite, the default: a file in the node's data directory, in WAL mode.
 */
class SqliteStoreTest extends StoreTestBase
{
    Store.Context database(final Store.Context context)
    {
        return context;
    }

    @Test
    void aBatchWithASnapshotIsCommittedSyncedAndTheBatchesAfterItAsBefore() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null);
            BatchCommitter committer = new BatchCommitter(database))
        {
            final HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            writer.logPosition(100);
            committer.commit(writer.seal(100, 1, 100, new byte[]{ 1, 2, 3 }, new byte[]{ 4 }));
            assertEquals(1, StoreChecks.count(database, "PRAGMA synchronous"), "NORMAL again after the synced commit");

            writer.startBatch(new HistoryBatch());
            writer.logPosition(200);
            committer.commit(writer.seal(200, 2, 100, null, null));
            assertEquals(100, StoreChecks.count(database, "SELECT log_position FROM store_snapshot"));
            assertEquals(3, StoreChecks.count(database, "SELECT length(engine) FROM store_snapshot"));
            assertEquals(200, StoreChecks.count(database, "SELECT log_position FROM store_fence"));
            assertEquals(1, StoreChecks.count(database, "PRAGMA synchronous"));
        }
    }
}
