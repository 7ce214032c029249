package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ticker's rolling day and the candles, on a gateway of its own so that no other test's trades count.
 */
class MarketStatsTest
{
    private static final long DAY_MS = 24 * 3_600_000L;

    @Test
    void theTickerAndTheCandlesCountTheDaysTrades()
    {
        try (GatewayHarness harness = new GatewayHarness())
        {
            final JsonNode quiet = expect(200, harness.get("/api/v1/ticker/BTC-USD")).json();
            assertTrue(quiet.get("open").isNull() && quiet.get("high").isNull() && quiet.get("low").isNull(),
                quiet.toString());
            assertEquals("0.0000", quiet.get("volume").asText());
            assertEquals("0.000000", quiet.get("quoteVolume").asText());
            assertEquals(0, quiet.get("tradeCount").asLong());
            assertEquals(0, expect(200, harness.get("/api/v1/candles/BTC-USD")).json().size());

            final long beforeMs = System.currentTimeMillis();
            expect(200, harness.placeLimit(ALICE, "SELL", "100.00", "1", null));
            expect(200, harness.placeLimit(ALICE, "SELL", "102.00", "1", null));
            assertEquals("FILLED", expect(200, harness.placeLimit(BOB, "BUY", "102.00", "1.5", null)).str("status"));

            final JsonNode ticker = expect(200, harness.get("/api/v1/ticker/BTC-USD")).json();
            assertEquals("100.00", ticker.get("open").asText(), ticker.toString());
            assertEquals("102.00", ticker.get("high").asText());
            assertEquals("100.00", ticker.get("low").asText());
            assertEquals("102.00", ticker.get("lastPrice").asText());
            assertEquals("1.5000", ticker.get("volume").asText());
            assertEquals("151.000000", ticker.get("quoteVolume").asText(), "100 × 1 + 102 × 0.5");
            assertEquals(2, ticker.get("tradeCount").asLong());
            // The exchange had made no trade before the gateway's first state: it has seen every one of the day.
            assertTrue(ticker.get("since").asLong() <= beforeMs - DAY_MS + 60_000 &&
                ticker.get("since").asLong() > beforeMs - DAY_MS - 60_000, ticker.toString());

            for (final String interval : new String[]{ "1m", "5m", "15m", "30m", "1h", "4h", "1d" })
            {
                // Two trades a moment apart may fall either side of a minute's end: one candle, or two.
                final JsonNode candles =
                    expect(200, harness.get("/api/v1/candles/BTC-USD?interval=" + interval)).json();
                assertTrue(candles.size() == 1 || candles.size() == 2, interval + ": " + candles);
                final JsonNode first = candles.get(0);
                final JsonNode last = candles.get(candles.size() - 1);
                assertEquals("100.00", first.get("open").asText(), interval + ": " + candles);
                assertEquals("102.00", last.get("close").asText());
                long trades = 0;
                for (final JsonNode candle : candles)
                {
                    trades += candle.get("tradeCount").asLong();
                    assertEquals(0, candle.get("time").asLong() % 60_000, "an interval starts on a minute");
                }
                assertEquals(2, trades, interval + ": " + candles);
            }
            // A second instrument, with id 3, and one with id 2, made in that order: the list is by id.
            expect(200, harness.call(GatewayHarness.ADMIN, "PUT", "/api/v1/admin/assets/ETH", "{\"id\":3,\"scale\":8}"));
            for (final String[] definition : new String[][]{ { "ETH-USD", "3" }, { "ETH-BTC", "2" } })
            {
                expect(200, harness.call(GatewayHarness.ADMIN, "PUT", "/api/v1/admin/instruments/" + definition[0],
                    "{\"id\":" + definition[1] + ",\"baseAsset\":\"ETH\",\"quoteAsset\":\"" +
                    definition[0].substring(4) + "\",\"priceScale\":2,\"tickSize\":\"0.01\",\"quantityScale\":4," +
                    "\"lotSize\":\"0.0001\",\"minQuantity\":\"0.0001\",\"maxQuantity\":\"100\",\"priceBandBps\":0," +
                    "\"makerFeePpm\":0,\"takerFeePpm\":0,\"tradingState\":\"OPEN\"}"));
            }
            final JsonNode all = expect(200, harness.get("/api/v1/ticker")).json();
            assertEquals(List.of("BTC-USD", "ETH-BTC", "ETH-USD"),
                List.of(all.get(0).get("symbol").asText(), all.get(1).get("symbol").asText(),
                    all.get(2).get("symbol").asText()), all.toString());
            // Asked a moment later, its day may start a minute later: all else is the same.
            assertEquals(((ObjectNode)ticker.deepCopy()).without("since"), ((ObjectNode)all.get(0)).without("since"));
            assertEquals(0, all.get(1).get("tradeCount").asLong(), "each instrument its own trades");
            RestApiTest.expectProblem(400, "UNKNOWN_PARAMETER", "symbol", harness.get("/api/v1/ticker?symbol=BTC-USD"));
            RestApiTest.expectProblem(404, "NOT_FOUND", null, harness.get("/api/v1/ticker/BTC-USD/x"));
            final JsonNode oneMinute = expect(200, harness.get("/api/v1/candles/BTC-USD?interval=1m&limit=1")).json();
            assertEquals(1, oneMinute.size());
            assertEquals("102.00", oneMinute.get(0).get("close").asText(), "the most recent");

            RestApiTest.expectProblem(400, "INVALID_ENUM", "interval", harness.get("/api/v1/candles/BTC-USD?interval=2m"));
            RestApiTest.expectProblem(400, "INVALID_PARAMETER", "limit", harness.get("/api/v1/candles/BTC-USD?limit=0"));
            RestApiTest.expectProblem(400, "INVALID_PARAMETER", "limit", harness.get("/api/v1/candles/BTC-USD?limit=1441"));
            RestApiTest.expectProblem(400, "UNKNOWN_PARAMETER", "from", harness.get("/api/v1/candles/BTC-USD?from=1"));
            RestApiTest.expectProblem(400, "INVALID_PARAMETER", "to", harness.get("/api/v1/candles/BTC-USD?to=0"));
            RestApiTest.expectProblem(400, "INVALID_ENUM", "interval", harness.get("/api/v1/candles/BTC-USD?interval=1w"));
            RestApiTest.expectProblem(404, "UNKNOWN_INSTRUMENT", null, harness.get("/api/v1/candles/NOPE-USD"));
            RestApiTest.expectProblem(405, "METHOD_NOT_ALLOWED", null, harness.call(ALICE, "POST", "/api/v1/candles/BTC-USD", "{}"));
        }
    }

    @Test
    void aRestartedGatewayCountsTheTradesItMissedOnceTheStoreHoldsThem() throws Exception
    {
        final List<JsonNode> stored = new CopyOnWriteArrayList<>();
        final CountDownLatch storeCaughtUp = new CountDownLatch(1);
        final AtomicInteger reads = new AtomicInteger();
        final HistorySource store = new EmptyHistory()
        {
            public long lastTradeId()
            {
                return storeCaughtUp.getCount() > 0 ? 0 : stored.stream().mapToLong(t -> t.get("tradeId").asLong()).max()
                    .orElse(0);
            }

            public long firstTradeIdSince(final long fromNs)
            {
                return stored.stream().filter(t -> t.get("time").asLong() * 1_000_000 >= fromNs)
                    .mapToLong(t -> t.get("tradeId").asLong()).min().orElse(Long.MAX_VALUE);
            }

            public int trades(final long fromTradeId, final long beforeTradeId, final int limit,
                final TradeVisitor visitor)
            {
                // The second part's read fails, as when the database is lost for a moment: the gateway reads again,
                // on from the first part, neither losing nor counting again a trade.
                if (reads.getAndIncrement() == 1)
                {
                    throw new IllegalStateException("the database connection was lost (a test's)");
                }
                // Two a time, to read in parts as the store does.
                final List<JsonNode> part = stored.stream().filter(t -> t.get("tradeId").asLong() >= fromTradeId &&
                    t.get("tradeId").asLong() < beforeTradeId).sorted(Comparator.comparingLong(t ->
                    t.get("tradeId").asLong())).limit(Math.min(2, limit)).toList();
                for (final JsonNode t : part)
                {
                    visitor.onTrade(t.get("tradeId").asLong(), 1, price(t.get("price").asText()),
                        quantity(t.get("quantity").asText()), t.get("time").asLong() * 1_000_000);
                }
                return part.size();
            }
        };
        try (GatewayHarness harness = new GatewayHarness(context -> context.history(store)))
        {
            for (int i = 0; i < 5; i++)
            {
                expect(200, harness.placeLimit(ALICE, "SELL", (100 + i) + ".00", "1", null));
                expect(200, harness.placeLimit(BOB, "BUY", (100 + i) + ".00", "1", null));
            }
            final JsonNode before = expect(200, harness.get("/api/v1/ticker/BTC-USD")).json();
            assertEquals(5, before.get("tradeCount").asLong());
            expect(200, harness.get("/api/v1/trades/BTC-USD?limit=200")).json().forEach(stored::add);
            assertEquals(5, stored.size());

            harness.stopGateway();
            final long restartedMs = System.currentTimeMillis();
            harness.startGateway();
            // The store does not hold the five trades yet: the restarted gateway counts none of them, and says
            // that it has every trade only since its state.
            expect(200, harness.placeLimit(ALICE, "SELL", "99.00", "1", null));
            expect(200, harness.placeLimit(BOB, "BUY", "99.00", "1", null));
            final JsonNode lagging = expect(200, harness.get("/api/v1/ticker/BTC-USD")).json();
            assertEquals(1, lagging.get("tradeCount").asLong(), lagging.toString());
            assertTrue(lagging.get("since").asLong() >= stored.getFirst().get("time").asLong() &&
                lagging.get("since").asLong() <= restartedMs, lagging.toString());

            try (WebSocketTest.Client watcher = new WebSocketTest.Client(harness.baseUrl()))
            {
                watcher.send("{\"op\":\"subscribe\",\"channel\":\"ticker\",\"symbol\":\"BTC-USD\"}");
                assertEquals(1, watcher.next("ticker").get("tradeCount").asLong());
                storeCaughtUp.countDown();
                // No trade is made meanwhile: the join itself sends the ticker.
                watcher.next(m -> m.get("type").asText().equals("ticker") && m.get("tradeCount").asLong() == 6,
                    "a ticker counting all six, sent once joined");
            }
            final JsonNode ticker = expect(200, harness.get("/api/v1/ticker/BTC-USD")).json();
            assertEquals(6, ticker.get("tradeCount").asLong(), ticker.toString());
            assertTrue(reads.get() > 2, "a part read, one failed, the rest read after it: " + reads.get());
            assertEquals("100.00", ticker.get("open").asText(), "the first of the day, read from the store");
            assertEquals("104.00", ticker.get("high").asText());
            assertEquals("99.00", ticker.get("low").asText());
            assertEquals("6.0000", ticker.get("volume").asText());
            assertEquals("609.000000", ticker.get("quoteVolume").asText(), "100 + 101 + 102 + 103 + 104 + 99");
            assertTrue(ticker.get("since").asLong() <= restartedMs - DAY_MS + 60_000, ticker.toString());
            long candleTrades = 0;
            for (final JsonNode candle : expect(200, harness.get("/api/v1/candles/BTC-USD?interval=1h")).json())
            {
                candleTrades += candle.get("tradeCount").asLong();
            }
            assertEquals(6, candleTrades);
        }
    }

    @Test
    void candlesOfAnHourOrMoreGoBackThroughTheStoresHours()
    {
        final long hourMs = 3_600_000L;
        final long thisHourMs = Math.floorDiv(System.currentTimeMillis(), hourMs) * hourMs;
        // Hours the store has closed: two before the gateway's day, and one within it, which the gateway's own
        // minutes cover (it counts no trade: the store's hour would be counted twice).
        final List<HistorySource.Hour> stored = List.of(
            hour(thisHourMs - 30 * hourMs, 9000, 9500, 8900, 9400, 20_000, 1_800_000_000L, 3),
            hour(thisHourMs - 26 * hourMs, 9400, 9900, 9300, 9800, 10_000, 980_000_000L, 2),
            hour(thisHourMs - 2 * hourMs, 1, 1, 1, 1, 1, 1, 1));
        final AtomicInteger reads = new AtomicInteger();
        final HistorySource store = new EmptyHistory()
        {
            public boolean keepsHours()
            {
                return true;
            }

            public List<HistorySource.Hour> hourlyCandles(final int instrumentId, final long fromNs, final long toNs)
            {
                reads.incrementAndGet();
                return stored.stream().filter(h -> h.startMinute() * 60_000_000_000L >= fromNs &&
                    h.startMinute() * 60_000_000_000L < toNs).toList();
            }
        };
        try (GatewayHarness harness = new GatewayHarness(context -> context.history(store)))
        {
            expect(200, harness.placeLimit(ALICE, "SELL", "100.00", "1", null));
            expect(200, harness.placeLimit(BOB, "BUY", "100.00", "1", null));

            final JsonNode hours = expect(200, harness.get("/api/v1/candles/BTC-USD?interval=1h&limit=48")).json();
            final List<Long> times = new ArrayList<>();
            hours.forEach(candle -> times.add(candle.get("time").asLong()));
            assertTrue(times.equals(List.of(thisHourMs - 30 * hourMs, thisHourMs - 26 * hourMs, thisHourMs)) ||
                // The trade made in the next hour, had one begun meanwhile.
                times.equals(List.of(thisHourMs - 30 * hourMs, thisHourMs - 26 * hourMs, thisHourMs + hourMs)),
                hours.toString());
            final JsonNode oldest = hours.get(0);
            assertEquals(List.of("90.00", "95.00", "89.00", "94.00", "2.0000", "1800.000000", "3"),
                List.of(oldest.get("open").asText(), oldest.get("high").asText(), oldest.get("low").asText(),
                    oldest.get("close").asText(), oldest.get("volume").asText(), oldest.get("quoteVolume").asText(),
                    oldest.get("tradeCount").asText()), oldest.toString());
            assertEquals("100.00", hours.get(2).get("open").asText(), "the gateway's own trade");

            // Candles that start before a time; the most recent of them when limited.
            assertEquals(2, expect(200, harness.get("/api/v1/candles/BTC-USD?interval=1h&limit=48&to=" +
                (thisHourMs - 26 * hourMs + 1))).json().size());
            final JsonNode limited = expect(200, harness.get("/api/v1/candles/BTC-USD?interval=4h&limit=1&to=" +
                (thisHourMs - 26 * hourMs + 1))).json();
            assertEquals(1, limited.size(), limited.toString());
            assertEquals(2, limited.get(0).get("tradeCount").asLong(), "the 4 hours the second stored hour is in");

            // Days: the stored hours and the gateway's trade, each in its UTC day.
            final Map<Long, Long> expected = new TreeMap<>();
            final long dayMs = 24 * hourMs;
            expected.merge(Math.floorDiv(thisHourMs - 30 * hourMs, dayMs) * dayMs, 3L, Long::sum);
            expected.merge(Math.floorDiv(thisHourMs - 26 * hourMs, dayMs) * dayMs, 2L, Long::sum);
            final long tradeMs = expect(200, harness.get("/api/v1/trades/BTC-USD")).json().get(0).get("time").asLong();
            expected.merge(Math.floorDiv(tradeMs, dayMs) * dayMs, 1L, Long::sum);
            final Map<Long, Long> days = new TreeMap<>();
            expect(200, harness.get("/api/v1/candles/BTC-USD?interval=1d&limit=5")).json()
                .forEach(day -> days.put(day.get("time").asLong(), day.get("tradeCount").asLong()));
            assertEquals(expected, days);

            // Intervals within the gateway's day need no store.
            final int readsBefore = reads.get();
            assertEquals(1, expect(200, harness.get("/api/v1/candles/BTC-USD?interval=1h&limit=5")).json().size());
            assertEquals(readsBefore, reads.get());
            // Shorter intervals are the gateway's day alone.
            assertEquals(1, expect(200, harness.get("/api/v1/candles/BTC-USD?interval=30m&limit=100")).json().size());
        }
    }

    private static HistorySource.Hour hour(
        final long startMs, final long open, final long high, final long low, final long close, final long volume,
        final long quote, final long trades)
    {
        return new HistorySource.Hour(startMs / 60_000, open, high, low, close, volume, BigInteger.valueOf(quote),
            trades);
    }

    private static long price(final String text)
    {
        return new BigDecimal(text).movePointRight(2).longValueExact();
    }

    private static long quantity(final String text)
    {
        return new BigDecimal(text).movePointRight(4).longValueExact();
    }
}
