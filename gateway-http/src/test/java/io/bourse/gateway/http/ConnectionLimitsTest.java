package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What bounds a client's connection: its WebSocket messages' rate, how long it may stay open saying nothing, how many
 * WebSocket connections may be open, and how many history queries may wait for the database.
 */
class ConnectionLimitsTest
{
    private static final int MESSAGES = 12;
    /**
     * Longer than the harness's waits between its own calls (a Retry-After of 1 s), which reuse their connection.
     */
    private static final int IDLE_TIMEOUT_S = 3;
    private static final int MAX_WEB_SOCKETS = 4;
    private static final int MAX_WEB_SOCKETS_PER_ADDRESS = 2;
    private static GatewayHarness harness;

    @BeforeAll
    static void start()
    {
        harness = new GatewayHarness(
            context -> context.rateLimit(1, 5).idleTimeoutSeconds(IDLE_TIMEOUT_S).heartbeatIntervalMs(200)
                .webSocketLimits(MAX_WEB_SOCKETS, MAX_WEB_SOCKETS_PER_ADDRESS));
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
    void aConnectionThatStopsReadingIsClosedAsASlowConsumerAndMissesNoAnswerBeforeTheClose() throws Exception
    {
        // No rate limit to speak of: the answers are made on the gateway thread, as an order's are.
        try (GatewayHarness fast = new GatewayHarness(context -> context.rateLimit(1e9, 1e9));
            WebSocketTest.Client bystander = new WebSocketTest.Client(fast.baseUrl());
            StalledClient stalled = new StalledClient(fast.baseUrl()))
        {
            final java.util.regex.Pattern slowClosed = java.util.regex.Pattern.compile(
                "^bourse_websocket_slow_consumers_closed_total (\\d+)", java.util.regex.Pattern.MULTILINE);
            final long deadlineNs = System.nanoTime() + GatewayHarness.TIMEOUT_NS;
            int sent = 0;
            boolean closed = false;
            // Each message is answered with an error carrying its id; the client reads none of them.
            while (!closed && System.nanoTime() < deadlineNs)
            {
                stalled.socket.sendText("{\"op\":\"order.cancel\",\"id\":" + ++sent + "}", true).join();
                if (sent % 2_000 == 0)
                {
                    closed = counter(slowClosed, fast.get("/metrics").text()) == 1;
                }
            }
            assertTrue(closed, "closed as a slow consumer after " + sent + " unread answers");

            stalled.socket.request(Long.MAX_VALUE);
            assertTrue(stalled.closedWith.await(GatewayHarness.TIMEOUT_NS, TimeUnit.NANOSECONDS), "the close came");
            assertEquals(GatewayAgent.SLOW_CONSUMER_CLOSE + ": " + GatewayAgent.SLOW_CONSUMER_REASON,
                stalled.close);
            final List<Long> ids = stalled.answerIds;
            assertTrue(ids.size() > 1_000, "answers queued before the close: " + ids.size());
            for (int i = 0; i < ids.size(); i++)
            {
                assertEquals(i + 1, ids.get(i), "every answer up to the close, in order, none dropped");
            }
            System.out.printf("ConnectionLimitsTest: %d messages sent, %d answered before the close%n", sent,
                ids.size());

            bystander.send("{\"op\":\"ping\"}");
            bystander.next("pong");
        }
    }

    @Test
    void aConnectionFloodingWithoutReadingIsClosedAsASlowConsumer() throws Exception
    {
        try (StalledClient stalled = new StalledClient(harness.baseUrl()))
        {
            final java.util.regex.Pattern slowClosed = java.util.regex.Pattern.compile(
                "^bourse_websocket_slow_consumers_closed_total (\\d+)", java.util.regex.Pattern.MULTILINE);
            final long before = counter(slowClosed, harness.get("/metrics").text());
            final long deadlineNs = System.nanoTime() + GatewayHarness.TIMEOUT_NS;
            int sent = 0;
            boolean closed = false;
            // Over the connection's rate: each refused on its event loop, with an answer it does not read.
            while (!closed && System.nanoTime() < deadlineNs)
            {
                stalled.socket.sendText("{\"op\":\"ping\"}", true).join();
                if (++sent % 2_000 == 0)
                {
                    closed = counter(slowClosed, harness.get("/metrics").text()) == before + 1;
                }
            }
            assertTrue(closed, "closed as a slow consumer after " + sent + " unread refusals");
            stalled.socket.request(Long.MAX_VALUE);
            assertTrue(stalled.closedWith.await(GatewayHarness.TIMEOUT_NS, TimeUnit.NANOSECONDS), "the close came");
            assertEquals(GatewayAgent.SLOW_CONSUMER_CLOSE + ": " + GatewayAgent.SLOW_CONSUMER_REASON,
                stalled.close);
        }
    }

    /**
     * A WebSocket client that reads nothing until asked to ({@code socket.request}), then keeps the ids of the
     * responses (-1 for an error answered without one, which should not come) and how the connection closed; both are
     * read once {@link #closedWith} has counted down.
     */
    private static final class StalledClient implements java.net.http.WebSocket.Listener, AutoCloseable
    {
        final java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        final java.net.http.WebSocket socket;
        final List<Long> answerIds = new ArrayList<>();
        final CountDownLatch closedWith = new CountDownLatch(1);
        volatile String close;
        private final StringBuilder partial = new StringBuilder();

        StalledClient(final String baseUrl)
        {
            socket = client.newWebSocketBuilder()
                .buildAsync(URI.create(baseUrl.replace("http:", "ws:") + "/ws"), this).join();
        }

        public void onOpen(final java.net.http.WebSocket webSocket)
        {
            // No request: nothing is read.
        }

        public java.util.concurrent.CompletionStage<?> onText(
            final java.net.http.WebSocket webSocket, final CharSequence data, final boolean last)
        {
            partial.append(data);
            if (last)
            {
                final JsonNode message;
                try
                {
                    message = HttpGateway.tree(partial.toString().getBytes(StandardCharsets.UTF_8));
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
                partial.setLength(0);
                final String type = message.get("type").asText();
                if (type.equals("response"))
                {
                    answerIds.add(message.get("id").asLong());
                }
                else if (type.equals("error"))
                {
                    answerIds.add(-1L);
                }
            }
            return null;
        }

        public java.util.concurrent.CompletionStage<?> onClose(
            final java.net.http.WebSocket webSocket, final int statusCode, final String reason)
        {
            close = statusCode + ": " + reason;
            closedWith.countDown();
            return null;
        }

        public void onError(final java.net.http.WebSocket webSocket, final Throwable error)
        {
            close = "error: " + error;
            closedWith.countDown();
        }

        public void close()
        {
            socket.abort();
            client.close();
        }
    }

    private static long counter(final java.util.regex.Pattern pattern, final String metrics)
    {
        final java.util.regex.Matcher matcher = pattern.matcher(metrics);
        assertTrue(matcher.find(), pattern + " in /metrics");
        return Long.parseLong(matcher.group(1));
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
    void webSocketUpgradesBeyondTheConnectionLimitsAreRefusedWithAProblem() throws IOException
    {
        // Other addresses than the other tests' (all of 127/8 is loopback), and none of their connections left over.
        GatewayHarness.await("no WebSocket connection open", () ->
            harness.get("/api/v1/monitor").json().get("http").get("webSocketSessions").asInt() == 0);
        final List<Socket> open = new ArrayList<>();
        try
        {
            for (final String address : List.of("127.0.0.2", "127.0.0.2", "127.0.0.3"))
            {
                assertEquals("HTTP/1.1 101 Switching Protocols", upgrade(address, open).statusLine());
            }
            final UpgradeAnswer perAddress = upgrade("127.0.0.2", open);
            assertEquals("HTTP/1.1 429 Too Many Requests", perAddress.statusLine());
            final JsonNode problem = HttpGateway.tree(perAddress.body().getBytes(StandardCharsets.UTF_8));
            assertEquals("TOO_MANY_CONNECTIONS", problem.get("code").asText(), problem.toString());
            assertEquals("at most 2 WebSocket connections from one address: close one first",
                problem.get("detail").asText());

            assertEquals("HTTP/1.1 101 Switching Protocols", upgrade("127.0.0.3", open).statusLine());
            final UpgradeAnswer total = upgrade("127.0.0.4", open);
            assertEquals("HTTP/1.1 503 Service Unavailable", total.statusLine());
            assertTrue(total.head().toLowerCase(java.util.Locale.ROOT).contains("\r\nretry-after: 1\r\n"),
                total.head());
            assertEquals("the gateway holds its limit of 4 WebSocket connections: connect again later",
                HttpGateway.tree(total.body().getBytes(StandardCharsets.UTF_8)).get("detail").asText());

            // A connection that goes makes room for another.
            open.removeFirst().close();
            GatewayHarness.await("a connection admitted once one closed", () ->
            {
                try
                {
                    return upgrade("127.0.0.4", open).statusLine().equals("HTTP/1.1 101 Switching Protocols");
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
            final String metrics = harness.get("/metrics").text();
            final int at = metrics.indexOf("\nbourse_websocket_refused_total ") + "\nbourse_websocket_refused_total ".length();
            assertTrue(Long.parseLong(metrics.substring(at, metrics.indexOf('\n', at)).trim()) >= 2,
                "the refusals are counted: " + metrics);
        }
        finally
        {
            for (final Socket socket : open)
            {
                socket.close();
            }
        }
    }

    private record UpgradeAnswer(String head, String body)
    {
        String statusLine()
        {
            return head.substring(0, head.indexOf("\r\n"));
        }
    }

    /**
     * A WebSocket upgrade from a local address, read up to the end of its answer: a socket upgraded is kept in
     * {@code open}, one refused closed.
     */
    private static UpgradeAnswer upgrade(final String localAddress, final List<Socket> open) throws IOException
    {
        final URI uri = URI.create(harness.baseUrl());
        final Socket socket = new Socket(InetAddress.getByName(uri.getHost()), uri.getPort(),
            InetAddress.getByName(localAddress), 0);
        socket.setSoTimeout((int)TimeUnit.NANOSECONDS.toMillis(GatewayHarness.TIMEOUT_NS));
        socket.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nUpgrade: websocket\r\n" +
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        final InputStream in = socket.getInputStream();
        final StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0)
        {
            final int b = in.read();
            if (b < 0)
            {
                throw new IOException("closed within the answer's head: " + head);
            }
            head.append((char)b);
        }
        final String lowerHead = head.toString().toLowerCase(java.util.Locale.ROOT);
        final int lengthAt = lowerHead.indexOf("\r\ncontent-length: ");
        String body = "";
        if (lengthAt >= 0)
        {
            final int from = lengthAt + "\r\ncontent-length: ".length();
            body = new String(in.readNBytes(Integer.parseInt(lowerHead.substring(from, lowerHead.indexOf('\r', from)))),
                StandardCharsets.UTF_8);
        }
        if (head.indexOf("HTTP/1.1 101") == 0)
        {
            open.add(socket);
        }
        else
        {
            socket.close();
        }
        return new UpgradeAnswer(head.toString(), body);
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

            public Page<Transfer> transfers(final long accountId, final long fromNs, final long toNs,
                final Cursor after, final int limit)
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
