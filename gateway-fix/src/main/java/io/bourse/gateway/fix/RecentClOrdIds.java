package io.bourse.gateway.fix;

import org.agrona.collections.LongArrayQueue;
import org.agrona.collections.LongHashSet;

import java.io.File;

/**
 * The ClOrdIDs (by hash) a session used most recently, up to a limit: what tells a PossDup resend of an order already
 * taken from a new order. Bounded, because a session that sends orders for weeks would otherwise keep every ClOrdID
 * it ever used (about 1.4 GB a day at 1,000 orders a second), and each doubling of the set would stall the gateway's
 * thread while it rehashes. A resend comes soon after the original (the counterparty resends what the gateway asked
 * for again after a gap or a restart), so the most recent ones are the ones that matter; the ClOrdIDs of open orders
 * are checked against the open orders themselves, however old.
 * <p>
 * Kept in a file too ({@link #keepIn}, a {@link MappedRing} of the hashes), so that a restarted gateway still knows
 * them: a resend after a restart of an order that closed before it is not executed again. An add is two stores, no
 * system call (an add cut short by a crash loses only itself, and the order it is about is then recorded as pending in
 * the open-order record).
 */
final class RecentClOrdIds implements AutoCloseable
{
    /**
     * The ClOrdIDs kept per session: 100,000 take about 3 MB.
     */
    static final int DEFAULT_CAPACITY = 100_000;

    private final int capacity;
    private final LongHashSet hashes = new LongHashSet();
    private final LongArrayQueue oldestFirst = new LongArrayQueue(Long.MIN_VALUE);
    private final MappedRing ring;

    RecentClOrdIds()
    {
        this(DEFAULT_CAPACITY);
    }

    /**
     * @param capacity how many are kept; the oldest goes when one more comes.
     */
    RecentClOrdIds(final int capacity)
    {
        ring = new MappedRing(Long.BYTES, capacity);
        this.capacity = capacity;
    }

    /**
     * Take back the ClOrdIDs a file holds (see {@link MappedRing#open}), and keep every one added from now on in it.
     */
    void keepIn(final File path, final long tradingDayStartMs, final long nowMs)
    {
        ring.open(path, "FIX session ClOrdIDs", tradingDayStartMs, nowMs, (buffer, offset) -> add(buffer.getLong(offset)));
    }

    void add(final long clOrdIdHash)
    {
        if (hashes.add(clOrdIdHash))
        {
            oldestFirst.addLong(clOrdIdHash);
            if (ring.isOpen())
            {
                ring.buffer().putLong(ring.nextSlot(), clOrdIdHash);
                ring.added();
            }
            if (oldestFirst.size() > capacity)
            {
                hashes.remove(oldestFirst.pollLong());
            }
        }
    }

    /**
     * Forget them all: a new trading day, in which ClOrdIDs need be unique only among themselves.
     *
     * @param nowMs the time now, epoch ms: the file's trading day begins then.
     */
    void clear(final long nowMs)
    {
        hashes.clear();
        oldestFirst.clear();
        ring.clear(nowMs);
    }

    public void close()
    {
        ring.close();
    }

    boolean contains(final long clOrdIdHash)
    {
        return hashes.contains(clOrdIdHash);
    }

    int size()
    {
        return hashes.size();
    }
}
