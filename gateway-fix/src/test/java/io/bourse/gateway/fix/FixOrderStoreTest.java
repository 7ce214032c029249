package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a restarted gateway reads back from its order record: open orders, and new orders recorded as sent whose
 * acceptance or refusal was not recorded after them (pending, with order id 0), each once, across compactions.
 */
class FixOrderStoreTest
{
    private static final int RECORD_LENGTH = FixOrderStore.RECORD_LENGTH;

    @Test
    void aPendingOrderIsReadBackUntilItsAcceptanceOrRefusalIsRecorded(@TempDir final File dir)
    {
        final File file = new File(dir, FixOrderStore.FILE_NAME);
        try (FixOrderStore store = new FixOrderStore(file, System.out);
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            store.open();
            final FixSessionState session = aliceSession(scratch);
            final FixOrder accepted = recordedOrder(session, "A", 11, '1', 100, 1);
            final FixOrder refused = recordedOrder(session, "B", 12, '1', 100, 1);
            final FixOrder unanswered = recordedOrder(session, "C", 13, '1', 100, 1);
            accepted.timeInForce = '1';
            accepted.postOnly = true;
            unanswered.timeInForce = '4';
            store.writePending(accepted);
            store.writePending(refused);
            store.writePending(unanswered);
            accepted.orderId = 500;
            store.writeOpen(accepted);
            store.writeNotAccepted(refused.engineClientOrderId);
        }
        for (int start = 0; start < 2; start++)
        {
            try (FixOrderStore store = new FixOrderStore(file, System.out))
            {
                final List<FixOrderStore.Entry> entries = store.open();
                assertEquals(List.of("A:500", "C:0"),
                    entries.stream().map(entry -> entry.clOrdId() + ":" + entry.orderId()).toList(),
                    "after " + start + " compactions");
                assertEquals(13, entries.get(1).engineClientOrderId());
                assertEquals(List.of("1/true", "4/false"), entries.stream()
                    .map(entry -> entry.timeInForce() + "/" + entry.postOnly()).toList(), "TimeInForce and post only");
            }
        }
    }

    @Test
    void whileTheGatewayRunsTheFileIsRewrittenToItsOpenOrdersAndAStartReadsExactlyThose(@TempDir final File dir)
    {
        final long seed = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        final File file = new File(dir, FixOrderStore.FILE_NAME);
        final long compactAtBytes = 40L * RECORD_LENGTH;
        // What a start must read back, kept as the gateway's records say: open orders by order id, pending ones by
        // engine client order id.
        final TreeMap<Long, String> open = new TreeMap<>();
        final TreeMap<Long, String> pending = new TreeMap<>();
        final Map<Long, FixOrder> pendingOrders = new HashMap<>();
        final Map<Long, FixOrder> openOrders = new HashMap<>();
        // Replaces under way, by their engine client order id.
        final TreeMap<Long, String> replacing = new TreeMap<>();
        try (FixOrderStore store = new FixOrderStore(file, compactAtBytes, System.out);
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            store.open();
            final FixSessionState session = aliceSession(scratch);
            long nextClientOrderId = 1;
            long nextOrderId = 1_000;
            for (int i = 0; i < 20_000; i++)
            {
                final int kind = random.nextInt(100);
                if (kind < 35 || pendingOrders.isEmpty() && openOrders.isEmpty())
                {
                    final long engineClientOrderId = nextClientOrderId++;
                    final FixOrder order = recordedOrder(session, "C" + engineClientOrderId, engineClientOrderId, '1',
                        100 + random.nextInt(50), 1 + random.nextInt(9));
                    store.writePending(order);
                    pendingOrders.put(engineClientOrderId, order);
                    pending.put(engineClientOrderId, "C" + engineClientOrderId);
                }
                else if (kind < 65 && !pendingOrders.isEmpty())
                {
                    final FixOrder order = pendingOrders.remove(pick(random, pendingOrders));
                    pending.remove(order.engineClientOrderId);
                    if (random.nextInt(5) == 0)
                    {
                        store.writeNotAccepted(order.engineClientOrderId);
                        continue;
                    }
                    order.orderId = nextOrderId++;
                    store.writeOpen(order);
                    openOrders.put(order.orderId, order);
                    open.put(order.orderId, new String(order.clOrdId, 0, order.clOrdIdLength) + "@" + order.price);
                }
                else if (kind < 70 && !openOrders.isEmpty())
                {
                    final FixOrder order = openOrders.get(pick(random, openOrders));
                    order.price = 100 + random.nextInt(50);
                    store.writeOpen(order);
                    open.put(order.orderId, new String(order.clOrdId, 0, order.clOrdIdLength) + "@" + order.price);
                }
                else if (kind < 76 && !openOrders.isEmpty())
                {
                    final FixOrder order = openOrders.get(pick(random, openOrders));
                    final long engineClientOrderId = nextClientOrderId++;
                    final String clOrdId = "C" + engineClientOrderId;
                    final long price = 100 + random.nextInt(50);
                    store.writeReplacing(
                        order, engineClientOrderId, price, 1, 0, clOrdId.toCharArray(), clOrdId.length());
                    replacing.put(engineClientOrderId, clOrdId + "<" + new String(order.clOrdId, 0,
                        order.clOrdIdLength) + "@" + price + ":" + order.orderId);
                }
                else if (kind < 82 && !replacing.isEmpty())
                {
                    final long engineClientOrderId = replacing.firstKey();
                    replacing.remove(engineClientOrderId);
                    store.writeReplaceDone(engineClientOrderId);
                }
                else if (!openOrders.isEmpty())
                {
                    final long orderId = pick(random, openOrders);
                    openOrders.remove(orderId);
                    open.remove(orderId);
                    store.writeClosed(orderId);
                }
                assertTrue(store.fileLength() <= Math.max(compactAtBytes, 4L * store.liveRecords() * RECORD_LENGTH),
                    "seed " + seed + ": the file stays within four times its open orders");
                assertEquals(open.size() + pending.size() + replacing.size(), store.liveRecords(), "seed " + seed);
            }
            // How often depends on how far the random walk takes the open orders (the bound is four times them).
            assertTrue(store.compactions() >= 5, "seed " + seed + ": rewritten " + store.compactions() + " times");
        }
        for (int start = 0; start < 2; start++)
        {
            try (FixOrderStore store = new FixOrderStore(file, compactAtBytes, System.out))
            {
                final List<String> expected = new ArrayList<>();
                open.forEach((orderId, order) -> expected.add(order + ":" + orderId));
                pending.forEach((clientOrderId, order) -> expected.add(order + ":0"));
                assertEquals(expected, store.open().stream()
                    .map(entry -> entry.clOrdId() + (entry.orderId() == 0 ? "" : "@" + entry.price()) + ":" +
                        entry.orderId()).toList(), "seed " + seed + ", after " + start + " restarts");
                assertEquals(List.copyOf(replacing.values()), store.replacing().stream()
                    .map(entry -> entry.clOrdId() + "<" + entry.origClOrdId() + "@" + entry.price() + ":" +
                        entry.orderId()).toList(), "seed " + seed + ", after " + start + " restarts");
            }
        }
    }

    @Test
    void aRewriteThatFailsLeavesTheStoreAppendingAndIsTriedAgainLater(@TempDir final File dir) throws Exception
    {
        final File file = new File(dir, FixOrderStore.FILE_NAME);
        final long compactAtBytes = 10L * RECORD_LENGTH;
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (FixOrderStore store = new FixOrderStore(file, compactAtBytes, new PrintStream(log, true));
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            store.open();
            final FixSessionState session = aliceSession(scratch);
            // A directory where the rewrite writes its new file: it cannot, as with a full disk.
            final File blocker = new File(dir, FixOrderStore.FILE_NAME + ".tmp");
            assertTrue(blocker.mkdir());
            long nextOrderId = 1;
            for (int i = 0; i < 12; i++)
            {
                final FixOrder order = recordedOrder(session, "B" + i, i + 1, '1', 100, 1);
                store.writePending(order);
                order.orderId = nextOrderId++;
                store.writeOpen(order);
                store.writeClosed(order.orderId);
            }
            assertEquals(0, store.compactions());
            assertEquals(36L * RECORD_LENGTH, store.fileLength(), "every record still appended");
            assertTrue(log.toString().contains("could not rewrite the open-order record"), log.toString());

            assertTrue(blocker.delete());
            final FixOrder open = recordedOrder(session, "K", 100, '1', 100, 1);
            store.writePending(open);
            open.orderId = 1_000;
            for (int i = 0; i < 10; i++)
            {
                store.writeOpen(open);
            }
            assertEquals(1, store.compactions(), "tried again once as much more was appended, and done");
            assertEquals(1, store.liveRecords());
        }
        try (FixOrderStore store = new FixOrderStore(file, compactAtBytes, System.out))
        {
            assertEquals(List.of("K:1000"),
                store.open().stream().map(entry -> entry.clOrdId() + ":" + entry.orderId()).toList());
        }
    }

    @Test
    void stopPricesExpiryTimesAndTriggersAreReadBack(@TempDir final File dir)
    {
        final File file = new File(dir, FixOrderStore.FILE_NAME);
        try (FixOrderStore store = new FixOrderStore(file, System.out);
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            store.open();
            final FixSessionState session = aliceSession(scratch);
            final FixOrder stop = recordedOrder(session, "S", 11, '2', 100, 1);
            stop.ordType = '4';
            stop.stopPx = 105;
            stop.orderId = 1;
            store.writeOpen(stop);
            final FixOrder triggered = recordedOrder(session, "T", 12, '1', 100, 1);
            triggered.ordType = '3';
            triggered.stopPx = 95;
            triggered.orderId = 2;
            triggered.triggered = true;
            store.writeOpen(triggered);
            final FixOrder gtd = recordedOrder(session, "G", 13, '1', 100, 1);
            gtd.timeInForce = '6';
            gtd.expireTimeNs = 1_900_000_000_123_456_789L;
            gtd.orderId = 3;
            store.writeOpen(gtd);
            final FixOrder byDate = recordedOrder(session, "D", 15, '2', 100, 1);
            byDate.timeInForce = '6';
            byDate.expireTimeNs = 1_900_000_000_000_000_000L;
            byDate.expireByDate = true;
            byDate.ordType = '3';
            byDate.stopPx = 90;
            byDate.triggered = true;
            byDate.orderId = 4;
            store.writeOpen(byDate);
            store.writeReplacing(stop, 14, 101, 2, 106, "S2".toCharArray(), 2);
        }
        try (FixOrderStore store = new FixOrderStore(file, System.out))
        {
            assertEquals(List.of("S:105:0:false:false", "T:95:0:true:false", "G:0:1900000000123456789:false:false",
                "D:90:1900000000000000000:true:true"),
                store.open().stream().map(FixOrderStoreTest::stopAndExpiry).toList());
            assertEquals(List.of("S2:106:0:false:false"), store.replacing().stream().map(FixOrderStoreTest::stopAndExpiry)
                .toList(), "a replace under way as it would leave the order");
        }
    }

    @Test
    void theFileOfAGatewayThatKeptNoStopPricesIsReadOnceAndReplaced(@TempDir final File dir) throws Exception
    {
        final File legacy = new File(dir, FixOrderStore.LEGACY_FILE_NAME);
        final org.agrona.concurrent.UnsafeBuffer record =
            new org.agrona.concurrent.UnsafeBuffer(new byte[FixOrderStore.RECORD_LENGTH]);
        try (FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat"));
            java.io.FileOutputStream out = new java.io.FileOutputStream(legacy))
        {
            final FixSessionState session = aliceSession(scratch);
            for (int i = 1; i <= 3; i++)
            {
                final FixOrder order = recordedOrder(session, "L" + i, 10 + i, '1', 100 * i, 1);
                order.orderId = i;
                order.timeInForce = '1';
                // What the legacy record had no room for is cut off, as an older gateway never wrote it.
                order.stopPx = 77;
                FixOrderStore.encode(record, 0, i == 2 ? FixOrderStore.CLOSED : FixOrderStore.OPEN, "ALICE", order);
                out.write(record.byteArray(), 0, FixOrderStore.LEGACY_RECORD_LENGTH);
            }
            // A torn last record, as a crash mid-write leaves it.
            out.write(record.byteArray(), 0, 40);
        }
        final File file = new File(dir, FixOrderStore.FILE_NAME);
        for (int start = 0; start < 2; start++)
        {
            try (FixOrderStore store = new FixOrderStore(file, System.out))
            {
                final List<FixOrderStore.Entry> entries = store.open();
                assertEquals(List.of("L1:0:0:false:false", "L3:0:0:false:false"),
                    entries.stream().map(FixOrderStoreTest::stopAndExpiry).toList(), "start " + start);
                assertEquals(List.of(100L, 300L), entries.stream().map(FixOrderStore.Entry::price).toList());
            }
            assertTrue(!legacy.exists(), "the legacy file is gone once the current one holds its orders");
            assertEquals(2L * RECORD_LENGTH, file.length());
        }
    }

    @Test
    void ofBothFilesTheOneWrittenLastIsRead(@TempDir final File dir) throws Exception
    {
        final File file = new File(dir, FixOrderStore.FILE_NAME);
        final File legacy = new File(dir, FixOrderStore.LEGACY_FILE_NAME);
        final org.agrona.concurrent.UnsafeBuffer record =
            new org.agrona.concurrent.UnsafeBuffer(new byte[FixOrderStore.RECORD_LENGTH]);
        try (FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            final FixSessionState session = aliceSession(scratch);
            final FixOrder current = recordedOrder(session, "NEW", 11, '1', 100, 1);
            current.orderId = 1;
            FixOrderStore.encode(record, 0, FixOrderStore.OPEN, "ALICE", current);
            java.nio.file.Files.write(file.toPath(), java.util.Arrays.copyOf(record.byteArray(), RECORD_LENGTH));
            final FixOrder older = recordedOrder(session, "OLD", 12, '1', 100, 1);
            older.orderId = 2;
            FixOrderStore.encode(record, 0, FixOrderStore.OPEN, "ALICE", older);
            java.nio.file.Files.write(legacy.toPath(),
                java.util.Arrays.copyOf(record.byteArray(), FixOrderStore.LEGACY_RECORD_LENGTH));
        }
        // Left by a crash after the rewrite from the legacy file and before its deletion: the current file is newer.
        assertTrue(legacy.setLastModified(file.lastModified() - 60_000));
        final byte[] legacyBytes = java.nio.file.Files.readAllBytes(legacy.toPath());
        try (FixOrderStore store = new FixOrderStore(file, System.out))
        {
            assertEquals(List.of("NEW"), store.open().stream().map(FixOrderStore.Entry::clOrdId).toList());
        }
        assertTrue(!legacy.exists());

        // Written by a gateway of the earlier version run after this one: the legacy file is newer.
        java.nio.file.Files.write(legacy.toPath(), legacyBytes);
        assertTrue(legacy.setLastModified(file.lastModified() + 60_000));
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (FixOrderStore store = new FixOrderStore(file, new PrintStream(log, true)))
        {
            assertEquals(List.of("OLD"), store.open().stream().map(FixOrderStore.Entry::clOrdId).toList());
        }
        assertTrue(log.toString().contains("of an earlier version"), log.toString());
        assertTrue(!legacy.exists());
    }

    private static String stopAndExpiry(final FixOrderStore.Entry entry)
    {
        return entry.clOrdId() + ":" + entry.stopPx() + ":" + entry.expireTimeNs() + ":" + entry.triggered() + ":" +
            entry.expireByDate();
    }

    private static long pick(final SplittableRandom random, final Map<Long, FixOrder> orders)
    {
        final int index = random.nextInt(orders.size());
        return orders.keySet().stream().skip(index).findFirst().orElseThrow();
    }

    /**
     * ALICE's session, account 1, its positions kept in a scratch file.
     */
    static FixSessionState aliceSession(final FixEventPosition scratch)
    {
        return new FixSessionState(
            new FixSessionSpec("ALICE", "pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0), FixRateLimit.NONE,
            scratch, scratch, scratch);
    }

    /**
     * A new order of account 1 in BTC-USD as the gateway records it before sending it.
     */
    static FixOrder recordedOrder(
        final FixSessionState session, final String clOrdId, final long engineClientOrderId, final char side,
        final long price, final long quantity)
    {
        final FixOrder order = new FixOrder();
        order.session = session;
        order.clOrdId(clOrdId.toCharArray(), clOrdId.length());
        order.engineClientOrderId = engineClientOrderId;
        order.accountId = 1;
        order.instrument = FixTestExchange.BTC_USD;
        order.side = side;
        order.ordType = '2';
        order.price = price;
        order.quantity = quantity;
        return order;
    }
}
