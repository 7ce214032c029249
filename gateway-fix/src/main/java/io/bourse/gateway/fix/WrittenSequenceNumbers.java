package io.bourse.gateway.fix;

import org.agrona.DirectBuffer;
import uk.co.real_logic.artio.engine.MessageTimingHandler;

import java.util.Arrays;

/**
 * The highest MsgSeqNum Artio's framer has written to each session's socket, kept in a file per session
 * ({@link FixSessionState#written}), so that a gateway restarted after a kill never sends a number again that the
 * counterparty may already have had.
 * <p>
 * Why: Artio's framer writes a message to the socket while its archive records the same stream beside it, and a
 * restarted Artio knows only what was recorded. After a kill -9 it numbered its next messages from the last one
 * recorded, reusing numbers its framer had already written; the counterparty refused them ("MsgSeqNum too low") and
 * logged out at each logon until Artio's numbers passed its own. With this record the session goes on after the
 * last number written ({@link #lastWrittenBefore}), the numbers in between filled in Artio's log (see
 * {@code FixGatewayAgent#continueAfterWritten}): a resend of them is a gap fill. Nothing is lost by it: a report Artio
 * never recorded was not recorded as delivered either ({@link AfterArchive}), so the restarted gateway sends it again
 * under a new number.
 * <p>
 * Threads: {@link #onMessage} runs on the framer's thread for every message written: a scan of the few connections
 * tracked and, for a new highest number, a record of a few stores into the session's memory-mapped file (no system
 * call; the page cache keeps it across a crash of the process). The framer is the only writer of the files once the
 * gateway runs. The rest runs on the library's thread, which publishes the connections tracked as a new array.
 */
final class WrittenSequenceNumbers implements MessageTimingHandler
{
    private static final Connection[] NONE = new Connection[0];

    private final MessageTimingHandler next;
    private volatile Connection[] connections = NONE;

    /**
     * @param next told of every message written, after this.
     */
    WrittenSequenceNumbers(final MessageTimingHandler next)
    {
        this.next = next;
    }

    /**
     * @param record         the session's file, as opened at start: what an earlier run of the gateway wrote.
     * @param sequenceIndex  Artio's sequence index for the session now.
     * @param lastSent       the last MsgSeqNum Artio counts as sent in it.
     * @return the last MsgSeqNum an earlier run wrote to the session's socket in that sequence index, when it is
     * beyond {@code lastSent} (Artio would send those numbers again); -1 otherwise.
     */
    static int lastWrittenBefore(final FixEventPosition record, final int sequenceIndex, final int lastSent)
    {
        return record.isRecorded() && record.batchSequence() == sequenceIndex && record.logPosition() > lastSent ?
            (int)record.logPosition() : -1;
    }

    /**
     * Record the numbers written on a session's connection from now on, in its sequence index (library thread: when
     * the session is acquired, before its Logon is answered).
     */
    void track(final long connectionId, final FixEventPosition record, final int sequenceIndex)
    {
        final Connection[] current = connections;
        final Connection[] updated = Arrays.copyOf(current, current.length + 1);
        updated[current.length] = new Connection(connectionId, record, sequenceIndex);
        connections = updated;
    }

    /**
     * The session's numbers start again in a new sequence index (a Logon with ResetSeqNumFlag, sent next).
     */
    void sequenceIndex(final long connectionId, final int sequenceIndex)
    {
        final Connection connection = find(connections, connectionId);
        if (connection != null)
        {
            connection.sequenceIndex = sequenceIndex;
        }
    }

    /**
     * Stop tracking a connection that has closed.
     */
    void untrack(final long connectionId)
    {
        final Connection[] current = connections;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i].connectionId == connectionId)
            {
                final Connection[] updated = new Connection[current.length - 1];
                System.arraycopy(current, 0, updated, 0, i);
                System.arraycopy(current, i + 1, updated, i, current.length - i - 1);
                connections = updated;
                return;
            }
        }
    }

    public void onMessage(
        final long sequenceNumber,
        final long connectionId,
        final DirectBuffer metaDataBuffer,
        final int metaDataOffset,
        final int metaDataLength)
    {
        final Connection connection = find(connections, connectionId);
        if (connection != null)
        {
            connection.onWritten((int)sequenceNumber);
        }
        next.onMessage(sequenceNumber, connectionId, metaDataBuffer, metaDataOffset, metaDataLength);
    }

    private static Connection find(final Connection[] connections, final long connectionId)
    {
        for (final Connection connection : connections)
        {
            if (connection.connectionId == connectionId)
            {
                return connection;
            }
        }
        return null;
    }

    private static final class Connection
    {
        final long connectionId;
        final FixEventPosition record;
        /**
         * Set by the library's thread, read by the framer's.
         */
        volatile int sequenceIndex;
        /**
         * The framer's own: the sequence index of {@link #highest}, and the highest number written in it (resends
         * write lower ones again).
         */
        private int highestSequenceIndex;
        private int highest;

        Connection(final long connectionId, final FixEventPosition record, final int sequenceIndex)
        {
            this.connectionId = connectionId;
            this.record = record;
            this.sequenceIndex = sequenceIndex;
            this.highestSequenceIndex = sequenceIndex;
        }

        void onWritten(final int msgSeqNum)
        {
            final int index = sequenceIndex;
            if (index != highestSequenceIndex)
            {
                highestSequenceIndex = index;
                highest = 0;
            }
            if (msgSeqNum > highest)
            {
                highest = msgSeqNum;
                record.record(index, msgSeqNum);
            }
        }
    }
}
