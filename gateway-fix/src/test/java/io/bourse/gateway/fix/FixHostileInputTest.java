package io.bourse.gateway.fix;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import quickfix.field.ClOrdID;
import quickfix.field.ExecType;
import quickfix.field.OrdStatus;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.fix44.OrderStatusRequest;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Malformed and hostile input on raw sockets, one case per test, each checked for the exact answer: what the
 * gateway sends (MsgType and the fields that say why) or that it sends nothing, or closes the connection. After every
 * case a QuickFIX/J session that has been logged on all along still works (the gateway stays up, other sessions are
 * unaffected).
 */
class FixHostileInputTest
{
    private static final String ORDER_FIELDS = "21=1|55=BTC-USD|54=1|60=20261122-01:00:00|38=0.1|40=2|44=10.00|";
    private static FixTestExchange exchange;
    private static QfjClient bystander;
    private static int ids;

    @BeforeAll
    static void start() throws Exception
    {
        exchange = new FixTestExchange(context -> context
            .session(new FixSessionSpec("EVE", "eve-pw", 4, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("MAL", "mal-pw", 3, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .sendingTimeWindowMs(60_000)).start();
        bystander = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon();
        bystander.send(FixGatewayTest.limit("RESTING", Side.BUY, "0.1", "1.00"));
        FixGatewayTest.forgetExecIds();
        FixGatewayTest.report(bystander, ExecType.NEW, OrdStatus.NEW);
    }

    @AfterAll
    static void stop()
    {
        if (bystander != null)
        {
            bystander.close();
        }
        if (exchange != null)
        {
            exchange.close();
        }
    }

    @AfterEach
    void otherSessionStillServed() throws Exception
    {
        assertTrue(bystander.isLoggedOn(), "the bystander session stays logged on");
        final OrderStatusRequest status = new OrderStatusRequest();
        status.set(new ClOrdID("RESTING"));
        status.set(new Symbol("BTC-USD"));
        status.set(new Side(Side.BUY));
        bystander.send(status);
        FixGatewayTest.report(bystander, ExecType.ORDER_STATUS, OrdStatus.NEW);
        assertTrue(bystander.logoutTexts.isEmpty(), "no Logout to the bystander: " + bystander.logoutTexts);
    }

    // ------------------------------------------------------------------------------------------------ framing

    @Test
    void badChecksumIsIgnoredAndItsSequenceNumberNotUsed()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendRaw("8=FIX.4.4|9=49|35=0|34=2|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|10=000|");
            assertNull(eve.read(500));
            assertTestRequestAnswered(eve, 2);
        }
    }

    @Test
    void wrongBodyLengthIsIgnored()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String body = "35=0|34=2|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|";
            final String framed = "8=FIX.4.4|9=" + (body.length() - 5) + "|" + body;
            eve.sendRaw(framed + "10=" + RawFixClient.checksum(framed.replace('|', '\001')) + "|");
            assertNull(eve.read(500));
            assertTestRequestAnswered(eve, 2);
        }
    }

    @Test
    void garbageBytesInASessionAreIgnored()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendRaw("\u0000\u00ff garbage 8=FIX.4.4 not a message |||");
            assertNull(eve.read(500));
            assertTestRequestAnswered(eve, 2);
        }
    }

    @Test
    void messageWithoutMsgTypeIsIgnored()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.send("34=2|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|");
            assertNull(eve.read(500));
            assertTestRequestAnswered(eve, 2);
        }
    }

    @Test
    void hugeFieldClosesTheConnection()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("D", "11=" + id() + "|" + ORDER_FIELDS + "58=" + "x".repeat(100_000) + "|");
            assertTrue(eve.awaitDisconnect(10_000), "a message larger than the receive buffer ends the connection");
        }
        catch (final IllegalStateException ex)
        {
            // The gateway closed the socket while the 100 KB were still being written.
            assertTrue(ex.getMessage().contains("Broken pipe") || ex.getMessage().contains("reset"), ex.getMessage());
        }
        try (RawFixClient eve = loggedOn())
        {
            assertTestRequestAnswered(eve, 2);
        }
    }

    // ------------------------------------------------------------------------------------------------ session rejects

    @Test
    void missingRequiredTag()
    {
        assertSessionReject("D", "11=" + id() + "|21=1|55=BTC-USD|60=20261122-01:00:00|38=0.1|40=2|44=10.00|",
            "54", "1", "Required tag missing");
    }

    @Test
    void wrongDataType()
    {
        assertSessionReject("D", "11=" + id() + "|21=1|55=BTC-USD|54=1|60=20261122-01:00:00|38=abc|40=2|44=10.00|",
            "38", "6", "Incorrect data format for value, field=38");
    }

    @Test
    void tagWithoutValue()
    {
        assertSessionReject("D", "11=" + id() + "|21=1|55=|54=1|60=20261122-01:00:00|38=0.1|40=2|44=10.00|",
            "55", "4", "Tag specified without a value");
    }

    @Test
    void repeatedTag()
    {
        assertSessionReject("D", "11=" + id() + "|21=1|55=BTC-USD|55=BTC-USD|54=1|60=20261122-01:00:00|38=0.1|40=2|" +
            "44=10.00|", "55", "13", "Tag appears more than once");
    }

    @Test
    void undefinedTag()
    {
        assertSessionReject("D", "11=" + id() + "|" + ORDER_FIELDS + "9999=x|", "9999", "0", "Invalid tag number");
    }

    @Test
    void enumValueOutOfRange()
    {
        assertSessionReject("D", "11=" + id() + "|21=4|55=BTC-USD|54=1|60=20261122-01:00:00|38=0.1|40=2|44=10.00|",
            "21", "5", "Value is incorrect (out of range) for this tag");
    }

    @Test
    void massStatusRequestWithoutItsType()
    {
        assertSessionReject("AF", "584=MS-1|", "585", "1", "Required tag missing");
    }

    @Test
    void massStatusRequestOfATypeFix44DoesNotDefine()
    {
        assertSessionReject("AF", "584=MS-1|585=9|", "585", "5", "Value is incorrect (out of range) for this tag");
    }

    @Test
    void tagNotDefinedForAnAdminMessage()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("0", "55=X|");
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "3");
            assertEquals("55", reject.get("371"));
            assertEquals("2", reject.get("373"));
            assertEquals("0", reject.get("372"));
            assertEquals("Tag not defined for this message type", reject.get("58"));
        }
    }

    @Test
    void unknownMsgType()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("ZZ", "");
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "3");
            assertEquals("ZZ", reject.get("372"));
            assertEquals("11", reject.get("373"));
            assertEquals("Invalid MsgType", reject.get("58"));
            assertEquals("2", reject.get("45"));
            assertTestRequestAnswered(eve, 3);
        }
    }

    @Test
    void unsupportedApplicationMessageGetsBusinessMessageReject()
    {
        assertBusinessMessageReject("V", "262=1|263=0|264=0|");
    }

    @Test
    void securityDefinitionInTheDictionaryIsStillUnsupported()
    {
        assertBusinessMessageReject("d", "320=REQ-1|322=RESP-1|323=1|55=BTC-USD|454=0|58=from a client|");
    }

    @Test
    void emailInTheDictionaryIsStillUnsupported()
    {
        assertBusinessMessageReject("C", "164=THREAD-1|94=0|147=subject|146=1|55=BTC-USD|864=1|865=1|33=1|58=hi|");
    }

    // ------------------------------------------------------------------------------------------------ repeating groups

    @Test
    void groupEntryWithoutItsDelimiter()
    {
        // NoRelatedSym (146) must start with Symbol (55), not with the nested NoEvents (864).
        assertSessionReject("C", "164=THREAD-1|94=0|147=subject|146=1|864=1|865=1|33=1|58=hi|", "864", "15",
            "The group 146 must set the delimiter field 55");
    }

    @Test
    void groupEntryWithFieldsOutOfOrder()
    {
        // NoPartyIDs (453): PartyID (448), PartyIDSource (447), PartyRole (452), in that order.
        assertSessionReject("D", "11=" + id() + "|" + ORDER_FIELDS + "453=1|448=EVE|452=3|447=D|", "447", "15",
            "Out of order repeating group members");
    }

    // ------------------------------------------------------------------------------------------------ sequence numbers

    @Test
    void sequenceNumberTooHighAsksForAResend()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.nextSeqNum = 10;
            eve.sendApp("0", "");
            final Map<String, String> resend = eve.read(2_000);
            assertMessage(resend, "2");
            assertEquals("2", resend.get("7"));
            assertEquals("0", resend.get("16"));
        }
    }

    @Test
    void sequenceNumberTooLowLogsOutAndDisconnects()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("0", "");
            eve.nextSeqNum = 2;
            eve.sendApp("0", "");
            final Map<String, String> logout = eve.read(2_000);
            assertMessage(logout, "5");
            assertEquals("MsgSeqNum too low, expecting 3 but received 2", logout.get("58"));
            assertTrue(eve.awaitDisconnect(5_000));
        }
    }

    @Test
    void possDupResendWithALowSequenceNumberIsIgnored()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("0", "");
            eve.send("35=0|34=2|43=Y|122=" + RawFixClient.now() + "|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|");
            assertNull(eve.read(500));
            assertTestRequestAnswered(eve, 3);
        }
    }

    @Test
    void possDupResendOfAnOrderAlreadyTakenIsNotExecutedAgain()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String clOrdId = id();
            placeResting(eve, clOrdId);
            eve.send("35=D|34=3|43=Y|122=" + RawFixClient.now() + "|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|" +
                "11=" + clOrdId + "|" + ORDER_FIELDS);
            eve.nextSeqNum = 4;
            assertNull(eve.read(500), "no second order");
            assertTestRequestAnswered(eve, 4);
            cancelAll(eve);
        }
    }

    @Test
    void clOrdIdOfAClosedOrderIsRefusedAndItsPossResendNotAnswered()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String clOrdId = id();
            placeResting(eve, clOrdId);
            cancelAll(eve);

            eve.sendApp("D", "11=" + clOrdId + "|" + ORDER_FIELDS);
            final Map<String, String> reused = eve.read(2_000);
            assertMessage(reused, "8");
            assertEquals("8", reused.get("150"));
            assertEquals("6", reused.get("103"));
            assertEquals("Duplicate ClOrdID of a recent order", reused.get("58"));

            final int seqNum = eve.nextSeqNum;
            eve.send("35=D|34=" + seqNum + "|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|97=Y|" +
                "11=" + clOrdId + "|" + ORDER_FIELDS);
            eve.nextSeqNum = seqNum + 1;
            assertNull(eve.read(500), "an application's resend of an order it already sent is not answered");
            assertTestRequestAnswered(eve, seqNum + 1);
        }
    }

    // ------------------------------------------------------------------------------------------------ header faults

    @Test
    void wrongSenderCompIdInASessionIsRejectedAndLoggedOut()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.send("35=0|34=2|49=MAL|52=" + RawFixClient.now() + "|56=BOURSE|");
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "3");
            assertEquals("49", reject.get("371"));
            assertEquals("9", reject.get("373"));
            assertEquals("CompID problem", reject.get("58"));
            final Map<String, String> logout = eve.read(2_000);
            assertMessage(logout, "5");
            assertEquals("CompID problem", logout.get("58"));
        }
    }

    @Test
    void sendingTimeOutsideTheWindowIsRejectedAndLoggedOut()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.send("35=0|34=2|49=EVE|52=20200101-00:00:00|56=BOURSE|");
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "3");
            assertEquals("52", reject.get("371"));
            assertEquals("10", reject.get("373"));
            assertMessage(eve.read(2_000), "5");
            assertTrue(eve.awaitDisconnect(5_000));
        }
    }

    // ------------------------------------------------------------------------------------------------ logon

    @Test
    void messageBeforeLogonClosesTheConnection()
    {
        try (RawFixClient eve = new RawFixClient(exchange.fixPort, "EVE"))
        {
            eve.sendApp("0", "");
            assertTrue(eve.awaitDisconnect(5_000));
        }
    }

    @Test
    void orderBeforeLogonClosesTheConnectionWithoutExecuting()
    {
        try (RawFixClient eve = new RawFixClient(exchange.fixPort, "EVE"))
        {
            eve.sendApp("D", "11=" + id() + "|" + ORDER_FIELDS);
            assertTrue(eve.awaitDisconnect(5_000));
        }
    }

    @Test
    void wrongPasswordGetsLogoutWithReason()
    {
        assertLogonRefused("EVE", "BOURSE", "nope", "Invalid password");
    }

    @Test
    void unknownSenderCompIdGetsLogoutWithReason()
    {
        assertLogonRefused("NOBODY", "BOURSE", "x", "Unknown SenderCompID NOBODY");
    }

    @Test
    void wrongTargetCompIdGetsLogoutWithReason()
    {
        assertLogonRefused("MAL", "ELSEWHERE", "mal-pw", "TargetCompID must be BOURSE");
    }

    @Test
    void secondLogonOfALoggedOnCompIdIsDisconnectedAndTheFirstKeepsWorking()
    {
        try (RawFixClient first = loggedOn(); RawFixClient second = new RawFixClient(exchange.fixPort, "EVE"))
        {
            second.send("35=A|34=1|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|98=0|108=30|141=Y|554=eve-pw|");
            assertTrue(second.awaitDisconnect(5_000));
            assertTestRequestAnswered(first, 2);
        }
    }

    @Test
    void logonWithAnotherBeginStringIsNotAccepted()
    {
        try (RawFixClient eve = new RawFixClient(exchange.fixPort, "EVE"))
        {
            final String body = "35=A|34=1|49=EVE|52=" + RawFixClient.now() + "|56=BOURSE|98=0|108=30|141=Y|554=eve-pw|";
            final String framed = "8=FIX.4.2|9=" + body.length() + "|" + body;
            eve.sendRaw(framed + "10=" + RawFixClient.checksum(framed.replace('|', '\001')) + "|");
            final Map<String, String> answer = eve.read(1_000);
            assertTrue(answer == null || "5".equals(answer.get("35")), "no Logon acknowledgement: " + answer);
        }
    }

    // ------------------------------------------------------------------------------------------------ orders

    @Test
    void priceFinerThanTheTick()
    {
        assertOrderRejected("44=10.001|", "99", "Price must be positive with at most the instrument's price decimals");
    }

    @Test
    void unknownSymbol()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("D", "11=" + id() + "|21=1|55=DOGE-USD|54=1|60=20261122-01:00:00|38=0.1|40=2|44=10.00|");
            final Map<String, String> report = eve.read(2_000);
            assertRejectedReport(report, "1", "Unknown Symbol");
        }
    }

    @Test
    void negativeQuantity()
    {
        assertOrderRejected("38=-1|", "13", "OrderQty must be positive with at most the instrument's quantity decimals");
    }

    @Test
    void zeroQuantity()
    {
        assertOrderRejected("38=0|", "13", "OrderQty must be positive with at most the instrument's quantity decimals");
    }

    @Test
    void marketOrderWithAPrice()
    {
        assertOrderRejected("40=1|59=3|", "99", "Price not allowed on a market or stop order (OrdType 1 or 3)");
    }

    @Test
    void unsupportedOrderType()
    {
        assertOrderRejected("40=P|", "11", "OrdType must be 1 (Market), 2 (Limit), 3 (Stop) or 4 (Stop limit)");
    }

    @Test
    void unsupportedTimeInForce()
    {
        final String text =
            "TimeInForce must be 0 (Day), 1 (GTC), 3 (IOC), 4 (FOK) or 6 (GTD); market orders IOC or FOK";
        assertOrderRejected("59=2|", "11", text);
        assertOrderRejected("40=1|59=6|126=20301122-01:00:00|", "11", text);
        assertOrderRejected("59=0|", "11",
            "TimeInForce 0 (Day) needs the gateway's end of day (fix.end.of.day.utc), and it has none");
    }

    @Test
    void anExpiryTimeIsForAGoodTillDateOrderAndARealInstant()
    {
        assertOrderRejected("126=20301122-01:00:00|", "99", "ExpireTime (126) only with TimeInForce 6 (GTD)");
        assertOrderRejected("59=1|126=20301122-01:00:00|", "99", "ExpireTime (126) only with TimeInForce 6 (GTD)");
        assertOrderRejected("59=6|", "99", "ExpireTime (126) or ExpireDate (432) required with TimeInForce 6 (GTD)");
        assertOrderRejected("432=22501122|", "99", "ExpireDate (432) only with TimeInForce 6 (GTD)");
        assertOrderRejected("59=1|432=22501122|", "99", "ExpireDate (432) only with TimeInForce 6 (GTD)");
        assertOrderRejected("59=6|126=22501122-01:00:00|432=22501122|", "99",
            "ExpireTime (126) and ExpireDate (432) together: give one");
        assertOrderRejected("59=6|432=20300230|", "99", "ExpireDate (432) is not a date between 1970 and 2261");
        assertOrderRejected("59=6|432=22620101|", "99", "ExpireDate (432) is not a date between 1970 and 2261");
        assertOrderRejected("59=6|432=20200101|", "4", "Rejected by the exchange: EXPIRY_IN_PAST");
        assertOrderRejected("59=6|126=20300230-01:00:00|", "99",
            "ExpireTime (126) is not a date and time between 1970 and 2261");
        assertOrderRejected("59=6|126=22620101-00:00:00|", "99",
            "ExpireTime (126) is not a date and time between 1970 and 2261");
        assertOrderRejected("59=6|126=20200101-00:00:00.5|", "4", "Rejected by the exchange: EXPIRY_IN_PAST");
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("D", "11=" + id() + "|59=6|126=20301122-1:00:00|" + ORDER_FIELDS);
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "3");
            assertEquals("126", reject.get("371"));
            assertEquals("6", reject.get("373"));
            eve.sendApp("D", "11=" + id() + "|59=6|432=2250112|" + ORDER_FIELDS);
            final Map<String, String> expireDate = eve.read(2_000);
            assertMessage(expireDate, "3");
            assertEquals("432", expireDate.get("371"), expireDate.get("raw"));
            assertEquals("6", expireDate.get("373"));
            eve.sendApp("D", "11=" + id() + "|59=6|432=2250-11-2|" + ORDER_FIELDS);
            assertEquals("432", eve.read(2_000).get("371"));
        }
    }

    @Test
    void aReplaceNamesTheTimeInForceAndExpiryTheOrderHas()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String gtc = id();
            placeResting(eve, gtc);
            assertReplaceRefused(eve, gtc, "59=3|", "TimeInForce cannot change on a replace");
            assertReplaceRefused(eve, gtc, "126=20301122-01:00:00|", "ExpireTime (126) only on a GTD order");

            final String gtd = id();
            final Map<String, String> accepted = placeResting(eve, gtd + "|59=6|126=22501122-01:00:00.250");
            assertEquals("6", accepted.get("59"));
            assertEquals("22501122-01:00:00.250", accepted.get("126"), "in milliseconds, as FIX 4.4 has it");
            assertReplaceRefused(eve, gtd, "59=1|", "TimeInForce cannot change on a replace");
            assertReplaceRefused(eve, gtd, "59=6|126=22501122-01:00:01|", "ExpireTime cannot change on a replace");
            assertReplaceRefused(eve, gtd, "59=6|126=22500230-01:00:00|",
                "ExpireTime (126) is not a date and time between 1970 and 2261");

            eve.sendApp("G", "11=" + id() + "|41=" + gtd + "|59=6|126=22501122-1:00:00|" + ORDER_FIELDS);
            final Map<String, String> badFormat = eve.read(2_000);
            assertMessage(badFormat, "3");
            assertEquals("126", badFormat.get("371"));
            assertEquals("6", badFormat.get("373"));

            final String replacement = id();
            eve.sendApp("G", "11=" + replacement + "|41=" + gtd + "|59=6|126=22501122-01:00:00.250|" +
                ORDER_FIELDS.replace("44=10.00", "44=9.00"));
            final Map<String, String> replaced = eve.read(2_000);
            assertMessage(replaced, "8");
            assertEquals("5", replaced.get("150"), replaced.get("raw"));
            assertEquals("6", replaced.get("59"));
            assertEquals("22501122-01:00:00.250", replaced.get("126"));

            // An expiry finer than a millisecond is echoed as given.
            final Map<String, String> fine = placeResting(eve, id() + "|59=6|126=22501122-01:00:00.000000001");
            assertEquals("22501122-01:00:00.000000001", fine.get("126"));

            // An expiry given as ExpireDate is echoed so, and a replace may name that date only.
            assertReplaceRefused(eve, gtc, "432=22501122|", "ExpireDate (432) only on a GTD order");
            assertReplaceRefused(eve, replacement, "59=6|432=22501122|", "ExpireDate cannot change on a replace");
            final String byDate = id();
            final Map<String, String> dated = placeResting(eve, byDate + "|59=6|432=22501122");
            assertEquals("22501122", dated.get("432"), dated.get("raw"));
            assertNull(dated.get("126"), dated.get("raw"));
            assertReplaceRefused(eve, byDate, "59=6|432=22501123|", "ExpireDate cannot change on a replace");
            assertReplaceRefused(eve, byDate, "59=6|432=22500230|", "ExpireDate (432) is not a date between 1970 and 2261");
            assertReplaceRefused(eve, byDate, "59=6|432=22501122|126=22501122-23:59:59|",
                "ExpireTime (126) and ExpireDate (432) together: give one");
            final String datedAgain = id();
            eve.sendApp("G", "11=" + datedAgain + "|41=" + byDate + "|59=6|432=22501122|" +
                ORDER_FIELDS.replace("44=10.00", "44=9.00"));
            final Map<String, String> datedReplaced = eve.read(2_000);
            assertEquals("5", datedReplaced.get("150"), datedReplaced.get("raw"));
            assertEquals("22501122", datedReplaced.get("432"), datedReplaced.get("raw"));
            // Named as the instant it stands for (this gateway has no end of day: the date's last second), the expiry
            // is the same: taken, and the order's reports still say it as the date it was given.
            eve.sendApp("G", "11=" + id() + "|41=" + datedAgain + "|59=6|126=22501122-23:59:59|" + ORDER_FIELDS);
            final Map<String, String> asInstant = eve.read(2_000);
            assertEquals("5", asInstant.get("150"), asInstant.get("raw"));
            assertEquals("22501122", asInstant.get("432"), asInstant.get("raw"));
            assertNull(asInstant.get("126"), asInstant.get("raw"));
            cancelAll(eve);
        }
    }

    @Test
    void accountOfAnotherSession()
    {
        assertOrderRejected("1=1|", "15", "Account does not belong to this session");
    }

    @Test
    void clOrdIdTooLong()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("D", "11=" + "x".repeat(65) + "|" + ORDER_FIELDS);
            assertRejectedReport(eve.read(2_000), "99", "ClOrdID longer than 64 characters");
        }
    }

    @Test
    void cancelOfAnUnknownOrder()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("F", "41=never-sent|11=" + id() + "|55=BTC-USD|54=1|60=20261122-01:00:00|");
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "9");
            assertEquals("1", reject.get("102"));
            assertEquals("1", reject.get("434"));
            assertEquals("never-sent", reject.get("41"));
        }
    }

    @Test
    void replaceThatChangesTheSide()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String clOrdId = id();
            eve.sendApp("D", "11=" + clOrdId + "|" + ORDER_FIELDS);
            assertEquals("0", eve.read(2_000).get("150"));
            eve.sendApp("G", "41=" + clOrdId + "|11=" + id() + "|55=BTC-USD|54=2|60=20261122-01:00:00|38=0.1|40=2|" +
                "44=10.00|");
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "9");
            assertEquals("2", reject.get("434"));
            assertEquals("99", reject.get("102"));
            assertEquals("Side or Symbol does not match the order", reject.get("58"));
            cancelAll(eve);
        }
    }

    @Test
    void instructionsTheExchangeCannotFollowAreRefusedNotIgnored()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String[][] refused = {
                { "18=G|", "ExecInst (18) supports only 6 (post-only)" },
                { "18=6 E|", "ExecInst (18) supports only 6 (post-only)" },
                { "110=0.05|", "MinQty (110) is not supported" },
            };
            for (final String[] instruction : refused)
            {
                eve.sendApp("D", "11=" + id() + "|" + instruction[0] + ORDER_FIELDS);
                final Map<String, String> report = eve.read(2_000);
                assertMessage(report, "8");
                assertEquals("8", report.get("150"), instruction[0]);
                assertEquals("11", report.get("103"), instruction[0]);
                assertEquals(instruction[1], report.get("58"));
            }

            // Post-only is taken: resting, then refused where it would take the resting order.
            placeResting(eve, id() + "|18=6");
            eve.sendApp("D", "11=" + id() + "|18=6|" + ORDER_FIELDS.replace("54=1", "54=2"));
            final Map<String, String> wouldTake = eve.read(2_000);
            assertMessage(wouldTake, "8");
            assertEquals("8", wouldTake.get("150"));
            assertEquals("Rejected by the exchange: POST_ONLY_WOULD_TAKE", wouldTake.get("58"));

            final String resting = id();
            placeResting(eve, resting);
            eve.sendApp("G", "11=" + id() + "|41=" + resting + "|110=0.05|" + ORDER_FIELDS);
            final Map<String, String> replace = eve.read(2_000);
            assertMessage(replace, "9");
            assertEquals("2", replace.get("434"));
            assertEquals("MinQty (110) is not supported", replace.get("58"));
            cancelAll(eve);
        }
    }

    @Test
    void theNewClOrdIdOfAReplaceInFlightIsTaken()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String resting = id();
            placeResting(eve, resting);
            final String replacement = id();
            eve.sendApp("G",
                "11=" + replacement + "|41=" + resting + "|" + ORDER_FIELDS.replace("44=10.00", "44=9.00"));
            eve.sendApp("D", "11=" + replacement + "|" + ORDER_FIELDS);
            Map<String, String> refused = null;
            for (int i = 0; i < 2; i++)
            {
                final Map<String, String> message = eve.read(2_000);
                assertMessage(message, "8");
                refused = "8".equals(message.get("150")) ? message : refused;
            }
            assertNotNull(refused, "the new order under the replace's ClOrdID was refused");
            assertEquals("6", refused.get("103"), refused.get("raw"));
            cancelAll(eve);
        }
    }

    @Test
    void cancelRefusedByTheExchangeForAnOrderJustCanceledReportsItCanceled()
    {
        try (RawFixClient eve = loggedOn())
        {
            final String order = id();
            final Map<String, String> accepted = placeResting(eve, order);
            eve.sendApp("q", "11=" + id() + "|530=7|60=20261122-01:00:00|");
            eve.sendApp("F", "11=" + id() + "|41=" + order + "|55=BTC-USD|54=1|60=20261122-01:00:00|");
            Map<String, String> reject = null;
            for (int i = 0; i < 3 && reject == null; i++)
            {
                final Map<String, String> message = eve.read(2_000);
                assertNotNull(message, "fewer than three answers");
                reject = "9".equals(message.get("35")) ? message : null;
            }
            assertNotNull(reject, "no OrderCancelReject");
            // Whether the cancel reached the exchange after the mass cancel or the gateway had the mass cancel's
            // answer first: too late, and the order is canceled.
            assertEquals("0", reject.get("102"), reject.get("raw"));
            assertEquals("4", reject.get("39"), reject.get("raw"));
            assertEquals(accepted.get("37"), reject.get("37"));
        }
    }

    @Test
    void massCancelOfAnUnsupportedScope()
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("q", "11=" + id() + "|530=3|60=20261122-01:00:00|");
            final Map<String, String> report = eve.read(2_000);
            assertMessage(report, "r");
            assertEquals("0", report.get("531"));
            assertEquals("0", report.get("532"), "mass cancel not supported");
            assertEquals("MassCancelRequestType must be 1 (by Symbol) or 7 (all orders)", report.get("58"));
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static String id()
    {
        return "H" + (++ids);
    }

    private static RawFixClient loggedOn()
    {
        final RawFixClient eve = new RawFixClient(exchange.fixPort, "EVE");
        final Map<String, String> logon = eve.logon("eve-pw");
        assertMessage(logon, "A");
        return eve;
    }

    private static void assertMessage(final Map<String, String> message, final String msgType)
    {
        assertNotNull(message, "expected a message of type " + msgType + ", got nothing");
        assertEquals(msgType, message.get("35"), message.get("raw"));
    }

    private static void assertTestRequestAnswered(final RawFixClient client, final int seqNum)
    {
        client.nextSeqNum = seqNum;
        client.sendApp("1", "112=PING" + seqNum + "|");
        final Map<String, String> heartbeat = client.read(2_000);
        assertMessage(heartbeat, "0");
        assertEquals("PING" + seqNum, heartbeat.get("112"), "the TestRequest with MsgSeqNum " + seqNum +
            " was taken in sequence");
    }

    private static void assertSessionReject(
        final String msgType, final String fields, final String refTag, final String reason, final String text)
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp(msgType, fields);
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "3");
            assertEquals("2", reject.get("45"));
            assertEquals(refTag, reject.get("371"), reject.get("raw"));
            assertEquals(msgType, reject.get("372"));
            assertEquals(reason, reject.get("373"), reject.get("raw"));
            assertEquals(text, reject.get("58"));
            assertNull(eve.read(300), "no order report after a reject");
            assertTestRequestAnswered(eve, 3);
        }
    }

    private static void assertBusinessMessageReject(final String msgType, final String fields)
    {
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp(msgType, fields);
            final Map<String, String> reject = eve.read(2_000);
            assertMessage(reject, "j");
            assertEquals(msgType, reject.get("372"));
            assertEquals("3", reject.get("380"));
            assertEquals("Unsupported Message Type", reject.get("58"));
            assertEquals("2", reject.get("45"));
            assertTestRequestAnswered(eve, 3);
        }
    }

    private static void assertOrderRejected(final String override, final String ordRejReason, final String text)
    {
        final StringBuilder fields = new StringBuilder();
        final Map<String, String> overrides = new java.util.LinkedHashMap<>();
        for (final String field : override.split("\\|"))
        {
            overrides.put(field.substring(0, field.indexOf('=')), field);
        }
        for (final String field : ORDER_FIELDS.split("\\|"))
        {
            final String tag = field.substring(0, field.indexOf('='));
            final String replacement = overrides.remove(tag);
            fields.append(replacement != null ? replacement : field).append('|');
        }
        for (final String extra : overrides.values())
        {
            fields.append(extra).append('|');
        }
        try (RawFixClient eve = loggedOn())
        {
            eve.sendApp("D", "11=" + id() + "|" + fields);
            assertRejectedReport(eve.read(2_000), ordRejReason, text);
        }
    }

    private static void assertReplaceRefused(
        final RawFixClient eve, final String origClOrdId, final String fields, final String text)
    {
        eve.sendApp("G", "11=" + id() + "|41=" + origClOrdId + "|" + fields + ORDER_FIELDS);
        final Map<String, String> reject = eve.read(2_000);
        assertMessage(reject, "9");
        assertEquals("2", reject.get("434"));
        assertEquals("99", reject.get("102"));
        assertEquals(text, reject.get("58"), fields);
    }

    private static void assertRejectedReport(final Map<String, String> report, final String ordRejReason, final String text)
    {
        assertMessage(report, "8");
        assertEquals("8", report.get("150"));
        assertEquals("8", report.get("39"));
        assertEquals(ordRejReason, report.get("103"), report.get("raw"));
        assertEquals(text, report.get("58"));
        assertEquals("NONE", report.get("37"));
    }

    private static void assertLogonRefused(
        final String senderCompId, final String targetCompId, final String password, final String text)
    {
        try (RawFixClient client = new RawFixClient(exchange.fixPort, senderCompId))
        {
            client.send("35=A|34=1|49=" + senderCompId + "|52=" + RawFixClient.now() + "|56=" + targetCompId +
                "|98=0|108=30|141=Y|554=" + password + "|");
            final Map<String, String> logout = client.read(2_000);
            assertMessage(logout, "5");
            assertEquals(text, logout.get("58"));
            assertTrue(client.awaitDisconnect(5_000));
        }
    }

    /**
     * Send ORDER_FIELDS' resting buy under the ClOrdID (and any fields after it) and read its acknowledgement.
     */
    private static Map<String, String> placeResting(final RawFixClient eve, final String clOrdIdAndFields)
    {
        eve.sendApp("D", "11=" + clOrdIdAndFields + "|" + ORDER_FIELDS);
        final Map<String, String> accepted = eve.read(2_000);
        assertMessage(accepted, "8");
        assertEquals("0", accepted.get("150"), accepted.get("raw"));
        return accepted;
    }

    private static void cancelAll(final RawFixClient eve)
    {
        eve.sendApp("q", "11=" + id() + "|530=7|60=20261122-01:00:00|");
        Map<String, String> message;
        do
        {
            message = eve.read(2_000);
            assertNotNull(message, "no OrderMassCancelReport");
        }
        while (!"r".equals(message.get("35")));
        assertFalse(message.get("531").equals("0"), message.get("raw"));
    }
}
