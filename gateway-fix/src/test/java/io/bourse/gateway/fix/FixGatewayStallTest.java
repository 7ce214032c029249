package io.bourse.gateway.fix;

import io.bourse.cluster.JavaChildProcess;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import static io.bourse.gateway.fix.FixGatewayCrashTest.TRADER;
import static io.bourse.gateway.fix.FixGatewayCrashTest.send;
import static io.bourse.gateway.fix.FixGatewayCrashTest.sleepMs;
import static io.bourse.gateway.fix.FixGatewayCrashTest.startGateway;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIX gateway's process stopped (SIGSTOP, well within Aeron's timeouts) while the exchange is busy with another
 * client's orders, then continued, so that it falls behind by more than the node's event history (4 KiB here): the
 * node drops the batches its stream has no room for, and the oldest are gone before the gateway asks for them again.
 * Meanwhile a QuickFIX/J initiator keeps sending limit orders that rest, so that some are in flight when their
 * answers are lost; the gateway's retries of those are refused as applied but no longer held.
 * <p>
 * Afterwards the engine's open orders must be exactly those the initiator was told are open (acknowledged, or open
 * when it asked), none acknowledged twice, and no order refused that the exchange holds.
 */
class FixGatewayStallTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    /**
     * The busy client's IOC sells at 2,000.00 never meet the initiator's buys (all below 100.00), and never rest.
     */
    private static final long FLOOD_PRICE = 200_000;

    @Test
    void ordersWhoseAnswersWereLostWhileTheGatewayFellBehindAreReportedAsTheExchangeHoldsThem() throws Exception
    {
        final long seed = Long.getLong("bourse.fix.stall.seed", System.nanoTime());
        final int rounds = Integer.getInteger("bourse.fix.stall.rounds", 3);
        System.out.println("FixGatewayStallTest: seed " + seed + " (rerun with -Dbourse.fix.stall.seed=" + seed +
            "), " + rounds + " rounds");
        final SplittableRandom random = new SplittableRandom(seed);
        final FixGatewayCrashTest.Answers answers = new FixGatewayCrashTest.Answers();
        JavaChildProcess gateway = null;
        try (FixTestExchange exchange =
            new FixTestExchange(UnaryOperator.identity()).historyCapacityBytes(4096).startWithoutGateway())
        {
            final String ingress = exchange.node().context().ingressEndpoints();
            gateway = startGateway(new File(exchange.baseDir, "fix"), exchange.fixPort, ingress);
            try (QfjClient trader = new QfjClient(exchange.fixPort, TRADER.senderCompId(), TRADER.password());
                Flood flood = new Flood(exchange.node().clientContext()))
            {
                trader.awaitLogon();
                int sent = 0;
                for (int round = 1; round <= rounds; round++)
                {
                    sent = load(trader, answers, sent, 100 + random.nextInt(400), random);
                    gateway.signal("STOP");
                    final long stoppedNs = System.nanoTime();
                    // Far more than the gateway's stream and the history hold, while it reads nothing.
                    flood.start();
                    sent = load(trader, answers, sent, 300 + random.nextInt(700), random);
                    gateway.signal("CONT");
                    final long stoppedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedNs);
                    // Orders in flight while the gateway catches up through a stream still full and still flooded.
                    sent = load(trader, answers, sent, 300 + random.nextInt(700), random);
                    final long flooded = flood.stop();
                    System.out.printf("FixGatewayStallTest round %d: gateway stopped for %d ms, %d orders " +
                        "flooded past it; %d orders sent, %d answered so far%n",
                        round, stoppedMs, flooded, sent, answers.answeredCount());
                }

                final int total = sent;
                answers.awaitQuiet(trader, total);
                final List<String> unanswered = answers.askAboutUnanswered(trader, total);
                final String where = "seed " + seed;
                final int openOrders =
                    exchange.node().service().probeState(0).get(30, TimeUnit.SECONDS).openOrders();
                System.out.printf("FixGatewayStallTest: %d orders sent, %d acknowledged, %d rejected %s, %d never " +
                    "answered, whose status when asked is %s; %d open in the engine%n",
                    total, answers.acknowledged.size(), answers.rejected.size(), answers.rejected, unanswered.size(),
                    answers.statuses, openOrders);
                assertEquals(List.of(), answers.acceptedTwice, where + ": ClOrdIDs acknowledged twice");
                assertEquals(List.of(), answers.rejected, where + ": every order rests, none is refused");
                assertEquals(unanswered.size(), answers.statuses.size(), where + ": every status request answered");
                answers.statuses.forEach((clOrdId, status) -> assertEquals(quickfix.field.OrdStatus.NEW,
                    status.charValue(), where + ": " + clOrdId + ", sent and never answered, is open when asked"));
                assertEquals(answers.acknowledged.size() + answers.statuses.size(), openOrders,
                    where + ": the engine's open orders are exactly those acknowledged or reported open when asked");
                assertTrue(answers.acknowledged.size() > 0, where + ": orders were acknowledged");
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
     * Send resting orders, one a millisecond, for a while, taking the answers that come.
     *
     * @return orders sent in all.
     */
    private static int load(
        final QfjClient trader, final FixGatewayCrashTest.Answers answers, final int sentBefore, final long ms,
        final SplittableRandom random) throws Exception
    {
        int sent = sentBefore;
        final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() < endNs)
        {
            send(trader, ++sent, random);
            answers.drain(trader);
            sleepMs(1);
        }
        return sent;
    }

    /**
     * Another client of the node sending IOC orders as fast as the node takes them, on a thread of its own.
     */
    private static final class Flood implements AutoCloseable
    {
        private final ExchangeClient.Context context;
        private final AtomicBoolean running = new AtomicBoolean();
        private Thread thread;
        private volatile long answered;
        private long clientOrderId;

        Flood(final ExchangeClient.Context context)
        {
            this.context = context;
        }

        void start()
        {
            running.set(true);
            thread = new Thread(this::run, "flood");
            thread.start();
        }

        /**
         * @return commands answered since the start.
         */
        long stop() throws InterruptedException
        {
            running.set(false);
            thread.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS));
            assertTrue(!thread.isAlive(), "the flood stopped");
            return answered;
        }

        private void run()
        {
            final FixTestExchange.AnsweredRequests answers = new FixTestExchange.AnsweredRequests();
            // The flood falls behind the 4 KiB history too: some of its answers are refused as no longer held.
            final ExchangeClient client = answers.newClient(context);
            try
            {
                final CommandEncoder encoder = new CommandEncoder();
                final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
                long lastSent = 0;
                while (running.get() || answers.upTo() < lastSent)
                {
                    client.doWork();
                    if (running.get() && client.isConnected())
                    {
                        final int length = encoder.newOrder(buffer, 0, 2, ++clientOrderId, 1, Side.SELL,
                            OrderType.LIMIT, TimeInForce.IOC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
                            FLOOD_PRICE, 100, 0, 0);
                        final long sequence = client.trySend(buffer, 0, length);
                        if (sequence < 0)
                        {
                            // As many in flight as the client holds: wait a little for answers.
                            clientOrderId--;
                            LockSupport.parkNanos(100_000);
                        }
                        else
                        {
                            lastSent = sequence;
                        }
                    }
                    else
                    {
                        sleepMs(1);
                    }
                    answered = answers.upTo();
                }
            }
            finally
            {
                client.close();
            }
        }

        public void close() throws Exception
        {
            if (thread != null && thread.isAlive())
            {
                stop();
            }
        }
    }
}
