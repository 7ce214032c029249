package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway whose duty-cycle thread dies of an {@link Error} does not stay up without it: the error goes to its
 * fatal-error action (by default a halt with exit code 70, for a supervisor to restart it) and the log says why.
 */
class FixGatewayFatalErrorTest
{
    @Test
    void anErrorThatEndsTheGatewayThreadStopsTheGateway(@TempDir final File dataDir) throws Exception
    {
        final StackOverflowError error = new StackOverflowError("deep recursion");
        final CompletableFuture<Throwable> fatal = new CompletableFuture<>();
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (FixGateway gateway = FixGateway.launch(new FixGateway.Context()
            .dataDir(dataDir)
            .port(FixTestExchange.freeTcpPort())
            .session(new FixSessionSpec("FATAL", "secret", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .transientSequenceNumbers()
            .applicationMessageOverride((session, messageType, header, buffer, offset, length) ->
            {
                throw error;
            })
            .log(new PrintStream(log, true, StandardCharsets.UTF_8))
            .onFatalError(fatal::complete));
            RawFixClient client = new RawFixClient(gateway.context().port(), "FATAL"))
        {
            assertEquals("A", client.logon("secret").get("35"));
            client.sendApp("D", "11=1|21=1|55=BTC-USD|54=1|60=" + RawFixClient.now() + "|38=0.1|40=2|44=10.00|");

            assertSame(error, fatal.get(10, TimeUnit.SECONDS));
            final String said = log.toString(StandardCharsets.UTF_8);
            assertTrue(said.contains("bourse FIX gateway: gateway thread died of java.lang.StackOverflowError: deep " +
                "recursion; it stops (restarted, it takes its sessions and reports up where they were)"), said);
        }
    }
}
