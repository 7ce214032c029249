package io.bourse.gateway.fix;

/**
 * Records the gateway keeps only once Artio's archive holds every message sent before them, in the order they were
 * made: each waits for a position of the library's outbound stream, the one Artio archives.
 * <p>
 * Why: Artio counts a message as sent, across a restart, only once its archive has recorded it; a report handed to
 * Artio just before the gateway is killed may never be written to the socket nor archived, and the restarted Artio
 * sends its next message under that report's MsgSeqNum. Had the gateway recorded the report as delivered (or moved
 * the point its replay of the cluster's events resumes from past the report's batch, or written its order's CLOSED
 * record), the restart would not make it again, and the client would never hear of its order's acceptance or fill.
 * Held back until archived, those records leave such a report to the replay, which makes it again. One archived but
 * not yet recorded when the gateway stopped is made again as well: its client may get it twice, under one ExecID.
 * <p>
 * A ring of plain arrays, grown only when more records wait than it has room for (an archive far behind); used on the
 * gateway's thread only.
 */
final class AfterArchive
{
    /**
     * What a record does once its messages are archived.
     */
    interface Keeper
    {
        /**
         * @param type    the record's type, as added.
         * @param subject what it is about (a session, an order), or null.
         * @param first   its first value.
         * @param second  its second value.
         */
        void keep(int type, Object subject, long first, long second);
    }

    private static final int INITIAL_CAPACITY = 1024;

    private long[] positions = new long[INITIAL_CAPACITY];
    private int[] types = new int[INITIAL_CAPACITY];
    private Object[] subjects = new Object[INITIAL_CAPACITY];
    private long[] firsts = new long[INITIAL_CAPACITY];
    private long[] seconds = new long[INITIAL_CAPACITY];
    private int head;
    private int size;

    /**
     * Add a record, kept once the outbound stream is archived up to {@code position}.
     */
    void add(final long position, final int type, final Object subject, final long first, final long second)
    {
        if (size == positions.length)
        {
            grow();
        }
        final int index = (head + size) & (positions.length - 1);
        positions[index] = position;
        types[index] = type;
        subjects[index] = subject;
        firsts[index] = first;
        seconds[index] = second;
        size++;
    }

    /**
     * Keep the records whose messages are archived, oldest first.
     *
     * @param archivedPosition how far the outbound stream is archived.
     * @return records kept.
     */
    int keep(final long archivedPosition, final Keeper keeper)
    {
        int kept = 0;
        while (size > 0 && positions[head] <= archivedPosition)
        {
            final Object subject = subjects[head];
            subjects[head] = null;
            final int type = types[head];
            final long first = firsts[head];
            final long second = seconds[head];
            head = (head + 1) & (positions.length - 1);
            size--;
            keeper.keep(type, subject, first, second);
            kept++;
        }
        return kept;
    }

    /**
     * @return records waiting.
     */
    int size()
    {
        return size;
    }

    private void grow()
    {
        final int capacity = positions.length * 2;
        final long[] newPositions = new long[capacity];
        final int[] newTypes = new int[capacity];
        final Object[] newSubjects = new Object[capacity];
        final long[] newFirsts = new long[capacity];
        final long[] newSeconds = new long[capacity];
        for (int i = 0; i < size; i++)
        {
            final int index = (head + i) & (positions.length - 1);
            newPositions[i] = positions[index];
            newTypes[i] = types[index];
            newSubjects[i] = subjects[index];
            newFirsts[i] = firsts[index];
            newSeconds[i] = seconds[index];
        }
        positions = newPositions;
        types = newTypes;
        subjects = newSubjects;
        firsts = newFirsts;
        seconds = newSeconds;
        head = 0;
    }
}
