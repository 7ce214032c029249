package io.bourse.store;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

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
}
