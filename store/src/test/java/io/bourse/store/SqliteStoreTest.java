package io.bourse.store;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void aBatchThatFindsTheDiskFullIsRolledBackAndSaysSo() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null);
            BatchCommitter committer = new BatchCommitter(database);
            Statement statement = database.connection().createStatement())
        {
            // SQLite's own limit on the file's pages stands in for a full disk: it fails a write with SQLITE_FULL.
            statement.execute("PRAGMA max_page_count = " + StoreChecks.count(database, "PRAGMA page_count"));
            final HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            writer.logPosition(100);
            final SQLException full = assertThrows(SQLException.class,
                () -> committer.commit(writer.seal(100, 1, 100, new byte[1 << 20], new byte[]{ 4 })));
            assertTrue(full.getMessage().contains("database or disk is full"), full.getMessage());
        }

        // The store starts again on a new connection (Store restarts after a failure), once there is room.
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null);
            BatchCommitter committer = new BatchCommitter(database))
        {
            assertEquals(0, StoreChecks.count(database, "SELECT log_position FROM store_fence"), "fence unchanged");
            assertEquals(0, StoreChecks.count(database, "SELECT COUNT(*) FROM store_snapshot"));
            final HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            writer.logPosition(100);
            committer.commit(writer.seal(100, 1, 100, new byte[1 << 20], new byte[]{ 4 }));
            assertEquals(100, StoreChecks.count(database, "SELECT log_position FROM store_fence"));
        }
    }
}
