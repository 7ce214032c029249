package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.builder.ExecutionReportEncoder;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;
import uk.co.real_logic.artio.session.Session;

import java.util.ArrayDeque;

/**
 * A configured session's live state: its Artio session while logged on, its open orders by ClOrdID, the
 * ClOrdIDs it has used since the gateway started (so that a PossDup resend is not executed twice), and the reports
 * held for it while it is away.
 */
final class FixSessionState
{
    final FixSessionSpec spec;
    final char[] accountChars;
    final Long2ObjectHashMap<FixOrder> openOrdersByClOrdId = new Long2ObjectHashMap<>();
    final LongHashSet usedClOrdIds = new LongHashSet();
    /**
     * ExecutionReports of its orders made while the session was not logged on (fills of resting orders, the cancels of
     * cancel-on-disconnect, expiries), oldest first: sent when it logs on again.
     */
    final ArrayDeque<ExecutionReportEncoder> heldReports = new ArrayDeque<>();
    /**
     * Cancel-on-disconnect of single orders in progress: the open orders whose cancel is not yet sent (the client's
     * buffer of unanswered commands can fill part way through a large session's orders).
     */
    final ArrayDeque<FixOrder> ordersToCancelOnDisconnect = new ArrayDeque<>();
    boolean cancelingOnDisconnect;
    Session session;
    long cancelOnDisconnectDeadlineNs = Long.MAX_VALUE;

    FixSessionState(final FixSessionSpec spec)
    {
        this.spec = spec;
        this.accountChars = Long.toString(spec.accountId()).toCharArray();
    }

    FixOrder findOpen(final char[] clOrdId, final int length)
    {
        final FixOrder order = openOrdersByClOrdId.get(FixOrder.hash(clOrdId, length));
        return order != null && order.clOrdIdEquals(clOrdId, length) ? order : null;
    }

    boolean isLoggedOn()
    {
        return session != null && session.isConnected();
    }
}
