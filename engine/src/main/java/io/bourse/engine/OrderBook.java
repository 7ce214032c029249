package io.bourse.engine;

import io.bourse.protocol.codec.Side;

/**
 * The resting orders of one instrument, both sides, in price-time priority.
 * <p>
 * A book only keeps order and level bookkeeping straight: the engine decides what to match, fill or
 * cancel. After each mutation {@link #levelQuantity()} and {@link #levelOrderCount()} describe the
 * price level that the mutation touched, so the engine can publish it without another lookup.
 */
interface OrderBook
{
    /**
     * Append the order at the back of its price level (creating the level if needed).
     */
    void add(Order order);

    /**
     * Take the order out of the book.
     */
    void remove(Order order);

    /**
     * The order's remaining quantity has already been lowered by {@code quantityDelta}; the order keeps its place.
     */
    void reduced(Order order, long quantityDelta);

    /**
     * @return the first order in priority on the side, or null when the side is empty.
     */
    Order best(Side side);

    /**
     * @return the order after the given one in priority on its side, or null when it is the last.
     */
    Order next(Order order);

    long levelQuantity();

    int levelOrderCount();

    int levelCount(Side side);

    int orderCount();

    /**
     * Copy up to {@code maxLevels} levels of a side, best first.
     *
     * @return the number of levels copied.
     */
    int depth(Side side, int maxLevels, long[] prices, long[] quantities, int[] orderCounts);

    /**
     * Check every internal invariant, throwing {@link IllegalStateException} with a description when one fails.
     * For tests and diagnostics, not for the matching path.
     */
    void validate();
}
