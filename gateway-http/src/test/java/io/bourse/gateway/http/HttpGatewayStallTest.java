package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.bourse.cluster.OrderFlood;
import io.bourse.cluster.SeededRounds;
import io.bourse.protocol.codec.Side;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP gateway's process stopped (SIGSTOP, well within Aeron's timeouts) while the exchange is busy with another
 * client's orders, then continued, so that it falls behind by more than the node's event history (4 KiB here), while
 * orders that rest keep coming in over HTTP, up to 64 at a time. Every request must be answered: placed (200), or 503
 * with a code that says whether the exchange applied it (OUTCOME_UNKNOWN: applied, its answer lost) or not (NOT_READY,
 * NOT_CONNECTED, BACK_PRESSURE, BUSY); and the engine's open orders must be exactly those placed or applied.
 */
class HttpGatewayStallTest
{
    /**
     * The busy client's IOC sells at 2,000.00 never meet the buys below 100.00 placed over HTTP, and never rest.
     */
    private static final long FLOOD_PRICE = 200_000;
    private static final long BOB_ACCOUNT = GatewayHarness.BOB.accountId();
    private static final Pattern GAPS = Pattern.compile("^bourse_http_event_gaps_total (\\d+)", Pattern.MULTILINE);
    private static final Pattern LOST = Pattern.compile("^bourse_http_answers_lost_total (\\d+)", Pattern.MULTILINE);

    @Test
    void everyOrderIsAnsweredAndThoseWhoseAnswersWereLostAreTheOnesTheExchangeHolds() throws Exception
    {
        final SeededRounds seeded = SeededRounds.of("HttpGatewayStallTest", "bourse.http.stall", 3);
        final long seed = seeded.seed();
        final int rounds = seeded.rounds();
        final SplittableRandom random = new SplittableRandom(seed);
        try (GatewayHarness harness = GatewayHarness.withGatewayProcess(4096);
            OrderFlood flood = OrderFlood.ioc(harness.node().clientContext(), BOB_ACCOUNT, Side.SELL, FLOOD_PRICE, 100);
            WebSocketTest.Client orders = new WebSocketTest.Client(harness.baseUrl()))
        {
            orders.send(WebSocketTest.auth(GatewayHarness.ALICE, System.currentTimeMillis()));
            orders.next("authenticated");
            orders.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
            orders.next("orders.snapshot");
            final Load load = new Load(harness, random);
            for (int round = 1; round <= rounds; round++)
            {
                load.run(100 + random.nextInt(400));
                harness.gatewayProcess().signal("STOP");
                final long stoppedNs = System.nanoTime();
                flood.start();
                load.run(300 + random.nextInt(700));
                harness.gatewayProcess().signal("CONT");
                final long stoppedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedNs);
                load.run(300 + random.nextInt(700));
                final long flooded = flood.stop();
                System.out.printf("HttpGatewayStallTest round %d: gateway stopped for %d ms, %d orders flooded " +
                    "past it; %d orders sent%n", round, stoppedMs, flooded, load.responses.size());
            }

            final Map<String, Integer> outcomes = new TreeMap<>();
            final List<String> problems = new ArrayList<>();
            for (final CompletableFuture<GatewayHarness.Response> future : load.responses)
            {
                final GatewayHarness.Response response;
                try
                {
                    response = future.get(GatewayHarness.TIMEOUT_NS, TimeUnit.NANOSECONDS);
                }
                catch (final java.util.concurrent.ExecutionException ex)
                {
                    problems.add("no answer: " + ex.getCause());
                    continue;
                }
                final String outcome = response.status() == 200 ? "placed" :
                    response.status() + " " + (response.json() == null ? response.text() : response.str("code"));
                outcomes.merge(outcome, 1, Integer::sum);
            }
            final int openOrders =
                harness.node().service().probeState(0).get(30, TimeUnit.SECONDS).openOrders();
            final String metrics = harness.get("/metrics").text();
            final long gaps = counter(GAPS, metrics);
            final long lost = counter(LOST, metrics);
            System.out.printf("HttpGatewayStallTest: %d orders sent, answered %s; %d open in the engine; the " +
                "gateway missed events %d time(s) and lost %d answer(s)%n",
                load.responses.size(), outcomes, openOrders, gaps, lost);
            final String where = "seed " + seed;
            assertEquals(List.of(), problems, where);
            for (final String outcome : outcomes.keySet())
            {
                assertTrue(outcome.equals("placed") || outcome.equals("503 OUTCOME_UNKNOWN") ||
                    outcome.equals("503 NOT_READY") || outcome.equals("503 NOT_CONNECTED") ||
                    outcome.equals("503 BACK_PRESSURE") || outcome.equals("503 BUSY"),
                    where + ": unexpected answer " + outcome);
            }
            assertEquals(outcomes.getOrDefault("placed", 0) + outcomes.getOrDefault("503 OUTCOME_UNKNOWN", 0),
                openOrders, where + ": the engine holds exactly the orders placed or applied with their answer lost");
            assertEquals(outcomes.getOrDefault("503 OUTCOME_UNKNOWN", 0), (int)lost,
                where + ": each lost answer counted");
            assertTrue(gaps > 0, where + ": the gateway fell behind past the history");
            assertPrivateChannelShowsEveryReload(orders, where);
        }
    }

    /**
     * The orders channel's messages are numbered one by one, and every state fetched again after a gap is sent as a
     * snapshot whose number skips one, for the changes of the gap that were never sent.
     */
    private static void assertPrivateChannelShowsEveryReload(final WebSocketTest.Client orders, final String where)
    {
        // Everything queued for the connection up to a heartbeat made from now on while the gateway holds the state:
        // heartbeats come in order after the messages queued before them (every 5 s, so the first in the queue is an
        // early one), and one that says live comes after the snapshots of any reload still under way now.
        final long fromMs = System.currentTimeMillis();
        final List<JsonNode> received = new ArrayList<>();
        orders.next(message -> !received.add(message) || message.get("type").asText().equals("heartbeat") &&
            message.get("time").asLong() >= fromMs && message.get("live").asBoolean(), "a live heartbeat from now on");
        long last = 0;
        int snapshots = 0;
        int dropped = 0;
        for (final JsonNode message : received)
        {
            final String type = message.get("type").asText();
            if (type.equals("orders.snapshot"))
            {
                snapshots++;
                assertTrue(message.get("sequence").asLong() > last,
                    where + ": a snapshot after a reload skips a number: had " + last + ", got " + message);
                last = message.get("sequence").asLong();
            }
            else if (type.equals("order"))
            {
                final long sequence = message.get("sequence").asLong();
                assertTrue(sequence > last, where + ": numbers only go up: had " + last + ", got " + sequence);
                dropped += (int)(sequence - last - 1);
                last = sequence;
            }
        }
        System.out.printf("HttpGatewayStallTest: the orders channel had %d snapshot(s) after the first and numbered " +
            "%d messages, %d dropped%n", snapshots, last, dropped);
        assertTrue(snapshots > 0, where + ": the state fetched again was sent to the private subscriber");
    }

    private static long counter(final Pattern pattern, final String metrics)
    {
        final Matcher matcher = pattern.matcher(metrics);
        assertTrue(matcher.find(), pattern + " in /metrics");
        return Long.parseLong(matcher.group(1));
    }

    /**
     * Orders that rest, placed over HTTP one a millisecond while fewer than 64 are unanswered.
     */
    private static final class Load
    {
        private final GatewayHarness harness;
        private final SplittableRandom random;
        private final Semaphore inFlight = new Semaphore(64);
        final List<CompletableFuture<GatewayHarness.Response>> responses = new ArrayList<>();

        Load(final GatewayHarness harness, final SplittableRandom random)
        {
            this.harness = harness;
            this.random = random;
        }

        void run(final long ms) throws InterruptedException
        {
            final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            long leftNs;
            while ((leftNs = endNs - System.nanoTime()) > 0)
            {
                if (!inFlight.tryAcquire(leftNs, TimeUnit.NANOSECONDS))
                {
                    break;
                }
                final String price = (1 + random.nextInt(99)) + "." + (10 + random.nextInt(90));
                responses.add(harness.callAsync(ALICE, "POST", "/api/v1/orders",
                    GatewayHarness.limitOrder("BUY", price, "0.0001", null))
                    .whenComplete((response, failure) -> inFlight.release()));
                GatewayHarness.sleepMs(1);
            }
        }
    }
}
