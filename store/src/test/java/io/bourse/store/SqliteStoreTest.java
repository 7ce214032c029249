package io.bourse.store;

/**
 * The store on SQLite, the default: a file in the node's data directory, in WAL mode.
 */
class SqliteStoreTest extends StoreTestBase
{
    Store.Context database(final Store.Context context)
    {
        return context;
    }
}
