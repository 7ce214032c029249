package io.bourse.gateway.http;

import io.bourse.cluster.OrderFlood;
import io.bourse.protocol.codec.Side;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A gateway starts in front of a book whose state is longer than its stream from the node takes at once (an IPC
 * client of the node has an egress stream of an 8 MiB term, which may be 4 MiB ahead of it; a gateway process on UDP
 * has a 4 MiB term), while orders keep coming in: the state comes in rounds, with
 * the batches after its position between them, and the gateway's view must be the engine's once it is ready.
 */
class HttpGatewayStateTest
{
    /**
     * About 7 MB of engine state.
     */
    private static final int RESTING_BEFORE = 60_000;

    @Test
    void aStateLongerThanTheGatewaysStreamTakesIsReadWhileOrdersComeIn() throws Exception
    {
        try (GatewayHarness harness = new GatewayHarness())
        {
            harness.stopGateway();
            final long alicePlaced;
            try (OrderFlood alice =
                OrderFlood.resting(harness.node().clientContext(), ALICE.accountId(), Side.BUY, 100, 100, 0))
            {
                alice.start();
                GatewayHarness.await("ALICE's orders resting", () -> alice.answered() >= RESTING_BEFORE);
                alicePlaced = alice.stop();
            }

            final long bobPlaced;
            try (OrderFlood bob = OrderFlood.resting(harness.node().clientContext(), BOB.accountId(), Side.BUY, 200,
                100, TimeUnit.MICROSECONDS.toNanos(200)))
            {
                bob.start();
                final long startNs = System.nanoTime();
                harness.startGateway();
                System.out.printf("HttpGatewayStateTest: %d orders resting, the gateway ready in %d ms%n",
                    alicePlaced, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
                GatewayHarness.sleepMs(300);
                bobPlaced = bob.stop();
            }

            final int engineOpen = harness.node().service().probeState(0).get(30, TimeUnit.SECONDS).openOrders();
            assertEquals(alicePlaced + bobPlaced, engineOpen, "every order rests");
            GatewayHarness.await("the gateway shows BOB's " + bobPlaced + " orders", () ->
                expect(200, harness.call(BOB, "GET", "/api/v1/orders", null)).json().size() == bobPlaced);
            assertEquals(alicePlaced, expect(200, harness.call(ALICE, "GET", "/api/v1/orders", null)).json().size(),
                "the gateway shows ALICE's orders, from the state");
        }
    }
}
