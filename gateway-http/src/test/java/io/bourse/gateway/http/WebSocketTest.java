package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static io.bourse.gateway.http.GatewayHarness.ADMIN;
import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.CAROL;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The WebSocket channels: L2 snapshot then sequenced updates, gap detection and resync, trades, ticker, private
 * order, fill and balance channels, order entry, heartbeats and errors.
 */
class WebSocketTest
{
    private static GatewayHarness harness;

    @BeforeAll
    static void start()
    {
        harness = new GatewayHarness();
    }

    @AfterAll
    static void stop()
    {
        harness.close();
    }

    /**
     * A WebSocket client that queues every message it receives.
     */
    static final class Client implements WebSocket.Listener, AutoCloseable
    {
        final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        private final StringBuilder partial = new StringBuilder();
        final WebSocket socket;

        Client(final String baseUrl)
        {
            socket = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create(baseUrl.replace("http:", "ws:") + "/ws"), this).join();
        }

        public CompletionStage<?> onText(final WebSocket webSocket, final CharSequence data, final boolean last)
        {
            partial.append(data);
            if (last)
            {
                try
                {
                    messages.add(HttpGateway.tree(partial.toString().getBytes(StandardCharsets.UTF_8)));
                }
                catch (final java.io.IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        void send(final String text)
        {
            socket.sendText(text, true).join();
        }

        /**
         * @return the next message of the type, skipping heartbeats and other types.
         */
        JsonNode next(final String type)
        {
            return next(message -> message.get("type").asText().equals(type), type);
        }

        JsonNode next(final Predicate<JsonNode> accept, final String what)
        {
            final long deadlineNs = System.nanoTime() + GatewayHarness.TIMEOUT_NS;
            while (System.nanoTime() < deadlineNs)
            {
                try
                {
                    final JsonNode message = messages.poll(100, TimeUnit.MILLISECONDS);
                    if (message != null && accept.test(message))
                    {
                        return message;
                    }
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
            }
            throw new AssertionError("no " + what + " message within the timeout");
        }

        public void close()
        {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
        }
    }

    /**
     * A subscriber's own copy of one side of the book, kept from snapshot and updates.
     */
    static final class LocalBook
    {
        final TreeMap<String, String> bids = new TreeMap<>();
        final TreeMap<String, String> asks = new TreeMap<>();
        long sequence;

        void snapshot(final JsonNode message)
        {
            bids.clear();
            asks.clear();
            for (final JsonNode level : message.get("bids"))
            {
                bids.put(level.get("price").asText(), level.get("quantity").asText());
            }
            for (final JsonNode level : message.get("asks"))
            {
                asks.put(level.get("price").asText(), level.get("quantity").asText());
            }
            sequence = message.get("sequence").asLong();
        }

        void apply(final JsonNode update)
        {
            for (final JsonNode change : update.get("changes"))
            {
                final Map<String, String> side = change.get("side").asText().equals("BUY") ? bids : asks;
                if (Double.parseDouble(change.get("quantity").asText()) == 0)
                {
                    side.remove(change.get("price").asText());
                }
                else
                {
                    side.put(change.get("price").asText(), change.get("quantity").asText());
                }
            }
            sequence = update.get("sequence").asLong();
        }
    }

    @Test
    void aPongComesAfterTheAnswersToTheMessagesSentBeforeItsPing()
    {
        try (Client client = new Client(harness.baseUrl()))
        {
            client.send("{\"op\":\"subscribe\",\"channel\":\"book\",\"symbol\":\"BTC-USD\"}");
            client.send("{\"op\":\"subscribe\",\"channel\":\"no-such-channel\"}");
            client.send("{\"op\":\"ping\"}");
            final List<String> answers = new ArrayList<>();
            client.next(message ->
            {
                final String type = message.get("type").asText();
                if (!type.equals("heartbeat"))
                {
                    answers.add(type);
                }
                return type.equals("pong");
            }, "pong");
            assertEquals(List.of("subscribed", "book.snapshot", "error", "pong"), answers);
        }
    }

    @Test
    void aSubscriberThatMissesAnUpdateDetectsTheGapAndResyncsFromASnapshot()
    {
        try (Client client = new Client(harness.baseUrl()))
        {
            client.send("{\"op\":\"subscribe\",\"channel\":\"book\",\"symbol\":\"BTC-USD\"}");
            final LocalBook book = new LocalBook();
            book.snapshot(client.next("book.snapshot"));

            for (int i = 0; i < 5; i++)
            {
                expect(200, harness.placeLimit(ALICE, "BUY", (60 + i) + ".00", "1", null));
            }
            // Apply two updates, then drop one on the floor as a lossy network would.
            for (int i = 0; i < 2; i++)
            {
                final JsonNode update = client.next("book.update");
                assertEquals(book.sequence + 1, update.get("sequence").asLong(), "updates are numbered one by one");
                book.apply(update);
            }
            client.next("book.update");

            final JsonNode afterGap = client.next("book.update");
            final boolean gap = afterGap.get("sequence").asLong() != book.sequence + 1;
            assertTrue(gap, "the subscriber sees the gap: had " + book.sequence + ", got " + afterGap.get("sequence"));

            client.send("{\"op\":\"subscribe\",\"channel\":\"book\",\"symbol\":\"BTC-USD\"}");
            final JsonNode snapshot = client.next("book.snapshot");
            book.snapshot(snapshot);
            final JsonNode rest = expect(200, harness.get("/api/v1/book/BTC-USD?depth=1000")).json();
            assertEquals(rest.get("sequence").asLong(), book.sequence);
            assertEquals(5, book.bids.size());
            assertEquals("1.0000", book.bids.get("64.00"));

            // Updates continue from the snapshot's sequence.
            expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders", null));
            JsonNode update;
            do
            {
                update = client.next("book.update");
            }
            while (update.get("sequence").asLong() <= book.sequence);
            assertEquals(book.sequence + 1, update.get("sequence").asLong());
            book.apply(update);
            assertTrue(book.bids.isEmpty(), "the mass cancel emptied the bids: " + book.bids);
        }
    }

    @Test
    void aReplayedAuthenticationIsRefused()
    {
        try (Client first = new Client(harness.baseUrl()); Client second = new Client(harness.baseUrl()))
        {
            final String timestamp = Long.toString(System.currentTimeMillis());
            final String auth = "{\"op\":\"auth\",\"key\":\"" + ALICE.key() + "\",\"timestamp\":\"" + timestamp +
                "\",\"signature\":\"" + Authenticator.signature(ALICE.secret(), timestamp, "GET", "/ws", new byte[0]) + "\"}";
            first.send(auth);
            assertEquals("1", first.next("authenticated").get("accountId").asText());
            second.send(auth);
            assertEquals("REPLAYED_REQUEST", second.next("error").get("code").asText());
            second.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
            assertEquals("NOT_AUTHENTICATED", second.next("error").get("code").asText());
        }
    }

    @Test
    void aConnectionIsAuthenticatedForOneAccount()
    {
        try (Client client = new Client(harness.baseUrl()))
        {
            client.send(auth(ALICE, System.currentTimeMillis()));
            assertEquals("1", client.next("authenticated").get("accountId").asText());
            client.send(auth(BOB, System.currentTimeMillis()));
            final JsonNode refused = client.next("error");
            assertEquals("ALREADY_AUTHENTICATED", refused.get("code").asText());
            assertTrue(refused.get("detail").asText().contains("account 1"), refused.toString());
            client.send(auth(ALICE, System.currentTimeMillis() + 1));
            assertEquals("1", client.next("authenticated").get("accountId").asText(), "the same account again");
        }
    }

    @Test
    void aConnectionAuthenticatedWithATradingKeyPlacesReplacesAndCancelsOrders()
    {
        final int bobOpen = expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().size();
        final int aliceOpen = expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json().size();
        try (Client client = new Client(harness.baseUrl()); Client reader = new Client(harness.baseUrl()))
        {
            client.send("{\"op\":\"order.place\",\"id\":\"early\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", null) + "}");
            expectRefused(response(client, "early"), 401, "NOT_AUTHENTICATED", null);
            client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"early-cod\",\"enabled\":true}");
            expectRefused(response(client, "early-cod"), 401, "NOT_AUTHENTICATED", null);
            client.send(auth(BOB, System.currentTimeMillis()));
            client.next("authenticated");

            client.send("{\"op\":\"order.place\",\"id\":\"p1\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", "ws1") + "}");
            final JsonNode placed = response(client, "p1");
            assertEquals(200, placed.get("status").asInt(), placed.toString());
            assertEquals("NEW", placed.get("order").get("status").asText());
            assertEquals("ws1", placed.get("order").get("clientOrderId").asText());
            final String orderId = placed.get("order").get("orderId").asText();
            assertEquals(orderId, expect(200, harness.call(BOB, "GET", "/api/v1/orders/" + orderId, null))
                .str("orderId"), "the same order the REST API sees");

            client.send("{\"op\":\"order.replace\",\"id\":\"r1\",\"orderId\":\"" + orderId +
                "\",\"order\":{\"price\":\"6.00\",\"quantity\":\"2\"}}");
            final JsonNode replaced = response(client, "r1").get("order");
            assertEquals("6.00", replaced.get("price").asText(), replaced.toString());
            assertEquals("2.0000", replaced.get("quantity").asText());
            assertEquals(false, replaced.get("priorityKept").asBoolean());

            client.send("{\"op\":\"order.cancel\",\"id\":\"c1\",\"clientOrderId\":\"ws1\"}");
            assertEquals("CANCELED", response(client, "c1").get("order").get("status").asText());
            client.send("{\"op\":\"order.cancel\",\"id\":\"c2\",\"orderId\":\"" + orderId + "\"}");
            expectRefused(response(client, "c2"), 404, "UNKNOWN_ORDER", null);

            client.send("{\"op\":\"order.place\",\"id\":\"tick\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.001", "1", null) + "}");
            expectRefused(response(client, "tick"), 400, "PRICE_OFF_TICK", "price");
            client.send("{\"op\":\"order.place\",\"id\":\"none\"}");
            expectRefused(response(client, "none"), 400, "MISSING_FIELD", "order");
            client.send("{\"op\":\"order.cancel\",\"id\":\"both\",\"orderId\":\"1\",\"clientOrderId\":\"x\"}");
            expectRefused(response(client, "both"), 400, "MISSING_FIELD", "orderId");
            client.send("{\"op\":\"order.replace\",\"id\":\"gone\",\"orderId\":\"" + orderId +
                "\",\"order\":{\"price\":\"6.00\",\"quantity\":\"1\"}}");
            expectRefused(response(client, "gone"), 404, "UNKNOWN_ORDER", "orderId");
            client.send("{\"op\":\"order.place\",\"id\":\"" + "x".repeat(65) + "\",\"order\":{}}");
            expectRefused(client.next(m -> m.get("type").asText().equals("response") && m.get("id").isNull(),
                "the response to an id too long to repeat"), 400, "INVALID_PARAMETER", "id");
            // A client order id belongs in the order: one beside it is refused, not ignored.
            client.send("{\"op\":\"order.place\",\"id\":\"beside\",\"clientOrderId\":\"x1\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", null) + "}");
            expectRefused(response(client, "beside"), 400, "UNKNOWN_FIELD", "clientOrderId");

            // An integer id is repeated as an integer; a pong comes after the answer to the order sent before its ping.
            client.send("{\"op\":\"order.place\",\"id\":42,\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", "ws2") + "}");
            client.send("{\"op\":\"ping\"}");
            final JsonNode answered = client.next(m -> m.get("type").asText().equals("response") ||
                m.get("type").asText().equals("pong"), "the response or the pong");
            assertEquals("response", answered.get("type").asText(), "the order's answer first: " + answered);
            assertTrue(answered.get("id").isIntegralNumber() && answered.get("id").asLong() == 42, answered.toString());
            client.next("pong");
            client.send("{\"op\":\"order.cancel\",\"id\":\"c4\",\"clientOrderId\":\"ws2\"}");
            assertEquals("CANCELED", response(client, "c4").get("order").get("status").asText());

            // Without an id the response has none; it is still the only one in flight.
            client.send("{\"op\":\"order.place\",\"order\":" + GatewayHarness.limitOrder("BUY", "5.00", "1", null) + "}");
            final JsonNode anonymous = client.next("response");
            assertTrue(anonymous.get("id").isNull(), anonymous.toString());
            client.send("{\"op\":\"order.cancel\",\"id\":\"c3\",\"orderId\":\"" +
                anonymous.get("order").get("orderId").asText() + "\"}");
            assertEquals("CANCELED", response(client, "c3").get("order").get("status").asText());

            reader.send(auth(GatewayHarness.ALICE_READER, System.currentTimeMillis()));
            reader.next("authenticated");
            reader.send("{\"op\":\"order.place\",\"id\":\"ro\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", null) + "}");
            expectRefused(response(reader, "ro"), 403, "READ_ONLY_KEY", null);
            reader.send("{\"op\":\"orders.cancel\",\"id\":\"roc\"}");
            expectRefused(response(reader, "roc"), 403, "READ_ONLY_KEY", null);
            reader.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"rod\",\"enabled\":true}");
            expectRefused(response(reader, "rod"), 403, "READ_ONLY_KEY", null);
        }
        assertEquals(bobOpen, expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().size(),
            "every order placed here canceled");
        assertEquals(aliceOpen, expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json().size(),
            "none placed with the read-only key");
    }

    @Test
    void aConnectionCancelsItsAccountsOrdersAtOnceOrWhenItCloses()
    {
        // From none open, whatever other tests left.
        expect(200, harness.call(BOB, "DELETE", "/api/v1/orders", null));
        try (Client client = new Client(harness.baseUrl()))
        {
            client.send(auth(BOB, System.currentTimeMillis()));
            client.next("authenticated");
            for (final String price : List.of("5.00", "6.00"))
            {
                client.send("{\"op\":\"order.place\",\"id\":\"" + price + "\",\"order\":" +
                    GatewayHarness.limitOrder("BUY", price, "1", null) + "}");
                assertEquals(200, response(client, price).get("status").asInt());
            }
            client.send("{\"op\":\"orders.cancel\",\"id\":\"all\",\"symbol\":\"BTC-USD\",\"side\":\"BUY\"}");
            final JsonNode all = response(client, "all");
            assertEquals(200, all.get("status").asInt(), all.toString());
            assertEquals(2, all.get("canceledCount").asInt(), all.toString());
            client.send("{\"op\":\"orders.cancel\",\"id\":\"side\",\"side\":\"BOTH\"}");
            expectRefused(response(client, "side"), 400, "INVALID_ENUM", "side");
            client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"unsaid\"}");
            expectRefused(response(client, "unsaid"), 400, "MISSING_FIELD", "enabled");
            client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"scope\",\"enabled\":true,\"scope\":\"session\"}");
            expectRefused(response(client, "scope"), 400, "INVALID_ENUM", "scope");

            // Asked for, then taken back: the order stays when the connection closes.
            client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"on\",\"enabled\":true}");
            assertTrue(response(client, "on").get("cancelOnDisconnect").asBoolean());
            client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"off\",\"enabled\":false}");
            final JsonNode off = response(client, "off");
            assertEquals(false, off.get("cancelOnDisconnect").asBoolean());
            assertTrue(!off.has("scope"), off.toString());
            client.send("{\"op\":\"order.place\",\"id\":\"stays\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", "stay1") + "}");
            assertEquals(200, response(client, "stays").get("status").asInt());
        }
        // Once the gateway has seen the close: any cancel it sent then comes before the DELETE below, and would have
        // taken the order.
        awaitWebSocketSessions(0);
        assertEquals(1, expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().size(),
            "no cancel on disconnect once taken back");
        assertEquals("CANCELED", expect(200, harness.call(BOB, "DELETE", "/api/v1/orders/by-client-id/stay1", null))
            .str("status"));

        // The account's orders, whoever placed them.
        expect(200, harness.call(BOB, "POST", "/api/v1/orders", GatewayHarness.limitOrder("BUY", "5.00", "1", "rest1")));
        try (Client client = new Client(harness.baseUrl()))
        {
            client.send(auth(BOB, System.currentTimeMillis()));
            client.next("authenticated");
            client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"on\",\"enabled\":true,\"scope\":\"account\"}");
            final JsonNode on = response(client, "on");
            assertTrue(on.get("cancelOnDisconnect").asBoolean(), on.toString());
            assertEquals("account", on.get("scope").asText(), on.toString());
            client.send("{\"op\":\"order.place\",\"id\":\"goes\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", null) + "}");
            assertEquals(200, response(client, "goes").get("status").asInt());
        }
        GatewayHarness.await("the account's orders canceled once the connection closed",
            () -> expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().isEmpty());
    }

    @Test
    void aConnectionArmsTheAccountsDeadMansSwitch()
    {
        expect(200, harness.call(BOB, "DELETE", "/api/v1/orders", null));
        try (Client client = new Client(harness.baseUrl()))
        {
            client.send("{\"op\":\"cancelAllAfter\",\"id\":\"early\",\"timeoutMs\":60000}");
            expectRefused(response(client, "early"), 401, "NOT_AUTHENTICATED", null);
            client.send(auth(BOB, System.currentTimeMillis()));
            client.next("authenticated");
            client.send("{\"op\":\"cancelAllAfter\",\"id\":\"short\",\"timeoutMs\":999}");
            expectRefused(response(client, "short"), 400, "OUT_OF_RANGE", "timeoutMs");
            client.send("{\"op\":\"cancelAllAfter\",\"id\":\"arm\",\"timeoutMs\":60000}");
            final JsonNode armed = response(client, "arm");
            assertEquals(200, armed.get("status").asInt(), armed.toString());
            assertTrue(armed.get("armed").asBoolean(), armed.toString());
            assertEquals(60_000, armed.get("triggerTime").asLong() - armed.get("currentTime").asLong(), armed.toString());
            assertTrue(expect(200, harness.call(BOB, "GET", "/api/v1/orders/cancel-all-after", null)).json()
                .get("armed").asBoolean(), "REST reads the switch the connection armed");

            client.send("{\"op\":\"order.place\",\"id\":\"quote\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", "dms-ws") + "}");
            final JsonNode quoted = response(client, "quote");
            assertEquals(200, quoted.get("status").asInt(), quoted.toString());
            client.send("{\"op\":\"cancelAllAfter\",\"id\":\"soon\",\"timeoutMs\":1000}");
            assertEquals(1_000, response(client, "soon").get("timeoutMs").asLong());
            GatewayHarness.await("the switch to cancel the order", () -> "CANCEL_ALL_AFTER".equals(
                expect(200, harness.call(BOB, "GET", "/api/v1/orders/by-client-id/dms-ws", null))
                    .str("cancelReason")));
            client.send("{\"op\":\"cancelAllAfter\",\"id\":\"off\",\"timeoutMs\":0}");
            final JsonNode off = response(client, "off");
            assertEquals(false, off.get("armed").asBoolean(), off.toString());
        }
        finally
        {
            // Not left armed for the other tests' orders of the account, whatever happened above.
            expect(200, harness.call(BOB, "POST", "/api/v1/orders/cancel-all-after", "{\"timeoutMs\":0}"));
        }
    }

    @Test
    void aConnectionCancelsTheOrdersItPlacedWhenItCloses()
    {
        expect(200, harness.call(BOB, "DELETE", "/api/v1/orders", null));
        final long failedBefore = harness.get("/api/v1/monitor").json().get("http").get("cancelOnDisconnectFailed")
            .asLong();
        expect(200, harness.call(BOB, "POST", "/api/v1/orders", GatewayHarness.limitOrder("BUY", "5.00", "1", "rest2")));
        try (Client other = new Client(harness.baseUrl()))
        {
            other.send(auth(BOB, System.currentTimeMillis()));
            other.next("authenticated");
            other.send("{\"op\":\"order.place\",\"id\":\"other\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", "other2") + "}");
            assertEquals(200, response(other, "other").get("status").asInt());
            try (Client client = new Client(harness.baseUrl()))
            {
                client.send(auth(BOB, System.currentTimeMillis()));
                client.next("authenticated");
                // Placed before it is asked for: still the connection's order.
                client.send("{\"op\":\"order.place\",\"id\":\"mine\",\"order\":" +
                    GatewayHarness.limitOrder("BUY", "5.00", "1", "mine2") + "}");
                assertEquals(200, response(client, "mine").get("status").asInt());
                client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"on\",\"enabled\":true}");
                final JsonNode on = response(client, "on");
                assertTrue(on.get("cancelOnDisconnect").asBoolean(), on.toString());
                assertEquals("connection", on.get("scope").asText(), on.toString());
                // Closed before the connection is: not canceled again, and no failure.
                client.send("{\"op\":\"order.place\",\"id\":\"gone\",\"order\":" +
                    GatewayHarness.limitOrder("BUY", "5.00", "1", "gone2") + "}");
                assertEquals(200, response(client, "gone").get("status").asInt());
                client.send("{\"op\":\"order.cancel\",\"id\":\"cancel\",\"clientOrderId\":\"gone2\"}");
                assertEquals("CANCELED", response(client, "cancel").get("order").get("status").asText());
                // Enough placements for the connection to forget its closed ones: the open ones are still canceled.
                for (int i = 0; i < 2 * GatewayAgent.PLACED_ORDERS_PRUNED_FROM; i++)
                {
                    client.send("{\"op\":\"order.place\",\"id\":\"p" + i + "\",\"order\":" +
                        GatewayHarness.limitOrder("BUY", "5.00", "1", "many" + i) + "}");
                    assertEquals(200, response(client, "p" + i).get("status").asInt());
                    if (i % 40 != 0)
                    {
                        client.send("{\"op\":\"order.cancel\",\"id\":\"c" + i + "\",\"clientOrderId\":\"many" +
                            i + "\"}");
                        assertEquals(200, response(client, "c" + i).get("status").asInt());
                    }
                }
            }
            awaitWebSocketSessions(1);
            GatewayHarness.await("the connection's open orders canceled once it closed", () ->
                expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().size() == 2);
            for (final String clientOrderId : List.of("mine2", "many0", "many40", "many80", "many120"))
            {
                assertEquals("CANCELED", expect(200, harness.call(BOB, "GET", "/api/v1/orders/by-client-id/" +
                    clientOrderId, null)).str("status"), clientOrderId);
            }
            assertEquals("NEW", expect(200, harness.call(BOB, "GET", "/api/v1/orders/by-client-id/rest2", null))
                .str("status"), "an order placed over REST stays");
            assertEquals("NEW", expect(200, harness.call(BOB, "GET", "/api/v1/orders/by-client-id/other2", null))
                .str("status"), "another connection's order stays");
        }

        // Placed and closed at once: the order is not sent, or it is canceled once it is answered.
        try (Client client = new Client(harness.baseUrl()))
        {
            client.send(auth(BOB, System.currentTimeMillis()));
            client.next("authenticated");
            client.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"on\",\"enabled\":true}");
            assertTrue(response(client, "on").get("cancelOnDisconnect").asBoolean());
            client.send("{\"op\":\"order.place\",\"id\":\"late\",\"order\":" +
                GatewayHarness.limitOrder("BUY", "5.00", "1", "late2") + "}");
        }
        awaitWebSocketSessions(0);
        // Sent after the close was seen, so answered after any placement sent before it: the placement's cancel, if
        // any, is then on its way.
        expect(200, harness.call(BOB, "DELETE", "/api/v1/orders/by-client-id/rest2", null));
        GatewayHarness.await("the late placement not left open", () ->
        {
            final GatewayHarness.Response late = harness.call(BOB, "GET", "/api/v1/orders/by-client-id/late2", null);
            return late.status() == 404 || "CANCELED".equals(late.str("status"));
        });
        expect(200, harness.call(BOB, "DELETE", "/api/v1/orders/by-client-id/other2", null));
        assertEquals(0, expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().size());
        assertEquals(failedBefore, harness.get("/api/v1/monitor").json().get("http").get("cancelOnDisconnectFailed")
            .asLong(), "no cancel failed: an order closed meanwhile is not a failure");
    }

    private static void awaitWebSocketSessions(final int count)
    {
        GatewayHarness.await("the gateway to see " + count + " WebSocket connection(s)", () ->
            harness.get("/api/v1/monitor").json().get("http").get("webSocketSessions").asInt() == count);
    }

    private static JsonNode response(final Client client, final String id)
    {
        return client.next(message -> message.get("type").asText().equals("response") &&
            id.equals(message.get("id").asText()), "the response to " + id);
    }

    private static void expectRefused(final JsonNode response, final int status, final String code, final String field)
    {
        assertEquals(status, response.get("status").asInt(), response.toString());
        final JsonNode error = response.get("error");
        assertEquals(code, error.get("code").asText(), response.toString());
        assertEquals(field, error.has("field") ? error.get("field").asText() : null, response.toString());
        assertTrue(!response.has("order"), response.toString());
    }

    static String auth(final ApiKey key, final long timeMs)
    {
        final String timestamp = Long.toString(timeMs);
        return "{\"op\":\"auth\",\"key\":\"" + key.key() + "\",\"timestamp\":\"" + timestamp +
            "\",\"signature\":\"" + Authenticator.signature(key.secret(), timestamp, "GET", "/ws", new byte[0]) + "\"}";
    }

    @Test
    void tradesTickerAndPrivateChannels()
    {
        try (Client alice = new Client(harness.baseUrl()); Client watcher = new Client(harness.baseUrl()))
        {
            watcher.send("{\"op\":\"subscribe\",\"channel\":\"trades\",\"symbol\":\"BTC-USD\"}");
            watcher.send("{\"op\":\"subscribe\",\"channel\":\"ticker\",\"symbol\":\"BTC-USD\"}");
            watcher.next(m -> m.get("type").asText().equals("subscribed") && m.get("channel").asText().equals("ticker"),
                "ticker subscribed");

            alice.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
            assertEquals("NOT_AUTHENTICATED", alice.next("error").get("code").asText());
            final String timestamp = Long.toString(System.currentTimeMillis());
            alice.send("{\"op\":\"auth\",\"key\":\"" + ALICE.key() + "\",\"timestamp\":\"" + timestamp +
                "\",\"signature\":\"" + Authenticator.signature(ALICE.secret(), timestamp, "GET", "/ws", new byte[0]) + "\"}");
            assertEquals("1", alice.next("authenticated").get("accountId").asText());
            alice.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
            alice.send("{\"op\":\"subscribe\",\"channel\":\"fills\"}");
            alice.next(m -> m.get("type").asText().equals("subscribed") && m.get("channel").asText().equals("fills"),
                "fills subscribed");

            final String orderId = expect(200, harness.placeLimit(ALICE, "SELL", "250.00", "1", "ws-1")).str("orderId");
            final JsonNode accepted = alice.next("order");
            assertEquals(orderId, accepted.get("orderId").asText());
            assertEquals("NEW", accepted.get("status").asText());
            assertEquals("ws-1", accepted.get("clientOrderId").asText());
            assertEquals("LIMIT", accepted.get("orderType").asText());

            expect(200, harness.placeLimit(BOB, "BUY", "250.00", "0.4", null));
            final JsonNode fill = alice.next("fill");
            assertEquals("0.4000", fill.get("quantity").asText());
            assertEquals("MAKER", fill.get("liquidity").asText());
            assertEquals("PARTIALLY_FILLED", alice.next("order").get("status").asText());

            final JsonNode trade = watcher.next("trade");
            assertEquals("250.00", trade.get("price").asText());
            assertEquals("BUY", trade.get("takerSide").asText());
            assertEquals("250.00", watcher.next(m -> m.get("type").asText().equals("ticker") &&
                !m.get("lastPrice").isNull(), "ticker with a last price").get("lastPrice").asText());

            assertTrue(watcher.next("heartbeat").get("live").asBoolean(), "connected and holding the state");
            watcher.send("{\"op\":\"ping\"}");
            watcher.next("pong");
            watcher.send("{\"op\":\"subscribe\",\"channel\":\"book\",\"symbol\":\"NOPE\"}");
            assertEquals("UNKNOWN_INSTRUMENT", watcher.next("error").get("code").asText());
            watcher.send("not json");
            assertEquals("MALFORMED_JSON", watcher.next("error").get("code").asText());
            expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders", null));
            assertEquals("CANCELED", alice.next(m -> m.get("type").asText().equals("order") &&
                m.get("status").asText().equals("CANCELED"), "canceled order").get("status").asText());
            assertTrue(harness.get("/api/v1/monitor").json().get("http").get("webSocketSessions").asInt() >= 2);
        }
    }

    @Test
    void theBalancesChannelFollowsReservationsFillsAndTransfers()
    {
        try (Client carol = new Client(harness.baseUrl()))
        {
            carol.send("{\"op\":\"subscribe\",\"channel\":\"balances\"}");
            assertEquals("NOT_AUTHENTICATED", carol.next("error").get("code").asText());
            carol.send(auth(CAROL, System.currentTimeMillis()));
            carol.next("authenticated");
            carol.send("{\"op\":\"subscribe\",\"channel\":\"balances\"}");
            final JsonNode snapshot = carol.next("balances.snapshot");
            assertEquals(expect(200, harness.call(CAROL, "GET", "/api/v1/balances", null)).json().get("balances"),
                snapshot.get("balances"), "as the REST call has them");
            long sequence = snapshot.get("sequence").asLong();

            // Resting: the reservation moves USD from available to reserved.
            final String orderId = expect(200, harness.placeLimit(CAROL, "BUY", "40.00", "1", "bal-1")).str("orderId");
            JsonNode update = carol.next("balances");
            assertEquals(++sequence, update.get("sequence").asLong());
            assertEquals(expect(200, harness.call(CAROL, "GET", "/api/v1/balances", null)).json().get("balances"),
                update.get("balances"));
            assertTrue(new BigDecimal(usd(update, "reserved")).signum() > 0, update.toString());

            // A deposit, then the cancel that releases the reservation: one message each.
            final BigDecimal availableBefore = new BigDecimal(usd(update, "available"));
            expect(200, harness.call(ADMIN, "POST", "/api/v1/admin/accounts/" + CAROL.accountId() + "/deposits",
                "{\"asset\":\"USD\",\"amount\":\"5\",\"transactionId\":90001}"));
            update = carol.next("balances");
            assertEquals(++sequence, update.get("sequence").asLong());
            assertEquals(availableBefore.add(new BigDecimal(5)), new BigDecimal(usd(update, "available")));
            expect(200, harness.call(CAROL, "DELETE", "/api/v1/orders/" + orderId, null));
            update = carol.next("balances");
            assertEquals(++sequence, update.get("sequence").asLong());
            assertEquals(0, new BigDecimal(usd(update, "reserved")).signum(), update.toString());
            assertEquals(expect(200, harness.call(CAROL, "GET", "/api/v1/balances", null)).json().get("balances"),
                update.get("balances"));

            // A fill settles both sides in one batch: Carol's balances come after its fill and its order's state. The
            // price lies between every bid and ask other tests leave, so Carol's buy meets Bob's sell alone.
            carol.send("{\"op\":\"subscribe\",\"channel\":\"fills\"}");
            carol.next("fills.snapshot");
            carol.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
            carol.next("orders.snapshot");
            expect(200, harness.placeLimit(BOB, "SELL", "150.00", "0.5", null));
            expect(200, harness.placeLimit(CAROL, "BUY", "150.00", "0.5", "bal-2"));
            final List<String> types = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                update = carol.next(m -> List.of("fill", "order", "balances").contains(m.get("type").asText()),
                    "a private message");
                types.add(update.get("type").asText());
            }
            assertEquals(List.of("fill", "order", "balances"), types);
            assertEquals(++sequence, update.get("sequence").asLong(), "one balances message for the batch");
            assertEquals(expect(200, harness.call(CAROL, "GET", "/api/v1/balances", null)).json().get("balances"),
                update.get("balances"));

            carol.send("{\"op\":\"unsubscribe\",\"channel\":\"balances\"}");
            carol.next(m -> m.get("type").asText().equals("unsubscribed"), "unsubscribed");
        }
    }

    private static String usd(final JsonNode balances, final String field)
    {
        for (final JsonNode balance : balances.get("balances"))
        {
            if (balance.get("asset").asText().equals("USD"))
            {
                return balance.get(field).asText();
            }
        }
        throw new AssertionError("no USD balance in " + balances);
    }

    @Test
    void privateChannelsStartFromASnapshotAndNumberTheirMessagesPerConnection()
    {
        final String restingId = expect(200, harness.placeLimit(ALICE, "SELL", "260.00", "1", "snap-1")).str("orderId");
        try (Client alice = new Client(harness.baseUrl()))
        {
            alice.send(auth(ALICE, System.currentTimeMillis()));
            alice.next("authenticated");
            alice.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
            final JsonNode orders = alice.next("orders.snapshot");
            assertEquals(0, orders.get("sequence").asLong());
            final JsonNode resting = find(orders.get("orders"), restingId);
            assertEquals("snap-1", resting.get("clientOrderId").asText());
            assertEquals("LIMIT", resting.get("orderType").asText());
            assertEquals("NEW", resting.get("status").asText());
            alice.send("{\"op\":\"subscribe\",\"channel\":\"fills\"}");
            assertEquals(0, alice.next("fills.snapshot").get("sequence").asLong());

            expect(200, harness.placeLimit(BOB, "BUY", "260.00", "0.25", null));
            final JsonNode fill = alice.next("fill");
            assertEquals(1, fill.get("sequence").asLong(), "fills are numbered on their own channel");
            final JsonNode partial = alice.next("order");
            assertEquals(1, partial.get("sequence").asLong());
            assertEquals("PARTIALLY_FILLED", partial.get("status").asText());

            // A client that saw a gap subscribes again: the snapshot says where the numbers go on from.
            alice.send("{\"op\":\"subscribe\",\"channel\":\"fills\"}");
            final JsonNode fills = alice.next("fills.snapshot");
            assertEquals(1, fills.get("sequence").asLong());
            assertEquals(fill.get("tradeId").asText(), fills.get("fills").get(0).get("tradeId").asText(), "newest first");
            alice.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
            final JsonNode again = alice.next("orders.snapshot");
            assertEquals(1, again.get("sequence").asLong());
            assertEquals("0.7500", find(again.get("orders"), restingId).get("remainingQuantity").asText());

            try (Client second = new Client(harness.baseUrl()))
            {
                second.send(auth(ALICE, System.currentTimeMillis() + 1));
                second.next("authenticated");
                second.send("{\"op\":\"subscribe\",\"channel\":\"orders\"}");
                assertEquals(0, second.next("orders.snapshot").get("sequence").asLong(), "numbered per connection");

                expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders/" + restingId, null));
                final JsonNode canceled = alice.next("order");
                assertEquals(2, canceled.get("sequence").asLong());
                assertEquals("CANCELED", canceled.get("status").asText());
                assertEquals(1, second.next("order").get("sequence").asLong());
            }
        }
    }

    private static JsonNode find(final JsonNode orders, final String orderId)
    {
        for (final JsonNode order : orders)
        {
            if (order.get("orderId").asText().equals(orderId))
            {
                return order;
            }
        }
        throw new AssertionError("no order " + orderId + " in " + orders);
    }
}
