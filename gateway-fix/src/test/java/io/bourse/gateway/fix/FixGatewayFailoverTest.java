package io.bourse.gateway.fix;

import io.bourse.cluster.FailoverCluster;
import io.bourse.cluster.client.ExchangeClient;
import org.agrona.IoUtil;
import org.junit.jupiter.api.Test;
import quickfix.Message;
import quickfix.field.ClOrdID;
import quickfix.field.ExecType;
import quickfix.field.OrdStatus;
import quickfix.field.OrderID;
import quickfix.field.Side;
import quickfix.field.TotalAffectedOrders;

import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway as a separate client of a three-member cluster: the leader stops while orders flow, and every order
 * is acknowledged exactly once and exists exactly once in the engine (a mass cancel afterwards cancels exactly as
 * many orders as were sent).
 */
class FixGatewayFailoverTest
{
    private static final int ORDERS = 60;

    @Test
    void ordersInFlightDuringALeaderChangeAreNeitherLostNorExecutedTwice() throws Exception
    {
        final File dataDir = Files.createTempDirectory("bourse-fix-failover").toFile();
        try (FailoverCluster cluster = new FailoverCluster(3))
        {
            final int leader = cluster.awaitLeader(-1);
            FixTestExchange.setUpReferenceData(new ExchangeClient.Context().ingressEndpoints(cluster.ingressEndpoints()));
            final int port = FixTestExchange.freeTcpPort();
            try (FixGateway gateway = FixGateway.launch(new FixGateway.Context()
                .dataDir(dataDir)
                .port(port)
                .instrument(FixTestExchange.BTC_USD)
                .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))
                .exchangeClient(new ExchangeClient.Context().ingressEndpoints(cluster.ingressEndpoints()))
                .log(new PrintStream(OutputStream.nullOutputStream())));
                QfjClient alice = new QfjClient(port, "ALICE", "alice-pw").awaitLogon())
            {
                for (int i = 0; i < ORDERS; i++)
                {
                    if (i == ORDERS / 3)
                    {
                        cluster.stop(leader);
                    }
                    alice.send(FixGatewayTest.limit("F" + i, Side.BUY, "0.01", "10.00"));
                    Thread.sleep(20);
                }
                final Set<String> acknowledged = new HashSet<>();
                final Set<String> orderIds = new HashSet<>();
                for (int i = 0; i < ORDERS; i++)
                {
                    final Message report = alice.next("8");
                    assertEquals(ExecType.NEW, report.getChar(ExecType.FIELD), report.toString());
                    assertTrue(acknowledged.add(report.getString(ClOrdID.FIELD)), "acknowledged twice: " + report);
                    assertTrue(orderIds.add(report.getString(OrderID.FIELD)), "OrderID used twice: " + report);
                }
                assertNull(alice.poll(1_000), "nothing more after one acknowledgement per order");
                assertTrue(cluster.awaitLeader(leader) != leader);

                alice.send(FixGatewayTest.massCancelAll("ALL"));
                for (int i = 0; i < ORDERS; i++)
                {
                    assertEquals(OrdStatus.CANCELED, alice.next("8").getChar(OrdStatus.FIELD));
                }
                assertEquals(ORDERS, alice.next("r").getInt(TotalAffectedOrders.FIELD),
                    "the engine holds each order once");
            }
        }
        finally
        {
            IoUtil.delete(dataDir, true);
        }
    }
}
