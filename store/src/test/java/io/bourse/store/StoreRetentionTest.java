package io.bourse.store;

import io.aeron.cluster.RecordingLog;
import io.bourse.cluster.LogRetention;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The journal purge and the store: the node never purges log the store still needs (from the store's snapshot on),
 * whatever its own snapshots allow; and without the store's retention floor it does purge, and a store that then
 * needs the purged log refuses to start and says why. Nor does a store start on a database written from a longer
 * journal than the node has, or from another journal that the node's has grown past.
 */
class StoreRetentionTest
{
    private File baseDir;
    private TestNode node;

    @BeforeEach
    void startNode() throws Exception
    {
        baseDir = TestNode.tempDir();
        // A small journal, so that a few hundred KiB of log span several segments and snapshots come often.
        node = new TestNode(baseDir, context -> context
            .logTermLength(64 * 1024)
            .segmentFileLength(256 * 1024)
            .snapshotLogBytes(200 * 1024)
            .retainedSnapshots(1));
    }

    @AfterEach
    void stop()
    {
        node.close();
        IoUtil.delete(baseDir, true);
    }

    @Test
    void purgeKeepsTheLogTheStoreStillNeeds() throws Exception
    {
        final long seed = System.nanoTime();
        // The store opens (saying it needs the log from 0) but does not run while the node trades and snapshots.
        final Store.Context context = node.storeContext().snapshotLogBytes(128 * 1024);
        Store.open(context).close();
        assertEquals(0, LogRetention.floor(node.dataDir));
        try (Workload workload = new Workload(node, seed))
        {
            workload.setUp();
            workload.trade(6_000);
            workload.awaitAllAnswered();
            takeSnapshots();
            TestNode.await("the node held its purge back for the store",
                () -> node.logText.toString().contains("journal kept from log position 0 "));
            assertEquals(0, firstLogSegmentBase(), "no log segment purged");

            try (Store store = Store.open(context).start())
            {
                assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up from the start: " + store.metrics());
                StoreChecks.assertCaughtUpWith(store, node.awaitIdleEngineStateHash(), 60_000, seed);
                // Each snapshot's checkpoint, passed on the way: the store's engine had the node's hash there.
                assertEquals(node.node.snapshotCount(), store.metrics().stateHashesAgreed(), node.logText::toString);
                final long floor = LogRetention.floor(node.dataDir);
                assertTrue(floor > 0, "the store's snapshot moved its floor: " + floor);

                // Now the store keeps up and its floor rises: the node purges, but never past the floor.
                workload.trade(6_000);
                workload.awaitAllAnswered();
                assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
                takeSnapshots();
                TestNode.await(() -> "a purge once the store's floor rose: " + node.logText,
                    () -> firstLogSegmentBase() > 0);
                assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
                assertTrue(firstLogSegmentBase() <= LogRetention.floor(node.dataDir),
                    "purged only before the store's floor");
                TestNode.await(() -> "the store compared its state at the snapshots taken while it followed: " +
                    store.metrics().stateHashesAgreed() + "; " + node.logText, () ->
                    store.metrics().stateHashesAgreed() == node.node.snapshotCount());
                assertEquals(0, store.metrics().stateHashesDiverged(), node.logText::toString);
                try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
                {
                    StoreChecks.assertTrades(database, workload.trades(), workload.tradeChecksum());
                }
            }
            // A restart after the purge restores from the store's snapshot, which is after the purged log.
            workload.trade(500);
            workload.awaitAllAnswered();
            final long nodeHash = node.awaitIdleEngineStateHash();
            try (Store store = Store.open(context).start())
            {
                StoreChecks.assertCaughtUpWith(store, nodeHash, 60_000, seed);
            }
        }
    }

    @Test
    void withoutTheFloorTheNodePurgesAndANewStoreRefusesToStart() throws Exception
    {
        try (Workload workload = new Workload(node, System.nanoTime()))
        {
            workload.setUp();
            workload.trade(8_000);
            workload.awaitAllAnswered();
            takeSnapshots();
            TestNode.await(() -> "a purge: " + node.logText, () -> firstLogSegmentBase() > 0);
        }
        try (Store store = Store.open(node.storeContext()).start())
        {
            TestNode.await(() -> "store failed: " + store.metrics(), () -> store.metrics().state() == StoreState.FAILED);
            assertTrue(store.metrics().failure().contains("was purged"), store.metrics().failure());
        }
    }

    @Test
    void aDatabaseWrittenFromALongerJournalIsRefused() throws Exception
    {
        final File database = new File(baseDir, "history-of-the-first-journal.db");
        final long seed = System.nanoTime();
        writeHistoryThenWipeTheNode(database, seed);
        try (Workload workload = new Workload(node, seed))
        {
            workload.setUp();
        }
        try (Store store = Store.open(node.storeContext().sqliteFile(database)).start())
        {
            TestNode.await(() -> "store failed: " + store.metrics(), () -> store.metrics().state() == StoreState.FAILED);
            assertTrue(store.metrics().failure().contains("before the store's fence") &&
                store.metrics().failure().contains("the database holds rows of log this node does not have"),
                store.metrics().failure());
        }
    }

    @Test
    void aDatabaseWrittenFromAnotherHistoryIsRefusedWhenTheNewJournalHasGrownPastItsFence() throws Exception
    {
        final File database = new File(baseDir, "history-of-the-first-journal.db");
        final long seed = System.nanoTime();
        writeHistoryThenWipeTheNode(database, seed);
        final String fenceAndTrades = fenceAndTrades(database);
        assertTrue(!fenceAndTrades.endsWith(" 0"), () -> "the first history's trades written: " + fenceAndTrades);
        // The new exchange trades past the database's fence before the store starts: its journal is long enough, but
        // not the one the rows were written from.
        try (Workload workload = new Workload(node, seed + 1))
        {
            workload.setUp();
            workload.trade(6_000);
            workload.awaitAllAnswered();
        }
        try (Store store = Store.open(node.storeContext().sqliteFile(database)).start())
        {
            TestNode.await(() -> "store failed: " + store.metrics() + ", seeds " + seed + " and " + (seed + 1),
                () -> store.metrics().state() == StoreState.FAILED);
            assertTrue(store.metrics().failure().contains("is not the one the database was written from"),
                () -> store.metrics().failure() + ", seeds " + seed + " and " + (seed + 1));
        }
        assertEquals(fenceAndTrades, fenceAndTrades(database), "nothing of the second history written");
        try (Store store = Store.open(node.storeContext().sqliteFile(new File(baseDir, "empty.db"))).start())
        {
            assertTrue(store.awaitCaughtUp(60_000), () -> "a store on an empty database follows the new journal: " +
                store.metrics() + ", seeds " + seed + " and " + (seed + 1));
        }
    }

    /**
     * A first history, traded with {@code seed}, written into {@code database} by a store; then the node's data
     * directory is wiped and a new node started on it (a new exchange, or one restored from an older backup), the
     * database kept.
     */
    private void writeHistoryThenWipeTheNode(final File database, final long seed) throws Exception
    {
        // The store's retention floor first, so that the node's snapshots do not purge the log it will read.
        Store.open(node.storeContext().sqliteFile(database)).close();
        try (Workload workload = new Workload(node, seed))
        {
            workload.setUp();
            workload.trade(3_000);
            workload.awaitAllAnswered();
            try (Store store = Store.open(node.storeContext().sqliteFile(database)).start())
            {
                assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics() + ", seed " + seed);
            }
        }
        node.close();
        IoUtil.delete(node.dataDir, true);
        node = new TestNode(baseDir, context -> context);
    }

    /**
     * @return the database's fence (log position, time) and its number of trades, as one string.
     */
    private static String fenceAndTrades(final File database) throws SQLException
    {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + database.getPath());
            Statement statement = connection.createStatement();
            ResultSet fence = statement.executeQuery(
                "SELECT log_position || ' ' || timestamp_ns || ' ' || (SELECT COUNT(*) FROM trades) " +
                "FROM store_fence WHERE id = 1"))
        {
            assertTrue(fence.next(), "a fence row");
            return fence.getString(1);
        }
    }

    /**
     * Two snapshots now: with one retained, the second makes the node purge what the first no longer needs.
     */
    private void takeSnapshots()
    {
        for (int i = 0; i < 2; i++)
        {
            final long snapshots = node.node.snapshotCount();
            TestNode.await("snapshot requested", node.node::requestSnapshot);
            TestNode.await("snapshot taken", () -> node.node.snapshotCount() > snapshots);
        }
    }

    /**
     * @return the base position of the oldest segment file of the log recording.
     */
    private long firstLogSegmentBase()
    {
        final long recordingId;
        try (RecordingLog recordingLog = new RecordingLog(new File(node.dataDir, "cluster"), false))
        {
            recordingId = recordingLog.findLastTermRecordingId();
        }
        long first = Long.MAX_VALUE;
        final File[] files = new File(node.dataDir, "archive").listFiles();
        for (final File file : files == null ? new File[0] : files)
        {
            final String name = file.getName();
            if (name.startsWith(recordingId + "-") && name.endsWith(".rec"))
            {
                first = Math.min(first, Long.parseLong(name.substring(name.indexOf('-') + 1, name.length() - 4)));
            }
        }
        return first;
    }
}
