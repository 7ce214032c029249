package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
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
    void closedOrdersAreReadBackWithTheirFinalStateByTheNextRun(@TempDir final File dir) throws IOException
    {
        final File file = new File(dir, "session-ALICE-closed.dat");
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(4);
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            assertTrue(closed.keepIn(file, Long.MIN_VALUE, 1_000).isEmpty());
            final FixSessionState session = FixOrderStoreTest.aliceSession(scratch);
            for (int i = 1; i <= 6; i++)
            {
                final FixOrder order = FixOrderStoreTest.recordedOrder(session, "C" + i, 10 + i, '2', 100 * i, 5);
                order.orderId = 500 + i;
                order.timeInForce = '1';
                // Stop limit and stop orders among them.
                order.ordType = i == 5 ? '4' : i == 6 ? '3' : '2';
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
            assertEquals('4', read.get(2).entry().ordType());
            assertEquals('3', read.get(3).entry().ordType());
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
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2);
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            assertTrue(closed.keepIn(file, Long.MIN_VALUE, 1_000).isEmpty(), "cleared for a new trading day");
            final FixSessionState session = FixOrderStoreTest.aliceSession(scratch);
            final FixOrder order = FixOrderStoreTest.recordedOrder(session, "D1", 21, '1', 100, 5);
            order.orderId = 601;
            closed.add(order, "ALICE");
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2))
        {
            assertEquals(List.of("D1:601:0:0"), describe(closed.keepIn(file, 1_500, 4_000)),
                "the day the file was cleared on");
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2))
        {
            assertTrue(closed.keepIn(file, 3_000, 4_000).isEmpty(), "an end of day passed while the gateway was down");
        }
        assertEquals(16 + 2 * (2 + FixOrderStore.RECORD_LENGTH), file.length(), "the file made for a limit of 2");
        try (RandomAccessFile bytes = new RandomAccessFile(file, "rw"))
        {
            bytes.setLength(16 + 3 * 100);
        }
        try (RecentlyClosedOrders closed = new RecentlyClosedOrders(2))
        {
            assertTrue(closed.keepIn(file, Long.MIN_VALUE, 1_000).isEmpty(), "slots of another length are not read");
        }
    }

    @Test
    void aFileOfAGatewayThatKeptNoStopPricesIsReadBackAndMadeAgain(@TempDir final File dir) throws IOException
    {
        final int legacySlot = 2 + FixOrderStore.LEGACY_RECORD_LENGTH;
        final org.agrona.concurrent.UnsafeBuffer file =
            new org.agrona.concurrent.UnsafeBuffer(new byte[16 + 3 * legacySlot]);
        try (FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            final FixSessionState session = FixOrderStoreTest.aliceSession(scratch);
            final org.agrona.concurrent.UnsafeBuffer slot =
                new org.agrona.concurrent.UnsafeBuffer(new byte[2 + FixOrderStore.RECORD_LENGTH]);
            for (int i = 1; i <= 2; i++)
            {
                final FixOrder order = FixOrderStoreTest.recordedOrder(session, "L" + i, 10 + i, '2', 100 * i, 5);
                order.orderId = 700 + i;
                order.filledQuantity = 5;
                order.stopPx = 77;
                slot.putChar(0, (char)0);
                FixOrderStore.encode(slot, 2, FixOrderStore.OPEN, "ALICE", order);
                // The legacy slot: the current one without its last fields.
                file.putBytes(16 + (i - 1) * legacySlot, slot, 0, legacySlot);
            }
        }
        file.putLong(0, 2);
        file.putLong(8, 1_000);
        final File path = new File(dir, "session-ALICE-closed.dat");
        java.nio.file.Files.write(path.toPath(), file.byteArray());
        for (int run = 0; run < 2; run++)
        {
            try (RecentlyClosedOrders closed = new RecentlyClosedOrders(3))
            {
                final List<RecentlyClosedOrders.Closed> read = closed.keepIn(path, Long.MIN_VALUE, 2_000);
                assertEquals(List.of("L1:701:0:5", "L2:702:0:5"), describe(read), "run " + run);
                assertEquals(0, read.get(1).entry().stopPx(), "not kept by the legacy record");
            }
        }
        assertEquals(16 + 3 * (2 + FixOrderStore.RECORD_LENGTH), path.length(), "made again in the current layout");
    }

    private static List<String> describe(final List<RecentlyClosedOrders.Closed> closed)
    {
        return closed.stream().map(c -> c.entry().clOrdId() + ":" + c.entry().orderId() + ":" +
            (c.closedStatus() == 0 ? "0" : String.valueOf(c.closedStatus())) + ":" + c.entry().filledQuantity()).toList();
    }
}
