package io.bourse.engine;

import io.bourse.protocol.codec.Side;

import java.util.Arrays;

/**
 * The untriggered stop orders of one side of an instrument, in trigger order: buy stops by stop price ascending (the
 * lowest is reached first by a rising price), sell stops by stop price descending, the earliest accepted first at one
 * stop price.
 * <p>
 * Kept in an array with the next to trigger last, so that triggering removes from the end; entering or canceling one
 * moves the orders after it. Venues hold hundreds of stops per instrument, not the book's millions, and the array
 * allocates nothing once grown.
 */
final class StopOrders
{
    private final boolean buy;
    private Order[] orders = new Order[8];
    private int count;

    StopOrders(final Side side)
    {
        this.buy = side == Side.BUY;
    }

    int size()
    {
        return count;
    }

    /**
     * @return the stop order that triggers next, or null when there is none.
     */
    Order next()
    {
        return count == 0 ? null : orders[count - 1];
    }

    /**
     * @return the i-th in trigger order, 0 being the next to trigger.
     */
    Order get(final int i)
    {
        return orders[count - 1 - i];
    }

    /**
     * @return whether a trade at {@code lastTradePrice} triggers a stop order of this side at {@code stopPrice}.
     */
    boolean triggers(final long stopPrice, final long lastTradePrice)
    {
        return buy ? lastTradePrice >= stopPrice : lastTradePrice <= stopPrice;
    }

    void add(final Order order)
    {
        if (count == orders.length)
        {
            orders = Arrays.copyOf(orders, count * 2);
        }
        final int index = insertionIndex(order);
        System.arraycopy(orders, index, orders, index + 1, count - index);
        orders[index] = order;
        count++;
    }

    void remove(final Order order)
    {
        // An order already in compares as triggering neither before nor after itself: its own index is found.
        final int index = insertionIndex(order);
        if (index == count || orders[index] != order)
        {
            throw new IllegalStateException("stop order " + order.orderId + " is not among the stops");
        }
        System.arraycopy(orders, index + 1, orders, index, count - index - 1);
        orders[--count] = null;
    }

    /**
     * @return where the order goes: every order before that index triggers after it, every one from it on before.
     */
    private int insertionIndex(final Order order)
    {
        int low = 0;
        int high = count;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            if (triggersBefore(order, orders[mid]))
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    /**
     * Check that the orders are in trigger order, throwing {@link IllegalStateException} when not. For tests.
     */
    void validate()
    {
        for (int i = 0; i + 1 < count; i++)
        {
            if (!triggersBefore(orders[i + 1], orders[i]))
            {
                throw new IllegalStateException(
                    "stop orders " + orders[i + 1].orderId + " and " + orders[i].orderId + " out of trigger order");
            }
        }
    }

    private boolean triggersBefore(final Order a, final Order b)
    {
        if (a.stopPrice != b.stopPrice)
        {
            return buy ? a.stopPrice < b.stopPrice : a.stopPrice > b.stopPrice;
        }
        return a.orderId < b.orderId;
    }
}
