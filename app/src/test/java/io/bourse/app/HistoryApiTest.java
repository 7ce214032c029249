package io.bourse.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aeron.cluster.service.Cluster;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.LoopbackPorts;
import io.bourse.gateway.fix.FixGateway;
import io.bourse.gateway.http.HttpGateway;
import io.bourse.store.Store;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The embedded HTTP gateway wired to the post-trade store (SQLite) as {@code run} wires it
 * ({@link Bourse#embeddedHttpContext}), with the FIX gateway beside it: history endpoints over real trades placed
 * through the API, paging, time filters, accounts kept apart, bad parameters; the store's lag and the FIX gateway's
 * session figures on {@code /metrics} and the monitor. (Logging a FIX session on and off is counted in gateway-fix's
 * FixGatewayTest, which has a FIX client.)
 * <p>
 * The fuzzing runs last: its admin requests (kill switch, mass cancel, trading state) change what the others read.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HistoryApiTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    // Demo keys and funded accounts of the packaged configuration (config/bourse.properties).
    private static final String[] SELLER = { "demo-1", "demo-1-secret" };
    private static final String[] BUYER = { "demo-2", "demo-2-secret" };
    private static final String[] BYSTANDER = { "demo-trader-11", "demo-trader-11-secret" };
    private static final String[] CANCELER = { "demo-trader-12", "demo-trader-12-secret" };
    private static final long CANCELER_ACCOUNT = 12;
    private static final String[] ADMIN = { "demo-admin", "demo-admin-secret" };
    private static final int TRADES = 5;
    private static final long GTD_EXPIRY_MS = System.currentTimeMillis() + TimeUnit.DAYS.toMillis(1);

    private static File dataDir;
    private static BourseConfig config;
    private static ClusterNode node;
    private static Store store;
    private static StoreHistory history;
    private static HttpGateway gateway;
    private static FixGateway fixGateway;
    private static int fixSessionsConfigured;
    private static String baseUrl;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final List<String> SELLER_ORDER_IDS = new ArrayList<>();
    private static String restingOrderId;
    private static String canceledOrderId;
    private static String gtdOrderId;

    @BeforeAll
    static void startExchangeAndTrade() throws Exception
    {
        dataDir = Files.createTempDirectory("bourse-history-test").toFile();
        final int portBase = freePortBase();
        config = BourseConfig.load(null, Map.of(
            "data.dir", dataDir.getPath(),
            "port.base", Integer.toString(portBase),
            "aeron.dir", new File(System.getProperty("java.io.tmpdir"),
                "bourse-history-test-" + ProcessHandle.current().pid() + "-" + portBase).getPath(),
            "http.port", "0",
            // The fuzzer's unsigned requests, all from one address, are for the answers, not for the limit.
            "http.rate.limit.per.address.per.second", "100000",
            "fix.port", Integer.toString(freeTcpPort())));
        final PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        final ClusterNode.Context nodeContext = config.nodeContext().log(quiet);
        // As in run: the store's database opens before the node.
        store = Store.open(config.storeContext().log(quiet));
        node = ClusterNode.launch(nodeContext);
        store.start();
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (node.role() != Cluster.Role.LEADER)
        {
            assertTrue(System.nanoTime() < deadlineNs, "no leader within the timeout");
            Thread.sleep(10);
        }
        final Bootstrap.Result result = Bootstrap.apply(config, nodeContext.ingressEndpoints(),
            nodeContext.aeronDirectoryName(), TIMEOUT_NS);
        assertTrue(result.rejections().isEmpty(), result.rejections().toString());
        history = StoreHistory.open(config.storeContext(), store.metrics());
        // As in run: the FIX gateway starts after the HTTP gateway, which reads its sessions once it runs.
        final FixSessionCounts fixSessions = new FixSessionCounts();
        gateway = HttpGateway.launch(Bourse.embeddedHttpContext(new HttpConfig(config), node, history, fixSessions));
        gateway.awaitReady(TIMEOUT_NS);
        fixGateway = FixGateway.launch(config.fixContext().exchangeClient(node.clientContext()).log(quiet));
        fixSessions.gateway(fixGateway);
        fixSessionsConfigured = fixGateway.configuredSessions();
        baseUrl = "http://127.0.0.1:" + gateway.port();

        for (int i = 0; i < TRADES; i++)
        {
            final JsonNode sell = call(SELLER, "POST", "/api/v1/orders", order("SELL", "100.00", "0.1000"));
            assertEquals(200, sell.get("status").asInt(), sell.toString());
            SELLER_ORDER_IDS.add(sell.get("body").get("orderId").asText());
            final JsonNode buy = call(BUYER, "POST", "/api/v1/orders", order("BUY", "100.00", "0.1000"));
            assertEquals(200, buy.get("status").asInt(), buy.toString());
            assertEquals("FILLED", buy.get("body").get("status").asText());
            // Trades a few milliseconds apart, so that millisecond time filters can split them.
            Thread.sleep(3);
        }
        final JsonNode resting = call(SELLER, "POST", "/api/v1/orders", order("SELL", "105.00", "0.2000"));
        assertEquals(200, resting.get("status").asInt(), resting.toString());
        restingOrderId = resting.get("body").get("orderId").asText();
        SELLER_ORDER_IDS.add(restingOrderId);
        // Nothing sells at 99.00 (the one sell left asks 105.00): the exchange cancels the IOC's whole quantity.
        final JsonNode ioc = call(CANCELER, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"type\":\"LIMIT\",\"timeInForce\":\"IOC\"," +
            "\"price\":\"99.00\",\"quantity\":\"0.1000\",\"selfTradePrevention\":\"CANCEL_BOTH\"}");
        assertEquals("CANCELED", ioc.get("body").get("status").asText(), ioc.toString());
        canceledOrderId = ioc.get("body").get("orderId").asText();
        final JsonNode gtd = call(CANCELER, "POST", "/api/v1/orders",
            "{\"symbol\":\"BTC-USD\",\"side\":\"BUY\",\"type\":\"LIMIT\",\"timeInForce\":\"GTD\"," +
            "\"price\":\"98.00\",\"quantity\":\"0.1000\",\"postOnly\":true,\"expireTime\":" + GTD_EXPIRY_MS + "}");
        assertEquals("NEW", gtd.get("body").get("status").asText(), gtd.toString());
        gtdOrderId = gtd.get("body").get("orderId").asText();
        final String transfers = "/api/v1/admin/accounts/" + CANCELER_ACCOUNT;
        for (final String[] transfer : new String[][]{ { "deposits", "12.34", "true" },
            { "withdrawals", "2.00", "true" }, { "deposits", "12.34", "false" } })
        {
            final JsonNode answer = call(ADMIN, "POST", transfers + "/" + transfer[0],
                "{\"asset\":\"USD\",\"amount\":\"" + transfer[1] + "\",\"transactionId\":" +
                (transfer[0].equals("deposits") ? 900_001 : 900_002) + "}");
            assertEquals(Boolean.parseBoolean(transfer[2]), answer.get("body").get("applied").asBoolean(),
                answer.toString());
        }
        assertTrue(store.awaitCaughtUp(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS)), store.metrics().summary());
    }

    @AfterAll
    static void stop()
    {
        CloseHelper.quietCloseAll(fixGateway, gateway, history, store, node);
        if (dataDir != null)
        {
            IoUtil.delete(dataDir, true);
        }
    }

    @Test
    void tradesArePagedNewestFirstWithEachAccountsOwnSide() throws Exception
    {
        final List<JsonNode> sellerTrades = allPages(SELLER, "/api/v1/history/trades", "trades", 2);
        assertEquals(TRADES, sellerTrades.size());
        final Set<String> ids = new HashSet<>();
        long previous = Long.MAX_VALUE;
        for (final JsonNode trade : sellerTrades)
        {
            assertTrue(ids.add(trade.get("tradeId").asText()), "no trade twice across pages");
            final long id = Long.parseLong(trade.get("tradeId").asText());
            assertTrue(id < previous, "newest first");
            previous = id;
            assertEquals("SELL", trade.get("side").asText());
            assertEquals("MAKER", trade.get("liquidity").asText());
            assertEquals("BTC-USD", trade.get("symbol").asText());
            assertEquals("100.00", trade.get("price").asText());
            assertEquals("0.1000", trade.get("quantity").asText());
            assertEquals("USD", trade.get("feeAsset").asText());
            assertTrue(SELLER_ORDER_IDS.contains(trade.get("orderId").asText()));
        }
        final List<JsonNode> buyerTrades = allPages(BUYER, "/api/v1/history/trades", "trades", 3);
        assertEquals(ids, new HashSet<>(buyerTrades.stream().map(t -> t.get("tradeId").asText()).toList()));
        for (final JsonNode trade : buyerTrades)
        {
            assertEquals("BUY", trade.get("side").asText());
            assertEquals("TAKER", trade.get("liquidity").asText());
            assertFalse(SELLER_ORDER_IDS.contains(trade.get("orderId").asText()), "the buyer sees its own orders");
        }
        final JsonNode one = get(SELLER, "/api/v1/history/trades?limit=" + TRADES);
        assertTrue(one.get("nextCursor").isNull(), "a page holding every row is the last");
    }

    @Test
    void timeFiltersAreFromInclusiveToExclusive() throws Exception
    {
        final List<JsonNode> all = allPages(SELLER, "/api/v1/history/trades", "trades", 100);
        final long newest = all.getFirst().get("time").asLong();
        final long oldest = all.getLast().get("time").asLong();
        assertTrue(newest > oldest, "the trades span more than a millisecond");
        final long from = all.get(TRADES / 2).get("time").asLong();
        assertFiltered(all, "from=" + from, t -> t >= from);
        assertFiltered(all, "to=" + newest, t -> t < newest);
        assertFiltered(all, "from=" + from + "&to=" + newest, t -> t >= from && t < newest);
        assertFiltered(all, "from=" + (newest + 1), t -> false);
        assertFiltered(all, "to=" + oldest, t -> false);
        // Paging within a filter.
        final List<JsonNode> paged = allPages(SELLER, "/api/v1/history/trades?from=" + oldest + "&to=" + newest,
            "trades", 1);
        assertEquals(all.stream().filter(t -> t.get("time").asLong() < newest).map(t -> t.get("tradeId").asText()).toList(),
            paged.stream().map(t -> t.get("tradeId").asText()).toList());
    }

    @Test
    void ordersShowTheirFinalOrCurrentStateAndStayWithTheirAccount() throws Exception
    {
        final List<JsonNode> orders = allPages(SELLER, "/api/v1/history/orders", "orders", 4);
        assertEquals(SELLER_ORDER_IDS.reversed(), orders.stream().map(o -> o.get("orderId").asText()).toList());
        assertEquals("NEW", orders.getFirst().get("status").asText());
        assertEquals("105.00", orders.getFirst().get("price").asText());
        assertEquals("0.0000", orders.getFirst().get("filledQuantity").asText());
        assertEquals("0.2000", orders.getFirst().get("remainingQuantity").asText());
        for (final JsonNode filled : orders.subList(1, orders.size()))
        {
            assertEquals("FILLED", filled.get("status").asText());
            assertEquals("0.1000", filled.get("filledQuantity").asText());
            assertEquals("10.000000", filled.get("executedNotional").asText());
            assertEquals("SELL", filled.get("side").asText());
        }
        final List<JsonNode> buyerOrders = allPages(BUYER, "/api/v1/history/orders", "orders", 100);
        assertEquals(TRADES, buyerOrders.size());
        for (final JsonNode order : buyerOrders)
        {
            assertFalse(SELLER_ORDER_IDS.contains(order.get("orderId").asText()));
        }
        assertEquals(0, get(BYSTANDER, "/api/v1/history/orders").get("orders").size());
        assertEquals(0, get(BYSTANDER, "/api/v1/history/trades").get("trades").size());
    }

    @Test
    void anOrderTheGatewayNoLongerHoldsIsAnsweredFromTheStore() throws Exception
    {
        // A gateway started after the trades holds none of the closed orders: the store does.
        try (HttpGateway fresh = freshGateway())
        {
            final String freshUrl = "http://127.0.0.1:" + fresh.port();
            final String filledId = SELLER_ORDER_IDS.getFirst();
            final JsonNode filled = call(freshUrl, SELLER, "GET", "/api/v1/orders/" + filledId, null);
            assertEquals(200, filled.get("status").asInt(), filled.toString());
            assertEquals(filledId, filled.get("body").get("orderId").asText());
            assertEquals("FILLED", filled.get("body").get("status").asText());
            assertEquals("0.1000", filled.get("body").get("filledQuantity").asText());
            assertEquals("NEW", call(freshUrl, SELLER, "GET", "/api/v1/orders/" + restingOrderId, null)
                .get("body").get("status").asText(), "an open order");
            final JsonNode canceled = call(freshUrl, CANCELER, "GET", "/api/v1/orders/" + canceledOrderId, null);
            assertEquals("CANCELED", canceled.get("body").get("status").asText(), canceled.toString());
            assertEquals("IMMEDIATE_OR_CANCEL", canceled.get("body").get("cancelReason").asText(), "how it ended");
            assertEquals("CANCEL_BOTH", canceled.get("body").get("selfTradePrevention").asText(), canceled.toString());
            assertFalse(canceled.get("body").get("postOnly").asBoolean(), canceled.toString());
            assertFalse(canceled.get("body").has("expireTime"), canceled.toString());
            final JsonNode listed = get(CANCELER, "/api/v1/history/orders").get("orders");
            assertEquals(2, listed.size(), listed.toString());
            assertEquals(canceledOrderId, listed.get(1).get("orderId").asText());
            assertEquals("IMMEDIATE_OR_CANCEL", listed.get(1).get("cancelReason").asText());
            // The store's row of an open order reads as the live API shows it.
            final JsonNode stored = listed.get(0);
            assertEquals(gtdOrderId, stored.get("orderId").asText(), listed.toString());
            assertTrue(stored.get("postOnly").asBoolean(), stored.toString());
            assertEquals(GTD_EXPIRY_MS, stored.get("expireTime").asLong(), stored.toString());
            final JsonNode live = call(freshUrl, CANCELER, "GET", "/api/v1/orders/" + gtdOrderId, null).get("body");
            for (final String field : List.of("timeInForce", "expireTime", "postOnly", "selfTradePrevention", "price",
                "quantity", "remainingQuantity", "status", "createdTime"))
            {
                assertEquals(live.get(field), stored.get(field), field + ": live " + live + ", stored " + stored);
            }
            assertProblem(404, "UNKNOWN_ORDER", "orderId",
                call(freshUrl, BUYER, "GET", "/api/v1/orders/" + filledId, null));
            assertProblem(404, "UNKNOWN_ORDER", "orderId",
                call(freshUrl, SELLER, "GET", "/api/v1/orders/999999999", null));

            // By the id its client gave it, as a client that had no answer to its order asks after a restart.
            final String filledClientId = filled.get("body").get("clientOrderId").asText();
            final JsonNode byClientId =
                call(freshUrl, SELLER, "GET", "/api/v1/orders/by-client-id/" + filledClientId, null);
            assertEquals(filled.get("body"), byClientId.get("body"), byClientId.toString());
            assertEquals(canceled.get("body"), call(freshUrl, CANCELER, "GET", "/api/v1/orders/by-client-id/" +
                canceled.get("body").get("clientOrderId").asText(), null).get("body"));
            assertProblem(404, "UNKNOWN_ORDER", "clientOrderId",
                call(freshUrl, BUYER, "GET", "/api/v1/orders/by-client-id/" + filledClientId, null));
            assertProblem(404, "UNKNOWN_ORDER", "clientOrderId",
                call(freshUrl, SELLER, "GET", "/api/v1/orders/by-client-id/never-used", null));
        }
    }

    @Test
    void aGatewayStartedAfterTheTradesCountsThemInItsTickerAndCandles() throws Exception
    {
        try (HttpGateway fresh = freshGateway())
        {
            final String freshUrl = "http://127.0.0.1:" + fresh.port();
            // It reads the day's earlier trades from the store once it holds the exchange's state, on a thread of
            // its own: until then it has counted none.
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
            JsonNode expected;
            JsonNode counted;
            do
            {
                Thread.sleep(20);
                expected = withoutSince(get(SELLER, "/api/v1/ticker/BTC-USD"));
                counted = withoutSince(call(freshUrl, SELLER, "GET", "/api/v1/ticker/BTC-USD", null).get("body"));
            }
            while (!expected.equals(counted) && System.nanoTime() < deadlineNs);
            assertEquals(expected, counted, "the restarted gateway's day is the running one's");
            assertTrue(counted.get("tradeCount").asLong() >= TRADES, counted.toString());
            final JsonNode freshTicker = call(freshUrl, SELLER, "GET", "/api/v1/ticker/BTC-USD", null).get("body");
            assertTrue(freshTicker.get("since").asLong() <= System.currentTimeMillis() - 23 * 3_600_000L,
                "a whole day, not since its start: " + freshTicker);
            // 1h and 1d read the store's hours too (none closed yet here, so the same).
            for (final String interval : List.of("1m", "1h", "1d"))
            {
                final String path = "/api/v1/candles/BTC-USD?interval=" + interval;
                assertEquals(get(SELLER, path), call(freshUrl, SELLER, "GET", path, null).get("body"), interval);
            }
        }
    }

    /**
     * A gateway started after the trades, beside the running one, holding the exchange's state.
     */
    private static HttpGateway freshGateway()
    {
        final HttpGateway fresh = HttpGateway.launch(
            Bourse.embeddedHttpContext(new HttpConfig(config), node, history, new FixSessionCounts()));
        try
        {
            fresh.awaitReady(TIMEOUT_NS);
            return fresh;
        }
        catch (final RuntimeException ex)
        {
            fresh.close();
            throw ex;
        }
    }

    private static JsonNode withoutSince(final JsonNode ticker)
    {
        final com.fasterxml.jackson.databind.node.ObjectNode copy = ticker.deepCopy();
        copy.remove("since");
        return copy;
    }

    @Test
    void depositsAndWithdrawalsAreListedNewestFirstWithoutRepeats() throws Exception
    {
        final JsonNode transfers = get(CANCELER, "/api/v1/history/transfers").get("transfers");
        final JsonNode withdrawal = transfers.get(0);
        assertEquals("WITHDRAWAL", withdrawal.get("type").asText(), transfers.toString());
        assertEquals(900_002, withdrawal.get("transactionId").asLong());
        assertEquals("USD", withdrawal.get("asset").asText());
        assertEquals(0, new BigDecimal("2.00").compareTo(new BigDecimal(withdrawal.get("amount").asText())));
        final JsonNode deposit = transfers.get(1);
        assertEquals("DEPOSIT", deposit.get("type").asText(), transfers.toString());
        assertEquals(900_001, deposit.get("transactionId").asLong());
        assertEquals(0, new BigDecimal("12.34").compareTo(new BigDecimal(deposit.get("amount").asText())));
        assertEquals(1, iterable(transfers).stream().filter(t -> t.get("transactionId").asLong() == 900_001).count(),
            "the repeat of a transaction id changed nothing and is not listed");
        assertTrue(withdrawal.get("timeNs").asLong() >= deposit.get("timeNs").asLong());
        // The account's opening deposits, made when the exchange was set up, come after (older).
        assertTrue(iterable(transfers).stream().skip(2).allMatch(t -> t.get("type").asText().equals("DEPOSIT")),
            transfers.toString());

        assertEquals(transfers, get(ADMIN, "/api/v1/admin/accounts/" + CANCELER_ACCOUNT + "/history/transfers")
            .get("transfers"), "an admin reads them as the account's own key does");
        final JsonNode first = get(CANCELER, "/api/v1/history/transfers?limit=1");
        assertEquals(1, first.get("transfers").size());
        final JsonNode second = get(CANCELER, "/api/v1/history/transfers?limit=1&cursor=" +
            first.get("nextCursor").asText()).get("transfers");
        assertEquals(deposit, second.get(0), "the next page");
        assertEquals(0, get(BYSTANDER, "/api/v1/history/transfers?from=" +
            (System.currentTimeMillis() + 60_000)).get("transfers").size(), "nothing in a window to come");
    }

    @Test
    void badParametersAreProblemsNamingTheField() throws Exception
    {
        final String trades = "/api/v1/history/trades";
        assertProblem(400, "INVALID_PARAMETER", "limit", call(SELLER, "GET", trades + "?limit=0", null));
        assertProblem(400, "INVALID_PARAMETER", "limit", call(SELLER, "GET", trades + "?limit=1001", null));
        assertProblem(400, "INVALID_PARAMETER", "limit", call(SELLER, "GET", "/api/v1/history/orders?limit=x", null));
        assertProblem(400, "INVALID_PARAMETER", "from", call(SELLER, "GET", trades + "?from=-1", null));
        assertProblem(400, "INVALID_PARAMETER", "from", call(SELLER, "GET", trades + "?from=99999999999999999", null));
        assertProblem(400, "INVALID_PARAMETER", "to", call(SELLER, "GET", trades + "?from=100&to=100", null));
        assertProblem(400, "INVALID_PARAMETER", "to", call(SELLER, "GET", trades + "?to=0", null));
        assertProblem(400, "INVALID_PARAMETER", "cursor", call(SELLER, "GET", trades + "?cursor=0", null));
        assertProblem(400, "INVALID_PARAMETER", "cursor", call(SELLER, "GET", trades + "?cursor=1e3", null));
        assertProblem(400, "INVALID_PARAMETER", "cursor", call(SELLER, "GET", trades + "?cursor=17", null));
        assertProblem(400, "INVALID_PARAMETER", "cursor", call(SELLER, "GET", trades + "?cursor=5-0", null));
        assertProblem(400, "INVALID_PARAMETER", "cursor",
            call(SELLER, "GET", trades + "?cursor=9223372036854775808-1", null));
        assertProblem(404, "NOT_FOUND", null, call(SELLER, "GET", "/api/v1/history/fills", null));
        assertProblem(405, "METHOD_NOT_ALLOWED", null, call(SELLER, "DELETE", trades, null));
        assertProblem(403, "FORBIDDEN", null, call(ADMIN, "GET", trades, null));
        // A mistyped account is an error to an admin, not an account with no history.
        for (final String kind : List.of("trades", "orders", "transfers"))
        {
            assertProblem(404, "UNKNOWN_ACCOUNT", "accountId",
                call(ADMIN, "GET", "/api/v1/admin/accounts/987654/history/" + kind, null));
        }
        assertProblem(400, "INVALID_PARAMETER", "limit",
            call(ADMIN, "GET", "/api/v1/admin/accounts/987654/history/trades?limit=0", null));
        final HttpResponse<String> unsigned = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + trades)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(401, unsigned.statusCode());
    }

    @Test
    void storeLagAndSessionsAreOnMetricsAndTheMonitor() throws Exception
    {
        final HttpResponse<String> metrics = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode());
        final String text = metrics.body();
        assertTrue(text.contains("\nbourse_store_available 1.0\n"), text);
        // DEFERRING is following too: the store stands aside for a while when the (shared, 2-core) machine is busy.
        assertTrue(text.contains("\nbourse_store_state{state=\"FOLLOWING\"} 1\n") ||
            text.contains("\nbourse_store_state{state=\"DEFERRING\"} 1\n"), text);
        assertTrue(text.contains("\nbourse_store_lag_bytes "), text);
        assertTrue(text.contains("\nbourse_store_lag_seconds "), text);
        assertTrue(text.contains("\nbourse_store_fence_log_position "), text);
        assertTrue(text.contains("\nbourse_store_committed_log_position "), text);
        assertTrue(text.contains("\nbourse_sessions_logged_on{gateway=\"fix\"} 0\n"), text);
        assertTrue(fixSessionsConfigured > 0, "the packaged configuration has FIX sessions");
        assertTrue(text.contains("\nbourse_sessions_configured{gateway=\"fix\"} " + fixSessionsConfigured + "\n"), text);
        assertTrue(text.contains("\nbourse_session_messages_dropped_total{gateway=\"fix\"} 0\n"), text);
        assertTrue(text.contains("\nbourse_session_messages_rate_limited_total{gateway=\"fix\"} 0\n"), text);
        assertTrue(text.contains("\nbourse_fix_gateway_archive_bytes "), text);
        assertTrue(!text.contains("\nbourse_fix_gateway_archive_bytes 0.0\n"), "the archive has its segments: " + text);
        assertTrue(text.contains("\nbourse_fix_gateway_open_order_record_bytes "), text);

        // No more load: the store's lag reaches zero, and the monitor shows it.
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        JsonNode monitor;
        do
        {
            assertTrue(System.nanoTime() < deadlineNs, "the store's lag did not reach zero: " + store.metrics().summary());
            Thread.sleep(20);
            final HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create(baseUrl + "/api/v1/monitor")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            monitor = JSON.readTree(response.body());
        }
        while (monitor.get("store").get("lagBytes").asLong() != 0);
        final JsonNode storeFigures = monitor.get("store");
        assertTrue(storeFigures.get("available").asBoolean());
        assertTrue(Set.of("FOLLOWING", "DEFERRING").contains(storeFigures.get("state").asText()), storeFigures::toString);
        assertTrue(storeFigures.get("fenceLogPosition").asLong() > 0);
        assertEquals(storeFigures.get("committedLogPosition").asLong(), storeFigures.get("fenceLogPosition").asLong());
        assertEquals(0.0, storeFigures.get("lagSeconds").asDouble());
        assertEquals(0, monitor.get("sessions").get("webSocket").asInt());
        assertEquals(0, monitor.get("sessions").get("fix").get("loggedOn").asInt());
        assertEquals(fixSessionsConfigured, monitor.get("sessions").get("fix").get("configured").asInt());
        assertEquals(0, monitor.get("sessions").get("fix").get("messagesDropped").asLong());
        assertEquals(0, monitor.get("sessions").get("fix").get("messagesRateLimited").asLong());
    }

    /**
     * The API fuzzing of gateway-http ({@code gateway-http/e2e/test_api_fuzz.py}, schemathesis) against this gateway,
     * whose history endpoints answer from the store with rows: no 5xx, every response as the OpenAPI document says.
     * Skipped when {@code .ci/run} has not installed schemathesis, failed then under {@code BOURSE_REQUIRE_E2E=1}.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void fuzzingTheDocumentWithTheStoreFindsNoServerErrorsOrSchemaViolations() throws Exception
    {
        final File root = new File(System.getenv().getOrDefault("BOURSE_REPO_ROOT", "..")).getAbsoluteFile();
        final File python = new File(root, ".tools/venv/bin/python");
        final boolean present = python.canExecute() && new File(root, ".tools/venv/bin/schemathesis").exists();
        if (!present && "1".equals(System.getenv("BOURSE_REQUIRE_E2E")))
        {
            fail("schemathesis is missing, and BOURSE_REQUIRE_E2E=1: run .ci/run's install step");
        }
        assumeTrue(present, "schemathesis is missing: .ci/run installs it");
        final File log = new File(root, "app/target/history-api-fuzz.log");
        final ProcessBuilder builder = new ProcessBuilder(python.getPath(), "-m", "pytest", "-q", "-p",
            "no:cacheprovider", "gateway-http/e2e/test_api_fuzz.py").directory(root).redirectErrorStream(true)
            .redirectOutput(log);
        builder.environment().putAll(Map.of("BOURSE_URL", baseUrl, "BOURSE_TRADER_KEY", SELLER[0],
            "BOURSE_TRADER_SECRET", SELLER[1], "BOURSE_ADMIN_KEY", ADMIN[0], "BOURSE_ADMIN_SECRET", ADMIN[1]));
        final Process process = builder.start();
        if (!process.waitFor(600, TimeUnit.SECONDS))
        {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            fail("schemathesis did not finish within 600 s; output in " + log);
        }
        final String output = Files.readString(log.toPath());
        System.out.println(output);
        assertEquals(0, process.exitValue(), () -> "schemathesis failed:\n" + output);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static void assertFiltered(final List<JsonNode> all, final String query, final Predicate<Long> kept)
        throws Exception
    {
        final List<String> expected = all.stream().filter(t -> kept.test(t.get("time").asLong()))
            .map(t -> t.get("tradeId").asText()).toList();
        final JsonNode page = get(SELLER, "/api/v1/history/trades?" + query);
        assertEquals(expected, iterable(page.get("trades")).stream().map(t -> t.get("tradeId").asText()).toList(), query);
    }

    private static List<JsonNode> allPages(final String[] key, final String path, final String field, final int limit)
        throws Exception
    {
        final List<JsonNode> rows = new ArrayList<>();
        String cursor = null;
        for (int pages = 0; pages < 100; pages++)
        {
            final String separator = path.contains("?") ? "&" : "?";
            final JsonNode page = get(key, path + separator + "limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
            final List<JsonNode> pageRows = iterable(page.get(field));
            assertTrue(pageRows.size() <= limit);
            rows.addAll(pageRows);
            if (page.get("nextCursor").isNull())
            {
                return rows;
            }
            assertEquals(limit, pageRows.size(), "only the last page is short");
            cursor = page.get("nextCursor").asText();
        }
        return fail("more than 100 pages");
    }

    private static List<JsonNode> iterable(final JsonNode array)
    {
        final List<JsonNode> list = new ArrayList<>();
        array.forEach(list::add);
        return list;
    }

    private static JsonNode get(final String[] key, final String path) throws Exception
    {
        final JsonNode response = call(key, "GET", path, null);
        assertEquals(200, response.get("status").asInt(), path + ": " + response);
        return response.get("body");
    }

    private static void assertProblem(final int status, final String code, final String field, final JsonNode response)
    {
        assertEquals(status, response.get("status").asInt(), response.toString());
        assertEquals("application/problem+json", response.get("contentType").asText());
        final JsonNode body = response.get("body");
        assertEquals(code, body.get("code").asText(), body.toString());
        if (field != null)
        {
            assertEquals(field, body.get("field").asText(), body.toString());
        }
        assertNotEquals("", body.get("detail").asText());
    }

    private static String order(final String side, final String price, final String quantity)
    {
        return "{\"symbol\":\"BTC-USD\",\"side\":\"" + side + "\",\"type\":\"LIMIT\",\"price\":\"" + price +
            "\",\"quantity\":\"" + quantity + "\"}";
    }

    /**
     * A signed request: HMAC-SHA256(secret, timestamp + method + path with query + body), as the API documents.
     */
    private static JsonNode call(final String[] key, final String method, final String path, final String body)
        throws Exception
    {
        return call(baseUrl, key, method, path, body);
    }

    private static JsonNode call(
        final String base, final String[] key, final String method, final String path, final String body)
        throws Exception
    {
        final String timestamp = Long.toString(System.currentTimeMillis());
        final Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key[1].getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        final String signature = HexFormat.of().formatHex(mac.doFinal(
            (timestamp + method + path + (body == null ? "" : body)).getBytes(StandardCharsets.UTF_8)));
        final HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(base + path))
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .header("X-Bourse-Key", key[0])
            .header("X-Bourse-Timestamp", timestamp)
            .header("X-Bourse-Signature", signature)
            .timeout(Duration.ofSeconds(30))
            .build(), HttpResponse.BodyHandlers.ofString());
        final var node = JSON.createObjectNode();
        node.put("status", response.statusCode());
        node.put("contentType", response.headers().firstValue("Content-Type").orElse(""));
        node.set("body", response.body().isEmpty() ? null : JSON.readTree(response.body()));
        return node;
    }

    private static int freeTcpPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    private static int freePortBase()
    {
        // A range apart from the gateway-http tests'.
        return LoopbackPorts.freeBase(27_000, 200, ClusterNode.PORTS_PER_MEMBER);
    }
}
