package io.bourse.store;

import io.bourse.engine.Engine;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What must hold of a store's database after any run, crash or restart: exactly the engine's trades, and a ledger
 * that sums to the engine's balances.
 */
final class StoreChecks
{
    private StoreChecks()
    {
    }

    /**
     * One trade's share of the order-independent checksum over (trade id, price, quantity).
     */
    static long tradeChecksum(final long tradeId, final long price, final long quantity)
    {
        long h = tradeId * 0x9E3779B97F4A7C15L;
        h = (h ^ (h >>> 29) ^ price) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 32) ^ quantity) * 0x94D049BB133111EBL;
        return h ^ (h >>> 31);
    }

    /**
     * The store catches up with the log within {@code timeoutMs}, and its engine then has the node's state.
     *
     * @param seed the test's seed, for the message.
     */
    static void assertCaughtUpWith(final Store store, final long nodeHash, final long timeoutMs, final long seed)
        throws InterruptedException
    {
        assertTrue(store.awaitCaughtUp(timeoutMs), () -> "store caught up: " + store.metrics());
        assertEquals(nodeHash, store.engineStateHash(), "seed " + seed + ": store engine = node engine");
    }

    /**
     * The trades table holds exactly trades 1..count: that count, no duplicate, no gap, the same checksum.
     */
    static void assertTrades(final StoreDatabase database, final long expectedTrades, final long expectedChecksum)
        throws SQLException
    {
        final Connection connection = database.connection();
        try (Statement statement = connection.createStatement())
        {
            try (ResultSet rows = statement.executeQuery(
                "SELECT COUNT(*), COUNT(DISTINCT trade_id), MIN(trade_id), MAX(trade_id) FROM trades"))
            {
                rows.next();
                assertEquals(expectedTrades, rows.getLong(1), "trade rows");
                assertEquals(expectedTrades, rows.getLong(2), "distinct trade ids (duplicates)");
                if (expectedTrades > 0)
                {
                    assertEquals(1, rows.getLong(3), "first trade id");
                    assertEquals(expectedTrades, rows.getLong(4), "last trade id (gaps)");
                }
            }
            long checksum = 0;
            try (ResultSet rows = statement.executeQuery("SELECT trade_id, price, quantity FROM trades"))
            {
                while (rows.next())
                {
                    checksum += tradeChecksum(rows.getLong(1), rows.getLong(2), rows.getLong(3));
                }
            }
            assertEquals(expectedChecksum, checksum, "checksum over (trade id, price, quantity)");
        }
        connection.commit();
    }

    /**
     * For every account and asset: the ledger's deltas sum to the engine's available and reserved balances, and the
     * balances table holds them too.
     */
    static void assertLedger(final StoreDatabase database, final Engine engine, final int accounts, final int... assets)
        throws SQLException
    {
        final Connection connection = database.connection();
        try (Statement statement = connection.createStatement())
        {
            for (int account = 1; account <= accounts; account++)
            {
                for (final int asset : assets)
                {
                    try (ResultSet rows = statement.executeQuery(
                        "SELECT COALESCE(SUM(available_delta), 0), COALESCE(SUM(reserved_delta), 0), COUNT(*) " +
                        "FROM ledger WHERE account_id = " + account + " AND asset_id = " + asset))
                    {
                        rows.next();
                        assertEquals(engine.availableBalance(account, asset), rows.getLong(1),
                            "ledger sum of available, account " + account + " asset " + asset);
                        assertEquals(engine.reservedBalance(account, asset), rows.getLong(2),
                            "ledger sum of reserved, account " + account + " asset " + asset);
                    }
                    try (ResultSet rows = statement.executeQuery(
                        "SELECT available, reserved FROM balances WHERE account_id = " + account + " AND asset_id = " + asset))
                    {
                        rows.next();
                        assertEquals(engine.availableBalance(account, asset), rows.getLong(1), "balances.available");
                        assertEquals(engine.reservedBalance(account, asset), rows.getLong(2), "balances.reserved");
                    }
                }
            }
        }
        connection.commit();
    }

    static long count(final StoreDatabase database, final String sql) throws SQLException
    {
        try (Statement statement = database.connection().createStatement(); ResultSet rows = statement.executeQuery(sql))
        {
            rows.next();
            final long value = rows.getLong(1);
            database.connection().commit();
            return value;
        }
    }
}
