package io.bourse.gateway.fix;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import quickfix.FieldNotFound;
import quickfix.Message;
import quickfix.field.AvgPx;
import quickfix.field.BusinessRejectReason;
import quickfix.field.BusinessRejectRefID;
import quickfix.field.ClOrdID;
import quickfix.field.CommType;
import quickfix.field.Commission;
import quickfix.field.CumQty;
import quickfix.field.CxlRejReason;
import quickfix.field.CxlRejResponseTo;
import quickfix.field.ExecID;
import quickfix.field.ExecInst;
import quickfix.field.ExecType;
import quickfix.field.ExpireTime;
import quickfix.field.LastPx;
import quickfix.field.LastQty;
import quickfix.field.LastRptRequested;
import quickfix.field.LeavesQty;
import quickfix.field.MassCancelRejectReason;
import quickfix.field.MassCancelRequestType;
import quickfix.field.MassCancelResponse;
import quickfix.field.MassStatusReqID;
import quickfix.field.MassStatusReqType;
import quickfix.field.OrdRejReason;
import quickfix.field.OrdStatus;
import quickfix.field.OrdType;
import quickfix.field.OrderID;
import quickfix.field.OrderQty;
import quickfix.field.OrigClOrdID;
import quickfix.field.Price;
import quickfix.field.RefMsgType;
import quickfix.field.Side;
import quickfix.field.StopPx;
import quickfix.field.Symbol;
import quickfix.field.Text;
import quickfix.field.TimeInForce;
import quickfix.field.TotNumReports;
import quickfix.field.TotalAffectedOrders;
import quickfix.field.TransactTime;
import quickfix.fix44.NewOrderSingle;
import quickfix.fix44.OrderCancelReplaceRequest;
import quickfix.fix44.OrderCancelRequest;
import quickfix.fix44.OrderMassCancelRequest;
import quickfix.fix44.OrderMassStatusRequest;
import quickfix.fix44.OrderStatusRequest;

import java.io.File;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway driven by QuickFIX/J 3.0.0 as an unmodified initiator: every application message, fills across two
 * sessions, replace with and without time priority, mass cancel, status, engine rejects, logon failure and lock-out,
 * cancel-on-disconnect. One exchange for the class; each test uses its own price level so that tests do not trade
 * with each other's orders.
 */
class FixGatewayTest
{
    private static final AtomicInteger IDS = new AtomicInteger();
    private static FixTestExchange exchange;
    private static QfjClient alice;
    private static QfjClient bob;
    private static final Set<String> EXEC_IDS = new HashSet<>();

    @BeforeAll
    static void start()
    {
        exchange = new FixTestExchange(context -> context
            .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("BOB", "bob-pw", 2, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("CAROL", "carol-pw", 3, FixSessionSpec.CancelOnDisconnect.SESSION, 100))
            .session(new FixSessionSpec("DAVE", "dave-pw", 4, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("GRACE", "grace-pw", 3, FixSessionSpec.CancelOnDisconnect.ACCOUNT, 100))
            .session(new FixSessionSpec("MALLORY", "mallory-pw", 4, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("ERIN", "erin-pw", 4, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .logonLockout(3, 60_000, 60_000)
            // Far off: Day orders are taken, and none expires while the tests run.
            .endOfDayUtc(LocalTime.now(ZoneOffset.UTC).plusHours(12))).start();
        alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon();
        bob = new QfjClient(exchange.fixPort, "BOB", "bob-pw").awaitLogon();
    }

    @AfterAll
    static void stop()
    {
        if (alice != null)
        {
            alice.close();
        }
        if (bob != null)
        {
            bob.close();
        }
        if (exchange != null)
        {
            exchange.close();
        }
    }

    @Test
    void aSecondGatewayOnTheSameDataDirectoryIsRefused()
    {
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> FixGateway.launch(new FixGateway.Context()
                .dataDir(new File(exchange.baseDir, "fix"))
                .port(exchange.fixPort)
                .compId(FixTestExchange.GATEWAY_COMP_ID)
                .instrument(FixTestExchange.BTC_USD)
                .session(new FixSessionSpec("CAROL", "carol-pw", 3, FixSessionSpec.CancelOnDisconnect.NONE, 0))
                .exchangeClient(exchange.node().clientContext())));
        assertTrue(refused.getMessage().endsWith("is in use by another running gateway"), refused.getMessage());
    }

    /**
     * Leave an empty book and nothing unread for the next test: cancel every order of both sessions.
     */
    @AfterEach
    void cancelEverything() throws Exception
    {
        for (final QfjClient client : new QfjClient[]{alice, bob})
        {
            client.send(massCancelAll(id("END")));
            final long deadlineNs = System.nanoTime() + FixTestExchange.TIMEOUT_NS;
            Message message;
            do
            {
                message = client.poll(1000);
                assertTrue(System.nanoTime() < deadlineNs, "no OrderMassCancelReport");
            }
            while (message == null || !"r".equals(message.getHeader().getString(35)));
        }
    }

    @Test
    void partialFillsAcrossTwoSessions() throws Exception
    {
        final String sell = id("S");
        alice.send(limit(sell, Side.SELL, "1.5", "101.00"));
        final Message sellNew = report(alice, ExecType.NEW, OrdStatus.NEW);
        assertEquals(sell, sellNew.getString(ClOrdID.FIELD));
        assertEquals(new BigDecimal("1.5"), sellNew.getDecimal(LeavesQty.FIELD));

        final String buy = id("B");
        bob.send(limit(buy, Side.BUY, "1", "101.00"));
        report(bob, ExecType.NEW, OrdStatus.NEW);
        final Message buyFill = report(bob, ExecType.TRADE, OrdStatus.FILLED);
        assertEquals(buy, buyFill.getString(ClOrdID.FIELD));
        assertEquals(new BigDecimal("1"), buyFill.getDecimal(LastQty.FIELD));
        assertEquals(new BigDecimal("101.00"), buyFill.getDecimal(LastPx.FIELD).setScale(2));
        assertEquals(BigDecimal.ZERO, buyFill.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
        // Each side's fee, in the quote asset: Bob's account takes at 0.2 %, Alice's makes at 0.05 %.
        assertEquals(new BigDecimal("0.202"), buyFill.getDecimal(Commission.FIELD).stripTrailingZeros());
        assertEquals(CommType.ABSOLUTE, buyFill.getChar(CommType.FIELD));

        final Message sellFill = report(alice, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);
        assertEquals(sell, sellFill.getString(ClOrdID.FIELD));
        assertEquals(sellNew.getString(OrderID.FIELD), sellFill.getString(OrderID.FIELD));
        assertEquals(new BigDecimal("1"), sellFill.getDecimal(CumQty.FIELD).stripTrailingZeros());
        assertEquals(new BigDecimal("0.5"), sellFill.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
        assertEquals(new BigDecimal("0.0505"), sellFill.getDecimal(Commission.FIELD).stripTrailingZeros());
        assertEquals(CommType.ABSOLUTE, sellFill.getChar(CommType.FIELD));
        assertFalse(sellNew.isSetField(Commission.FIELD), "a fill's only");

        final String buy2 = id("B");
        bob.send(limit(buy2, Side.BUY, "0.5", "101.00"));
        report(bob, ExecType.NEW, OrdStatus.NEW);
        report(bob, ExecType.TRADE, OrdStatus.FILLED);
        final Message sellDone = report(alice, ExecType.TRADE, OrdStatus.FILLED);
        assertEquals(new BigDecimal("1.5"), sellDone.getDecimal(CumQty.FIELD).stripTrailingZeros());

        // Requests that crossed the fill on the wire: a cancel and a replace are too late, a status request gets the
        // order's final state.
        alice.send(cancel(id("X"), sell, Side.SELL));
        final Message cancelTooLate = alice.next("9");
        assertEquals(CxlRejReason.TOO_LATE_TO_CANCEL, cancelTooLate.getInt(CxlRejReason.FIELD));
        assertEquals(OrdStatus.FILLED, cancelTooLate.getChar(OrdStatus.FIELD));
        assertEquals(sellNew.getString(OrderID.FIELD), cancelTooLate.getString(OrderID.FIELD));
        alice.send(replace(id("R"), sell, Side.SELL, "2", "101.00"));
        final Message replaceTooLate = alice.next("9");
        assertEquals(CxlRejReason.TOO_LATE_TO_CANCEL, replaceTooLate.getInt(CxlRejReason.FIELD));
        assertEquals(CxlRejResponseTo.ORDER_CANCEL_REPLACE_REQUEST, replaceTooLate.getChar(CxlRejResponseTo.FIELD));
        assertEquals(OrdStatus.FILLED, replaceTooLate.getChar(OrdStatus.FIELD));
        alice.send(status(sell, Side.SELL));
        final Message finalStatus = report(alice, ExecType.ORDER_STATUS, OrdStatus.FILLED);
        assertEquals(sellNew.getString(OrderID.FIELD), finalStatus.getString(OrderID.FIELD));
        assertEquals(new BigDecimal("1.5"), finalStatus.getDecimal(CumQty.FIELD).stripTrailingZeros());
        assertEquals(BigDecimal.ZERO, finalStatus.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
        assertEquals(new BigDecimal("101.00"), finalStatus.getDecimal(AvgPx.FIELD).setScale(2));
    }

    @Test
    void cancelEchoesBothClOrdIdsAndAClosedOrUnknownOrderGetsCancelReject() throws Exception
    {
        final String order = id("C");
        alice.send(limit(order, Side.BUY, "0.1", "50.00"));
        final Message accepted = report(alice, ExecType.NEW, OrdStatus.NEW);

        final String cancel = id("X");
        alice.send(cancel(cancel, order, Side.BUY));
        final Message canceled = report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
        assertEquals(cancel, canceled.getString(ClOrdID.FIELD));
        assertEquals(order, canceled.getString(OrigClOrdID.FIELD));
        assertEquals(accepted.getString(OrderID.FIELD), canceled.getString(OrderID.FIELD));

        // Canceled already: too late, with the order's final state.
        alice.send(cancel(id("X"), order, Side.BUY));
        final Message tooLate = alice.next("9");
        assertEquals(CxlRejReason.TOO_LATE_TO_CANCEL, tooLate.getInt(CxlRejReason.FIELD));
        assertEquals(CxlRejResponseTo.ORDER_CANCEL_REQUEST, tooLate.getChar(CxlRejResponseTo.FIELD));
        assertEquals(OrdStatus.CANCELED, tooLate.getChar(OrdStatus.FIELD));
        assertEquals(order, tooLate.getString(OrigClOrdID.FIELD));
        assertEquals(accepted.getString(OrderID.FIELD), tooLate.getString(OrderID.FIELD));

        alice.send(cancel(id("X"), "never-sent", Side.BUY));
        final Message reject = alice.next("9");
        assertEquals(CxlRejReason.UNKNOWN_ORDER, reject.getInt(CxlRejReason.FIELD));
        assertEquals(CxlRejResponseTo.ORDER_CANCEL_REQUEST, reject.getChar(CxlRejResponseTo.FIELD));
        assertEquals("never-sent", reject.getString(OrigClOrdID.FIELD));
    }

    @Test
    void reportsEchoTheOrdersTimeInForceAndPostOnlyInstruction() throws Exception
    {
        final String maker = id("P");
        final NewOrderSingle postOnly = limit(maker, Side.BUY, "0.1", "40.00");
        postOnly.set(new ExecInst(String.valueOf(ExecInst.PARTICIPATE_DONT_INITIATE)));
        alice.send(postOnly);
        final Message makerNew = report(alice, ExecType.NEW, OrdStatus.NEW);
        assertEquals(TimeInForce.GOOD_TILL_CANCEL, makerNew.getChar(TimeInForce.FIELD));
        assertEquals("6", makerNew.getString(ExecInst.FIELD));
        alice.send(cancel(id("X"), maker, Side.BUY));
        final Message makerCanceled = report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
        assertEquals(TimeInForce.GOOD_TILL_CANCEL, makerCanceled.getChar(TimeInForce.FIELD));
        assertEquals("6", makerCanceled.getString(ExecInst.FIELD));

        final NewOrderSingle ioc = limit(id("I"), Side.BUY, "0.1", "30.00");
        ioc.set(new TimeInForce(TimeInForce.IMMEDIATE_OR_CANCEL));
        bob.send(ioc);
        final Message iocNew = report(bob, ExecType.NEW, OrdStatus.NEW);
        assertEquals(TimeInForce.IMMEDIATE_OR_CANCEL, iocNew.getChar(TimeInForce.FIELD));
        assertFalse(iocNew.isSetField(ExecInst.FIELD), iocNew.toString());
        final Message iocCanceled = report(bob, ExecType.CANCELED, OrdStatus.CANCELED);
        assertEquals(TimeInForce.IMMEDIATE_OR_CANCEL, iocCanceled.getChar(TimeInForce.FIELD));

        final NewOrderSingle defaulted = limit(id("D"), Side.BUY, "0.1", "30.00");
        defaulted.removeField(TimeInForce.FIELD);
        bob.send(defaulted);
        assertEquals(TimeInForce.GOOD_TILL_CANCEL, report(bob, ExecType.NEW, OrdStatus.NEW).getChar(TimeInForce.FIELD),
            "a limit order without TimeInForce is good till cancel");
    }

    @Test
    void aGoodTillDateOrderEchoesItsExpireTimeAndExpiresThen() throws Exception
    {
        // Whole seconds, three or four ahead: time enough for the order and its replace on a loaded machine.
        final LocalDateTime expiry = LocalDateTime.now(ZoneOffset.UTC).plusSeconds(4).withNano(0);
        final String gtd = id("G");
        final NewOrderSingle order = limit(gtd, Side.BUY, "0.1", "31.00");
        order.set(new TimeInForce(TimeInForce.GOOD_TILL_DATE));
        order.set(new ExpireTime(expiry));
        alice.send(order);
        final Message accepted = report(alice, ExecType.NEW, OrdStatus.NEW);
        assertEquals(TimeInForce.GOOD_TILL_DATE, accepted.getChar(TimeInForce.FIELD));
        assertEquals(expiry, accepted.getUtcTimeStamp(ExpireTime.FIELD));

        final String replacement = id("R");
        alice.send(replace(replacement, gtd, Side.BUY, "0.2", "31.00"));
        final Message replaced = report(alice, ExecType.REPLACED, OrdStatus.NEW);
        assertEquals(expiry, replaced.getUtcTimeStamp(ExpireTime.FIELD), "a replace keeps the expiry");

        final Message expired = report(alice, ExecType.EXPIRED, OrdStatus.EXPIRED);
        assertFalse(LocalDateTime.now(ZoneOffset.UTC).isBefore(expiry), "expired at its time, not before");
        assertEquals(replacement, expired.getString(ClOrdID.FIELD));
        assertEquals(0, expired.getDecimal(LeavesQty.FIELD).signum());
        assertEquals(expiry, expired.getUtcTimeStamp(ExpireTime.FIELD));
        alice.send(cancel(id("X"), replacement, Side.BUY));
        final Message tooLate = alice.next("9");
        assertEquals(CxlRejReason.TOO_LATE_TO_CANCEL, tooLate.getInt(CxlRejReason.FIELD));
        assertEquals(OrdStatus.EXPIRED, tooLate.getChar(OrdStatus.FIELD));
    }

    @Test
    void aDayOrderKeepsItsTimeInForceThroughReplaceAndStatus() throws Exception
    {
        final String day = id("D");
        final NewOrderSingle order = limit(day, Side.BUY, "0.1", "32.00");
        order.set(new TimeInForce(TimeInForce.DAY));
        alice.send(order);
        final Message accepted = report(alice, ExecType.NEW, OrdStatus.NEW);
        assertEquals(TimeInForce.DAY, accepted.getChar(TimeInForce.FIELD));
        assertFalse(accepted.isSetField(ExpireTime.FIELD), "the end of day is the gateway's, not the order's");

        final String replacement = id("R");
        final OrderCancelReplaceRequest replace = replace(replacement, day, Side.BUY, "0.2", "32.00");
        replace.set(new TimeInForce(TimeInForce.DAY));
        alice.send(replace);
        assertEquals(TimeInForce.DAY, report(alice, ExecType.REPLACED, OrdStatus.NEW).getChar(TimeInForce.FIELD));
        alice.send(status(replacement, Side.BUY));
        assertEquals(TimeInForce.DAY, report(alice, ExecType.ORDER_STATUS, OrdStatus.NEW).getChar(TimeInForce.FIELD));
        final OrderCancelReplaceRequest toGtc = replace(id("R"), replacement, Side.BUY, "0.2", "32.00");
        toGtc.set(new TimeInForce(TimeInForce.GOOD_TILL_CANCEL));
        alice.send(toGtc);
        assertEquals("TimeInForce cannot change on a replace", alice.next("9").getString(Text.FIELD));

        // A stop market order may wait for its stop price until the end of day; a market order has no day to wait.
        final String stopMarket = id("T");
        final NewOrderSingle dayStop = stop(stopMarket, Side.SELL, "0.1", null, "10.00");
        dayStop.set(new TimeInForce(TimeInForce.DAY));
        alice.send(dayStop);
        assertEquals(TimeInForce.DAY, report(alice, ExecType.NEW, OrdStatus.NEW).getChar(TimeInForce.FIELD));
        final NewOrderSingle market = limit(id("M"), Side.BUY, "0.1", "1");
        market.set(new OrdType(OrdType.MARKET));
        market.removeField(Price.FIELD);
        market.set(new TimeInForce(TimeInForce.DAY));
        alice.send(market);
        assertTrue(report(alice, ExecType.REJECTED, OrdStatus.REJECTED).getString(Text.FIELD)
            .contains("market orders IOC or FOK"));

        alice.send(cancel(id("X"), replacement, Side.BUY));
        assertEquals(TimeInForce.DAY, report(alice, ExecType.CANCELED, OrdStatus.CANCELED).getChar(TimeInForce.FIELD));
        alice.send(cancel(id("X"), stopMarket, Side.SELL));
        report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
    }

    @Test
    void replaceKeepsPriorityOnAQuantityDecreaseAndLosesItOnAPriceChange() throws Exception
    {
        final String first = id("P");
        final String second = id("P");
        alice.send(limit(first, Side.SELL, "1", "120.00"));
        report(alice, ExecType.NEW, OrdStatus.NEW);
        alice.send(limit(second, Side.SELL, "1", "120.00"));
        report(alice, ExecType.NEW, OrdStatus.NEW);

        // Smaller quantity: keeps its place ahead of the second order.
        final String firstSmaller = id("R");
        alice.send(replace(firstSmaller, first, Side.SELL, "0.5", "120.00"));
        final Message replaced = report(alice, ExecType.REPLACED, OrdStatus.NEW);
        assertEquals(firstSmaller, replaced.getString(ClOrdID.FIELD));
        assertEquals(first, replaced.getString(OrigClOrdID.FIELD));
        assertTrue(replaced.getString(Text.FIELD).contains("kept"), replaced.toString());

        bob.send(limit(id("B"), Side.BUY, "0.5", "120.00"));
        report(bob, ExecType.NEW, OrdStatus.NEW);
        report(bob, ExecType.TRADE, OrdStatus.FILLED);
        assertEquals(firstSmaller, report(alice, ExecType.TRADE, OrdStatus.FILLED).getString(ClOrdID.FIELD));

        // The second order moves away and back: it loses priority to a third order entered meanwhile.
        final String third = id("P");
        final String secondMoved = id("R");
        alice.send(replace(secondMoved, second, Side.SELL, "1", "120.01"));
        final Message moved = report(alice, ExecType.REPLACED, OrdStatus.NEW);
        assertTrue(moved.getString(Text.FIELD).contains("lost"), moved.toString());
        alice.send(limit(third, Side.SELL, "1", "120.00"));
        report(alice, ExecType.NEW, OrdStatus.NEW);
        final String secondBack = id("R");
        alice.send(replace(secondBack, secondMoved, Side.SELL, "1", "120.00"));
        report(alice, ExecType.REPLACED, OrdStatus.NEW);

        bob.send(limit(id("B"), Side.BUY, "1", "120.00"));
        report(bob, ExecType.NEW, OrdStatus.NEW);
        report(bob, ExecType.TRADE, OrdStatus.FILLED);
        assertEquals(third, report(alice, ExecType.TRADE, OrdStatus.FILLED).getString(ClOrdID.FIELD));

        alice.send(cancel(id("X"), secondBack, Side.SELL));
        report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
    }

    @Test
    void aStopOrderWaitsForItsStopPriceAndEchoesIt() throws Exception
    {
        // A trade at 130.00 is the last price the stops are entered against.
        trade("130.00");

        final NewOrderSingle withoutStopPx = stop(id("T"), Side.SELL, "0.2", "124.00", null);
        bob.send(withoutStopPx);
        assertTrue(report(bob, ExecType.REJECTED, OrdStatus.REJECTED).getString(Text.FIELD).contains("StopPx (99) required"));
        final NewOrderSingle limitWithStopPx = limit(id("T"), Side.SELL, "0.2", "124.00");
        limitWithStopPx.set(new StopPx(125.0));
        bob.send(limitWithStopPx);
        assertTrue(report(bob, ExecType.REJECTED, OrdStatus.REJECTED).getString(Text.FIELD).contains("only on a stop order"));
        bob.send(stop(id("T"), Side.SELL, "0.2", "124.00", "130.00"));
        assertTrue(report(bob, ExecType.REJECTED, OrdStatus.REJECTED).getString(Text.FIELD).contains("STOP_WOULD_TRIGGER"),
            "a sell stop at the last price would trigger at once");

        final String stop = id("T");
        bob.send(stop(stop, Side.SELL, "0.2", "124.00", "125.00"));
        final Message waiting = report(bob, ExecType.NEW, OrdStatus.NEW);
        assertEquals(OrdType.STOP_LIMIT, waiting.getChar(OrdType.FIELD));
        assertEquals(new BigDecimal("125.00"), waiting.getDecimal(StopPx.FIELD).setScale(2));
        assertEquals(new BigDecimal("124.00"), waiting.getDecimal(Price.FIELD).setScale(2));

        final String moved = id("R");
        final OrderCancelReplaceRequest move = replace(moved, stop, Side.SELL, "0.2", "124.00");
        move.set(new OrdType(OrdType.STOP_LIMIT));
        move.set(new StopPx(126.0));
        bob.send(move);
        final Message replaced = report(bob, ExecType.REPLACED, OrdStatus.NEW);
        assertEquals(new BigDecimal("126.00"), replaced.getDecimal(StopPx.FIELD).setScale(2));
        final OrderCancelReplaceRequest asLimit = replace(id("R"), moved, Side.SELL, "0.2", "124.00");
        bob.send(asLimit);
        assertTrue(bob.next("9").getString(Text.FIELD).contains("OrdType cannot change"));

        // A trade at 126.00 triggers it: it sells at 124.00 or better, and rests there when nothing bids.
        trade("126.00");
        alice.send(limit(id("B"), Side.BUY, "0.1", "124.00"));
        report(alice, ExecType.NEW, OrdStatus.NEW);
        report(alice, ExecType.TRADE, OrdStatus.FILLED);
        final Message filled = report(bob, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);
        assertEquals(moved, filled.getString(ClOrdID.FIELD));
        assertEquals(new BigDecimal("126.00"), filled.getDecimal(StopPx.FIELD).setScale(2), "the StopPx it had");

        // Triggered, it is a limit order: a replace may send its StopPx again, not change it.
        final String again = id("R");
        final OrderCancelReplaceRequest sameStop = replace(again, moved, Side.SELL, "0.3", "124.00");
        sameStop.set(new OrdType(OrdType.STOP_LIMIT));
        sameStop.set(new StopPx(126.0));
        bob.send(sameStop);
        report(bob, ExecType.REPLACED, OrdStatus.PARTIALLY_FILLED);
        final OrderCancelReplaceRequest newStop = replace(id("R"), again, Side.SELL, "0.3", "124.00");
        newStop.set(new OrdType(OrdType.STOP_LIMIT));
        newStop.set(new StopPx(127.0));
        bob.send(newStop);
        assertTrue(bob.next("9").getString(Text.FIELD).contains("StopPx cannot change"));

        // A stop market order names no price, on entry or replace.
        final String market = id("T");
        bob.send(stop(market, Side.SELL, "0.1", null, "110.00"));
        assertEquals(OrdType.STOP, report(bob, ExecType.NEW, OrdStatus.NEW).getChar(OrdType.FIELD));
        final OrderCancelReplaceRequest priced = replace(id("R"), market, Side.SELL, "0.1", "109.00");
        priced.set(new OrdType(OrdType.STOP));
        bob.send(priced);
        assertTrue(bob.next("9").getString(Text.FIELD).contains("Price not allowed"));
    }

    /**
     * Alice sells 0.1 to Bob at the price, leaving the instrument's last trade price there.
     */
    private void trade(final String price) throws FieldNotFound
    {
        alice.send(limit(id("S"), Side.SELL, "0.1", price));
        report(alice, ExecType.NEW, OrdStatus.NEW);
        bob.send(limit(id("B"), Side.BUY, "0.1", price));
        report(bob, ExecType.NEW, OrdStatus.NEW);
        report(bob, ExecType.TRADE, OrdStatus.FILLED);
        report(alice, ExecType.TRADE, OrdStatus.FILLED);
    }

    /**
     * A stop limit order (OrdType 4) at the price, or a stop market order (OrdType 3) when the price is null, GTC.
     */
    static NewOrderSingle stop(
        final String clOrdId, final char side, final String quantity, final String price, final String stopPx)
    {
        final NewOrderSingle order = limit(clOrdId, side, quantity, price == null ? "1" : price);
        order.set(new OrdType(price == null ? OrdType.STOP : OrdType.STOP_LIMIT));
        if (price == null)
        {
            order.removeField(Price.FIELD);
        }
        if (stopPx != null)
        {
            order.set(new StopPx(Double.parseDouble(stopPx)));
        }
        return order;
    }

    @Test
    void statusOfAnOpenOrderAndOfAnUnknownOne() throws Exception
    {
        final String order = id("Q");
        alice.send(limit(order, Side.BUY, "0.2", "40.00"));
        final Message accepted = report(alice, ExecType.NEW, OrdStatus.NEW);

        alice.send(status(order, Side.BUY));
        final Message answer = report(alice, ExecType.ORDER_STATUS, OrdStatus.NEW);
        assertEquals(accepted.getString(OrderID.FIELD), answer.getString(OrderID.FIELD));
        assertEquals(new BigDecimal("0.2"), answer.getDecimal(LeavesQty.FIELD).stripTrailingZeros());

        alice.send(status("no-such-order", Side.BUY));
        final Message unknownAnswer = report(alice, ExecType.ORDER_STATUS, OrdStatus.REJECTED);
        assertEquals("Unknown order", unknownAnswer.getString(Text.FIELD));

        alice.send(cancel(id("X"), order, Side.BUY));
        report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
    }

    @Test
    void massStatusReportsTheSessionsOpenOrdersAllOrOfASymbolAndSide() throws Exception
    {
        final String buy = id("S");
        alice.send(limit(buy, Side.BUY, "0.3", "41.00"));
        final String buyOrderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
        final String sell = id("S");
        alice.send(limit(sell, Side.SELL, "0.2", "200.00"));
        final String sellOrderId = report(alice, ExecType.NEW, OrdStatus.NEW).getString(OrderID.FIELD);
        bob.send(limit(id("B"), Side.SELL, "0.1", "41.00"));
        report(bob, ExecType.NEW, OrdStatus.NEW);
        report(bob, ExecType.TRADE, OrdStatus.FILLED);
        report(alice, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);

        alice.send(new OrderMassStatusRequest(new MassStatusReqID("MS-all"),
            new MassStatusReqType(MassStatusReqType.STATUS_FOR_ALL_ORDERS)));
        final Message first = report(alice, ExecType.ORDER_STATUS, OrdStatus.PARTIALLY_FILLED);
        assertEquals(buyOrderId, first.getString(OrderID.FIELD), "in OrderID order: " + first);
        assertEquals(buy, first.getString(ClOrdID.FIELD));
        assertEquals("MS-all", first.getString(MassStatusReqID.FIELD));
        assertEquals(2, first.getInt(TotNumReports.FIELD));
        assertFalse(first.getBoolean(LastRptRequested.FIELD));
        assertEquals(new BigDecimal("0.1"), first.getDecimal(CumQty.FIELD).stripTrailingZeros());
        assertEquals(new BigDecimal("0.2"), first.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
        final Message second = report(alice, ExecType.ORDER_STATUS, OrdStatus.NEW);
        assertEquals(sellOrderId, second.getString(OrderID.FIELD));
        assertEquals(2, second.getInt(TotNumReports.FIELD));
        assertTrue(second.getBoolean(LastRptRequested.FIELD), "the last report says so");

        final OrderMassStatusRequest sells = new OrderMassStatusRequest(new MassStatusReqID("MS-sells"),
            new MassStatusReqType(MassStatusReqType.STATUS_FOR_ORDERS_FOR_A_SECURITY));
        sells.set(new Symbol("BTC-USD"));
        sells.set(new Side(Side.SELL));
        alice.send(sells);
        final Message onlySell = report(alice, ExecType.ORDER_STATUS, OrdStatus.NEW);
        assertEquals(sell, onlySell.getString(ClOrdID.FIELD));
        assertEquals(1, onlySell.getInt(TotNumReports.FIELD));
        assertTrue(onlySell.getBoolean(LastRptRequested.FIELD));

        // Bob has no open order: one report says so.
        bob.send(new OrderMassStatusRequest(new MassStatusReqID("MS-none"),
            new MassStatusReqType(MassStatusReqType.STATUS_FOR_ALL_ORDERS)));
        final Message none = report(bob, ExecType.ORDER_STATUS, OrdStatus.REJECTED);
        assertEquals(0, none.getInt(TotNumReports.FIELD));
        assertTrue(none.getBoolean(LastRptRequested.FIELD));
        assertEquals("MS-none", none.getString(MassStatusReqID.FIELD));
        assertEquals("No open orders match", none.getString(Text.FIELD));

        // What the gateway cannot answer is a BusinessMessageReject naming the request.
        final OrderMassStatusRequest unknownSymbol = new OrderMassStatusRequest(new MassStatusReqID("MS-nope"),
            new MassStatusReqType(MassStatusReqType.STATUS_FOR_ORDERS_FOR_A_SECURITY));
        unknownSymbol.set(new Symbol("NOPE-USD"));
        alice.send(unknownSymbol);
        final Message unknown = alice.next("j");
        assertEquals("AF", unknown.getString(RefMsgType.FIELD));
        assertEquals("MS-nope", unknown.getString(BusinessRejectRefID.FIELD));
        assertEquals("Unknown Symbol", unknown.getString(Text.FIELD));
        assertEquals(2, unknown.getInt(BusinessRejectReason.FIELD), "unknown security");
        alice.send(new OrderMassStatusRequest(new MassStatusReqID("MS-nosymbol"),
            new MassStatusReqType(MassStatusReqType.STATUS_FOR_ORDERS_FOR_A_SECURITY)));
        final Message noSymbol = alice.next("j");
        assertEquals(5, noSymbol.getInt(BusinessRejectReason.FIELD), "conditionally required field missing");
        assertEquals("Symbol is required with MassStatusReqType 1 (orders of a Symbol)",
            noSymbol.getString(Text.FIELD));
        alice.send(new OrderMassStatusRequest(new MassStatusReqID("MS-party"),
            new MassStatusReqType(MassStatusReqType.STATUS_FOR_ORDERS_FOR_A_PARTYID)));
        assertEquals("MassStatusReqType must be 1 (orders of a Symbol) or 7 (all orders)",
            alice.next("j").getString(Text.FIELD));
    }

    @Test
    void massCancelCancelsEveryOpenOrderOfTheAccountAndReports() throws Exception
    {
        final QfjClient dave = new QfjClient(exchange.fixPort, "DAVE", "dave-pw").awaitLogon();
        try
        {
            dave.send(limit(id("M"), Side.BUY, "0.1", "30.00"));
            report(dave, ExecType.NEW, OrdStatus.NEW);
            dave.send(limit(id("M"), Side.SELL, "0.1", "300.00"));
            report(dave, ExecType.NEW, OrdStatus.NEW);

            dave.send(massCancelAll(id("MC")));
            report(dave, ExecType.CANCELED, OrdStatus.CANCELED);
            report(dave, ExecType.CANCELED, OrdStatus.CANCELED);
            final Message massReport = dave.next("r");
            assertEquals(MassCancelResponse.CANCEL_ALL_ORDERS, massReport.getChar(MassCancelResponse.FIELD));
            assertEquals(2, massReport.getInt(TotalAffectedOrders.FIELD));

            // Refusals reach the application: QuickFIX/J types MassCancelRejectReason as a CHAR, so a value it cannot
            // hold would have its session reject the report instead.
            final OrderMassCancelRequest unknownSymbol = massCancelAll(id("MC"));
            unknownSymbol.set(new MassCancelRequestType(MassCancelRequestType.CANCEL_ORDERS_FOR_A_SECURITY));
            unknownSymbol.set(new Symbol("NOPE-USD"));
            dave.send(unknownSymbol);
            final Message unknown = dave.next("r");
            assertEquals(MassCancelResponse.CANCEL_REQUEST_REJECTED_SEE_MASSCANCELREJECTREASON, unknown.getChar(MassCancelResponse.FIELD));
            assertEquals(String.valueOf(MassCancelRejectReason.INVALID_OR_UNKNOWN_SECURITY),
                unknown.getString(MassCancelRejectReason.FIELD));

            final OrderMassCancelRequest badSide = massCancelAll(id("MC"));
            badSide.set(new Side('9'));
            dave.send(badSide);
            final Message refused = dave.next("r");
            assertEquals(MassCancelResponse.CANCEL_REQUEST_REJECTED_SEE_MASSCANCELREJECTREASON, refused.getChar(MassCancelResponse.FIELD));
            assertFalse(refused.isSetField(MassCancelRejectReason.FIELD), refused.toString());
            assertEquals("Side must be 1 (Buy) or 2 (Sell)", refused.getString(Text.FIELD));
        }
        finally
        {
            dave.close();
        }
    }

    @Test
    void loggedOnSessionsAreCountedForMonitoring() throws Exception
    {
        final FixGateway gateway = exchange.gateway();
        assertEquals(7, gateway.configuredSessions());
        // ALICE and BOB stay logged on; sessions other tests closed may still be going.
        awaitLoggedOn(gateway, 2);
        final QfjClient dave = new QfjClient(exchange.fixPort, "DAVE", "dave-pw").awaitLogon();
        try
        {
            awaitLoggedOn(gateway, 3);
        }
        finally
        {
            dave.close();
        }
        awaitLoggedOn(gateway, 2);
    }

    private static void awaitLoggedOn(final FixGateway gateway, final int expected) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (gateway.loggedOnSessions() != expected)
        {
            assertTrue(System.nanoTime() < deadlineNs,
                "logged-on sessions stayed " + gateway.loggedOnSessions() + ", expected " + expected);
            Thread.sleep(10);
        }
    }

    @Test
    void ordersTheEngineOrTheGatewayRefuseGetRejectedReports() throws Exception
    {
        alice.send(limit(id("E"), Side.BUY, "0.1", "10.001"));
        final Message offScale = report(alice, ExecType.REJECTED, OrdStatus.REJECTED);
        assertTrue(offScale.getString(Text.FIELD).startsWith("Price must be positive"), offScale.toString());

        final NewOrderSingle unknownSymbol = limit(id("E"), Side.BUY, "0.1", "10.00");
        unknownSymbol.set(new Symbol("ETH-USD"));
        alice.send(unknownSymbol);
        assertEquals(OrdRejReason.UNKNOWN_SYMBOL,
            report(alice, ExecType.REJECTED, OrdStatus.REJECTED).getInt(OrdRejReason.FIELD));

        // More than the account can pay for: refused by the engine's risk check.
        alice.send(limit(id("E"), Side.BUY, "90", "100000000.00"));
        final Message tooBig = report(alice, ExecType.REJECTED, OrdStatus.REJECTED);
        assertEquals(OrdRejReason.ORDER_EXCEEDS_LIMIT, tooBig.getInt(OrdRejReason.FIELD));
        assertTrue(tooBig.getString(Text.FIELD).contains("INSUFFICIENT_BALANCE"), tooBig.toString());

        final String duplicate = id("E");
        alice.send(limit(duplicate, Side.BUY, "0.1", "20.00"));
        report(alice, ExecType.NEW, OrdStatus.NEW);
        alice.send(limit(duplicate, Side.BUY, "0.1", "20.00"));
        assertEquals(OrdRejReason.DUPLICATE_ORDER,
            report(alice, ExecType.REJECTED, OrdStatus.REJECTED).getInt(OrdRejReason.FIELD));
        alice.send(cancel(id("X"), duplicate, Side.BUY));
        report(alice, ExecType.CANCELED, OrdStatus.CANCELED);
    }

    @Test
    void wrongPasswordGetsALogoutWithTheReasonAndRepeatedFailuresLockTheCompIdOut() throws Exception
    {
        for (int attempt = 0; attempt < 3; attempt++)
        {
            final QfjClient intruder = new QfjClient(exchange.fixPort, "MALLORY", "wrong");
            try
            {
                final String text = intruder.logoutTexts.poll(30, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(text != null && text.startsWith("Invalid password"), "attempt " + attempt + ": " + text);
                assertFalse(intruder.isLoggedOn());
            }
            finally
            {
                intruder.close();
            }
        }
        final QfjClient rightPassword = new QfjClient(exchange.fixPort, "MALLORY", "mallory-pw");
        try
        {
            final String text = rightPassword.logoutTexts.poll(30, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(text != null && text.contains("locked out"), text);
            assertFalse(rightPassword.isLoggedOn());
        }
        finally
        {
            rightPassword.close();
        }
    }

    @Test
    void cancelOnDisconnectCancelsTheSessionsOrdersAfterTheGracePeriod() throws Exception
    {
        assertCanceledOnDisconnect("CAROL", "carol-pw", "150.00");
    }

    @Test
    void cancelOnDisconnectOfTheAccountCancelsItsOrdersAfterTheGracePeriod() throws Exception
    {
        assertCanceledOnDisconnect("GRACE", "grace-pw", "160.00");
    }

    @Test
    void fillsWhileTheSessionIsAwayAreReportedWhenItLogsOnAgain() throws Exception
    {
        final String resting = id("W");
        final QfjClient erin = new QfjClient(exchange.fixPort, "ERIN", "erin-pw").awaitLogon();
        try
        {
            erin.send(limit(resting, Side.SELL, "0.4", "170.00"));
            final Message accepted = report(erin, ExecType.NEW, OrdStatus.NEW);
            erin.session().logout("going away");
            FixTestExchange.await("ERIN logged out", () -> !erin.isLoggedOn());

            bob.send(limit(id("B"), Side.BUY, "0.25", "170.00"));
            report(bob, ExecType.NEW, OrdStatus.NEW);
            report(bob, ExecType.TRADE, OrdStatus.FILLED);

            // Back (sequence numbers continue): the fill made while it was away comes first, as it was made.
            erin.session().logon();
            erin.awaitLogon();
            final Message missed = report(erin, ExecType.TRADE, OrdStatus.PARTIALLY_FILLED);
            assertEquals(resting, missed.getString(ClOrdID.FIELD));
            assertEquals(accepted.getString(OrderID.FIELD), missed.getString(OrderID.FIELD));
            assertEquals(new BigDecimal("0.25"), missed.getDecimal(LastQty.FIELD).stripTrailingZeros());
            assertEquals(new BigDecimal("170.00"), missed.getDecimal(LastPx.FIELD).setScale(2));
            assertEquals(new BigDecimal("0.25"), missed.getDecimal(CumQty.FIELD).stripTrailingZeros());
            assertEquals(new BigDecimal("0.15"), missed.getDecimal(LeavesQty.FIELD).stripTrailingZeros());

            // And live again from then on.
            bob.send(limit(id("B"), Side.BUY, "0.15", "170.00"));
            report(bob, ExecType.NEW, OrdStatus.NEW);
            report(bob, ExecType.TRADE, OrdStatus.FILLED);
            final Message done = report(erin, ExecType.TRADE, OrdStatus.FILLED);
            assertEquals(new BigDecimal("0.4"), done.getDecimal(CumQty.FIELD).stripTrailingZeros());
        }
        finally
        {
            erin.close();
        }
    }

    private static void assertCanceledOnDisconnect(final String compId, final String password, final String price)
        throws Exception
    {
        final String resting = id("D");
        final QfjClient client = new QfjClient(exchange.fixPort, compId, password).awaitLogon();
        try
        {
            client.send(limit(resting, Side.SELL, "0.3", price));
            report(client, ExecType.NEW, OrdStatus.NEW);
            client.session().logout("going away");
            FixTestExchange.await(compId + " logged out", () -> !client.isLoggedOn());

            // After the grace period the order is gone: a crossing buy rests instead of trading.
            Thread.sleep(500);
            final String crossing = id("B");
            bob.send(limit(crossing, Side.BUY, "0.3", price));
            report(bob, ExecType.NEW, OrdStatus.NEW);
            assertNull(bob.poll(300), "nothing traded with the canceled order");

            // Logged on again (sequence numbers continue): first the report of the cancel made while it was away,
            // then a status request gets the order's final state.
            client.session().logon();
            client.awaitLogon();
            final Message canceled = report(client, ExecType.CANCELED, OrdStatus.CANCELED);
            assertEquals(resting, canceled.getString(ClOrdID.FIELD));
            assertEquals(BigDecimal.ZERO, canceled.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
            client.send(status(resting, Side.SELL));
            final Message finalStatus = report(client, ExecType.ORDER_STATUS, OrdStatus.CANCELED);
            assertEquals(canceled.getString(OrderID.FIELD), finalStatus.getString(OrderID.FIELD));
            assertEquals(BigDecimal.ZERO, finalStatus.getDecimal(LeavesQty.FIELD).stripTrailingZeros());
        }
        finally
        {
            client.close();
        }
    }

    /**
     * ExecIDs are unique per exchange (per log): a test that starts an exchange of its own starts a new set.
     */
    static void forgetExecIds()
    {
        synchronized (EXEC_IDS)
        {
            EXEC_IDS.clear();
        }
    }

    static String id(final String prefix)
    {
        return prefix + "-" + IDS.incrementAndGet();
    }

    /**
     * An OrderMassCancelRequest of all the session's orders.
     */
    static OrderMassCancelRequest massCancelAll(final String clOrdId)
    {
        final OrderMassCancelRequest massCancel = new OrderMassCancelRequest();
        massCancel.set(new ClOrdID(clOrdId));
        massCancel.set(new MassCancelRequestType(MassCancelRequestType.CANCEL_ALL_ORDERS));
        massCancel.set(new TransactTime(LocalDateTime.now()));
        return massCancel;
    }

    static NewOrderSingle limit(final String clOrdId, final char side, final String quantity, final String price)
    {
        final NewOrderSingle order = new NewOrderSingle(
            new ClOrdID(clOrdId), new Side(side), new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
        order.set(new Symbol("BTC-USD"));
        order.set(new OrderQty(Double.parseDouble(quantity)));
        order.set(new Price(Double.parseDouble(price)));
        order.set(new TimeInForce(TimeInForce.GOOD_TILL_CANCEL));
        return order;
    }

    static OrderCancelRequest cancel(final String clOrdId, final String origClOrdId, final char side)
    {
        final OrderCancelRequest cancel = new OrderCancelRequest(
            new OrigClOrdID(origClOrdId), new ClOrdID(clOrdId), new Side(side), new TransactTime(LocalDateTime.now()));
        cancel.set(new Symbol("BTC-USD"));
        return cancel;
    }

    static OrderStatusRequest status(final String clOrdId, final char side)
    {
        final OrderStatusRequest status = new OrderStatusRequest();
        status.set(new ClOrdID(clOrdId));
        status.set(new Symbol("BTC-USD"));
        status.set(new Side(side));
        return status;
    }

    static OrderCancelReplaceRequest replace(
        final String clOrdId, final String origClOrdId, final char side, final String quantity, final String price)
    {
        final OrderCancelReplaceRequest replace = new OrderCancelReplaceRequest(new OrigClOrdID(origClOrdId),
            new ClOrdID(clOrdId), new Side(side), new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
        replace.set(new Symbol("BTC-USD"));
        replace.set(new OrderQty(Double.parseDouble(quantity)));
        replace.set(new Price(Double.parseDouble(price)));
        return replace;
    }

    /**
     * The next message of a session: an ExecutionReport of the given type and status, with an ExecID never seen
     * before in this run.
     */
    static Message report(final QfjClient client, final char execType, final char ordStatus) throws FieldNotFound
    {
        final Message report = client.next("8");
        assertEquals(execType, report.getChar(ExecType.FIELD), report.toString());
        assertEquals(ordStatus, report.getChar(OrdStatus.FIELD), report.toString());
        final String execId = report.getString(ExecID.FIELD);
        synchronized (EXEC_IDS)
        {
            assertTrue(EXEC_IDS.add(execId), "ExecID " + execId + " used twice: " + report);
        }
        assertNotEquals("", report.getString(OrderID.FIELD));
        return report;
    }
}
