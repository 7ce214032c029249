package io.bourse.gateway.fix;

import org.agrona.collections.Long2LongHashMap;
import org.junit.jupiter.api.Test;
import quickfix.field.ExecType;
import quickfix.field.Side;

import java.io.File;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The messages the gateway keeps for resends would fill its disk (about 700 bytes for each order a session sends, in
 * and out): once every session has started a new sequence, those before it are deleted, and the gateway goes on
 * trading and starts again from what is left.
 */
class FixArchivePruneTest
{
    private static final int ORDERS = 300;

    @Test
    void messagesBeforeEverySessionsCurrentSequenceAreDeleted() throws Exception
    {
        FixGatewayTest.forgetExecIds();
        // 64 KiB segments: a few hundred orders fill several.
        try (FixTestExchange exchange = new FixTestExchange(context -> context
            .messageLogTermBytes(64 * 1024)
            .archivePruneIntervalMs(0)
            .session(new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0))).start())
        {
            try (QfjClient alice = new QfjClient(exchange.fixPort, "ALICE", "alice-pw").awaitLogon())
            {
                for (int i = 0; i < ORDERS; i++)
                {
                    alice.send(FixGatewayTest.limit("O" + i, Side.BUY, "0.0001", "100.00"));
                    assertEquals(ExecType.NEW, alice.next("8").getChar(ExecType.FIELD));
                    alice.send(FixGatewayTest.cancel("C" + i, "O" + i, Side.BUY));
                    assertEquals(ExecType.CANCELED, alice.next("8").getChar(ExecType.FIELD));
                }
            }
            final File archiveDir = new File(exchange.baseDir, "fix/archive");
            final int segmentsBefore = segments(archiveDir);
            assertTrue(exchange.gateway().pruneArchive().isEmpty(),
                "nothing goes while the session's messages are all in its current sequence");
            assertEquals(segmentsBefore, segments(archiveDir));

            // A Logon with ResetSeqNumFlag=Y starts a new sequence: what came before can no longer be asked for.
            try (RawFixClient alice = new RawFixClient(exchange.fixPort, "ALICE"))
            {
                assertEquals("A", alice.logon("alice-pw").get("35"));
                final Long2LongHashMap pruned = exchange.gateway().pruneArchive();
                assertFalse(pruned.isEmpty(), "pruned");
                final int segmentsAfter = segments(archiveDir);
                System.out.println("FixArchivePruneTest: " + segmentsBefore + " segment files, " + segmentsAfter +
                    " after pruning up to " + pruned);
                assertTrue(segmentsAfter < segmentsBefore, segmentsBefore + " segments before, " + segmentsAfter);
                assertNew(alice, "N1");
            }

            // The gateway starts again from what is left, and the session goes on in its new sequence.
            exchange.stopGateway();
            exchange.startGateway();
            try (RawFixClient alice = new RawFixClient(exchange.fixPort, "ALICE"))
            {
                assertEquals("A", alice.logon("alice-pw").get("35"));
                assertNew(alice, "N2");
            }
        }
    }

    private static void assertNew(final RawFixClient client, final String clOrdId)
    {
        client.sendApp("D", "11=" + clOrdId + "|21=1|55=BTC-USD|54=1|60=" + RawFixClient.now() +
            "|38=0.0001|40=2|44=100.00|");
        final Map<String, String> report = client.read(10_000);
        assertEquals("8", report.get("35"), report.toString());
        assertEquals("0", report.get("150"), report.toString());
        assertEquals(clOrdId, report.get("11"));
    }

    private static int segments(final File archiveDir)
    {
        final String[] names = archiveDir.list((dir, name) -> name.endsWith(".rec"));
        return names == null ? 0 : names.length;
    }
}
