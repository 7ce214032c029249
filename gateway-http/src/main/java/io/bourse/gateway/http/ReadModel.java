package io.bourse.gateway.http;

import io.bourse.protocol.AccountDefaults;
import io.bourse.protocol.codec.AccountFeesChangedDecoder;
import io.bourse.protocol.codec.AccountLimitsChangedDecoder;
import io.bourse.protocol.codec.AccountRecordDecoder;
import io.bourse.protocol.codec.AssetDefinedDecoder;
import io.bourse.protocol.codec.AssetRecordDecoder;
import io.bourse.protocol.codec.BalanceChangedDecoder;
import io.bourse.protocol.codec.BookLevelChangedDecoder;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.CancelAllAfterChangedDecoder;
import io.bourse.protocol.codec.InstrumentDefinedDecoder;
import io.bourse.protocol.codec.InstrumentRecordDecoder;
import io.bourse.protocol.codec.KillSwitchChangedDecoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.OrderAcceptedDecoder;
import io.bourse.protocol.codec.OrderCanceledDecoder;
import io.bourse.protocol.codec.OrderExpiredDecoder;
import io.bourse.protocol.codec.OrderRecordDecoder;
import io.bourse.protocol.codec.OrderReplacedDecoder;
import io.bourse.protocol.codec.OrderTriggeredDecoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.OrderRestatedDecoder;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.SnapshotBeginDecoder;
import io.bourse.protocol.codec.SnapshotEndDecoder;
import io.bourse.protocol.codec.TradeDecoder;
import io.bourse.protocol.codec.TradingStateChangedDecoder;
import io.bourse.protocol.codec.TransactionIdBlocksRecordDecoder;
import io.bourse.protocol.codec.TransactionIdsRecordDecoder;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The gateway's view of the exchange, built from the engine state at one log position and the event batches after
 * it: instruments, L2 books, recent trades, balances, open and recent orders, fills. Owned by the gateway thread
 * except {@link #instrumentsBySymbol()}, which request threads read.
 */
final class ReadModel
{
    static final int RECENT_TRADES = 200;
    static final int RECENT_FILLS = 1000;
    static final int RECENT_CLOSED_ORDERS = 1000;
    /**
     * Default bounds of the closed orders and of the fills kept for all accounts together. An account keeps its most
     * recent ones up to the per-account bounds above, but the oldest kept go first once all accounts' together pass
     * these: with per-account bounds alone the gateway's memory would grow with the number of accounts that ever
     * traded (about 350 KB each). Older history is the post-trade store's.
     */
    static final int DEFAULT_RECENT_CLOSED_ORDERS_ALL_ACCOUNTS = 100_000;
    static final int DEFAULT_RECENT_FILLS_ALL_ACCOUNTS = 100_000;

    /**
     * One executed trade.
     */
    record TradeView(long tradeId, int instrumentId, long price, long quantity, String takerSide, long timestampNs)
    {
    }

    /**
     * One side of a trade, as the account that traded sees it.
     */
    record FillView(
        long accountId, long tradeId, long orderId, long clientOrderId, int instrumentId, String side, String liquidity,
        long price, long quantity, long fee, long timestampNs)
    {
    }

    /**
     * One change of an L2 level.
     */
    record LevelChange(String side, long price, long quantity, int orderCount)
    {
    }

    /**
     * A book side level: aggregate remaining quantity and order count.
     */
    static final class Level
    {
        long quantity;
        int orderCount;
    }

    /**
     * Market state of one instrument.
     */
    static final class Market
    {
        final TreeMap<Long, Level> bids = new TreeMap<>(Comparator.reverseOrder());
        final TreeMap<Long, Level> asks = new TreeMap<>();
        final ArrayDeque<TradeView> trades = new ArrayDeque<>();
        long sequence;
        long lastPrice;
        /**
         * The last 24 hours of its trades, minute by minute: the ticker's day and the candles.
         */
        final MinuteBars bars = new MinuteBars();
    }

    /**
     * An account's balances and orders.
     */
    static final class AccountState
    {
        final Int2ObjectHashMap<long[]> balances = new Int2ObjectHashMap<>();
        final Long2ObjectHashMap<OrderView> openOrders = new Long2ObjectHashMap<>();
        final LinkedHashMap<Long, OrderView> closedOrders = new LinkedHashMap<>()
        {
            private static final long serialVersionUID = 1L;

            protected boolean removeEldestEntry(final Map.Entry<Long, OrderView> eldest)
            {
                return size() > RECENT_CLOSED_ORDERS;
            }
        };
        final ArrayDeque<FillView> fills = new ArrayDeque<>();
        /**
         * The account's limits and kill switch, as the engine holds them: until the state or an event says
         * otherwise, a new account's (no limits, switch off, the engine's default self-trade prevention).
         */
        long maxOrderQuantity;
        long maxOrderNotional;
        int maxOpenOrders;
        SelfTradePrevention defaultSelfTradePrevention = AccountDefaults.SELF_TRADE_PREVENTION;
        boolean killSwitch;
        /**
         * The account's own fee rates on every instrument, in millionths of notional, or -1 for the instruments'.
         */
        int makerFeePpm = -1;
        int takerFeePpm = -1;
        /**
         * The account's cancel-all-after switch as the exchange holds it: the timeout it was armed with and when it
         * triggers (cluster time); both 0 while disarmed.
         */
        long cancelAllAfterTimeoutMs;
        long cancelAllAfterDeadlineNs;
    }

    /**
     * What one batch changed, for the market data and private channels.
     */
    static final class Changes
    {
        final LinkedHashMap<Integer, List<LevelChange>> levels = new LinkedHashMap<>();
        final List<TradeView> trades = new ArrayList<>();
        final List<OrderView> orders = new ArrayList<>();
        final List<FillView> fills = new ArrayList<>();
        final List<Long> fillAccounts = new ArrayList<>();
        /**
         * The accounts whose balances changed.
         */
        final LongHashSet balanceAccounts = new LongHashSet();
        boolean instrumentsChanged;

        void clear()
        {
            levels.clear();
            trades.clear();
            orders.clear();
            fills.clear();
            fillAccounts.clear();
            // A batch that moved many accounts' balances (an expiry sweep) must not leave every later batch clearing a
            // large table.
            final boolean large = balanceAccounts.size() > 256;
            balanceAccounts.clear();
            if (large)
            {
                balanceAccounts.compact();
            }
            instrumentsChanged = false;
        }
    }

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final OrderAcceptedDecoder accepted = new OrderAcceptedDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final OrderCanceledDecoder canceled = new OrderCanceledDecoder();
    private final OrderReplacedDecoder replaced = new OrderReplacedDecoder();
    private final OrderTriggeredDecoder triggered = new OrderTriggeredDecoder();
    private final OrderExpiredDecoder expired = new OrderExpiredDecoder();
    private final OrderRestatedDecoder restated = new OrderRestatedDecoder();
    private final BookLevelChangedDecoder level = new BookLevelChangedDecoder();
    private final BalanceChangedDecoder balance = new BalanceChangedDecoder();
    private final AssetDefinedDecoder assetDefined = new AssetDefinedDecoder();
    private final InstrumentDefinedDecoder instrumentDefined = new InstrumentDefinedDecoder();
    private final TradingStateChangedDecoder tradingStateChanged = new TradingStateChangedDecoder();
    private final AccountLimitsChangedDecoder accountLimitsChanged = new AccountLimitsChangedDecoder();
    private final AccountFeesChangedDecoder accountFeesChanged = new AccountFeesChangedDecoder();
    private final KillSwitchChangedDecoder killSwitchChanged = new KillSwitchChangedDecoder();
    private final CancelAllAfterChangedDecoder cancelAllAfterChanged = new CancelAllAfterChangedDecoder();
    private final AssetRecordDecoder assetRecord = new AssetRecordDecoder();
    private final InstrumentRecordDecoder instrumentRecord = new InstrumentRecordDecoder();
    private final SnapshotBeginDecoder snapshotBegin = new SnapshotBeginDecoder();
    private final AccountRecordDecoder accountRecord = new AccountRecordDecoder();
    private final OrderRecordDecoder orderRecord = new OrderRecordDecoder();
    private final TransactionIdsRecordDecoder transactionIdsRecord = new TransactionIdsRecordDecoder();
    private final TransactionIdBlocksRecordDecoder transactionIdBlocksRecord = new TransactionIdBlocksRecordDecoder();

    private final Int2ObjectHashMap<String> assetSymbols = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<Integer> assetScales = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<InstrumentView> instruments = new Int2ObjectHashMap<>();
    private final ConcurrentHashMap<String, InstrumentView> instrumentsBySymbol = new ConcurrentHashMap<>();
    private final Int2ObjectHashMap<Market> markets = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<AccountState> accounts = new Long2ObjectHashMap<>();
    /**
     * The accounts' ids in order, for the admin's list a page at a time.
     */
    private final TreeSet<Long> accountIds = new TreeSet<>();
    private final int closedOrdersAllAccounts;
    private final int fillsAllAccounts;
    /**
     * Every account's kept closed orders and fills (and some already dropped by an account's own bound), oldest first.
     */
    private final ArrayDeque<OrderView> closedOrdersOldestFirst = new ArrayDeque<>();
    private final ArrayDeque<FillView> fillsOldestFirst = new ArrayDeque<>();
    private long lastTimestampNs;
    /**
     * Trades the markets' bars lack, oldest first: those made before the gateway's first state, and those made while
     * it was cut off from the exchange (a gap it fetched the state again across); filled from the post-trade store
     * when the gateway has one.
     */
    private final List<MissingTrades> missingTrades = new CopyOnWriteArrayList<>();
    /**
     * The range the last state loaded left missing, or null.
     */
    private MissingTrades missingTradesOfLastState;
    /**
     * The highest trade id the gateway knows of: applied, or below a state's next trade id.
     */
    private long lastTradeId;
    private boolean globalKillSwitch;
    private int cancelAllAfterArmed;
    private long cancelAllAfterTriggered;
    /**
     * Before the first state, nothing is counted: the bars are complete from the gateway's start at best.
     */
    private long barsFromNs = System.currentTimeMillis() * 1_000_000L;

    /**
     * @param closedOrdersAllAccounts closed orders kept for all accounts together.
     * @param fillsAllAccounts        fills kept for all accounts together.
     */
    ReadModel(final int closedOrdersAllAccounts, final int fillsAllAccounts)
    {
        this.closedOrdersAllAccounts = closedOrdersAllAccounts;
        this.fillsAllAccounts = fillsAllAccounts;
    }

    Map<String, InstrumentView> instrumentsBySymbol()
    {
        return Collections.unmodifiableMap(instrumentsBySymbol);
    }

    InstrumentView instrument(final int instrumentId)
    {
        return instruments.get(instrumentId);
    }

    Collection<InstrumentView> instruments()
    {
        return instruments.values();
    }

    Market market(final int instrumentId)
    {
        return markets.computeIfAbsent(instrumentId, ignored -> new Market());
    }

    AccountState account(final long accountId)
    {
        AccountState account = accounts.get(accountId);
        if (account == null)
        {
            account = new AccountState();
            accounts.put(accountId, account);
            accountIds.add(accountId);
        }
        return account;
    }

    /**
     * @return whether the exchange's kill switch for every account is on.
     */
    boolean globalKillSwitch()
    {
        return globalKillSwitch;
    }

    /**
     * @return how many accounts of the exchange have their cancel-all-after switch armed.
     */
    int cancelAllAfterArmed()
    {
        return cancelAllAfterArmed;
    }

    /**
     * @return how many cancel-all-after switches have triggered since the gateway started, as its events told it
     * (one that triggered while the gateway was cut off, across a gap its state was fetched over, is not counted).
     */
    long cancelAllAfterTriggered()
    {
        return cancelAllAfterTriggered;
    }

    private void setCancelAllAfter(final AccountState account, final long timeoutMs, final long deadlineNs)
    {
        cancelAllAfterArmed += (deadlineNs != 0 ? 1 : 0) - (account.cancelAllAfterDeadlineNs != 0 ? 1 : 0);
        account.cancelAllAfterTimeoutMs = timeoutMs;
        account.cancelAllAfterDeadlineNs = deadlineNs;
    }

    /**
     * @return the ids of the accounts the exchange has, in order, after {@code afterAccountId}: at most {@code limit}.
     */
    long[] accountIds(final long afterAccountId, final int limit)
    {
        final long[] ids = new long[(int)Math.min(limit, accountIds.size())];
        int count = 0;
        for (final Iterator<Long> it = accountIds.tailSet(afterAccountId, false).iterator(); it.hasNext() && count < limit; )
        {
            ids[count++] = it.next();
        }
        return Arrays.copyOf(ids, count);
    }

    AccountState existingAccount(final long accountId)
    {
        return accounts.get(accountId);
    }

    String assetSymbol(final int assetId)
    {
        final String symbol = assetSymbols.get(assetId);
        return symbol != null ? symbol : Integer.toString(assetId);
    }

    boolean hasAsset(final int assetId)
    {
        return assetSymbols.containsKey(assetId);
    }

    int assetScale(final int assetId)
    {
        final Integer scale = assetScales.get(assetId);
        return scale != null ? scale : 0;
    }

    Iterable<Integer> assetIds()
    {
        return assetSymbols.keySet();
    }

    OrderView order(final long accountId, final long orderId)
    {
        final AccountState account = accounts.get(accountId);
        if (account == null)
        {
            return null;
        }
        final OrderView open = account.openOrders.get(orderId);
        return open != null ? open : account.closedOrders.get(orderId);
    }

    /**
     * The account's open order with the client order id (the engine keeps those unique), else the most recent of its
     * recent closed orders with it. A scan of the account's orders: a lookup for a client that had no answer, not a
     * hot path.
     */
    OrderView orderByClientOrderId(final long accountId, final long clientOrderId)
    {
        final AccountState account = accounts.get(accountId);
        if (account == null)
        {
            return null;
        }
        for (final OrderView order : account.openOrders.values())
        {
            if (order.clientOrderId == clientOrderId)
            {
                return order;
            }
        }
        OrderView newest = null;
        for (final OrderView order : account.closedOrders.values())
        {
            if (order.clientOrderId == clientOrderId)
            {
                newest = order;
            }
        }
        return newest;
    }

    /**
     * Trade ids [fromTradeId, toTradeId) the bars lack, all made by {@code untilNs} (the time of the state after them).
     */
    record MissingTrades(long fromTradeId, long toTradeId, long untilNs)
    {
    }

    /**
     * @return since when (epoch nanoseconds) the markets' {@link Market#bars} hold every trade of the exchange: after
     * the last range still missing, if any.
     */
    long barsFromNs()
    {
        long from = barsFromNs;
        for (int i = 0; i < missingTrades.size(); i++)
        {
            from = Math.max(from, missingTrades.get(i).untilNs());
        }
        return from;
    }

    /**
     * @return the range of trades the last state loaded left missing, or null when it left none.
     */
    MissingTrades missingTradesOfLastState()
    {
        return missingTradesOfLastState;
    }

    /**
     * Whether the range is still missing (not since joined, or dropped with another cluster's state). Read from any
     * thread: the reader of the post-trade store asks before waiting for a range.
     */
    boolean isMissing(final MissingTrades range)
    {
        for (final MissingTrades missing : missingTrades)
        {
            if (missing == range)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Count trades that were missing (by instrument: those of the range within the day), unless the range is no longer
     * missing (the gateway has since loaded another cluster's state).
     *
     * @return whether they were counted.
     */
    boolean joinMissingTrades(final MissingTrades range, final Map<Integer, MinuteBars> found)
    {
        if (!missingTrades.removeIf(missing -> missing == range))
        {
            return false;
        }
        found.forEach((instrumentId, bars) -> market(instrumentId).bars.join(bars));
        return true;
    }

    /**
     * @return now, for the ticker's day and the candles: the wall clock, or the exchange's time when that is ahead,
     * so that a trade is never after "now".
     */
    long nowNs()
    {
        return Math.max(System.currentTimeMillis() * 1_000_000L, lastTimestampNs);
    }

    long lastTimestampNs()
    {
        return lastTimestampNs;
    }

    /**
     * Replace the engine's state with the snapshot records in the buffer.
     *
     * @param keepHistory whether the accounts' recent closed orders and fills are kept: they are not the engine's
     *                    state but what the gateway saw of the same exchange's history (those of the gap the state
     *                    was fetched across are not among them); not when the state is another cluster's.
     */
    void loadState(final DirectBuffer buffer, final int offset, final int length, final boolean keepHistory)
    {
        instruments.clear();
        instrumentsBySymbol.clear();
        if (keepHistory)
        {
            for (final AccountState account : accounts.values())
            {
                account.balances.clear();
                account.openOrders.clear();
            }
        }
        else
        {
            accounts.clear();
            accountIds.clear();
            cancelAllAfterArmed = 0;
            closedOrdersOldestFirst.clear();
            fillsOldestFirst.clear();
            // Another cluster's trades: what the bars held, or lacked, is not of this one.
            missingTrades.clear();
            lastTradeId = 0;
        }
        for (final Market market : markets.values())
        {
            market.bids.clear();
            market.asks.clear();
            if (!keepHistory)
            {
                market.bars.clear();
            }
        }
        missingTradesOfLastState = null;
        final int end = offset + length;
        int position = offset;
        while (position < end)
        {
            header.wrap(buffer, position);
            final int bodyOffset = position + MessageHeaderDecoder.ENCODED_LENGTH;
            final int blockLength = header.blockLength();
            final int version = header.version();
            final int templateId = header.templateId();
            switch (templateId)
            {
                case SnapshotBeginDecoder.TEMPLATE_ID ->
                {
                    snapshotBegin.wrap(buffer, bodyOffset, blockLength, version);
                    globalKillSwitch = snapshotBegin.globalKillSwitch() == BooleanType.TRUE;
                    barsFromNs = Long.MIN_VALUE;
                    // The trades below the state's next trade id that the gateway has not applied were made before
                    // the state, by its time: every later one it applies.
                    if (snapshotBegin.nextTradeId() - 1 > lastTradeId)
                    {
                        missingTradesOfLastState = new MissingTrades(lastTradeId + 1, snapshotBegin.nextTradeId(),
                            snapshotBegin.timestampNs());
                        // A range made more than a day ago is of no day's account: without a store, none is read.
                        final long dayAgoNs = snapshotBegin.timestampNs() - MinuteBars.MINUTES * MinuteBars.MINUTE_NS;
                        missingTrades.removeIf(missing -> missing.untilNs() < dayAgoNs);
                        missingTrades.add(missingTradesOfLastState);
                        lastTradeId = snapshotBegin.nextTradeId() - 1;
                    }
                    position = bodyOffset + blockLength;
                }
                case SnapshotEndDecoder.TEMPLATE_ID -> position = bodyOffset + blockLength;
                case AssetRecordDecoder.TEMPLATE_ID ->
                {
                    assetRecord.wrap(buffer, bodyOffset, blockLength, version);
                    defineAsset(assetRecord.assetId(), assetRecord.scale(), assetRecord.symbol().trim());
                    position = bodyOffset + blockLength;
                }
                case InstrumentRecordDecoder.TEMPLATE_ID ->
                {
                    final InstrumentRecordDecoder r = instrumentRecord.wrap(buffer, bodyOffset, blockLength, version);
                    defineInstrument(r.instrumentId(), r.symbol().trim(), r.baseAssetId(), r.quoteAssetId(), r.priceScale(),
                        r.tickSize(), r.quantityScale(), r.lotSize(), r.minQuantity(), r.maxQuantity(), r.priceBandBps(),
                        r.referencePrice(), r.makerFeePpm(), r.takerFeePpm(), r.tradingState().name());
                    market(r.instrumentId()).lastPrice = r.lastTradePrice();
                    position = bodyOffset + blockLength;
                }
                case AccountRecordDecoder.TEMPLATE_ID ->
                {
                    accountRecord.wrap(buffer, bodyOffset, blockLength, version);
                    final AccountState account = account(accountRecord.accountId());
                    account.maxOrderQuantity = accountRecord.maxOrderQuantity();
                    account.maxOrderNotional = accountRecord.maxOrderNotional();
                    account.maxOpenOrders = accountRecord.maxOpenOrders();
                    account.defaultSelfTradePrevention = accountRecord.defaultSelfTradePrevention();
                    account.killSwitch = accountRecord.killSwitch() == BooleanType.TRUE;
                    // A record from before accounts had rates of their own holds none: the instruments'.
                    account.makerFeePpm = accountRecord.makerFeePpm() == AccountRecordDecoder.makerFeePpmNullValue() ?
                        -1 : accountRecord.makerFeePpm();
                    account.takerFeePpm = accountRecord.takerFeePpm() == AccountRecordDecoder.takerFeePpmNullValue() ?
                        -1 : accountRecord.takerFeePpm();
                    // A record from before the switch holds none: disarmed.
                    setCancelAllAfter(account,
                        Math.max(0, accountRecord.cancelAllAfterTimeoutMs()),
                        Math.max(0, accountRecord.cancelAllAfterDeadlineNs()));
                    for (final AccountRecordDecoder.BalancesDecoder b : accountRecord.balances())
                    {
                        account.balances.put(b.assetId(), new long[]{ b.available(), b.reserved() });
                    }
                    position = accountRecord.limit();
                }
                case OrderRecordDecoder.TEMPLATE_ID ->
                {
                    final OrderRecordDecoder r = orderRecord.wrap(buffer, bodyOffset, blockLength, version);
                    final OrderView order = new OrderView();
                    order.orderId = r.orderId();
                    order.clientOrderId = r.clientOrderId();
                    order.accountId = r.accountId();
                    order.instrumentId = r.instrumentId();
                    order.side = r.side().name();
                    // Records from before stop orders hold only resting limit orders.
                    order.type = r.orderType() == OrderType.MARKET ? "MARKET" : "LIMIT";
                    order.timeInForce = r.timeInForce().name();
                    order.price = r.price();
                    order.quantity = r.quantity();
                    order.quoteAmount = orZero(r.quoteAmount(), OrderRecordDecoder.quoteAmountNullValue());
                    order.stopPrice = orZero(r.stopPrice(), OrderRecordDecoder.stopPriceNullValue());
                    order.filledQuantity = r.filledQuantity();
                    order.executedNotional = r.executedNotional();
                    order.postOnly = r.postOnly() == BooleanType.TRUE;
                    order.selfTradePrevention = tradingMode(r.selfTradePrevention());
                    order.expiryNs = r.expiryTimeNs();
                    order.createdNs = time(r.createdTimeNs());
                    order.updatedNs = time(r.updatedTimeNs());
                    order.status = order.filledQuantity > 0 ? "PARTIALLY_FILLED" : "NEW";
                    account(order.accountId).openOrders.put(order.orderId, order);
                    if (order.stopPrice == 0)
                    {
                        final Market market = market(order.instrumentId);
                        final Level resting = (r.side() == Side.BUY ? market.bids : market.asks)
                            .computeIfAbsent(order.price, ignored -> new Level());
                        resting.quantity += order.quantity - order.filledQuantity;
                        resting.orderCount++;
                    }
                    position = bodyOffset + blockLength;
                }
                case TransactionIdsRecordDecoder.TEMPLATE_ID ->
                {
                    // From a node of an earlier version (snapshot format 1).
                    transactionIdsRecord.wrap(buffer, bodyOffset, blockLength, version);
                    final TransactionIdsRecordDecoder.TransactionIdsDecoder ids = transactionIdsRecord.transactionIds();
                    position = bodyOffset + blockLength + TransactionIdsRecordDecoder.TransactionIdsDecoder.sbeHeaderSize() +
                        ids.count() * ids.actingBlockLength();
                }
                case TransactionIdBlocksRecordDecoder.TEMPLATE_ID ->
                {
                    transactionIdBlocksRecord.wrap(buffer, bodyOffset, blockLength, version);
                    final TransactionIdBlocksRecordDecoder.BlocksDecoder blocks = transactionIdBlocksRecord.blocks();
                    position = bodyOffset + blockLength +
                        TransactionIdBlocksRecordDecoder.BlocksDecoder.sbeHeaderSize() +
                        blocks.count() * blocks.actingBlockLength();
                }
                default -> throw new IllegalStateException("unexpected record " + templateId + " in the engine state");
            }
        }
        for (final Market market : markets.values())
        {
            market.sequence++;
        }
    }

    /**
     * Apply one batch of engine events.
     */
    void apply(final DirectBuffer buffer, final int offset, final int length, final Changes changes)
    {
        final int end = offset + length;
        int position = offset;
        while (position < end)
        {
            header.wrap(buffer, position);
            final int bodyOffset = position + MessageHeaderDecoder.ENCODED_LENGTH;
            final int blockLength = header.blockLength();
            final int version = header.version();
            switch (header.templateId())
            {
                case OrderAcceptedDecoder.TEMPLATE_ID -> onAccepted(accepted.wrap(buffer, bodyOffset, blockLength, version), changes);
                case TradeDecoder.TEMPLATE_ID -> onTrade(trade.wrap(buffer, bodyOffset, blockLength, version), changes);
                case OrderCanceledDecoder.TEMPLATE_ID ->
                {
                    final OrderCanceledDecoder e = canceled.wrap(buffer, bodyOffset, blockLength, version);
                    final OrderView order = order(e.accountId(), e.orderId());
                    if (order != null)
                    {
                        order.filledQuantity = e.filledQuantity();
                        order.executedNotional = e.executedNotional();
                        order.cancelReason = e.reason().name();
                        close(order, "CANCELED", e.timestampNs(), changes);
                    }
                }
                case OrderExpiredDecoder.TEMPLATE_ID ->
                {
                    final OrderExpiredDecoder e = expired.wrap(buffer, bodyOffset, blockLength, version);
                    final OrderView order = order(e.accountId(), e.orderId());
                    if (order != null)
                    {
                        close(order, "EXPIRED", e.timestampNs(), changes);
                    }
                }
                case OrderReplacedDecoder.TEMPLATE_ID ->
                {
                    final OrderReplacedDecoder e = replaced.wrap(buffer, bodyOffset, blockLength, version);
                    final OrderView order = order(e.accountId(), e.orderId());
                    if (order != null)
                    {
                        order.clientOrderId = e.clientOrderId();
                        order.price = e.price();
                        order.quantity = e.quantity();
                        order.filledQuantity = e.filledQuantity();
                        order.updatedNs = e.timestampNs();
                        // 0 for an order that is not (or no longer) waiting for its stop price: the one it had stays.
                        final long stopPrice = orZero(e.stopPrice(), OrderReplacedDecoder.stopPriceNullValue());
                        if (stopPrice != 0)
                        {
                            order.stopPrice = stopPrice;
                        }
                        changes.orders.add(order);
                    }
                }
                case OrderTriggeredDecoder.TEMPLATE_ID ->
                {
                    final OrderTriggeredDecoder e = triggered.wrap(buffer, bodyOffset, blockLength, version);
                    final OrderView order = order(e.accountId(), e.orderId());
                    if (order != null)
                    {
                        order.triggeredNs = e.timestampNs();
                        order.updatedNs = e.timestampNs();
                        changes.orders.add(order);
                    }
                }
                case OrderRestatedDecoder.TEMPLATE_ID ->
                {
                    final OrderRestatedDecoder e = restated.wrap(buffer, bodyOffset, blockLength, version);
                    final OrderView order = order(e.accountId(), e.orderId());
                    if (order != null)
                    {
                        order.quantity = e.quantity();
                        order.filledQuantity = e.filledQuantity();
                        order.updatedNs = e.timestampNs();
                        changes.orders.add(order);
                    }
                }
                case BookLevelChangedDecoder.TEMPLATE_ID ->
                {
                    final BookLevelChangedDecoder e = level.wrap(buffer, bodyOffset, blockLength, version);
                    final Market market = market(e.instrumentId());
                    final TreeMap<Long, Level> side = e.side() == Side.BUY ? market.bids : market.asks;
                    if (e.quantity() == 0)
                    {
                        side.remove(e.price());
                    }
                    else
                    {
                        final Level l = side.computeIfAbsent(e.price(), ignored -> new Level());
                        l.quantity = e.quantity();
                        l.orderCount = e.orderCount();
                    }
                    changes.levels.computeIfAbsent(e.instrumentId(), ignored -> new ArrayList<>())
                        .add(new LevelChange(e.side().name(), e.price(), e.quantity(), e.orderCount()));
                }
                case BalanceChangedDecoder.TEMPLATE_ID ->
                {
                    final BalanceChangedDecoder e = balance.wrap(buffer, bodyOffset, blockLength, version);
                    account(e.accountId()).balances.put(e.assetId(), new long[]{ e.available(), e.reserved() });
                    changes.balanceAccounts.add(e.accountId());
                }
                case AssetDefinedDecoder.TEMPLATE_ID ->
                {
                    final AssetDefinedDecoder e = assetDefined.wrap(buffer, bodyOffset, blockLength, version);
                    defineAsset(e.assetId(), e.scale(), e.symbol().trim());
                    changes.instrumentsChanged = true;
                }
                case InstrumentDefinedDecoder.TEMPLATE_ID ->
                {
                    final InstrumentDefinedDecoder r = instrumentDefined.wrap(buffer, bodyOffset, blockLength, version);
                    defineInstrument(r.instrumentId(), r.symbol().trim(), r.baseAssetId(), r.quoteAssetId(), r.priceScale(),
                        r.tickSize(), r.quantityScale(), r.lotSize(), r.minQuantity(), r.maxQuantity(), r.priceBandBps(),
                        r.referencePrice(), r.makerFeePpm(), r.takerFeePpm(), r.tradingState().name());
                    changes.instrumentsChanged = true;
                }
                case TradingStateChangedDecoder.TEMPLATE_ID ->
                {
                    final TradingStateChangedDecoder e = tradingStateChanged.wrap(buffer, bodyOffset, blockLength, version);
                    final InstrumentView i = instruments.get(e.instrumentId());
                    if (i != null)
                    {
                        putInstrument(new InstrumentView(i.id(), i.symbol(), i.baseAssetId(), i.baseAsset(), i.baseScale(),
                            i.quoteAssetId(), i.quoteAsset(), i.quoteScale(), i.priceScale(), i.tickSize(), i.quantityScale(),
                            i.lotSize(), i.minQuantity(), i.maxQuantity(), i.priceBandBps(), i.referencePrice(),
                            i.makerFeePpm(), i.takerFeePpm(), e.tradingState().name()));
                    }
                    changes.instrumentsChanged = true;
                }
                case AccountLimitsChangedDecoder.TEMPLATE_ID ->
                {
                    final AccountLimitsChangedDecoder e = accountLimitsChanged.wrap(buffer, bodyOffset, blockLength, version);
                    final AccountState account = account(e.accountId());
                    account.maxOrderQuantity = e.maxOrderQuantity();
                    account.maxOrderNotional = e.maxOrderNotional();
                    account.maxOpenOrders = e.maxOpenOrders();
                    account.defaultSelfTradePrevention = e.defaultSelfTradePrevention();
                }
                case AccountFeesChangedDecoder.TEMPLATE_ID ->
                {
                    final AccountFeesChangedDecoder e = accountFeesChanged.wrap(buffer, bodyOffset, blockLength, version);
                    final AccountState account = account(e.accountId());
                    account.makerFeePpm = e.makerFeePpm();
                    account.takerFeePpm = e.takerFeePpm();
                }
                case CancelAllAfterChangedDecoder.TEMPLATE_ID ->
                {
                    final CancelAllAfterChangedDecoder e = cancelAllAfterChanged.wrap(buffer, bodyOffset, blockLength, version);
                    if (e.triggered() == BooleanType.TRUE)
                    {
                        setCancelAllAfter(account(e.accountId()), 0, 0);
                        cancelAllAfterTriggered++;
                    }
                    else
                    {
                        setCancelAllAfter(account(e.accountId()), e.timeoutMs(), e.deadlineNs());
                    }
                }
                case KillSwitchChangedDecoder.TEMPLATE_ID ->
                {
                    final KillSwitchChangedDecoder e = killSwitchChanged.wrap(buffer, bodyOffset, blockLength, version);
                    if (e.accountId() == 0)
                    {
                        globalKillSwitch = e.active() == BooleanType.TRUE;
                    }
                    else
                    {
                        account(e.accountId()).killSwitch = e.active() == BooleanType.TRUE;
                    }
                }
                default ->
                {
                    // Events that change nothing the gateway shows: transfers, status reports.
                }
            }
            position = bodyOffset + header.blockLength();
        }
    }

    private void onAccepted(final OrderAcceptedDecoder e, final Changes changes)
    {
        final OrderView order = new OrderView();
        order.orderId = e.orderId();
        order.clientOrderId = e.clientOrderId();
        order.accountId = e.accountId();
        order.instrumentId = e.instrumentId();
        order.side = e.side().name();
        order.type = e.orderType().name();
        order.timeInForce = e.timeInForce().name();
        order.price = e.price();
        order.quantity = e.quantity();
        order.quoteAmount = e.quoteAmount();
        order.postOnly = e.postOnly() == BooleanType.NULL_VAL ? null : e.postOnly() == BooleanType.TRUE;
        order.selfTradePrevention = tradingMode(e.selfTradePrevention());
        order.expiryNs = time(e.expiryTimeNs());
        order.stopPrice = orZero(e.stopPrice(), OrderAcceptedDecoder.stopPriceNullValue());
        order.status = "NEW";
        order.createdNs = e.timestampNs();
        order.updatedNs = e.timestampNs();
        lastTimestampNs = e.timestampNs();
        account(order.accountId).openOrders.put(order.orderId, order);
        changes.orders.add(order);
    }

    /**
     * A time a message of schema version 0 does not hold reads as SBE's null value: unknown, shown as 0.
     */
    private static long time(final long value)
    {
        return value == OrderRecordDecoder.createdTimeNsNullValue() ? 0 : value;
    }

    /**
     * @return the value, or 0 for SBE's null value: a field a message of an earlier schema version does not hold.
     */
    private static long orZero(final long value, final long nullValue)
    {
        return value == nullValue ? 0 : value;
    }

    private static String tradingMode(final SelfTradePrevention mode)
    {
        return mode == SelfTradePrevention.NULL_VAL ? null : mode.name();
    }

    private void onTrade(final TradeDecoder e, final Changes changes)
    {
        final long timestampNs = e.timestampNs();
        lastTimestampNs = timestampNs;
        final String takerSide = e.takerSide().name();
        final String makerSide = e.takerSide() == Side.BUY ? "SELL" : "BUY";
        final TradeView view = new TradeView(e.tradeId(), e.instrumentId(), e.price(), e.quantity(), takerSide, timestampNs);
        final Market market = market(e.instrumentId());
        market.trades.addFirst(view);
        if (market.trades.size() > RECENT_TRADES)
        {
            market.trades.removeLast();
        }
        market.lastPrice = e.price();
        market.bars.add(e.tradeId(), timestampNs, e.price(), e.quantity());
        lastTradeId = Math.max(lastTradeId, e.tradeId());
        changes.trades.add(view);

        fill(e.makerAccountId(), e.makerOrderId(), e.makerClientOrderId(), e.makerFilledQuantity(),
            e.makerRemainingQuantity(), e.makerExecutedNotional(), new FillView(e.makerAccountId(), e.tradeId(),
                e.makerOrderId(), e.makerClientOrderId(), e.instrumentId(), makerSide, "MAKER", e.price(), e.quantity(),
                e.makerFee(), timestampNs), changes);
        fill(e.takerAccountId(), e.takerOrderId(), e.takerClientOrderId(), e.takerFilledQuantity(),
            e.takerRemainingQuantity(), e.takerExecutedNotional(), new FillView(e.takerAccountId(), e.tradeId(),
                e.takerOrderId(), e.takerClientOrderId(), e.instrumentId(), takerSide, "TAKER", e.price(), e.quantity(),
                e.takerFee(), timestampNs), changes);
    }

    private void fill(
        final long accountId, final long orderId, final long clientOrderId, final long filled, final long remaining,
        final long executedNotional, final FillView fill, final Changes changes)
    {
        final AccountState account = account(accountId);
        account.fills.addFirst(fill);
        if (account.fills.size() > RECENT_FILLS)
        {
            account.fills.removeLast();
        }
        fillsOldestFirst.addLast(fill);
        while (fillsOldestFirst.size() > fillsAllAccounts)
        {
            // An account's fills are in time order too: the oldest of all, if its account still keeps it, is its last.
            final FillView oldest = fillsOldestFirst.removeFirst();
            final AccountState owner = accounts.get(oldest.accountId());
            if (owner != null && owner.fills.peekLast() == oldest)
            {
                owner.fills.removeLast();
            }
        }
        changes.fills.add(fill);
        changes.fillAccounts.add(accountId);
        final OrderView order = order(accountId, orderId);
        if (order != null)
        {
            order.filledQuantity = filled;
            order.executedNotional = executedNotional;
            order.clientOrderId = clientOrderId;
            if (remaining == 0)
            {
                close(order, "FILLED", fill.timestampNs(), changes);
            }
            else
            {
                order.status = "PARTIALLY_FILLED";
                order.updatedNs = fill.timestampNs();
                changes.orders.add(order);
            }
        }
    }

    private void close(final OrderView order, final String status, final long timestampNs, final Changes changes)
    {
        // A market buy by quote amount ends as canceled (QUOTE_AMOUNT_SPENT) after its fills: it is done, not canceled
        // (the post-trade store's history says the same).
        order.status = "CANCELED".equals(status) && "QUOTE_AMOUNT_SPENT".equals(order.cancelReason) &&
            order.filledQuantity > 0 ? "FILLED" : status;
        order.updatedNs = timestampNs;
        final AccountState account = account(order.accountId);
        if (account.openOrders.remove(order.orderId) != null || !account.closedOrders.containsKey(order.orderId))
        {
            account.closedOrders.put(order.orderId, order);
            closedOrdersOldestFirst.addLast(order);
            while (closedOrdersOldestFirst.size() > closedOrdersAllAccounts)
            {
                final OrderView oldest = closedOrdersOldestFirst.removeFirst();
                final AccountState owner = accounts.get(oldest.accountId);
                if (owner != null && owner.closedOrders.get(oldest.orderId) == oldest)
                {
                    owner.closedOrders.remove(oldest.orderId);
                }
            }
        }
        changes.orders.add(order);
    }

    private void defineAsset(final int assetId, final int scale, final String symbol)
    {
        assetSymbols.put(assetId, symbol);
        assetScales.put(assetId, Integer.valueOf(scale));
    }

    private void defineInstrument(
        final int id, final String symbol, final int baseAssetId, final int quoteAssetId, final int priceScale,
        final long tickSize, final int quantityScale, final long lotSize, final long minQuantity, final long maxQuantity,
        final int priceBandBps, final long referencePrice, final int makerFeePpm, final int takerFeePpm,
        final String tradingState)
    {
        putInstrument(new InstrumentView(id, symbol, baseAssetId, assetSymbol(baseAssetId), assetScale(baseAssetId),
            quoteAssetId, assetSymbol(quoteAssetId), assetScale(quoteAssetId), priceScale, tickSize, quantityScale, lotSize,
            minQuantity, maxQuantity, priceBandBps, referencePrice, makerFeePpm, takerFeePpm, tradingState));
        market(id);
    }

    private void putInstrument(final InstrumentView view)
    {
        final InstrumentView previous = instruments.put(view.id(), view);
        if (previous != null && !previous.symbol().equals(view.symbol()))
        {
            instrumentsBySymbol.remove(previous.symbol());
        }
        instrumentsBySymbol.put(view.symbol(), view);
    }

    /**
     * @return up to {@code depth} levels of a side, best first, as {@code [price, quantity, orderCount]}.
     */
    static List<long[]> levels(final TreeMap<Long, Level> side, final int depth)
    {
        final List<long[]> levels = new ArrayList<>(Math.min(depth, side.size()));
        final Iterator<Map.Entry<Long, Level>> iterator = side.entrySet().iterator();
        while (iterator.hasNext() && levels.size() < depth)
        {
            final Map.Entry<Long, Level> entry = iterator.next();
            levels.add(new long[]{ entry.getKey(), entry.getValue().quantity, entry.getValue().orderCount });
        }
        return levels;
    }
}
