package io.bourse.gateway.fix;

import io.bourse.cluster.FatalErrors;
import io.bourse.cluster.JavaChildProcess;
import org.junit.jupiter.api.Test;
import quickfix.Message;
import quickfix.field.ClOrdID;
import quickfix.field.ExecType;
import quickfix.field.MsgType;
import quickfix.field.Side;

import java.io.File;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A FIX gateway process paused for longer than Aeron's timeouts (10 s: a frozen VM, a long GC pause) finds, when it
 * goes on, that Aeron has closed the clients of Artio's engine and library: it could no longer take a logon or send a
 * report, yet would look up. It stops with the fatal exit code instead, saying why; restarted, it serves the session
 * again where it was.
 */
class FixGatewayPauseTest
{
    /**
     * Past Aeron's default driver timeout and client liveness timeout, both 10 s.
     */
    private static final long PAUSE_MS = 12_000;

    @Test
    void aGatewayPausedPastAeronsTimeoutsStopsWithTheFatalExitCodeAndServesAgainWhenRestarted() throws Exception
    {
        JavaChildProcess gateway = null;
        try (FixTestExchange exchange = new FixTestExchange(UnaryOperator.identity()).startWithoutGateway())
        {
            final File dataDir = new File(exchange.baseDir, "fix");
            final String ingress = exchange.node().context().ingressEndpoints();
            gateway = FixGatewayCrashTest.startGateway(dataDir, exchange.fixPort, ingress);
            try (QfjClient trader = new QfjClient(
                exchange.fixPort, FixGatewayCrashTest.TRADER.senderCompId(), FixGatewayCrashTest.TRADER.password()))
            {
                trader.awaitLogon();
                trader.send(FixGatewayTest.limit("before", Side.BUY, "0.01", "10.00"));
                assertNew(trader.next(MsgType.EXECUTION_REPORT), "before");

                gateway.signal("STOP");
                Thread.sleep(PAUSE_MS);
                gateway.signal("CONT");
                assertEquals(FatalErrors.EXIT_CODE, gateway.awaitExitCode(), "the paused gateway's exit code");
                assertTrue(gateway.hasPrinted(
                    "it stops (restarted, it takes its sessions and reports up where they were)"),
                    "the gateway says it stops");

                gateway = FixGatewayCrashTest.startGateway(dataDir, exchange.fixPort, ingress);
                trader.awaitLogon();
                trader.send(FixGatewayTest.limit("after", Side.BUY, "0.01", "10.00"));
                assertNew(trader.next(MsgType.EXECUTION_REPORT), "after");
            }
        }
        finally
        {
            if (gateway != null)
            {
                gateway.kill();
            }
        }
    }

    private static void assertNew(final Message report, final String clOrdId) throws Exception
    {
        assertEquals(clOrdId, report.getString(ClOrdID.FIELD));
        assertEquals(ExecType.NEW, report.getChar(ExecType.FIELD));
    }
}
