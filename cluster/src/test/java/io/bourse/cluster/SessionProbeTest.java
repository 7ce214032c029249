package io.bourse.cluster;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A client whose session has gone silent opens another beside it ({@code ExchangeClient.Context
 * sessionProbeTimeoutNs}) and moves to it when the old one stays silent, without losing or repeating a command. (A
 * probe racing a session that comes back, a node paused and then resumed, is in {@link CrashRecoveryTest}.)
 */
class SessionProbeTest
{
    /**
     * The node closes the sessions it recovers without telling their clients. With the session-lost timeout out of
     * reach (ten minutes against the wait's one), only the probe can bring the client back.
     */
    @Test
    void aClientWhoseNodeRestartedMovesToANewSessionWithoutWaitingForTheSessionToCountAsLost()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            cluster.awaitLeader();
            final ReferenceWorkload workload = new ReferenceWorkload(41);
            try (TestClient trader = new TestClient(cluster, context -> context
                .sessionLostTimeoutNs(TimeUnit.MINUTES.toNanos(10))
                .sessionProbeTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))))
            {
                trader.awaitConnected();
                workload.setUp(trader);
                workload.trade(trader, 100);
                trader.awaitAllAnswered();
                assertEquals(1, trader.connections);

                cluster.crash(0);
                cluster.start(0);
                cluster.awaitLeader();
                workload.trade(trader, 100);
                trader.awaitAllAnswered();

                assertEquals(2, trader.connections, "one new session, opened by the probe");
                assertEquals(List.of(), trader.answeredTwice);
                cluster.awaitSameState();
                assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash(),
                    "every command applied once; seed " + workload.seed());
            }
        }
    }
}
