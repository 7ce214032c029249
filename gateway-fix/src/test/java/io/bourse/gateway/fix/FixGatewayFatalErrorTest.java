package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway whose duty-cycle thread dies of an {@link Error} does not stay up without it: the error goes to its
 * fatal-error action (by default a halt with exit code 70, for a supervisor to restart it) and the log says why. So does
 * one that cannot write its own records. Any other exception, a defect met handling one message, is answered to the
 * client and the gateway carries on.
 */
class FixGatewayFatalErrorTest
{
    @Test
    void anErrorThatEndsTheGatewayThreadStopsTheGateway(@TempDir final File dataDir) throws Exception
    {
        final StackOverflowError error = new StackOverflowError("deep recursion");
        assertTrue(fatalLogOf(error, dataDir).contains("bourse FIX gateway: gateway thread died of " +
            "java.lang.StackOverflowError: deep recursion; it stops (restarted, it takes its sessions and reports up " +
            "where they were)"));
    }

    @Test
    void aRecordTheGatewayCannotWriteStopsTheGateway(@TempDir final File dataDir) throws Exception
    {
        // What the open-order record's append throws on a full disk, from where the gateway handles a message.
        final UncheckedIOException full = new UncheckedIOException(new IOException("No space left on device"));
        assertTrue(fatalLogOf(full, dataDir).contains("bourse: FIX gateway cannot write its records: " +
            "java.io.UncheckedIOException: java.io.IOException: No space left on device; it stops"));
    }

    @Test
    void anyOtherExceptionTheGatewayThreadSurvives()
    {
        final List<Throwable> fatal = new ArrayList<>();
        final FixGateway.Context context = new FixGateway.Context()
            .log(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
            .onFatalError(fatal::add);
        FixGateway.agentErrors(context).onError(new IllegalStateException("a message it could not handle"));
        assertEquals(List.of(), fatal);
    }

    @Test
    void aMessageTheGatewayFailsToHandleIsAnsweredAndTheSessionCarriesOn(@TempDir final File dataDir) throws Exception
    {
        final List<Throwable> fatal = new ArrayList<>();
        final AtomicInteger handled = new AtomicInteger();
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (FixGateway gateway = FixGateway.launch(new FixGateway.Context()
            .dataDir(dataDir)
            .port(FixTestExchange.freeTcpPort())
            .session(new FixSessionSpec("DEFECT", "secret", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .transientSequenceNumbers()
            .applicationMessageOverride((session, messageType, header, buffer, offset, length) ->
            {
                if (handled.getAndIncrement() == 0)
                {
                    throw new IllegalStateException("a defect met handling an order");
                }
            })
            .log(new PrintStream(log, true, StandardCharsets.UTF_8))
            .onFatalError(fatal::add));
            RawFixClient client = new RawFixClient(gateway.context().port(), "DEFECT"))
        {
            assertEquals("A", client.logon("secret").get("35"));
            client.sendApp("D", "11=1|21=1|55=BTC-USD|54=1|60=" + RawFixClient.now() + "|38=0.1|40=2|44=10.00|");

            final Map<String, String> reject = client.read(10_000);
            assertEquals("j", reject.get("35"), reject.toString());
            assertEquals("2", reject.get("45"));
            assertEquals("D", reject.get("372"));
            assertEquals("0", reject.get("380"));
            assertEquals("1", reject.get("379"), "BusinessRejectRefID: the order's ClOrdID");
            assertEquals("The gateway failed to handle this message (internal error: IllegalStateException); it was " +
                "not sent to the exchange: send it again (an order, cancel or replace under a new ClOrdID)",
                reject.get("58"));
            assertTrue(log.toString(StandardCharsets.UTF_8).contains("bourse: FIX session DEFECT: failed to handle " +
                "a message (answered with a BusinessMessageReject): 8=FIX.4.4|"));

            // The session carries on: the next order is handled, and a TestRequest answered after it.
            client.sendApp("D", "11=2|21=1|55=BTC-USD|54=1|60=" + RawFixClient.now() + "|38=0.1|40=2|44=10.00|");
            client.sendApp("1", "112=still-there|");
            final Map<String, String> heartbeat = client.read(10_000);
            assertEquals("0", heartbeat.get("35"), heartbeat.toString());
            assertEquals("still-there", heartbeat.get("112"));
            assertEquals(2, handled.get());
            assertEquals(List.of(), fatal);
        }
    }

    /**
     * @return the log of a gateway whose handling of a NewOrderSingle throws, once it has taken its fatal action.
     */
    private static String fatalLogOf(final Throwable thrown, final File dataDir) throws Exception
    {
        final CompletableFuture<Throwable> fatal = new CompletableFuture<>();
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (FixGateway gateway = FixGateway.launch(new FixGateway.Context()
            .dataDir(dataDir)
            .port(FixTestExchange.freeTcpPort())
            .session(new FixSessionSpec("FATAL", "secret", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))
            .transientSequenceNumbers()
            .applicationMessageOverride((session, messageType, header, buffer, offset, length) ->
            {
                throw sneaky(thrown);
            })
            .log(new PrintStream(log, true, StandardCharsets.UTF_8))
            .onFatalError(fatal::complete));
            RawFixClient client = new RawFixClient(gateway.context().port(), "FATAL"))
        {
            assertEquals("A", client.logon("secret").get("35"));
            client.sendApp("D", "11=1|21=1|55=BTC-USD|54=1|60=" + RawFixClient.now() + "|38=0.1|40=2|44=10.00|");

            assertSame(thrown, fatal.get(10, TimeUnit.SECONDS));
            return log.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * The override may throw what is unchecked only: an {@link Error} or a {@link RuntimeException}.
     */
    private static RuntimeException sneaky(final Throwable thrown)
    {
        if (thrown instanceof Error error)
        {
            throw error;
        }
        return (RuntimeException)thrown;
    }
}
