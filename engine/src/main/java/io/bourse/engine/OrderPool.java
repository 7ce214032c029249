package io.bourse.engine;

/**
 * Recycles {@link Order} objects so that steady-state matching allocates nothing.
 */
final class OrderPool
{
    private Order free;

    OrderPool(final int preallocate)
    {
        for (int i = 0; i < preallocate; i++)
        {
            release(new Order());
        }
    }

    Order acquire()
    {
        final Order order = free;
        if (order == null)
        {
            return new Order();
        }
        free = order.next;
        order.next = null;
        return order;
    }

    void release(final Order order)
    {
        order.clear();
        order.next = free;
        free = order;
    }
}
