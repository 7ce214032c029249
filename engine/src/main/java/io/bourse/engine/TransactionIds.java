package io.bourse.engine;

import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongLongConsumer;

/**
 * The deposit and withdrawal ids an engine has applied, kept for ever so that a repeated transfer is never applied
 * twice, however late it comes.
 * <p>
 * Kept as a bit per id in blocks of 64 consecutive ids, because a treasury system numbers its transfers in sequence:
 * a million ids in sequence take about 16,000 blocks (a few hundred KB of memory and snapshot) where a hash set of
 * the ids took 16 MB and grew the snapshot by 8 bytes an id. An id far from any other costs a block of its own,
 * about what a hash set entry cost.
 */
final class TransactionIds
{
    /**
     * A block's bits are never all clear, so the map's missing value can be 0.
     */
    private final Long2LongHashMap blocks = new Long2LongHashMap(0L);

    /**
     * @param transactionId positive.
     */
    boolean contains(final long transactionId)
    {
        return (blocks.get(transactionId >>> 6) & (1L << transactionId)) != 0;
    }

    /**
     * @param transactionId positive.
     */
    void add(final long transactionId)
    {
        final long block = transactionId >>> 6;
        final long bits = blocks.get(block);
        final long bit = 1L << transactionId;
        if ((bits & bit) == 0)
        {
            blocks.put(block, bits | bit);
        }
    }

    /**
     * Add a block's ids as a snapshot recorded them.
     *
     * @throws IllegalStateException when the block is not a valid one or is already present.
     */
    void addBlock(final long block, final long bits)
    {
        if (block < 0 || block > Long.MAX_VALUE >>> 6 || bits == 0 || (block == 0 && (bits & 1) != 0))
        {
            throw new IllegalStateException("invalid transaction id block " + block + ": " + Long.toHexString(bits));
        }
        if (blocks.put(block, bits) != 0)
        {
            throw new IllegalStateException("transaction id block " + block + " recorded twice");
        }
    }

    /**
     * @return the bits of a block (see {@link #forEachBlock}), 0 when none of its ids was applied.
     */
    long bits(final long block)
    {
        return blocks.get(block);
    }

    /**
     * @return how many blocks hold them.
     */
    int blockCount()
    {
        return blocks.size();
    }

    /**
     * Visit every block, in no particular order: the block's ids are {@code block * 64} to {@code block * 64 + 63},
     * and bit {@code i} of {@code bits} is set when id {@code block * 64 + i} was applied.
     */
    void forEachBlock(final LongLongConsumer visitor)
    {
        blocks.forEachLong(visitor);
    }
}
