package io.bourse.gateway.fix;

import org.agrona.collections.LongArrayQueue;
import org.agrona.collections.LongHashSet;

/**
 * The ClOrdIDs (by hash) a session used most recently, up to a limit: what tells a PossDup resend of an order already
 * taken from a new order. Bounded, because a session that sends orders for weeks would otherwise keep every ClOrdID
 * it ever used (about 1.4 GB a day at 1,000 orders a second), and each doubling of the set would stall the gateway's
 * thread while it rehashes. A resend comes soon after the original (the counterparty resends what the gateway asked
 * for again after a gap or a restart), so the most recent ones are the ones that matter; the ClOrdIDs of open orders
 * are checked against the open orders themselves, however old.
 */
final class RecentClOrdIds
{
    /**
     * The ClOrdIDs kept per session: 100,000 take about 3 MB.
     */
    static final int DEFAULT_CAPACITY = 100_000;

    private final int capacity;
    private final LongHashSet hashes = new LongHashSet();
    private final LongArrayQueue oldestFirst = new LongArrayQueue(Long.MIN_VALUE);

    RecentClOrdIds()
    {
        this(DEFAULT_CAPACITY);
    }

    /**
     * @param capacity how many are kept; the oldest goes when one more comes.
     */
    RecentClOrdIds(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
    }

    void add(final long clOrdIdHash)
    {
        if (hashes.add(clOrdIdHash))
        {
            oldestFirst.addLong(clOrdIdHash);
            if (oldestFirst.size() > capacity)
            {
                hashes.remove(oldestFirst.pollLong());
            }
        }
    }

    /**
     * Forget them all: a new trading day, in which ClOrdIDs need be unique only among themselves.
     */
    void clear()
    {
        hashes.clear();
        oldestFirst.clear();
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
