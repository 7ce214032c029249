package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void aDayOrderExpiresASecondBeforeTheEndOfDayAndIsReportedThen() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        final AtomicReference<LocalTime> endOfDay = new AtomicReference<>();
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .endOfDayUtc(endOfDay.get())
            .archivePruneIntervalMs(0)
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0)))
            .startWithoutGateway())
        {
            // Whole seconds, five or six ahead once the node runs: time for the gateway and the orders below.
            final LocalDateTime endOfDayAt = LocalDateTime.now(ZoneOffset.UTC).plusSeconds(6).withNano(0);
            endOfDay.set(endOfDayAt.toLocalTime());
            // The trading date this end of day closes: its own date, or the day before when it falls at midnight.
            final LocalDate tradingDate = endOfDay.get().equals(LocalTime.MIDNIGHT) ?
                endOfDayAt.toLocalDate().minusDays(1) : endOfDayAt.toLocalDate();
            final String date = tradingDate.format(DateTimeFormatter.BASIC_ISO_DATE);
            exchange.startGateway();
            final List<Map<String, String>> received = new ArrayList<>();
            try (RawFixClient bob = new RawFixClient(exchange.fixPort, "BOB"))
            {
                assertEquals("A", bob.logon("bob-pw").get("35"));
                bob.sendApp("D", "11=DAY1|59=0|60=" + RawFixClient.now() + "|" + ORDER);
                final Map<String, String> accepted = bob.read(10_000);
                assertEquals("0", accepted.get("150"), String.valueOf(accepted));
                assertEquals("0", accepted.get("59"), "the order is a Day order");
                assertNull(accepted.get("126"), "with no ExpireTime of its own");
                // Good through the trading date that this end of day closes, and through the next one.
                bob.sendApp("D", "11=GTD1|59=6|432=" + date + "|60=" + RawFixClient.now() + "|" + ORDER);
                final Map<String, String> dated = bob.read(10_000);
                assertEquals("0", dated.get("150"), String.valueOf(dated));
                assertEquals(date, dated.get("432"));
                bob.sendApp("D", "11=GTC1|59=1|60=" + RawFixClient.now() + "|" + ORDER);
                assertEquals("0", bob.read(10_000).get("150"));
                bob.sendApp("D", "11=DAY2|59=0|126=20301122-01:00:00|60=" + RawFixClient.now() + "|" + ORDER);
                assertEquals("ExpireTime (126) only with TimeInForce 6 (GTD)", bob.read(10_000).get("58"));
                final String nextDate = tradingDate.plusDays(1).format(DateTimeFormatter.BASIC_ISO_DATE);
                bob.sendApp("D", "11=GTD2|59=6|432=" + nextDate + "|60=" + RawFixClient.now() + "|" + ORDER);
                assertEquals("0", bob.read(10_000).get("150"));
                Map<String, String> message;
                do
                {
                    message = bob.read(15_000);
                    assertNotNull(message, "the end of day's Logout came");
                    received.add(message);
                }
                while (!"5".equals(message.get("35")));
            }
            FixTestExchange.await("the end of day done", () -> exchange.log().contains(
                "end of day: 1 session(s) logged out, every session's sequence numbers reset to 1"));
            assertEquals(2, exchange.gateway().openOrders(), "the GTC order stays, and the order good through tomorrow");

            final List<Map<String, String>> expiries =
                received.stream().filter(message -> "C".equals(message.get("150"))).toList();
            Map<String, String> expired = expiries.stream().filter(message -> "DAY1".equals(message.get("11")))
                .findFirst().orElse(null);
            Map<String, String> expiredByDate = expiries.stream().filter(message -> "GTD1".equals(message.get("11")))
                .findFirst().orElse(null);
            try (RawFixClient again = new RawFixClient(exchange.fixPort, "BOB"))
            {
                again.send("35=A|34=1|49=BOB|52=" + RawFixClient.now() + "|56=BOURSE|98=0|108=30|554=bob-pw|");
                again.nextSeqNum = 2;
                assertEquals("A", again.read(5_000).get("35"));
                // A report made after the Logout on a machine too loaded to keep the second is held for the session
                // until now.
                while (expired == null || expiredByDate == null)
                {
                    final Map<String, String> held = again.read(10_000);
                    assertNotNull(held, "both expiries reported");
                    expired = "DAY1".equals(held.get("11")) ? held : expired;
                    expiredByDate = "GTD1".equals(held.get("11")) ? held : expiredByDate;
                }
            }
            assertEquals("C", expiredByDate.get("39"), String.valueOf(expiredByDate));
            assertEquals("6", expiredByDate.get("59"));
            assertEquals(date, expiredByDate.get("432"), "its ExpireDate echoed");
            assertExpiredASecondBefore(endOfDay.get(), expiredByDate);
            assertNotNull(expired, "the Day order's expiry was reported");
            assertEquals("8", expired.get("35"), String.valueOf(expired));
            assertEquals("C", expired.get("150"));
            assertEquals("C", expired.get("39"));
            assertEquals("DAY1", expired.get("11"));
            assertEquals("0", expired.get("59"));
            assertExpiredASecondBefore(endOfDay.get(), expired);
        }
    }

    private static void assertExpiredASecondBefore(final LocalTime endOfDay, final Map<String, String> expired)
    {
        final long expiredAtS = java.time.Instant.parse(expired.get("60").replaceFirst(
            "(\\d{4})(\\d{2})(\\d{2})-", "$1-$2-$3T") + "Z").toEpochMilli() / 1000;
        final long secondsAfter = Math.floorMod(expiredAtS - (endOfDay.toSecondOfDay() - 1), 86_400);
        assertTrue(secondsAfter < 5, expired.get("11") + " expired a second before the end of day " + endOfDay +
            ", not earlier: " + expired.get("60"));
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
