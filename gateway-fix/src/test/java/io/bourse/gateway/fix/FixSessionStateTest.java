package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a session remembers of the reports it was sent: the last one, by batch and key within the batch, kept across
 * restarts, so that a replay leaves out exactly those.
 */
class FixSessionStateTest
{
    private static final FixSessionSpec SPEC =
        new FixSessionSpec("ALICE", "pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0);

    @Test
    void aReportSentBeforeARestartIsKnownAfterItAndTheRestOfItsBatchIsNot(@TempDir final File dir)
    {
        final File record = new File(dir, "s.dat");
        try (FixEventPosition file = new FixEventPosition(record))
        {
            new FixSessionState(SPEC, file).sent(7, 2);
        }
        try (FixEventPosition file = new FixEventPosition(record))
        {
            final FixSessionState restarted = new FixSessionState(SPEC, file);
            assertTrue(restarted.wasSent(6, 5), "an earlier batch");
            assertTrue(restarted.wasSent(7, 1));
            assertTrue(restarted.wasSent(7, 2));
            assertFalse(restarted.wasSent(7, 3), "the batch's later reports were not sent");
            assertFalse(restarted.wasSent(8, 1), "a later batch");
        }
    }

    @Test
    void aSessionsFileIsNamedForItsCompIdWithAnythingUnsafeInAFileNameEscaped()
    {
        assertEquals("session-ALICE_2-b-delivered.dat", FixSessionState.deliveredFileName("ALICE_2-b"));
        assertEquals("session-A%002fB%002e%00e9-delivered.dat", FixSessionState.deliveredFileName("A/B.\u00e9"));
    }
}
