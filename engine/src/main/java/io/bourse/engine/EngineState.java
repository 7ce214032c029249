package io.bourse.engine;

import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;

/**
 * Whole-state checks of an {@link Engine}: the state hash and the invariant validator.
 * <p>
 * The hash folds ordered collections (each book side in priority order) in order, and combines unordered ones
 * (accounts, instruments, transaction ids) by summing per-entry digests, so that it does not depend on hash map
 * iteration order, which differs after a snapshot is loaded.
 */
final class EngineState
{
    private EngineState()
    {
    }

    static long hash(final Engine engine)
    {
        long hash = mix(0x42_6F_75_72_73_65L, engine.nextOrderId);
        hash = mix(hash, engine.nextTradeId);
        hash = mix(hash, engine.globalKillSwitch ? 1 : 0);

        for (int i = 0; i < engine.assetCount; i++)
        {
            final Asset asset = engine.assetsByIndex[i];
            hash = mix(hash, asset.assetId);
            hash = mix(hash, asset.scale);
            hash = mix(hash, asset.totalSupply);
            hash = mix(hash, asset.feesCollected);
            hash = mix(hash, asset.symbol.hashCode());
        }

        long instruments = 0;
        for (final Instrument instrument : engine.instruments.values())
        {
            instruments += instrumentHash(instrument);
        }
        hash = mix(hash, instruments);

        long accounts = 0;
        for (final Account account : engine.accounts.values())
        {
            long accountHash = mix(account.accountId, account.maxOrderQuantity);
            accountHash = mix(accountHash, account.maxOrderNotional);
            accountHash = mix(accountHash, account.maxOpenOrders);
            accountHash = mix(accountHash, account.defaultSelfTradePrevention.value());
            accountHash = mix(accountHash, account.killSwitch ? 1 : 0);
            if (account.makerFeePpm != Account.INSTRUMENT_FEE_RATE || account.takerFeePpm != Account.INSTRUMENT_FEE_RATE)
            {
                // Only an account with rates of its own mixes them in: the hashes of snapshots from before accounts
                // had rates still verify.
                accountHash = mix(accountHash, account.makerFeePpm);
                accountHash = mix(accountHash, account.takerFeePpm);
            }
            if (account.cancelAllAfterDeadlineNs != 0)
            {
                // Likewise only an armed switch: the hashes of snapshots from before the switch still verify.
                accountHash = mix(accountHash, account.cancelAllAfterTimeoutMs);
                accountHash = mix(accountHash, account.cancelAllAfterDeadlineNs);
            }
            for (int i = 0; i < engine.assetCount; i++)
            {
                accountHash = mix(accountHash, account.available[i]);
                accountHash = mix(accountHash, account.reserved[i]);
            }
            accounts += mix(accountHash, account.openOrdersByClientOrderId.size());
        }
        hash = mix(hash, accounts);

        // Summed id by id, not block by block, so that the hash of a state does not depend on how the ids are kept
        // and snapshots of format 1 (ids one by one) still verify.
        final long[] transactions = new long[1];
        engine.transactionIds.forEachBlock((block, bits) ->
        {
            for (long remaining = bits; remaining != 0; remaining &= remaining - 1)
            {
                transactions[0] += mix(0x7478L, (block << 6) | Long.numberOfTrailingZeros(remaining));
            }
        });
        return mix(hash, transactions[0]);
    }

    private static long instrumentHash(final Instrument instrument)
    {
        long hash = mix(instrument.instrumentId, instrument.symbol.hashCode());
        hash = mix(hash, instrument.baseAsset.assetId);
        hash = mix(hash, instrument.quoteAsset.assetId);
        hash = mix(hash, instrument.priceScale);
        hash = mix(hash, instrument.tickSize);
        hash = mix(hash, instrument.quantityScale);
        hash = mix(hash, instrument.lotSize);
        hash = mix(hash, instrument.minQuantity);
        hash = mix(hash, instrument.maxQuantity);
        hash = mix(hash, instrument.priceBandBps);
        hash = mix(hash, instrument.referencePrice);
        hash = mix(hash, instrument.makerFeePpm);
        hash = mix(hash, instrument.takerFeePpm);
        hash = mix(hash, instrument.tradingState.value());
        hash = mix(hash, instrument.lastTradePrice);
        hash = sideHash(hash, instrument.book, Side.BUY);
        hash = sideHash(hash, instrument.book, Side.SELL);
        // Only an instrument with stop orders mixes them in: the hashes of snapshots from before stop orders verify.
        if (instrument.buyStops.size() > 0 || instrument.sellStops.size() > 0)
        {
            hash = stopsHash(hash, instrument.buyStops);
            hash = stopsHash(hash, instrument.sellStops);
        }
        return hash;
    }

    private static long stopsHash(final long seed, final StopOrders stops)
    {
        long hash = mix(seed, stops.size());
        for (int i = 0; i < stops.size(); i++)
        {
            final Order order = stops.get(i);
            hash = orderHash(hash, order);
            hash = mix(hash, order.stopPrice);
            hash = mix(hash, order.market ? 1 : 0);
            hash = mix(hash, order.quoteAmount);
        }
        return hash;
    }

    private static long sideHash(final long seed, final OrderBook book, final Side side)
    {
        long hash = mix(seed, side.value());
        for (Order order = book.best(side); order != null; order = book.next(order))
        {
            hash = orderHash(hash, order);
        }
        return hash;
    }

    private static long orderHash(final long seed, final Order order)
    {
        long hash = mix(seed, order.orderId);
        hash = mix(hash, order.clientOrderId);
        hash = mix(hash, order.account.accountId);
        hash = mix(hash, order.price);
        hash = mix(hash, order.quantity);
        hash = mix(hash, order.filledQuantity);
        hash = mix(hash, order.executedNotional);
        hash = mix(hash, order.expiryTimeNs);
        hash = mix(hash, order.timeInForce.value());
        hash = mix(hash, order.selfTradePrevention.value());
        hash = mix(hash, order.feeReservePpm);
        return mix(hash, order.postOnly ? 1 : 0);
    }

    /**
     * Check an open order's indexes and add up its reservation.
     *
     * @return 1 when the order is in the expiry queue, else 0.
     */
    private static int validateOpen(
        final Engine engine, final Instrument instrument, final Side side, final Order order,
        final long[][] expectedReserved, final org.agrona.collections.Long2LongHashMap accountSlot)
    {
        if (order.side != side || order.instrument != instrument)
        {
            throw new IllegalStateException("order " + order.orderId + " is on the wrong book or side");
        }
        if (engine.ordersById.get(order.orderId) != order ||
            order.account.openOrdersByClientOrderId.get(order.clientOrderId) != order)
        {
            throw new IllegalStateException("order " + order.orderId + " missing from an index");
        }
        if ((order.timeInForce == TimeInForce.GTD) != (order.expiryIndex >= 0))
        {
            throw new IllegalStateException("order " + order.orderId + " expiry queue membership wrong");
        }
        final int assetIndex = order.isBuy() ? instrument.quoteAsset.index : instrument.baseAsset.index;
        final long[] reserved = expectedReserved[(int)accountSlot.get(order.account.accountId)];
        reserved[assetIndex] = sum(reserved[assetIndex], Engine.reservation(order), "reservations of account",
            order.account.accountId);
        return order.expiryIndex >= 0 ? 1 : 0;
    }

    /**
     * A sum that must not wrap: a balance that did could otherwise be conserved modulo 2^64.
     */
    private static long sum(final long a, final long b, final String what, final long id)
    {
        try
        {
            return Math.addExact(a, b);
        }
        catch (final ArithmeticException ex)
        {
            throw new IllegalStateException(what + " " + id + " overflows a long: " + a + " + " + b);
        }
    }

    /**
     * One step of a 64-bit hash: combine then scramble with the murmur3 finaliser.
     */
    static long mix(final long hash, final long value)
    {
        long h = (hash ^ value) * 0x9E3779B97F4A7C15L;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    private static void validateCancelAllAfter(final Engine engine)
    {
        int armed = 0;
        long earliest = Long.MAX_VALUE;
        for (final Account account : engine.accounts.values())
        {
            if (account.cancelAllAfterDeadlineNs != 0)
            {
                armed++;
                earliest = Math.min(earliest, account.cancelAllAfterDeadlineNs);
            }
        }
        if (armed != engine.cancelAllAfterQueue.size() || earliest != engine.nextCancelAllAfterNs())
        {
            throw new IllegalStateException(armed + " cancel-all-after switches armed, earliest due at " + earliest +
                ", but the engine's queue holds " + engine.cancelAllAfterQueue.size() + " due from " +
                engine.nextCancelAllAfterNs());
        }
        for (final Account account : engine.accounts.values())
        {
            if ((account.cancelAllAfterDeadlineNs != 0) != (account.cancelAllAfterIndex >= 0))
            {
                throw new IllegalStateException("account " + account.accountId + " is " +
                    (account.cancelAllAfterIndex >= 0 ? "" : "not ") + "in the queue of armed switches, but its " +
                    "switch" + (account.cancelAllAfterDeadlineNs != 0 ? " is armed" : " is not"));
            }
        }
    }

    static void validate(final Engine engine)
    {
        final long[][] expectedReserved = new long[engine.accounts.size()][];
        final org.agrona.collections.Long2LongHashMap accountSlot = new org.agrona.collections.Long2LongHashMap(-1);
        int slot = 0;
        for (final Account account : engine.accounts.values())
        {
            accountSlot.put(account.accountId, slot);
            expectedReserved[slot++] = new long[engine.assetCount];
        }

        int resting = 0;
        int expiring = 0;
        for (final Instrument instrument : engine.instruments.values())
        {
            final OrderBook book = instrument.book;
            book.validate();
            if (instrument.commandTradeHigh != 0 || instrument.commandTradeLow != 0)
            {
                throw new IllegalStateException("instrument " + instrument.instrumentId + " keeps a command's trade range");
            }
            for (final Side side : new Side[]{ Side.BUY, Side.SELL })
            {
                for (Order order = book.best(side); order != null; order = book.next(order))
                {
                    if (order.isUntriggeredStop() || order.market)
                    {
                        throw new IllegalStateException("order " + order.orderId + " rests but is a stop or market order");
                    }
                    expiring += validateOpen(engine, instrument, side, order, expectedReserved, accountSlot);
                    resting++;
                }
                final StopOrders stops = instrument.stops(side);
                stops.validate();
                for (int i = 0; i < stops.size(); i++)
                {
                    final Order order = stops.get(i);
                    if (!order.isUntriggeredStop() || order.filledQuantity != 0 || order.level != null ||
                        (order.market ? order.price != 0 : order.price <= 0) ||
                        (order.quoteAmount != 0 && (!order.market || !order.isBuy())))
                    {
                        throw new IllegalStateException("stop order " + order.orderId + " is not an untriggered stop");
                    }
                    if (instrument.lastTradePrice > 0 && stops.triggers(order.stopPrice, instrument.lastTradePrice))
                    {
                        throw new IllegalStateException("stop order " + order.orderId + " waits though the last trade at " +
                            instrument.lastTradePrice + " has reached its stop price " + order.stopPrice);
                    }
                    expiring += validateOpen(engine, instrument, side, order, expectedReserved, accountSlot);
                    resting++;
                }
            }
        }
        if (resting != engine.ordersById.size())
        {
            throw new IllegalStateException("books hold " + resting + " orders, index holds " + engine.ordersById.size());
        }
        if (expiring != engine.expiryQueue.size())
        {
            throw new IllegalStateException("expiry queue holds " + engine.expiryQueue.size() + ", expected " + expiring);
        }

        final long[] totals = new long[engine.assetCount];
        int openByClientOrderId = 0;
        for (final Account account : engine.accounts.values())
        {
            final long[] expected = expectedReserved[(int)accountSlot.get(account.accountId)];
            for (int i = 0; i < engine.assetCount; i++)
            {
                if (account.reserved[i] != expected[i])
                {
                    throw new IllegalStateException("account " + account.accountId + " reserves " + account.reserved[i] +
                        " of asset " + engine.assetsByIndex[i].assetId + " but its open orders need " + expected[i]);
                }
                if (account.available[i] < 0 || account.reserved[i] < 0)
                {
                    throw new IllegalStateException("account " + account.accountId + " has a negative balance of asset " +
                        engine.assetsByIndex[i].assetId);
                }
                final long balance = sum(account.available[i], account.reserved[i], "balance of account",
                    account.accountId);
                totals[i] = sum(totals[i], balance, "balances of asset", engine.assetsByIndex[i].assetId);
            }
            openByClientOrderId += account.openOrdersByClientOrderId.size();
        }
        if (openByClientOrderId != resting)
        {
            throw new IllegalStateException("client order id indexes hold " + openByClientOrderId + ", books " + resting);
        }
        validateCancelAllAfter(engine);
        for (int i = 0; i < engine.assetCount; i++)
        {
            final Asset asset = engine.assetsByIndex[i];
            if (sum(totals[i], asset.feesCollected, "balances and fees of asset", asset.assetId) != asset.totalSupply)
            {
                throw new IllegalStateException("asset " + asset.assetId + " not conserved: balances " + totals[i] +
                    " + fees " + asset.feesCollected + " != deposits - withdrawals " + asset.totalSupply);
            }
        }
    }
}
