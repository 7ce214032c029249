package io.bourse.engine;

import java.util.Arrays;

/**
 * GTD orders by expiry time: a binary min-heap ordered by (expiry, order id) so that orders due at the same
 * time expire in a stable order on every replay. Each order remembers its heap slot, so a cancel or fill
 * removes it in O(log n) without leaving stale entries behind.
 */
final class ExpiryQueue
{
    private Order[] heap = new Order[64];
    private int size;

    int size()
    {
        return size;
    }

    Order peek()
    {
        return size == 0 ? null : heap[0];
    }

    void add(final Order order)
    {
        if (size == heap.length)
        {
            heap = Arrays.copyOf(heap, size * 2);
        }
        heap[size] = order;
        order.expiryIndex = size;
        size++;
        siftUp(order.expiryIndex);
    }

    void remove(final Order order)
    {
        final int index = order.expiryIndex;
        order.expiryIndex = -1;
        size--;
        if (index == size)
        {
            heap[size] = null;
            return;
        }
        final Order last = heap[size];
        heap[size] = null;
        heap[index] = last;
        last.expiryIndex = index;
        siftDown(index);
        siftUp(last.expiryIndex);
    }

    private static boolean before(final Order a, final Order b)
    {
        return a.expiryTimeNs < b.expiryTimeNs || (a.expiryTimeNs == b.expiryTimeNs && a.orderId < b.orderId);
    }

    private void siftUp(final int start)
    {
        int index = start;
        final Order order = heap[index];
        while (index > 0)
        {
            final int parent = (index - 1) >>> 1;
            final Order parentOrder = heap[parent];
            if (!before(order, parentOrder))
            {
                break;
            }
            heap[index] = parentOrder;
            parentOrder.expiryIndex = index;
            index = parent;
        }
        heap[index] = order;
        order.expiryIndex = index;
    }

    private void siftDown(final int start)
    {
        int index = start;
        final Order order = heap[index];
        final int half = size >>> 1;
        while (index < half)
        {
            int child = 2 * index + 1;
            final int right = child + 1;
            if (right < size && before(heap[right], heap[child]))
            {
                child = right;
            }
            if (!before(heap[child], order))
            {
                break;
            }
            heap[index] = heap[child];
            heap[index].expiryIndex = index;
            index = child;
        }
        heap[index] = order;
        order.expiryIndex = index;
    }
}
