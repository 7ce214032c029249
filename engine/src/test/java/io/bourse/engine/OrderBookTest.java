package io.bourse.engine;

import io.bourse.protocol.codec.Side;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same book-level scenarios against every {@link OrderBook}: the optimised one and the reference oracle.
 */
class OrderBookTest
{
    private long nextOrderId = 1;

    static Stream<Arguments> books()
    {
        return Stream.of(
            Arguments.of("PriceLevelOrderBook", (Supplier<OrderBook>)PriceLevelOrderBook::new),
            Arguments.of("ReferenceOrderBook", (Supplier<OrderBook>)ReferenceOrderBook::new));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("books")
    void emptyBookHasNothing(final String name, final Supplier<OrderBook> factory)
    {
        final OrderBook book = factory.get();
        assertNull(book.best(Side.BUY));
        assertNull(book.best(Side.SELL));
        assertEquals(0, book.orderCount());
        assertEquals(0, book.levelCount(Side.BUY));
        assertEquals(0, book.depth(Side.SELL, 10, new long[10], new long[10], new int[10]));
        book.validate();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("books")
    void bestIsHighestBidAndLowestAskAndAddPublishesTheLevel(final String name, final Supplier<OrderBook> factory)
    {
        final OrderBook book = factory.get();
        final Order lowBid = add(book, Side.BUY, 99, 5);
        final Order highBid = add(book, Side.BUY, 101, 7);
        assertEquals(7, book.levelQuantity());
        assertEquals(1, book.levelOrderCount());
        final Order sameHighBid = add(book, Side.BUY, 101, 3);
        assertEquals(10, book.levelQuantity());
        assertEquals(2, book.levelOrderCount());
        final Order highAsk = add(book, Side.SELL, 110, 1);
        final Order lowAsk = add(book, Side.SELL, 105, 2);

        assertSame(highBid, book.best(Side.BUY));
        assertSame(lowAsk, book.best(Side.SELL));
        assertEquals(List.of(highBid, sameHighBid, lowBid), walk(book, Side.BUY));
        assertEquals(List.of(lowAsk, highAsk), walk(book, Side.SELL));
        assertEquals(5, book.orderCount());
        assertEquals(2, book.levelCount(Side.BUY));
        assertEquals(2, book.levelCount(Side.SELL));
        book.validate();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("books")
    void removeKeepsTheRestInOrderAndDropsEmptyLevels(final String name, final Supplier<OrderBook> factory)
    {
        final OrderBook book = factory.get();
        final Order first = add(book, Side.SELL, 100, 1);
        final Order second = add(book, Side.SELL, 100, 2);
        final Order third = add(book, Side.SELL, 100, 3);
        final Order other = add(book, Side.SELL, 101, 4);

        book.remove(second);
        assertNull(second.level);
        assertEquals(4, book.levelQuantity());
        assertEquals(2, book.levelOrderCount());
        assertEquals(List.of(first, third, other), walk(book, Side.SELL));

        book.remove(first);
        assertSame(third, book.best(Side.SELL));
        book.remove(third);
        assertEquals(0, book.levelQuantity());
        assertEquals(0, book.levelOrderCount());
        assertEquals(1, book.levelCount(Side.SELL));
        assertSame(other, book.best(Side.SELL));
        assertNotNull(other.level);
        assertEquals(1, book.orderCount());
        book.validate();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("books")
    void reducedOrderKeepsItsPlace(final String name, final Supplier<OrderBook> factory)
    {
        final OrderBook book = factory.get();
        final Order first = add(book, Side.BUY, 100, 10);
        final Order second = add(book, Side.BUY, 100, 20);
        first.filledQuantity += 4;
        book.reduced(first, 4);
        assertEquals(26, book.levelQuantity());
        assertEquals(2, book.levelOrderCount());
        first.quantity -= 3;
        book.reduced(first, 3);
        assertEquals(23, book.levelQuantity());
        assertEquals(List.of(first, second), walk(book, Side.BUY));
        book.validate();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("books")
    void depthCopiesBestLevelsFirst(final String name, final Supplier<OrderBook> factory)
    {
        final OrderBook book = factory.get();
        add(book, Side.BUY, 98, 1);
        add(book, Side.BUY, 100, 2);
        add(book, Side.BUY, 100, 3);
        add(book, Side.BUY, 99, 4);
        final long[] prices = new long[2];
        final long[] quantities = new long[2];
        final int[] orderCounts = new int[2];
        assertEquals(2, book.depth(Side.BUY, 2, prices, quantities, orderCounts));
        assertArrayEquals(new long[]{ 100, 99 }, prices);
        assertArrayEquals(new long[]{ 5, 4 }, quantities);
        assertArrayEquals(new int[]{ 2, 1 }, orderCounts);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("books")
    void manyLevelsStaySortedThroughGrowthAndRemoval(final String name, final Supplier<OrderBook> factory)
    {
        final OrderBook book = factory.get();
        final List<Order> asks = new ArrayList<>();
        // Interleaved prices so levels are inserted in the middle, and more of them than the initial capacity.
        for (int i = 0; i < 3_000; i++)
        {
            asks.add(add(book, Side.SELL, 1_000 + (i * 7919L) % 3_000, 1));
        }
        book.validate();
        assertEquals(3_000, book.levelCount(Side.SELL));
        long previous = 0;
        for (final Order order : walk(book, Side.SELL))
        {
            assertTrue(order.price > previous);
            previous = order.price;
        }
        for (int i = 0; i < asks.size(); i += 2)
        {
            book.remove(asks.get(i));
        }
        book.validate();
        assertEquals(1_500, book.orderCount());
        assertEquals(1_500, walk(book, Side.SELL).size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("books")
    void validateReportsACrossedBook(final String name, final Supplier<OrderBook> factory)
    {
        final OrderBook book = factory.get();
        add(book, Side.BUY, 100, 1);
        add(book, Side.SELL, 100, 1);
        assertThrows(IllegalStateException.class, book::validate);
    }

    private Order add(final OrderBook book, final Side side, final long price, final long quantity)
    {
        final Order order = new Order();
        order.orderId = nextOrderId++;
        order.side = side;
        order.price = price;
        order.quantity = quantity;
        book.add(order);
        return order;
    }

    private static List<Order> walk(final OrderBook book, final Side side)
    {
        final List<Order> orders = new ArrayList<>();
        for (Order order = book.best(side); order != null; order = book.next(order))
        {
            orders.add(order);
        }
        return orders;
    }
}
