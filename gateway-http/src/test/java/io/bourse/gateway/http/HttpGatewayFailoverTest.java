package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.bourse.cluster.FailoverCluster;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway as a separate client of a three-member cluster: the leader crashes while orders are in flight. Every
 * order is answered, either placed or with a 503 that says to try again; placing it again under its client order id
 * either places it or finds it placed already (409); and in the end the engine holds each order exactly once.
 */
class HttpGatewayFailoverTest
{
    private static final int ORDERS = 60;
    private static final Set<String> TRY_AGAIN =
        Set.of("NOT_READY", "NOT_CONNECTED", "BACK_PRESSURE", "BUSY", "OUTCOME_UNKNOWN");

    @Test
    void ordersInFlightDuringALeaderCrashAreNeitherLostNorExecutedTwice() throws Exception
    {
        try (FailoverCluster cluster = new FailoverCluster(3);
            GatewayHarness harness = GatewayHarness.onCluster(cluster.ingressEndpoints()))
        {
            final int leader = cluster.awaitLeader(-1);
            final List<CompletableFuture<GatewayHarness.Response>> answers = new ArrayList<>();
            for (int i = 0; i < ORDERS; i++)
            {
                if (i == ORDERS / 3)
                {
                    cluster.crash(leader);
                }
                answers.add(harness.callAsync(ALICE, "POST", "/api/v1/orders", order(i)));
                GatewayHarness.sleepMs(20);
            }

            final TreeMap<String, Integer> outcomes = new TreeMap<>();
            for (int i = 0; i < ORDERS; i++)
            {
                GatewayHarness.Response answer = answers.get(i).get(60, TimeUnit.SECONDS);
                outcomes.merge(outcome(answer), 1, Integer::sum);
                final long deadlineNs = System.nanoTime() + GatewayHarness.TIMEOUT_NS;
                while (answer.status() == 503 || answer.status() == 504)
                {
                    assertTrue(TRY_AGAIN.contains(answer.str("code")), "order " + i + ": " + answer.text());
                    assertTrue(System.nanoTime() < deadlineNs, "order " + i + " still not placed: " + answer.text());
                    GatewayHarness.sleepMs(100);
                    answer = harness.call(ALICE, "POST", "/api/v1/orders", order(i));
                    outcomes.merge("again " + outcome(answer), 1, Integer::sum);
                }
                if (answer.status() == 409)
                {
                    assertEquals("DUPLICATE_CLIENT_ORDER_ID", answer.str("code"), answer.text());
                }
                else
                {
                    expect(200, answer);
                    assertEquals("NEW", answer.str("status"), answer.text());
                }
            }
            System.out.println("HttpGatewayFailoverTest: leader " + leader + " crashed; answers " + outcomes);
            assertTrue(cluster.awaitLeader(leader) != leader);

            final JsonNode open = expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json();
            final Set<String> clientOrderIds = new HashSet<>();
            final Set<String> orderIds = new HashSet<>();
            for (final JsonNode order : open)
            {
                assertTrue(clientOrderIds.add(order.get("clientOrderId").asText()), "placed twice: " + order);
                assertTrue(orderIds.add(order.get("orderId").asText()), "order id used twice: " + order);
            }
            assertEquals(ORDERS, clientOrderIds.size(), "every order open once: " + open);
            assertEquals(ORDERS, expect(200, harness.call(ALICE, "DELETE", "/api/v1/orders", null))
                .get("canceledCount").asInt(), "the engine holds each order once");
        }
    }

    private static String order(final int i)
    {
        return GatewayHarness.limitOrder("BUY", "10.00", "0.01", "F" + i);
    }

    private static String outcome(final GatewayHarness.Response answer)
    {
        return answer.status() + (answer.status() == 200 ? "" : " " + answer.str("code"));
    }
}
