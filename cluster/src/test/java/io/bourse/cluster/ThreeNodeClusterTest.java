package io.bourse.cluster;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fail-over of a three-member cluster: the leader goes away while a client keeps sending, a new leader takes over
 * with every acknowledged command, nothing is applied twice, and the old leader rejoins and catches up.
 */
class ThreeNodeClusterTest
{
    private static final int COMMANDS_PER_ROUND = 20;

    @ParameterizedTest(name = "leader {0}")
    @ValueSource(strings = { "stopped", "crashed" })
    void newLeaderContinuesWithEveryCommandAndTheOldLeaderCatchesUp(final String howTheLeaderGoes)
    {
        final long seed = System.nanoTime();
        final ReferenceWorkload workload = new ReferenceWorkload(seed);
        try (TestCluster cluster = new TestCluster(3); TestClient client = newClient(cluster))
        {
            workload.setUp(client);
            workload.trade(client, 300);

            final int oldLeaderId = cluster.awaitLeader().context().memberId();
            final CompletableFuture<Void> leaderGone = CompletableFuture.runAsync(() ->
            {
                TestCluster.sleepMs(50);
                if (howTheLeaderGoes.equals("stopped"))
                {
                    cluster.stop(oldLeaderId);
                }
                else
                {
                    cluster.crash(oldLeaderId);
                }
            });
            while (!leaderGone.isDone())
            {
                tradeRound(workload, client);
            }
            leaderGone.join();

            final int newLeaderId = cluster.awaitLeader(oldLeaderId).context().memberId();
            assertNotEquals(oldLeaderId, newLeaderId);
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < deadlineNs)
            {
                tradeRound(workload, client);
            }
            workload.trade(client, 200);
            client.awaitAllAnswered();
            System.out.println("[test] " + howTheLeaderGoes + ": " + client.answers.size() + " commands answered; " +
                "batches dropped under egress back-pressure by the new leader " +
                cluster.node(newLeaderId).service().droppedSends());

            final long expectedHash = workload.reference.stateHash();
            cluster.awaitSameState();
            for (int memberId = 0; memberId < 3; memberId++)
            {
                if (memberId != oldLeaderId)
                {
                    assertEquals(expectedHash, cluster.node(memberId).service().engine().stateHash(),
                        "member " + memberId + " applied every command exactly once; seed " + seed);
                }
            }
            final long sent = client.client.unansweredCount() + client.answers.size();
            assertEquals(sent, client.answers.size(), "seed " + seed);
            for (long sequence = 1; sequence <= sent; sequence++)
            {
                assertTrue(client.answers.containsKey(sequence), "request " + sequence + " answered; seed " + seed);
            }
            assertTrue(client.answeredTwice.isEmpty(), "answered twice: " + client.answeredTwice + "; seed " + seed);
            assertTrue(client.trades() > 0, "the workload trades");

            cluster.start(oldLeaderId);
            workload.trade(client, 100);
            client.awaitAllAnswered();
            final long hash = cluster.awaitSameState();
            assertEquals(cluster.node(newLeaderId).service().stateHash(), hash);
            for (int memberId = 0; memberId < 3; memberId++)
            {
                assertEquals(workload.reference.stateHash(), cluster.node(memberId).service().engine().stateHash(),
                    "member " + memberId + " after the old leader rejoined; seed " + seed);
            }

            // A snapshot: each follower, the rejoined one too, compares its state with the leader's hashes there.
            cluster.snapshot(newLeaderId);
            for (int memberId = 0; memberId < 3; memberId++)
            {
                final ClusterNode member = cluster.node(memberId);
                if (memberId != newLeaderId)
                {
                    final int id = memberId;
                    TestCluster.await(() -> "member " + id + " checked its state against the leader's: " +
                        cluster.logLines(), () -> member.stateHashesAgreed() > 0);
                }
                assertEquals(0, member.stateHashesDiverged(), "member " + memberId + ": " + cluster.logLines());
            }
            assertEquals(0, cluster.node(newLeaderId).stateHashesAgreed(),
                "the leader's own checkpoint is no check of itself: " + cluster.logLines());
        }
        catch (final AssertionError | RuntimeException ex)
        {
            throw new AssertionError("seed " + seed + ": " + ex.getMessage(), ex);
        }
    }

    private static void tradeRound(final ReferenceWorkload workload, final TestClient client)
    {
        if (client.client.unansweredCount() < 2_000)
        {
            workload.trade(client, COMMANDS_PER_ROUND);
        }
        client.client.doWork();
        TestCluster.sleepMs(1);
    }

    private static TestClient newClient(final TestCluster cluster)
    {
        cluster.startAll();
        cluster.awaitLeader();
        final TestClient client = new TestClient(cluster);
        client.awaitConnected();
        return client;
    }
}
