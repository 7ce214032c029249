package io.bourse.engine;

/**
 * Orders resting at one price on one side, in time priority (head first), with their aggregate.
 */
final class PriceLevel
{
    long price;
    long quantity;
    int orderCount;
    Order head;
    Order tail;
    /** Link in the book's pool of unused levels. */
    PriceLevel nextFree;
}
