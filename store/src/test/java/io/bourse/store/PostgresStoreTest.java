package io.bourse.store;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store on a real PostgreSQL server, started for this class (initdb in a temporary directory, 127.0.0.1 only) and
 * stopped after it; each test has a database of its own.
 */
class PostgresStoreTest extends StoreTestBase
{
    private static final AtomicInteger NEXT_DATABASE = new AtomicInteger();
    private static PostgresServer server;

    @BeforeAll
    static void startServer() throws Exception
    {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() throws Exception
    {
        if (server != null)
        {
            server.close();
        }
    }

    Store.Context database(final Store.Context context) throws Exception
    {
        return context.jdbcUrl(server.newDatabase("store_test_" + NEXT_DATABASE.incrementAndGet()));
    }

    /**
     * The server goes down under load (as a crash would: connections cut) and comes back: the store fails, starts
     * again by itself from its fence and writes every trade exactly once.
     */
    @Test
    void theStoreStartsAgainByItselfWhenItsServerComesBack() throws Exception
    {
        final long seed = System.nanoTime();
        final Store.Context context = database(node.storeContext().batchRows(200)).restartDelayMs(100, 400);
        try (Store store = Store.open(context).start(); Workload workload = new Workload(node, seed);
            HistoryQueries queries = HistoryQueries.open(context.jdbcUrl(), null, null, null))
        {
            workload.setUp();
            workload.trade(1_000);
            TestNode.await(() -> "some batches written: " + store.metrics(),
                () -> store.metrics().batchesCommitted() > 0);
            queries.trades(1, 0, Long.MAX_VALUE, null, 10);
            server.stop();
            try
            {
                workload.trade(1_000);
                TestNode.await(() -> "the store failed: " + store.metrics(),
                    () -> store.metrics().state() == StoreState.FAILED);
                assertThrows(StoreException.class, () -> queries.trades(1, 0, Long.MAX_VALUE, null, 10));
            }
            finally
            {
                server.restart();
            }
            workload.trade(1_000);
            workload.awaitAllAnswered();
            assertTrue(store.awaitCaughtUp(60_000), () -> "store caught up: " + store.metrics());
            // The history queries connect again by themselves, as the store does.
            assertEquals(10, queries.trades(1, 0, Long.MAX_VALUE, null, 10).rows().size());
            StoreChecks.assertCaughtUpWith(store, node.awaitIdleEngineStateHash(), 60_000, seed);
            try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
            {
                StoreChecks.assertTrades(database, workload.trades(), workload.tradeChecksum());
                StoreChecks.assertLedger(database, store.engine(), Workload.ACCOUNTS, Workload.BTC, Workload.USD);
            }
        }
    }
}
