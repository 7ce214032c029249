package io.bourse.gateway.fix;

import org.agrona.collections.Long2ObjectHashMap;
import uk.co.real_logic.artio.session.Session;

/**
 * The highest MsgSeqNum this gateway has handed to Artio to send on each session, kept in a file per session
 * ({@link FixSessionState#outbound}) and recorded before the message is handed over, so that a gateway restarted after
 * a kill never sends a number again that the counterparty may already have had.
 * <p>
 * Why: Artio's framer writes a message to the socket while its archive records the same stream beside it, and a
 * restarted Artio knows only what was recorded. After a kill -9 it numbered its next messages from the last one
 * recorded, reusing numbers its framer had already written; the counterparty refused them ("MsgSeqNum too low") and
 * logged out at each logon until Artio's numbers passed its own. With this record the session goes on after the last
 * number handed over ({@link Numbers#beyond}), the numbers in between filled in Artio's log (see
 * {@code FixGatewayAgent#continueAfterRecorded}): a resend of them is a gap fill. Nothing is lost by it: a report
 * Artio never recorded was not recorded as delivered either ({@link AfterArchive}), so the restarted gateway sends it
 * again under a new number.
 * <p>
 * Recorded before the message is published, the record is at least every number Artio's framer can have written, and
 * every number Artio's index can hold (its indexer reads the live stream, ahead of the archive, so after a kill its
 * index can hold numbers the archive never recorded: the fillers give each of them a record that points at a message
 * again). Recorded after the framer wrote it (Artio tells each write), it missed a message in about one kill in
 * eighty: a process killed while writing to the socket dies as the write returns, before anything after it runs.
 * <p>
 * Threads: the library's thread only, where the gateway's sends, Artio's session proxy and session acquisitions run.
 * A record is a few stores into a memory-mapped file (no system call; the page cache keeps it across a crash of the
 * process), made only for a number higher than the last.
 */
final class OutboundSequenceNumbers
{
    private final Long2ObjectHashMap<Numbers> connections = new Long2ObjectHashMap<>();

    /**
     * Record the numbers Artio's session proxy sends on a session's connection from now on (when the session is
     * acquired, before its Logon is answered).
     */
    void track(final long connectionId, final Numbers numbers)
    {
        connections.put(connectionId, numbers);
    }

    /**
     * Stop tracking a connection that has closed.
     */
    void untrack(final long connectionId)
    {
        connections.remove(connectionId);
    }

    /**
     * A message numbered {@code msgSeqNum} in {@code sequenceIndex} is about to be handed to Artio for the connection.
     */
    void beforeSend(final long connectionId, final int sequenceIndex, final int msgSeqNum)
    {
        final Numbers numbers = connections.get(connectionId);
        if (numbers != null)
        {
            numbers.beforeSend(sequenceIndex, msgSeqNum);
        }
    }

    /**
     * One session's record: the highest number handed over in its sequence index, in memory and in its file.
     */
    static final class Numbers implements AutoCloseable
    {
        private final FixEventPosition file;
        private int sequenceIndex;
        private int highest;

        /**
         * @param file the session's file, as opened at start: what an earlier run of the gateway handed over.
         */
        Numbers(final FixEventPosition file)
        {
            this.file = file;
            sequenceIndex = file.isRecorded() ? (int)file.batchSequence() : -1;
            highest = (int)file.logPosition();
        }

        /**
         * @param sequenceIndex Artio's sequence index for the session now.
         * @param lastSent      the last MsgSeqNum Artio counts as sent in it.
         * @return the highest number handed over in that sequence index, when it is beyond {@code lastSent} (Artio
         * would send those numbers again: after a kill, Artio counts only what it recorded); -1 otherwise.
         */
        int beyond(final int sequenceIndex, final int lastSent)
        {
            return sequenceIndex == this.sequenceIndex && highest > lastSent ? highest : -1;
        }

        /**
         * The session's next message is about to be handed to Artio (numbered by Artio as it sends it).
         */
        void beforeNextSend(final Session session)
        {
            beforeSend(session.sequenceIndex(), session.lastSentMsgSeqNum() + 1);
        }

        /**
         * A message numbered {@code msgSeqNum} in {@code sequenceIndex} is about to be handed to Artio.
         */
        void beforeSend(final int sequenceIndex, final int msgSeqNum)
        {
            if (sequenceIndex != this.sequenceIndex)
            {
                // A new sequence index (a Logon with ResetSeqNumFlag): its numbers start again.
                this.sequenceIndex = sequenceIndex;
                highest = 0;
            }
            if (msgSeqNum > highest)
            {
                highest = msgSeqNum;
                file.record(sequenceIndex, msgSeqNum);
            }
        }

        public void close()
        {
            file.close();
        }
    }
}
