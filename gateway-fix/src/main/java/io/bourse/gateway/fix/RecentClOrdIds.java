package io.bourse.gateway.fix;

import org.agrona.IoUtil;
import org.agrona.collections.LongArrayQueue;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The ClOrdIDs (by hash) a session used most recently, up to a limit: what tells a PossDup resend of an order already
 * taken from a new order. Bounded, because a session that sends orders for weeks would otherwise keep every ClOrdID
 * it ever used (about 1.4 GB a day at 1,000 orders a second), and each doubling of the set would stall the gateway's
 * thread while it rehashes. A resend comes soon after the original (the counterparty resends what the gateway asked
 * for again after a gap or a restart), so the most recent ones are the ones that matter; the ClOrdIDs of open orders
 * are checked against the open orders themselves, however old.
 * <p>
 * Kept in a file too ({@link #keepIn}), so that a restarted gateway still knows them: a resend after a restart of an
 * order that closed before it is not executed again. The file is memory-mapped, a ring of the hashes behind a count of
 * those added and the time they were last cleared (the trading day they belong to): an add is two stores, no system
 * call, and the page cache keeps them across a crash of the process (an add cut short by one loses only itself, and
 * the order it is about is then recorded as pending in the open-order record). The count is stored after the hash,
 * so it never covers a slot not yet written.
 */
final class RecentClOrdIds implements AutoCloseable
{
    private static final int COUNT_OFFSET = 0;
    private static final int CLEARED_AT_OFFSET = Long.BYTES;
    private static final int RING_OFFSET = 2 * Long.BYTES;

    /**
     * The ClOrdIDs kept per session: 100,000 take about 3 MB.
     */
    static final int DEFAULT_CAPACITY = 100_000;

    private final int capacity;
    private final LongHashSet hashes = new LongHashSet();
    private final LongArrayQueue oldestFirst = new LongArrayQueue(Long.MIN_VALUE);
    private MappedByteBuffer mapped;
    private UnsafeBuffer file;
    private long added;

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

    /**
     * Take back the ClOrdIDs a file holds (none when it does not exist, or when it was last cleared before the trading
     * day began: they were an earlier day's), and keep every one added from now on in it. A file made for another
     * capacity is read, and made again for this one with the most recent of them.
     *
     * @param tradingDayStartMs when the current trading day began (the last end of day), epoch ms; Long.MIN_VALUE
     *                          when there are no trading days.
     * @param nowMs             the time now, epoch ms: when a file made now was last cleared.
     */
    void keepIn(final File path, final long tradingDayStartMs, final long nowMs)
    {
        final long length = RING_OFFSET + (long)capacity * Long.BYTES;
        long clearedAtMs = nowMs;
        if (path.exists())
        {
            final MappedByteBuffer existing =
                IoUtil.mapExistingFile(path, FileChannel.MapMode.READ_WRITE, "FIX session ClOrdIDs");
            final UnsafeBuffer buffer = new UnsafeBuffer(existing);
            final int slots = (buffer.capacity() - RING_OFFSET) / Long.BYTES;
            final boolean sameDay = slots >= 1 && buffer.getLong(CLEARED_AT_OFFSET) >= tradingDayStartMs;
            final long count = sameDay ? buffer.getLong(COUNT_OFFSET) : 0;
            for (long i = Math.max(0, count - slots); i < count; i++)
            {
                add(buffer.getLong(RING_OFFSET + (int)(i % slots) * Long.BYTES));
            }
            if (existing.capacity() == length)
            {
                mapped = existing;
                file = buffer;
                added = count;
                if (!sameDay)
                {
                    clear(nowMs);
                }
                return;
            }
            if (sameDay)
            {
                clearedAtMs = buffer.getLong(CLEARED_AT_OFFSET);
            }
            IoUtil.unmap(existing);
            IoUtil.delete(path, false);
        }
        mapped = IoUtil.mapNewFile(path, length);
        file = new UnsafeBuffer(mapped);
        file.putLong(CLEARED_AT_OFFSET, clearedAtMs);
        oldestFirst.forEachLong(this::store);
    }

    void add(final long clOrdIdHash)
    {
        if (hashes.add(clOrdIdHash))
        {
            oldestFirst.addLong(clOrdIdHash);
            if (file != null)
            {
                store(clOrdIdHash);
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
        if (file != null)
        {
            added = 0;
            file.putLongOrdered(COUNT_OFFSET, 0);
            file.putLongOrdered(CLEARED_AT_OFFSET, nowMs);
        }
    }

    public void close()
    {
        if (mapped != null)
        {
            IoUtil.unmap(mapped);
            mapped = null;
            file = null;
        }
    }

    private void store(final long clOrdIdHash)
    {
        file.putLong(RING_OFFSET + (int)(added % capacity) * Long.BYTES, clOrdIdHash);
        added++;
        file.putLongOrdered(COUNT_OFFSET, added);
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
