package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.builder.ExecutionReportEncoder;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.collections.LongArrayQueue;
import org.agrona.collections.LongHashSet;
import uk.co.real_logic.artio.session.Session;

import java.util.ArrayDeque;

/**
 * A configured session's live state: its Artio session while logged on, its open orders by ClOrdID, the
 * ClOrdIDs it has used since the gateway started (so that a PossDup resend is not executed twice), the reports
 * held for it while it is away, and the last event batch it was sent a report from (kept across restarts).
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
     * The batch sequence each held report was made from and its number among the session's reports of that batch (from
     * 1), two values per report, in step with {@link #heldReports}: what the session has been sent once it is.
     */
    final LongArrayQueue heldBatches = new LongArrayQueue(Long.MIN_VALUE);
    /**
     * Orders closed while reports were held for the session: their CLOSED records wait until the reports are sent,
     * so that a gateway restarted meanwhile still knows the orders when the replay makes their reports again.
     */
    final LongArrayList closedWhileHeld = new LongArrayList();
    /**
     * While reports are held: the batch before the one the first of them was made from, where a restarted gateway's
     * replay of the cluster's events must begin for them to be made again (they live in memory only); -1 otherwise.
     */
    long heldAfterBatchSequence = -1;
    long heldAfterLogPosition;
    /**
     * The last report this session was sent: the batch it was made from and its number among the session's reports of
     * that batch (from 1), kept in a file (whose position field holds the number), so that after a restart the
     * replay's reports up to it are not sent again. A batch's reports for a session are made in the same order each
     * time it is handled.
     */
    final FixEventPosition delivered;
    long sentBatchSequence;
    long sentInBatch;
    /**
     * The batch the session's last report was made from in this run, and how many it has had from it.
     */
    long reportBatchSequence = Long.MIN_VALUE;
    long reportsInBatch;
    /**
     * Cancel-on-disconnect of single orders in progress: the open orders whose cancel is not yet sent (the client's
     * buffer of unanswered commands can fill part way through a large session's orders).
     */
    final ArrayDeque<FixOrder> ordersToCancelOnDisconnect = new ArrayDeque<>();
    boolean cancelingOnDisconnect;
    Session session;
    long cancelOnDisconnectDeadlineNs = Long.MAX_VALUE;

    FixSessionState(final FixSessionSpec spec, final FixEventPosition delivered)
    {
        this.spec = spec;
        this.accountChars = Long.toString(spec.accountId()).toCharArray();
        this.delivered = delivered;
        this.sentBatchSequence = delivered.batchSequence();
        this.sentInBatch = delivered.logPosition();
    }

    /**
     * Number the session's next report of a batch being handled.
     *
     * @return its number among the session's reports of that batch, from 1.
     */
    long numberReport(final long batchSequence)
    {
        if (reportBatchSequence != batchSequence)
        {
            reportBatchSequence = batchSequence;
            reportsInBatch = 0;
        }
        return ++reportsInBatch;
    }

    /**
     * @return whether the session was sent this report of a batch before (in this run or the one before a restart).
     */
    boolean wasSent(final long batchSequence, final long number)
    {
        return batchSequence < sentBatchSequence || batchSequence == sentBatchSequence && number <= sentInBatch;
    }

    /**
     * The session was sent this report of a batch.
     */
    void sent(final long batchSequence, final long number)
    {
        sentBatchSequence = batchSequence;
        sentInBatch = number;
        delivered.record(batchSequence, number);
    }

    /**
     * The name of the file that keeps a session's last batch, from its SenderCompID: letters, digits, '-' and '_'
     * as they are, any other character as '%' and its four hex digits.
     */
    static String deliveredFileName(final String senderCompId)
    {
        final StringBuilder name = new StringBuilder("session-");
        for (int i = 0; i < senderCompId.length(); i++)
        {
            final char c = senderCompId.charAt(i);
            if (c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_'))
            {
                name.append(c);
            }
            else
            {
                name.append('%').append(String.format("%04x", (int)c));
            }
        }
        return name.append("-delivered.dat").toString();
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
