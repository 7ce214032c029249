package io.bourse.engine;

import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Drives an engine on the optimised {@link PriceLevelOrderBook} and one on the {@link ReferenceOrderBook} with the
 * same seeded stream of random commands and requires identical events for every command. Between commands it checks
 * that no book is crossed; every {@value #VALIDATE_INTERVAL} commands it checks both engines' invariants
 * (reservations, conservation of every asset) and compares their state hashes.
 * <p>
 * Run with {@code -Dbourse.seed=N} to replay a failure and {@code -Dbourse.commands=N} to change the length.
 */
class BookDifferentialTest
{
    private static final int COMMANDS = Integer.getInteger("bourse.commands", 1_000_000);
    private static final int VALIDATE_INTERVAL = 10_000;
    private static final int ACCOUNTS = 50;
    private static final long UNKNOWN_ACCOUNT = 999;
    private static final int BTC = 1;
    private static final int USD = 2;
    private static final int ETH = 3;
    private static final int[] ASSETS = { BTC, USD, ETH };
    private static final int BTC_USD = 1;
    private static final int ETH_USD = 2;
    private static final int ETH_BTC = 3;
    private static final int[] INSTRUMENTS = { BTC_USD, ETH_USD, ETH_BTC };
    private static final SelfTradePrevention[] STP_MODES = {
        SelfTradePrevention.ACCOUNT_DEFAULT, SelfTradePrevention.CANCEL_RESTING, SelfTradePrevention.CANCEL_AGGRESSOR,
        SelfTradePrevention.CANCEL_BOTH, SelfTradePrevention.DECREMENT };
    private static final TradingState[] NOT_OPEN = { TradingState.HALTED, TradingState.CANCEL_ONLY, TradingState.POST_ONLY };
    private static final int FEW_OPEN_ORDERS = 1_000;
    private static final int MANY_OPEN_ORDERS = 3_000;
    private static final int MAX_DEPTH = 4_096;

    private final EventRecorder fastEvents = new EventRecorder();
    private final EventRecorder referenceEvents = new EventRecorder();
    private final Engine fast = new Engine(fastEvents, new Engine.Context().initialOrderCapacity(1 << 12));
    private final Engine reference = new Engine(
        referenceEvents, new Engine.Context().initialOrderCapacity(1 << 12).orderBookFactory(ReferenceOrderBook::new));

    private final long[] depthPrices = new long[1];
    private final long[] depthQuantities = new long[1];
    private final int[] depthOrderCounts = new int[1];

    private final List<LiveOrder> liveOrders = new ArrayList<>();
    private final HashMap<Long, LiveOrder> liveById = new HashMap<>();
    private final long[] nextClientOrderId = new long[ACCOUNTS + 1];
    private final InstrumentModel[] models = new InstrumentModel[INSTRUMENTS.length];
    private final long[] tradingStateRestoreAt = new long[INSTRUMENTS.length];
    private final long[] killSwitchOffAt = new long[ACCOUNTS + 1];

    private SplittableRandom random;
    private long nowNs = 1_700_000_000_000_000_000L;
    private long nextTransactionId = 1;
    private long commandIndex;
    private String lastCommand = "setup";
    private long trades;

    private static final class LiveOrder
    {
        final long orderId;
        final long accountId;
        final int instrumentId;
        final Side side;
        long clientOrderId;
        long price;
        long quantity;
        long filledQuantity;
        int index;

        LiveOrder(final long orderId, final long accountId, final int instrumentId, final Side side, final long clientOrderId,
            final long price, final long quantity)
        {
            this.orderId = orderId;
            this.accountId = accountId;
            this.instrumentId = instrumentId;
            this.side = side;
            this.clientOrderId = clientOrderId;
            this.price = price;
            this.quantity = quantity;
        }
    }

    /**
     * What the generator knows about an instrument: its grid and a mid price that drifts.
     */
    private record InstrumentModel(int instrumentId, int baseAssetId, int quoteAssetId, long tickSize, long lotSize, long[] mid)
    {
    }

    @Test
    void optimisedBookEmitsExactlyWhatTheReferenceBookEmits()
    {
        final long seed = Long.getLong("bourse.seed", new Random().nextLong());
        random = new SplittableRandom(seed);
        try
        {
            run();
        }
        catch (final AssertionError | RuntimeException ex)
        {
            throw new AssertionError("seed " + seed + " (rerun with -Dbourse.seed=" + seed + "), command " +
                commandIndex + " [" + lastCommand + "]: " + ex.getMessage(), ex);
        }
        assertTrue(trades > COMMANDS / 100, "too few trades to exercise matching: " + trades + ", seed " + seed);
    }

    private void run()
    {
        setUp();
        for (commandIndex = 0; commandIndex < COMMANDS; commandIndex++)
        {
            nowNs += random.nextInt(200_000);
            step();
            compareEvents();
            track(fastEvents.events());
            fastEvents.clear();
            referenceEvents.clear();
            checkNotCrossed();
            if (commandIndex % VALIDATE_INTERVAL == 0)
            {
                validate();
            }
        }
        validate();
    }

    // ------------------------------------------------------------------------------------------------ setup

    private void setUp()
    {
        both(e -> e.defineAsset(BTC, 8, "BTC", nowNs), "defineAsset BTC");
        both(e -> e.defineAsset(USD, 6, "USD", nowNs), "defineAsset USD");
        both(e -> e.defineAsset(ETH, 8, "ETH", nowNs), "defineAsset ETH");
        // Prices in cents, quantities in 0.0001 BTC: 1 tick × 1 lot = 1 micro-USD.
        both(e -> e.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 2, 1, 4, 1, 1, 0, 0, 0, 1_000, 2_000,
            TradingState.OPEN, nowNs), "defineInstrument BTC-USD");
        // Ticks of 0.05 USD, lots of 0.01 ETH, a minimum of 2 lots and a maximum of 500; maker rebate-free, cheap taker.
        both(e -> e.defineInstrument(ETH_USD, "ETH-USD", ETH, USD, 2, 5, 3, 10, 20, 5_000, 0, 0, 0, 500,
            TradingState.OPEN, nowNs), "defineInstrument ETH-USD");
        // Prices in 0.00001 BTC, lots of 0.01 ETH, a ±3 % band around the last trade (0.05 BTC before any).
        both(e -> e.defineInstrument(ETH_BTC, "ETH-BTC", ETH, BTC, 5, 1, 2, 1, 1, 0, 300, 5_000, 2_500, 2_500,
            TradingState.OPEN, nowNs), "defineInstrument ETH-BTC");
        models[0] = new InstrumentModel(BTC_USD, BTC, USD, 1, 1, new long[]{ 5_000_000 });
        models[1] = new InstrumentModel(ETH_USD, ETH, USD, 5, 10, new long[]{ 300_000 });
        models[2] = new InstrumentModel(ETH_BTC, ETH, BTC, 1, 1, new long[]{ 5_000 });

        for (long accountId = 1; accountId <= ACCOUNTS; accountId++)
        {
            final long id = accountId;
            final long txBtc = nextTransactionId++;
            final long txUsd = nextTransactionId++;
            final long txEth = nextTransactionId++;
            both(e -> e.deposit(txBtc, id, BTC, 10_000_000_000L, nowNs), "fund BTC");
            both(e -> e.deposit(txUsd, id, USD, 100_000_000_000_000L, nowNs), "fund USD");
            both(e -> e.deposit(txEth, id, ETH, 100_000_000_000L, nowNs), "fund ETH");
            if (accountId % 5 == 0)
            {
                final SelfTradePrevention mode = STP_MODES[(int)(accountId / 5) % STP_MODES.length];
                both(e -> e.setAccountLimits(id, 0, 0, 0, mode, nowNs), "setAccountLimits");
            }
        }
        compareEvents();
        fastEvents.clear();
        referenceEvents.clear();
    }

    // ------------------------------------------------------------------------------------------------ commands

    private void step()
    {
        if (housekeeping())
        {
            return;
        }
        // Cancels keep up with new orders only once the books are reasonably deep, and outpace them when crowded.
        final int roll = random.nextInt(1000);
        final int open = liveOrders.size();
        if (roll < (open > MANY_OPEN_ORDERS ? 250 : 480))
        {
            newLimitOrder();
        }
        else if (roll < 540)
        {
            newMarketOrder();
        }
        else if (roll < 800)
        {
            if (open > FEW_OPEN_ORDERS || roll < 660)
            {
                cancel();
            }
            else
            {
                newLimitOrder();
            }
        }
        else if (roll < 900)
        {
            replace();
        }
        else if (roll < 930)
        {
            query();
        }
        else if (roll < 950)
        {
            final long now = nowNs;
            both(e -> e.expireOrders(now), "expireOrders");
        }
        else if (roll < 960)
        {
            massCancel();
        }
        else if (roll < 985)
        {
            moveMid();
            newLimitOrder();
        }
        else if (roll < 995)
        {
            transfer();
        }
        else
        {
            admin();
        }
    }

    /**
     * Undo trading state changes and kill switches after a while, so most of the run trades.
     *
     * @return whether it issued a command, which then is this step's command.
     */
    private boolean housekeeping()
    {
        for (int i = 0; i < INSTRUMENTS.length; i++)
        {
            if (tradingStateRestoreAt[i] != 0 && commandIndex >= tradingStateRestoreAt[i])
            {
                tradingStateRestoreAt[i] = 0;
                final int instrumentId = INSTRUMENTS[i];
                both(e -> e.setTradingState(instrumentId, TradingState.OPEN, nowNs), "reopen " + instrumentId);
                return true;
            }
        }
        for (int accountId = 0; accountId <= ACCOUNTS; accountId++)
        {
            if (killSwitchOffAt[accountId] != 0 && commandIndex >= killSwitchOffAt[accountId])
            {
                killSwitchOffAt[accountId] = 0;
                final long id = accountId;
                both(e -> e.setKillSwitch(id, false, nowNs), "kill switch off " + accountId);
                return true;
            }
        }
        return false;
    }

    private void newLimitOrder()
    {
        final LiveOrder duplicateOf = random.nextInt(300) == 0 ? liveOrder() : null;
        final InstrumentModel model = model();
        final long accountId = duplicateOf == null ? account() : duplicateOf.accountId;
        final Side side = side();
        final long clientOrderId = duplicateOf == null ? clientOrderId(accountId) : duplicateOf.clientOrderId;
        final int tifRoll = random.nextInt(100);
        final TimeInForce timeInForce = tifRoll < 55 ? TimeInForce.GTC : tifRoll < 75 ? TimeInForce.GTD :
            tifRoll < 90 ? TimeInForce.IOC : TimeInForce.FOK;
        final boolean postOnly = random.nextInt(10) == 0;
        final SelfTradePrevention stp = stp();
        long price = limitPrice(model, side);
        long quantity = quantity(model);
        long expiryTimeNs = timeInForce != TimeInForce.GTD ? 0 :
            nowNs + 1 + random.nextLong(random.nextBoolean() ? 20_000_000L : 2_000_000_000L);
        final int invalid = random.nextInt(200);
        if (invalid == 0 && model.tickSize() > 1)
        {
            price += 1 + random.nextInt((int)model.tickSize() - 1);
        }
        else if (invalid == 1)
        {
            quantity = random.nextBoolean() ? 0 : quantity + 1;
        }
        else if (invalid == 2)
        {
            expiryTimeNs = timeInForce == TimeInForce.GTD ? nowNs - random.nextLong(1_000) : 1;
        }
        else if (invalid == 3)
        {
            price = random.nextBoolean() ? -model.tickSize() : model.mid()[0] * 2;
        }
        final long p = price;
        final long q = quantity;
        final long expiry = expiryTimeNs;
        both(e -> e.newOrder(accountId, clientOrderId, model.instrumentId(), side, OrderType.LIMIT, timeInForce, postOnly,
            stp, p, q, 0, expiry, 0, nowNs),
            "limit " + accountId + "/" + clientOrderId + " " + side + " " + q + "@" + p + " " + timeInForce +
            (postOnly ? " postOnly " : " ") + stp + " on " + model.instrumentId());
    }

    private void newMarketOrder()
    {
        final InstrumentModel model = model();
        final long accountId = account();
        final long clientOrderId = clientOrderId(accountId);
        final SelfTradePrevention stp = stp();
        final boolean byQuoteAmount = random.nextInt(3) == 0;
        final Side side = byQuoteAmount ? Side.BUY : side();
        final int tifRoll = random.nextInt(40);
        final TimeInForce timeInForce = tifRoll == 0 ? TimeInForce.GTC :
            tifRoll < (byQuoteAmount ? 38 : 24) ? TimeInForce.IOC : TimeInForce.FOK;
        final long quantity = byQuoteAmount ? 0 : quantity(model);
        final long quoteAmount = byQuoteAmount ?
            1 + random.nextLong(model.mid()[0] / model.tickSize() * quotePerTickLot(model) * 20) : 0;
        both(e -> e.newOrder(accountId, clientOrderId, model.instrumentId(), side, OrderType.MARKET, timeInForce, false,
            stp, 0, quantity, quoteAmount, 0, 0, nowNs),
            "market " + accountId + "/" + clientOrderId + " " + side + " qty " + quantity + " quote " + quoteAmount +
            " " + timeInForce + " " + stp + " on " + model.instrumentId());
    }

    private void cancel()
    {
        final LiveOrder order = liveOrder();
        final int roll = random.nextInt(20);
        if (order == null || roll == 0)
        {
            final long accountId = roll == 1 ? UNKNOWN_ACCOUNT : account();
            final long orderId = random.nextBoolean() ? 0 : 1 + random.nextLong(Math.max(1, commandIndex));
            final long clientOrderId = orderId == 0 ? 1 + random.nextLong(nextClientOrderId[(int)(accountId % ACCOUNTS)] + 1) : 0;
            both(e -> e.cancelOrder(accountId, orderId, clientOrderId, nowNs),
                "cancel unknown " + accountId + " " + orderId + "/" + clientOrderId);
        }
        else if (roll < 10)
        {
            both(e -> e.cancelOrder(order.accountId, order.orderId, 0, nowNs), "cancel " + order.orderId);
        }
        else if (roll < 19)
        {
            both(e -> e.cancelOrder(order.accountId, 0, order.clientOrderId, nowNs),
                "cancel " + order.accountId + "/" + order.clientOrderId);
        }
        else
        {
            // Someone else's order: must be unknown to them.
            final long other = order.accountId % ACCOUNTS + 1;
            both(e -> e.cancelOrder(other, order.orderId, 0, nowNs), "cancel foreign " + order.orderId);
        }
    }

    private void replace()
    {
        final LiveOrder order = liveOrder();
        if (order == null)
        {
            return;
        }
        final InstrumentModel model = models[order.instrumentId - 1];
        long price = order.price;
        long quantity = order.quantity;
        long newClientOrderId = 0;
        final int roll = random.nextInt(100);
        if (roll < 30)
        {
            quantity = order.filledQuantity + model.lotSize() * (1 + random.nextInt(
                (int)Math.max(1, (order.quantity - order.filledQuantity) / model.lotSize())));
        }
        else if (roll < 45)
        {
            quantity += model.lotSize() * (1 + random.nextInt(20));
        }
        else if (roll < 85)
        {
            price += model.tickSize() * (random.nextInt(21) - 10);
        }
        else if (roll < 90)
        {
            quantity = order.filledQuantity - random.nextInt(2) * model.lotSize();
        }
        else if (roll < 93)
        {
            price += 1;
        }
        else
        {
            price = limitPrice(model, order.side);
            quantity = order.filledQuantity + quantity(model);
        }
        if (random.nextInt(5) == 0)
        {
            newClientOrderId = random.nextInt(4) == 0 ? 1 + random.nextLong(nextClientOrderId[(int)order.accountId] + 1) :
                clientOrderId(order.accountId);
        }
        final boolean byClientOrderId = random.nextBoolean();
        final long p = price;
        final long q = quantity;
        final long newId = newClientOrderId;
        both(e -> e.replaceOrder(order.accountId, byClientOrderId ? 0 : order.orderId,
            byClientOrderId ? order.clientOrderId : 0, newId, p, q, 0, nowNs),
            "replace " + order.orderId + " (" + order.quantity + "@" + order.price + ", filled " + order.filledQuantity +
            ") to " + q + "@" + p + " clientOrderId " + newId);
    }

    private void query()
    {
        final LiveOrder order = liveOrder();
        if (order == null || random.nextInt(10) == 0)
        {
            final long accountId = account();
            final long orderId = 1 + random.nextLong(Math.max(1, commandIndex));
            both(e -> e.queryOrder(accountId, orderId, 0, nowNs), "query " + accountId + " " + orderId);
        }
        else if (random.nextBoolean())
        {
            both(e -> e.queryOrder(order.accountId, order.orderId, 0, nowNs), "query " + order.orderId);
        }
        else
        {
            both(e -> e.queryOrder(order.accountId, 0, order.clientOrderId, nowNs),
                "query " + order.accountId + "/" + order.clientOrderId);
        }
    }

    private void massCancel()
    {
        final long accountId = random.nextInt(50) == 0 ? UNKNOWN_ACCOUNT : account();
        final int roll = random.nextInt(10);
        final int instrumentId = roll < 4 ? 0 : roll < 9 ? model().instrumentId() : 7;
        final Side side = random.nextBoolean() ? Side.NULL_VAL : side();
        both(e -> e.massCancel(accountId, instrumentId, side, nowNs),
            "massCancel " + accountId + " " + instrumentId + " " + side);
    }

    private void transfer()
    {
        final long accountId = account();
        final int assetId = ASSETS[random.nextInt(ASSETS.length)];
        final long transactionId = random.nextInt(10) == 0 ? 1 + random.nextLong(nextTransactionId) : nextTransactionId++;
        final long amount = random.nextInt(50) == 0 ? 0 : 1 + random.nextLong(assetId == USD ? 10_000_000_000_000L : 1_000_000_000L);
        if (random.nextBoolean())
        {
            both(e -> e.deposit(transactionId, accountId, assetId, amount, nowNs),
                "deposit " + transactionId + " " + accountId + " " + amount + " of " + assetId);
        }
        else
        {
            both(e -> e.withdraw(transactionId, accountId, assetId, amount, nowNs),
                "withdraw " + transactionId + " " + accountId + " " + amount + " of " + assetId);
        }
    }

    private void admin()
    {
        final int roll = random.nextInt(100);
        if (roll < 30)
        {
            final int index = random.nextInt(INSTRUMENTS.length);
            final int instrumentId = INSTRUMENTS[index];
            final TradingState state = NOT_OPEN[random.nextInt(NOT_OPEN.length)];
            tradingStateRestoreAt[index] = commandIndex + 1 + random.nextInt(500);
            both(e -> e.setTradingState(instrumentId, state, nowNs), "setTradingState " + instrumentId + " " + state);
        }
        else if (roll < 60)
        {
            final int accountId = random.nextInt(20) == 0 ? 0 : (int)account();
            killSwitchOffAt[accountId] = commandIndex + 1 + random.nextInt(accountId == 0 ? 50 : 500);
            both(e -> e.setKillSwitch(accountId, true, nowNs), "kill switch on " + accountId);
        }
        else
        {
            final long accountId = account();
            final boolean limited = random.nextInt(3) == 0;
            final long maxQuantity = limited ? 50 + random.nextInt(500) : 0;
            final long maxNotional = limited ? 1_000_000L + random.nextLong(5_000_000_000L) : 0;
            final int maxOpenOrders = limited ? 1 + random.nextInt(100) : 0;
            final SelfTradePrevention mode = STP_MODES[random.nextInt(STP_MODES.length)];
            both(e -> e.setAccountLimits(accountId, maxQuantity, maxNotional, maxOpenOrders, mode, nowNs),
                "setAccountLimits " + accountId + " " + maxQuantity + " " + maxNotional + " " + maxOpenOrders + " " + mode);
        }
    }

    // ------------------------------------------------------------------------------------------------ choices

    private InstrumentModel model()
    {
        return models[random.nextInt(models.length)];
    }

    private long account()
    {
        return 1 + random.nextInt(ACCOUNTS);
    }

    private Side side()
    {
        return random.nextBoolean() ? Side.BUY : Side.SELL;
    }

    private SelfTradePrevention stp()
    {
        return random.nextInt(3) == 0 ? STP_MODES[random.nextInt(STP_MODES.length)] : SelfTradePrevention.ACCOUNT_DEFAULT;
    }

    private long clientOrderId(final long accountId)
    {
        final int index = (int)accountId;
        if (random.nextInt(200) == 0 && nextClientOrderId[index] > 0)
        {
            // Possibly a duplicate of an open order's id.
            return 1 + random.nextLong(nextClientOrderId[index]);
        }
        return ++nextClientOrderId[index];
    }

    /**
     * Mostly passive prices a few ticks behind the mid, sometimes through it, so that a few per cent trade.
     */
    private long limitPrice(final InstrumentModel model, final Side side)
    {
        final int roll = random.nextInt(100);
        final long ticksAway = roll < 6 ? -random.nextInt(5) : roll < 90 ? 1 + random.nextInt(12) : 13 + random.nextInt(200);
        final long mid = model.mid()[0];
        return side == Side.BUY ? mid - ticksAway * model.tickSize() : mid + ticksAway * model.tickSize();
    }

    private long quantity(final InstrumentModel model)
    {
        final int roll = random.nextInt(100);
        final long lots = roll < 70 ? 1 + random.nextInt(10) : roll < 95 ? 11 + random.nextInt(90) : 100 + random.nextInt(600);
        return lots * model.lotSize();
    }

    private void moveMid()
    {
        final InstrumentModel model = model();
        final long[] mid = model.mid();
        mid[0] += (random.nextInt(7) - 3) * model.tickSize();
        final Instrument instrument = fast.instruments.get(model.instrumentId());
        if (instrument.hasBand())
        {
            // Stay inside the band so that most orders are accepted, letting a few out through limitPrice.
            final long margin = 20 * model.tickSize();
            mid[0] = Math.max(instrument.bandLowPrice + margin, Math.min(instrument.bandHighPrice - margin, mid[0]));
            mid[0] -= mid[0] % model.tickSize();
        }
    }

    private static long quotePerTickLot(final InstrumentModel model)
    {
        return model.instrumentId() == BTC_USD ? 1 : model.instrumentId() == ETH_USD ? 500 : 10;
    }

    private LiveOrder liveOrder()
    {
        return liveOrders.isEmpty() ? null : liveOrders.get(random.nextInt(liveOrders.size()));
    }

    // ------------------------------------------------------------------------------------------------ tracking

    /**
     * Follow the open orders from the (already compared) events, so the generator can cancel and replace them.
     */
    private void track(final List<EventRecorder.Event> events)
    {
        for (final EventRecorder.Event event : events)
        {
            switch (event)
            {
                case EventRecorder.OrderAccepted accepted ->
                {
                    final LiveOrder order = new LiveOrder(accepted.orderId(), accepted.accountId(), accepted.instrumentId(),
                        accepted.side(), accepted.clientOrderId(), accepted.price(), accepted.quantity());
                    order.index = liveOrders.size();
                    liveOrders.add(order);
                    liveById.put(order.orderId, order);
                }
                case EventRecorder.Trade trade ->
                {
                    trades++;
                    filled(trade.makerOrderId(), trade.makerFilledQuantity(), trade.makerRemainingQuantity());
                    filled(trade.takerOrderId(), trade.takerFilledQuantity(), trade.takerRemainingQuantity());
                }
                case EventRecorder.OrderCanceled canceled -> gone(canceled.orderId());
                case EventRecorder.OrderExpired expired -> gone(expired.orderId());
                case EventRecorder.OrderReplaced replaced ->
                {
                    final LiveOrder order = liveById.get(replaced.orderId());
                    order.clientOrderId = replaced.clientOrderId();
                    order.price = replaced.price();
                    order.quantity = replaced.quantity();
                }
                case EventRecorder.OrderRestated restated -> liveById.get(restated.orderId()).quantity = restated.quantity();
                default ->
                {
                }
            }
        }
    }

    private void filled(final long orderId, final long filledQuantity, final long remainingQuantity)
    {
        final LiveOrder order = liveById.get(orderId);
        if (order == null)
        {
            return;
        }
        order.filledQuantity = filledQuantity;
        // A market buy by quote amount has no quantity: it ends with its cancel event.
        if (remainingQuantity == 0 && order.quantity != 0)
        {
            gone(orderId);
        }
    }

    private void gone(final long orderId)
    {
        final LiveOrder order = liveById.remove(orderId);
        if (order == null)
        {
            return;
        }
        final LiveOrder last = liveOrders.remove(liveOrders.size() - 1);
        if (last != order)
        {
            last.index = order.index;
            liveOrders.set(order.index, last);
        }
    }

    // ------------------------------------------------------------------------------------------------ checks

    private interface Command
    {
        void apply(Engine engine);
    }

    private void both(final Command command, final String description)
    {
        lastCommand = description;
        command.apply(fast);
        command.apply(reference);
    }

    private void compareEvents()
    {
        final List<EventRecorder.Event> expected = referenceEvents.events();
        final List<EventRecorder.Event> actual = fastEvents.events();
        if (!expected.equals(actual))
        {
            fail(diff(expected, actual));
        }
    }

    private static String diff(final List<EventRecorder.Event> expected, final List<EventRecorder.Event> actual)
    {
        final StringBuilder text = new StringBuilder("events differ (reference book vs optimised book)");
        for (int i = 0; i < Math.max(expected.size(), actual.size()); i++)
        {
            final Object reference = i < expected.size() ? expected.get(i) : "<none>";
            final Object optimised = i < actual.size() ? actual.get(i) : "<none>";
            final boolean same = reference.equals(optimised);
            text.append('\n').append(same ? "  " : "! ").append(i).append(" reference: ").append(reference);
            if (!same)
            {
                text.append("\n  ").append(i).append(" optimised: ").append(optimised);
            }
        }
        return text.toString();
    }

    private void checkNotCrossed()
    {
        for (final int instrumentId : INSTRUMENTS)
        {
            checkNotCrossed(fast, instrumentId, "optimised");
            checkNotCrossed(reference, instrumentId, "reference");
        }
    }

    private void checkNotCrossed(final Engine engine, final int instrumentId, final String name)
    {
        if (engine.bookDepth(instrumentId, Side.BUY, 1, depthPrices, depthQuantities, depthOrderCounts) == 0)
        {
            return;
        }
        final long bid = depthPrices[0];
        if (engine.bookDepth(instrumentId, Side.SELL, 1, depthPrices, depthQuantities, depthOrderCounts) == 0)
        {
            return;
        }
        if (bid >= depthPrices[0])
        {
            fail(name + " book of instrument " + instrumentId + " crossed: bid " + bid + " >= ask " + depthPrices[0]);
        }
    }

    private void compareDepth(final int instrumentId, final Side side)
    {
        final long[] fastPrices = new long[MAX_DEPTH];
        final long[] fastQuantities = new long[MAX_DEPTH];
        final int[] fastCounts = new int[MAX_DEPTH];
        final long[] referencePrices = new long[MAX_DEPTH];
        final long[] referenceQuantities = new long[MAX_DEPTH];
        final int[] referenceCounts = new int[MAX_DEPTH];
        final int fastLevels = fast.bookDepth(instrumentId, side, MAX_DEPTH, fastPrices, fastQuantities, fastCounts);
        final int referenceLevels = reference.bookDepth(
            instrumentId, side, MAX_DEPTH, referencePrices, referenceQuantities, referenceCounts);
        if (fastLevels != referenceLevels ||
            !Arrays.equals(fastPrices, referencePrices) ||
            !Arrays.equals(fastQuantities, referenceQuantities) ||
            !Arrays.equals(fastCounts, referenceCounts))
        {
            fail("depth of " + side + " side of instrument " + instrumentId + " differs: optimised " + fastLevels +
                " levels " + Arrays.toString(Arrays.copyOf(fastPrices, fastLevels)) + " reference " + referenceLevels +
                " levels " + Arrays.toString(Arrays.copyOf(referencePrices, referenceLevels)));
        }
    }

    private void validate()
    {
        fast.validateInternalState();
        reference.validateInternalState();
        for (final int instrumentId : INSTRUMENTS)
        {
            compareDepth(instrumentId, Side.BUY);
            compareDepth(instrumentId, Side.SELL);
        }
        final long fastHash = fast.stateHash();
        final long referenceHash = reference.stateHash();
        if (fastHash != referenceHash)
        {
            fail("state hashes differ: optimised " + fastHash + ", reference " + referenceHash);
        }
    }
}
