package io.bourse.engine;

/**
 * GTD orders by expiry time, ordered by (expiry, order id) so that orders due at the same time expire in a stable
 * order on every replay. Each order remembers its heap slot, so a cancel or fill removes it in O(log n).
 */
final class ExpiryQueue extends IndexedHeap<Order>
{
    ExpiryQueue()
    {
        super(new Order[64]);
    }

    boolean before(final Order a, final Order b)
    {
        return a.expiryTimeNs < b.expiryTimeNs || (a.expiryTimeNs == b.expiryTimeNs && a.orderId < b.orderId);
    }

    int index(final Order order)
    {
        return order.expiryIndex;
    }

    void index(final Order order, final int index)
    {
        order.expiryIndex = index;
    }
}
