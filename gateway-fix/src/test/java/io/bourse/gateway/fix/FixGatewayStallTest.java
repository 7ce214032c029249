package io.bourse.gateway.fix;

import io.bourse.cluster.OrderFlood;
import io.bourse.cluster.JavaChildProcess;
import io.bourse.cluster.SeededRounds;
import io.bourse.protocol.codec.Side;
import org.junit.jupiter.api.Test;
import quickfix.FieldNotFound;
import quickfix.Message;
import quickfix.Session;
import quickfix.field.ClOrdID;
import quickfix.field.ExecType;
import quickfix.field.MassCancelResponse;
import quickfix.field.OrdStatus;
import quickfix.field.OrigClOrdID;
import quickfix.field.Text;
import quickfix.field.TotalAffectedOrders;

import java.io.File;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static io.bourse.gateway.fix.FixGatewayCrashTest.TRADER;
import static io.bourse.gateway.fix.FixGatewayCrashTest.askStatus;
import static io.bourse.gateway.fix.FixGatewayCrashTest.send;
import static io.bourse.gateway.fix.FixGatewayCrashTest.sleepMs;
import static io.bourse.gateway.fix.FixGatewayCrashTest.startGateway;
import static io.bourse.gateway.fix.FixGatewayCrashTest.takeReceived;
import static io.bourse.gateway.fix.FixGatewayCrashTest.takeUntil;
import static io.bourse.gateway.fix.FixGatewayCrashTest.takeUntilQuiet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIX gateway's process stopped (SIGSTOP, well within Aeron's timeouts) while the exchange is busy with another
 * client's orders, then continued, so that it falls behind by more than the node's event history (4 KiB here): the
 * node drops the batches its stream has no room for, and the oldest are gone before the gateway asks for them again.
 * Meanwhile a QuickFIX/J initiator keeps sending limit orders that rest, cancels and replaces of them, and now and
 * then a mass cancel, so that some are in flight when their answers are lost.
 * <p>
 * Afterwards the orders the initiator was told are open (acknowledged, replaced, not canceled or reported done; or
 * open when it asked about one never answered) must be exactly the engine's open orders: none acknowledged twice,
 * none refused that the exchange holds, none canceled that it still holds.
 */
class FixGatewayStallTest
{
    /**
     * The busy client's IOC sells at 2,000.00 never meet the initiator's buys (all below 100.00), and never rest.
     */
    private static final long FLOOD_PRICE = 200_000;

    @Test
    void ordersWhoseAnswersWereLostWhileTheGatewayFellBehindAreReportedAsTheExchangeHoldsThem() throws Exception
    {
        final SeededRounds seeded = SeededRounds.of("FixGatewayStallTest", "bourse.fix.stall", 3);
        final long seed = seeded.seed();
        final int rounds = seeded.rounds();
        final SplittableRandom random = new SplittableRandom(seed);
        final ClientView view = new ClientView();
        JavaChildProcess gateway = null;
        try (FixTestExchange exchange =
            new FixTestExchange(UnaryOperator.identity()).historyCapacityBytes(4096).startWithoutGateway())
        {
            final String ingress = exchange.node().context().ingressEndpoints();
            gateway = startGateway(new File(exchange.baseDir, "fix"), exchange.fixPort, ingress);
            try (QfjClient trader = new QfjClient(exchange.fixPort, TRADER.senderCompId(), TRADER.password());
                OrderFlood flood = OrderFlood.ioc(exchange.node().clientContext(), 2, Side.SELL, FLOOD_PRICE, 100))
            {
                trader.awaitLogon();
                final Load load = new Load(trader, view, random);
                for (int round = 1; round <= rounds; round++)
                {
                    load.run(100 + random.nextInt(400));
                    gateway.signal("STOP");
                    final long stoppedNs = System.nanoTime();
                    // Far more than the gateway's stream and the history hold, while it reads nothing.
                    flood.start();
                    load.run(300 + random.nextInt(700));
                    gateway.signal("CONT");
                    final long stoppedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedNs);
                    // Requests in flight while the gateway catches up through a stream still full and still flooded.
                    load.run(300 + random.nextInt(700));
                    final long flooded = flood.stop();
                    System.out.printf("FixGatewayStallTest round %d: gateway stopped for %d ms, %d orders " +
                        "flooded past it; %d requests sent, %s%n", round, stoppedMs, flooded, load.sent, view);
                }

                view.awaitQuiet(trader);
                final int asked = view.askAboutUnanswered(trader);
                final String where = "seed " + seed;
                final int openOrders =
                    exchange.node().service().probeState(0).get(30, TimeUnit.SECONDS).openOrders();
                System.out.printf("FixGatewayStallTest: %d requests sent, %s; %d new orders never answered were " +
                    "asked about; %d open in the engine%n", load.sent, view, asked, openOrders);
                assertEquals(List.of(), view.problems, where);
                assertEquals(Set.of(), view.unanswered, where + ": every status request answered");
                assertEquals(Set.of(), view.requestsWaiting, where + ": every cancel, replace and mass cancel answered");
                assertEquals(view.open.size(), openOrders,
                    where + ": the engine's open orders are exactly those the initiator was told are open");
                assertTrue(view.canceled > 0 && view.replaced > 0, where + ": orders were canceled and replaced");
                assertTrue(gateway.hasPrinted("are no longer held by the cluster"),
                    where + ": the gateway fell behind past the history");
            }
        }
        finally
        {
            if (gateway != null)
            {
                gateway.kill();
            }
        }
    }

    /**
     * The initiator's requests, one a millisecond: 70 % new buys that rest, 20 % cancels and 10 % replaces (a new
     * price) of orders it was told are open, less one request in 500 that is a mass cancel of all its orders.
     */
    private static final class Load
    {
        private final QfjClient trader;
        private final ClientView view;
        private final SplittableRandom random;
        private final List<String> openNow = new ArrayList<>();
        int sent;

        Load(final QfjClient trader, final ClientView view, final SplittableRandom random)
        {
            this.trader = trader;
            this.view = view;
            this.random = random;
        }

        void run(final long ms) throws Exception
        {
            final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            while (System.nanoTime() < endNs)
            {
                final int kind = random.nextInt(1000);
                final int n = ++sent;
                openNow.clear();
                openNow.addAll(view.open);
                if (kind < 2)
                {
                    view.requestsWaiting.add("M" + n);
                    Session.sendToTarget(FixGatewayTest.massCancelAll("M" + n), trader.sessionId);
                }
                else if (kind < 700 || openNow.isEmpty())
                {
                    view.unanswered.add(FixGatewayCrashTest.clOrdId(n));
                    send(trader, n, random);
                }
                else
                {
                    final String target = openNow.get(random.nextInt(openNow.size()));
                    view.requestsWaiting.add((kind < 900 ? "X" : "R") + n);
                    final Message request = kind < 900 ?
                        FixGatewayTest.cancel("X" + n, target, quickfix.field.Side.BUY) :
                        FixGatewayTest.replace("R" + n, target, quickfix.field.Side.BUY, "0.01",
                            (1 + random.nextInt(99)) + "." + (10 + random.nextInt(90)));
                    Session.sendToTarget(request, trader.sessionId);
                }
                view.drain(trader);
                sleepMs(1);
            }
        }
    }

    /**
     * What the initiator was told: its open orders by their current ClOrdID, and its new orders not answered yet.
     */
    private static final class ClientView
    {
        final Set<String> open = new LinkedHashSet<>();
        final Set<String> unanswered = new LinkedHashSet<>();
        /**
         * Cancels, replaces and mass cancels sent and not answered yet (Canceled, Replaced, done, a cancel reject, or
         * a mass cancel report, by ClOrdID).
         */
        final Set<String> requestsWaiting = new LinkedHashSet<>();
        final List<String> problems = new ArrayList<>();
        private final Set<String> execIds = new HashSet<>();
        int canceled;
        int replaced;
        int done;
        int cancelRejects;
        int overtaken;
        int massCancels;
        int massCancelsAnswerLost;

        /**
         * @return messages taken.
         */
        int drain(final QfjClient trader) throws FieldNotFound
        {
            return takeReceived(trader, execIds, this::onReport, reject ->
            {
                cancelRejects++;
                if (reject.isSetField(Text.FIELD) && reject.getString(Text.FIELD).startsWith("Overtaken"))
                {
                    overtaken++;
                }
                requestsWaiting.remove(reject.getString(ClOrdID.FIELD));
            }, this::onMassCancelReport);
        }

        private void onMassCancelReport(final Message report) throws FieldNotFound
        {
            requestsWaiting.remove(report.getString(ClOrdID.FIELD));
            if (report.getChar(MassCancelResponse.FIELD) != MassCancelResponse.CANCEL_ALL_ORDERS)
            {
                problems.add("mass cancel refused: " + report);
            }
            massCancels++;
            if (!report.isSetField(TotalAffectedOrders.FIELD))
            {
                massCancelsAnswerLost++;
            }
        }

        private void onReport(final Message report) throws FieldNotFound
        {
            final String clOrdId = report.getString(ClOrdID.FIELD);
            final String origClOrdId =
                report.isSetField(OrigClOrdID.FIELD) ? report.getString(OrigClOrdID.FIELD) : clOrdId;
            final char ordStatus = report.getChar(OrdStatus.FIELD);
            requestsWaiting.remove(clOrdId);
            switch (report.getChar(ExecType.FIELD))
            {
                case ExecType.NEW ->
                {
                    unanswered.remove(clOrdId);
                    if (!open.add(clOrdId))
                    {
                        problems.add("acknowledged twice: " + report);
                    }
                }
                case ExecType.ORDER_STATUS ->
                {
                    if (unanswered.remove(clOrdId) && ordStatus == OrdStatus.NEW)
                    {
                        open.add(clOrdId);
                    }
                }
                case ExecType.REJECTED ->
                {
                    unanswered.remove(clOrdId);
                    problems.add("refused, though every order rests: " + report);
                }
                case ExecType.REPLACED ->
                {
                    replaced++;
                    open.remove(origClOrdId);
                    open.add(clOrdId);
                }
                case ExecType.CANCELED ->
                {
                    canceled++;
                    open.remove(origClOrdId);
                }
                case ExecType.RESTATED ->
                {
                    if (ordStatus == OrdStatus.DONE_FOR_DAY)
                    {
                        done++;
                        open.remove(origClOrdId);
                        unanswered.remove(clOrdId);
                    }
                }
                default -> problems.add("unexpected: " + report);
            }
        }

        /**
         * Take what comes until nothing has for 5 s.
         */
        void awaitQuiet(final QfjClient trader) throws FieldNotFound
        {
            takeUntilQuiet(trader, this::drain, () -> false);
        }

        /**
         * Ask about each new order never answered, as a FIX client does, and take the answers.
         *
         * @return how many were asked about.
         */
        int askAboutUnanswered(final QfjClient trader) throws FieldNotFound
        {
            final int asked = unanswered.size();
            for (final String clOrdId : unanswered)
            {
                askStatus(trader, clOrdId);
            }
            takeUntil(trader, this::drain, unanswered::isEmpty);
            return asked;
        }

        public String toString()
        {
            return open.size() + " open, " + unanswered.size() + " new orders and " + requestsWaiting.size() +
                " cancels or replaces unanswered, " + canceled + " canceled, " +
                replaced + " replaced, " + done + " reported done, " + cancelRejects + " cancel rejects (" + overtaken +
                " overtaken by a later replace), " +
                massCancels + " mass cancels (" + massCancelsAnswerLost + " with their answers lost)";
        }
    }
}
