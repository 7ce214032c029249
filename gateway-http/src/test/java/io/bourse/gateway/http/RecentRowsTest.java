package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The closed orders and fills the gateway keeps are bounded for all accounts together, the oldest going first, so
 * that its memory does not grow with the number of accounts that traded.
 */
class RecentRowsTest
{
    @Test
    void theOldestClosedOrdersAndFillsOfAllAccountsGoFirst()
    {
        try (GatewayHarness harness = new GatewayHarness(context -> context.recentRows(3, 3)))
        {
            final List<String> sells = new ArrayList<>();
            for (final String price : List.of("250.00", "251.00", "252.00"))
            {
                sells.add(expect(200, harness.placeLimit(ALICE, "SELL", price, "1", null)).str("orderId"));
            }
            // One buy takes all three: six fills (Alice's as maker, Bob's as taker, trade by trade) and four orders
            // closed (Alice's three in turn, then Bob's).
            final String buy = expect(200, harness.placeLimit(BOB, "BUY", "252.00", "3", null)).str("orderId");

            assertEquals(List.of("252.00"), fillPrices(harness, ALICE), "the newest three fills of all: Alice's last");
            assertEquals(List.of("252.00", "251.00"), fillPrices(harness, BOB), "and Bob's last two, newest first");

            RestApiTest.expectProblem(404, "UNKNOWN_ORDER", "orderId",
                harness.call(ALICE, "GET", "/api/v1/orders/" + sells.get(0), null));
            for (final String kept : List.of(sells.get(1), sells.get(2)))
            {
                assertEquals("FILLED",
                    expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + kept, null)).str("status"));
            }
            assertEquals("FILLED", expect(200, harness.call(BOB, "GET", "/api/v1/orders/" + buy, null)).str("status"));
        }
    }

    private static List<String> fillPrices(final GatewayHarness harness, final ApiKey key)
    {
        final List<String> prices = new ArrayList<>();
        for (final JsonNode fill : expect(200, harness.call(key, "GET", "/api/v1/fills", null)).json())
        {
            prices.add(fill.get("price").asText());
        }
        return prices;
    }
}
