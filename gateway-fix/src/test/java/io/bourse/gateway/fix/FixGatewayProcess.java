package io.bourse.gateway.fix;

import io.bourse.cluster.client.ExchangeClient;

import java.io.File;
import java.util.concurrent.CountDownLatch;

/**
 * A FIX gateway in a process of its own, for {@link FixGatewayCrashTest} to kill: the gateway of
 * {@code bourse gateway-fix}, with the test exchange's instrument and the crash test's session, reaching the node's
 * ingress through its own media driver. Prints {@link #READY} once it accepts logons, and runs until killed.
 * <p>
 * Arguments: data directory, FIX port, the node's ingress endpoints.
 */
public final class FixGatewayProcess
{
    static final String READY = "fix-gateway-ready";

    private FixGatewayProcess()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final FixGateway gateway = FixGateway.launch(new FixGateway.Context()
            .dataDir(new File(args[0]))
            .port(Integer.parseInt(args[1]))
            .compId(FixTestExchange.GATEWAY_COMP_ID)
            .instrument(FixTestExchange.BTC_USD)
            .session(FixGatewayCrashTest.TRADER)
            .exchangeClient(new ExchangeClient.Context().ingressEndpoints(args[2]))
            .log(System.out));
        System.out.println(READY);
        Runtime.getRuntime().addShutdownHook(new Thread(gateway::close));
        new CountDownLatch(1).await();
    }
}
