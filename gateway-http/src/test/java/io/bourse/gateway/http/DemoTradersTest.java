package io.bourse.gateway.http;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo traders of {@code run --demo-traders} keep a live book that stays within its depth, however long they run:
 * orders left behind by the wandering mid are cancelled, rather than piling up to the accounts' limits.
 */
class DemoTradersTest
{
    @Test
    void eachTraderKeepsAtMostItsDepthOfRestingOrdersAndTheMarketGoesOn()
    {
        final long seed = System.nanoTime();
        try (GatewayHarness harness = new GatewayHarness();
            DemoTraders traders = new DemoTraders(harness.baseUrl(), List.of(ALICE, BOB), "BTC-USD",
                new BigDecimal("250.00"), 1_000, seed))
        {
            final long deadlineNs = System.nanoTime() + GatewayHarness.TIMEOUT_NS;
            while (resting(harness, ALICE) < DemoTraders.RESTING_ORDERS_PER_TRADER &&
                resting(harness, BOB) < DemoTraders.RESTING_ORDERS_PER_TRADER)
            {
                assertTrue(System.nanoTime() < deadlineNs, "seed " + seed + ": a trader reaches its depth");
                GatewayHarness.sleepMs(100);
            }
            final long tradesAtDepth = trades(harness);
            for (int i = 0; i < 20; i++)
            {
                GatewayHarness.sleepMs(100);
                for (final ApiKey key : List.of(ALICE, BOB))
                {
                    final int resting = resting(harness, key);
                    assertTrue(resting <= DemoTraders.RESTING_ORDERS_PER_TRADER,
                        "seed " + seed + ": " + key.key() + " rests " + resting + " orders");
                }
            }
            final long tradedAfter = waitForTradesAfter(harness, tradesAtDepth);
            assertTrue(tradedAfter > tradesAtDepth, "seed " + seed + ": trades go on at depth");
        }
    }

    private static int resting(final GatewayHarness harness, final ApiKey key)
    {
        return expect(200, harness.call(key, "GET", "/api/v1/orders?symbol=BTC-USD", null)).json().size();
    }

    private static long trades(final GatewayHarness harness)
    {
        return expect(200, harness.get("/api/v1/ticker/BTC-USD")).json().get("tradeCount").asLong();
    }

    private static long waitForTradesAfter(final GatewayHarness harness, final long trades)
    {
        final long deadlineNs = System.nanoTime() + GatewayHarness.TIMEOUT_NS;
        long now = trades(harness);
        while (now == trades && System.nanoTime() < deadlineNs)
        {
            GatewayHarness.sleepMs(100);
            now = trades(harness);
        }
        return now;
    }
}
