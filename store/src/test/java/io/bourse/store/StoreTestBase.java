package io.bourse.store;

import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's behaviour against one database kind: every test runs on SQLite and on a real PostgreSQL server.
 */
abstract class StoreTestBase
{
    File baseDir;
    TestNode node;

    /**
     * @return the store context for this database kind, given a node's.
     */
    abstract Store.Context database(Store.Context context) throws Exception;

    @BeforeEach
    void startNode() throws Exception
    {
        baseDir = TestNode.tempDir();
        node = new TestNode(baseDir, context -> context);
    }

    @AfterEach
    void stopNode()
    {
        if (node != null)
        {
            node.close();
        }
        IoUtil.delete(baseDir, true);
    }

    @Test
    void writesEveryTradeOrderAndLedgerEntryExactlyOnce() throws Exception
    {
        final long seed = System.nanoTime();
        final Store.Context context = database(node.storeContext().batchRows(500));
        try (Store store = Store.open(context).start(); Workload workload = new Workload(node, seed))
        {
            workload.setUp();
            workload.trade(3_000);
            workload.awaitAllAnswered();
            assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
            final long nodeHash = node.awaitIdleEngineStateHash();
            assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
            assertEquals(nodeHash, store.engineStateHash(), "seed " + seed + ": store engine = node engine");
            assertTrue(workload.trades() > 100, "seed " + seed + ": the workload trades: " + workload.trades());
            assertEquals(0, store.metrics().lagBytes());
            assertEquals(0.0, store.metrics().lagSeconds());
            assertEquals(StoreState.FOLLOWING, store.metrics().state());
            assertEquals(workload.trades(), store.metrics().tradesWritten());

            try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
            {
                StoreChecks.assertTrades(database, workload.trades(), workload.tradeChecksum());
                StoreChecks.assertLedger(database, store.engine(), Workload.ACCOUNTS, Workload.BTC, Workload.USD);
                assertEquals(2 * workload.trades(), StoreChecks.count(database, "SELECT COUNT(*) FROM fills"),
                    "a fill per side of each trade");
                assertEquals(StoreChecks.count(database, "SELECT COUNT(*) FROM orders"),
                    StoreChecks.count(database, "SELECT COUNT(*) FROM order_events WHERE kind = 'ACCEPTED'"));
                assertEquals(0, StoreChecks.count(database, "SELECT COUNT(*) FROM orders o LEFT JOIN " +
                    "(SELECT order_id, SUM(quantity) AS filled FROM fills GROUP BY order_id) f " +
                    "ON f.order_id = o.order_id WHERE o.filled_quantity <> COALESCE(f.filled, 0)"),
                    "seed " + seed + ": every order's filled quantity is the sum of its fills, whichever batch the " +
                    "fills came in (orders are updated in place, set-based on PostgreSQL)");
                assertEquals(store.engine().openOrderCount(), StoreChecks.count(database,
                    "SELECT COUNT(*) FROM orders WHERE status IN ('NEW', 'PARTIALLY_FILLED')"), "open orders");
                assertEquals(0, StoreChecks.count(database, "SELECT COUNT(*) FROM orders " +
                    "WHERE status IN ('NEW', 'PARTIALLY_FILLED') AND remaining_quantity <> quantity - filled_quantity"),
                    "open orders whose remaining quantity is not quantity - filled");
                assertEquals(0, StoreChecks.count(database, "SELECT COUNT(*) FROM orders " +
                    "WHERE status = 'FILLED' AND remaining_quantity <> 0"), "filled orders with a remaining quantity");
                assertTrue(StoreChecks.count(database,
                    "SELECT COUNT(*) FROM orders WHERE status IN ('PARTIALLY_FILLED', 'FILLED')") > 0,
                    "orders updated by fills");
                assertTrue(StoreChecks.count(database, "SELECT COUNT(*) FROM orders WHERE status = 'EXPIRED'") > 0,
                    "seed " + seed + ": GTD orders expired on the cluster timer");
                assertTrue(StoreChecks.count(database, "SELECT COUNT(*) FROM order_events WHERE kind = 'REPLACED'") > 0,
                    "seed " + seed + ": replaces applied");
                assertTrue(StoreChecks.count(database, "SELECT COUNT(*) FROM transfers WHERE NOT applied") > 0,
                    "repeated deposits are recorded as not applied");
                assertEquals(store.metrics().fenceLogPosition(),
                    StoreChecks.count(database, "SELECT log_position FROM store_fence"));
            }

            try (HistoryQueries queries = HistoryQueries.open(context.jdbcUrl(), context.sqliteFile(), null, null);
                StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
            {
                final long expected = StoreChecks.count(database,
                    "SELECT COUNT(*) FROM trades WHERE maker_account_id = 1") +
                    StoreChecks.count(database, "SELECT COUNT(*) FROM trades WHERE taker_account_id = 1");
                final Set<String> seen = new HashSet<>();
                long cursor = 0;
                long previousId = Long.MAX_VALUE;
                do
                {
                    final HistoryQueries.Page<HistoryQueries.Trade> page = queries.trades(1, 0, Long.MAX_VALUE, cursor, 7);
                    for (final HistoryQueries.Trade trade : page.rows())
                    {
                        assertTrue(trade.tradeId() <= previousId, "newest first");
                        previousId = trade.tradeId();
                        assertTrue(seen.add(trade.tradeId() + trade.liquidity()), "no row twice across pages");
                    }
                    cursor = page.nextCursor();
                }
                while (cursor != 0);
                assertEquals(expected, seen.size(), "all of account 1's trades, page by page");

                final HistoryQueries.Page<HistoryQueries.Order> orders = queries.orders(1, 0, Long.MAX_VALUE, 0, 1000);
                assertEquals(StoreChecks.count(database, "SELECT COUNT(*) FROM orders WHERE account_id = 1"),
                    orders.rows().size());
                final long middle = orders.rows().get(orders.rows().size() / 2).createdNs();
                assertTrue(queries.orders(1, middle, Long.MAX_VALUE, 0, 1000).rows().stream()
                    .allMatch(order -> order.createdNs() >= middle), "time filter");
                assertThrows(IllegalArgumentException.class, () -> queries.trades(1, 0, Long.MAX_VALUE, 0, 0));
                assertThrows(IllegalArgumentException.class, () -> queries.orders(1, 10, 5, 0, 10));
            }
        }
    }

    @Test
    void resumesAfterItsFenceFromItsOwnSnapshot() throws Exception
    {
        final long seed = System.nanoTime();
        // Small snapshot interval: restarts restore from a store snapshot and replay to the fence without writing.
        final Store.Context context = database(node.storeContext().batchRows(200).snapshotLogBytes(32 * 1024));
        try (Workload workload = new Workload(node, seed))
        {
            workload.setUp();
            for (int round = 0; round < 4; round++)
            {
                try (Store store = Store.open(context).start())
                {
                    workload.trade(1_000);
                    // Stopped while behind at times, caught up at others.
                    if (round % 2 == 0)
                    {
                        assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
                    }
                }
            }
            workload.trade(500);
            workload.awaitAllAnswered();
            final long nodeHash = node.awaitIdleEngineStateHash();
            try (Store store = Store.open(context).start())
            {
                assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
                assertEquals(nodeHash, store.engineStateHash(), "seed " + seed);
                try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
                {
                    assertNotEquals(0, database.fence().snapshotLogPosition(), "a store snapshot was taken");
                    StoreChecks.assertTrades(database, workload.trades(), workload.tradeChecksum());
                    StoreChecks.assertLedger(database, store.engine(), Workload.ACCOUNTS, Workload.BTC, Workload.USD);
                }
            }
        }
    }

    @Test
    void migrationsApplyOnceAndRefuseUnknownDatabases() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        try (StoreDatabase first = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            assertEquals(StoreDatabase.MIGRATIONS.size(), first.schemaVersion());
        }
        try (StoreDatabase again = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            assertEquals(StoreDatabase.MIGRATIONS.size(), again.schemaVersion());
            assertEquals(new StoreDatabase.Fence(0, 0, 0), again.fence());
        }
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> StoreDatabase.open("jdbc:mysql://localhost/x", null, null, null));
        assertTrue(refused.getMessage().contains("unsupported database"), refused.getMessage());
    }
}
