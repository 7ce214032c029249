package io.bourse.gateway.http;

import java.util.List;

/**
 * A history source with no trades, orders or transfers in its pages, for tests to give what else they need.
 */
abstract class EmptyHistory implements HistorySource
{
    public Page<Trade> trades(final long accountId, final long fromNs, final long toNs, final Cursor after,
        final int limit)
    {
        return new Page<>(List.of(), null);
    }

    public Page<Order> orders(final long accountId, final long fromNs, final long toNs, final Cursor after,
        final int limit)
    {
        return new Page<>(List.of(), null);
    }

    public Page<Transfer> transfers(final long accountId, final long fromNs, final long toNs, final Cursor after,
        final int limit)
    {
        return new Page<>(List.of(), null);
    }
}
