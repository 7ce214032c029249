package io.bourse.store;

import io.bourse.cluster.FailoverCluster;
import io.bourse.cluster.client.ExchangeClient;
import org.agrona.IoUtil;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store on a member of a three-member cluster, as a venue that outgrew one machine runs it: whatever happens to
 * the leader, and to the member the store reads, the database ends with exactly the engine's trades and a ledger that
 * sums to its balances.
 * <ul>
 *     <li>the leader crashes while commands are in flight, and the store, reading a follower, waits out the election
 *     (its member stops recording the log meanwhile) and goes on, without failing;</li>
 *     <li>the old leader comes back as a follower (cutting its log back to what the new leader has, if need be);</li>
 *     <li>the store's own member stops while commands flow and starts again: the store fails, starts again on its
 *     own (its restart delay) and resumes from its fence.</li>
 * </ul>
 */
class StoreFailoverTest
{
    private static final long TIMEOUT_MS = 60_000;

    @Test
    void aStoreOnAMemberKeepsExactlyTheEnginesTradesThroughLeaderCrashesAndItsMembersRestart() throws Exception
    {
        final long seed = System.nanoTime();
        final File baseDir = TestNode.tempDir();
        try (FailoverCluster cluster = new FailoverCluster(3))
        {
            final int firstLeader = cluster.awaitLeader(-1);
            final int member = (firstLeader + 1) % 3;
            final StringBuffer storeLog = new StringBuffer();
            final Store.Context context = new Store.Context()
                .nodeDataDir(cluster.dataDir(member))
                .aeronDirectoryName(cluster.aeronDirectoryName(member))
                .sqliteFile(new File(baseDir, "store.db"))
                .threadNice(0)
                .restartDelayMs(200, 1_000)
                .log(new PrintStream(new OutputStream()
                {
                    public void write(final int b)
                    {
                        storeLog.append((char)b);
                        System.out.write(b);
                    }
                }, true));
            try (Store store = Store.open(context).start();
                Workload workload = new Workload(
                    new ExchangeClient.Context().ingressEndpoints(cluster.ingressEndpoints()), seed))
            {
                workload.setUp();
                workload.trade(1_500);
                // Commands are still in flight: the leader goes without a snapshot, as in a crash.
                cluster.crash(firstLeader);
                workload.trade(1_500);
                workload.awaitAllAnswered();
                final int secondLeader = cluster.awaitLeader(firstLeader);
                assertExact(store, context, workload, cluster.awaitSameEngineState(), seed,
                    "after the leader " + firstLeader + " crashed (member " + secondLeader + " leads)");

                cluster.start(firstLeader);
                workload.trade(1_000);
                workload.awaitAllAnswered();
                assertExact(store, context, workload, cluster.awaitSameEngineState(), seed,
                    "after member " + firstLeader + " came back");
                assertFalse(storeLog.toString().contains("stopped on an error"),
                    "seed " + seed + ": the store waits out an election, it does not fail: " + storeLog);

                cluster.stop(member);
                workload.trade(1_000);
                TestNode.await(() -> "the store failed with its member gone: " + store.metrics(),
                    () -> store.metrics().state() == StoreState.FAILED);
                cluster.start(member);
                workload.trade(1_000);
                workload.awaitAllAnswered();
                assertExact(store, context, workload, cluster.awaitSameEngineState(), seed,
                    "after the store's member " + member + " stopped and started again");
                assertTrue(workload.trades() > 0, "seed " + seed + ": the workload traded");
            }
        }
        finally
        {
            IoUtil.delete(baseDir, true);
        }
    }

    private static void assertExact(
        final Store store, final Store.Context context, final Workload workload, final long engineStateHash,
        final long seed, final String when) throws Exception
    {
        System.out.println("StoreFailoverTest (seed " + seed + ") " + when + ": " + workload.trades() + " trades");
        StoreChecks.assertCaughtUpWith(store, engineStateHash, TIMEOUT_MS, seed);
        try (StoreDatabase database = StoreDatabase.open(context.jdbcUrl(), context.sqliteFile(), null, null))
        {
            StoreChecks.assertTrades(database, workload.trades(), workload.tradeChecksum());
            StoreChecks.assertLedger(database, store.engine(), Workload.ACCOUNTS, Workload.BTC, Workload.USD);
        }
        assertEquals(workload.maxTradeId(), workload.trades(), "seed " + seed + ": the workload saw every trade once");
    }
}
