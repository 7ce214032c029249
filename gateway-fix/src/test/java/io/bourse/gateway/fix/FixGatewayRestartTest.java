package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import quickfix.Message;
import quickfix.field.AvgPx;
import quickfix.field.ClOrdID;
import quickfix.field.CumQty;
import quickfix.field.ExecType;
import quickfix.field.LastPx;
import quickfix.field.LastQty;
import quickfix.field.LeavesQty;
import quickfix.field.OrdStatus;
import quickfix.field.OrderID;
import quickfix.field.OrigClOrdID;
import quickfix.field.Side;
import quickfix.field.Text;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.math.BigDecimal;

import static io.bourse.gateway.fix.FixGatewayTest.cancel;
import static io.bourse.gateway.fix.FixGatewayTest.limit;
import static io.bourse.gateway.fix.FixGatewayTest.report;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node and the gateway stop and start again on their directories while QuickFIX/J initiators stay up: the
 * sessions log on again with their sequence numbers continuing, open orders keep the ClOrdIDs their clients gave
 * (a cancel by OrigClOrdID finds its order, a fill reports the original ClOrdID), and new OrderIDs and ExecIDs do not
 * repeat earlier ones; trades of open orders while the gateway was down, and reports held for a session away when
 * it restarted, are reported when it is back (restated when it has no record of where its reports stopped); the
 * gateway's bursts of commands (cancel-on-disconnect, the queries after a restart) are all sent however many; and a
 * session whose last numbers were handed to Artio but not recorded before a kill goes on after them, resends answered
 * in full.
 */
class FixGatewayRestartTest
{
    /**
     * ALICE (account 1), who keeps her orders when she disconnects.
     */
    private static final FixSessionSpec ALICE =
        new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0);

    @Test
    void sequenceNumbersClOrdIdsAndIdsContinueAfterARestartOfNodeAndGateway() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .session(ALICE)
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0))).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon();
            QfjClient bob = new QfjClient(exchange.fixPort, "BOB", "bob-pw").awaitLogon())
        {
            alice.send(limit("R1", Side.SELL, "1", "200.00"));
            final String restingOrderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
            bob.send(limit("BID1", Side.BUY, "1", "10.00"));
            final String bidOrderId = report(bob, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
            final int aliceSentBefore = alice.session().getExpectedSenderNum();
            final int aliceReceivedBefore = alice.session().getExpectedTargetNum();

            exchange.stopGateway();
            exchange.stopNode();
            FixTestExchange.await("ALICE and BOB disconnected", () -> !alice.isLoggedOn() && !bob.isLoggedOn());
            exchange.startNode();
            exchange.startGateway();
            alice.awaitLogon();
            bob.awaitLogon();

            // The Logon exchange itself took one number each way: nothing was reset to 1.
            assertEquals(aliceSentBefore + 1, alice.session().getExpectedSenderNum());
            assertEquals(aliceReceivedBefore + 1, alice.session().getExpectedTargetNum());

            alice.send(cancel("R1-CXL", "R1", Side.SELL));
            final Message canceled = report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
            assertEquals("R1", canceled.getString(OrigClOrdID.FIELD));
            assertEquals("R1-CXL", canceled.getString(ClOrdID.FIELD));
            assertEquals(restingOrderId, canceled.getString(OrderID.FIELD));

            alice.send(limit("S2", Side.SELL, "1", "10.00"));
            final String newOrderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
            assertNotEquals(restingOrderId, newOrderId);
            assertNotEquals(bidOrderId, newOrderId);
            assertTrue(Long.parseLong(newOrderId) > Long.parseLong(bidOrderId), "order ids keep increasing");
            report(alice, ExecType.TRADE, OrdStatus.FILLED);
            final Message bidFill = report(bob, ExecType.TRADE, OrdStatus.FILLED);
            assertEquals("BID1", bidFill.getString(ClOrdID.FIELD));
            assertEquals(bidOrderId, bidFill.getString(OrderID.FIELD));
        }
    }

    @Test
    void fillsWhileTheGatewayIsDownAreReportedAsTheyHappenedWhenTheSessionLogsOnAgain() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = aliceOnly();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon())
        {
            alice.send(limit("R1", Side.SELL, "1", "200.00"));
            final String orderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
            alice.send(limit("R2", Side.SELL, "0.5", "201.00"));
            report(alice, ExecType.NEW, OrdStatus.NEW);

            exchange.stopGateway();
            FixTestExchange.await("ALICE disconnected", () -> !alice.isLoggedOn());
            // Account 2 buys 0.4 at 200.00 and then 0.6 + 0.5 up to 201.00 (scaled: price 2 decimals, quantity 4)
            // while no gateway is listening: R1 fills in two trades, R2 in one.
            exchange.sendLimitOrder(2, 99, io.bourse.protocol.codec.Side.BUY, 20_000, 4_000);
            exchange.sendLimitOrder(2, 100, io.bourse.protocol.codec.Side.BUY, 20_100, 11_000);
            exchange.startGateway();
            alice.awaitLogon();

            // The gateway asks the cluster for the events after the last one it reported, and reports each trade.
            final Message first = report(alice, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);
            assertEquals("R1", first.getString(ClOrdID.FIELD));
            assertEquals(orderId, first.getString(OrderID.FIELD));
            assertEquals(new BigDecimal("0.4"), first.getDecimal(LastQty.FIELD).stripTrailingZeros());
            assertEquals(new BigDecimal("200.00"), first.getDecimal(LastPx.FIELD).setScale(2));
            assertEquals(new BigDecimal("0.6"), first.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
            final Message second = report(alice, ExecType.TRADE, OrdStatus.FILLED);
            assertEquals("R1", second.getString(ClOrdID.FIELD));
            assertEquals(new BigDecimal("1"), second.getDecimal(CumQty.FIELD).stripTrailingZeros());
            final Message third = report(alice, ExecType.TRADE, OrdStatus.FILLED);
            assertEquals("R2", third.getString(ClOrdID.FIELD));
            assertEquals(new BigDecimal("201.00"), third.getDecimal(LastPx.FIELD).setScale(2));
            // The status queries after the restart find the orders as the reports left them: nothing restated.
            assertNull(alice.poll(1_000), "nothing more after the three trades");
        }
    }

    /**
     * Reports held for a session that is away live in the gateway's memory only. When the gateway restarts before the
     * session is back, it replays the cluster's events from the batch before the first held report and makes them
     * again, as they happened (an order that filled meanwhile included), while a session that was sent its reports
     * before the restart is not sent them twice.
     */
    @Test
    void reportsHeldForASessionAwayAreMadeAgainAfterTheGatewayRestarts() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .session(ALICE)
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0))).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon();
            QfjClient bob = new QfjClient(exchange.fixPort, "BOB", "bob-pw").awaitLogon())
        {
            alice.send(limit("R1", Side.SELL, "1", "200.00"));
            final String filledOrderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
            alice.send(limit("R2", Side.SELL, "1", "201.00"));
            report(alice, ExecType.NEW, OrdStatus.NEW);
            alice.session().logout("going away");
            FixTestExchange.await("ALICE logged out", () -> !alice.isLoggedOn());

            // BOB buys all of R1 and half of R2 while ALICE is away: his reports are sent, hers held.
            bob.send(limit("B1", Side.BUY, "1.5", "201.00"));
            report(bob, ExecType.NEW, OrdStatus.NEW);
            report(bob, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);
            report(bob, ExecType.TRADE, OrdStatus.FILLED);
            exchange.stopGateway();
            exchange.startGateway();
            bob.awaitLogon();
            alice.session().logon();
            alice.awaitLogon();

            final Message filled = report(alice, ExecType.TRADE, OrdStatus.FILLED);
            assertEquals("R1", filled.getString(ClOrdID.FIELD));
            assertEquals(filledOrderId, filled.getString(OrderID.FIELD));
            assertEquals(new BigDecimal("200.00"), filled.getDecimal(LastPx.FIELD).setScale(2));
            final Message partial = report(alice, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);
            assertEquals("R2", partial.getString(ClOrdID.FIELD));
            assertEquals(new BigDecimal("0.5"), partial.getDecimal(CumQty.FIELD).stripTrailingZeros());
            assertEquals(new BigDecimal("0.5"), partial.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
            assertNull(alice.poll(1_000), "nothing more for ALICE: no restatement");
            assertNull(bob.poll(500), "BOB's reports are not sent again");

            // Her records caught up once the reports were sent: R2 trades on from its half.
            buyTheRest(bob, "B2", "0.5", "201.00", alice, "R2");

            // And a restart now, with nothing held, replays nothing anyone was sent.
            exchange.stopGateway();
            exchange.startGateway();
            alice.awaitLogon();
            bob.awaitLogon();
            assertNull(alice.poll(1_000), "nothing again for ALICE");
            assertNull(bob.poll(500), "nothing again for BOB");
        }
    }

    /**
     * A gateway that stops after sending new orders and before handling their answers (as a crash would) still knows
     * them when it restarts, because it records each before sending it: the replayed events say which the exchange
     * accepted or refused, a query after them settles one they do not mention (it never arrived), and each is
     * reported under the ClOrdID its client gave. An accepted one is then an order like any other.
     */
    @Test
    void newOrdersWhoseAnswersTheGatewayDidNotHandleBeforeItStoppedAreReportedAfterItRestarts() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = aliceOnly();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon())
        {
            alice.send(limit("R1", Side.SELL, "1", "200.00"));
            report(alice, ExecType.NEW, OrdStatus.NEW);
            exchange.stopGateway();
            FixTestExchange.await("ALICE disconnected", () -> !alice.isLoggedOn());

            // What the stopped gateway had done: recorded three new orders and sent them, of which the exchange
            // accepted P1, refused P3 (quantity 0) and never received P2.
            try (FixOrderStore store =
                new FixOrderStore(new File(exchange.baseDir, "fix/open-orders.dat"), System.out);
                FixEventPosition scratch = new FixEventPosition(new File(exchange.baseDir, "scratch.dat")))
            {
                store.open();
                final FixSessionState session =
                    new FixSessionState(ALICE, FixRateLimit.NONE, scratch, scratch, scratch);
                store.writePending(FixOrderStoreTest.recordedOrder(session, "P1", 901, Side.SELL, 20_100, 10_000));
                store.writePending(FixOrderStoreTest.recordedOrder(session, "P2", 902, Side.SELL, 20_200, 10_000));
                store.writePending(FixOrderStoreTest.recordedOrder(session, "P3", 903, Side.SELL, 20_300, 0));
            }
            exchange.sendLimitOrder(1, 901, io.bourse.protocol.codec.Side.SELL, 20_100, 10_000);
            exchange.sendLimitOrder(1, 903, io.bourse.protocol.codec.Side.SELL, 20_300, 0);
            exchange.startGateway();
            alice.awaitLogon();

            final Message accepted = report(alice, ExecType.NEW, OrdStatus.NEW);
            assertEquals("P1", accepted.getString(ClOrdID.FIELD));
            final Message refused = report(alice, ExecType.REJECTED, OrdStatus.REJECTED);
            assertEquals("P3", refused.getString(ClOrdID.FIELD));
            final Message unknown = report(alice, ExecType.REJECTED, OrdStatus.REJECTED);
            assertEquals("P2", unknown.getString(ClOrdID.FIELD));
            assertEquals("Not known to the exchange after the gateway restarted", unknown.getString(Text.FIELD));
            assertNull(alice.poll(1_000), "nothing more");

            alice.send(cancel("P1-CXL", "P1", Side.SELL));
            final Message canceled = report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
            assertEquals(accepted.getString(OrderID.FIELD), canceled.getString(OrderID.FIELD));

            // Settled for good: another restart reports none of them again.
            exchange.stopGateway();
            exchange.startGateway();
            alice.awaitLogon();
            assertNull(alice.poll(1_000), "nothing after a second restart");
        }
    }

    /**
     * An exchange whose gateway knows one session, ALICE (account 1), that keeps its orders when it disconnects.
     */
    private static FixTestExchange aliceOnly()
    {
        return new FixTestExchange(context -> context
            .session(ALICE)).start();
    }

    @Test
    void withoutARecordedPositionFillsWhileTheGatewayIsDownAreRestated() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = aliceOnly();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon())
        {
            alice.send(limit("R1", Side.SELL, "1", "200.00"));
            final String orderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);

            exchange.stopGateway();
            FixTestExchange.await("ALICE disconnected", () -> !alice.isLoggedOn());
            exchange.sendLimitOrder(2, 99, io.bourse.protocol.codec.Side.BUY, 20_000, 4_000);
            // As a gateway from before positions were recorded, or one whose record was lost, starts.
            assertTrue(new File(exchange.baseDir, "fix/event-position.dat").delete());
            exchange.startGateway();
            alice.awaitLogon();

            final Message restated = report(alice, ExecType.RESTATED, OrdStatus.PARTIALLY_FILLED);
            assertEquals("R1", restated.getString(ClOrdID.FIELD));
            assertEquals(orderId, restated.getString(OrderID.FIELD));
            assertEquals(new BigDecimal("0.4"), restated.getDecimal(CumQty.FIELD).stripTrailingZeros());
            assertEquals(new BigDecimal("0.6"), restated.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
            assertEquals(new BigDecimal("200.00"), restated.getDecimal(AvgPx.FIELD).setScale(2));
            assertEquals("Filled while the gateway was down", restated.getString(Text.FIELD));

            // The gateway's record now has the fill: the order trades on from there.
            exchange.sendLimitOrder(2, 100, io.bourse.protocol.codec.Side.BUY, 20_000, 6_000);
            final Message done = report(alice, ExecType.TRADE, OrdStatus.FILLED);
            assertEquals(new BigDecimal("1"), done.getDecimal(CumQty.FIELD).stripTrailingZeros());
        }
    }

    @Test
    void cancelOnDisconnectAndRestoreQueriesBeyondTheClientsBufferAreAllSent() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        // 1,500 commands do not fit in 64 KB of unanswered commands: each path must send the rest as answers free it.
        final int orders = 1_500;
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .session(ALICE)
            .session(new FixSessionSpec("CAROL", "carol-pw", 3, FixSessionSpec.CancelOnDisconnect.SESSION, 100)))
            .gatewayUnansweredBytes(64 * 1024).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon();
            QfjClient carol = new QfjClient(exchange.fixPort, "CAROL", "carol-pw").awaitLogon())
        {
            rest(alice, "A", orders, "300.00");
            rest(carol, "C", orders, "310.00");
            assertEquals(2 * orders, exchange.gateway().openOrders());

            carol.session().logout("going away");
            FixTestExchange.await("CAROL's orders all canceled on disconnect",
                () -> exchange.gateway().openOrders() == orders);

            // ALICE's orders are canceled at the node while the gateway is down: the restarted gateway asks about
            // every one it restored and closes them all.
            exchange.stopGateway();
            exchange.sendMassCancel(1);
            exchange.startGateway();
            FixTestExchange.await("every restored order asked about and closed", () -> exchange.gateway().openOrders() == 0);
        }
    }

    /**
     * A gateway killed before Artio recorded the last numbers it was handed goes on after them, those numbers filled
     * in Artio's log: the client's resend of them at logon is a gap fill, and a later resend beyond them gets every
     * message (a number missing from Artio's index would make its replay start that many messages late, and hang).
     */
    @Test
    void aResendAfterARestartThatWentOnPastNumbersWrittenButNotRecordedIsAnsweredInFull() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = new FixTestExchange(context -> context.session(ALICE)).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon())
        {
            rest(alice, "A", 100, "200.00");
            exchange.stopGateway();
            FixTestExchange.await("ALICE disconnected", () -> !alice.isLoggedOn());
            final int expectedBeforeRestart = alice.session().getExpectedTargetNum();
            // As a kill -9 can leave it: the gateway had handed Artio ten numbers beyond those it recorded. The last
            // number recorded is the stop's Logout, or the report before it when Artio's engine sent the Logout after
            // the gateway's library had closed (Artio itself keeps that one).
            final long recorded;
            try (FixEventPosition outbound = new FixEventPosition(
                new File(exchange.baseDir, "fix/" + FixSessionState.outboundFileName("ALICE"))))
            {
                recorded = outbound.logPosition();
                outbound.record(outbound.batchSequence(), recorded + 10);
            }
            assertTrue(recorded == expectedBeforeRestart - 1 || recorded == expectedBeforeRestart - 2,
                "the last number recorded, " + recorded + ", is the Logout or the one before it; the client had " +
                (expectedBeforeRestart - 1));
            exchange.startGateway();
            alice.awaitLogon();
            rest(alice, "B", 100, "200.00");
            // The Logon came ten numbers after the last recorded; the client's resend of those it lacked was a gap fill.
            assertExpectedTargetNum(recorded + 10 + 1 + 100 + 1, alice);

            // The client asks again for the last fifteen messages.
            final int expected = alice.session().getExpectedTargetNum();
            alice.session().setNextTargetMsgSeqNum(expected - 15);
            alice.received.clear();
            alice.send(limit("C1", Side.SELL, "0.0001", "200.00"));
            FixTestExchange.await("the resend answered", () -> alice.session().getExpectedTargetNum() > expected);
            final List<String> clOrdIds = new ArrayList<>();
            Message message;
            while ((message = alice.received.poll()) != null)
            {
                clOrdIds.add(message.getString(ClOrdID.FIELD));
            }
            final List<String> resent = new ArrayList<>();
            for (int i = 85; i < 100; i++)
            {
                resent.add("B" + i);
            }
            resent.add("C1");
            assertEquals(resent, clOrdIds, "the fifteen reports again, then the new order's");
        }
    }

    /**
     * QuickFIX/J counts a message received only after it has handed it to the application, so a test that has just
     * taken a report may read the count one short: wait a moment for it to catch up before comparing.
     */
    private static void assertExpectedTargetNum(final long expected, final QfjClient client) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.session().getExpectedTargetNum() != expected && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(1);
        }
        assertEquals(expected, client.session().getExpectedTargetNum());
    }

    /**
     * Resting sell orders of 0.0001 at one price, in rounds small enough for the gateway's client to take.
     */
    /**
     * A restart whose replay reaches back past what the node's history holds (a session was away with reports held
     * for it, and many events followed): the gateway goes on from the oldest batch held instead of asking again for
     * ever, restates the order whose fill was among the lost batches and reports the one that closed among them as
     * done, sends nobody anything twice, and follows the exchange's events live from then on.
     */
    @Test
    void aReplayPastTheNodesHistoryRestatesWhatWasLostAndGoesOn() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .session(ALICE)
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0)))
            .historyCapacityBytes(16 * 1024).start();
            QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon();
            QfjClient bob = new QfjClient(exchange.fixPort, "BOB", "bob-pw").awaitLogon())
        {
            alice.send(limit("R1", Side.SELL, "1", "200.00"));
            final String orderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
            alice.send(limit("R2", Side.SELL, "1", "199.00"));
            final String closedOrderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
            alice.session().logout("going away");
            FixTestExchange.await("ALICE logged out", () -> !alice.isLoggedOn());

            // All of R2 and 0.4 of R1 trade while ALICE is away.
            bob.send(limit("B1", Side.BUY, "1.4", "200.00"));
            report(bob, ExecType.NEW, OrdStatus.NEW);
            report(bob, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);
            report(bob, ExecType.TRADE, OrdStatus.FILLED);
            // Far more than 16 KiB of events: the batch with ALICE's fill is no longer held when the gateway restarts.
            rest(bob, "BR", 400, "300.00");
            exchange.stopGateway();
            exchange.startGateway();
            bob.awaitLogon();
            alice.session().logon();
            alice.awaitLogon();

            final Message first = alice.poll(10_000);
            final Message second = alice.poll(2_000);
            assertTrue(first != null && second != null, "two reports for ALICE: " + first + ", " + second);
            final Message restated = "R1".equals(first.getString(ClOrdID.FIELD)) ? first : second;
            final Message closed = restated == first ? second : first;
            assertEquals(ExecType.RESTATED, restated.getChar(ExecType.FIELD));
            assertEquals(OrdStatus.PARTIALLY_FILLED, restated.getChar(OrdStatus.FIELD));
            assertEquals("R1", restated.getString(ClOrdID.FIELD));
            assertEquals(orderId, restated.getString(OrderID.FIELD));
            assertEquals(new BigDecimal("0.4"), restated.getDecimal(CumQty.FIELD).stripTrailingZeros());
            assertEquals(new BigDecimal("0.6"), restated.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
            assertEquals("Filled while the gateway was down", restated.getString(Text.FIELD));
            assertEquals("R2", closed.getString(ClOrdID.FIELD));
            assertEquals(closedOrderId, closed.getString(OrderID.FIELD));
            assertEquals(ExecType.RESTATED, closed.getChar(ExecType.FIELD));
            assertEquals(OrdStatus.DONE_FOR_DAY, closed.getChar(OrdStatus.FIELD));
            assertEquals(0, closed.getDecimal(LeavesQty.FIELD).signum());
            assertTrue(closed.getString(Text.FIELD).startsWith("Closed while the gateway was down"),
                closed.getString(Text.FIELD));
            assertNull(alice.poll(1_000), "nothing more for ALICE");
            assertNull(bob.poll(500), "BOB's reports are not sent again");

            // Live again: a new order is answered, and R1 trades on from its restated totals.
            buyTheRest(bob, "B2", "0.6", "200.00", alice, "R1");
        }
    }

    /**
     * The buyer takes what is left of one of the seller's orders (of 1 in all): his order fills, and hers is reported
     * filled.
     */
    private static void buyTheRest(
        final QfjClient buyer, final String clOrdId, final String quantity, final String price, final QfjClient seller,
        final String sellerClOrdId) throws Exception
    {
        buyer.send(limit(clOrdId, Side.BUY, quantity, price));
        report(buyer, ExecType.NEW, OrdStatus.NEW);
        report(buyer, ExecType.TRADE, OrdStatus.FILLED);
        final Message done = report(seller, ExecType.TRADE, OrdStatus.FILLED);
        assertEquals(sellerClOrdId, done.getString(ClOrdID.FIELD));
        assertEquals(new BigDecimal("1"), done.getDecimal(CumQty.FIELD).stripTrailingZeros());
    }

    private static void rest(final QfjClient client, final String prefix, final int count, final String price)
        throws Exception
    {
        final int round = 100;
        for (int sent = 0; sent < count; sent += round)
        {
            for (int i = sent; i < sent + round; i++)
            {
                client.send(limit(prefix + i, Side.SELL, "0.0001", price));
            }
            for (int i = sent; i < sent + round; i++)
            {
                report(client, ExecType.NEW, OrdStatus.NEW);
            }
        }
    }
}
