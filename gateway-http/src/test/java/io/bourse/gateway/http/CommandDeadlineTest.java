package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.bourse.cluster.JavaChildProcess;
import io.bourse.cluster.NodeProcess;
import org.agrona.IoUtil;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.CAROL;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static io.bourse.gateway.http.RestApiTest.expectProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * While the exchange does not answer (its node stopped with SIGSTOP, well within Aeron's 10 s timeouts), a request is
 * answered {@code 504 OUTCOME_UNKNOWN} after the command timeout rather than kept waiting, and may still be applied
 * when the node goes on; once the gateway knows it has lost the node, requests are refused {@code 503 NOT_CONNECTED}
 * and never sent, and the same signed request may be sent again. A WebSocket placement answered {@code OUTCOME_UNKNOWN}
 * is canceled when its connection closes, and a dead man's switch armed before the node was killed triggers once
 * the node, started again from its journal, is past its deadline.
 */
class CommandDeadlineTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    /**
     * How long the node may stay stopped: well short of the 10 s after which its Aeron clients give up.
     */
    private static final long MAX_STOPPED_NS = TimeUnit.SECONDS.toNanos(7);

    private static JavaChildProcess startNode(final Path baseDir, final int portBase, final String aeronDir)
    {
        return JavaChildProcess.start("node", List.of("-Xms128m", "-Xmx128m", "-XX:+UseSerialGC"),
            NodeProcess.class.getName(), List.of(baseDir.resolve("node").toString(), Integer.toString(portBase), aeronDir),
            NodeProcess.READY, TIMEOUT_NS);
    }

    @Test
    void anUnansweredRequestIsOutcomeUnknownInTimeAndAnUnsendableOneIsRefusedAndNotSent() throws Exception
    {
        final Path baseDir = Files.createTempDirectory("bourse-http-deadline");
        final String aeronDir = new File(new File("/dev/shm").isDirectory() ? "/dev/shm" : baseDir.toString(),
            "bourse-http-deadline-" + ProcessHandle.current().pid()).getPath();
        final int portBase = GatewayHarness.nodePortBase();
        JavaChildProcess node = startNode(baseDir, portBase, aeronDir);
        try (GatewayHarness harness =
            GatewayHarness.onCluster("0=localhost:" + portBase, context -> context.commandTimeoutMs(500));
            WebSocketTest.Client carol = new WebSocketTest.Client(harness.baseUrl()))
        {
            expect(200, harness.placeLimit(ALICE, "BUY", "90.00", "1", "before"));
            expect(200, harness.placeLimit(BOB, "BUY", "80.00", "1", "switched"));
            carol.send(WebSocketTest.auth(CAROL, System.currentTimeMillis()));
            carol.next("authenticated");
            carol.send("{\"op\":\"cancelOnDisconnect\",\"id\":\"on\",\"enabled\":true}");
            carol.next("response");

            node.signal("STOP");
            final long stoppedNs = System.nanoTime();
            GatewayHarness.Response refused;
            String refusedId;
            long refusedTimestampMs;
            try
            {
                final long sentNs = System.nanoTime();
                expectProblem(504, "OUTCOME_UNKNOWN", null, harness.placeLimit(ALICE, "BUY", "91.00", "1", "late"));
                final long answeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNs);
                assertTrue(answeredMs < 5_000, "answered after " + answeredMs + " ms");
                carol.send("{\"op\":\"order.place\",\"id\":\"ws-late\",\"order\":" +
                    GatewayHarness.limitOrder("BUY", "70.00", "1", "ws-late") + "}");
                final JsonNode unknown = carol.next("response");
                assertEquals(504, unknown.get("status").asInt(), unknown.toString());
                assertEquals("OUTCOME_UNKNOWN", unknown.get("error").get("code").asText(), unknown.toString());

                // Until the gateway finds the node gone, requests wait out their timeout (and may be applied later).
                int attempt = 0;
                do
                {
                    assertTrue(System.nanoTime() - stoppedNs < MAX_STOPPED_NS, "never refused as not connected");
                    refusedId = "gone-" + attempt++;
                    refusedTimestampMs = System.currentTimeMillis();
                    refused = harness.call(ALICE.key(), ALICE.secret(), refusedTimestampMs, "POST", "/api/v1/orders",
                        GatewayHarness.limitOrder("BUY", "92.00", "1", refusedId));
                }
                while (refused.status() == 504);
                expectProblem(503, "NOT_CONNECTED", null, refused);
                assertEquals("1", refused.retryAfter());
                // It did not act, so the same signed request is not a replay.
                expectProblem(503, "NOT_CONNECTED", null, harness.call(ALICE.key(), ALICE.secret(), refusedTimestampMs,
                    "POST", "/api/v1/orders", GatewayHarness.limitOrder("BUY", "92.00", "1", refusedId)));
            }
            finally
            {
                node.signal("CONT");
            }

            // The request answered OUTCOME_UNKNOWN was applied once the node went on; the refused one never was.
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
            GatewayHarness.Response late;
            while ((late = harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/late", null)).status() != 200)
            {
                assertTrue(System.nanoTime() < deadlineNs, "the late order never appeared: " + late.text());
                GatewayHarness.sleepMs(100);
            }
            assertEquals("NEW", late.str("status"));
            expectProblem(404, "UNKNOWN_ORDER", "clientOrderId",
                harness.call(ALICE, "GET", "/api/v1/orders/by-client-id/" + refusedId, null));
            GatewayHarness.Response after;
            while ((after = harness.placeLimit(ALICE, "BUY", "93.00", "1", "after")).status() == 503)
            {
                assertTrue(System.nanoTime() < deadlineNs, "not placed after the node went on: " + after.text());
                GatewayHarness.sleepMs(100);
            }
            expect(200, after);

            // The placement whose outcome was unknown was applied too: canceled when its connection closes.
            assertEquals("NEW", expect(200, harness.call(CAROL, "GET", "/api/v1/orders/by-client-id/ws-late", null))
                .str("status"));
            carol.close();
            GatewayHarness.await("the unanswered placement canceled when its connection closed", () -> "CANCELED".equals(
                expect(200, harness.call(CAROL, "GET", "/api/v1/orders/by-client-id/ws-late", null)).str("status")));

            // The node killed with a switch armed: the exchange holds the switch, in its journal, so the node started
            // again after the deadline triggers it though the gateway was cut off from it meanwhile.
            final JsonNode armed = expect(200,
                harness.call(BOB, "POST", "/api/v1/orders/cancel-all-after", "{\"timeoutMs\":3000}")).json();
            node.kill();
            assertTrue(System.currentTimeMillis() < armed.get("triggerTime").asLong(),
                "the node was killed before the deadline: " + armed);
            GatewayHarness.await("the gateway to find the node gone",
                () -> !harness.get("/api/v1/monitor").json().get("cluster").get("connected").asBoolean());
            expectProblem(503, "NOT_CONNECTED", null,
                harness.call(BOB, "POST", "/api/v1/orders/cancel-all-after", "{\"timeoutMs\":0}"));
            while (System.currentTimeMillis() < armed.get("triggerTime").asLong() + 100)
            {
                GatewayHarness.sleepMs(100);
            }
            node = startNode(baseDir, portBase, aeronDir);
            GatewayHarness.await("the switch to trigger once the node was back", () -> "CANCELED".equals(
                expect(200, harness.call(BOB, "GET", "/api/v1/orders/by-client-id/switched", null)).str("status")));
            assertEquals("CANCEL_ALL_AFTER", expect(200,
                harness.call(BOB, "GET", "/api/v1/orders/by-client-id/switched", null)).str("cancelReason"));
            assertFalse(expect(200, harness.call(BOB, "GET", "/api/v1/orders/cancel-all-after", null)).json()
                .get("armed").asBoolean());
        }
        finally
        {
            node.kill();
            IoUtil.delete(new File(aeronDir), true);
            IoUtil.delete(baseDir.toFile(), true);
        }
    }
}
