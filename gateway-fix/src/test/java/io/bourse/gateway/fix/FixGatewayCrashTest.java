package io.bourse.gateway.fix;

import io.bourse.cluster.JavaChildProcess;
import io.bourse.cluster.SeededRounds;
import org.junit.jupiter.api.Test;
import quickfix.FieldNotFound;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionNotFound;
import quickfix.field.ClOrdID;
import quickfix.field.ExecID;
import quickfix.field.ExecType;
import quickfix.field.MsgType;
import quickfix.field.OrdStatus;
import quickfix.field.OrderID;
import quickfix.field.Side;
import quickfix.field.Text;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kill -9 of the FIX gateway's process under load ({@link FixGatewayProcess}; the node stays up in this JVM): a
 * QuickFIX/J initiator sends limit orders that rest (buys far below any sell) without waiting for their answers,
 * whether or not it is logged on (what it sends meanwhile it resends when the restarted gateway asks for the gap);
 * the gateway is killed at a seeded random moment, started again on its directory, and the initiator logs on again.
 * <p>
 * Afterwards no order may have been accepted twice (two acknowledgements with different ExecIDs for one ClOrdID, or
 * two OrderIDs), every acknowledged order must be open in the engine, and the engine may hold no order that was never
 * acknowledged: the engine's open orders are exactly the acknowledged ones. No order the client sent may be lost: the
 * gateway asks again for what Artio took before a kill and the gateway never handled, so an order the client never
 * heard of must be known when it asks. Such an order is allowed only as FIX allows it (an order is live once
 * acknowledged): open without its report (a report lost in a resend after a kill; counted and printed). The client
 * never refuses a number as too low: a restarted gateway goes on after the last MsgSeqNum it handed to Artio before
 * the kill, where Artio alone would send numbers again that the client had had (refused at every logon until Artio's
 * numbers passed the client's). The Logouts the client sent and those it received are printed.
 */
class FixGatewayCrashTest
{
    static final FixSessionSpec TRADER =
        new FixSessionSpec("TRADER", "trader-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0);
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final String NOT_KNOWN_AFTER_RESTART = "Not known to the exchange after the gateway restarted";

    @Test
    void everyAcknowledgedOrderSurvivesKillsOfTheGatewayAndNoneIsAcceptedTwice() throws Exception
    {
        final SeededRounds seeded = SeededRounds.of("FixGatewayCrashTest", "bourse.fix.crash", 3);
        final long seed = seeded.seed();
        final int rounds = seeded.rounds();
        final SplittableRandom random = new SplittableRandom(seed);
        final Answers answers = new Answers();
        JavaChildProcess child = null;
        try (FixTestExchange exchange = new FixTestExchange(UnaryOperator.identity()).startWithoutGateway())
        {
            final File dataDir = new File(exchange.baseDir, "fix");
            final String ingress = exchange.node().context().ingressEndpoints();
            child = startGateway(dataDir, exchange.fixPort, ingress);
            try (QfjClient trader = new QfjClient(exchange.fixPort, TRADER.senderCompId(), TRADER.password()))
            {
                trader.awaitLogon();
                int sent = 0;
                for (int round = 1; round <= rounds; round++)
                {
                    final long loadMs = 200 + random.nextInt(1_300);
                    final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(loadMs);
                    while (System.nanoTime() < endNs)
                    {
                        send(trader, ++sent, random);
                        answers.drain(trader);
                        sleepMs(1);
                    }
                    child.kill();
                    // The initiator keeps sending while the gateway is down; it resends those when asked.
                    final long downEndNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(random.nextInt(300));
                    while (System.nanoTime() < downEndNs)
                    {
                        send(trader, ++sent, random);
                        sleepMs(1);
                    }
                    child = startGateway(dataDir, exchange.fixPort, ingress);
                    trader.awaitLogon();
                    System.out.printf("FixGatewayCrashTest round %d: killed after %d ms of load; %d orders sent, " +
                        "%d answered so far%n", round, loadMs, sent, answers.answeredCount());
                }

                final int total = sent;
                answers.awaitQuiet(trader, total);
                final List<String> unanswered = answers.askAboutUnanswered(trader, total);

                final String where = "seed " + seed;
                final int openOrders =
                    exchange.node().service().probeState(0).get(30, TimeUnit.SECONDS).openOrders();
                System.out.printf("FixGatewayCrashTest: %d orders sent, %d acknowledged, %d rejected as not known " +
                    "after a restart, %d never answered, whose status when asked is %s; %d open in the engine; " +
                    "the client logged out with %s; the gateway logged it out with %s%n",
                    total, answers.acknowledged.size(), answers.rejected.size(), unanswered.size(), answers.statuses,
                    openOrders, trader.sentLogoutTexts, trader.logoutTexts);
                assertEquals(List.of(), answers.acceptedTwice, where + ": ClOrdIDs acknowledged twice");
                // An order the gateway took and the exchange never saw is rejected once it restarts: the truth.
                for (final String rejection : answers.rejected)
                {
                    assertTrue(rejection.endsWith(": " + NOT_KNOWN_AFTER_RESTART), where + ": rejected " + rejection);
                }
                assertEquals(unanswered.size(), answers.statuses.size(), where + ": every status request answered");
                answers.statuses.forEach((clOrdId, status) -> assertEquals(OrdStatus.NEW, status.charValue(),
                    where + ": " + clOrdId + ", sent and never answered, is known (open) when asked, not lost"));
                assertEquals(answers.acknowledged.size() + answers.statuses.size(), openOrders,
                    where + ": the engine's open orders are exactly those acknowledged or reported open when asked");
                assertTrue(answers.acknowledged.size() > 0, where + ": orders were acknowledged");
                final List<String> refusedAsTooLow = trader.sentLogoutTexts.stream()
                    .filter(text -> text.startsWith("MsgSeqNum too low")).toList();
                assertEquals(List.of(), refusedAsTooLow, where + ": the client refused a MsgSeqNum it had had");
            }
        }
        finally
        {
            if (child != null)
            {
                child.kill();
            }
        }
    }

    /**
     * A kill -9 can tear the archive's last write of Artio's messages (a fragment cut short at a page boundary); the
     * archive then refused to start and the gateway with it, until someone ran Aeron's ArchiveTool. The archive
     * records a checksum in every fragment, and the gateway cuts a fragment that does not match it before the archive
     * starts. Here the last fragment of every recording the kill left open is damaged after the kill, as a torn write
     * would leave it; the gateway starts, and the session trades on.
     */
    @Test
    void aWriteTornByAKillInTheMessageArchiveIsCutAndTheGatewayStarts() throws Exception
    {
        JavaChildProcess child = null;
        try (FixTestExchange exchange = new FixTestExchange(UnaryOperator.identity()).startWithoutGateway())
        {
            final File dataDir = new File(exchange.baseDir, "fix");
            final String ingress = exchange.node().context().ingressEndpoints();
            child = startGateway(dataDir, exchange.fixPort, ingress);
            try (QfjClient trader = new QfjClient(exchange.fixPort, TRADER.senderCompId(), TRADER.password()))
            {
                trader.awaitLogon();
                final SplittableRandom random = new SplittableRandom(1);
                for (int n = 1; n <= 20; n++)
                {
                    send(trader, n, random);
                    assertEquals(ExecType.NEW, trader.next("8").getChar(ExecType.FIELD));
                }
                child.kill();
                final List<String> damaged = damageLastFragments(new File(dataDir, "archive"));
                assertTrue(!damaged.isEmpty(), "a recording was left open by the kill");

                child = startGateway(dataDir, exchange.fixPort, ingress);
                assertTrue(child.hasPrinted("does not match its checksum"), "the gateway said what it cut");
                trader.awaitLogon();
                send(trader, 21, random);
                final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
                boolean acknowledged = false;
                while (!acknowledged)
                {
                    assertTrue(System.nanoTime() < deadlineNs, "an order acknowledged after the restart");
                    final Message message = trader.poll(1_000);
                    acknowledged = message != null && isNewOf(message, clOrdId(21));
                }
            }
        }
        finally
        {
            if (child != null)
            {
                child.kill();
            }
        }
    }

    private static boolean isNewOf(final Message message, final String clOrdId)
    {
        try
        {
            return clOrdId.equals(message.getString(ClOrdID.FIELD)) && message.getChar(ExecType.FIELD) == ExecType.NEW;
        }
        catch (final FieldNotFound ex)
        {
            return false;
        }
    }

    /**
     * Flip a byte in the last fragment of each recording's first segment file that starts with a frame, when that
     * fragment holds data (padding is recorded as a header alone): it no longer matches the checksum the archive
     * recorded for it.
     *
     * @return the files damaged.
     */
    private static List<String> damageLastFragments(final File archiveDir) throws IOException
    {
        final List<String> damaged = new ArrayList<>();
        final File[] segments = archiveDir.listFiles((dir, name) -> name.endsWith("-0.rec"));
        for (final File segment : segments == null ? new File[0] : segments)
        {
            try (FileChannel channel =
                FileChannel.open(segment.toPath(), StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final ByteBuffer header = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
                long offset = 0;
                long last = -1;
                int lastLength = 0;
                boolean lastIsData = false;
                while (true)
                {
                    header.clear();
                    if (channel.read(header, offset) < 32)
                    {
                        break;
                    }
                    final int length = header.getInt(0);
                    if (length <= 0)
                    {
                        break;
                    }
                    last = offset;
                    lastLength = length;
                    lastIsData = header.getShort(6) == 1 && length > 32;
                    offset += (length + 31) & ~31;
                }
                if (last >= 0 && lastIsData)
                {
                    final ByteBuffer one = ByteBuffer.allocate(1);
                    channel.read(one, last + lastLength - 1);
                    one.put(0, (byte)~one.get(0)).position(0);
                    channel.write(one, last + lastLength - 1);
                    damaged.add(segment.getName() + "@" + last);
                }
            }
        }
        return damaged;
    }

    /**
     * The gateway in a process of its own ({@link FixGatewayProcess}), on its data directory, once it is ready.
     */
    static JavaChildProcess startGateway(final File dataDir, final int fixPort, final String ingressEndpoints)
    {
        return JavaChildProcess.start("gateway", List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC"),
            FixGatewayProcess.class.getName(), List.of(dataDir.getPath(), Integer.toString(fixPort), ingressEndpoints),
            FixGatewayProcess.READY, TIMEOUT_NS);
    }

    static String clOrdId(final int n)
    {
        return "C" + n;
    }

    /**
     * A buy that rests: every price is below the lowest sell (there are none).
     */
    static void send(final QfjClient trader, final int n, final SplittableRandom random)
        throws SessionNotFound
    {
        final String price = (1 + random.nextInt(99)) + "." + (10 + random.nextInt(90));
        // False while logged out: QuickFIX/J has stored the order under its sequence number and resends it on demand.
        Session.sendToTarget(FixGatewayTest.limit(clOrdId(n), Side.BUY, "0.01", price), trader.sessionId);
    }

    /**
     * What is done with one message the initiator received.
     */
    interface MessageHandler
    {
        void on(Message message) throws FieldNotFound;
    }

    /**
     * Take what the initiator has received so far: each ExecutionReport once (one resent under the same ExecID is
     * left out) and each OrderCancelReject; anything else is passed over.
     *
     * @return messages taken.
     */
    static int takeReceived(
        final QfjClient trader, final Set<String> execIds, final MessageHandler onReport,
        final MessageHandler onCancelReject) throws FieldNotFound
    {
        return takeReceived(trader, execIds, onReport, onCancelReject, massCancelReport -> { });
    }

    /**
     * As above, with the OrderMassCancelReports too.
     */
    static int takeReceived(
        final QfjClient trader, final Set<String> execIds, final MessageHandler onReport,
        final MessageHandler onCancelReject, final MessageHandler onMassCancelReport) throws FieldNotFound
    {
        int count = 0;
        Message message;
        while ((message = trader.received.poll()) != null)
        {
            count++;
            final String msgType = message.getHeader().getString(MsgType.FIELD);
            if ("9".equals(msgType))
            {
                onCancelReject.on(message);
            }
            else if ("r".equals(msgType))
            {
                onMassCancelReport.on(message);
            }
            else if ("8".equals(msgType) && execIds.add(message.getString(ExecID.FIELD)))
            {
                onReport.on(message);
            }
        }
        return count;
    }

    /**
     * What takes the messages an initiator received.
     */
    interface Receiver
    {
        /**
         * @return messages taken.
         */
        int drain(QfjClient trader) throws FieldNotFound;
    }

    /**
     * Take messages until {@code done}, or until none has come for 5 s (60 s at the most).
     */
    static void takeUntilQuiet(final QfjClient trader, final Receiver receiver, final BooleanSupplier done)
        throws FieldNotFound
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        long lastNs = System.nanoTime();
        while (!done.getAsBoolean() && System.nanoTime() - lastNs < TimeUnit.SECONDS.toNanos(5) &&
            System.nanoTime() < deadlineNs)
        {
            if (receiver.drain(trader) > 0)
            {
                lastNs = System.nanoTime();
            }
            sleepMs(5);
        }
    }

    /**
     * Take messages until {@code done} (60 s at the most).
     */
    static void takeUntil(final QfjClient trader, final Receiver receiver, final BooleanSupplier done)
        throws FieldNotFound
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!done.getAsBoolean() && System.nanoTime() < deadlineNs)
        {
            receiver.drain(trader);
            sleepMs(5);
        }
    }

    /**
     * What a FIX client does about an order it never heard of: an OrderStatusRequest for it (a buy, as all the
     * initiator's new orders are).
     */
    static void askStatus(final QfjClient trader, final String clOrdId)
    {
        trader.send(FixGatewayTest.status(clOrdId, Side.BUY));
    }

    static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * What the initiator was told about each order: a resent report (the same ExecID again) counts once.
     */
    static final class Answers
    {
        final Map<String, String> acknowledged = new HashMap<>();
        final Set<String> orderIds = new HashSet<>();
        final Set<String> execIds = new HashSet<>();
        final List<String> acceptedTwice = new ArrayList<>();
        final List<String> rejected = new ArrayList<>();
        final Set<String> rejectedIds = new HashSet<>();
        /**
         * OrdStatus of each order asked about, by ClOrdID.
         */
        final Map<String, Character> statuses = new TreeMap<>();

        int answeredCount()
        {
            return acknowledged.size() + rejected.size();
        }

        /**
         * Take answers until all of the first {@code total} orders have one, or none has come for 5 s.
         */
        void awaitQuiet(final QfjClient trader, final int total) throws FieldNotFound
        {
            takeUntilQuiet(trader, this::drain, () -> answeredCount() >= total);
        }

        /**
         * What a FIX client does about orders it never heard of: ask, and wait for the answers.
         *
         * @return the ClOrdIDs asked about.
         */
        List<String> askAboutUnanswered(final QfjClient trader, final int total) throws FieldNotFound
        {
            final List<String> unanswered = new ArrayList<>();
            for (int i = 1; i <= total; i++)
            {
                if (!acknowledged.containsKey(clOrdId(i)) && !rejectedIds.contains(clOrdId(i)))
                {
                    unanswered.add(clOrdId(i));
                    askStatus(trader, clOrdId(i));
                }
            }
            takeUntil(trader, this::drain, () -> statuses.size() >= unanswered.size());
            return unanswered;
        }

        /**
         * @return messages taken.
         */
        int drain(final QfjClient trader) throws FieldNotFound
        {
            return takeReceived(trader, execIds, this::onReport, message ->
            {
            });
        }

        private void onReport(final Message message) throws FieldNotFound
        {
            final String clOrdId = message.getString(ClOrdID.FIELD);
            final char execType = message.getChar(ExecType.FIELD);
            if (execType == ExecType.NEW)
            {
                final String orderId = message.getString(OrderID.FIELD);
                if (acknowledged.putIfAbsent(clOrdId, orderId) != null || !orderIds.add(orderId))
                {
                    acceptedTwice.add(clOrdId + " (" + message + ")");
                }
            }
            else if (execType == ExecType.ORDER_STATUS)
            {
                statuses.put(clOrdId, message.getChar(OrdStatus.FIELD));
            }
            else if (execType == ExecType.REJECTED)
            {
                final String text = message.isSetField(Text.FIELD) ? message.getString(Text.FIELD) : "";
                rejected.add(clOrdId + ": " + text);
                rejectedIds.add(clOrdId);
            }
        }
    }
}
