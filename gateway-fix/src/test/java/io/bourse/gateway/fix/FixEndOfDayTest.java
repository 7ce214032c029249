package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;

import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The end of the FIX day: every session is logged out with a Logout that says why, its resting orders stay even with
 * cancel-on-disconnect, and its sequence numbers start again at 1 on both sides, so that a client logs on with
 * MsgSeqNum 1 and no ResetSeqNumFlag.
 */
class FixEndOfDayTest
{
    private static final String ORDER = "21=1|55=BTC-USD|54=1|38=0.0001|40=2|44=100.00|";

    @Test
    void everySessionIsLoggedOutAndStartsAgainAtOneWithItsOrdersKept() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.SESSION, 0))
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0))).start();
            RawFixClient alice = new RawFixClient(exchange.fixPort, "ALICE");
            RawFixClient bob = new RawFixClient(exchange.fixPort, "BOB"))
        {
            assertEquals("A", alice.logon("alice-pw").get("35"));
            assertEquals("A", bob.logon("bob-pw").get("35"));
            for (int i = 0; i < 3; i++)
            {
                alice.sendApp("D", "11=E" + i + "|60=" + RawFixClient.now() + "|" + ORDER);
                assertEquals("0", alice.read(10_000).get("150"), "ALICE's order " + i + " accepted");
            }

            exchange.gateway().endOfDay();

            for (final RawFixClient client : new RawFixClient[] { alice, bob })
            {
                final Map<String, String> logout = client.read(5_000);
                assertEquals("5", logout.get("35"), String.valueOf(logout));
                assertEquals("End of day: sequence numbers reset to 1", logout.get("58"));
                assertNull(client.read(1_000), "then the connection closes");
            }
            // Cancel-on-disconnect, with no grace, would have canceled them by now: the venue logged ALICE out.
            Thread.sleep(500);
            assertEquals(3, exchange.gateway().openOrders(), "ALICE's orders stay");
            assertEquals(0, exchange.gateway().loggedOnSessions());

            try (RawFixClient again = new RawFixClient(exchange.fixPort, "ALICE"))
            {
                again.send("35=A|34=1|49=ALICE|52=" + RawFixClient.now() + "|56=BOURSE|98=0|108=30|554=alice-pw|");
                again.nextSeqNum = 2;
                final Map<String, String> logon = again.read(5_000);
                assertEquals("A", logon.get("35"), "MsgSeqNum 1 without a reset is in sequence: " + logon);
                assertEquals("1", logon.get("34"), () -> "and the gateway's numbers start at 1 too; log:\n" + exchange.log());
                again.sendApp("F", "11=X0|41=E0|54=1|55=BTC-USD|60=" + RawFixClient.now() + "|");
                final Map<String, String> canceled = again.read(10_000);
                assertEquals("4", canceled.get("150"), "the order of the day before, still there: " + canceled);
                assertEquals("2", canceled.get("34"));
                again.sendApp("D", "11=E0|60=" + RawFixClient.now() + "|" + ORDER);
                assertEquals("0", again.read(10_000).get("150"), "a ClOrdID of the day before may be used again");
                again.sendApp("D", "11=E1|60=" + RawFixClient.now() + "|" + ORDER);
                assertEquals("6", again.read(10_000).get("103"), "but not that of an order still open");
            }
        }
    }

    @Test
    void theEndOfDayComesAtItsTime()
    {
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .endOfDayUtc(LocalTime.now(ZoneOffset.UTC).plusSeconds(3))
            .archivePruneIntervalMs(0)
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0))).start();
            RawFixClient bob = new RawFixClient(exchange.fixPort, "BOB"))
        {
            assertEquals("A", bob.logon("bob-pw").get("35"));
            final Map<String, String> logout = bob.read(15_000);
            assertEquals("5", logout.get("35"), String.valueOf(logout));
            assertEquals("End of day: sequence numbers reset to 1", logout.get("58"));
            FixTestExchange.await("the end of day logged", () -> exchange.log().contains(
                "end of day: 1 session(s) logged out, every session's sequence numbers reset to 1"));
        }
    }
}
