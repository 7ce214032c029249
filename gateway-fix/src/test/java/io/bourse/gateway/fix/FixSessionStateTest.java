package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a session remembers across restarts: the last report it was sent, by batch and key within the batch, so that
 * a replay leaves out exactly those; and the last inbound message handled in order, so that those Artio counted and
 * the gateway never handled are asked for again. And what it remembers while it runs: its orders closed most recently.
 */
class FixSessionStateTest
{
    private static final FixSessionSpec SPEC =
        new FixSessionSpec("ALICE", "pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0);

    @TempDir
    File dir;

    @Test
    void aCancelOnDisconnectOwedIsKnownAfterARestartUntilItIsPaid()
    {
        try (SessionFiles files = new SessionFiles())
        {
            assertFalse(files.session.cancelOnDisconnectOwed(), "nothing owed in a new file");
            files.session.cancelOnDisconnectOwed(true);
        }
        try (SessionFiles files = new SessionFiles())
        {
            assertTrue(files.session.cancelOnDisconnectOwed(), "owed across a restart");
            files.session.cancelOnDisconnectOwed(false);
        }
        try (SessionFiles files = new SessionFiles())
        {
            assertFalse(files.session.cancelOnDisconnectOwed(), "paid before the restart");
        }
    }

    @Test
    void aReportSentBeforeARestartIsKnownAfterItAndTheRestOfItsBatchIsNot()
    {
        try (SessionFiles files = new SessionFiles())
        {
            files.session.sent(7, 3);
            files.session.recordDelivered(7, 2);
        }
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState restarted = files.session;
            assertTrue(restarted.wasSent(6, 5), "an earlier batch");
            assertTrue(restarted.wasSent(7, 1));
            assertTrue(restarted.wasSent(7, 2));
            assertFalse(restarted.wasSent(7, 3), "the batch's later reports were not recorded as delivered");
            assertFalse(restarted.wasSent(8, 1), "a later batch");
        }
    }

    @Test
    void messagesArtioCountedButTheGatewayNeverHandledAreAskedForAgainAfterARestart()
    {
        handleInOrder(0, 1, 5);
        assertEquals(5, restarted().messagesToRequestAgain(0, 9));
    }

    @Test
    void nothingIsAskedForAgainWhenEveryMessageArtioCountedWasHandled()
    {
        handleInOrder(0, 1, 5);
        assertEquals(-1, restarted().messagesToRequestAgain(0, 5));
    }

    @Test
    void nothingIsAskedForAgainWithoutARecordOfAnEarlierRun()
    {
        assertEquals(-1, restarted().messagesToRequestAgain(0, 9));
    }

    @Test
    void nothingIsAskedForAgainInAnotherSequenceIndex()
    {
        handleInOrder(0, 1, 5);
        assertEquals(-1, restarted().messagesToRequestAgain(1, 9));
    }

    @Test
    void aMessageOutOfOrderDoesNotMoveTheRecordUntilTheGapBeforeItIsHandled()
    {
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState session = files.session;
            handleInOrder(session, 0, 1, 3);
            session.onHandled(false, false, 0, 7, 0, false);
            assertEquals(3, session.messagesToRequestAgain(0, 7), "7 came before 4..6: Artio asks for them and it");
            handleInOrder(session, 0, 4, 7);
            assertEquals(-1, session.messagesToRequestAgain(0, 7));
        }
    }

    @Test
    void aMessageInOrderThatArtioRejectedMovesTheRecord()
    {
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState session = files.session;
            handleInOrder(session, 0, 1, 3);
            session.onHandled(false, true, 0, 4, 0, false);
            assertEquals(-1, session.messagesToRequestAgain(0, 4));
        }
    }

    @Test
    void aMessageInOrderThatArtioFlaggedWhileLoggingOutIsAskedForAgain()
    {
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState session = files.session;
            handleInOrder(session, 0, 1, 3);
            session.onHandled(false, false, 0, 4, 0, false);
            session.onHandled(false, false, 0, 5, 0, false);
            assertEquals(3, session.messagesToRequestAgain(0, 5));
        }
    }

    @Test
    void aGapFillInOrderMovesTheRecordToTheEndOfItsGap()
    {
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState session = files.session;
            handleInOrder(session, 0, 1, 3);
            session.onHandled(true, false, 0, 4, 9, true);
            assertEquals(8, session.messagesToRequestAgain(0, 9));
            session.onHandled(true, false, 0, 2, 20, true);
            assertEquals(8, session.messagesToRequestAgain(0, 9), "a gap fill out of order is not taken");
        }
    }

    @Test
    void aSequenceResetMovesTheRecordWhereverItComes()
    {
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState session = files.session;
            handleInOrder(session, 0, 1, 3);
            session.onHandled(true, false, 0, 10, 50, false);
            assertEquals(49, session.messagesToRequestAgain(0, 60));
        }
    }

    @Test
    void aNewSequenceIndexStartsTheRecordAgainFromItsFirstValidMessage()
    {
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState session = files.session;
            handleInOrder(session, 0, 1, 40);
            session.onHandled(false, false, 1, 5, 0, false);
            assertEquals(-1, session.messagesToRequestAgain(1, 9), "an invalid first message of an index is not taken");
            handleInOrder(session, 1, 1, 2);
            assertEquals(2, session.messagesToRequestAgain(1, 9));
        }
    }

    @Test
    void aSessionsFileIsNamedForItsCompIdWithAnythingUnsafeInAFileNameEscaped()
    {
        assertEquals("session-ALICE_2-b-delivered.dat", FixSessionState.deliveredFileName("ALICE_2-b"));
        assertEquals("session-A%002fB%002e%00e9-delivered.dat", FixSessionState.deliveredFileName("A/B.\u00e9"));
        assertEquals("session-A%002fB-handled.dat", FixSessionState.handledFileName("A/B"));
    }

    private void handleInOrder(final int sequenceIndex, final int first, final int last)
    {
        try (SessionFiles files = new SessionFiles())
        {
            handleInOrder(files.session, sequenceIndex, first, last);
        }
    }

    private static void handleInOrder(
        final FixSessionState session, final int sequenceIndex, final int first, final int last)
    {
        for (int msgSeqNum = first; msgSeqNum <= last; msgSeqNum++)
        {
            session.onHandled(true, false, sequenceIndex, msgSeqNum, 0, false);
        }
    }

    /**
     * The session as a restarted gateway reads it back from its files.
     */
    private FixSessionState restarted()
    {
        try (SessionFiles files = new SessionFiles())
        {
            return files.session;
        }
    }

    @Test
    void closedOrdersAreFoundByTheirLastClOrdIdUntilAThousandMoreHaveClosedOrTheDayEnds()
    {
        try (SessionFiles files = new SessionFiles())
        {
            final FixSessionState session = files.session;
            final FixOrder first = closedOrder(session, "C0");
            for (int i = 1; i < FixSessionState.RECENTLY_CLOSED_CAPACITY; i++)
            {
                closedOrder(session, "C" + i);
            }
            assertEquals(first, find(session, "C0"), "the oldest of a thousand");
            // A ClOrdID used again (a new trading day's): the later order is the one found, and stays so when the
            // earlier one leaves the ring.
            final FixOrder again = closedOrder(session, "C1");
            assertEquals(null, find(session, "C0"), "one more closed: the oldest went");
            assertEquals(again, find(session, "C1"));
            for (int i = 2; i < FixSessionState.RECENTLY_CLOSED_CAPACITY; i++)
            {
                closedOrder(session, "D" + i);
            }
            assertEquals(again, find(session, "C1"), "the earlier C1 left the ring, the later stays");
            assertEquals(null, find(session, "C2"));
            assertEquals(null, find(session, "unknown"));

            session.newTradingDay(1_000);
            assertEquals(null, find(session, "C1"), "a new trading day forgets them");
            assertEquals(null, find(session, "D999"));
        }
    }

    @Test
    void anOrderWhoseCloseTheFileHeldBeforeARestartIsKeptOnceWhenTheReplayClosesItAgain()
    {
        final File file = new File(dir, "closed.dat");
        try (SessionFiles files = new SessionFiles())
        {
            files.session.closedOrdersKept.keepIn(file, Long.MIN_VALUE, 1_000);
            final FixOrder order = FixOrderStoreTest.recordedOrder(files.session, "K1", 0, '1', 100, 1);
            order.orderId = 11;
            files.session.closed(order);
            files.session.closedOrdersKept.close();
        }
        try (SessionFiles files = new SessionFiles())
        {
            final List<RecentlyClosedOrders.Closed> kept = files.session.closedOrdersKept.keepIn(file, Long.MIN_VALUE, 1_000);
            assertEquals(1, kept.size());
            final FixOrder restored = FixOrderStoreTest.recordedOrder(files.session, "K1", 0, '1', 100, 1);
            restored.orderId = 11;
            files.session.restoredClosed(restored);
            final FixOrder replayed = FixOrderStoreTest.recordedOrder(files.session, "K1", 0, '1', 100, 1);
            replayed.orderId = 11;
            files.session.closed(replayed);
            final FixOrder another = FixOrderStoreTest.recordedOrder(files.session, "K2", 0, '1', 100, 1);
            another.orderId = 12;
            files.session.closed(another);
            files.session.closedOrdersKept.close();
        }
        try (SessionFiles files = new SessionFiles())
        {
            assertEquals(List.of(11L, 12L), files.session.closedOrdersKept.keepIn(file, Long.MIN_VALUE, 1_000).stream()
                .map(closed -> closed.entry().orderId()).toList(), "the replayed close is not kept twice");
            files.session.closedOrdersKept.close();
        }
    }

    private static FixOrder closedOrder(final FixSessionState session, final String clOrdId)
    {
        final FixOrder order = FixOrderStoreTest.recordedOrder(session, clOrdId, 0, '1', 100, 1);
        session.closed(order);
        return order;
    }

    private static FixOrder find(final FixSessionState session, final String clOrdId)
    {
        return session.findRecentlyClosed(clOrdId.toCharArray(), clOrdId.length());
    }

    /**
     * A session on its files in the test's directory, as the gateway opens them at its start.
     */
    private final class SessionFiles implements AutoCloseable
    {
        final FixEventPosition delivered = new FixEventPosition(new File(dir, "delivered.dat"));
        final FixEventPosition handled = new FixEventPosition(new File(dir, "handled.dat"));
        final FixEventPosition outbound = new FixEventPosition(new File(dir, "outbound.dat"));
        final FixSessionState session = new FixSessionState(SPEC, FixRateLimit.NONE, delivered, handled, outbound);

        SessionFiles()
        {
            session.keepCancelOnDisconnectOwedIn(new FixEventPosition(new File(dir, "cancel-on-disconnect.dat")));
        }

        public void close()
        {
            delivered.close();
            handled.close();
            outbound.close();
            session.closeCancelOnDisconnectOwedRecord();
        }
    }
}
