package io.bourse.bench;

import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EngineListener;
import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.CancelOrderEncoder;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.DefineAssetEncoder;
import io.bourse.protocol.codec.DefineInstrumentEncoder;
import io.bourse.protocol.codec.DepositEncoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.NewOrderEncoder;
import io.bourse.protocol.codec.OrderStatus;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.ReplaceOrderEncoder;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.TransferDirection;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * A seeded command stream with the shape of exchange-core's benchmark generator (TestOrdersGenerator): one
 * instrument, a fixed set of accounts, a book kept near a target number of resting orders (half a side), and a
 * steady-state mix of about 12.6 % GTC limit orders, 1.8 % sweeping IOC orders, 7.2 % cancels, 71 % moves (a price
 * change replace 1 % of the way toward the last trade price) and 7.2 % reduces (a quantity-down replace), sizes 1 to
 * 126 lots.
 * <p>
 * The generator runs its own {@link Engine} on the very bytes it encodes and follows the events, so cancels, moves
 * and reduces always name live orders (by the order id the engine will assign again on replay) and GTC prices
 * follow the last trade. Commands are encoded as SBE messages, back to back, in one off-heap buffer: a setup part
 * (assets, instrument, deposits, the book fill) and a measured part. Replaying the setup into a fresh engine
 * reproduces the generator's state exactly, so the measured part then does the same work again.
 * <p>
 * Differences from exchange-core, on purpose: a reduce by the whole remaining quantity, which exchange-core treats
 * as a removal, is sent as a cancel and counted apart; every order carries a real clientOrderId, balances are
 * reserved, fees charged and self-trade prevention applied (the account default, cancel the aggressor).
 */
public final class ExchangeCoreWorkload
{
    public static final int INSTRUMENT_ID = 1;
    public static final int BASE_ASSET_ID = 1;
    public static final int QUOTE_ASSET_ID = 2;
    /**
     * Starting price in ticks. exchange-core draws one per symbol between 10^3.3 and 10^6.3; GTC prices then fall
     * within a band of 5 % of it (at most 10,000 ticks) from the last trade, and IOC orders are priced five bands
     * beyond it so that they sweep. The
     * book's shape depends on it: 32,000 gives the reference shape (about 500 levels, a 2-tick spread).
     */
    public static final long DEFAULT_CENTRAL_PRICE = 32_000;
    public static final long START_TIME_NS = 1_700_000_000_000_000_000L;

    private static final double MOVE_ALPHA = 0.01;
    private static final int STATS_EVERY_COMMANDS = 512;
    private static final int PICK_AMONG_OLDEST = 512;
    private static final long FUNDING = 1_000_000_000_000L;

    private static final int GTC = 0;
    private static final int IOC = 1;
    private static final int CANCEL = 2;
    private static final int MOVE = 3;
    private static final int REDUCE = 4;
    private static final int REDUCE_TO_CANCEL = 5;
    private static final String[] KIND_NAMES = { "GTC", "IOC", "cancel", "move", "reduce", "reduce-all (cancel)" };

    private final UnsafeBuffer buffer;
    private int[] offsets;
    private int setupCount;
    private int commandCount;
    private int bufferPosition;

    private final long[] kindCounts = new long[KIND_NAMES.length];
    private long tradingCommands;
    private long rejectedCommands;
    private long trades;
    private long statSamples;
    private long sumOrders;
    private long sumLevels;
    private long sumSpread;
    private long spreadSamples;
    private final long[] spreadCounts = new long[64];

    /**
     * Generate a workload.
     *
     * @param seed              of the random stream.
     * @param accounts          number of accounts (ids 1..accounts).
     * @param targetOrders      resting orders to keep (half a side).
     * @param measuredCommands  commands after the fill (at least one is made).
     * @param bufferBytes       off-heap capacity for the encoded stream.
     */
    public static ExchangeCoreWorkload generate(
        final long seed, final int accounts, final int targetOrders, final int measuredCommands, final int bufferBytes)
    {
        return generate(seed, accounts, targetOrders, DEFAULT_CENTRAL_PRICE, measuredCommands, bufferBytes);
    }

    /**
     * Generate a workload around a given starting price, in ticks.
     */
    public static ExchangeCoreWorkload generate(
        final long seed, final int accounts, final int targetOrders, final long centralPrice,
        final int measuredCommands, final int bufferBytes)
    {
        final ExchangeCoreWorkload workload = new ExchangeCoreWorkload(bufferBytes);
        new Generator(workload, seed, accounts, targetOrders, centralPrice).run(measuredCommands);
        return workload;
    }

    private ExchangeCoreWorkload(final int bufferBytes)
    {
        buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(bufferBytes));
        offsets = new int[1 << 20];
    }

    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * Offsets of every message, setup first; {@code offsets[i + 1] - offsets[i]} is message i's length.
     */
    public int[] offsets()
    {
        return offsets;
    }

    /**
     * Messages that build the state: admin, deposits and the book fill. Not measured.
     */
    public int setupCount()
    {
        return setupCount;
    }

    /**
     * All messages, setup included; the measured ones are {@code [setupCount, totalCount)}.
     */
    public int totalCount()
    {
        return commandCount;
    }

    public int measuredCount()
    {
        return commandCount - setupCount;
    }

    /**
     * The time given to command i: 1 µs apart, like a cluster log's timestamps.
     */
    public static long commandTimeNs(final int index)
    {
        return START_TIME_NS + index * 1_000L;
    }

    /**
     * Apply messages {@code [from, to)} to an adapter.
     */
    public void apply(final CommandAdapter adapter, final int from, final int to)
    {
        final UnsafeBuffer buffer = this.buffer;
        final int[] offsets = this.offsets;
        for (int i = from; i < to; i++)
        {
            final int offset = offsets[i];
            adapter.onCommand(buffer, offset, offsets[i + 1] - offset, commandTimeNs(i));
        }
    }

    /**
     * The achieved mix of the measured part and the book shape sampled every 512 commands.
     */
    public String describe()
    {
        final long measured = measuredCount();
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format("measured commands %,d (setup %,d)%n", measured, setupCount));
        for (int k = 0; k < KIND_NAMES.length; k++)
        {
            sb.append(String.format("  %-20s %6.2f %%%n", KIND_NAMES[k], 100.0 * kindCounts[k] / measured));
        }
        sb.append(String.format("  trading commands     %6.2f %%  (%,d trades, %.2f per trading command)%n",
            100.0 * tradingCommands / measured, trades, tradingCommands == 0 ? 0.0 : (double)trades / tradingCommands));
        sb.append(String.format("  rejected commands    %6.2f %%%n", 100.0 * rejectedCommands / measured));
        sb.append(String.format("  avg resting orders %,.0f, avg price levels %,.0f, avg spread %.2f ticks%n",
            (double)sumOrders / Math.max(1, statSamples), (double)sumLevels / Math.max(1, statSamples),
            (double)sumSpread / Math.max(1, spreadSamples)));
        sb.append(String.format("  spread median %d ticks, 90th percentile %d ticks%n",
            spreadPercentile(0.5), spreadPercentile(0.9)));
        return sb.toString();
    }

    private int spreadPercentile(final double fraction)
    {
        long seen = 0;
        for (int spread = 0; spread < spreadCounts.length; spread++)
        {
            seen += spreadCounts[spread];
            if (seen >= fraction * spreadSamples)
            {
                return spread;
            }
        }
        return spreadCounts.length - 1;
    }

    private void markSetupDone()
    {
        setupCount = commandCount;
    }

    private void endMessage(final int length)
    {
        bufferPosition += length;
        commandCount++;
        if (commandCount + 1 >= offsets.length)
        {
            offsets = Arrays.copyOf(offsets, offsets.length * 2);
        }
        offsets[commandCount] = bufferPosition;
    }

    /**
     * Makes the commands while following an engine's events.
     */
    private static final class Generator implements EngineListener
    {
        private final ExchangeCoreWorkload workload;
        private final Random random;
        private final int accounts;
        private final int targetHalf;
        private final Engine engine = new Engine(this, new Engine.Context().initialOrderCapacity(1 << 16));
        private final CommandAdapter adapter = new CommandAdapter(engine);

        private final MessageHeaderEncoder header = new MessageHeaderEncoder();
        private final NewOrderEncoder newOrder = new NewOrderEncoder();
        private final CancelOrderEncoder cancelOrder = new CancelOrderEncoder();
        private final ReplaceOrderEncoder replaceOrder = new ReplaceOrderEncoder();
        private final DefineAssetEncoder defineAsset = new DefineAssetEncoder();
        private final DefineInstrumentEncoder defineInstrument = new DefineInstrumentEncoder();
        private final DepositEncoder deposit = new DepositEncoder();

        // Per order id, as the engine assigns them (1, 2, ...).
        private long[] orderAccount = new long[1 << 16];
        private long[] orderPrice = new long[1 << 16];
        private long[] orderQuantity = new long[1 << 16];
        private long[] orderRemaining = new long[1 << 16];
        private boolean[] orderIsBuy = new boolean[1 << 16];
        // Live orders in the order they were placed (a move keeps its place), as exchange-core's LinkedHashMap.
        private int[] nextLive = new int[1 << 16];
        private int[] previousLive = new int[1 << 16];
        private boolean[] live = new boolean[1 << 16];
        private int liveHead;
        private int liveTail;
        private int liveCount;
        private int liveBuys;
        private int liveSells;

        private final long priceDeviation;
        private final long minPrice;
        private final long maxPrice;
        private long lastTradePrice;
        private long nextClientOrderId = 1;
        private int lastBlockLength;
        private boolean commandTraded;
        private boolean commandRejected;
        private int lastBuyCount;
        private int lastSellCount;
        private boolean filled;
        private final long[] depthPrices = new long[1 << 16];
        private final long[] depthQuantities = new long[1 << 16];
        private final int[] depthCounts = new int[1 << 16];

        Generator(
            final ExchangeCoreWorkload workload, final long seed, final int accounts, final int targetOrders,
            final long centralPrice)
        {
            this.priceDeviation = Math.min(centralPrice / 20, 10_000);
            this.minPrice = centralPrice - priceDeviation * 5;
            this.maxPrice = centralPrice + priceDeviation * 5;
            this.lastTradePrice = centralPrice;
            this.workload = workload;
            this.random = new Random(seed);
            this.accounts = accounts;
            this.targetHalf = targetOrders / 2;
        }

        void run(final int measuredCommands)
        {
            setup();
            final int statsEvery = Math.min(STATS_EVERY_COMMANDS, targetHalf * 2 + 1);
            int measured = 0;
            int sinceStats = 0;
            while (!filled || measured < measuredCommands)
            {
                final int kind = nextCommand();
                if (kind < 0)
                {
                    continue;
                }
                commandTraded = false;
                commandRejected = false;
                apply();
                if (filled)
                {
                    measured++;
                    workload.kindCounts[kind]++;
                    workload.tradingCommands += commandTraded ? 1 : 0;
                    workload.rejectedCommands += commandRejected ? 1 : 0;
                }
                if (++sinceStats >= statsEvery)
                {
                    sinceStats = 0;
                    lastBuyCount = liveBuys;
                    lastSellCount = liveSells;
                    if (filled)
                    {
                        sampleBook();
                    }
                }
            }
        }

        private void setup()
        {
            final UnsafeBuffer buffer = workload.buffer;
            defineAsset.wrapAndApplyHeader(buffer, workload.bufferPosition, header)
                .assetId(BASE_ASSET_ID).scale((short)8).symbol("BTC");
            endAndApply(MessageHeaderEncoder.ENCODED_LENGTH + defineAsset.encodedLength());
            defineAsset.wrapAndApplyHeader(buffer, workload.bufferPosition, header)
                .assetId(QUOTE_ASSET_ID).scale((short)6).symbol("USD");
            endAndApply(MessageHeaderEncoder.ENCODED_LENGTH + defineAsset.encodedLength());
            defineInstrument.wrapAndApplyHeader(buffer, workload.bufferPosition, header)
                .instrumentId(INSTRUMENT_ID).symbol("BTC-USD").baseAssetId(BASE_ASSET_ID).quoteAssetId(QUOTE_ASSET_ID)
                .priceScale((short)2).tickSize(1).quantityScale((short)4).lotSize(1).minQuantity(1).maxQuantity(0)
                .priceBandBps(0).referencePrice(0).makerFeePpm(1_000).takerFeePpm(2_000).tradingState(TradingState.OPEN);
            endAndApply(MessageHeaderEncoder.ENCODED_LENGTH + defineInstrument.encodedLength());
            long transactionId = 1;
            for (long accountId = 1; accountId <= accounts; accountId++)
            {
                for (final int assetId : new int[]{ BASE_ASSET_ID, QUOTE_ASSET_ID })
                {
                    deposit.wrapAndApplyHeader(buffer, workload.bufferPosition, header)
                        .transactionId(transactionId++).accountId(accountId).assetId(assetId).amount(FUNDING);
                    endAndApply(MessageHeaderEncoder.ENCODED_LENGTH + deposit.encodedLength());
                }
            }
        }

        private void endAndApply(final int length)
        {
            final int index = workload.commandCount;
            workload.endMessage(length);
            final int offset = workload.offsets[index];
            adapter.onCommand(workload.buffer, offset, length, commandTimeNs(index));
        }

        private void apply()
        {
            endAndApply(MessageHeaderEncoder.ENCODED_LENGTH + lastBlockLength);
        }

        /**
         * Encode the next command (not yet applied); -1 when none could be made this time.
         */
        private int nextCommand()
        {
            final int lackBuys = targetHalf - lastBuyCount;
            final int lackSells = targetHalf - lastSellCount;
            final boolean buy = random.nextInt(4) >= 2;
            final int lack = buy ? lackBuys : lackSells;
            final boolean requireFastFill = !filled || lack > Math.min(STATS_EVERY_COMMANDS, targetHalf * 3 / 4);
            final boolean grow = lack > 0;
            if (!filled && lackBuys <= 0 && lackSells <= 0)
            {
                filled = true;
                workload.markSetupDone();
            }

            final int q = random.nextInt(grow ? (requireFastFill ? 2 : 10) : 40);
            if (q < 2)
            {
                final long accountId = 1 + random.nextInt(accounts);
                final long size = 1 + random.nextInt(6) * random.nextInt(6) * random.nextInt(6);
                if (grow)
                {
                    final int dev = 1 + (int)(Math.pow(random.nextDouble(), 2) * priceDeviation);
                    long p = 0;
                    for (int i = 0; i < 4; i++)
                    {
                        p += random.nextInt(dev);
                    }
                    p = p / 4 * 2 - dev;
                    // Asks above the last trade, bids below.
                    if (p > 0 ^ !buy)
                    {
                        p = -p;
                    }
                    encodeNewOrder(accountId, buy, TimeInForce.GTC, lastTradePrice + p, size);
                    return GTC;
                }
                encodeNewOrder(accountId, buy, TimeInForce.IOC, buy ? maxPrice : minPrice, size);
                return IOC;
            }

            if (liveCount == 0)
            {
                return -1;
            }
            // Like exchange-core, pick among the oldest live orders only: they are the ones that get moved toward
            // the last trade price, which keeps the spread tight while younger orders spread over many levels.
            int id = liveHead;
            for (int steps = random.nextInt(Math.min(liveCount, PICK_AMONG_OLDEST)); steps > 0; steps--)
            {
                id = nextLive[id];
            }
            final long orderId = id;
            if (q == 2)
            {
                encodeCancel(orderAccount[id], orderId);
                return CANCEL;
            }
            if (q == 3)
            {
                final long remaining = orderRemaining[id];
                final long reduceBy = 1 + random.nextInt((int)remaining);
                if (reduceBy >= remaining)
                {
                    encodeCancel(orderAccount[id], orderId);
                    return REDUCE_TO_CANCEL;
                }
                encodeReplace(orderAccount[id], orderId, orderPrice[id], orderQuantity[id] - reduceBy);
                return REDUCE;
            }

            final long price = orderPrice[id];
            final double move = (lastTradePrice - price) * MOVE_ALPHA;
            final long rounded;
            if (price > lastTradePrice)
            {
                rounded = (long)Math.floor(move);
            }
            else if (price < lastTradePrice)
            {
                rounded = (long)Math.ceil(move);
            }
            else
            {
                rounded = random.nextInt(2) * 2 - 1;
            }
            encodeReplace(orderAccount[id], orderId, price + rounded, orderQuantity[id]);
            return MOVE;
        }

        private void encodeNewOrder(
            final long accountId, final boolean buy, final TimeInForce timeInForce, final long price, final long size)
        {
            newOrder.wrapAndApplyHeader(workload.buffer, workload.bufferPosition, header)
                .accountId(accountId).clientOrderId(nextClientOrderId++).instrumentId(INSTRUMENT_ID)
                .side(buy ? Side.BUY : Side.SELL).orderType(OrderType.LIMIT).timeInForce(timeInForce)
                .postOnly(BooleanType.FALSE).selfTradePrevention(SelfTradePrevention.ACCOUNT_DEFAULT)
                .price(price).quantity(size).quoteAmount(0).expiryTimeNs(0).stopPrice(0);
            lastBlockLength = newOrder.encodedLength();
        }

        private void encodeCancel(final long accountId, final long orderId)
        {
            cancelOrder.wrapAndApplyHeader(workload.buffer, workload.bufferPosition, header)
                .accountId(accountId).orderId(orderId).clientOrderId(0);
            lastBlockLength = cancelOrder.encodedLength();
        }

        private void encodeReplace(final long accountId, final long orderId, final long price, final long quantity)
        {
            replaceOrder.wrapAndApplyHeader(workload.buffer, workload.bufferPosition, header)
                .accountId(accountId).orderId(orderId).origClientOrderId(0).newClientOrderId(0)
                .price(price).quantity(quantity).stopPrice(0);
            lastBlockLength = replaceOrder.encodedLength();
        }

        private void sampleBook()
        {
            final int bids = engine.bookDepth(INSTRUMENT_ID, Side.BUY, depthPrices.length, depthPrices, depthQuantities,
                depthCounts);
            final long bestBid = bids > 0 ? depthPrices[0] : 0;
            final int asks = engine.bookDepth(INSTRUMENT_ID, Side.SELL, depthPrices.length, depthPrices, depthQuantities,
                depthCounts);
            final long bestAsk = asks > 0 ? depthPrices[0] : 0;
            workload.statSamples++;
            workload.sumOrders += liveCount;
            workload.sumLevels += bids + asks;
            if (bids > 0 && asks > 0)
            {
                workload.spreadSamples++;
                workload.sumSpread += bestAsk - bestBid;
                workload.spreadCounts[(int)Math.min(workload.spreadCounts.length - 1, bestAsk - bestBid)]++;
            }
        }

        private void ensureCapacity(final long orderId)
        {
            if (orderId >= orderAccount.length)
            {
                final int length = Math.max(orderAccount.length * 2, (int)orderId + 1);
                orderAccount = Arrays.copyOf(orderAccount, length);
                orderPrice = Arrays.copyOf(orderPrice, length);
                orderQuantity = Arrays.copyOf(orderQuantity, length);
                orderRemaining = Arrays.copyOf(orderRemaining, length);
                orderIsBuy = Arrays.copyOf(orderIsBuy, length);
                nextLive = Arrays.copyOf(nextLive, length);
                previousLive = Arrays.copyOf(previousLive, length);
                live = Arrays.copyOf(live, length);
            }
        }

        private void addLive(final long orderId)
        {
            final int id = (int)orderId;
            live[id] = true;
            nextLive[id] = 0;
            previousLive[id] = liveTail;
            if (liveCount == 0)
            {
                liveHead = id;
            }
            else
            {
                nextLive[liveTail] = id;
            }
            liveTail = id;
            liveCount++;
            if (orderIsBuy[id])
            {
                liveBuys++;
            }
            else
            {
                liveSells++;
            }
        }

        private void removeLive(final long orderId)
        {
            final int id = (int)orderId;
            if (!live[id])
            {
                return;
            }
            live[id] = false;
            final int next = nextLive[id];
            final int previous = previousLive[id];
            if (id == liveHead)
            {
                liveHead = next;
            }
            else
            {
                nextLive[previous] = next;
            }
            if (id == liveTail)
            {
                liveTail = previous;
            }
            else
            {
                previousLive[next] = previous;
            }
            liveCount--;
            if (orderIsBuy[id])
            {
                liveBuys--;
            }
            else
            {
                liveSells--;
            }
        }

        public void onCommandRejected(
            final CommandType commandType, final RejectReason reason, final long accountId, final long orderId,
            final long clientOrderId, final int instrumentId, final long timestampNs)
        {
            commandRejected = true;
        }

        public void onOrderAccepted(
            final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
            final OrderType orderType, final TimeInForce timeInForce, final long price, final long quantity,
            final long quoteAmount, final boolean postOnly, final SelfTradePrevention selfTradePrevention,
            final long expiryTimeNs, final long stopPrice, final long timestampNs)
        {
            ensureCapacity(orderId);
            final int id = (int)orderId;
            orderAccount[id] = accountId;
            orderPrice[id] = price;
            orderQuantity[id] = quantity;
            orderRemaining[id] = quantity;
            orderIsBuy[id] = side == Side.BUY;
            if (timeInForce == TimeInForce.GTC)
            {
                // Live from now on; a fill to zero or a cancel at the end of this command takes it out again.
                addLive(orderId);
            }
        }

        public void onTrade(
            final long tradeId, final int instrumentId, final long price, final long quantity, final Side takerSide,
            final long makerOrderId, final long makerClientOrderId, final long makerAccountId,
            final long makerFilledQuantity, final long makerRemainingQuantity, final long makerExecutedNotional,
            final long makerFee, final long takerOrderId, final long takerClientOrderId, final long takerAccountId,
            final long takerFilledQuantity, final long takerRemainingQuantity, final long takerExecutedNotional,
            final long takerFee, final long timestampNs)
        {
            commandTraded = true;
            if (filled)
            {
                workload.trades++;
            }
            lastTradePrice = Math.min(maxPrice, Math.max(minPrice, price));
            orderRemaining[(int)makerOrderId] = makerRemainingQuantity;
            if (makerRemainingQuantity == 0)
            {
                removeLive(makerOrderId);
            }
            orderRemaining[(int)takerOrderId] = takerRemainingQuantity;
            if (takerRemainingQuantity == 0)
            {
                removeLive(takerOrderId);
            }
        }

        public void onOrderCanceled(
            final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
            final long price, final long quantity, final long filledQuantity, final long executedNotional,
            final CancelReason reason, final long timestampNs)
        {
            removeLive(orderId);
        }

        public void onOrderReplaced(
            final long orderId, final long origClientOrderId, final long clientOrderId, final long accountId,
            final int instrumentId, final Side side, final long price, final long quantity, final long filledQuantity,
            final boolean priorityKept, final long stopPrice, final long timestampNs)
        {
            final int id = (int)orderId;
            orderPrice[id] = price;
            orderQuantity[id] = quantity;
            orderRemaining[id] = quantity - filledQuantity;
        }

        public void onOrderRestated(
            final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
            final long price, final long quantity, final long filledQuantity, final long timestampNs)
        {
            final int id = (int)orderId;
            orderQuantity[id] = quantity;
            orderRemaining[id] = quantity - filledQuantity;
        }

        public void onOrderExpired(
            final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
            final long price, final long quantity, final long filledQuantity, final long executedNotional,
            final long timestampNs)
        {
            removeLive(orderId);
        }

        public void onOrderStatus(
            final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
            final TimeInForce timeInForce, final OrderStatus status, final long price, final long quantity,
            final long filledQuantity, final long executedNotional, final long expiryTimeNs, final OrderType orderType,
            final long stopPrice, final long timestampNs)
        {
        }

        public void onOrderTriggered(
            final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side,
            final OrderType orderType, final long price, final long quantity, final long stopPrice,
            final long triggerPrice, final long timestampNs)
        {
            // The workload enters no stop orders.
        }

        public void onBookLevelChanged(
            final int instrumentId, final Side side, final long price, final long quantity, final int orderCount,
            final long timestampNs)
        {
        }

        public void onBalanceChanged(
            final long accountId, final int assetId, final long available, final long reserved,
            final BalanceChangeReason reason, final long timestampNs)
        {
        }

        public void onTransferProcessed(
            final long transactionId, final long accountId, final int assetId, final long amount,
            final TransferDirection direction, final boolean applied, final long timestampNs)
        {
        }

        public void onMassCancelCompleted(
            final long accountId, final int instrumentId, final Side side, final int canceledCount,
            final long timestampNs)
        {
        }

        public void onAssetDefined(final int assetId, final int scale, final String symbol, final long timestampNs)
        {
        }

        public void onInstrumentDefined(
            final int instrumentId, final String symbol, final int baseAssetId, final int quoteAssetId,
            final int priceScale, final long tickSize, final int quantityScale, final long lotSize,
            final long minQuantity, final long maxQuantity, final int priceBandBps, final long referencePrice,
            final int makerFeePpm, final int takerFeePpm, final TradingState tradingState, final long timestampNs)
        {
        }

        public void onTradingStateChanged(final int instrumentId, final TradingState tradingState, final long timestampNs)
        {
        }

        public void onAccountLimitsChanged(
            final long accountId, final long maxOrderQuantity, final long maxOrderNotional, final int maxOpenOrders,
            final SelfTradePrevention defaultSelfTradePrevention, final long timestampNs)
        {
        }

        public void onKillSwitchChanged(final long accountId, final boolean active, final long timestampNs)
        {
        }

        public void onAccountFeesChanged(
            final long accountId, final int makerFeePpm, final int takerFeePpm, final long timestampNs)
        {
        }

        public void onCancelAllAfterChanged(
            final long accountId,
            final long timeoutMs,
            final long deadlineNs,
            final boolean triggered,
            final int canceledCount,
            final long timestampNs)
        {
        }
    }
}
