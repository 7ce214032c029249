package io.bourse.gateway.fix;

import org.agrona.collections.Long2LongHashMap;
import uk.co.real_logic.artio.session.Session;

/**
 * The MsgSeqNum of the last ResendRequest Artio sent on each connection, to correct Artio's count of what it sent.
 * <p>
 * The gateway has Artio ask again for messages that arrive beyond a range it is waiting to have resent (its
 * {@code sendRedundantResendRequests}), so that they are not lost. Artio (0.175) sends that repeated ResendRequest
 * without counting its MsgSeqNum as sent ({@code Session.checkSeqNoChange} only applies the send's back-pressure): the
 * next message goes out under the same number, and the counterparty refuses it as a number it already had (QuickFIX/J
 * logs out, "MsgSeqNum too low"). When that next message is an ExecutionReport, the client never hears of its order.
 * {@link GatewaySessionProxy} notes each ResendRequest sent, and after Artio has processed an inbound message the
 * gateway counts a ResendRequest Artio did not.
 * <p>
 * Used on the library's thread only (the proxy is called from Artio's session handling, which the gateway polls).
 */
final class ResendRequestNumbers
{
    private static final long NONE = -1;

    private final Long2LongHashMap lastByConnectionId = new Long2LongHashMap(NONE);

    void onSent(final long connectionId, final int msgSeqNum)
    {
        lastByConnectionId.put(connectionId, msgSeqNum);
    }

    /**
     * Count the session's last ResendRequest as sent when Artio has not: when it is the number after the last Artio
     * counts.
     *
     * @return whether the count was corrected.
     */
    @SuppressWarnings("deprecation") // Artio's setter is in memory only; the ResendRequest itself is in its archive.
    boolean countIfUncounted(final Session session)
    {
        final long msgSeqNum = lastByConnectionId.get(session.connectionId());
        if (msgSeqNum != NONE && msgSeqNum == session.lastSentMsgSeqNum() + 1L)
        {
            session.lastSentMsgSeqNum((int)msgSeqNum);
            return true;
        }
        return false;
    }

    void onDisconnect(final long connectionId)
    {
        lastByConnectionId.remove(connectionId);
    }
}
