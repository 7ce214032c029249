package io.bourse.cluster;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class StateHashCheckpointsTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
    private final StateHashCheckpoints sender = new StateHashCheckpoints();

    @Test
    void comparesTheHashesNotedAtTheCheckpointsPosition()
    {
        final StateHashCheckpoints member = new StateHashCheckpoints();
        member.noteService(1_000, 11, 12, false);
        member.noteService(2_000, 21, 22, false);

        assertEquals(StateHashCheckpoints.AGREED, member.check(buffer, 0, checkpoint(2_000, 21, 22, 0), 1));
        assertEquals(2_000, member.logPosition());
        assertEquals(0, member.memberId());
        assertEquals(StateHashCheckpoints.DIVERGED, member.check(buffer, 0, checkpoint(1_000, 11, 99, 0), 1));
        assertEquals(12, member.ownEngineStateHash());
        assertEquals(99, member.engineStateHash());
        assertEquals(StateHashCheckpoints.DIVERGED, member.check(buffer, 0, checkpoint(1_000, 98, 12, 0), 1));
        assertEquals(StateHashCheckpoints.UNCHECKED, member.check(buffer, 0, checkpoint(3_000, 31, 32, 0), 1));
    }

    @Test
    void aMembersOwnCheckpointIsNotACheckOfItself()
    {
        final StateHashCheckpoints member = new StateHashCheckpoints();
        member.noteService(1_000, 11, 12, true);
        assertEquals(StateHashCheckpoints.OWN, member.check(buffer, 0, checkpoint(1_000, 11, 12, 2), 2));
        // Another member's, at the same position (the new leader's after a fail-over), is compared.
        assertEquals(StateHashCheckpoints.AGREED, member.check(buffer, 0, checkpoint(1_000, 11, 12, 0), 2));
    }

    @Test
    void aStoreComparesTheEnginesHashAlone()
    {
        final StateHashCheckpoints store = new StateHashCheckpoints();
        store.noteEngine(1_000, 12);
        assertEquals(StateHashCheckpoints.AGREED, store.check(buffer, 0, checkpoint(1_000, 11, 12, 0), -1));
        assertFalse(store.serviceHashCompared());
        assertEquals(StateHashCheckpoints.DIVERGED, store.check(buffer, 0, checkpoint(1_000, 11, 13, 0), -1));
    }

    @Test
    void keepsTheLastPositionsNoted()
    {
        final StateHashCheckpoints member = new StateHashCheckpoints();
        for (int i = 1; i <= 9; i++)
        {
            member.noteService(i * 1_000L, i, i, false);
        }
        assertEquals(StateHashCheckpoints.UNCHECKED, member.check(buffer, 0, checkpoint(1_000, 1, 1, 0), 1));
        assertEquals(StateHashCheckpoints.AGREED, member.check(buffer, 0, checkpoint(2_000, 2, 2, 0), 1));
    }

    @Test
    void otherMessagesAreNotCheckpoints()
    {
        final StateHashCheckpoints member = new StateHashCheckpoints();
        final int length = checkpoint(1_000, 1, 1, 0);
        assertEquals(StateHashCheckpoints.NOT_A_CHECKPOINT, member.check(buffer, 0, length - 1, 1));
        buffer.putShort(2, (short)1);
        assertEquals(StateHashCheckpoints.NOT_A_CHECKPOINT, member.check(buffer, 0, length, 1));
    }

    private int checkpoint(final long logPosition, final long stateHash, final long engineStateHash, final int memberId)
    {
        return sender.encode(buffer, 0, logPosition, stateHash, engineStateHash, memberId);
    }
}
