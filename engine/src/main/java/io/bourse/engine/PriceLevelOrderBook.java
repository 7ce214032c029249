package io.bourse.engine;

import io.bourse.protocol.codec.Side;

/**
 * The engine's order book: per side, a sorted array of price levels with the best level at the end,
 * each level an intrusive doubly linked list of orders.
 * <p>
 * Why an array: activity concentrates near the top of the book, where inserting or removing a level
 * moves only the few entries above it, and a price's level is found by binary search over a dense
 * {@code long[]} of keys rather than by chasing tree nodes. Keys are the price for bids and the negated
 * price for asks, so that for both sides a larger key is a better price.
 */
final class PriceLevelOrderBook implements OrderBook
{
    private static final int INITIAL_LEVELS = 1024;

    private final BookSide bids = new BookSide(true);
    private final BookSide asks = new BookSide(false);
    private PriceLevel freeLevels;
    private long levelQuantity;
    private int levelOrderCount;
    private int orderCount;

    PriceLevelOrderBook()
    {
        for (int i = 0; i < INITIAL_LEVELS; i++)
        {
            releaseLevel(new PriceLevel());
        }
    }

    public void add(final Order order)
    {
        final BookSide side = side(order.side);
        final long key = side.key(order.price);
        int index = side.search(key);
        final PriceLevel level;
        if (index >= 0)
        {
            level = side.levels[index];
        }
        else
        {
            index = -index - 1;
            level = acquireLevel(order.price);
            side.insert(index, key, level);
        }

        order.level = level;
        order.next = null;
        order.prev = level.tail;
        if (level.tail == null)
        {
            level.head = order;
        }
        else
        {
            level.tail.next = order;
        }
        level.tail = order;
        level.quantity += order.remainingQuantity();
        level.orderCount++;
        orderCount++;
        publishLevel(level);
    }

    public void remove(final Order order)
    {
        final PriceLevel level = order.level;
        if (order.prev == null)
        {
            level.head = order.next;
        }
        else
        {
            order.prev.next = order.next;
        }
        if (order.next == null)
        {
            level.tail = order.prev;
        }
        else
        {
            order.next.prev = order.prev;
        }
        level.quantity -= order.remainingQuantity();
        level.orderCount--;
        orderCount--;
        order.prev = null;
        order.next = null;
        order.level = null;
        publishLevel(level);

        if (level.orderCount == 0)
        {
            final BookSide side = side(order.side);
            side.removeAt(side.indexOf(level));
            releaseLevel(level);
        }
    }

    public void reduced(final Order order, final long quantityDelta)
    {
        final PriceLevel level = order.level;
        level.quantity -= quantityDelta;
        publishLevel(level);
    }

    public Order best(final Side side)
    {
        final BookSide bookSide = side(side);
        return bookSide.size == 0 ? null : bookSide.levels[bookSide.size - 1].head;
    }

    public Order next(final Order order)
    {
        if (order.next != null)
        {
            return order.next;
        }
        final BookSide side = side(order.side);
        final int index = side.indexOf(order.level);
        return index > 0 ? side.levels[index - 1].head : null;
    }

    public long levelQuantity()
    {
        return levelQuantity;
    }

    public int levelOrderCount()
    {
        return levelOrderCount;
    }

    public int levelCount(final Side side)
    {
        return side(side).size;
    }

    public int orderCount()
    {
        return orderCount;
    }

    public int depth(final Side side, final int maxLevels, final long[] prices, final long[] quantities, final int[] orderCounts)
    {
        final BookSide bookSide = side(side);
        final int count = Math.min(maxLevels, bookSide.size);
        for (int i = 0; i < count; i++)
        {
            final PriceLevel level = bookSide.levels[bookSide.size - 1 - i];
            prices[i] = level.price;
            quantities[i] = level.quantity;
            orderCounts[i] = level.orderCount;
        }
        return count;
    }

    public void validate()
    {
        int orders = bids.validate() + asks.validate();
        if (orders != orderCount)
        {
            throw new IllegalStateException("order count " + orderCount + " but levels hold " + orders);
        }
        if (bids.size > 0 && asks.size > 0 && bids.levels[bids.size - 1].price >= asks.levels[asks.size - 1].price)
        {
            throw new IllegalStateException("book crossed: bid " + bids.levels[bids.size - 1].price +
                " >= ask " + asks.levels[asks.size - 1].price);
        }
    }

    private BookSide side(final Side side)
    {
        return side == Side.BUY ? bids : asks;
    }

    private void publishLevel(final PriceLevel level)
    {
        levelQuantity = level.quantity;
        levelOrderCount = level.orderCount;
    }

    private PriceLevel acquireLevel(final long price)
    {
        PriceLevel level = freeLevels;
        if (level == null)
        {
            level = new PriceLevel();
        }
        else
        {
            freeLevels = level.nextFree;
            level.nextFree = null;
        }
        level.price = price;
        level.quantity = 0;
        level.orderCount = 0;
        level.head = null;
        level.tail = null;
        return level;
    }

    private void releaseLevel(final PriceLevel level)
    {
        level.head = null;
        level.tail = null;
        level.nextFree = freeLevels;
        freeLevels = level;
    }

    private static final class BookSide
    {
        private final boolean bids;
        private long[] keys = new long[INITIAL_LEVELS];
        private PriceLevel[] levels = new PriceLevel[INITIAL_LEVELS];
        private int size;

        BookSide(final boolean bids)
        {
            this.bids = bids;
        }

        long key(final long price)
        {
            return bids ? price : -price;
        }

        /**
         * Binary search over the sorted keys, searching from the top where most activity is.
         *
         * @return the index of the key, or (-(insertion point) - 1).
         */
        int search(final long key)
        {
            int low = 0;
            int high = size - 1;
            while (low <= high)
            {
                final int mid = (low + high) >>> 1;
                final long midKey = keys[mid];
                if (midKey < key)
                {
                    low = mid + 1;
                }
                else if (midKey > key)
                {
                    high = mid - 1;
                }
                else
                {
                    return mid;
                }
            }
            return -(low + 1);
        }

        int indexOf(final PriceLevel level)
        {
            return search(key(level.price));
        }

        void insert(final int index, final long key, final PriceLevel level)
        {
            if (size == keys.length)
            {
                keys = java.util.Arrays.copyOf(keys, size * 2);
                levels = java.util.Arrays.copyOf(levels, size * 2);
            }
            final int moved = size - index;
            if (moved > 0)
            {
                System.arraycopy(keys, index, keys, index + 1, moved);
                System.arraycopy(levels, index, levels, index + 1, moved);
            }
            keys[index] = key;
            levels[index] = level;
            size++;
        }

        void removeAt(final int index)
        {
            final int moved = size - index - 1;
            if (moved > 0)
            {
                System.arraycopy(keys, index + 1, keys, index, moved);
                System.arraycopy(levels, index + 1, levels, index, moved);
            }
            size--;
            levels[size] = null;
        }

        int validate()
        {
            int orders = 0;
            for (int i = 0; i < size; i++)
            {
                final PriceLevel level = levels[i];
                if (keys[i] != key(level.price))
                {
                    throw new IllegalStateException("level key " + keys[i] + " does not match price " + level.price);
                }
                if (i > 0 && keys[i - 1] >= keys[i])
                {
                    throw new IllegalStateException("levels out of order at " + i);
                }
                long quantity = 0;
                int count = 0;
                Order previous = null;
                for (Order order = level.head; order != null; order = order.next)
                {
                    if (order.prev != previous || order.level != level || order.price != level.price)
                    {
                        throw new IllegalStateException("broken links at order " + order.orderId);
                    }
                    if (order.remainingQuantity() <= 0)
                    {
                        throw new IllegalStateException("order " + order.orderId + " rests with nothing remaining");
                    }
                    quantity += order.remainingQuantity();
                    count++;
                    previous = order;
                }
                if (previous != level.tail || quantity != level.quantity || count != level.orderCount || count == 0)
                {
                    throw new IllegalStateException("level " + level.price + " aggregate wrong: quantity " +
                        level.quantity + " vs " + quantity + ", count " + level.orderCount + " vs " + count);
                }
                orders += count;
            }
            return orders;
        }
    }
}
