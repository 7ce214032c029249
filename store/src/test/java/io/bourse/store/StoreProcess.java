package io.bourse.store;

import java.io.File;

/**
 * A store in a process of its own, for tests that kill it with {@code kill -9}. Arguments: node data directory,
 * media driver directory, JDBC URL ("-" for SQLite in the node's data directory), batch rows, snapshot log bytes.
 * Prints {@value #STARTED} once following, then runs until killed.
 */
public final class StoreProcess
{
    static final String STARTED = "store-started";

    private StoreProcess()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final Store store = Store.open(new Store.Context()
            .nodeDataDir(new File(args[0]))
            .aeronDirectoryName(args[1])
            .jdbcUrl("-".equals(args[2]) ? "" : args[2])
            .batchRows(Integer.parseInt(args[3]))
            .snapshotLogBytes(Long.parseLong(args[4]))
            .threadNice(0))
            .start();
        System.out.println(STARTED);
        while (store.metrics().state() != StoreState.FAILED)
        {
            Thread.sleep(100);
        }
        System.out.println("store failed: " + store.metrics().failure());
        System.exit(1);
    }
}
