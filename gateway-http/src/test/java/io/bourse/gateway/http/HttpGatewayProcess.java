package io.bourse.gateway.http;

import io.bourse.cluster.client.ExchangeClient;

import java.io.IOException;
import java.util.List;

/**
 * An HTTP gateway in a process of its own, for {@link HttpGatewayStallTest} to stop and continue: the test harness's
 * API keys, the node's ingress through its own media driver. Prints {@link #READY} once it serves, and runs until its
 * standard input closes, so that none outlives a test JVM that died.
 * <p>
 * Arguments: HTTP port, the node's ingress endpoints.
 */
public final class HttpGatewayProcess
{
    static final String READY = "http-gateway-ready";

    private HttpGatewayProcess()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        try (HttpGateway gateway = HttpGateway.launch(new HttpGateway.Context()
            .port(Integer.parseInt(args[0]))
            .apiKeys(List.of(GatewayHarness.ADMIN, GatewayHarness.ALICE, GatewayHarness.BOB, GatewayHarness.CAROL))
            .rateLimit(100_000, 100_000)
            .addressRateLimit(100_000, 100_000)
            .clientContext(new ExchangeClient.Context().ingressEndpoints(args[1]))))
        {
            gateway.awaitReady(GatewayHarness.TIMEOUT_NS);
            System.out.println(READY);
            while (System.in.read() >= 0)
            {
                // Nothing is sent on standard input: its end is the signal.
            }
        }
    }
}
