package io.bourse.gateway.fix;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's recently closed orders kept in a file ({@link MappedRing}), so that a restarted gateway still answers a
 * cancel, replace or status request of an order that closed before it with the order's final state, "too late", rather
 * than as about an unknown order. Each slot is the OrdStatus the order closed with and the order as the open-order
 * record holds it.
 */
final class RecentlyClosedOrders implements AutoCloseable
{
    /**
     * A closed order read back: its record, and the OrdStatus it closed with (0 when filled, which its quantities show).
     */
    record Closed(FixOrderStore.Entry entry, char closedStatus)
    {
    }

    private static final int SLOT_LENGTH = 2 + FixOrderStore.RECORD_LENGTH;

    private final MappedRing ring;

    /**
     * @param capacity how many are kept; the oldest goes when one more comes.
     */
    RecentlyClosedOrders(final int capacity)
    {
        ring = new MappedRing(SLOT_LENGTH, 2 + FixOrderStore.LEGACY_RECORD_LENGTH, capacity);
    }

    /**
     * Read back the orders a file holds, oldest first (see {@link MappedRing#open}), and keep every one added from now on
     * in it.
     */
    List<Closed> keepIn(final File path, final long tradingDayStartMs, final long nowMs)
    {
        final List<Closed> closed = new ArrayList<>();
        ring.open(path, "FIX session closed orders", tradingDayStartMs, nowMs, (buffer, offset) ->
        {
            // A slot of another layout (a file of an older gateway whose length happens to fit) is not an order.
            if (FixOrderStore.isOrderRecord(buffer, offset + 2))
            {
                closed.add(new Closed(FixOrderStore.read(buffer, offset + 2), buffer.getChar(offset)));
            }
        });
        return closed;
    }

    /**
     * Keep an order that closed, with its final state; nothing when no file is kept.
     */
    void add(final FixOrder order, final String compId)
    {
        if (ring.isOpen())
        {
            final int slot = ring.nextSlot();
            ring.buffer().putChar(slot, order.closedStatus);
            FixOrderStore.encode(ring.buffer(), slot + 2, FixOrderStore.OPEN, compId, order);
            ring.added();
        }
    }

    /**
     * Forget them all: a new trading day.
     */
    void clear(final long nowMs)
    {
        ring.clear(nowMs);
    }

    public void close()
    {
        ring.close();
    }
}
