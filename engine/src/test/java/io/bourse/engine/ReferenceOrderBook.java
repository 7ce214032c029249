package io.bourse.engine;

import io.bourse.protocol.codec.Side;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The obviously correct order book, the oracle for differential tests of {@link PriceLevelOrderBook}: per side a
 * {@link TreeMap} from price to the orders at that price in arrival order, with every aggregate recomputed by
 * summing and every lookup a linear scan.
 * <p>
 * It ignores the intrusive links of {@link Order} except {@link Order#level}, which the engine reads to learn
 * whether a maker is still resting after a fill: it points at a marker while the order rests and is null after.
 */
final class ReferenceOrderBook implements OrderBook
{
    private static final PriceLevel RESTING = new PriceLevel();

    private final TreeMap<Long, ArrayList<Order>> bids = new TreeMap<>(Collections.reverseOrder());
    private final TreeMap<Long, ArrayList<Order>> asks = new TreeMap<>();
    private long levelQuantity;
    private int levelOrderCount;

    public void add(final Order order)
    {
        if (contains(order))
        {
            throw new IllegalStateException("order " + order.orderId + " added twice");
        }
        side(order.side).computeIfAbsent(order.price, price -> new ArrayList<>()).add(order);
        order.level = RESTING;
        publishLevel(order.side, order.price);
    }

    public void remove(final Order order)
    {
        final TreeMap<Long, ArrayList<Order>> side = side(order.side);
        final ArrayList<Order> orders = side.get(order.price);
        final int index = orders == null ? -1 : indexOf(orders, order);
        if (index < 0)
        {
            throw new IllegalStateException("order " + order.orderId + " removed but not in the book");
        }
        orders.remove(index);
        if (orders.isEmpty())
        {
            side.remove(order.price);
        }
        order.level = null;
        publishLevel(order.side, order.price);
    }

    public void reduced(final Order order, final long quantityDelta)
    {
        if (!contains(order))
        {
            throw new IllegalStateException("order " + order.orderId + " reduced but not in the book");
        }
        publishLevel(order.side, order.price);
    }

    public Order best(final Side side)
    {
        final Map.Entry<Long, ArrayList<Order>> first = side(side).firstEntry();
        return first == null ? null : first.getValue().get(0);
    }

    public Order next(final Order order)
    {
        final TreeMap<Long, ArrayList<Order>> side = side(order.side);
        final ArrayList<Order> orders = side.get(order.price);
        final int index = orders == null ? -1 : indexOf(orders, order);
        if (index < 0)
        {
            throw new IllegalStateException("next of order " + order.orderId + " which is not in the book");
        }
        if (index + 1 < orders.size())
        {
            return orders.get(index + 1);
        }
        final Map.Entry<Long, ArrayList<Order>> nextLevel = side.higherEntry(order.price);
        return nextLevel == null ? null : nextLevel.getValue().get(0);
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
        return side(side).size();
    }

    public int orderCount()
    {
        int count = 0;
        for (final ArrayList<Order> orders : bids.values())
        {
            count += orders.size();
        }
        for (final ArrayList<Order> orders : asks.values())
        {
            count += orders.size();
        }
        return count;
    }

    public int depth(final Side side, final int maxLevels, final long[] prices, final long[] quantities, final int[] orderCounts)
    {
        int count = 0;
        for (final Map.Entry<Long, ArrayList<Order>> level : side(side).entrySet())
        {
            if (count == maxLevels)
            {
                break;
            }
            prices[count] = level.getKey();
            quantities[count] = sum(level.getValue());
            orderCounts[count] = level.getValue().size();
            count++;
        }
        return count;
    }

    public void validate()
    {
        final IdentityHashMap<Order, Boolean> seen = new IdentityHashMap<>();
        validateSide(bids, Side.BUY, seen);
        validateSide(asks, Side.SELL, seen);
        if (!bids.isEmpty() && !asks.isEmpty() && bids.firstKey() >= asks.firstKey())
        {
            throw new IllegalStateException("book crossed: bid " + bids.firstKey() + " >= ask " + asks.firstKey());
        }
    }

    private static void validateSide(
        final TreeMap<Long, ArrayList<Order>> side, final Side expectedSide, final IdentityHashMap<Order, Boolean> seen)
    {
        for (final Map.Entry<Long, ArrayList<Order>> level : side.entrySet())
        {
            if (level.getValue().isEmpty())
            {
                throw new IllegalStateException("empty level " + level.getKey() + " kept on " + expectedSide);
            }
            for (final Order order : level.getValue())
            {
                if (seen.put(order, Boolean.TRUE) != null)
                {
                    throw new IllegalStateException("order " + order.orderId + " rests twice");
                }
                if (order.side != expectedSide || order.price != level.getKey() || order.level != RESTING)
                {
                    throw new IllegalStateException("order " + order.orderId + " filed under the wrong side or price");
                }
                if (order.remainingQuantity() <= 0)
                {
                    throw new IllegalStateException("order " + order.orderId + " rests with nothing remaining");
                }
            }
        }
    }

    private boolean contains(final Order order)
    {
        final ArrayList<Order> orders = side(order.side).get(order.price);
        return orders != null && indexOf(orders, order) >= 0;
    }

    private void publishLevel(final Side side, final long price)
    {
        final ArrayList<Order> orders = side(side).get(price);
        levelQuantity = orders == null ? 0 : sum(orders);
        levelOrderCount = orders == null ? 0 : orders.size();
    }

    private TreeMap<Long, ArrayList<Order>> side(final Side side)
    {
        return side == Side.BUY ? bids : asks;
    }

    private static int indexOf(final ArrayList<Order> orders, final Order order)
    {
        for (int i = 0; i < orders.size(); i++)
        {
            if (orders.get(i) == order)
            {
                return i;
            }
        }
        return -1;
    }

    private static long sum(final ArrayList<Order> orders)
    {
        long quantity = 0;
        for (final Order order : orders)
        {
            quantity += order.remainingQuantity();
        }
        return quantity;
    }
}
