package io.bourse.engine;

import io.bourse.protocol.AccountDefaults;
import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.OrderStatus;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.TransferDirection;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The exchange state machine: instruments, accounts, order books, matching and pre-trade risk.
 * <p>
 * Single-threaded and deterministic: each command method applies one command at the time {@code nowNs} it
 * carries (cluster time) and reports every effect, in order, to the {@link EngineListener}. The engine reads
 * no clock, starts no thread, does no I/O and draws no random numbers, so the same commands always produce
 * the same events and the same {@link #stateHash()}. A command that fails validation changes nothing and is
 * answered by {@link EngineListener#onCommandRejected} with a coded reason; no rejection throws.
 * <p>
 * Matching is price-time priority at the resting order's price. Buys reserve quote (notional plus the largest
 * fee they may be charged), sells reserve base; reservations are released as orders fill, cancel or expire.
 * Market orders reserve nothing: they spend only what is available when they execute.
 */
public final class Engine
{
    private static final float ORDER_TABLE_LOAD_FACTOR = 0.65f;

    /**
     * Engine configuration.
     */
    public static final class Context
    {
        private int initialOrderCapacity = 1 << 16;
        private Supplier<OrderBook> orderBookFactory = PriceLevelOrderBook::new;

        /**
         * Orders to pre-allocate; steady-state matching allocates nothing while open orders stay below it.
         */
        public Context initialOrderCapacity(final int initialOrderCapacity)
        {
            this.initialOrderCapacity = initialOrderCapacity;
            return this;
        }

        public int initialOrderCapacity()
        {
            return initialOrderCapacity;
        }

        Context orderBookFactory(final Supplier<OrderBook> orderBookFactory)
        {
            this.orderBookFactory = orderBookFactory;
            return this;
        }

        Supplier<OrderBook> orderBookFactory()
        {
            return orderBookFactory;
        }
    }

    private static final int MAX_FEE_PPM = Amounts.PPM;
    private static final int MAX_PRICE_BAND_BPS = Amounts.BASIS_POINTS;
    private static final int MAX_SYMBOL_LENGTH = 16;

    /**
     * The longest timeout a cancel-all-after switch takes: a day.
     */
    public static final long MAX_CANCEL_ALL_AFTER_MS = 86_400_000L;

    final EngineListener listener;
    final Context context;
    final Int2ObjectHashMap<Asset> assets = new Int2ObjectHashMap<>();
    Asset[] assetsByIndex = new Asset[8];
    int assetCount;
    final Int2ObjectHashMap<Instrument> instruments = new Int2ObjectHashMap<>();
    final Long2ObjectHashMap<Account> accounts = new Long2ObjectHashMap<>();
    Long2ObjectHashMap<Order> ordersById;
    final TransactionIds transactionIds = new TransactionIds();
    final ExpiryQueue expiryQueue = new ExpiryQueue();
    private final OrderPool orderPool;
    private final SnapshotCodec snapshotCodec = new SnapshotCodec();
    long nextOrderId = 1;
    long nextTradeId = 1;
    boolean globalKillSwitch;
    long lastTimestampNs;
    final CancelAllAfterQueue cancelAllAfterQueue = new CancelAllAfterQueue();

    private long[] scratchOrderIds = new long[64];
    private long marketBudget;
    private long notionalCapRemaining;

    public Engine(final EngineListener listener)
    {
        this(listener, new Context());
    }

    public Engine(final EngineListener listener, final Context context)
    {
        this.listener = listener;
        this.context = context;
        this.orderPool = new OrderPool(context.initialOrderCapacity);
        this.ordersById = orderTable(0);
    }

    /**
     * An order table for that many orders plus the pool's spare, sized so that it is not rehashed before they are in.
     */
    Long2ObjectHashMap<Order> orderTable(final int orders)
    {
        return new Long2ObjectHashMap<>(
            Math.max(8, (int)((orders + (long)context.initialOrderCapacity) / ORDER_TABLE_LOAD_FACTOR) + 1),
            ORDER_TABLE_LOAD_FACTOR);
    }

    // ------------------------------------------------------------------------------------------------ orders

    /**
     * Enter an order.
     *
     * @param accountId           the owner.
     * @param clientOrderId       positive, unique among the account's open orders.
     * @param instrumentId        what to trade.
     * @param side                buy or sell.
     * @param orderType           limit or market.
     * @param timeInForce         GTC, IOC, FOK or GTD; market orders take IOC or FOK.
     * @param postOnly            reject the order rather than let it take liquidity.
     * @param selfTradePrevention mode when it would trade with the same account; ACCOUNT_DEFAULT for the account's.
     * @param price               limit price at the instrument's price scale; 0 for market orders.
     * @param quantity            base quantity at the instrument's quantity scale; 0 for a market buy by quote amount.
     * @param quoteAmount         market buy only: quote minor units to spend, fees included; otherwise 0.
     * @param expiryTimeNs        GTD only: when the order expires; otherwise 0.
     * @param stopPrice           a stop order's trigger: the order is held off the book, its balance reserved, until a
     *                            trade at or above it (a buy) or at or below it (a sell), then enters as a new order
     *                            would; 0 for any other order.
     * @param nowNs               the command's time.
     */
    public void newOrder(
        final long accountId,
        final long clientOrderId,
        final int instrumentId,
        final Side side,
        final OrderType orderType,
        final TimeInForce timeInForce,
        final boolean postOnly,
        final SelfTradePrevention selfTradePrevention,
        final long price,
        final long quantity,
        final long quoteAmount,
        final long expiryTimeNs,
        final long stopPrice,
        final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Instrument instrument = instruments.get(instrumentId);
        final Account account = accounts.get(accountId);
        final RejectReason reason = checkNewOrder(
            account, clientOrderId, instrument, side, orderType, timeInForce, postOnly, selfTradePrevention,
            price, quantity, quoteAmount, expiryTimeNs, stopPrice, nowNs);
        if (reason != null)
        {
            listener.onCommandRejected(
                CommandType.NEW_ORDER, reason, accountId, 0, clientOrderId, instrumentId, nowNs);
            return;
        }

        final boolean market = orderType == OrderType.MARKET;
        final Order order = orderPool.acquire();
        order.orderId = nextOrderId++;
        order.clientOrderId = clientOrderId;
        order.account = account;
        order.instrument = instrument;
        order.side = side;
        order.timeInForce = timeInForce;
        order.selfTradePrevention = account.resolve(selfTradePrevention);
        order.postOnly = postOnly;
        order.price = price;
        order.quantity = quantity;
        order.quoteAmount = quoteAmount;
        order.market = market;
        order.stopPrice = stopPrice;
        order.filledQuantity = 0;
        order.executedNotional = 0;
        order.expiryTimeNs = expiryTimeNs;
        order.createdNs = nowNs;
        order.updatedNs = nowNs;
        order.feeReservePpm = side == Side.BUY ? account.maxFeePpm(instrument) : 0;

        listener.onOrderAccepted(
            order.orderId, clientOrderId, accountId, instrumentId, side, orderType, timeInForce, price, quantity,
            quoteAmount, postOnly, order.selfTradePrevention, expiryTimeNs, stopPrice, nowNs);

        if (stopPrice != 0)
        {
            reserve(order, nowNs);
            index(order);
            instrument.stops(side).add(order);
            return;
        }
        if (!market)
        {
            reserve(order, nowNs);
        }
        execute(order, nowNs);
        triggerStops(instrument, nowNs);
    }

    /**
     * Trade an order that has just entered the market (a new order, or a stop order that triggered), then rest it or
     * end it as its type and time in force say. A limit order's balance is reserved already; a market order holds none.
     */
    private void execute(final Order order, final long nowNs)
    {
        final boolean market = order.market;
        final TimeInForce timeInForce = order.timeInForce;
        if (market)
        {
            final Account account = order.account;
            marketBudget = order.isBuy() ?
                (order.quoteAmount > 0 ? order.quoteAmount : account.available[order.instrument.quoteAsset.index]) : 0;
            notionalCapRemaining = account.maxOrderNotional > 0 ? account.maxOrderNotional : Long.MAX_VALUE;
        }

        if (timeInForce == TimeInForce.FOK && !canFillCompletely(order, market, nowNs))
        {
            finishTaker(order, CancelReason.FILL_OR_KILL, nowNs);
            return;
        }

        final CancelReason stopReason = match(order, market, nowNs);
        if (stopReason != null)
        {
            finishTaker(order, stopReason, nowNs);
        }
        else if (order.quantity != 0 && order.remainingQuantity() == 0)
        {
            complete(order);
        }
        else if (market)
        {
            finishTaker(order, CancelReason.NO_LIQUIDITY, nowNs);
        }
        else if (timeInForce == TimeInForce.IOC)
        {
            finishTaker(order, CancelReason.IMMEDIATE_OR_CANCEL, nowNs);
        }
        else if (timeInForce == TimeInForce.FOK)
        {
            finishTaker(order, CancelReason.FILL_OR_KILL, nowNs);
        }
        else
        {
            rest(order, nowNs);
        }
    }

    /**
     * Trigger, one at a time, the stop orders that the command's trades have reached: a buy stop at or below the
     * highest of them, a sell stop at or above the lowest (a sweep through several prices may have passed a stop on
     * the way to its last one). Each triggered order's own trades widen that range for the next: a cascade ends when no
     * stop is left that it reaches. Of a buy and a sell stop both reached, the one accepted first goes first.
     */
    private void triggerStops(final Instrument instrument, final long nowNs)
    {
        while (true)
        {
            final long high = instrument.commandTradeHigh;
            final long low = instrument.commandTradeLow;
            final Order buy = instrument.buyStops.next();
            final Order sell = instrument.sellStops.next();
            final boolean buyReached = buy != null && high > 0 && instrument.buyStops.triggers(buy.stopPrice, high);
            final boolean sellReached = sell != null && low > 0 && instrument.sellStops.triggers(sell.stopPrice, low);
            if (!buyReached && !sellReached)
            {
                instrument.commandTradeHigh = 0;
                instrument.commandTradeLow = 0;
                return;
            }
            final boolean buyFirst = buyReached && (!sellReached || buy.orderId < sell.orderId);
            trigger(buyFirst ? buy : sell, buyFirst ? high : low, nowNs);
        }
    }

    /**
     * @param triggerPrice the trade price that reached the stop price.
     */
    private void trigger(final Order order, final long triggerPrice, final long nowNs)
    {
        if (order.isDue(nowNs))
        {
            expire(order, nowNs);
            return;
        }
        final Instrument instrument = order.instrument;
        final Account account = order.account;
        final CancelReason refused = globalKillSwitch || account.killSwitch ? CancelReason.KILL_SWITCH :
            !order.market && !instrument.insideBand(order.price) ? CancelReason.PRICE_BAND : null;
        if (refused != null)
        {
            cancelResting(order, refused, nowNs);
            return;
        }

        instrument.stops(order.side).remove(order);
        // A market order trades from the available balance: what the stop held goes back to it first.
        final long marketHeld = order.market ? reservation(order) : 0;
        final long stopPrice = order.stopPrice;
        order.stopPrice = 0;
        order.updatedNs = nowNs;
        listener.onOrderTriggered(
            order.orderId, order.clientOrderId, account.accountId, instrument.instrumentId, order.side,
            order.market ? OrderType.MARKET : OrderType.LIMIT, order.price, order.quantity, stopPrice, triggerPrice,
            nowNs);
        if (marketHeld != 0)
        {
            final int assetIndex = reservedAssetIndex(order);
            account.reserved[assetIndex] -= marketHeld;
            account.available[assetIndex] += marketHeld;
            publishBalance(account, assetIndex, BalanceChangeReason.RELEASE, nowNs);
        }
        execute(order, nowNs);
    }

    /**
     * Cancel an open order, named by order id or, when {@code orderId} is 0, by client order id.
     */
    public void cancelOrder(final long accountId, final long orderId, final long clientOrderId, final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Order order = findOpenOrder(CommandType.CANCEL_ORDER, accountId, orderId, clientOrderId, nowNs);
        if (order == null)
        {
            return;
        }
        cancelResting(order, CancelReason.CLIENT_REQUEST, nowNs);
    }

    /**
     * Change the price and/or total quantity of an open order. Lowering the quantity alone keeps the order's
     * time priority; changing the price or raising the quantity sends it to the back of its (new) level, and a
     * new price that crosses the book trades like a new order.
     *
     * An untriggered stop order stays off the book: its limit price (0 for a stop market order), quantity and stop
     * price change, and it keeps its place among the stops unless its stop price changes.
     *
     * @param newClientOrderId 0 keeps the order's client order id.
     * @param quantity         the new total quantity, filled part included; must exceed the filled quantity.
     * @param stopPrice        an untriggered stop order's new stop price; 0 keeps it, and must be 0 for other orders.
     */
    public void replaceOrder(
        final long accountId,
        final long orderId,
        final long origClientOrderId,
        final long newClientOrderId,
        final long price,
        final long quantity,
        final long stopPrice,
        final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Account account = accounts.get(accountId);
        final Order order = account == null ? null : findUnexpiredOrder(account, orderId, origClientOrderId, nowNs);
        final RejectReason reason = checkReplace(account, order, newClientOrderId, price, quantity, stopPrice, nowNs);
        if (reason != null)
        {
            listener.onCommandRejected(
                CommandType.REPLACE_ORDER, reason, accountId, order == null ? orderId : order.orderId,
                newClientOrderId, order == null ? 0 : order.instrument.instrumentId, nowNs);
            return;
        }

        final Instrument instrument = order.instrument;
        final OrderBook book = instrument.book;
        final long oldClientOrderId = order.clientOrderId;
        final long oldPrice = order.price;
        final long clientOrderId = newClientOrderId == 0 ? oldClientOrderId : newClientOrderId;
        final long oldReservation = reservation(order);

        if (clientOrderId != oldClientOrderId)
        {
            account.openOrdersByClientOrderId.remove(oldClientOrderId);
            account.openOrdersByClientOrderId.put(clientOrderId, order);
            order.clientOrderId = clientOrderId;
        }
        if (order.isBuy())
        {
            order.feeReservePpm = order.account.maxFeePpm(instrument);
        }
        order.updatedNs = nowNs;

        if (order.isUntriggeredStop())
        {
            final boolean stopKept = stopPrice == 0 || stopPrice == order.stopPrice;
            if (!stopKept)
            {
                instrument.stops(order.side).remove(order);
                order.stopPrice = stopPrice;
                instrument.stops(order.side).add(order);
            }
            order.price = price;
            order.quantity = quantity;
            listener.onOrderReplaced(
                order.orderId, oldClientOrderId, clientOrderId, accountId, instrument.instrumentId, order.side, price,
                quantity, order.filledQuantity, stopKept, order.stopPrice, nowNs);
            reserveDifference(order, oldReservation, nowNs);
            return;
        }

        final boolean priorityKept = price == order.price && quantity <= order.quantity;

        final long reduction = order.quantity - quantity;
        if (priorityKept)
        {
            order.quantity = quantity;
            if (reduction > 0)
            {
                book.reduced(order, reduction);
            }
        }
        else
        {
            book.remove(order);
            order.price = price;
            order.quantity = quantity;
        }

        listener.onOrderReplaced(
            order.orderId, oldClientOrderId, clientOrderId, accountId, instrument.instrumentId, order.side, price,
            quantity, order.filledQuantity, priorityKept, 0, nowNs);
        reserveDifference(order, oldReservation, nowNs);

        if (priorityKept)
        {
            if (reduction > 0)
            {
                publishLevel(instrument, order.side, order.price, nowNs);
            }
            return;
        }

        publishLevel(instrument, order.side, oldPrice, nowNs);
        final CancelReason stopReason = match(order, false, nowNs);
        if (stopReason != null)
        {
            finishTaker(order, stopReason, nowNs);
        }
        else if (order.remainingQuantity() == 0)
        {
            complete(order);
        }
        else
        {
            addToBook(order, nowNs);
        }
        triggerStops(instrument, nowNs);
    }

    /**
     * Reserve, or release, the difference between what a replaced order holds now and what it held before.
     */
    private void reserveDifference(final Order order, final long oldReservation, final long nowNs)
    {
        final long delta = reservation(order) - oldReservation;
        if (delta != 0)
        {
            final Account account = order.account;
            final int assetIndex = reservedAssetIndex(order);
            account.available[assetIndex] -= delta;
            account.reserved[assetIndex] += delta;
            publishBalance(account, assetIndex, delta > 0 ? BalanceChangeReason.RESERVE : BalanceChangeReason.RELEASE, nowNs);
        }
    }

    /**
     * Cancel the account's open orders, optionally only of one instrument (0 for all) and one side (null for both).
     */
    public void massCancel(final long accountId, final int instrumentId, final Side side, final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Account account = accounts.get(accountId);
        final RejectReason reason = account == null ? RejectReason.UNKNOWN_ACCOUNT :
            (instrumentId != 0 && !instruments.containsKey(instrumentId)) ? RejectReason.UNKNOWN_INSTRUMENT : null;
        if (reason != null)
        {
            listener.onCommandRejected(CommandType.MASS_CANCEL, reason, accountId, 0, 0, instrumentId, nowNs);
            return;
        }

        final Side sideFilter = side == Side.NULL_VAL ? null : side;
        final int count = cancelOpenOrders(account, instrumentId, sideFilter, CancelReason.MASS_CANCEL, nowNs);
        listener.onMassCancelCompleted(accountId, instrumentId, sideFilter == null ? Side.NULL_VAL : sideFilter, count, nowNs);
    }

    /**
     * Cancel the account's open orders of one instrument (0 for all) and one side (null for both), in order id order.
     *
     * @return how many.
     */
    private int cancelOpenOrders(
        final Account account, final int instrumentId, final Side sideFilter, final CancelReason reason,
        final long nowNs)
    {
        int count = 0;
        for (final Order order : account.openOrdersByClientOrderId.values())
        {
            if ((instrumentId == 0 || order.instrument.instrumentId == instrumentId) &&
                (sideFilter == null || order.side == sideFilter))
            {
                if (count == scratchOrderIds.length)
                {
                    scratchOrderIds = Arrays.copyOf(scratchOrderIds, count * 2);
                }
                scratchOrderIds[count++] = order.orderId;
            }
        }
        // Map iteration order depends on the map's history; sorting makes the events identical on every replay.
        Arrays.sort(scratchOrderIds, 0, count);
        for (int i = 0; i < count; i++)
        {
            cancelResting(ordersById.get(scratchOrderIds[i]), reason, nowNs);
        }
        return count;
    }

    /**
     * Report the state of an open order, by order id or, when {@code orderId} is 0, by client order id.
     */
    public void queryOrder(final long accountId, final long orderId, final long clientOrderId, final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Order order = findOpenOrder(CommandType.QUERY_ORDER, accountId, orderId, clientOrderId, nowNs);
        if (order == null)
        {
            return;
        }
        listener.onOrderStatus(
            order.orderId, order.clientOrderId, accountId, order.instrument.instrumentId, order.side,
            order.timeInForce, order.filledQuantity == 0 ? OrderStatus.NEW : OrderStatus.PARTIALLY_FILLED,
            order.price, order.quantity, order.filledQuantity, order.executedNotional, order.expiryTimeNs,
            order.market ? OrderType.MARKET : OrderType.LIMIT, order.stopPrice, nowNs);
    }

    /**
     * Trigger every cancel-all-after switch whose deadline is at or before {@code nowNs}, earliest first (then by
     * account id), canceling its account's open orders; then expire every GTD order whose expiry time is at or before
     * {@code nowNs}, earliest first.
     */
    public void expireOrders(final long nowNs)
    {
        lastTimestampNs = nowNs;
        Account armed;
        while ((armed = cancelAllAfterQueue.peek()) != null && armed.cancelAllAfterDeadlineNs <= nowNs)
        {
            trigger(armed, nowNs);
        }
        Order order;
        while ((order = expiryQueue.peek()) != null && order.expiryTimeNs <= nowNs)
        {
            expire(order, nowNs);
        }
    }

    // ------------------------------------------------------------------------------------------------ admin

    /**
     * Define an asset. Repeating a definition with the same scale updates the symbol; the scale cannot change.
     */
    public void defineAsset(final int assetId, final int scale, final String symbol, final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Asset existing = assets.get(assetId);
        final RejectReason reason = assetId <= 0 || scale < 0 || scale > Amounts.MAX_SCALE || !validSymbol(symbol) ?
            RejectReason.INVALID_ASSET_DEFINITION :
            existing != null && existing.scale != scale ? RejectReason.ASSET_REDEFINITION : null;
        if (reason != null)
        {
            listener.onCommandRejected(CommandType.DEFINE_ASSET, reason, 0, 0, 0, 0, nowNs);
            return;
        }
        if (existing != null)
        {
            existing.symbol = symbol;
        }
        else
        {
            addAsset(new Asset(assetId, assetCount, scale, symbol));
        }
        listener.onAssetDefined(assetId, scale, symbol, nowNs);
    }

    /**
     * Add an instrument, or change one. Its assets, scales, tick and lot can only change while its book is empty;
     * limits, band, fees and trading state can change at any time. The price band follows the last trade; a new
     * (non-zero) reference price, or a new price scale or tick, centres it on the reference price again until the next
     * trade (with no reference, the band is off until then).
     */
    public void defineInstrument(
        final int instrumentId,
        final String symbol,
        final int baseAssetId,
        final int quoteAssetId,
        final int priceScale,
        final long tickSize,
        final int quantityScale,
        final long lotSize,
        final long minQuantity,
        final long maxQuantity,
        final int priceBandBps,
        final long referencePrice,
        final int makerFeePpm,
        final int takerFeePpm,
        final TradingState tradingState,
        final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Asset base = assets.get(baseAssetId);
        final Asset quote = assets.get(quoteAssetId);
        final Instrument existing = instruments.get(instrumentId);
        RejectReason reason = null;
        long quotePerTickLot = 0;
        long basePerLot = 0;
        if (instrumentId <= 0)
        {
            reason = RejectReason.INVALID_INSTRUMENT;
        }
        else if (base == null || quote == null)
        {
            reason = RejectReason.UNKNOWN_ASSET;
        }
        else if (base == quote || !validSymbol(symbol) || !validScale(priceScale) || !validScale(quantityScale) ||
            priceScale + quantityScale > Amounts.MAX_SCALE || tickSize <= 0 || lotSize <= 0 ||
            minQuantity < 0 || maxQuantity < 0 || (maxQuantity > 0 && maxQuantity < minQuantity) ||
            priceBandBps < 0 || priceBandBps > MAX_PRICE_BAND_BPS || referencePrice < 0 ||
            referencePrice % tickSize != 0 || makerFeePpm < 0 || makerFeePpm > MAX_FEE_PPM ||
            takerFeePpm < 0 || takerFeePpm > MAX_FEE_PPM || tradingState == null ||
            tradingState == TradingState.NULL_VAL)
        {
            reason = RejectReason.INVALID_INSTRUMENT_DEFINITION;
        }
        else
        {
            quotePerTickLot = exactRatio(
                Amounts.multiply(Amounts.multiply(tickSize, lotSize), Amounts.powerOfTen(quote.scale)),
                Amounts.powerOfTen(priceScale + quantityScale));
            basePerLot = quantityScale > base.scale ? 0 :
                Amounts.multiply(lotSize, Amounts.powerOfTen(base.scale - quantityScale));
            if (quotePerTickLot <= 0 || basePerLot <= 0)
            {
                reason = RejectReason.INVALID_INSTRUMENT_DEFINITION;
            }
            else if (existing != null && existing.hasOpenOrders() &&
                (existing.baseAsset != base || existing.quoteAsset != quote || existing.priceScale != priceScale ||
                existing.tickSize != tickSize || existing.quantityScale != quantityScale || existing.lotSize != lotSize))
            {
                reason = RejectReason.INSTRUMENT_HAS_OPEN_ORDERS;
            }
        }
        if (reason != null)
        {
            listener.onCommandRejected(CommandType.DEFINE_INSTRUMENT, reason, 0, 0, 0, instrumentId, nowNs);
            return;
        }

        Instrument instrument = existing;
        if (instrument == null)
        {
            instrument = new Instrument(instrumentId, context.orderBookFactory().get());
            instruments.put(instrumentId, instrument);
        }
        else if ((referencePrice > 0 && existing.referencePrice != referencePrice) ||
            existing.priceScale != priceScale || existing.tickSize != tickSize)
        {
            // A last trade on another price grid means nothing on this one, and a new reference is how an operator
            // moves a band that the last trade holds where the market no longer is (a reference of 0 moves nothing).
            instrument.lastTradePrice = 0;
        }
        instrument.symbol = symbol;
        instrument.baseAsset = base;
        instrument.quoteAsset = quote;
        instrument.priceScale = priceScale;
        instrument.tickSize = tickSize;
        instrument.quantityScale = quantityScale;
        instrument.lotSize = lotSize;
        instrument.minQuantity = minQuantity;
        instrument.maxQuantity = maxQuantity;
        instrument.priceBandBps = priceBandBps;
        instrument.referencePrice = referencePrice;
        instrument.makerFeePpm = makerFeePpm;
        instrument.takerFeePpm = takerFeePpm;
        instrument.tradingState = tradingState;
        instrument.quotePerTickLot = quotePerTickLot;
        instrument.basePerLot = basePerLot;
        instrument.updateBand();
        listener.onInstrumentDefined(
            instrumentId, symbol, baseAssetId, quoteAssetId, priceScale, tickSize, quantityScale, lotSize, minQuantity,
            maxQuantity, priceBandBps, referencePrice, makerFeePpm, takerFeePpm, tradingState, nowNs);
    }

    /**
     * Set an instrument's trading state: OPEN, HALTED (no new orders or replaces), CANCEL_ONLY, or POST_ONLY
     * (only orders that rest without taking).
     */
    public void setTradingState(final int instrumentId, final TradingState tradingState, final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Instrument instrument = instruments.get(instrumentId);
        final RejectReason reason = instrument == null ? RejectReason.UNKNOWN_INSTRUMENT :
            tradingState == null || tradingState == TradingState.NULL_VAL ? RejectReason.INVALID_TRADING_STATE : null;
        if (reason != null)
        {
            listener.onCommandRejected(CommandType.SET_TRADING_STATE, reason, 0, 0, 0, instrumentId, nowNs);
            return;
        }
        instrument.tradingState = tradingState;
        listener.onTradingStateChanged(instrumentId, tradingState, nowNs);
    }

    /**
     * Credit an account (creating it if needed). A transaction id already applied is answered with
     * {@code applied = false} and changes nothing, so a retried deposit is never applied twice.
     */
    public void deposit(
        final long transactionId, final long accountId, final int assetId, final long amount, final long nowNs)
    {
        transfer(TransferDirection.DEPOSIT, transactionId, accountId, assetId, amount, nowNs);
    }

    /**
     * Debit an account's available balance. A transaction id already applied is answered with
     * {@code applied = false} and changes nothing.
     */
    public void withdraw(
        final long transactionId, final long accountId, final int assetId, final long amount, final long nowNs)
    {
        transfer(TransferDirection.WITHDRAWAL, transactionId, accountId, assetId, amount, nowNs);
    }

    /**
     * Set an account's risk limits (0 = unlimited) and default self-trade prevention, creating the account if needed.
     * {@link SelfTradePrevention#ACCOUNT_DEFAULT} restores the engine's default, CANCEL_AGGRESSOR.
     */
    public void setAccountLimits(
        final long accountId,
        final long maxOrderQuantity,
        final long maxOrderNotional,
        final int maxOpenOrders,
        final SelfTradePrevention defaultSelfTradePrevention,
        final long nowNs)
    {
        lastTimestampNs = nowNs;
        final RejectReason reason = accountId <= 0 ? RejectReason.INVALID_ACCOUNT :
            maxOrderQuantity < 0 || maxOrderNotional < 0 || maxOpenOrders < 0 ? RejectReason.INVALID_LIMIT :
            defaultSelfTradePrevention == null || defaultSelfTradePrevention == SelfTradePrevention.NULL_VAL ?
            RejectReason.INVALID_STP_MODE : null;
        if (reason != null)
        {
            listener.onCommandRejected(CommandType.SET_ACCOUNT_LIMITS, reason, accountId, 0, 0, 0, nowNs);
            return;
        }
        final Account account = accountOrCreate(accountId);
        account.maxOrderQuantity = maxOrderQuantity;
        account.maxOrderNotional = maxOrderNotional;
        account.maxOpenOrders = maxOpenOrders;
        account.defaultSelfTradePrevention = defaultSelfTradePrevention == SelfTradePrevention.ACCOUNT_DEFAULT ?
            AccountDefaults.SELF_TRADE_PREVENTION : defaultSelfTradePrevention;
        listener.onAccountLimitsChanged(
            accountId, maxOrderQuantity, maxOrderNotional, maxOpenOrders, account.defaultSelfTradePrevention, nowNs);
    }

    /**
     * Set an account's own maker and taker fee rates, which apply on every instrument in place of the instrument's
     * (a market maker's or a tier's), creating the account if needed. A buy resting when they change keeps the
     * reservation it was entered with and pays no more than that reservation's rate, as when an instrument's rates
     * change.
     *
     * @param makerFeePpm in millionths of notional, 0 to 1,000,000; {@link Account#INSTRUMENT_FEE_RATE} for each
     *                    instrument's own.
     * @param takerFeePpm likewise.
     */
    public void setAccountFees(final long accountId, final int makerFeePpm, final int takerFeePpm, final long nowNs)
    {
        lastTimestampNs = nowNs;
        final RejectReason reason = accountId <= 0 ? RejectReason.INVALID_ACCOUNT :
            !validAccountFeeRate(makerFeePpm) || !validAccountFeeRate(takerFeePpm) ? RejectReason.INVALID_FEE_RATE : null;
        if (reason != null)
        {
            listener.onCommandRejected(CommandType.SET_ACCOUNT_FEES, reason, accountId, 0, 0, 0, nowNs);
            return;
        }
        final Account account = accountOrCreate(accountId);
        account.makerFeePpm = makerFeePpm;
        account.takerFeePpm = takerFeePpm;
        listener.onAccountFeesChanged(accountId, makerFeePpm, takerFeePpm, nowNs);
    }

    static boolean validAccountFeeRate(final int feePpm)
    {
        return feePpm == Account.INSTRUMENT_FEE_RATE || feePpm >= 0 && feePpm <= MAX_FEE_PPM;
    }

    /**
     * Switch the kill switch of one account, or the global one when {@code accountId} is 0. While active, new
     * orders and replaces are rejected; cancels are still accepted.
     */
    public void setKillSwitch(final long accountId, final boolean active, final long nowNs)
    {
        lastTimestampNs = nowNs;
        if (accountId == 0)
        {
            globalKillSwitch = active;
        }
        else
        {
            final Account account = accounts.get(accountId);
            if (account == null)
            {
                listener.onCommandRejected(
                    CommandType.SET_KILL_SWITCH, RejectReason.UNKNOWN_ACCOUNT, accountId, 0, 0, 0, nowNs);
                return;
            }
            account.killSwitch = active;
        }
        listener.onKillSwitchChanged(accountId, active, nowNs);
    }

    /**
     * Arm an account's cancel-all-after switch (a dead man's switch): unless it is armed again or disarmed within
     * {@code timeoutMs} of {@code nowNs}, every open order of the account, stop orders included, is canceled then
     * ({@link CancelReason#CANCEL_ALL_AFTER}), by {@link #expireOrders}, and the switch is disarmed. Arming again
     * replaces the deadline; 0 disarms. A switch whose deadline has passed when it is armed again or disarmed (the
     * host had not called {@link #expireOrders} since) triggers first. Held in the exchange's state, the switch
     * outlives the gateway and the client that armed it, a restart and a fail-over.
     *
     * @param timeoutMs 0 to disarm, or 1 to {@link #MAX_CANCEL_ALL_AFTER_MS}.
     */
    public void setCancelAllAfter(final long accountId, final long timeoutMs, final long nowNs)
    {
        lastTimestampNs = nowNs;
        final Account account = accounts.get(accountId);
        final RejectReason reason = accountId <= 0 ? RejectReason.INVALID_ACCOUNT :
            timeoutMs < 0 || timeoutMs > MAX_CANCEL_ALL_AFTER_MS ? RejectReason.INVALID_TIMEOUT :
            account == null ? RejectReason.UNKNOWN_ACCOUNT : null;
        if (reason != null)
        {
            listener.onCommandRejected(CommandType.SET_CANCEL_ALL_AFTER, reason, accountId, 0, 0, 0, nowNs);
            return;
        }
        if (account.cancelAllAfterDeadlineNs != 0 && account.cancelAllAfterDeadlineNs <= nowNs)
        {
            // Past its deadline already (the command was sequenced before the timer that would have triggered it): a
            // switch armed again too late triggers, as it would have had the timer come first.
            trigger(account, nowNs);
        }
        if (timeoutMs == 0)
        {
            disarm(account);
            listener.onCancelAllAfterChanged(accountId, 0, 0, false, 0, nowNs);
            return;
        }
        final boolean armedBefore = account.cancelAllAfterDeadlineNs != 0;
        account.cancelAllAfterTimeoutMs = timeoutMs;
        account.cancelAllAfterDeadlineNs = nowNs + timeoutMs * 1_000_000L;
        if (armedBefore)
        {
            cancelAllAfterQueue.update(account);
        }
        else
        {
            cancelAllAfterQueue.add(account);
        }
        listener.onCancelAllAfterChanged(accountId, timeoutMs, account.cancelAllAfterDeadlineNs, false, 0, nowNs);
    }

    private void trigger(final Account account, final long nowNs)
    {
        final long timeoutMs = account.cancelAllAfterTimeoutMs;
        final long deadlineNs = account.cancelAllAfterDeadlineNs;
        disarm(account);
        final int count = cancelOpenOrders(account, 0, null, CancelReason.CANCEL_ALL_AFTER, nowNs);
        listener.onCancelAllAfterChanged(account.accountId, timeoutMs, deadlineNs, true, count, nowNs);
    }

    private void disarm(final Account account)
    {
        if (account.cancelAllAfterDeadlineNs == 0)
        {
            return;
        }
        cancelAllAfterQueue.remove(account);
        account.cancelAllAfterTimeoutMs = 0;
        account.cancelAllAfterDeadlineNs = 0;
    }

    /**
     * Count an account loaded from a snapshot among the armed ones when its switch is armed.
     */
    void restoreCancelAllAfter(final Account account, final long timeoutMs, final long deadlineNs)
    {
        if (deadlineNs == 0)
        {
            return;
        }
        if (account.cancelAllAfterDeadlineNs != 0)
        {
            throw new IllegalStateException("snapshot: account " + account.accountId + " has two records");
        }
        account.cancelAllAfterTimeoutMs = timeoutMs;
        account.cancelAllAfterDeadlineNs = deadlineNs;
        cancelAllAfterQueue.add(account);
    }

    // ------------------------------------------------------------------------------------------------ snapshot

    /**
     * Write the whole state as SBE snapshot records, ending with the state hash.
     *
     * @param buffer an expandable buffer (or one large enough) to write into.
     * @param offset where to start.
     * @return the number of bytes written.
     */
    public int writeSnapshot(final MutableDirectBuffer buffer, final int offset)
    {
        return snapshotCodec.write(this, buffer, offset);
    }

    /**
     * Load a snapshot written by {@link #writeSnapshot} into this engine, which must not have applied any command.
     *
     * @throws IllegalStateException naming what is wrong when the snapshot is truncated, corrupt, or its recorded
     *                               state hash differs from the state loaded: a snapshot is loaded whole or not used.
     */
    public void loadSnapshot(final DirectBuffer buffer, final int offset, final int length)
    {
        snapshotCodec.load(this, buffer, offset, length);
    }

    // ------------------------------------------------------------------------------------------------ queries

    /**
     * A stable 64-bit digest of the whole state: equal on every replay of the same commands and after a snapshot
     * round trip, different (with overwhelming probability) when any balance, order, limit or setting differs.
     */
    public long stateHash()
    {
        return EngineState.hash(this);
    }

    /**
     * Number of open orders: resting in the books, and stop orders waiting for their trigger.
     */
    public int openOrderCount()
    {
        return ordersById.size();
    }

    /**
     * @return the earliest expiry time of a GTD order or deadline of a cancel-all-after switch, or
     * {@link Long#MAX_VALUE} when there is none: when the host should next call {@link #expireOrders(long)}.
     */
    public long nextExpiryTimeNs()
    {
        final Order order = expiryQueue.peek();
        return Math.min(order == null ? Long.MAX_VALUE : order.expiryTimeNs, nextCancelAllAfterNs());
    }

    /**
     * @return the earliest deadline of an armed cancel-all-after switch, {@link Long#MAX_VALUE} when none is armed.
     */
    long nextCancelAllAfterNs()
    {
        final Account armed = cancelAllAfterQueue.peek();
        return armed == null ? Long.MAX_VALUE : armed.cancelAllAfterDeadlineNs;
    }

    /**
     * Time of the last command applied.
     */
    public long lastTimestampNs()
    {
        return lastTimestampNs;
    }

    /**
     * Copy the best {@code maxLevels} levels of one side of an instrument's book.
     *
     * @return the number of levels copied, or -1 for an unknown instrument.
     */
    public int bookDepth(
        final int instrumentId, final Side side, final int maxLevels, final long[] prices, final long[] quantities,
        final int[] orderCounts)
    {
        final Instrument instrument = instruments.get(instrumentId);
        return instrument == null ? -1 : instrument.book.depth(side, maxLevels, prices, quantities, orderCounts);
    }

    /**
     * @return the account's available balance in the asset, 0 when either is unknown.
     */
    public long availableBalance(final long accountId, final int assetId)
    {
        final Account account = accounts.get(accountId);
        final Asset asset = assets.get(assetId);
        return account == null || asset == null ? 0 : account.available[asset.index];
    }

    /**
     * @return the account's reserved balance in the asset, 0 when either is unknown.
     */
    public long reservedBalance(final long accountId, final int assetId)
    {
        final Account account = accounts.get(accountId);
        final Asset asset = assets.get(assetId);
        return account == null || asset == null ? 0 : account.reserved[asset.index];
    }

    /**
     * @return fees collected by the exchange in the asset.
     */
    public long feesCollected(final int assetId)
    {
        final Asset asset = assets.get(assetId);
        return asset == null ? 0 : asset.feesCollected;
    }

    /**
     * Check every internal invariant (books, indexes, reservations, conservation of each asset), throwing
     * {@link IllegalStateException} naming the first that fails. Walks the whole state: for tests and tools.
     */
    public void validateInternalState()
    {
        EngineState.validate(this);
    }

    // ------------------------------------------------------------------------------------------------ validation

    private RejectReason checkNewOrder(
        final Account account,
        final long clientOrderId,
        final Instrument instrument,
        final Side side,
        final OrderType orderType,
        final TimeInForce timeInForce,
        final boolean postOnly,
        final SelfTradePrevention selfTradePrevention,
        final long price,
        final long quantity,
        final long quoteAmount,
        final long expiryTimeNs,
        final long stopPrice,
        final long nowNs)
    {
        if (instrument == null)
        {
            return RejectReason.UNKNOWN_INSTRUMENT;
        }
        if (account == null)
        {
            return RejectReason.UNKNOWN_ACCOUNT;
        }
        final RejectReason tradingReason = checkMayTrade(account, instrument);
        if (tradingReason != null)
        {
            return tradingReason;
        }
        final TradingState state = instrument.tradingState;
        if (clientOrderId <= 0)
        {
            return RejectReason.INVALID_CLIENT_ORDER_ID;
        }
        if (side == null || side == Side.NULL_VAL)
        {
            return RejectReason.INVALID_SIDE;
        }
        if (orderType == null || orderType == OrderType.NULL_VAL)
        {
            return RejectReason.INVALID_ORDER_TYPE;
        }
        if (timeInForce == null || timeInForce == TimeInForce.NULL_VAL)
        {
            return RejectReason.INVALID_TIME_IN_FORCE;
        }
        if (selfTradePrevention == null || selfTradePrevention == SelfTradePrevention.NULL_VAL)
        {
            return RejectReason.INVALID_STP_MODE;
        }

        final boolean market = orderType == OrderType.MARKET;
        final boolean restable = timeInForce == TimeInForce.GTC || timeInForce == TimeInForce.GTD;
        final boolean stop = stopPrice != 0;
        if (stop)
        {
            if (stopPrice < 0 || postOnly)
            {
                return RejectReason.INVALID_STOP_PRICE;
            }
            if (stopPrice % instrument.tickSize != 0)
            {
                return RejectReason.PRICE_OFF_TICK;
            }
        }
        if (market)
        {
            // A stop market order may wait GTC or GTD for its trigger; once triggered it trades as any market order.
            if ((restable && !stop) || (quoteAmount > 0 && timeInForce == TimeInForce.FOK))
            {
                return RejectReason.INVALID_TIME_IN_FORCE;
            }
            if (postOnly)
            {
                return RejectReason.INVALID_ORDER_TYPE;
            }
            if (state == TradingState.POST_ONLY && !stop)
            {
                return RejectReason.INSTRUMENT_POST_ONLY;
            }
            if (price != 0)
            {
                return RejectReason.INVALID_PRICE;
            }
            if (quoteAmount < 0 || (quoteAmount > 0 && (side != Side.BUY || quantity != 0)))
            {
                return RejectReason.INVALID_QUOTE_AMOUNT;
            }
        }
        else
        {
            if (price <= 0)
            {
                return RejectReason.INVALID_PRICE;
            }
            if (price % instrument.tickSize != 0)
            {
                return RejectReason.PRICE_OFF_TICK;
            }
            if (quoteAmount != 0)
            {
                return RejectReason.INVALID_QUOTE_AMOUNT;
            }
            if (postOnly && !restable)
            {
                return RejectReason.INVALID_TIME_IN_FORCE;
            }
            if (state == TradingState.POST_ONLY && !restable && !stop)
            {
                return RejectReason.INSTRUMENT_POST_ONLY;
            }
        }

        if (timeInForce == TimeInForce.GTD)
        {
            if (expiryTimeNs <= 0)
            {
                return RejectReason.INVALID_EXPIRY;
            }
            if (expiryTimeNs <= nowNs)
            {
                return RejectReason.EXPIRY_IN_PAST;
            }
        }
        else if (expiryTimeNs != 0)
        {
            return RejectReason.INVALID_EXPIRY;
        }

        final boolean byQuoteAmount = market && quoteAmount > 0;
        if (!byQuoteAmount)
        {
            final RejectReason quantityReason = checkQuantity(instrument, account, quantity);
            if (quantityReason != null)
            {
                return quantityReason;
            }
        }
        if (!market && !instrument.insideBand(price))
        {
            return RejectReason.PRICE_OUTSIDE_BAND;
        }
        if ((restable || stop) && account.maxOpenOrders > 0 &&
            account.openOrdersByClientOrderId.size() >= account.maxOpenOrders)
        {
            return RejectReason.ACCOUNT_MAX_OPEN_ORDERS;
        }

        long notional = 0;
        if (!market)
        {
            notional = instrument.notional(price, quantity);
            if (notional == Amounts.OVERFLOW ||
                Instrument.buyReservation(notional, account.maxFeePpm(instrument)) == Amounts.OVERFLOW)
            {
                return RejectReason.NOTIONAL_OVERFLOW;
            }
        }
        else if (byQuoteAmount)
        {
            notional = quoteAmount;
        }
        if (account.maxOrderNotional > 0 && notional > account.maxOrderNotional)
        {
            return RejectReason.ACCOUNT_MAX_ORDER_NOTIONAL;
        }
        if (account.openOrdersByClientOrderId.containsKey(clientOrderId))
        {
            return RejectReason.DUPLICATE_CLIENT_ORDER_ID;
        }
        if (stop && wouldTrigger(instrument, side, stopPrice))
        {
            return RejectReason.STOP_WOULD_TRIGGER;
        }
        if ((postOnly || state == TradingState.POST_ONLY) && !stop && wouldTake(instrument, side, price, nowNs))
        {
            return postOnly ? RejectReason.POST_ONLY_WOULD_TAKE : RejectReason.INSTRUMENT_POST_ONLY;
        }

        final long[] available = account.available;
        if (side == Side.BUY)
        {
            final long needed = market ?
                (byQuoteAmount ? quoteAmount : 1) : Instrument.buyReservation(notional, account.maxFeePpm(instrument));
            if (available[instrument.quoteAsset.index] < needed)
            {
                return RejectReason.INSUFFICIENT_BALANCE;
            }
        }
        else
        {
            final long needed = instrument.baseAmount(quantity);
            if (needed == Amounts.OVERFLOW)
            {
                return RejectReason.NOTIONAL_OVERFLOW;
            }
            if (available[instrument.baseAsset.index] < needed)
            {
                return RejectReason.INSUFFICIENT_BALANCE;
            }
        }
        return null;
    }

    /**
     * Kill switches and trading state: what stops an account from entering or changing orders on an instrument.
     */
    private RejectReason checkMayTrade(final Account account, final Instrument instrument)
    {
        if (globalKillSwitch)
        {
            return RejectReason.GLOBAL_KILL_SWITCH;
        }
        if (account.killSwitch)
        {
            return RejectReason.ACCOUNT_KILL_SWITCH;
        }
        if (instrument.tradingState == TradingState.HALTED)
        {
            return RejectReason.INSTRUMENT_HALTED;
        }
        if (instrument.tradingState == TradingState.CANCEL_ONLY)
        {
            return RejectReason.INSTRUMENT_CANCEL_ONLY;
        }
        return null;
    }

    private static RejectReason checkQuantity(final Instrument instrument, final Account account, final long quantity)
    {
        if (quantity <= 0)
        {
            return RejectReason.INVALID_QUANTITY;
        }
        if (quantity % instrument.lotSize != 0)
        {
            return RejectReason.QUANTITY_OFF_LOT;
        }
        if (quantity < instrument.minQuantity)
        {
            return RejectReason.QUANTITY_BELOW_MINIMUM;
        }
        if (instrument.maxQuantity > 0 && quantity > instrument.maxQuantity)
        {
            return RejectReason.QUANTITY_ABOVE_MAXIMUM;
        }
        if (account.maxOrderQuantity > 0 && quantity > account.maxOrderQuantity)
        {
            return RejectReason.ACCOUNT_MAX_ORDER_QUANTITY;
        }
        return null;
    }

    private RejectReason checkReplace(
        final Account account, final Order order, final long newClientOrderId, final long price, final long quantity,
        final long stopPrice, final long nowNs)
    {
        if (account == null)
        {
            return RejectReason.UNKNOWN_ACCOUNT;
        }
        if (order == null)
        {
            return RejectReason.UNKNOWN_ORDER;
        }
        final Instrument instrument = order.instrument;
        final RejectReason tradingReason = checkMayTrade(account, instrument);
        if (tradingReason != null)
        {
            return tradingReason;
        }
        final TradingState state = instrument.tradingState;
        final boolean stop = order.isUntriggeredStop();
        if (newClientOrderId < 0)
        {
            return RejectReason.INVALID_CLIENT_ORDER_ID;
        }
        if (stopPrice < 0 || (stopPrice != 0 && !stop))
        {
            return RejectReason.INVALID_STOP_PRICE;
        }
        if (stopPrice % instrument.tickSize != 0)
        {
            return RejectReason.PRICE_OFF_TICK;
        }
        if (order.market)
        {
            // Only an untriggered stop market order is open: it names no price, and one by quote amount no quantity.
            if (price != 0)
            {
                return RejectReason.INVALID_PRICE;
            }
            if (order.quoteAmount != 0)
            {
                return RejectReason.INVALID_QUOTE_AMOUNT;
            }
        }
        else if (price <= 0)
        {
            return RejectReason.INVALID_PRICE;
        }
        else if (price % instrument.tickSize != 0)
        {
            return RejectReason.PRICE_OFF_TICK;
        }
        final RejectReason quantityReason = checkQuantity(instrument, account, quantity);
        if (quantityReason != null)
        {
            return quantityReason;
        }
        if (quantity <= order.filledQuantity)
        {
            return RejectReason.REPLACE_QUANTITY_NOT_ABOVE_FILLED;
        }
        final boolean priceChanged = price != order.price;
        if (!order.market)
        {
            if (priceChanged && !instrument.insideBand(price))
            {
                return RejectReason.PRICE_OUTSIDE_BAND;
            }
            final long notional = instrument.notional(price, quantity);
            if (notional == Amounts.OVERFLOW ||
                Instrument.buyReservation(notional, account.maxFeePpm(instrument)) == Amounts.OVERFLOW)
            {
                return RejectReason.NOTIONAL_OVERFLOW;
            }
            if (account.maxOrderNotional > 0 && notional > account.maxOrderNotional)
            {
                return RejectReason.ACCOUNT_MAX_ORDER_NOTIONAL;
            }
        }
        if (newClientOrderId != 0 && newClientOrderId != order.clientOrderId &&
            account.openOrdersByClientOrderId.containsKey(newClientOrderId))
        {
            return RejectReason.DUPLICATE_CLIENT_ORDER_ID;
        }
        if (stop)
        {
            if (stopPrice != 0 && wouldTrigger(instrument, order.side, stopPrice))
            {
                return RejectReason.STOP_WOULD_TRIGGER;
            }
        }
        else if (priceChanged && (order.postOnly || state == TradingState.POST_ONLY) &&
            wouldTake(instrument, order.side, price, nowNs))
        {
            return order.postOnly ? RejectReason.POST_ONLY_WOULD_TAKE : RejectReason.INSTRUMENT_POST_ONLY;
        }
        final long remaining = quantity - order.filledQuantity;
        final long newReservation = reservation(order, price, remaining, account.maxFeePpm(instrument));
        if (newReservation - reservation(order) > account.available[reservedAssetIndex(order)])
        {
            return RejectReason.INSUFFICIENT_BALANCE;
        }
        return null;
    }

    /**
     * Symbols travel in fixed 16-byte ASCII fields of events and snapshots.
     */
    private static boolean validSymbol(final String symbol)
    {
        if (symbol == null || symbol.isEmpty() || symbol.length() > MAX_SYMBOL_LENGTH)
        {
            return false;
        }
        for (int i = 0; i < symbol.length(); i++)
        {
            final char c = symbol.charAt(i);
            if (c <= ' ' || c > '~')
            {
                return false;
            }
        }
        return true;
    }

    private static boolean validScale(final int scale)
    {
        return scale >= 0 && scale <= Amounts.MAX_SCALE;
    }

    private static long exactRatio(final long numerator, final long denominator)
    {
        if (numerator == Amounts.OVERFLOW || numerator % denominator != 0)
        {
            return 0;
        }
        return numerator / denominator;
    }

    /**
     * @return whether the last trade price has reached the stop price already: such a stop would trigger at once.
     */
    private static boolean wouldTrigger(final Instrument instrument, final Side side, final long stopPrice)
    {
        final long lastTradePrice = instrument.lastTradePrice;
        return lastTradePrice > 0 && instrument.stops(side).triggers(stopPrice, lastTradePrice);
    }

    private static boolean wouldTake(final Instrument instrument, final Side side, final long price, final long nowNs)
    {
        final OrderBook book = instrument.book;
        Order best = book.best(opposite(side));
        // Matching would expire, not take, the orders that are due.
        while (best != null && best.isDue(nowNs))
        {
            best = book.next(best);
        }
        return best != null && (side == Side.BUY ? best.price <= price : best.price >= price);
    }

    static Side opposite(final Side side)
    {
        return side == Side.BUY ? Side.SELL : Side.BUY;
    }

    // ------------------------------------------------------------------------------------------------ matching

    /**
     * Trade the taker against the opposite side until it is filled, its price stops crossing, or a rule stops it.
     *
     * @return why the taker must stop and not rest (a market order's limit, or self-trade prevention), or null when
     * it stopped because it is filled, the book is empty or no longer crosses.
     */
    private CancelReason match(final Order taker, final boolean market, final long nowNs)
    {
        final Instrument instrument = taker.instrument;
        final OrderBook book = instrument.book;
        final boolean buy = taker.isBuy();
        final boolean byQuoteAmount = market && taker.quantity == 0;
        final boolean banded = market && instrument.hasBand();
        final long bandLowPrice = instrument.bandLowPrice;
        final long bandHighPrice = instrument.bandHighPrice;
        final int takerFeePpm = feePpm(taker, taker.account.takerFeePpm(instrument));
        // A buy by quote amount names no quantity, so the quantity limits it was not checked against bound its fills.
        final long quantityCap = byQuoteAmount ? quantityCap(instrument, taker.account) : 0;

        Order maker = book.best(opposite(taker.side));
        while (maker != null)
        {
            final long remaining = byQuoteAmount ? quantityCap - taker.filledQuantity : taker.remainingQuantity();
            if (remaining == 0)
            {
                return byQuoteAmount ? CancelReason.QUANTITY_LIMIT : null;
            }
            final long makerPrice = maker.price;
            if (market)
            {
                if (banded && (makerPrice < bandLowPrice || makerPrice > bandHighPrice))
                {
                    return CancelReason.PRICE_BAND;
                }
            }
            else if (buy ? makerPrice > taker.price : makerPrice < taker.price)
            {
                return null;
            }

            final Order nextMaker = book.next(maker);
            if (maker.isDue(nowNs))
            {
                expire(maker, nowNs);
                maker = nextMaker;
                continue;
            }
            if (maker.account == taker.account)
            {
                final CancelReason stop = preventSelfTrade(taker, maker, byQuoteAmount, nowNs);
                if (stop != null)
                {
                    return stop;
                }
                maker = nextMaker;
                continue;
            }

            final long lotSize = instrument.lotSize;
            final long notionalPerLot = (makerPrice / instrument.tickSize) * instrument.quotePerTickLot;
            long lots = Math.min(remaining, maker.remainingQuantity()) / lotSize;
            if (lots == 0)
            {
                // Only a buy by quote amount within a lot of its quantity cap: a remaining quantity is whole lots.
                return CancelReason.QUANTITY_LIMIT;
            }
            if (market)
            {
                final long cappedLots = notionalCapRemaining / notionalPerLot;
                if (cappedLots == 0)
                {
                    return CancelReason.NOTIONAL_LIMIT;
                }
                lots = Math.min(lots, cappedLots);
                if (buy)
                {
                    final long affordable = affordableLots(marketBudget, notionalPerLot, takerFeePpm, lots);
                    if (affordable == 0)
                    {
                        return byQuoteAmount ? CancelReason.QUOTE_AMOUNT_SPENT : CancelReason.INSUFFICIENT_BALANCE;
                    }
                    lots = affordable;
                }
            }

            fill(taker, maker, lots * lotSize, lots * notionalPerLot, market, nowNs);
            if (maker.remainingQuantity() == 0)
            {
                maker = nextMaker;
            }
        }
        return null;
    }

    /**
     * @return the most a market buy by quote amount may fill: the lower of the instrument's and the account's maximum
     * order quantity, or {@link Long#MAX_VALUE} when neither is set.
     */
    private static long quantityCap(final Instrument instrument, final Account account)
    {
        final long instrumentCap = instrument.maxQuantity > 0 ? instrument.maxQuantity : Long.MAX_VALUE;
        return Math.min(instrumentCap, account.maxOrderQuantity > 0 ? account.maxOrderQuantity : Long.MAX_VALUE);
    }

    /**
     * @return the largest number of lots, at most {@code maxLots}, whose notional plus taker fee fits the budget.
     */
    private static long affordableLots(final long budget, final long notionalPerLot, final int feePpm, final long maxLots)
    {
        if (affordable(maxLots, notionalPerLot, feePpm, budget))
        {
            return maxLots;
        }
        // The fee is at most notional × feePpm / 1e6, so this many lots always fit; search the few above it.
        long low = budget / (notionalPerLot + Amounts.fee(notionalPerLot, feePpm) + 1);
        long high = Math.min(maxLots, budget / notionalPerLot);
        while (low < high)
        {
            final long mid = (low + high + 1) >>> 1;
            if (affordable(mid, notionalPerLot, feePpm, budget))
            {
                low = mid;
            }
            else
            {
                high = mid - 1;
            }
        }
        return low;
    }

    /**
     * @return whether the lots' notional plus fee fits the budget. A fee raised since the maker rested can take them
     * past a long: more than any budget, even one of {@link Long#MAX_VALUE}.
     */
    private static boolean affordable(final long lots, final long notionalPerLot, final int feePpm, final long budget)
    {
        final long notional = Amounts.multiply(lots, notionalPerLot);
        final long cost = notional == Amounts.OVERFLOW ? Amounts.OVERFLOW : Instrument.buyReservation(notional, feePpm);
        return cost != Amounts.OVERFLOW && cost <= budget;
    }

    /**
     * Apply the taker's self-trade prevention mode against a resting order of the same account.
     *
     * @return the reason the taker must stop, or null to go on matching with the next resting order.
     */
    private CancelReason preventSelfTrade(
        final Order taker, final Order maker, final boolean byQuoteAmount, final long nowNs)
    {
        switch (taker.selfTradePrevention)
        {
            case CANCEL_AGGRESSOR:
                return CancelReason.SELF_TRADE_PREVENTION;

            case CANCEL_BOTH:
                cancelResting(maker, CancelReason.SELF_TRADE_PREVENTION, nowNs);
                return CancelReason.SELF_TRADE_PREVENTION;

            case DECREMENT:
                if (!byQuoteAmount)
                {
                    final long overlap = Math.min(taker.remainingQuantity(), maker.remainingQuantity());
                    decrementTaker(taker, overlap, nowNs);
                    if (overlap < maker.remainingQuantity())
                    {
                        decrementResting(maker, overlap, nowNs);
                    }
                    else
                    {
                        cancelResting(maker, CancelReason.SELF_TRADE_PREVENTION, nowNs);
                    }
                    return taker.remainingQuantity() == 0 ? CancelReason.SELF_TRADE_PREVENTION : null;
                }
                // Without a base quantity the whole resting order overlaps: it is canceled, as with CANCEL_RESTING.
                cancelResting(maker, CancelReason.SELF_TRADE_PREVENTION, nowNs);
                return null;

            default:
                cancelResting(maker, CancelReason.SELF_TRADE_PREVENTION, nowNs);
                return null;
        }
    }

    private void decrementTaker(final Order taker, final long overlap, final long nowNs)
    {
        final long oldReservation = reservation(taker);
        taker.quantity -= overlap;
        taker.updatedNs = nowNs;
        if (taker.remainingQuantity() > 0)
        {
            listener.onOrderRestated(
                taker.orderId, taker.clientOrderId, taker.account.accountId, taker.instrument.instrumentId, taker.side,
                taker.price, taker.quantity, taker.filledQuantity, nowNs);
        }
        release(taker, oldReservation - reservation(taker), nowNs);
    }

    private void decrementResting(final Order maker, final long overlap, final long nowNs)
    {
        final long oldReservation = reservation(maker);
        maker.quantity -= overlap;
        maker.updatedNs = nowNs;
        maker.instrument.book.reduced(maker, overlap);
        listener.onOrderRestated(
            maker.orderId, maker.clientOrderId, maker.account.accountId, maker.instrument.instrumentId, maker.side,
            maker.price, maker.quantity, maker.filledQuantity, nowNs);
        release(maker, oldReservation - reservation(maker), nowNs);
        publishLevel(maker.instrument, maker.side, maker.price, nowNs);
    }

    /**
     * Walk the opposite side as matching would, without changing anything, to decide whether a FOK order can be
     * filled completely: resting orders of the same account count only when they would simply be canceled.
     */
    private boolean canFillCompletely(final Order taker, final boolean market, final long nowNs)
    {
        final Instrument instrument = taker.instrument;
        final boolean buy = taker.isBuy();
        final int takerFeePpm = feePpm(taker, taker.account.takerFeePpm(instrument));
        long needed = taker.remainingQuantity();
        long budget = marketBudget;
        long notionalCap = notionalCapRemaining;
        for (Order maker = instrument.book.best(opposite(taker.side)); maker != null; maker = instrument.book.next(maker))
        {
            final long makerPrice = maker.price;
            if (market ? !instrument.insideBand(makerPrice) : (buy ? makerPrice > taker.price : makerPrice < taker.price))
            {
                return false;
            }
            if (maker.isDue(nowNs))
            {
                continue;
            }
            if (maker.account == taker.account)
            {
                if (taker.selfTradePrevention == SelfTradePrevention.CANCEL_RESTING)
                {
                    continue;
                }
                return false;
            }
            final long quantity = Math.min(needed, maker.remainingQuantity());
            if (market)
            {
                final long notional = instrument.notional(makerPrice, quantity);
                if (notional > notionalCap)
                {
                    return false;
                }
                notionalCap -= notional;
                if (buy)
                {
                    final long cost = Instrument.buyReservation(notional, takerFeePpm);
                    if (cost == Amounts.OVERFLOW || cost > budget)
                    {
                        return false;
                    }
                    budget -= cost;
                }
            }
            needed -= quantity;
            if (needed == 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the fee rate an order pays now: the rate in force (its account's own, or the instrument's), but for a
     * buy no more than its reservation holds.
     */
    private static int feePpm(final Order order, final int feePpmInForce)
    {
        return order.isBuy() ? Math.min(feePpmInForce, order.feeReservePpm) : feePpmInForce;
    }

    /**
     * One fill between taker and maker at the maker's price: update both orders, settle balances and fees, publish
     * the trade, the four balance changes and the maker's level, and retire the maker if it is filled.
     */
    private void fill(
        final Order taker, final Order maker, final long quantity, final long notional, final boolean market,
        final long nowNs)
    {
        final Instrument instrument = taker.instrument;
        final long price = maker.price;
        final long makerFee = Amounts.fee(notional, feePpm(maker, maker.account.makerFeePpm(instrument)));
        final long takerFee = Amounts.fee(notional, feePpm(taker, taker.account.takerFeePpm(instrument)));
        final long baseAmount = instrument.baseAmount(quantity);
        final int baseIndex = instrument.baseAsset.index;
        final int quoteIndex = instrument.quoteAsset.index;

        final long makerReleased = reservationReleasedByFill(maker, quantity);
        final long takerReleased = market ? 0 : reservationReleasedByFill(taker, quantity);
        maker.filledQuantity += quantity;
        maker.executedNotional += notional;
        maker.updatedNs = nowNs;
        taker.filledQuantity += quantity;
        taker.executedNotional += notional;
        taker.updatedNs = nowNs;

        final Account makerAccount = maker.account;
        final Account takerAccount = taker.account;
        if (taker.isBuy())
        {
            settleBuyer(takerAccount, baseIndex, quoteIndex, baseAmount, notional + takerFee, takerReleased, market);
            settleSeller(makerAccount, baseIndex, quoteIndex, baseAmount, notional - makerFee, false);
        }
        else
        {
            settleSeller(takerAccount, baseIndex, quoteIndex, baseAmount, notional - takerFee, market);
            settleBuyer(makerAccount, baseIndex, quoteIndex, baseAmount, notional + makerFee, makerReleased, false);
        }
        if (market)
        {
            notionalCapRemaining -= notional;
            if (taker.isBuy())
            {
                marketBudget -= notional + takerFee;
            }
        }
        instrument.quoteAsset.feesCollected += makerFee + takerFee;
        if (instrument.commandTradeHigh < price)
        {
            instrument.commandTradeHigh = price;
        }
        if (instrument.commandTradeLow == 0 || instrument.commandTradeLow > price)
        {
            instrument.commandTradeLow = price;
        }
        if (instrument.lastTradePrice != price)
        {
            instrument.lastTradePrice = price;
            instrument.updateBand();
        }

        final long takerRemaining = taker.quantity == 0 ? 0 : taker.remainingQuantity();
        listener.onTrade(
            nextTradeId++, instrument.instrumentId, price, quantity, taker.side,
            maker.orderId, maker.clientOrderId, makerAccount.accountId,
            maker.filledQuantity, maker.remainingQuantity(), maker.executedNotional, makerFee,
            taker.orderId, taker.clientOrderId, takerAccount.accountId,
            taker.filledQuantity, takerRemaining, taker.executedNotional, takerFee, nowNs);
        publishBalance(makerAccount, baseIndex, BalanceChangeReason.TRADE, nowNs);
        publishBalance(makerAccount, quoteIndex, BalanceChangeReason.TRADE, nowNs);
        publishBalance(takerAccount, baseIndex, BalanceChangeReason.TRADE, nowNs);
        publishBalance(takerAccount, quoteIndex, BalanceChangeReason.TRADE, nowNs);

        final OrderBook book = instrument.book;
        book.reduced(maker, quantity);
        if (maker.remainingQuantity() == 0)
        {
            book.remove(maker);
            listener.onBookLevelChanged(
                instrument.instrumentId, maker.side, price, book.levelQuantity(), book.levelOrderCount(), nowNs);
            complete(maker);
        }
        else
        {
            listener.onBookLevelChanged(
                instrument.instrumentId, maker.side, price, book.levelQuantity(), book.levelOrderCount(), nowNs);
        }
    }

    private static void settleBuyer(
        final Account account, final int baseIndex, final int quoteIndex, final long baseAmount, final long cost,
        final long released, final boolean market)
    {
        if (market)
        {
            account.available[quoteIndex] -= cost;
        }
        else
        {
            account.reserved[quoteIndex] -= released;
            account.available[quoteIndex] += released - cost;
        }
        account.available[baseIndex] += baseAmount;
    }

    private static void settleSeller(
        final Account account, final int baseIndex, final int quoteIndex, final long baseAmount, final long proceeds,
        final boolean market)
    {
        if (market)
        {
            account.available[baseIndex] -= baseAmount;
        }
        else
        {
            account.reserved[baseIndex] -= baseAmount;
        }
        account.available[quoteIndex] += proceeds;
    }

    // ------------------------------------------------------------------------------------------------ lifecycle

    private void rest(final Order order, final long nowNs)
    {
        index(order);
        addToBook(order, nowNs);
    }

    /**
     * Make the order findable as open (by id, by client order id, by expiry); a stop order that triggers and rests is
     * indexed already.
     */
    private void index(final Order order)
    {
        order.account.openOrdersByClientOrderId.put(order.clientOrderId, order);
        ordersById.put(order.orderId, order);
        if (order.timeInForce == TimeInForce.GTD && order.expiryIndex < 0)
        {
            expiryQueue.add(order);
        }
    }

    private void addToBook(final Order order, final long nowNs)
    {
        final OrderBook book = order.instrument.book;
        book.add(order);
        listener.onBookLevelChanged(
            order.instrument.instrumentId, order.side, order.price, book.levelQuantity(), book.levelOrderCount(), nowNs);
    }

    /**
     * End a taker that will not rest: report its cancellation and release what it still holds.
     */
    private void finishTaker(final Order order, final CancelReason reason, final long nowNs)
    {
        listener.onOrderCanceled(
            order.orderId, order.clientOrderId, order.account.accountId, order.instrument.instrumentId, order.side,
            order.price, order.quantity, order.filledQuantity, order.executedNotional, reason, nowNs);
        release(order, reservation(order), nowNs);
        complete(order);
    }

    private void cancelResting(final Order order, final CancelReason reason, final long nowNs)
    {
        listener.onOrderCanceled(
            order.orderId, order.clientOrderId, order.account.accountId, order.instrument.instrumentId, order.side,
            order.price, order.quantity, order.filledQuantity, order.executedNotional, reason, nowNs);
        retireResting(order, nowNs);
    }

    private void expire(final Order order, final long nowNs)
    {
        listener.onOrderExpired(
            order.orderId, order.clientOrderId, order.account.accountId, order.instrument.instrumentId, order.side,
            order.price, order.quantity, order.filledQuantity, order.executedNotional, nowNs);
        retireResting(order, nowNs);
    }

    private void retireResting(final Order order, final long nowNs)
    {
        release(order, reservation(order), nowNs);
        if (order.isUntriggeredStop())
        {
            order.instrument.stops(order.side).remove(order);
        }
        else
        {
            final OrderBook book = order.instrument.book;
            book.remove(order);
            listener.onBookLevelChanged(
                order.instrument.instrumentId, order.side, order.price, book.levelQuantity(), book.levelOrderCount(),
                nowNs);
        }
        complete(order);
    }

    /**
     * Forget an order that is no longer open and return it to the pool.
     */
    private void complete(final Order order)
    {
        if (ordersById.remove(order.orderId) != null)
        {
            order.account.openOrdersByClientOrderId.remove(order.clientOrderId);
        }
        if (order.expiryIndex >= 0)
        {
            expiryQueue.remove(order);
        }
        orderPool.release(order);
    }

    // ------------------------------------------------------------------------------------------------ balances

    /**
     * What an open order holds reserved: quote for a limit buy (notional at its price plus the largest fee), base for
     * a sell, for its remaining quantity; an untriggered stop market buy its quote amount (none when it names a
     * quantity: it spends what is available when it triggers). A market order in the market holds nothing.
     */
    static long reservation(final Order order)
    {
        return order.market && !order.isUntriggeredStop() ? 0 :
            reservation(order, order.price, order.remainingQuantity(), order.feeReservePpm);
    }

    /**
     * What the order would hold reserved on these terms (a replace's, before it is applied): a stop market buy its
     * quote amount, which a replace cannot change.
     */
    private static long reservation(final Order order, final long price, final long remaining, final int feePpm)
    {
        final Instrument instrument = order.instrument;
        if (!order.isBuy())
        {
            return instrument.baseAmount(remaining);
        }
        return order.market ? order.quoteAmount : Instrument.buyReservation(instrument.notional(price, remaining), feePpm);
    }

    private static long reservationReleasedByFill(final Order order, final long quantity)
    {
        if (!order.isBuy())
        {
            return 0;
        }
        final Instrument instrument = order.instrument;
        final long remaining = order.remainingQuantity();
        return Instrument.buyReservation(instrument.notional(order.price, remaining), order.feeReservePpm) -
            Instrument.buyReservation(instrument.notional(order.price, remaining - quantity), order.feeReservePpm);
    }

    private static int reservedAssetIndex(final Order order)
    {
        return order.isBuy() ? order.instrument.quoteAsset.index : order.instrument.baseAsset.index;
    }

    private void reserve(final Order order, final long nowNs)
    {
        final long amount = reservation(order);
        if (amount == 0)
        {
            return;
        }
        final Account account = order.account;
        final int assetIndex = reservedAssetIndex(order);
        account.available[assetIndex] -= amount;
        account.reserved[assetIndex] += amount;
        publishBalance(account, assetIndex, BalanceChangeReason.RESERVE, nowNs);
    }

    private void release(final Order order, final long amount, final long nowNs)
    {
        if (amount == 0)
        {
            return;
        }
        final Account account = order.account;
        final int assetIndex = reservedAssetIndex(order);
        account.reserved[assetIndex] -= amount;
        account.available[assetIndex] += amount;
        publishBalance(account, assetIndex, BalanceChangeReason.RELEASE, nowNs);
    }

    private void publishBalance(
        final Account account, final int assetIndex, final BalanceChangeReason reason, final long nowNs)
    {
        listener.onBalanceChanged(
            account.accountId, assetsByIndex[assetIndex].assetId, account.available[assetIndex],
            account.reserved[assetIndex], reason, nowNs);
    }

    private void publishLevel(final Instrument instrument, final Side side, final long price, final long nowNs)
    {
        final OrderBook book = instrument.book;
        listener.onBookLevelChanged(
            instrument.instrumentId, side, price, book.levelQuantity(), book.levelOrderCount(), nowNs);
    }

    private void transfer(
        final TransferDirection direction,
        final long transactionId,
        final long accountId,
        final int assetId,
        final long amount,
        final long nowNs)
    {
        lastTimestampNs = nowNs;
        final CommandType commandType = direction == TransferDirection.DEPOSIT ? CommandType.DEPOSIT : CommandType.WITHDRAW;
        final Asset asset = assets.get(assetId);
        Account account = accounts.get(accountId);
        RejectReason reason = null;
        if (transactionId <= 0)
        {
            reason = RejectReason.INVALID_TRANSACTION_ID;
        }
        else if (accountId <= 0)
        {
            reason = RejectReason.INVALID_ACCOUNT;
        }
        else if (asset == null)
        {
            reason = RejectReason.UNKNOWN_ASSET;
        }
        else if (amount <= 0)
        {
            reason = RejectReason.INVALID_AMOUNT;
        }
        else if (transactionIds.contains(transactionId))
        {
            listener.onTransferProcessed(transactionId, accountId, assetId, amount, direction, false, nowNs);
            return;
        }
        else if (direction == TransferDirection.DEPOSIT)
        {
            if (Amounts.add(asset.totalSupply, amount) == Amounts.OVERFLOW)
            {
                reason = RejectReason.BALANCE_OVERFLOW;
            }
        }
        else if (account == null)
        {
            reason = RejectReason.UNKNOWN_ACCOUNT;
        }
        else if (account.available[asset.index] < amount)
        {
            reason = RejectReason.INSUFFICIENT_BALANCE;
        }
        if (reason != null)
        {
            listener.onCommandRejected(commandType, reason, accountId, 0, 0, 0, nowNs);
            return;
        }

        if (account == null)
        {
            account = accountOrCreate(accountId);
        }
        final long signedAmount = direction == TransferDirection.DEPOSIT ? amount : -amount;
        account.available[asset.index] += signedAmount;
        asset.totalSupply += signedAmount;
        transactionIds.add(transactionId);
        listener.onTransferProcessed(transactionId, accountId, assetId, amount, direction, true, nowNs);
        publishBalance(account, asset.index,
            direction == TransferDirection.DEPOSIT ? BalanceChangeReason.DEPOSIT : BalanceChangeReason.WITHDRAWAL, nowNs);
    }

    // ------------------------------------------------------------------------------------------------ state

    Account accountOrCreate(final long accountId)
    {
        Account account = accounts.get(accountId);
        if (account == null)
        {
            account = new Account(accountId, assetsByIndex.length);
            accounts.put(accountId, account);
        }
        return account;
    }

    void addAsset(final Asset asset)
    {
        if (assetCount == assetsByIndex.length)
        {
            assetsByIndex = Arrays.copyOf(assetsByIndex, assetCount * 2);
            for (final Account account : accounts.values())
            {
                account.ensureAssets(assetsByIndex.length);
            }
        }
        assetsByIndex[assetCount++] = asset;
        assets.put(asset.assetId, asset);
    }

    /**
     * @return the account's open order named by order id (or client order id when the order id is 0), or null after
     * rejecting the command with UNKNOWN_ACCOUNT or UNKNOWN_ORDER.
     */
    private Order findOpenOrder(
        final CommandType commandType, final long accountId, final long orderId, final long clientOrderId,
        final long nowNs)
    {
        final Account account = accounts.get(accountId);
        final Order order = account == null ? null : findUnexpiredOrder(account, orderId, clientOrderId, nowNs);
        if (order == null)
        {
            listener.onCommandRejected(
                commandType, account == null ? RejectReason.UNKNOWN_ACCOUNT : RejectReason.UNKNOWN_ORDER,
                accountId, orderId, clientOrderId, 0, nowNs);
        }
        return order;
    }

    /**
     * Find an open order; one whose expiry has come before the expiry sweep retired it is expired now, and not found,
     * so that a replace cannot trade it and a cancel or query does not report it open.
     */
    private Order findUnexpiredOrder(
        final Account account, final long orderId, final long clientOrderId, final long nowNs)
    {
        final Order order = findOrder(account, orderId, clientOrderId);
        if (order != null && order.isDue(nowNs))
        {
            expire(order, nowNs);
            return null;
        }
        return order;
    }

    private Order findOrder(final Account account, final long orderId, final long clientOrderId)
    {
        if (orderId != 0)
        {
            final Order order = ordersById.get(orderId);
            return order != null && order.account == account ? order : null;
        }
        return account.openOrdersByClientOrderId.get(clientOrderId);
    }
}
