package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

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
            // A gateway without the store counts from its start, which was before the trades.
            assertTrue(ticker.get("since").asLong() <= beforeMs &&
                ticker.get("since").asLong() > beforeMs - 600_000, ticker.toString());

            for (final String interval : new String[]{ "1m", "5m", "15m", "30m", "1h", "4h" })
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
            final JsonNode oneMinute = expect(200, harness.get("/api/v1/candles/BTC-USD?interval=1m&limit=1")).json();
            assertEquals(1, oneMinute.size());
            assertEquals("102.00", oneMinute.get(0).get("close").asText(), "the most recent");

            RestApiTest.expectProblem(400, "INVALID_ENUM", "interval", harness.get("/api/v1/candles/BTC-USD?interval=2m"));
            RestApiTest.expectProblem(400, "INVALID_PARAMETER", "limit", harness.get("/api/v1/candles/BTC-USD?limit=0"));
            RestApiTest.expectProblem(400, "INVALID_PARAMETER", "limit", harness.get("/api/v1/candles/BTC-USD?limit=1441"));
            RestApiTest.expectProblem(400, "UNKNOWN_PARAMETER", "from", harness.get("/api/v1/candles/BTC-USD?from=1"));
            RestApiTest.expectProblem(404, "UNKNOWN_INSTRUMENT", null, harness.get("/api/v1/candles/NOPE-USD"));
            RestApiTest.expectProblem(405, "METHOD_NOT_ALLOWED", null, harness.call(ALICE, "POST", "/api/v1/candles/BTC-USD", "{}"));
        }
    }
}
