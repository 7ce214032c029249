package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's closed orders kept in a file are read back by the next run, oldest first with their final state, up to
 * its limit; a new trading day forgets them.
 */
class RecentlyClosedOrdersTest
{
    @Test
    void closedOrdersAreReadBackWithTheirFinalStateByTheNextRun(@TempDir final File dir)
    {
        final File file = new File(dir, "session-ALICE-closed.dat");
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(4);
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            assertTrue(closed.keepIn(file, Long.MIN_VALUE, 1_000).isEmpty());
            final FixSessionState session = new FixSessionState(
                new FixSessionSpec("ALICE", "pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0), FixRateLimit.NONE,
                scratch, scratch, scratch);
            for (int i = 1; i <= 6; i++)
            {
                final FixOrder order = FixOrderStoreTest.recordedOrder(session, "C" + i, 10 + i, '2', 100 * i, 5);
                order.orderId = 500 + i;
                order.timeInForce = '1';
                order.filledQuantity = i % 2 == 0 ? 5 : 2;
                order.closedStatus = i % 2 == 0 ? 0 : '4';
                closed.add(order, "ALICE");
            }
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(4))
        {
            final List<RecentlyClosedOrders.Closed> read = closed.keepIn(file, Long.MIN_VALUE, 1_000);
            assertEquals(List.of("C3:503:4:2", "C4:504:0:5", "C5:505:4:2", "C6:506:0:5"), describe(read),
                "the last four, oldest first");
            assertEquals('1', read.get(0).entry().timeInForce());
            assertEquals("ALICE", read.get(0).entry().senderCompId());
            assertEquals(300, read.get(0).entry().price());
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2))
        {
            assertEquals(List.of("C5:505:4:2", "C6:506:0:5"), describe(closed.keepIn(file, Long.MIN_VALUE, 1_000)),
                "a smaller limit keeps the most recent");
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2))
        {
            assertEquals(List.of("C5:505:4:2", "C6:506:0:5"), describe(closed.keepIn(file, Long.MIN_VALUE, 1_000)),
                "the file was made again for the new limit");
            closed.clear(2_000);
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2))
        {
            assertTrue(closed.keepIn(file, Long.MIN_VALUE, 1_000).isEmpty(), "cleared for a new trading day");
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2))
        {
            assertTrue(closed.keepIn(file, 3_000, 4_000).isEmpty(), "an end of day passed while the gateway was down");
        }
    }

    private static List<String> describe(final List<RecentlyClosedOrders.Closed> closed)
    {
        return closed.stream().map(c -> c.entry().clOrdId() + ":" + c.entry().orderId() + ":" +
            (c.closedStatus() == 0 ? "0" : String.valueOf(c.closedStatus())) + ":" + c.entry().filledQuantity()).toList();
    }
}
