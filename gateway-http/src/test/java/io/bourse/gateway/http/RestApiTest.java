package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;

import static io.bourse.gateway.http.GatewayHarness.ADMIN;
import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.ALICE_READER;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.CAROL;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every REST endpoint against a real embedded node, through real HTTP.
 */
class RestApiTest
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

    @AfterEach
    void cancelEverything()
    {
        for (final ApiKey key : new ApiKey[]{ ALICE, BOB, CAROL })
        {
            expect(200, harness.call(key, "POST", "/api/v1/orders/cancel-all-after", "{\"timeoutMs\":0}"));
            expect(200, harness.call(key, "DELETE", "/api/v1/orders", null));
        }
    }

    @Test
    void serverTimeInstrumentsAndTheOpenApiDocument()
    {
        final long before = System.currentTimeMillis();
        final GatewayHarness.Response time = expect(200, harness.get("/api/v1/time"));
        assertTrue(time.get("serverTime").asLong() >= before);

        final JsonNode instruments = expect(200, harness.get("/api/v1/instruments")).json();
        assertEquals(1, instruments.size());
        final JsonNode btcUsd = instruments.get(0);
        assertEquals("BTC-USD", btcUsd.get("symbol").asText());
        assertEquals("0.01", btcUsd.get("tickSize").asText());
        assertEquals("0.0001", btcUsd.get("lotSize").asText());
        assertEquals("BTC", btcUsd.get("baseAsset").asText());
        assertEquals("OPEN", btcUsd.get("tradingState").asText());

        final GatewayHarness.Response openApi = expect(200, harness.get("/api/openapi.json"));
        assertEquals("3.0.3", openApi.str("openapi"));
        assertTrue(openApi.get("paths").has("/api/v1/orders"));
    }

    @Test
    void aRestingOrderIsInTheBookAndOpenOrdersUntilCanceled()
    {
        final GatewayHarness.Response placed = expect(200, harness.placeLimit(ALICE, "BUY", "100.50", "1.5", "rest-1"));
        assertEquals("NEW", placed.str("status"));
        assertEquals("rest-1", placed.str("clientOrderId"));
        assertEquals("100.50", placed.str("price"));
        assertEquals("1.5000", placed.str("quantity"));
        final String orderId = placed.str("orderId");

        final JsonNode book = expect(200, harness.get("/api/v1/book/BTC-USD?depth=5")).json();
        assertEquals("100.50", book.get("bids").get(0).get("price").asText());
        assertEquals("1.5000", book.get("bids").get(0).get("quantity").asText());
        assertEquals(1, book.get("bids").get(0).get("orders").asInt());

        final JsonNode open = expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json();
        assertEquals(1, open.size());
        assertEquals(orderId, open.get(0).get("orderId").asText());
        assertEquals(orderId, expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + orderId, null)).str("orderId"));

        final JsonNode balances = expect(200, harness.call(ALICE, "GET", "/api/v1/balances", null)).json();
        final JsonNode usd = balance(balances, "USD");
        // 100.50 × 1.5 = 150.75 reserved, plus the highest fee rate (0.2 %) on it.
        assertEquals(0, new BigDecimal("151.0515").compareTo(new BigDecimal(usd.get("reserved").asText())));

        final GatewayHarness.Response canceled = expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders/" + orderId, null));
        assertEquals("CANCELED", canceled.str("status"));
        assertEquals("CLIENT_REQUEST", canceled.str("cancelReason"));
        assertEquals(0, expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json().size());
        assertEquals(0, expect(200, harness.get("/api/v1/book/BTC-USD")).get("bids").size());
        assertEquals("CANCELED", expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + orderId, null)).str("status"));
    }

    @Test
    void crossingFromAnotherAccountTradesAndMovesBalances()
    {
        final BigDecimal aliceBtcBefore = available(ALICE, "BTC");
        final BigDecimal bobUsdBefore = available(BOB, "USD");
        final String makerId = expect(200, harness.placeLimit(ALICE, "SELL", "200.00", "2", "mk-1")).str("orderId");

        final GatewayHarness.Response taker = expect(200, harness.placeLimit(BOB, "BUY", "201.00", "0.5", "tk-1"));
        assertEquals("FILLED", taker.str("status"));
        assertEquals("0.5000", taker.str("filledQuantity"));
        assertEquals(1, taker.get("fills").size());
        assertEquals("200.00", taker.get("fills").get(0).get("price").asText());
        assertEquals("TAKER", taker.get("fills").get(0).get("liquidity").asText());
        assertEquals("0.200000", taker.get("fills").get(0).get("fee").asText());

        final JsonNode maker = expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + makerId, null)).json();
        assertEquals("PARTIALLY_FILLED", maker.get("status").asText());
        assertEquals("1.5000", maker.get("remainingQuantity").asText());

        final JsonNode trades = expect(200, harness.get("/api/v1/trades/BTC-USD?limit=1")).json();
        assertEquals(1, trades.size());
        assertEquals("200.00", trades.get(0).get("price").asText());
        assertEquals("BUY", trades.get(0).get("takerSide").asText());
        assertEquals("200.00", expect(200, harness.get("/api/v1/ticker/BTC-USD")).str("lastPrice"));

        final JsonNode aliceFills = expect(200, harness.call(ALICE, "GET", "/api/v1/fills?symbol=BTC-USD&limit=1", null)).json();
        assertEquals("MAKER", aliceFills.get(0).get("liquidity").asText());
        assertEquals("SELL", aliceFills.get(0).get("side").asText());
        assertEquals(0, new BigDecimal("100.20").compareTo(bobUsdBefore.subtract(available(BOB, "USD"))),
            "Bob paid 0.5 × 200 plus 0.2 % taker fee");
        // Alice's 2 BTC are reserved for the sell; 0.5 of them are gone to Bob.
        assertEquals(0, new BigDecimal("2").compareTo(aliceBtcBefore.subtract(available(ALICE, "BTC"))));
    }

    @Test
    void replaceChangesPriceAndQuantityAndKeepsTheOrder()
    {
        final String orderId = expect(200, harness.placeLimit(ALICE, "BUY", "90.00", "1", "rp-1")).str("orderId");
        final GatewayHarness.Response replaced = expect(200, harness.call(ALICE, "PUT", "/api/v1/orders/" + orderId,
            "{\"price\":\"91.00\",\"quantity\":\"0.8\",\"clientOrderId\":\"rp-2\"}"));
        assertEquals(orderId, replaced.str("orderId"));
        assertEquals("91.00", replaced.str("price"));
        assertEquals("0.8000", replaced.str("quantity"));
        assertEquals("rp-2", replaced.str("clientOrderId"));
        assertFalse(replaced.get("priorityKept").asBoolean(), "a new price loses the order's place");
        assertEquals("91.00", expect(200, harness.get("/api/v1/book/BTC-USD")).get("bids").get(0).get("price").asText());
        final GatewayHarness.Response reduced = expect(200, harness.call(ALICE, "PUT", "/api/v1/orders/" + orderId,
            "{\"price\":\"91.00\",\"quantity\":\"0.5\"}"));
        assertTrue(reduced.get("priorityKept").asBoolean(), "a smaller quantity at the same price keeps it");
        assertFalse(expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + orderId, null)).json().has("priorityKept"),
            "only a replace's answer says it");

        expectProblem(400, "PRICE_OFF_TICK", "price",
            harness.call(ALICE, "PUT", "/api/v1/orders/" + orderId, "{\"price\":\"91.001\",\"quantity\":\"1\"}"));
        expectProblem(404, "UNKNOWN_ORDER", "orderId",
            harness.call(ALICE, "PUT", "/api/v1/orders/999999", "{\"price\":\"91.00\",\"quantity\":\"1\"}"));
    }

    @Test
    void aStopOrderWaitsOffTheBookUntilATradeReachesItsStopPrice()
    {
        expect(200, harness.placeLimit(ALICE, "SELL", "300.00", "1", null));
        expect(200, harness.placeLimit(BOB, "BUY", "300.00", "1", null));
        final String stop = "{\"symbol\":\"BTC-USD\",\"side\":\"SELL\",\"price\":\"289.00\",\"quantity\":\"1\"," +
            "\"clientOrderId\":\"stop-1\",\"stopPrice\":";

        expectProblem(422, "STOP_WOULD_TRIGGER", null, harness.call(ALICE, "POST", "/api/v1/orders", stop + "\"300.00\"}"));
        expectProblem(400, "INVALID_STOP_PRICE", "stopPrice", harness.call(ALICE, "POST", "/api/v1/orders", stop + "\"-1\"}"));
        expectProblem(400, "PRICE_OFF_TICK", "stopPrice",
            harness.call(ALICE, "POST", "/api/v1/orders", stop + "\"290.001\"}"));
        expectProblem(400, "INVALID_STOP_PRICE", null,
            harness.call(ALICE, "POST", "/api/v1/orders", stop + "\"290.00\",\"postOnly\":true}"));

        final GatewayHarness.Response placed = expect(200, harness.call(ALICE, "POST", "/api/v1/orders",
            stop + "\"290.00\"}"));
        assertEquals("NEW", placed.str("status"));
        assertEquals("290.00", placed.str("stopPrice"));
        assertFalse(placed.get("triggered").asBoolean());
        final String orderId = placed.str("orderId");
        assertEquals(0, expect(200, harness.get("/api/v1/book/BTC-USD")).get("asks").size(), "not in the book");
        assertEquals(1, expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json().size(), "but open");

        final GatewayHarness.Response replaced = expect(200, harness.call(ALICE, "PUT", "/api/v1/orders/" + orderId,
            "{\"price\":\"288.00\",\"quantity\":\"1\",\"stopPrice\":\"295.00\"}"));
        assertEquals("295.00", replaced.str("stopPrice"));
        assertFalse(replaced.get("priorityKept").asBoolean(), "a new stop price takes a new place among the stops");

        expect(200, harness.placeLimit(BOB, "BUY", "295.00", "1", null));
        expect(200, harness.placeLimit(CAROL, "SELL", "295.00", "1", null));
        final JsonNode triggered = expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + orderId, null)).json();
        assertTrue(triggered.get("triggered").asBoolean(), triggered.toString());
        assertTrue(triggered.get("triggeredTime").asLong() > 0, triggered.toString());
        assertEquals("NEW", triggered.get("status").asText());
        assertEquals("288.00", expect(200, harness.get("/api/v1/book/BTC-USD")).get("asks").get(0).get("price").asText(),
            "triggered, it rests at its limit");

        final String market = expect(200, harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"SELL\",\"type\":\"MARKET\",\"timeInForce\":\"GTC\"," +
                "\"quantity\":\"0.5\",\"stopPrice\":\"280.00\"}")).str("orderId");
        expectProblem(400, "INVALID_PRICE", "price", harness.call(ALICE, "PUT", "/api/v1/orders/" + market,
            "{\"price\":\"279.00\",\"quantity\":\"0.5\"}"));
        assertEquals("281.00", expect(200, harness.call(ALICE, "PUT", "/api/v1/orders/" + market,
            "{\"quantity\":\"0.4\",\"stopPrice\":\"281.00\"}")).str("stopPrice"));
        expectProblem(400, "MISSING_FIELD", "price", harness.call(ALICE, "PUT", "/api/v1/orders/" + orderId,
            "{\"quantity\":\"0.5\"}"));
        expectProblem(400, "INVALID_STOP_PRICE", "stopPrice", harness.call(ALICE, "PUT", "/api/v1/orders/" + orderId,
            "{\"price\":\"288.00\",\"quantity\":\"0.5\",\"stopPrice\":\"280.00\"}"));
    }

    @Test
    void massCancelCancelsOnlyTheChosenSide()
    {
        expect(200, harness.placeLimit(CAROL, "BUY", "80.00", "1", null));
        expect(200, harness.placeLimit(CAROL, "BUY", "81.00", "1", null));
        expect(200, harness.placeLimit(CAROL, "SELL", "300.00", "1", null));
        final GatewayHarness.Response canceled = expect(200,
            harness.call(CAROL, "DELETE", "/api/v1/orders?symbol=BTC-USD&side=BUY", null));
        assertEquals(2, canceled.get("canceledCount").asInt());
        final JsonNode open = expect(200, harness.call(CAROL, "GET", "/api/v1/orders?symbol=BTC-USD", null)).json();
        assertEquals(1, open.size());
        assertEquals("SELL", open.get(0).get("side").asText());
        expectProblem(400, "INVALID_ENUM", "side", harness.call(CAROL, "DELETE", "/api/v1/orders?side=UP", null));

        // A misspelt filter is refused, not ignored: ignored, it would cancel every order of the account.
        expectProblem(400, "UNKNOWN_PARAMETER", "Symbol",
            harness.call(CAROL, "DELETE", "/api/v1/orders?Symbol=BTC-USD", null));
        expectProblem(400, "UNKNOWN_PARAMETER", "sym",
            harness.call(CAROL, "GET", "/api/v1/orders?sym=BTC-USD", null));
        expectProblem(400, "UNKNOWN_PARAMETER", "all",
            harness.call(CAROL, "DELETE", "/api/v1/orders/" + open.get(0).get("orderId").asText() + "?all=1", null));
        assertEquals(1, expect(200, harness.call(CAROL, "GET", "/api/v1/orders", null)).json().size());
    }

    @Test
    void anOrderIsFoundAndCanceledByItsClientOrderId()
    {
        final String orderId = expect(200, harness.placeLimit(ALICE, "BUY", "90.00", "1", "by-cid-1")).str("orderId");
        final GatewayHarness.Response open =
            expect(200, harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/by-cid-1", null));
        assertEquals(orderId, open.str("orderId"));
        assertEquals("NEW", open.str("status"));
        expectProblem(404, "UNKNOWN_ORDER", "clientOrderId",
            harness.call(BOB, "GET", "/api/v1/orders/by-client-id/by-cid-1", null));

        final GatewayHarness.Response canceled =
            expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders/by-client-id/by-cid-1", null));
        assertEquals(orderId, canceled.str("orderId"));
        assertEquals("CANCELED", canceled.str("status"));
        final GatewayHarness.Response closed =
            expect(200, harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/by-cid-1", null));
        assertEquals(orderId, closed.str("orderId"));
        assertEquals("CANCELED", closed.str("status"));

        expectProblem(404, "UNKNOWN_ORDER", null,
            harness.call(ALICE, "DELETE", "/api/v1/orders/by-client-id/by-cid-1", null));
        expectProblem(404, "UNKNOWN_ORDER", "clientOrderId",
            harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/never-used", null));
        expectProblem(400, "INVALID_CLIENT_ORDER_ID", "clientOrderId",
            harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/too_long_and_bad", null));
    }

    @Test
    void everyOrderTypeAndTimeInForce()
    {
        expect(200, harness.placeLimit(ALICE, "SELL", "150.00", "1", "liq-1"));

        final GatewayHarness.Response market = expect(200, harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"type\":\"MARKET\",\"quantity\":\"0.1\"}"));
        assertEquals("FILLED", market.str("status"));
        assertEquals("MARKET", market.str("type"));
        assertEquals("IOC", market.str("timeInForce"));

        final GatewayHarness.Response byQuote = expect(200, harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"type\":\"MARKET\",\"quoteAmount\":\"30.06\"}"));
        assertEquals("FILLED", byQuote.str("status"));
        assertEquals("0.2000", byQuote.str("filledQuantity"));

        final GatewayHarness.Response ioc = expect(200, harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"150.00\",\"quantity\":\"5\",\"timeInForce\":\"IOC\"}"));
        assertEquals("CANCELED", ioc.str("status"));
        assertEquals("IMMEDIATE_OR_CANCEL", ioc.str("cancelReason"));
        assertEquals("0.7000", ioc.str("filledQuantity"));

        expect(200, harness.placeLimit(ALICE, "SELL", "150.00", "1", "liq-2"));
        final GatewayHarness.Response fok = expect(200, harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"150.00\",\"quantity\":\"2\",\"timeInForce\":\"FOK\"}"));
        assertEquals("CANCELED", fok.str("status"));
        assertEquals("FILL_OR_KILL", fok.str("cancelReason"));

        expectProblem(422, "POST_ONLY_WOULD_TAKE", null, harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"150.00\",\"quantity\":\"1\",\"postOnly\":true}"));

        final GatewayHarness.Response stp = expect(200, harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"150.00\",\"quantity\":\"1\"," +
                "\"selfTradePrevention\":\"CANCEL_AGGRESSOR\"}"));
        assertEquals("CANCELED", stp.str("status"));
        assertEquals("SELF_TRADE_PREVENTION", stp.str("cancelReason"));

        final long expire = System.currentTimeMillis() + 3_600_000;
        final GatewayHarness.Response gtd = expect(200, harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"10.00\",\"quantity\":\"1\",\"timeInForce\":\"GTD\"," +
                "\"expireTime\":" + expire + "}"));
        assertEquals("GTD", gtd.str("timeInForce"));
        assertEquals(expire, gtd.get("expireTime").asLong());
        assertEquals("NEW", gtd.str("status"));
        assertFalse(gtd.get("postOnly").asBoolean());
        final GatewayHarness.Response maker = expect(200, harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"11.00\",\"quantity\":\"1\",\"postOnly\":true," +
                "\"selfTradePrevention\":\"DECREMENT\"}"));
        assertTrue(maker.get("postOnly").asBoolean());
        assertEquals("DECREMENT", maker.str("selfTradePrevention"));
        assertFalse(maker.json().has("expireTime"), "a GTC order has no expiry");
        expectProblem(400, "MISSING_FIELD", "expireTime", harness.call(BOB, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"10.00\",\"quantity\":\"1\",\"timeInForce\":\"GTD\"}"));
    }

    @Test
    void badInputIsA400ProblemNamingTheField()
    {
        expectProblem(400, "MALFORMED_JSON", null, harness.call(ALICE, "POST", "/api/v1/orders", "{\"symbol\":"));
        expectProblem(400, "MALFORMED_JSON", null, harness.call(ALICE, "POST", "/api/v1/orders", "[1,2]"));
        expectProblem(400, "MALFORMED_JSON", null, harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"1\",\"quantity\":\"1\"} trailing"));
        expectProblem(400, "MALFORMED_JSON", null, harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"side\":\"SELL\",\"price\":\"1\",\"quantity\":\"1\"}"));
        expectProblem(400, "UNKNOWN_FIELD", "colour", harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"1\",\"quantity\":\"1\",\"colour\":\"red\"}"));
        expectProblem(400, "INVALID_TYPE", "price", harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":100.5,\"quantity\":\"1\"}"));
        expectProblem(400, "INVALID_ENUM", "side", harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"buy\",\"price\":\"1\",\"quantity\":\"1\"}"));
        expectProblem(400, "PRICE_OFF_TICK", "price", harness.placeLimit(ALICE, "BUY", "100.005", "1", null));
        expectProblem(400, "PRICE_OFF_TICK", "price", harness.placeLimit(ALICE, "BUY", "100.001", "1", null));
        expectProblem(400, "QUANTITY_OFF_LOT", "quantity", harness.placeLimit(ALICE, "BUY", "100", "0.00001", null));
        expectProblem(400, "INVALID_DECIMAL", "price", harness.placeLimit(ALICE, "BUY", "1e5", "1", null));
        expectProblem(400, "INVALID_QUANTITY", "quantity", harness.placeLimit(ALICE, "BUY", "100", "0", null));
        expectProblem(400, "INVALID_CLIENT_ORDER_ID", "clientOrderId", harness.placeLimit(ALICE, "BUY", "100", "1", "no spaces"));
        expectProblem(400, "QUANTITY_ABOVE_MAXIMUM", null, harness.placeLimit(ALICE, "BUY", "1", "101", null));
        expectProblem(413, "BODY_TOO_LARGE", null, harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"" + "X".repeat(20_000) + "\"}"));
        expectProblem(404, "UNKNOWN_INSTRUMENT", "symbol", harness.call(ALICE, "POST", "/api/v1/orders",
            "{\"symbol\":\"DOGE-USD\",\"side\":\"BUY\",\"price\":\"1\",\"quantity\":\"1\"}"));
        expectProblem(404, "UNKNOWN_INSTRUMENT", null, harness.get("/api/v1/book/NOPE"));
        expectProblem(400, "INVALID_PARAMETER", "depth", harness.get("/api/v1/book/BTC-USD?depth=abc"));
        expectProblem(404, "NOT_FOUND", null, harness.get("/api/v2/time"));
        expectProblem(405, "METHOD_NOT_ALLOWED", null, harness.call(ALICE, "PATCH", "/api/v1/balances", null));
        expectProblem(400, "INVALID_ID", "orderId", harness.call(ALICE, "GET", "/api/v1/orders/abc", null));
        // Requests the HTTP/1.1 decoder refuses before any handler runs still get a problem body, not a bare status.
        expectProblem(414, "URI_TOO_LONG", null, harness.send(HttpRequest.newBuilder(
            URI.create(harness.baseUrl() + "/api/v1/book/BTC-USD?depth=" + "9".repeat(5_000)))
            .version(HttpClient.Version.HTTP_1_1).GET()));
        expectProblem(431, "HEADERS_TOO_LARGE", null, harness.send(HttpRequest.newBuilder(
            URI.create(harness.baseUrl() + "/api/v1/time")).version(HttpClient.Version.HTTP_1_1)
            .header("X-Padding", "p".repeat(10_000)).GET()));
        assertEquals(200, harness.get("/api/v1/time").status(), "the gateway still answers after refusing them");
    }

    @Test
    void engineRejectsMapToTheirOwnCodes()
    {
        expectProblem(422, "INSUFFICIENT_BALANCE", null, harness.placeLimit(CAROL, "BUY", "99999.00", "50", null));
        expect(200, harness.placeLimit(CAROL, "BUY", "10.00", "1", "dup-1"));
        expectProblem(409, "DUPLICATE_CLIENT_ORDER_ID", null, harness.placeLimit(CAROL, "BUY", "11.00", "1", "dup-1"));
        expectProblem(404, "UNKNOWN_ORDER", null, harness.call(CAROL, "DELETE", "/api/v1/orders/987654321", null));
        final JsonNode metrics = expect(200, harness.get("/api/v1/monitor")).json();
        assertTrue(metrics.get("rejects").get("INSUFFICIENT_BALANCE").asLong() >= 1);
    }

    @Test
    void authenticationFailures()
    {
        final String path = "/api/v1/balances";
        expectProblem(401, "MISSING_CREDENTIALS", null, harness.get(path));
        expectProblem(401, "UNKNOWN_API_KEY", null,
            harness.call("nobody", "secret", System.currentTimeMillis(), "GET", path, null));
        expectProblem(401, "INVALID_SIGNATURE", null,
            harness.call(ALICE.key(), "wrong-secret", System.currentTimeMillis(), "GET", path, null));
        expectProblem(401, "STALE_TIMESTAMP", null,
            harness.call(ALICE.key(), ALICE.secret(), System.currentTimeMillis() - 60_000, "GET", path, null));
        expectProblem(401, "STALE_TIMESTAMP", null,
            harness.call(ALICE.key(), ALICE.secret(), System.currentTimeMillis() + 60_000, "GET", path, null));
        // Signed for another body than the one sent: the signature covers the body.
        final String timestamp = Long.toString(System.currentTimeMillis());
        expectProblem(401, "INVALID_SIGNATURE", null, harness.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(harness.baseUrl() + "/api/v1/orders"))
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"symbol\":\"BTC-USD\",\"side\":\"SELL\",\"price\":\"1\",\"quantity\":\"1\"}"))
            .header("X-Bourse-Key", ALICE.key()).header("X-Bourse-Timestamp", timestamp)
            .header("X-Bourse-Signature", Authenticator.signature(ALICE.secret(), timestamp, "POST", "/api/v1/orders",
                "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"price\":\"1\",\"quantity\":\"1\"}".getBytes()))));

        expectProblem(403, "FORBIDDEN", null, harness.call(ALICE, "POST", "/api/v1/admin/snapshot", null));
        expectProblem(403, "FORBIDDEN", null, harness.call(ADMIN, "GET", "/api/v1/orders", null));
    }

    @Test
    void aSignedRequestThatActsIsAcceptedOnceWhileReadsMayRepeat()
    {
        final long timestamp = System.currentTimeMillis();
        final String body = "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"type\":\"LIMIT\",\"price\":\"70.00\"," +
            "\"quantity\":\"1\"}";
        expect(200, harness.call(CAROL.key(), CAROL.secret(), timestamp, "POST", "/api/v1/orders", body));
        expectProblem(401, "REPLAYED_REQUEST", null,
            harness.call(CAROL.key(), CAROL.secret(), timestamp, "POST", "/api/v1/orders", body));

        final String path = "/api/v1/orders?symbol=BTC-USD";
        expect(200, harness.call(CAROL.key(), CAROL.secret(), timestamp, "GET", path, null));
        final JsonNode open = expect(200, harness.call(CAROL.key(), CAROL.secret(), timestamp, "GET", path, null)).json();
        assertEquals(1, open.size(), "the replayed placement placed nothing: " + open);
        assertEquals("70.00", open.get(0).get("price").asText());
    }

    @Test
    void anAccountCannotSeeOrCancelAnotherAccountsOrder()
    {
        final String orderId = expect(200, harness.placeLimit(ALICE, "BUY", "50.00", "1", "mine")).str("orderId");
        expectProblem(404, "UNKNOWN_ORDER", "orderId", harness.call(BOB, "GET", "/api/v1/orders/" + orderId, null));
        expectProblem(404, "UNKNOWN_ORDER", null, harness.call(BOB, "DELETE", "/api/v1/orders/" + orderId, null));
        expectProblem(404, "UNKNOWN_ORDER", "orderId", harness.call(BOB, "PUT", "/api/v1/orders/" + orderId,
            "{\"price\":\"51.00\",\"quantity\":\"1\"}"));
        assertEquals(0, expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().size());
        assertEquals("NEW", expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + orderId, null)).str("status"));
    }

    @Test
    void aDeadMansSwitchCancelsTheAccountsOrdersOnceItsTimeoutPassesUnlessDisarmed()
    {
        final String path = "/api/v1/orders/cancel-all-after";
        final JsonNode idle = expect(200, harness.call(CAROL, "GET", path, null)).json();
        assertFalse(idle.get("armed").asBoolean(), idle.toString());
        assertTrue(!idle.has("triggerTime"), idle.toString());

        expectProblem(400, "MISSING_FIELD", "timeoutMs", harness.call(CAROL, "POST", path, "{}"));
        expectProblem(400, "OUT_OF_RANGE", "timeoutMs", harness.call(CAROL, "POST", path, "{\"timeoutMs\":999}"));
        expectProblem(400, "OUT_OF_RANGE", "timeoutMs", harness.call(CAROL, "POST", path, "{\"timeoutMs\":-1}"));
        expectProblem(400, "OUT_OF_RANGE", "timeoutMs",
            harness.call(CAROL, "POST", path, "{\"timeoutMs\":86400001}"));
        expectProblem(400, "INVALID_TYPE", "timeoutMs", harness.call(CAROL, "POST", path, "{\"timeoutMs\":\"60\"}"));
        expectProblem(400, "UNKNOWN_FIELD", "timeout", harness.call(CAROL, "POST", path, "{\"timeout\":60}"));
        expectProblem(405, "METHOD_NOT_ALLOWED", null, harness.call(CAROL, "DELETE", path, null));
        expectProblem(403, "READ_ONLY_KEY", null, harness.call(ALICE_READER, "POST", path, "{\"timeoutMs\":60000}"));
        expectProblem(403, "FORBIDDEN", null, harness.call(ADMIN, "POST", path, "{\"timeoutMs\":60000}"));
        assertFalse(expect(200, harness.call(ALICE_READER, "GET", path, null)).json().get("armed").asBoolean());

        // Armed, then disarmed: nothing is canceled.
        final JsonNode armed = expect(200, harness.call(CAROL, "POST", path, "{\"timeoutMs\":60000}")).json();
        assertTrue(armed.get("armed").asBoolean(), armed.toString());
        assertEquals(60000, armed.get("timeoutMs").asLong(), armed.toString());
        assertEquals(60_000, armed.get("triggerTime").asLong() - armed.get("currentTime").asLong(), armed.toString());
        final long clockMs = System.currentTimeMillis();
        assertTrue(Math.abs(armed.get("currentTime").asLong() - clockMs) < 10_000, "the exchange's clock: " + armed);
        assertTrue(expect(200, harness.call(CAROL, "GET", path, null)).json().get("armed").asBoolean());
        assertEquals(1, harness.get("/api/v1/monitor").json().get("http").get("cancelAllAfterArmed").asInt());
        final JsonNode disarmed = expect(200, harness.call(CAROL, "POST", path, "{\"timeoutMs\":0}")).json();
        assertFalse(disarmed.get("armed").asBoolean(), disarmed.toString());
        assertFalse(expect(200, harness.call(CAROL, "GET", path, null)).json().get("armed").asBoolean());

        // Armed and let go: the account's orders are canceled, and only its own.
        final long triggeredBefore = harness.get("/api/v1/monitor").json().get("http").get("cancelAllAfterTriggered")
            .asLong();
        final String carols = expect(200, harness.placeLimit(CAROL, "BUY", "44.00", "1", "dms-1")).str("orderId");
        final String alices = expect(200, harness.placeLimit(ALICE, "BUY", "44.00", "1", "dms-2")).str("orderId");
        expect(200, harness.call(CAROL, "POST", path, "{\"timeoutMs\":60000}"));
        // Armed again with a shorter timeout: the new deadline replaces the old.
        expect(200, harness.call(CAROL, "POST", path, "{\"timeoutMs\":1000}"));
        GatewayHarness.await("the switch to cancel the account's order", () -> "CANCELED".equals(
            expect(200, harness.call(CAROL, "GET", "/api/v1/orders/" + carols, null)).str("status")));
        assertFalse(expect(200, harness.call(CAROL, "GET", path, null)).json().get("armed").asBoolean());
        final JsonNode gateway = harness.get("/api/v1/monitor").json().get("http");
        assertEquals(triggeredBefore + 1, gateway.get("cancelAllAfterTriggered").asLong(), gateway.toString());
        assertEquals(0, gateway.get("cancelAllAfterArmed").asInt(), gateway.toString());
        assertEquals("CANCEL_ALL_AFTER", expect(200, harness.call(CAROL, "GET", "/api/v1/orders/" + carols, null))
            .str("cancelReason"));
        assertEquals("NEW", expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + alices, null)).str("status"));
        final String metrics = harness.get("/metrics").text();
        assertTrue(metrics.contains("bourse_http_cancel_all_after_triggered_total " + (triggeredBefore + 1)), metrics);
    }

    @Test
    void anAccountReadsItselfAsTheOperatorSeesIt()
    {
        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/1/limits",
            "{\"maxOrderQuantity\":70000,\"maxOpenOrders\":40}"));
        try
        {
            expect(200, harness.placeLimit(ALICE, "BUY", "47.00", "1", "self-1"));
            final JsonNode own = expect(200, harness.call(ALICE, "GET", "/api/v1/account", null)).json();
            assertEquals(expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/1", null)).json(), own);
            assertEquals(70_000, own.get("maxOrderQuantity").asLong(), own.toString());
            assertEquals(40, own.get("maxOpenOrders").asInt(), own.toString());
            assertEquals(1, own.get("openOrders").asInt(), own.toString());
            assertTrue(own.get("makerFeePpm").isNull(), "the instruments' rates");
            assertEquals(own, expect(200, harness.call(ALICE_READER, "GET", "/api/v1/account", null)).json(),
                "a read-only key reads it too");
            expectProblem(403, "FORBIDDEN", null, harness.call(ADMIN, "GET", "/api/v1/account", null));
            expectProblem(405, "METHOD_NOT_ALLOWED", null, harness.call(ALICE, "DELETE", "/api/v1/account", null));
            expectProblem(400, "UNKNOWN_PARAMETER", "symbol",
                harness.call(ALICE, "GET", "/api/v1/account?symbol=BTC-USD", null));
        }
        finally
        {
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/1/limits", "{}"));
        }
    }

    @Test
    void aReadOnlyKeyReadsItsAccountButCannotActOnIt()
    {
        final String orderId = expect(200, harness.placeLimit(ALICE, "BUY", "49.00", "1", "ro-1")).str("orderId");
        assertEquals("NEW",
            expect(200, harness.call(ALICE_READER, "GET", "/api/v1/orders/" + orderId, null)).str("status"));
        expect(200, harness.call(ALICE_READER, "GET", "/api/v1/balances", null));
        expect(200, harness.call(ALICE_READER, "GET", "/api/v1/fills", null));

        expectProblem(403, "READ_ONLY_KEY", null, harness.placeLimit(ALICE_READER, "BUY", "49.00", "1", "ro-2"));
        expectProblem(403, "READ_ONLY_KEY", null, harness.call(ALICE_READER, "PUT", "/api/v1/orders/" + orderId,
            "{\"price\":\"48.00\",\"quantity\":\"1\"}"));
        expectProblem(403, "READ_ONLY_KEY", null,
            harness.call(ALICE_READER, "DELETE", "/api/v1/orders/" + orderId, null));
        expectProblem(403, "READ_ONLY_KEY", null,
            harness.call(ALICE_READER, "DELETE", "/api/v1/orders?symbol=BTC-USD", null));
        final GatewayHarness.Response order = expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + orderId, null));
        assertEquals("NEW", order.str("status"));
        assertEquals("49.00", order.str("price"));
        expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders/" + orderId, null));
    }

    @Test
    void adminEndpoints()
    {
        final GatewayHarness.Response deposit = expect(200, harness.call(ADMIN, "POST", "/api/v1/admin/accounts/3/deposits",
            "{\"asset\":\"USD\",\"amount\":\"5.5\",\"transactionId\":9001}"));
        assertTrue(deposit.get("applied").asBoolean());
        final BigDecimal afterDeposit = available(CAROL, "USD");
        assertFalse(expect(200, harness.call(ADMIN, "POST", "/api/v1/admin/accounts/3/deposits",
            "{\"asset\":\"USD\",\"amount\":\"5.5\",\"transactionId\":9001}")).get("applied").asBoolean(),
            "a repeated transaction id is not applied twice");
        assertEquals(afterDeposit, available(CAROL, "USD"));
        expect(200, harness.call(ADMIN, "POST", "/api/v1/admin/accounts/3/withdrawals",
            "{\"asset\":\"USD\",\"amount\":\"0.5\",\"transactionId\":9002}"));
        assertEquals(0, afterDeposit.subtract(new BigDecimal("0.5")).compareTo(available(CAROL, "USD")));
        expectProblem(422, "INSUFFICIENT_BALANCE", null, harness.call(ADMIN, "POST", "/api/v1/admin/accounts/3/withdrawals",
            "{\"asset\":\"USD\",\"amount\":\"99999999\",\"transactionId\":9003}"));
        expectProblem(404, "UNKNOWN_ASSET", "asset", harness.call(ADMIN, "POST", "/api/v1/admin/accounts/3/deposits",
            "{\"asset\":\"DOGE\",\"amount\":\"1\",\"transactionId\":9004}"));

        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/instruments/BTC-USD/trading-state", "{\"tradingState\":\"HALTED\"}"));
        assertEquals("HALTED", expect(200, harness.get("/api/v1/instruments")).json().get(0).get("tradingState").asText());
        expectProblem(422, "INSTRUMENT_HALTED", null, harness.placeLimit(CAROL, "BUY", "10.00", "1", null));
        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/instruments/BTC-USD/trading-state", "{\"tradingState\":\"OPEN\"}"));

        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/3/kill-switch", "{\"active\":true}"));
        expectProblem(422, "ACCOUNT_KILL_SWITCH", null, harness.placeLimit(CAROL, "BUY", "10.00", "1", null));
        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/3/kill-switch", "{\"active\":false}"));
        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/kill-switch", "{\"active\":true}"));
        expectProblem(422, "GLOBAL_KILL_SWITCH", null, harness.placeLimit(CAROL, "BUY", "10.00", "1", null));
        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/kill-switch", "{\"active\":false}"));

        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/3/limits", "{\"maxOrderQuantity\":20000}"));
        expectProblem(422, "ACCOUNT_MAX_ORDER_QUANTITY", null, harness.placeLimit(CAROL, "BUY", "10.00", "3", null));
        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/3/limits", "{\"maxOpenOrders\":1000}"));

        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/instruments/ETH-USD", """
            {"id":2,"baseAsset":"USD","quoteAsset":"BTC","priceScale":4,"tickSize":"0.0001","quantityScale":2,
             "lotSize":"0.01","tradingState":"POST_ONLY"}"""));
        GatewayHarness.await("ETH-USD listed", () -> harness.get("/api/v1/instruments").json().size() == 2);
        expectProblem(400, "INVALID_INSTRUMENT_DEFINITION", null, harness.call(ADMIN, "PUT", "/api/v1/admin/instruments/BAD",
            "{\"id\":3,\"baseAsset\":\"BTC\",\"quoteAsset\":\"USD\",\"priceScale\":2,\"tickSize\":\"0\",\"quantityScale\":2,\"lotSize\":\"1\"}"));

        final long snapshots = harness.node().snapshotCount();
        assertEquals("REQUESTED", expect(200, harness.call(ADMIN, "POST", "/api/v1/admin/snapshot", null)).str("status"));
        GatewayHarness.await("a snapshot", () -> harness.node().snapshotCount() > snapshots);
    }

    @Test
    void aBatchPlacesItsOrdersInTurnAndAnswersEachOnItsOwn()
    {
        final GatewayHarness.Response batch = expect(200, harness.call(CAROL, "POST", "/api/v1/orders/batch",
            "{\"orders\":[" +
                GatewayHarness.limitOrder("BUY", "10.00", "1", "7001") + "," +
                GatewayHarness.limitOrder("BUY", "10.005", "1", null) + "," +
                "{\"symbol\":\"NOPE-USD\",\"side\":\"BUY\",\"price\":\"10.00\",\"quantity\":\"1\"}," +
                "\"not an order\"," +
                "{\"symbol\":\"BTC-USD\",\"side\":\"SELL\",\"price\":\"10.00\",\"quantity\":\"1\",\"postOnly\":true}," +
                GatewayHarness.limitOrder("BUY", "99999.00", "50", null) + "," +
                GatewayHarness.limitOrder("BUY", "9.00", "1", "7002") + "]}"));
        final JsonNode results = batch.get("results");
        assertEquals(7, results.size(), batch.text());
        final JsonNode first = results.get(0);
        assertEquals(200, first.get("status").asInt(), first.toString());
        assertEquals("NEW", first.get("order").get("status").asText());
        assertEquals("7001", first.get("order").get("clientOrderId").asText());
        expectItemError(results.get(1), 400, "PRICE_OFF_TICK", "price");
        expectItemError(results.get(2), 404, "UNKNOWN_INSTRUMENT", "symbol");
        expectItemError(results.get(3), 400, "INVALID_TYPE", null);
        expectItemError(results.get(4), 422, "POST_ONLY_WOULD_TAKE", null);
        expectItemError(results.get(5), 422, "INSUFFICIENT_BALANCE", null);
        final JsonNode last = results.get(6).get("order");
        assertEquals("NEW", last.get("status").asText(), results.get(6).toString());
        assertTrue(last.get("orderId").asLong() > first.get("order").get("orderId").asLong(), "sent in their order");

        final JsonNode open = expect(200, harness.call(CAROL, "GET", "/api/v1/orders", null)).json();
        assertEquals(2, open.size(), "only the two accepted rest: " + open);
        assertEquals(first.get("order").get("orderId"), open.get(0).get("orderId"));
        assertEquals(last.get("orderId"), open.get(1).get("orderId"));

        // A batch order that trades answers with its fills, as a single one does.
        final JsonNode taker = expect(200, harness.call(ALICE, "POST", "/api/v1/orders/batch",
            "{\"orders\":[" + GatewayHarness.limitOrder("SELL", "10.00", "1", null) + "]}")).get("results").get(0);
        assertEquals("FILLED", taker.get("order").get("status").asText(), taker.toString());
        assertEquals("10.00", taker.get("order").get("fills").get(0).get("price").asText());

        final String batchPath = "/api/v1/orders/batch";
        expectProblem(400, "OUT_OF_RANGE", "orders", harness.call(CAROL, "POST", batchPath, "{\"orders\":[]}"));
        expectProblem(400, "OUT_OF_RANGE", "orders", harness.call(CAROL, "POST", batchPath, "{\"orders\":[" +
            String.join(",", java.util.Collections.nCopies(HttpGateway.MAX_BATCH_ORDERS + 1,
                GatewayHarness.limitOrder("BUY", "1.00", "1", null))) + "]}"));
        expectProblem(400, "INVALID_TYPE", "orders", harness.call(CAROL, "POST", batchPath, "{\"orders\":{}}"));
        expectProblem(400, "MISSING_FIELD", "orders", harness.call(CAROL, "POST", batchPath, "{}"));
        expectProblem(400, "UNKNOWN_FIELD", "symbol", harness.call(CAROL, "POST", batchPath,
            GatewayHarness.limitOrder("BUY", "1.00", "1", null)));
        expectProblem(400, "MALFORMED_JSON", null, harness.call(CAROL, "POST", batchPath, "[1,"));
        expectProblem(405, "METHOD_NOT_ALLOWED", null, harness.call(CAROL, "GET", batchPath, null));
        expectProblem(403, "READ_ONLY_KEY", null, harness.call(ALICE_READER, "POST", batchPath,
            "{\"orders\":[" + GatewayHarness.limitOrder("BUY", "1.00", "1", null) + "]}"));
        expectProblem(403, "FORBIDDEN", null, harness.call(ADMIN, "POST", batchPath,
            "{\"orders\":[" + GatewayHarness.limitOrder("BUY", "1.00", "1", null) + "]}"));
        assertEquals(1, expect(200, harness.call(CAROL, "GET", "/api/v1/orders", null)).json().size(),
            "the refused batches placed nothing");
    }

    private static void expectItemError(final JsonNode result, final int status, final String code, final String field)
    {
        assertEquals(status, result.get("status").asInt(), result.toString());
        assertEquals(code, result.get("error").get("code").asText(), result.toString());
        assertFalse(result.get("error").get("detail").asText().isEmpty());
        assertEquals(field, result.get("error").has("field") ? result.get("error").get("field").asText() : null,
            result.toString());
        assertFalse(result.has("order"));
    }

    @Test
    void anAdminSeesAnAccountAsItsOwnKeyDoesAndPullsItsOrders()
    {
        expect(200, harness.placeLimit(CAROL, "BUY", "10.00", "1", null));
        expect(200, harness.placeLimit(CAROL, "BUY", "11.00", "1", null));
        assertEquals("FILLED", expect(200, harness.placeLimit(ALICE, "SELL", "11.00", "0.5", null)).str("status"));
        final JsonNode own = expect(200, harness.call(CAROL, "GET", "/api/v1/orders", null)).json();
        assertEquals(2, own.size(), own.toString());
        assertEquals(own, expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3/orders", null)).json());
        assertEquals(expect(200, harness.call(CAROL, "GET", "/api/v1/balances", null)).json(),
            expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3/balances", null)).json());
        final JsonNode fills = expect(200, harness.call(CAROL, "GET", "/api/v1/fills?limit=5", null)).json();
        assertEquals("11.00", fills.get(0).get("price").asText(), fills.toString());
        assertEquals(fills, expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3/fills?limit=5", null)).json());
        expectProblem(403, "FORBIDDEN", null, harness.call(ALICE, "GET", "/api/v1/admin/accounts/3/orders", null));
        expectProblem(400, "INVALID_ENUM", "side",
            harness.call(ADMIN, "DELETE", "/api/v1/admin/accounts/3/orders?side=BOTH", null));
        expectProblem(405, "METHOD_NOT_ALLOWED", null,
            harness.call(ADMIN, "POST", "/api/v1/admin/accounts/3/orders", "{}"));

        expectProblem(403, "FORBIDDEN", null, harness.call(CAROL, "DELETE", "/api/v1/admin/accounts/3/orders", null));
        expectProblem(404, "NOT_FOUND", null, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3/orders/x", null));
        expectProblem(404, "NOT_FOUND", null,
            harness.call(ADMIN, "POST", "/api/v1/admin/accounts/3/history/ledger", null));
        expectProblem(400, "UNKNOWN_PARAMETER", "x", harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3/balances?x=1",
            null));

        // A runaway account: its kill switch stops new orders, and its resting ones are pulled.
        expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/3/kill-switch", "{\"active\":true}"));
        try
        {
            assertEquals(2, expect(200, harness.call(ADMIN, "DELETE",
                "/api/v1/admin/accounts/3/orders?symbol=BTC-USD", null)).get("canceledCount").asInt());
            assertEquals(0, expect(200, harness.call(CAROL, "GET", "/api/v1/orders", null)).json().size());
        }
        finally
        {
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/3/kill-switch", "{\"active\":false}"));
        }
    }

    @Test
    void healthAndMetrics()
    {
        final GatewayHarness.Response health = expect(200, harness.get("/health"));
        assertEquals("UP", health.str("status"));
        assertTrue(health.get("acceptingOrders").asBoolean());
        expect(200, harness.placeLimit(ALICE, "BUY", "1.00", "1", null));
        final GatewayHarness.Response metrics = expect(200, harness.get("/metrics"));
        assertTrue(metrics.contentType().startsWith("text/plain"));
        assertTrue(metrics.text().contains("bourse_commands_total "), metrics.text());
        assertTrue(metrics.text().contains("bourse_rejects_total{reason=\"INSUFFICIENT_BALANCE\"}"));
        assertTrue(metrics.text().contains("bourse_latency_seconds{stage=\"cluster_round_trip\",quantile=\"0.99\"}"));
        assertTrue(metrics.text().contains("bourse_websocket_sessions "));
        final GatewayHarness.Response ui = harness.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(harness.baseUrl() + "/")).GET());
        assertEquals(200, ui.status());
        assertTrue(ui.text().contains("<title>Bourse"), "the UI is served at /");
    }

    @Test
    void withoutAStoreHistoryIsNotServedAndMetricsAndMonitorSaySo()
    {
        // The harness runs the gateway alone, as 'bourse gateway-http' does: no post-trade store in the process.
        expectProblem(404, "NO_HISTORY", null, harness.call(ALICE, "GET", "/api/v1/history/trades", null));
        expectProblem(404, "NO_HISTORY", null, harness.call(ALICE, "GET", "/api/v1/history/orders?limit=10", null));
        expectProblem(404, "NO_HISTORY", null, harness.call(ALICE, "GET", "/api/v1/history/transfers", null));
        expectProblem(404, "NOT_FOUND", null, harness.call(ALICE, "GET", "/api/v1/history/ledger", null));
        expectProblem(404, "NO_HISTORY", null,
            harness.call(ADMIN, "GET", "/api/v1/admin/accounts/1/history/transfers", null));
        expectProblem(404, "NOT_FOUND", null, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/1/history/x", null));
        // Parameters are checked first: a bad request is a 400 whether or not a store answers.
        expectProblem(400, "INVALID_PARAMETER", "limit", harness.call(ALICE, "GET", "/api/v1/history/orders?limit=0", null));
        expectProblem(401, "MISSING_CREDENTIALS", null, harness.get("/api/v1/history/trades"));
        final GatewayHarness.Response metrics = expect(200, harness.get("/metrics"));
        assertTrue(metrics.text().contains("\nbourse_store_available 0.0\n"), metrics.text());
        assertFalse(metrics.text().contains("bourse_store_lag_bytes"), metrics.text());
        final JsonNode monitor = expect(200, harness.get("/api/v1/monitor")).json();
        assertFalse(monitor.get("store").get("available").asBoolean());
        assertTrue(monitor.get("store").get("note").asText().contains("no post-trade store"));
        assertTrue(monitor.get("sessions").get("webSocket").asInt() >= 0);
        assertNull(monitor.get("sessions").get("fix"), "no FIX gateway in this process");
    }

    static void expectProblem(final int status, final String code, final String field, final GatewayHarness.Response response)
    {
        assertNotNull(response);
        assertEquals(status, response.status(), () -> "status of " + response.text());
        assertEquals("application/problem+json", response.contentType());
        assertEquals(code, response.str("code"), response.text());
        assertEquals(status, response.get("status").asInt());
        assertNotNull(response.str("detail"));
        assertEquals(field, response.str("field"), response.text());
    }

    private static JsonNode balance(final JsonNode balances, final String asset)
    {
        for (final JsonNode balance : balances.get("balances"))
        {
            if (balance.get("asset").asText().equals(asset))
            {
                return balance;
            }
        }
        throw new AssertionError("no balance of " + asset + " in " + balances);
    }

    private static BigDecimal available(final ApiKey key, final String asset)
    {
        return new BigDecimal(balance(expect(200, harness.call(key, "GET", "/api/v1/balances", null)).json(), asset)
            .get("available").asText());
    }
}
