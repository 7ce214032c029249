package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which answer wins when the gateway and the post-trade store both know something of an order: a store here is a map
 * of rows and a fence that the test sets, so that it can be behind or ahead of the gateway at will.
 */
class StoredOrderLookupTest
{
    private final ConcurrentHashMap<Long, HistorySource.Order> rows = new ConcurrentHashMap<>();
    private final AtomicLong fence = new AtomicLong(Long.MAX_VALUE);

    @Test
    void aNewerOrderTheStoreHasWinsOverAnOlderClosedOneTheGatewayHolds()
    {
        try (GatewayHarness harness = new GatewayHarness(this::withStore))
        {
            final JsonNode placed = expect(200, harness.placeLimit(ALICE, "BUY", "90.00", "1", "again-1")).json();
            final long orderId = placed.get("orderId").asLong();
            expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders/" + orderId, null));
            final String path = "/api/v1/orders/by-client-id/again-1";
            assertEquals(orderId, expect(200, harness.call(ALICE, "GET", path, null)).json().get("orderId").asLong(),
                "the store has nothing newer: the gateway's closed order");

            // The same client order id used again for an order the gateway missed (a gap): the store's is newer.
            final HistorySource.Order newer = row(orderId + 1000, ClientOrderIds.encode("again-1"), "FILLED");
            rows.put(newer.orderId(), newer);
            final JsonNode answer = expect(200, harness.call(ALICE, "GET", path, null)).json();
            assertEquals(newer.orderId(), answer.get("orderId").asLong(), answer.toString());
            assertEquals("FILLED", answer.get("status").asText());
        }
    }

    @Test
    void anOrderTheStoreStillHasOpenIsNotAnsweredWhileTheStoreIsBehindTheGateway()
    {
        try (GatewayHarness harness = new GatewayHarness(this::withStore))
        {
            expect(200, harness.placeLimit(ALICE, "BUY", "90.00", "1", null));
            // An order the gateway does not hold open, which a lagging store still has as NEW.
            final HistorySource.Order stale = row(987_654, ClientOrderIds.encode("stale-1"), "NEW");
            rows.put(stale.orderId(), stale);
            fence.set(0);
            RestApiTest.expectProblem(503, "NOT_READY", null,
                harness.call(ALICE, "GET", "/api/v1/orders/" + stale.orderId(), null));
            RestApiTest.expectProblem(503, "NOT_READY", null,
                harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/stale-1", null));

            // Once the store is as far as the gateway, its row is the answer.
            fence.set(Long.MAX_VALUE);
            assertEquals("NEW", expect(200, harness.call(ALICE, "GET", "/api/v1/orders/" + stale.orderId(), null))
                .json().get("status").asText());
            // A closed row is an answer whatever the fence: the gateway has nothing to contradict it with.
            rows.put(stale.orderId(), row(stale.orderId(), stale.clientOrderId(), "CANCELED"));
            fence.set(0);
            assertEquals("CANCELED", expect(200, harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/stale-1",
                null)).json().get("status").asText());
        }
    }

    private HttpGateway.Context withStore(final HttpGateway.Context context)
    {
        return context.history(new MapHistory()).storeStatus(new StoreStatus()
        {
            public String state()
            {
                return "FOLLOWING";
            }

            public long fenceLogPosition()
            {
                return fence.get();
            }

            public long committedLogPosition()
            {
                return fence.get();
            }

            public long lagBytes()
            {
                return 0;
            }

            public double lagSeconds()
            {
                return 0;
            }

            public long stateHashesAgreed()
            {
                return 0;
            }

            public long stateHashesDiverged()
            {
                return 0;
            }
        });
    }

    private static HistorySource.Order row(final long orderId, final long clientOrderId, final String status)
    {
        return new HistorySource.Order(orderId, clientOrderId, 1, "BUY", "LIMIT", "GTC", 8_000, 10_000,
            status.equals("FILLED") ? 10_000 : 0, status.equals("FILLED") ? 80_000_000 : 0, status, 1_000, 2_000,
            status.equals("CANCELED") ? "CLIENT_REQUEST" : null, 0, false, "CANCEL_RESTING", 0, 0, 0);
    }

    private final class MapHistory extends EmptyHistory
    {
        public Order order(final long accountId, final long orderId)
        {
            return accountId == ALICE.accountId() ? rows.get(orderId) : null;
        }

        public Order orderByClientOrderId(final long accountId, final long clientOrderId)
        {
            return accountId != ALICE.accountId() ? null : rows.values().stream()
                .filter(order -> order.clientOrderId() == clientOrderId)
                .max(Comparator.comparingLong(Order::orderId)).orElse(null);
        }
    }
}
