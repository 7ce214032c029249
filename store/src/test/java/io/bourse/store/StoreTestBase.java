package io.bourse.store;

import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
            StoreChecks.assertCaughtUpWith(store, node.awaitIdleEngineStateHash(), 60_000, seed);
            assertTrue(workload.trades() > 100, "seed " + seed + ": the workload trades: " + workload.trades());
            assertEquals(0, store.metrics().lagBytes());
            assertEquals(0.0, store.metrics().lagSeconds());
            assertEquals(StoreState.FOLLOWING, store.metrics().state());
            assertEquals(workload.trades(), store.metrics().tradesWritten());

            try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
            {
                StoreChecks.assertTrades(database, workload.trades(), workload.tradeChecksum());
                StoreChecks.assertLedger(database, store.engine(), Workload.ACCOUNTS, Workload.BTC, Workload.USD);
                assertEquals(0, StoreChecks.count(database, "SELECT COUNT(*) - COUNT(DISTINCT entry_id) FROM ledger"),
                    "one id per ledger entry, whichever row holds it");
                assertEquals(0, StoreChecks.count(database,
                    "SELECT COUNT(*) - COUNT(DISTINCT event_id) FROM order_events"), "one id per order event");
                assertEquals(4 * workload.trades(),
                    StoreChecks.count(database, "SELECT COUNT(*) FROM ledger WHERE reason = 'TRADE'"),
                    "four settlements per trade");
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
                final Set<Long> seen = new HashSet<>();
                HistoryQueries.Cursor cursor = null;
                HistoryQueries.Trade previous = null;
                do
                {
                    final HistoryQueries.Page<HistoryQueries.Trade> page = queries.trades(1, 0, Long.MAX_VALUE, cursor, 7);
                    for (final HistoryQueries.Trade trade : page.rows())
                    {
                        assertTrue(previous == null || trade.timestampNs() < previous.timestampNs() ||
                            trade.timestampNs() == previous.timestampNs() && trade.tradeId() < previous.tradeId(),
                            "newest first, by time then id");
                        previous = trade;
                        assertTrue(seen.add(trade.tradeId()), "no row twice across pages");
                    }
                    cursor = page.nextCursor();
                }
                while (cursor != null);
                assertEquals(expected, seen.size(), "all of account 1's trades, page by page");

                final long middleNs = previous.timestampNs() +
                    (queries.trades(1, 0, Long.MAX_VALUE, null, 1).rows().getFirst().timestampNs() -
                        previous.timestampNs()) / 2;
                final long inWindow = StoreChecks.count(database, "SELECT COUNT(*) FROM trades WHERE " +
                    "(maker_account_id = 1 OR taker_account_id = 1) AND timestamp_ns < " + middleNs);
                long paged = 0;
                cursor = null;
                do
                {
                    final HistoryQueries.Page<HistoryQueries.Trade> page = queries.trades(1, 0, middleNs, cursor, 5);
                    for (final HistoryQueries.Trade trade : page.rows())
                    {
                        assertTrue(trade.timestampNs() < middleNs, "before the window's end");
                        paged++;
                    }
                    cursor = page.nextCursor();
                }
                while (cursor != null);
                assertEquals(inWindow, paged, "the older half of account 1's trades, page by page");

                // All accounts' trades, by id from a time, in parts (the HTTP gateway's day of trades).
                final long lastTradeId = StoreChecks.count(database, "SELECT MAX(trade_id) FROM trades");
                assertEquals(lastTradeId, queries.lastTradeId());
                assertEquals(StoreChecks.count(database, "SELECT COUNT(*) FROM trades"), lastTradeId,
                    "trade ids are 1, 2, 3 and so on");
                assertEquals(StoreChecks.count(database, "SELECT MIN(trade_id) FROM trades WHERE timestamp_ns >= " +
                    middleNs), queries.firstTradeIdSince(middleNs));
                assertEquals(1, queries.firstTradeIdSince(0));
                assertEquals(lastTradeId + 1, queries.firstTradeIdSince(Long.MAX_VALUE), "none that late");
                final long from = queries.firstTradeIdSince(middleNs);
                final List<Long> ids = new ArrayList<>();
                final long[] quantity = { 0 };
                long next = from;
                int parts = 0;
                while (queries.trades(next, lastTradeId, 7, (tradeId, instrumentId, price, q, timestampNs) ->
                {
                    ids.add(tradeId);
                    quantity[0] += q;
                }) > 0)
                {
                    next = ids.getLast() + 1;
                    parts++;
                }
                assertEquals(LongStream.range(from, lastTradeId).boxed().toList(), ids, "in order, below the bound");
                assertTrue(parts >= (lastTradeId - from) / 7, parts + " parts");
                assertEquals(StoreChecks.count(database, "SELECT SUM(quantity) FROM trades WHERE trade_id >= " + from +
                    " AND trade_id < " + lastTradeId), quantity[0]);

                final HistoryQueries.Page<HistoryQueries.Order> orders =
                    queries.orders(1, 0, Long.MAX_VALUE, null, 1000);
                assertEquals(StoreChecks.count(database, "SELECT COUNT(*) FROM orders WHERE account_id = 1"),
                    orders.rows().size());
                // The account the exchange canceled most orders of (owners' cancels and self-trade prevention).
                final long canceler = StoreChecks.count(database, "SELECT account_id FROM order_changes " +
                    "WHERE kind = 'CANCELED' GROUP BY account_id ORDER BY COUNT(*) DESC, account_id LIMIT 1");
                final long canceled = StoreChecks.count(database,
                    "SELECT COUNT(*) FROM order_changes WHERE account_id = " + canceler + " AND kind = 'CANCELED'");
                final List<HistoryQueries.Order> cancelersOrders =
                    queries.orders(canceler, 0, Long.MAX_VALUE, null, HistoryQueries.MAX_PAGE_SIZE).rows();
                assertTrue(canceled > 0 && cancelersOrders.size() < HistoryQueries.MAX_PAGE_SIZE,
                    canceled + " canceled of " + cancelersOrders.size() + " orders");
                assertEquals(canceled, cancelersOrders.stream().filter(order -> order.cancelReason() != null).count(),
                    "a reason for each canceled order");
                final Set<String> ended = cancelersOrders.stream()
                    .filter(order -> order.cancelReason() != null || "CANCELED".equals(order.status()))
                    .map(order -> order.status() + " " + order.cancelReason()).collect(Collectors.toSet());
                assertTrue(Set.of("CANCELED CLIENT_REQUEST", "CANCELED SELF_TRADE_PREVENTION").containsAll(ended),
                    "the flow's cancels are its owners' and self-trade prevention's; orders not canceled have no " +
                    "reason: " + ended);
                final long middle = orders.rows().get(orders.rows().size() / 2).createdNs();
                assertTrue(queries.orders(1, middle, Long.MAX_VALUE, null, 1000).rows().stream()
                    .allMatch(order -> order.createdNs() >= middle), "time filter");
                final HistoryQueries.Order one = orders.rows().get(orders.rows().size() / 2);
                assertEquals(one, queries.order(1, one.orderId()), "one order by its id");
                assertNull(queries.order(2, one.orderId()), "only the account's own");
                assertNull(queries.order(1, Long.MAX_VALUE), "no such order");

                // Transfers: every applied one of the account, page by page; a repeated transaction id is not one.
                final long repeats = StoreChecks.count(database, "SELECT COUNT(*) FROM transfers WHERE NOT applied");
                final long transferAccount = StoreChecks.count(database, "SELECT account_id FROM transfers " +
                    "GROUP BY account_id ORDER BY SUM(CASE WHEN applied THEN 0 ELSE 1 END) DESC, account_id LIMIT 1");
                final List<HistoryQueries.Transfer> transfers = new ArrayList<>();
                cursor = null;
                do
                {
                    final HistoryQueries.Page<HistoryQueries.Transfer> page =
                        queries.transfers(transferAccount, 0, Long.MAX_VALUE, cursor, 3);
                    transfers.addAll(page.rows());
                    cursor = page.nextCursor();
                }
                while (cursor != null);
                assertTrue(repeats > 0, "the flow repeats transaction ids");
                assertEquals(StoreChecks.count(database, "SELECT COUNT(*) FROM transfers WHERE applied AND " +
                    "account_id = " + transferAccount), transfers.size(), "the account's applied transfers");
                assertEquals(transfers.size(), transfers.stream().map(HistoryQueries.Transfer::transferId).distinct()
                    .count(), "none twice across pages");
                assertEquals(StoreChecks.count(database, "SELECT SUM(amount) FROM transfers WHERE applied AND " +
                    "direction = 'DEPOSIT' AND account_id = " + transferAccount), transfers.stream()
                    .filter(t -> t.direction().equals("DEPOSIT")).mapToLong(HistoryQueries.Transfer::amount).sum());
                final long withdrawer = StoreChecks.count(database, "SELECT account_id FROM transfers " +
                    "WHERE applied AND direction = 'WITHDRAWAL' ORDER BY transfer_id LIMIT 1");
                assertTrue(queries.transfers(withdrawer, 0, Long.MAX_VALUE, null, HistoryQueries.MAX_PAGE_SIZE).rows()
                    .stream().anyMatch(t -> t.direction().equals("WITHDRAWAL")), "withdrawals too");
                for (int i = 1; i < transfers.size(); i++)
                {
                    assertTrue(transfers.get(i).timestampNs() < transfers.get(i - 1).timestampNs() ||
                        transfers.get(i).timestampNs() == transfers.get(i - 1).timestampNs() &&
                        transfers.get(i).transferId() < transfers.get(i - 1).transferId(), "newest first");
                }
                final long firstNs = transfers.getLast().timestampNs();
                final List<HistoryQueries.Transfer> window =
                    queries.transfers(transferAccount, firstNs, firstNs + 1, null, 10).rows();
                assertTrue(window.contains(transfers.getLast()) && window.stream()
                    .allMatch(t -> t.timestampNs() == firstNs), "a time window: " + window);
                assertEquals(List.of(), queries.transfers(Workload.ACCOUNTS + 1000, 0, Long.MAX_VALUE, null, 10).rows());
                assertThrows(IllegalArgumentException.class, () -> queries.trades(1, 0, Long.MAX_VALUE, null, 0));
                assertThrows(IllegalArgumentException.class, () -> queries.orders(1, 10, 5, null, 10));
                assertThrows(IllegalArgumentException.class,
                    () -> queries.orders(1, 0, 10, new HistoryQueries.Cursor(5, 0), 10));
            }
        }
    }

    @Test
    void aSecondStoreOnTheSameDatabaseIsRefused() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        try (Store store = Store.open(context))
        {
            final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Store.open(context));
            assertTrue(refused.getMessage().contains("another post-trade store is writing"), refused.getMessage());
            assertEquals(0, store.metrics().batchesCommitted());
        }
        // Once the first has closed, another may write.
        Store.open(context).close();
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
                StoreChecks.assertCaughtUpWith(store, nodeHash, 60_000, seed);
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
    @Test
    void aDatabaseWrittenBeforeSettlementsMovedIntoTheirRowsReadsTheSameAndContinues() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        // History as version 2 wrote it: every settlement, reservation and acceptance a row of its own.
        try (StoreDatabase old = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null, 2);
            Statement statement = old.connection().createStatement())
        {
            assertEquals(2, old.schemaVersion());
            statement.execute("INSERT INTO transfers VALUES (1, 1, 1, 2, 1000000, 'DEPOSIT', TRUE, 1, 100)");
            statement.execute("INSERT INTO ledger VALUES " +
                "(1, 1, 2, 'DEPOSIT', 1000000, 0, 1000000, 0, 1, 100), (2, 2, 1, 'DEPOSIT', 500, 0, 500, 0, 2, 110), " +
                "(3, 2, 1, 'RESERVE', -100, 100, 400, 100, 3, 120), (4, 1, 2, 'RESERVE', -10000, 10000, 990000, 10000, 4, 130), " +
                "(5, 2, 1, 'TRADE', 0, -100, 400, 0, 4, 130), (6, 2, 2, 'TRADE', 10000, 0, 10000, 0, 4, 130), " +
                "(7, 1, 1, 'TRADE', 100, 0, 100, 0, 4, 130), (8, 1, 2, 'TRADE', 0, -10000, 990000, 0, 4, 130)");
            statement.execute("INSERT INTO order_events VALUES " +
                "(1, 1, 2, 'ACCEPTED', 11, 100, 100, 0, NULL, 3, 120), (2, 2, 1, 'ACCEPTED', 21, 100, 100, 0, NULL, 4, 130)");
            statement.execute("INSERT INTO orders VALUES " +
                "(1, 2, 11, 1, 'SELL', 'LIMIT', 'GTC', 100, 100, 100, 0, 10000, 'FILLED', 3, 4, 130), " +
                "(2, 1, 21, 1, 'BUY', 'LIMIT', 'GTC', 100, 100, 100, 0, 10000, 'FILLED', 4, 4, 130)");
            statement.execute("INSERT INTO trades VALUES (1, 1, 100, 100, 'BUY', 1, 2, 0, 2, 1, 0, 4, 130)");
            statement.execute("INSERT INTO balances VALUES (1, 1, 100, 0, 4), (1, 2, 990000, 0, 4), " +
                "(2, 1, 400, 0, 4), (2, 2, 10000, 0, 4)");
            statement.execute("UPDATE store_fence SET log_position = 130, timestamp_ns = 4");
            old.connection().commit();
        }

        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            assertEquals(StoreDatabase.MIGRATIONS.size(), database.schemaVersion());
            assertEquals(8, StoreChecks.count(database, "SELECT COUNT(*) FROM ledger"), "the old entries, once each");
            assertEquals(2, StoreChecks.count(database, "SELECT COUNT(*) FROM order_events"));

            // Then history written by this version: an order resting, one taking it, their reservations and the trade.
            final HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            try (BatchCommitter committer = new BatchCommitter(database))
            {
                writer.writing(true);
                writer.logPosition(140);
                writer.onOrderAccepted(3, 31, 1, 1, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, 100, 50, 0, false,
                    SelfTradePrevention.CANCEL_RESTING, 0, 0, 5);
                writer.onBalanceChanged(1, 2, 985000, 5000, BalanceChangeReason.RESERVE, 5);
                writer.logPosition(150);
                writer.onOrderAccepted(4, 41, 2, 1, Side.SELL, OrderType.LIMIT, TimeInForce.IOC, 100, 50, 0, false,
                    SelfTradePrevention.CANCEL_RESTING, 0, 0, 6);
                writer.onBalanceChanged(2, 1, 350, 50, BalanceChangeReason.RESERVE, 6);
                writer.onTrade(2, 1, 100, 50, Side.SELL, 3, 31, 1, 50, 0, 5000, 0, 4, 41, 2, 50, 0, 5000, 0, 6);
                writer.onBalanceChanged(1, 1, 150, 0, BalanceChangeReason.TRADE, 6);
                writer.onBalanceChanged(1, 2, 985000, 0, BalanceChangeReason.TRADE, 6);
                writer.onBalanceChanged(2, 1, 350, 0, BalanceChangeReason.TRADE, 6);
                writer.onBalanceChanged(2, 2, 15000, 0, BalanceChangeReason.TRADE, 6);
                committer.commit(writer.seal(150, 6, 0, null, null));
                assertEquals(7, committer.rowsWritten(), "two orders, a trade and four balances: the acceptances, " +
                    "reservations and settlements are in those rows");
            }

            assertEquals(14, StoreChecks.count(database, "SELECT COUNT(DISTINCT entry_id) FROM ledger"),
                "entry ids continue after the old ones, none twice");
            assertEquals(14, StoreChecks.count(database, "SELECT MAX(entry_id) FROM ledger"));
            assertEquals(4, StoreChecks.count(database, "SELECT COUNT(DISTINCT event_id) FROM order_events " +
                "WHERE kind = 'ACCEPTED'"));
            assertEquals(9, StoreChecks.count(database,
                "SELECT entry_id FROM ledger WHERE reason = 'RESERVE' AND log_position = 140"));
            assertEquals(-5000, StoreChecks.count(database,
                "SELECT available_delta FROM ledger WHERE reason = 'RESERVE' AND log_position = 140"));
            assertEquals(5000, StoreChecks.count(database,
                "SELECT available_delta FROM ledger WHERE entry_id = 14 AND account_id = 2 AND asset_id = 2 " +
                "AND reason = 'TRADE'"), "the taker's quote settlement");
            assertEquals(-50, StoreChecks.count(database,
                "SELECT reserved_delta FROM ledger WHERE entry_id = 13 AND account_id = 2 AND asset_id = 1"));
            for (final long[] balance : new long[][]{ { 1, 1, 150, 0 }, { 1, 2, 985000, 0 }, { 2, 1, 350, 0 },
                { 2, 2, 15000, 0 } })
            {
                final String of = " FROM ledger WHERE account_id = " + balance[0] + " AND asset_id = " + balance[1];
                assertEquals(balance[2], StoreChecks.count(database, "SELECT SUM(available_delta)" + of), of);
                assertEquals(balance[3], StoreChecks.count(database, "SELECT SUM(reserved_delta)" + of), of);
                assertEquals(balance[2], StoreChecks.count(database, "SELECT available FROM balances WHERE " +
                    "account_id = " + balance[0] + " AND asset_id = " + balance[1]));
            }
            assertEquals(2, StoreChecks.count(database, "SELECT COUNT(*) FROM orders WHERE status = 'FILLED' " +
                "AND accepted_event_id IS NOT NULL"));
            assertEquals(5, StoreChecks.count(database, "SELECT next_order_event_id FROM store_fence"));
            assertEquals(15, StoreChecks.count(database, "SELECT next_ledger_entry_id FROM store_fence"));
            assertEquals(2, StoreChecks.count(database, "SELECT next_transfer_id FROM store_fence"));
        }
        try (HistoryQueries queries = HistoryQueries.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            final HistoryQueries.Order old = queries.order(2, 1);
            assertNull(old.postOnly(), "terms an old version did not keep are unknown, not false: " + old);
            assertNull(old.selfTradePrevention(), old.toString());
            assertEquals(0, old.quoteAmount(), old.toString());
            assertEquals(0, old.expiryNs(), old.toString());
            final HistoryQueries.Order written = queries.order(1, 3);
            assertEquals(Boolean.FALSE, written.postOnly(), written.toString());
            assertEquals("CANCEL_RESTING", written.selfTradePrevention(), written.toString());
        }
    }

    @Test
    void anOrderIsReadWithTheTermsItWasAcceptedWith() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            final HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            try (BatchCommitter committer = new BatchCommitter(database))
            {
                writer.writing(true);
                writer.logPosition(10);
                writer.onOrderAccepted(1, 11, 1, 1, Side.BUY, OrderType.LIMIT, TimeInForce.GTD, 100, 50, 0, true,
                    SelfTradePrevention.DECREMENT, 9_000_000_000L, 0, 5);
                writer.onBalanceChanged(1, 2, 995000, 5000, BalanceChangeReason.RESERVE, 5);
                writer.logPosition(20);
                writer.onOrderAccepted(2, 21, 1, 1, Side.BUY, OrderType.MARKET, TimeInForce.IOC, 0, 0, 2500, false,
                    SelfTradePrevention.CANCEL_BOTH, 0, 0, 6);
                committer.commit(writer.seal(20, 6, 0, null, null));
            }
        }
        try (HistoryQueries queries = HistoryQueries.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            final HistoryQueries.Order resting = queries.order(1, 1);
            assertEquals(Boolean.TRUE, resting.postOnly(), resting.toString());
            assertEquals("DECREMENT", resting.selfTradePrevention(), resting.toString());
            assertEquals(9_000_000_000L, resting.expiryNs(), resting.toString());
            assertEquals(0, resting.quoteAmount(), resting.toString());
            final HistoryQueries.Order byQuote = queries.order(1, 2);
            assertEquals(Boolean.FALSE, byQuote.postOnly(), byQuote.toString());
            assertEquals("CANCEL_BOTH", byQuote.selfTradePrevention(), byQuote.toString());
            assertEquals(2500, byQuote.quoteAmount(), byQuote.toString());
            assertEquals(0, byQuote.expiryNs(), "no expiry: " + byQuote);
            assertEquals(List.of(byQuote, resting), queries.orders(1, 0, Long.MAX_VALUE, null, 10).rows(),
                "a page reads the same terms");
        }
    }

    @Test
    void aStopOrderKeepsItsStopPriceAndWhenItTriggered() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null);
            BatchCommitter committer = new BatchCommitter(database);
            HistoryQueries queries = HistoryQueries.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            final HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            writer.logPosition(10);
            writer.onOrderAccepted(1, 11, 1, 1, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, 110, 50, 0, false,
                SelfTradePrevention.CANCEL_RESTING, 0, 105, 5);
            writer.onBalanceChanged(1, 2, 994500, 5500, BalanceChangeReason.RESERVE, 5);
            // Order 2 is accepted, triggers and ends in one batch: its row is written once, triggered.
            writer.logPosition(20);
            writer.onOrderAccepted(2, 21, 1, 1, Side.SELL, OrderType.MARKET, TimeInForce.GTC, 0, 10, 0, false,
                SelfTradePrevention.CANCEL_RESTING, 0, 90, 6);
            writer.onBalanceChanged(1, 1, 990, 10, BalanceChangeReason.RESERVE, 6);
            writer.logPosition(30);
            writer.onOrderTriggered(2, 21, 1, 1, Side.SELL, OrderType.MARKET, 0, 10, 90, 89, 7);
            writer.onBalanceChanged(1, 1, 1000, 0, BalanceChangeReason.RELEASE, 7);
            writer.onOrderCanceled(2, 21, 1, 1, Side.SELL, 0, 10, 0, 0, CancelReason.NO_LIQUIDITY, 7);
            committer.commit(writer.seal(30, 7, 0, null, null));

            final HistoryQueries.Order waiting = queries.order(1, 1);
            assertEquals(105, waiting.stopPrice(), waiting.toString());
            assertEquals(0, waiting.triggeredNs(), "still waiting: " + waiting);
            assertEquals("NEW", waiting.status());
            final HistoryQueries.Order ended = queries.order(1, 2);
            assertEquals(90, ended.stopPrice(), ended.toString());
            assertEquals(7, ended.triggeredNs(), ended.toString());
            assertEquals("CANCELED", ended.status());

            writer.startBatch(new HistoryBatch());
            writer.logPosition(40);
            writer.onOrderReplaced(1, 11, 11, 1, 1, Side.BUY, 111, 50, 0, false, 106, 8);
            committer.commit(writer.seal(40, 8, 0, null, null));
            assertEquals(106, queries.order(1, 1).stopPrice(), "a replace moves the stop price");

            writer.startBatch(new HistoryBatch());
            writer.logPosition(50);
            writer.onOrderTriggered(1, 11, 1, 1, Side.BUY, OrderType.LIMIT, 111, 50, 106, 107, 9);
            writer.logPosition(60);
            // Once triggered the order is a limit order like any other: the engine reports no stop price for it.
            writer.onOrderReplaced(1, 11, 11, 1, 1, Side.BUY, 112, 40, 0, false, 0, 10);
            committer.commit(writer.seal(60, 10, 0, null, null));
            final HistoryQueries.Order triggered = queries.order(1, 1);
            assertEquals(106, triggered.stopPrice(), "the stop price it had is kept: " + triggered);
            assertEquals(9, triggered.triggeredNs(), triggered.toString());
            assertEquals(112, triggered.price());

            final List<String> kinds = new java.util.ArrayList<>();
            try (java.sql.Statement statement = database.connection().createStatement();
                java.sql.ResultSet rows = statement.executeQuery(
                    "SELECT kind FROM order_events WHERE order_id = 1 ORDER BY event_id"))
            {
                while (rows.next())
                {
                    kinds.add(rows.getString(1));
                }
            }
            database.connection().commit();
            assertEquals(List.of("ACCEPTED", "REPLACED", "TRIGGERED", "REPLACED"), kinds);
        }
    }

    @Test
    void anOrderIsFoundByItsClientOrderIdTheOpenOneFirstThenTheNewest() throws Exception
    {
        final Store.Context context = database(node.storeContext());
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null);
            BatchCommitter committer = new BatchCommitter(database);
            HistoryQueries queries = HistoryQueries.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            final HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            // Account 1 uses client order id 7 for order 1, and again for order 4 once order 1 is canceled; account 2
            // uses it for order 3.
            accept(writer, 10, 1, 7, 1);
            writer.onOrderCanceled(1, 7, 1, 1, Side.BUY, 100, 50, 0, 0, CancelReason.CLIENT_REQUEST, 11);
            accept(writer, 20, 2, 8, 1);
            accept(writer, 30, 3, 7, 2);
            accept(writer, 40, 4, 7, 1);
            accept(writer, 50, 5, 9, 1);
            committer.commit(writer.seal(50, 5, 0, null, null));
            assertEquals(queries.order(1, 4), queries.orderByClientOrderId(1, 7), "the open one of account 1's two");
            assertEquals(3, queries.orderByClientOrderId(2, 7).orderId(), "account 2's own");
            assertEquals(2, queries.orderByClientOrderId(1, 8).orderId());
            assertNull(queries.orderByClientOrderId(2, 8), "not another account's");
            assertNull(queries.orderByClientOrderId(1, 10), "no such order");

            // Order 4 is canceled: the newest of the two closed ones. Then a replace gives order 2 the id: the open
            // order with it comes before the newer closed one.
            writer.startBatch(new HistoryBatch());
            writer.logPosition(60);
            writer.onOrderCanceled(4, 7, 1, 1, Side.BUY, 100, 50, 0, 0, CancelReason.CLIENT_REQUEST, 6);
            committer.commit(writer.seal(60, 6, 0, null, null));
            assertEquals(4, queries.orderByClientOrderId(1, 7).orderId(), "the newest of two closed ones");
            writer.startBatch(new HistoryBatch());
            writer.logPosition(70);
            writer.onOrderReplaced(2, 8, 7, 1, 1, Side.BUY, 101, 50, 0, false, 0, 7);
            committer.commit(writer.seal(70, 7, 0, null, null));
            assertEquals(2, queries.orderByClientOrderId(1, 7).orderId(), "the open one, given the id by a replace");
            assertNull(queries.orderByClientOrderId(1, 8), "an id a replace took away");
        }
    }

    @Test
    void closedHoursAreWrittenOnceAsCandlesAndARestartedStoreSumsItsOpenHourAgain() throws Exception
    {
        final long hourNs = HourlyCandles.HOUR_NS;
        final long base = 480_000 * hourNs;
        final Store.Context context = database(node.storeContext());
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null);
            BatchCommitter committer = new BatchCommitter(database);
            HistoryQueries queries = HistoryQueries.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            HistoryWriter writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            trade(writer, 10, 1, 100, 2, base + 1_000_000_000L);
            trade(writer, 20, 2, 105, 1, base + 600_000_000_000L);
            // The next hour's first trade closes the first hour.
            trade(writer, 30, 3, 99, 1, base + hourNs + 5_000_000_000L);
            committer.commit(writer.seal(30, base + hourNs + 5_000_000_000L, 0, null, null));
            final List<String> first = List.of(base + " 100 105 100 105 3 305 2 1 2");
            assertEquals(first, hours(queries), "the open hour has no row yet");

            // A restarted store sums the open hour's trade again from the database.
            writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            trade(writer, 40, 4, 101, 3, base + hourNs + 1_800_000_000_000L);
            // Prices and quantities whose products pass 64 bits: the quote amount is summed exactly.
            trade(writer, 50, 5, 4_000_000_000L, 4_000_000_000L, base + 2 * hourNs + 1);
            trade(writer, 60, 6, 4_000_000_000L, 4_000_000_000L, base + 2 * hourNs + 2);
            committer.commit(writer.seal(60, base + 2 * hourNs + 2, 0, null, null));
            final List<String> second = List.of(first.getFirst(), (base + hourNs) + " 99 101 99 101 4 402 2 3 4");
            assertEquals(second, hours(queries), "the second hour with the trade made before the restart");
            writer.startBatch(new HistoryBatch());
            writer.logPosition(70);
            // The log's time passing the hour's end closes it, with no trade after it.
            committer.commit(writer.seal(70, base + 3 * hourNs, 0, null, null));
            final List<String> all = List.of(second.get(0), second.get(1),
                (base + 2 * hourNs) + " 4000000000 4000000000 4000000000 4000000000 8000000000 32000000000000000000 2 5 6");
            assertEquals(all, hours(queries));
            assertEquals(List.of(second.get(1)), hours(queries, base + hourNs, base + 2 * hourNs), "a window");

            // A database written before the table had rows: a store's first batch writes every closed hour.
            try (Statement statement = database.connection().createStatement())
            {
                statement.executeUpdate("DELETE FROM candles_1h");
            }
            database.connection().commit();
            writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            committer.commit(writer.seal(70, base + 3 * hourNs, 0, null, null));
            assertEquals(all, hours(queries));

            // The log's time steps back into an hour written before a restart: the trade is counted in the next hour,
            // never in a second row of that one (which would stop the store at its commit).
            writer = new HistoryWriter(database, new HistoryBatch());
            writer.writing(true);
            trade(writer, 80, 7, 50, 1, base + 2 * hourNs + 10);
            committer.commit(writer.seal(80, base + 4 * hourNs, 0, null, null));
            final List<String> later = new ArrayList<>(all);
            later.add((base + 3 * hourNs) + " 50 50 50 50 1 50 1 7 7");
            assertEquals(later, hours(queries));
        }
    }

    private static List<String> hours(final HistoryQueries queries)
    {
        return hours(queries, 0, Long.MAX_VALUE);
    }

    private static List<String> hours(final HistoryQueries queries, final long fromNs, final long toNs)
    {
        final List<String> hours = new ArrayList<>();
        queries.hourlyCandles(1, fromNs, toNs, (startNs, open, high, low, close, volume, quote, trades, first, last) ->
            hours.add(startNs + " " + open + " " + high + " " + low + " " + close + " " + volume + " " + quote + " " +
                trades + " " + first + " " + last));
        return hours;
    }

    /**
     * A trade of instrument 1 between accounts 1 (maker) and 2, with its four settlements.
     */
    private static void trade(
        final HistoryWriter writer, final long logPosition, final long tradeId, final long price, final long quantity,
        final long timestampNs)
    {
        writer.logPosition(logPosition);
        writer.onTrade(tradeId, 1, price, quantity, Side.BUY, 100 + tradeId, 0, 1, quantity, 0, 0, 0, 200 + tradeId, 0,
            2, quantity, 0, 0, 0, timestampNs);
        writer.onBalanceChanged(1, 1, tradeId, 0, BalanceChangeReason.TRADE, timestampNs);
        writer.onBalanceChanged(1, 2, tradeId, 0, BalanceChangeReason.TRADE, timestampNs);
        writer.onBalanceChanged(2, 1, tradeId, 0, BalanceChangeReason.TRADE, timestampNs);
        writer.onBalanceChanged(2, 2, tradeId, 0, BalanceChangeReason.TRADE, timestampNs);
    }

    private static void accept(
        final HistoryWriter writer, final long logPosition, final long orderId, final long clientOrderId,
        final long accountId)
    {
        writer.logPosition(logPosition);
        writer.onOrderAccepted(orderId, clientOrderId, accountId, 1, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, 100, 50,
            0, false, SelfTradePrevention.CANCEL_RESTING, 0, 0, orderId);
    }
}
