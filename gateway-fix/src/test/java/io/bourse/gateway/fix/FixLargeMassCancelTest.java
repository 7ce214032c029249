package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import quickfix.Message;
import quickfix.field.ClOrdID;
import quickfix.field.ExecType;
import quickfix.field.MassCancelResponse;
import quickfix.field.OrdStatus;
import quickfix.field.Side;
import quickfix.field.TotalAffectedOrders;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A mass cancel of 9,000 orders, as a market maker's, through the FIX gateway in front of the embedded node: its
 * batch of events (about 1.5 MB) is longer than the 1 MiB the node's IPC egress takes in one message, and than a
 * round of parts. Every order is reported canceled once, the report counts them, and no report is dropped.
 */
class FixLargeMassCancelTest
{
    private static final int ORDERS = 9_000;

    @Test
    void everyOrderOfALargeMassCancelIsReportedCanceled() throws Exception
    {
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon())
        {
            for (int i = 0; i < ORDERS; i++)
            {
                alice.send(FixGatewayTest.limit("O" + i, Side.BUY, "0.0001", "1.00"));
            }
            final Set<String> open = new HashSet<>();
            for (int i = 0; i < ORDERS; i++)
            {
                final Message report = alice.next("8");
                assertEquals(ExecType.NEW, report.getChar(ExecType.FIELD), report.toString());
                assertTrue(open.add(report.getString(ClOrdID.FIELD)), "acknowledged twice: " + report);
            }

            final long startNs = System.nanoTime();
            alice.send(FixGatewayTest.massCancelAll("ALL"));
            for (int i = 0; i < ORDERS; i++)
            {
                final Message report = alice.next("8");
                assertEquals(OrdStatus.CANCELED, report.getChar(OrdStatus.FIELD), report.toString());
                assertTrue(open.remove(report.getString(ClOrdID.FIELD)), "canceled twice or unknown: " + report);
            }
            final Message massReport = alice.next("r");
            System.out.printf("FixLargeMassCancelTest: %d orders reported canceled in %d ms%n", ORDERS,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
            assertEquals(MassCancelResponse.CANCEL_ALL_ORDERS, massReport.getChar(MassCancelResponse.FIELD));
            assertEquals(ORDERS, massReport.getInt(TotalAffectedOrders.FIELD));
            assertEquals(0, exchange.gateway().droppedMessages(), "messages dropped");
        }
    }

    /**
     * The session's connection closes just after it asked: the cancels take longer than the gateway takes to see it
     * gone, so their reports and the OrderMassCancelReport come while it is away, and are held for it and sent when
     * it logs on again. Were the answers quicker, they came before: either way every one arrives exactly once.
     */
    @Test
    void theAnswersToAMassCancelOfASessionThatLeftComeAtItsNextLogon() throws Exception
    {
        final int orders = 3_000;
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon())
        {
            for (int i = 0; i < orders; i++)
            {
                alice.send(FixGatewayTest.limit("O" + i, Side.BUY, "0.0001", "1.00"));
            }
            final Set<String> open = new HashSet<>();
            for (int i = 0; i < orders; i++)
            {
                assertTrue(open.add(alice.next("8").getString(ClOrdID.FIELD)));
            }

            alice.send(FixGatewayTest.massCancelAll("ALL"));
            // QuickFIX/J flushes the request before it closes the connection, and connects again a second later.
            alice.session().disconnect("gone", false);
            FixTestExchange.await("ALICE disconnected", () -> !alice.isLoggedOn());
            final int beforeLogon = alice.received.size();
            alice.awaitLogon();

            for (int i = 0; i < orders; i++)
            {
                final Message report = alice.next("8");
                assertEquals(OrdStatus.CANCELED, report.getChar(OrdStatus.FIELD), report.toString());
                assertTrue(open.remove(report.getString(ClOrdID.FIELD)), "canceled twice or unknown: " + report);
            }
            final Message massReport = alice.next("r");
            assertEquals("ALL", massReport.getString(ClOrdID.FIELD));
            assertEquals(orders, massReport.getInt(TotalAffectedOrders.FIELD));
            System.out.printf("FixLargeMassCancelTest: %d of %d answers came before the disconnect, the rest after the " +
                "next logon%n", beforeLogon, orders + 1);
            assertNull(alice.poll(200), "nothing more");
            assertEquals(0, exchange.gateway().droppedMessages(), "messages dropped");
        }
    }
}
