package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import quickfix.Message;
import quickfix.field.ClOrdID;
import quickfix.field.CxlRejReason;
import quickfix.field.CxlRejResponseTo;
import quickfix.field.ExecType;
import quickfix.field.OrdRejReason;
import quickfix.field.OrdStatus;
import quickfix.field.Side;
import quickfix.field.Text;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each session's application messages are limited by a token bucket: orders and replaces over it are refused, with the
 * reason in Text, while cancels still go through and other sessions are not touched. A session may have a limit of its
 * own, or none, in place of the gateway's.
 */
class FixRateLimitTest
{
    private static final String REFUSAL = "Rate limit exceeded: 0.1 messages a second, bursts of 5";

    @Test
    void aBucketGivesItsBurstAtOnceThenRefillsAtItsRate(@TempDir final File dir)
    {
        final FixRateLimit limit = new FixRateLimit(10, 5);
        final FixSessionState session = new FixSessionState(
            new FixSessionSpec("X", "x", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0), limit,
            new FixEventPosition(new File(dir, "delivered")), new FixEventPosition(new File(dir, "handled")),
            new FixEventPosition(new File(dir, "outbound")));
        final long startNs = 1_000_000_000L;
        for (int i = 0; i < 5; i++)
        {
            assertTrue(limit.take(session, startNs), "the burst, message " + i);
        }
        assertFalse(limit.take(session, startNs), "none left");
        assertFalse(limit.take(session, startNs + TimeUnit.MILLISECONDS.toNanos(99)), "not yet a tenth of a second");
        assertTrue(limit.take(session, startNs + TimeUnit.MILLISECONDS.toNanos(101)), "one back after 0.1 s");
        assertFalse(limit.take(session, startNs + TimeUnit.MILLISECONDS.toNanos(102)));
        final long quietNs = startNs + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < 5; i++)
        {
            assertTrue(limit.take(session, quietNs), "a quiet minute gives the burst back, no more: message " + i);
        }
        assertFalse(limit.take(session, quietNs));
        assertEquals("Rate limit exceeded: 10 messages a second, bursts of 5", limit.refusal());
        assertTrue(FixRateLimit.NONE.take(session, startNs), "no limit");
    }

    @Test
    void ordersAndReplacesOverASessionsRateAreRefusedWhileCancelsGoThroughAndOtherSessionsTrade() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        // A token every ten seconds: none comes back while the test runs, whatever the machine's pace.
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .messageRateLimit(0.1, 5)
            .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("CAROL", "carol-pw", 3, FixSessionSpec.CancelOnDisconnect.NONE, 0,
                new FixSessionSpec.RateLimit(0.1, 8)))
            .session(new FixSessionSpec("DAVE", "dave-pw", 4, FixSessionSpec.CancelOnDisconnect.NONE, 0,
                new FixSessionSpec.RateLimit(0, 0)))).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon();
            QfjClient bob = new QfjClient(exchange.fixPort, "BOB", "bob-pw").awaitLogon();
            QfjClient carol = new QfjClient(exchange.fixPort, "CAROL", "carol-pw").awaitLogon();
            QfjClient dave = new QfjClient(exchange.fixPort, "DAVE", "dave-pw").awaitLogon())
        {
            final int orders = 20;
            for (int i = 0; i < orders; i++)
            {
                alice.send(FixGatewayTest.limit("A" + i, Side.SELL, "0.0001", "300.00"));
            }
            // The first five take the burst; then, over the rate, a replace is refused and a cancel is not.
            alice.send(FixGatewayTest.replace("R1", "A0", Side.SELL, "0.0001", "301.00"));
            alice.send(FixGatewayTest.cancel("C1", "A1", Side.SELL));

            final List<String> accepted = new ArrayList<>();
            final List<String> refused = new ArrayList<>();
            Message replaceRefused = null;
            Message canceled = null;
            for (int i = 0; i < orders + 2; i++)
            {
                final Message message = alice.poll(TimeUnit.NANOSECONDS.toMillis(FixTestExchange.TIMEOUT_NS));
                assertTrue(message != null, "ALICE: " + i + " answers of " + (orders + 2));
                final String clOrdId = message.getString(ClOrdID.FIELD);
                if ("R1".equals(clOrdId))
                {
                    replaceRefused = message;
                }
                else if ("C1".equals(clOrdId))
                {
                    canceled = message;
                }
                else if (message.getChar(ExecType.FIELD) == ExecType.NEW)
                {
                    accepted.add(clOrdId);
                }
                else
                {
                    assertEquals(OrdStatus.REJECTED, message.getChar(OrdStatus.FIELD), message.toString());
                    assertEquals(OrdRejReason.OTHER, message.getInt(OrdRejReason.FIELD));
                    assertEquals(REFUSAL, message.getString(Text.FIELD));
                    refused.add(clOrdId);
                }
            }
            assertEquals(List.of("A0", "A1", "A2", "A3", "A4"), accepted);
            assertEquals(orders - 5, refused.size());
            assertEquals(refused.size() + 1, exchange.gateway().rateLimitedMessages(), "the orders and the replace");

            assertTrue(replaceRefused != null && "9".equals(replaceRefused.getHeader().getString(35)),
                "the replace refused: " + replaceRefused);
            assertEquals(CxlRejResponseTo.ORDER_CANCEL_REPLACE_REQUEST, replaceRefused.getChar(CxlRejResponseTo.FIELD));
            assertEquals(CxlRejReason.OTHER, replaceRefused.getInt(CxlRejReason.FIELD));
            assertEquals(REFUSAL, replaceRefused.getString(Text.FIELD));
            assertTrue(canceled != null && canceled.getChar(ExecType.FIELD) == ExecType.CANCELED,
                "the cancel went through: " + canceled);
            FixTestExchange.await("ALICE's other four open", () -> exchange.gateway().openOrders() == 4);

            // Another session has a bucket of its own.
            for (int i = 0; i < 5; i++)
            {
                bob.send(FixGatewayTest.limit("B" + i, Side.BUY, "0.0001", "100.00"));
            }
            for (int i = 0; i < 5; i++)
            {
                assertEquals(ExecType.NEW, bob.next("8").getChar(ExecType.FIELD));
            }

            // A session with a limit of its own is held to that one, and one configured with none to none.
            for (int i = 0; i < 10; i++)
            {
                carol.send(FixGatewayTest.limit("K" + i, Side.BUY, "0.0001", "100.00"));
            }
            // The gateway refuses at once, so the refusals may come before the acceptances.
            final Map<String, Message> carolsAnswers = new HashMap<>();
            for (int i = 0; i < 10; i++)
            {
                final Message report = carol.next("8");
                carolsAnswers.put(report.getString(ClOrdID.FIELD), report);
            }
            for (int i = 0; i < 10; i++)
            {
                final Message report = carolsAnswers.get("K" + i);
                assertEquals(i < 8 ? ExecType.NEW : ExecType.REJECTED, report.getChar(ExecType.FIELD),
                    "CAROL's order " + i + ": " + report);
                if (i >= 8)
                {
                    assertEquals("Rate limit exceeded: 0.1 messages a second, bursts of 8",
                        report.getString(Text.FIELD));
                }
            }
            for (int i = 0; i < orders; i++)
            {
                dave.send(FixGatewayTest.limit("D" + i, Side.BUY, "0.0001", "100.00"));
            }
            for (int i = 0; i < orders; i++)
            {
                assertEquals(ExecType.NEW, dave.next("8").getChar(ExecType.FIELD), "DAVE's order " + i);
            }
            assertEquals(refused.size() + 1 + 2, exchange.gateway().rateLimitedMessages());
        }
    }
}
