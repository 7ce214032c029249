package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What bounds a client's connection: its WebSocket messages' rate, how long it may stay open saying nothing, and how
 * many history queries may wait for the database.
 */
class ConnectionLimitsTest
{
    private static final int MESSAGES = 12;
    /**
     * Longer than the harness's waits between its own calls (a Retry-After of 1 s), which reuse their connection.
     */
    private static final int IDLE_TIMEOUT_S = 3;
    private static GatewayHarness harness;

    @BeforeAll
    static void start()
    {
        harness = new GatewayHarness(
            context -> context.rateLimit(1, 5).idleTimeoutSeconds(IDLE_TIMEOUT_S).heartbeatIntervalMs(200));
    }

    @AfterAll
    static void stop()
    {
        harness.close();
    }

    @Test
    void webSocketMessagesOverTheConnectionsRateAreRefusedAndTheConnectionGoesOn()
    {
        try (WebSocketTest.Client client = new WebSocketTest.Client(harness.baseUrl()))
        {
            for (int i = 0; i < MESSAGES; i++)
            {
                client.send("{\"op\":\"ping\"}");
            }
            int pongs = 0;
            int refused = 0;
            for (int i = 0; i < MESSAGES; i++)
            {
                final JsonNode answer = client.next(m -> !m.get("type").asText().equals("heartbeat"), "answer " + i);
                if (answer.get("type").asText().equals("pong"))
                {
                    pongs++;
                }
                else
                {
                    assertEquals("RATE_LIMITED", answer.get("code").asText(), answer.toString());
                    refused++;
                }
            }
            assertTrue(pongs >= 5 && pongs <= 7, "a burst of 5, and at most a token or two more: " + pongs);
            assertEquals(MESSAGES, pongs + refused, "each message answered once");

            GatewayHarness.sleepMs(1_100);
            client.send("{\"op\":\"ping\"}");
            client.next("pong");
        }
    }

    @Test
    void aSilentConnectionIsClosedAfterTheIdleTimeoutButAWebSocketThatReadsItsHeartbeatsStaysOpen() throws IOException
    {
        final URI uri = URI.create(harness.baseUrl());
        try (WebSocketTest.Client client = new WebSocketTest.Client(harness.baseUrl());
            Socket silent = new Socket(uri.getHost(), uri.getPort()))
        {
            silent.setSoTimeout((int)(GatewayHarness.TIMEOUT_NS / 1_000_000));
            final long startNs = System.nanoTime();
            final InputStream in = silent.getInputStream();
            assertEquals(-1, in.read(), "the gateway closed the connection that sent nothing");
            final long closedAfterMs = (System.nanoTime() - startNs) / 1_000_000;
            assertTrue(closedAfterMs >= IDLE_TIMEOUT_S * 1000 - 100,
                "not before the idle timeout of " + IDLE_TIMEOUT_S + " s: " + closedAfterMs + " ms");

            GatewayHarness.sleepMs(IDLE_TIMEOUT_S * 1000 / 2);
            client.send("{\"op\":\"ping\"}");
            client.next("pong");
        }
    }

    @Test
    void historyQueriesBeyondThoseWaitingForTheDatabaseAreAnsweredBusy() throws InterruptedException
    {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger queries = new AtomicInteger();
        final HistorySource slowDatabase = new HistorySource()
        {
            public Page<Trade> trades(final long accountId, final long fromNs, final long toNs, final Cursor after,
                final int limit)
            {
                queries.incrementAndGet();
                try
                {
                    release.await(GatewayHarness.TIMEOUT_NS, TimeUnit.NANOSECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
                return new Page<>(List.of(), null);
            }

            public Page<Order> orders(final long accountId, final long fromNs, final long toNs, final Cursor after,
                final int limit)
            {
                throw new UnsupportedOperationException("not asked");
            }
        };
        final int extra = 6;
        try (GatewayHarness slow = new GatewayHarness(context -> context.history(slowDatabase)))
        {
            final List<CompletableFuture<GatewayHarness.Response>> answers = new ArrayList<>();
            for (int i = 0; i < HttpGateway.MAX_WAITING_HISTORY_QUERIES + extra; i++)
            {
                answers.add(
                    slow.callAsync(GatewayHarness.ALICE, "GET", "/api/v1/history/trades?limit=" + (i + 1), null));
            }
            final List<GatewayHarness.Response> busy = new ArrayList<>();
            final long deadlineNs = System.nanoTime() + GatewayHarness.TIMEOUT_NS;
            while (busy.size() < extra && System.nanoTime() < deadlineNs)
            {
                busy.clear();
                for (final CompletableFuture<GatewayHarness.Response> answer : answers)
                {
                    if (answer.isDone())
                    {
                        busy.add(answer.join());
                    }
                }
                GatewayHarness.sleepMs(50);
            }
            assertEquals(extra, busy.size(), "the queries beyond those waiting are answered at once");
            for (final GatewayHarness.Response response : busy)
            {
                RestApiTest.expectProblem(503, "BUSY", null, response);
                assertEquals("1", response.retryAfter());
            }
            assertEquals(1, queries.get(), "one query at the database at a time");

            release.countDown();
            int answered = 0;
            for (final CompletableFuture<GatewayHarness.Response> answer : answers)
            {
                final GatewayHarness.Response response = answer.join();
                if (response.status() == 200)
                {
                    answered++;
                }
            }
            assertEquals(HttpGateway.MAX_WAITING_HISTORY_QUERIES, answered, "every query that waited is answered");
            assertEquals(HttpGateway.MAX_WAITING_HISTORY_QUERIES, queries.get());
        }
    }
}
