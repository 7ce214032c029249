package io.bourse.gateway.fix;

import io.aeron.Publication;
import org.agrona.collections.MutableLong;
import org.junit.jupiter.api.Test;
import uk.co.real_logic.artio.messages.DisconnectReason;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A disconnect Artio asks for right after a Logout waits until the framer has written that Logout, or for the wait's
 * bound; nothing else is held.
 */
class DeferredDisconnectsTest
{
    private static final long CONNECTION = 4_857_685_152_040_614_024L;
    private static final long OTHER_CONNECTION = CONNECTION + 1;

    private final MutableLong nowNs = new MutableLong(1_000);
    private final DeferredDisconnects disconnects = new DeferredDisconnects(2, nowNs::get);
    private final List<String> sent = new ArrayList<>();
    private long answer = 64;
    private final DeferredDisconnects.Sender sender = (connectionId, reason) ->
    {
        if (answer >= 0)
        {
            sent.add(connectionId + " " + reason);
        }
        return answer;
    };

    @Test
    void aDisconnectAfterAnUnwrittenLogoutIsHeldUntilTheFramerWritesIt()
    {
        disconnects.expectLogout(CONNECTION, 5);
        assertTrue(disconnects.defer(sender, CONNECTION, DisconnectReason.LOGOUT));
        assertEquals(0, disconnects.poll());

        written(4, CONNECTION);
        assertEquals(0, disconnects.poll(), "a message before the Logout");
        written(5, OTHER_CONNECTION);
        assertEquals(0, disconnects.poll(), "another connection's message");

        written(5, CONNECTION);
        assertEquals(1, disconnects.poll());
        assertEquals(List.of(CONNECTION + " LOGOUT"), sent, "sent once, with Artio's reason");
        assertEquals(0, disconnects.poll());
        assertEquals(0, disconnects.deferred());
    }

    @Test
    void aDisconnectAfterALogoutAlreadyWrittenGoesAtOnce()
    {
        disconnects.expectLogout(CONNECTION, 5);
        written(5, CONNECTION);
        assertFalse(disconnects.defer(sender, CONNECTION, DisconnectReason.LOGOUT));
        assertFalse(disconnects.defer(sender, CONNECTION, DisconnectReason.LOGOUT), "the Logout is forgotten once used");
    }

    @Test
    void aDisconnectWithoutALogoutGoesAtOnce()
    {
        disconnects.expectLogout(OTHER_CONNECTION, 5);
        assertFalse(disconnects.defer(sender, CONNECTION, DisconnectReason.INVALID_FIX_MESSAGE));
    }

    @Test
    void aLogoutNeverWrittenHoldsTheDisconnectForTheWaitAtMost()
    {
        disconnects.expectLogout(CONNECTION, 5);
        assertTrue(disconnects.defer(sender, CONNECTION, DisconnectReason.LOGOUT));
        nowNs.set(nowNs.get() + DeferredDisconnects.WAIT_NS - 1);
        assertEquals(0, disconnects.poll());
        nowNs.increment();
        assertEquals(1, disconnects.poll());
        assertEquals(List.of(CONNECTION + " LOGOUT"), sent);
    }

    @Test
    void aBackPressuredDisconnectIsTriedAgain()
    {
        disconnects.expectLogout(CONNECTION, 5);
        assertTrue(disconnects.defer(sender, CONNECTION, DisconnectReason.LOGOUT));
        written(5, CONNECTION);
        answer = Publication.BACK_PRESSURED;
        assertEquals(0, disconnects.poll());
        answer = 128;
        assertEquals(1, disconnects.poll());
        assertEquals(List.of(CONNECTION + " LOGOUT"), sent);
    }

    @Test
    void aConnectionClosedMeanwhileIsForgotten()
    {
        disconnects.expectLogout(CONNECTION, 5);
        assertTrue(disconnects.defer(sender, CONNECTION, DisconnectReason.LOGOUT));
        disconnects.onDisconnect(CONNECTION);
        nowNs.set(nowNs.get() + DeferredDisconnects.WAIT_NS);
        assertEquals(0, disconnects.poll());
        assertEquals(List.of(), sent);
    }

    @Test
    void beyondItsCapacityADisconnectGoesAtOnceAsArtioWouldSendIt()
    {
        disconnects.expectLogout(1, 5);
        disconnects.expectLogout(2, 5);
        disconnects.expectLogout(3, 5);
        assertTrue(disconnects.defer(sender, 1, DisconnectReason.LOGOUT));
        assertTrue(disconnects.defer(sender, 2, DisconnectReason.LOGOUT));
        assertFalse(disconnects.defer(sender, 3, DisconnectReason.LOGOUT));
    }

    private void written(final long msgSeqNum, final long connectionId)
    {
        disconnects.onMessage(msgSeqNum, connectionId, null, 0, 0);
    }
}
