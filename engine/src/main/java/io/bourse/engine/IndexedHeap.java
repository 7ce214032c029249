package io.bourse.engine;

import java.util.Arrays;

/**
 * A binary min-heap whose entries remember their slot, so that any entry is removed, or moved after its key changed,
 * in O(log n) without leaving stale entries behind. The order must be total (a tie broken by an id) so that entries
 * due at the same time come out in a stable order on every replay.
 *
 * @param <T> the entries.
 */
abstract class IndexedHeap<T>
{
    private T[] heap;
    private int size;

    IndexedHeap(final T[] initial)
    {
        heap = initial;
    }

    /**
     * @return whether {@code a} comes out before {@code b}.
     */
    abstract boolean before(T a, T b);

    /**
     * @return the entry's slot, -1 when it is not in the heap.
     */
    abstract int index(T entry);

    abstract void index(T entry, int index);

    final int size()
    {
        return size;
    }

    final T peek()
    {
        return size == 0 ? null : heap[0];
    }

    final void add(final T entry)
    {
        if (size == heap.length)
        {
            heap = Arrays.copyOf(heap, size * 2);
        }
        heap[size] = entry;
        index(entry, size);
        size++;
        siftUp(index(entry));
    }

    final void remove(final T entry)
    {
        final int index = index(entry);
        index(entry, -1);
        size--;
        if (index == size)
        {
            heap[size] = null;
            return;
        }
        final T last = heap[size];
        heap[size] = null;
        heap[index] = last;
        index(last, index);
        siftDown(index);
        siftUp(index(last));
    }

    /**
     * Move an entry whose key has changed to its place.
     */
    final void update(final T entry)
    {
        siftDown(index(entry));
        siftUp(index(entry));
    }

    private void siftUp(final int start)
    {
        int index = start;
        final T entry = heap[index];
        while (index > 0)
        {
            final int parent = (index - 1) >>> 1;
            final T parentEntry = heap[parent];
            if (!before(entry, parentEntry))
            {
                break;
            }
            heap[index] = parentEntry;
            index(parentEntry, index);
            index = parent;
        }
        heap[index] = entry;
        index(entry, index);
    }

    private void siftDown(final int start)
    {
        int index = start;
        final T entry = heap[index];
        final int half = size >>> 1;
        while (index < half)
        {
            int child = 2 * index + 1;
            final int right = child + 1;
            if (right < size && before(heap[right], heap[child]))
            {
                child = right;
            }
            if (!before(heap[child], entry))
            {
                break;
            }
            heap[index] = heap[child];
            index(heap[index], index);
            index = child;
        }
        heap[index] = entry;
        index(entry, index);
    }
}
