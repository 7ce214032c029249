package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static io.bourse.gateway.http.GatewayHarness.ADMIN;
import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RateLimitAndRestartTest
{
    @Test
    void aKeyOverItsRateGets429WithRetryAfterAndOtherKeysAreNotAffected()
    {
        try (GatewayHarness harness = new GatewayHarness(context -> context.rateLimit(1, 5)))
        {
            int ok = 0;
            GatewayHarness.Response limited = null;
            for (int i = 0; i < 20 && limited == null; i++)
            {
                final GatewayHarness.Response response = harness.call(ALICE, "GET", "/api/v1/balances", null);
                if (response.status() == 429)
                {
                    limited = response;
                }
                else
                {
                    expect(200, response);
                    ok++;
                }
            }
            assertTrue(limited != null, "20 requests at once exceed a burst of 5");
            assertTrue(ok >= 5, "the burst is served: " + ok);
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, limited);
            assertTrue(Long.parseLong(limited.retryAfter()) >= 1);
            expect(200, harness.call(BOB, "GET", "/api/v1/balances", null));
            GatewayHarness.sleepMs(Long.parseLong(limited.retryAfter()) * 1000 + 100);
            expect(200, harness.call(ALICE, "GET", "/api/v1/balances", null));
        }
    }

    @Test
    void aBatchTakesATokenAnOrderAndOneRefusedForTheRateMayBeSentAgainAsItWas()
    {
        // An auth window long enough for the same signed batch to be sent again after its Retry-After.
        try (GatewayHarness harness = new GatewayHarness(context -> context.rateLimit(1, 5).authWindowMs(60_000)))
        {
            final String path = "/api/v1/orders/batch";
            final String six = "{\"orders\":[" + String.join(",",
                java.util.Collections.nCopies(6, GatewayHarness.limitOrder("BUY", "1.00", "1", null))) + "]}";
            RestApiTest.expectProblem(400, "OUT_OF_RANGE", "orders", harness.call(ALICE, "POST", path, six));
            RestApiTest.expectProblem(401, "INVALID_SIGNATURE", null,
                harness.call(ALICE.key(), "not-the-secret", System.currentTimeMillis(), "POST", path, six));
            final String two = "{\"orders\":[" + GatewayHarness.limitOrder("BUY", "1.00", "1", null) + "," +
                GatewayHarness.limitOrder("BUY", "1.00", "1", null) + "]}";
            final String five = "{\"orders\":[" + String.join(",",
                java.util.Collections.nCopies(5, GatewayHarness.limitOrder("BUY", "1.00", "1", null))) + "]}";
            // Another key's batch first, so that the path is warm and ALICE's two come well within the two seconds that
            // would give her two tokens back.
            expect(200, harness.call(BOB, "POST", path, two));
            expect(200, harness.call(ALICE, "POST", path, five));
            // Five tokens of five taken: a batch of two is refused whole, and takes none.
            final long timestampMs = System.currentTimeMillis();
            final GatewayHarness.Response limited =
                harness.call(ALICE.key(), ALICE.secret(), timestampMs, "POST", path, two);
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, limited);
            assertTrue(limited.str("detail").endsWith("this batch takes 2 tokens, one an order"), limited.text());
            GatewayHarness.sleepMs(Long.parseLong(limited.retryAfter()) * 1000 + 100);
            final JsonNode results = expect(200,
                harness.call(ALICE.key(), ALICE.secret(), timestampMs, "POST", path, two)).get("results");
            assertEquals(2, results.size());
            assertEquals(7, expect(200, harness.callPatiently(ADMIN, "GET", "/api/v1/admin/accounts/1/orders", null)).json().size());
        }
    }

    @Test
    void aWebSocketOrderTakesATokenOfItsKeyAsARestCallDoes()
    {
        // A token every 100 s, none coming back while the test runs; a burst the harness's set-up fits in.
        try (GatewayHarness harness = new GatewayHarness(context -> context.rateLimit(0.01, 20));
            WebSocketTest.Client client = new WebSocketTest.Client(harness.baseUrl()))
        {
            client.send(WebSocketTest.auth(ALICE, System.currentTimeMillis()));
            client.next("authenticated");
            // The authentication took one of ALICE's twenty, and a REST call takes one: eighteen left.
            expect(200, harness.call(ALICE, "GET", "/api/v1/balances", null));
            final String order = GatewayHarness.limitOrder("BUY", "1.00", "1", null);
            for (int i = 0; i < 18; i++)
            {
                client.send("{\"op\":\"order.place\",\"id\":" + i + ",\"order\":" + order + "}");
            }
            for (int i = 0; i < 18; i++)
            {
                final int id = i;
                final JsonNode placed = client.next(m -> m.get("type").asText().equals("response") &&
                    m.get("id").asInt() == id, "the response to order " + id);
                assertEquals(200, placed.get("status").asInt(), placed.toString());
            }
            client.send("{\"op\":\"order.place\",\"id\":\"over\",\"order\":" + order + "}");
            final JsonNode refused = client.next(m -> m.get("type").asText().equals("response") &&
                m.get("id").asText().equals("over"), "a response");
            assertEquals(429, refused.get("status").asInt(), refused.toString());
            assertEquals("RATE_LIMITED", refused.get("error").get("code").asText());
            assertTrue(refused.get("error").get("retryAfter").asLong() >= 1, refused.toString());
            // One bucket for the key's REST calls and WebSocket orders together.
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, harness.call(ALICE, "GET", "/api/v1/balances", null));
        }
    }

    @Test
    void requestsNoKeyVouchesForAreLimitedByTheirAddressAndSignedOnesByTheirKey() throws Exception
    {
        try (GatewayHarness harness = new GatewayHarness(context -> context.addressRateLimit(1, 5));
            WebSocketTest.Client webSocket = new WebSocketTest.Client(harness.baseUrl()))
        {
            int ok = 0;
            GatewayHarness.Response limited = null;
            for (int i = 0; i < 20 && limited == null; i++)
            {
                final GatewayHarness.Response response = harness.get("/api/v1/time");
                if (response.status() == 429)
                {
                    limited = response;
                }
                else
                {
                    expect(200, response);
                    ok++;
                }
            }
            assertTrue(limited != null, "20 unsigned requests at once exceed a burst of 5");
            assertTrue(ok <= 7, "a burst of 5, and at most a token or two more: " + ok);
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, limited);
            assertTrue(limited.str("detail").contains("from this address"), limited.text());
            assertTrue(Long.parseLong(limited.retryAfter()) >= 1);
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, harness.get("/index.html"));
            // The gateway trusts no proxy here: a client naming another address is still its own address.
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, forwarded(harness, "203.0.113.50"));

            // A request signed by a key is its key's to count, however many the address sent.
            expect(200, harness.call(ALICE, "GET", "/api/v1/balances", null));
            // One whose signature fails is the address's: while it has no token left, the answer is 429, not 401.
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, harness.call(ALICE.key(), "not-alices-secret",
                System.currentTimeMillis(), "GET", "/api/v1/balances", null));
            final CompletionException upgrade = assertThrows(CompletionException.class, () ->
                HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create(harness.baseUrl().replace("http:", "ws:") + "/ws"),
                        new WebSocket.Listener()
                        {
                        })
                    .join());
            assertEquals(429, ((WebSocketHandshakeException)upgrade.getCause()).getResponse().statusCode(),
                "a WebSocket upgrade is the address's too");
            webSocket.send(WebSocketTest.auth(new ApiKey(ALICE.key(), "not-alices-secret", ALICE.accountId(), false),
                System.currentTimeMillis()));
            assertEquals("RATE_LIMITED", webSocket.next("error").get("code").asText(),
                "and so is a WebSocket auth that fails");

            expect(200, harness.get("/health"));
            // Two tokens at 1 a second: one unsigned request and one failed signature, answered as such.
            GatewayHarness.sleepMs(2_100);
            expect(200, harness.get("/api/v1/time"));
            RestApiTest.expectProblem(401, "INVALID_SIGNATURE", null, harness.call(ALICE.key(), "not-alices-secret",
                System.currentTimeMillis(), "GET", "/api/v1/balances", null));
            assertTrue(expect(200, harness.call(ALICE, "GET", "/api/v1/monitor", null)).json().get("http")
                .get("rateLimited").asLong() >= 4, "the refusals are counted");
        }
    }

    @Test
    void behindATrustedProxyEachClientItForwardsHasItsOwnLimit()
    {
        try (GatewayHarness harness = new GatewayHarness(context -> context.addressRateLimit(1, 3)
            .webSocketLimits(100, 1).trustedProxies(TrustedProxies.parse("127.0.0.1, ::1"))))
        {
            GatewayHarness.Response limited = null;
            for (int i = 0; i < 10 && limited == null; i++)
            {
                final GatewayHarness.Response response = forwarded(harness, "203.0.113.1");
                limited = response.status() == 429 ? response : null;
            }
            assertTrue(limited != null, "10 requests of one client at once exceed a burst of 3");
            expect(200, forwarded(harness, "203.0.113.2"));
            // The proxy appends the address it had the request from: what the client wrote before it is not believed.
            RestApiTest.expectProblem(429, "RATE_LIMITED", null, forwarded(harness, "198.51.100.7, 203.0.113.1"));
            // Without the header the request is the proxy's own, which has its own limit.
            expect(200, harness.get("/api/v1/time"));

            // A WebSocket connection counts against its client too: one each here.
            final WebSocket first = webSocketFrom(harness, "203.0.113.3").join();
            final CompletionException second =
                assertThrows(CompletionException.class, () -> webSocketFrom(harness, "203.0.113.3").join());
            assertEquals(429, ((WebSocketHandshakeException)second.getCause()).getResponse().statusCode());
            final WebSocket another = webSocketFrom(harness, "203.0.113.4").join();
            first.abort();
            another.abort();
        }
    }

    private static GatewayHarness.Response forwarded(final GatewayHarness harness, final String forwardedFor)
    {
        return harness.send(HttpRequest.newBuilder(URI.create(harness.baseUrl() + "/api/v1/time"))
            .header("X-Forwarded-For", forwardedFor).GET());
    }

    private static CompletableFuture<WebSocket> webSocketFrom(final GatewayHarness harness, final String forwardedFor)
    {
        return HttpClient.newHttpClient().newWebSocketBuilder().header("X-Forwarded-For", forwardedFor)
            .buildAsync(URI.create(harness.baseUrl().replace("http:", "ws:") + "/ws"), new WebSocket.Listener()
            {
            });
    }

    @Test
    void aRestartedGatewayAndARestartedNodeServeTheSameState()
    {
        try (GatewayHarness harness = new GatewayHarness())
        {
            final String restingId = expect(200, harness.placeLimit(ALICE, "BUY", "99.00", "2", "keep-1")).str("orderId");
            expect(200, harness.placeLimit(ALICE, "SELL", "101.00", "1", "keep-2"));
            expect(200, harness.placeLimit(BOB, "BUY", "101.00", "0.25", null));
            final JsonNode book = bookWithoutSequence(harness);
            final JsonNode balances = expect(200, harness.call(ALICE, "GET", "/api/v1/balances", null)).json();
            final JsonNode orders = openOrders(harness);
            final JsonNode armed = expect(200,
                harness.call(BOB, "POST", "/api/v1/orders/cancel-all-after", "{\"timeoutMs\":3600000}")).json();

            harness.stopGateway();
            harness.startGateway();
            assertEquals(book, bookWithoutSequence(harness));
            assertSameSwitch(armed, harness);
            assertEquals(balances, expect(200, harness.call(ALICE, "GET", "/api/v1/balances", null)).json());
            assertEquals(orders, openOrders(harness));
            assertEquals("keep-1", expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + restingId, null))
                .str("clientOrderId"));

            harness.restartNode();
            assertEquals(book, bookWithoutSequence(harness));
            assertSameSwitch(armed, harness);
            assertEquals(balances, expect(200, harness.call(ALICE, "GET", "/api/v1/balances", null)).json());
            assertEquals(orders, openOrders(harness));

            // And it trades on from there.
            final GatewayHarness.Response taker = expect(200, harness.placeLimit(BOB, "SELL", "99.00", "2", null));
            assertEquals("FILLED", taker.str("status"));
            assertEquals("FILLED", expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + restingId, null)).str("status"));
        }
    }

    /**
     * The dead man's switch is the exchange's: a gateway started again reads it from the exchange's state.
     */
    private static void assertSameSwitch(final JsonNode armed, final GatewayHarness harness)
    {
        final JsonNode now = expect(200, harness.call(BOB, "GET", "/api/v1/orders/cancel-all-after", null)).json();
        assertTrue(now.get("armed").asBoolean(), now.toString());
        assertEquals(armed.get("triggerTime"), now.get("triggerTime"), now.toString());
        assertEquals(armed.get("timeoutMs"), now.get("timeoutMs"), now.toString());
    }

    @Test
    void aStateOfManyChunksIsJoinedWhole()
    {
        try (GatewayHarness harness = new GatewayHarness())
        {
            // About 100 bytes of engine state per resting order: 1,200 orders is several 32 KiB chunks.
            for (int i = 0; i < 1_200; i++)
            {
                expect(200, harness.placeLimit(i % 2 == 0 ? ALICE : BOB, i % 2 == 0 ? "BUY" : "SELL",
                    (i % 2 == 0 ? 100 + i % 300 : 500 + i % 300) + ".00", "0.01", null));
            }
            final JsonNode book = bookWithoutSequence(harness);
            final JsonNode orders = openOrders(harness);
            assertEquals(600, orders.size());

            harness.stopGateway();
            harness.startGateway();
            assertEquals(book, bookWithoutSequence(harness));
            assertEquals(orders, openOrders(harness));
        }
    }

    /**
     * Open orders as the gateway shows them, their creation and update times included: the engine's state records
     * both, so a gateway that starts after an order was placed or filled still knows them.
     */
    private static JsonNode openOrders(final GatewayHarness harness)
    {
        return expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json();
    }

    private static JsonNode bookWithoutSequence(final GatewayHarness harness)
    {
        final com.fasterxml.jackson.databind.node.ObjectNode book =
            (com.fasterxml.jackson.databind.node.ObjectNode)expect(200, harness.get("/api/v1/book/BTC-USD?depth=1000")).json();
        book.remove("sequence");
        return book;
    }
}
