package io.bourse.engine;

import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.NewOrderEncoder;
import io.bourse.protocol.codec.OrderStatus;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.ReplaceOrderEncoder;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stop orders: held off the book with their balance reserved, triggered by the last trade price, then traded as the
 * new order they become; cascades, cancels, replaces, expiry, kill switches and refusals.
 */
class StopOrderTest
{
    private final EngineFixture f = new EngineFixture();

    @BeforeEach
    void setUp()
    {
        for (long account = 1; account <= 4; account++)
        {
            f.fundAll(account);
        }
    }

    /**
     * Account 1 sells to account 2 at the price, leaving the instrument's last trade price there.
     */
    private void trade(final long price, final long clientOrderId)
    {
        f.limit(1, clientOrderId, Side.SELL, price, 1);
        f.limit(2, clientOrderId, Side.BUY, price, 1);
    }

    private void stop(
        final long accountId, final long clientOrderId, final Side side, final OrderType orderType,
        final TimeInForce timeInForce, final long price, final long quantity, final long quoteAmount,
        final long expiryTimeNs, final long stopPrice)
    {
        f.engine.newOrder(accountId, clientOrderId, BTC_USD, side, orderType, timeInForce, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, price, quantity, quoteAmount, expiryTimeNs, stopPrice, f.tick());
    }

    private void stopLimit(
        final long accountId, final long clientOrderId, final Side side, final long price, final long quantity,
        final long stopPrice)
    {
        stop(accountId, clientOrderId, side, OrderType.LIMIT, TimeInForce.GTC, price, quantity, 0, 0, stopPrice);
    }

    private long reserved(final long accountId, final int assetId)
    {
        return f.engine.reservedBalance(accountId, assetId);
    }

    private void assertRejected(final RejectReason reason)
    {
        assertEquals(reason, f.events.only(EventRecorder.CommandRejected.class).reason(), f.events.events().toString());
        f.events.clear();
    }

    @Test
    void aStopLimitWaitsOffTheBookWithItsBalanceReserved()
    {
        trade(10_000, 1);
        f.events.clear();
        final long usdReservedBefore = reserved(3, USD);

        stopLimit(3, 1, Side.BUY, 10_200, 5, 10_100);

        final EventRecorder.OrderAccepted accepted = f.events.only(EventRecorder.OrderAccepted.class);
        assertEquals(10_100, accepted.stopPrice());
        assertTrue(f.events.all(EventRecorder.BookLevelChanged.class).isEmpty(), "not on the book");
        assertEquals(BalanceChangeReason.RESERVE, f.events.only(EventRecorder.BalanceChanged.class).reason());
        assertEquals(usdReservedBefore + 10_200 * 5 + 10_200 * 5 * EngineFixture.TAKER_FEE_PPM / 1_000_000,
            reserved(3, USD), "the limit price's notional and the largest fee");
        assertEquals(1, f.engine.openOrderCount());
        assertEquals(0, f.engine.bookDepth(BTC_USD, Side.BUY, 10, new long[10], new long[10], new int[10]));

        f.events.clear();
        f.engine.queryOrder(3, 0, 1, f.tick());
        final EventRecorder.OrderStatusReport status = f.events.only(EventRecorder.OrderStatusReport.class);
        assertEquals(OrderStatus.NEW, status.status());
        assertEquals(OrderType.LIMIT, status.orderType());
        assertEquals(10_100, status.stopPrice());
        f.engine.validateInternalState();
    }

    @Test
    void aTradeAtTheStopPriceTriggersItAndItTradesAsANewOrder()
    {
        trade(10_000, 1);
        stopLimit(3, 1, Side.BUY, 10_200, 5, 10_100);
        final long stopId = f.lastOrderId();
        f.limit(4, 1, Side.SELL, 10_150, 3);
        f.limit(4, 2, Side.SELL, 10_100, 1);
        f.events.clear();

        f.limit(2, 2, Side.BUY, 10_100, 1);

        final List<EventRecorder.Event> events = f.events.events();
        final EventRecorder.OrderTriggered triggered = f.events.only(EventRecorder.OrderTriggered.class);
        assertEquals(new EventRecorder.OrderTriggered(stopId, 1, 3, BTC_USD, Side.BUY, OrderType.LIMIT, 10_200, 5,
            10_100, 10_100, f.nowNs), triggered);
        final List<EventRecorder.Trade> trades = f.events.all(EventRecorder.Trade.class);
        assertEquals(2, trades.size(), events.toString());
        assertTrue(events.indexOf(trades.get(0)) < events.indexOf(triggered), "the trade that triggers comes first");
        assertEquals(stopId, trades.get(1).takerOrderId());
        assertEquals(10_150, trades.get(1).price());
        assertEquals(3, trades.get(1).quantity());
        assertEquals(2, trades.get(1).takerRemainingQuantity(), "the rest rests at its limit");
        assertEquals(List.of(10_200L), bids());
        f.engine.validateInternalState();
    }

    @Test
    void aStopMarketSellReleasesItsReservationAndSellsAsAMarketOrder()
    {
        trade(10_000, 1);
        stop(3, 1, Side.SELL, OrderType.MARKET, TimeInForce.GTC, 0, 4, 0, 0, 9_900);
        assertEquals(4 * 10_000L, reserved(3, BTC), "its base quantity, 10,000 minor units a lot");
        f.limit(4, 1, Side.BUY, 9_800, 3);
        f.events.clear();

        trade(9_900, 2);

        f.events.only(EventRecorder.OrderTriggered.class);
        final EventRecorder.Trade fill = f.events.last(EventRecorder.Trade.class);
        assertEquals(3, fill.quantity());
        assertEquals(9_800, fill.price());
        assertEquals(CancelReason.NO_LIQUIDITY, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(0, reserved(3, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void aStopMarketBuyByQuoteAmountHoldsItAndSpendsIt()
    {
        trade(10_000, 1);
        stop(3, 1, Side.BUY, OrderType.MARKET, TimeInForce.IOC, 0, 0, 50_000, 0, 10_100);
        assertEquals(50_000, reserved(3, USD));
        f.limit(4, 1, Side.SELL, 10_200, 10);
        f.events.clear();

        trade(10_100, 2);

        final EventRecorder.Trade fill = f.events.last(EventRecorder.Trade.class);
        assertEquals(4, fill.quantity(), "four lots of 10,200 and their fee fit 50,000");
        assertEquals(CancelReason.QUOTE_AMOUNT_SPENT, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(0, reserved(3, USD));
        f.engine.validateInternalState();
    }

    @Test
    void aStopMarketBuyByQuantityReservesNothingAndSpendsWhatIsAvailable()
    {
        trade(10_000, 1);
        final long before = reserved(3, USD);
        stop(3, 1, Side.BUY, OrderType.MARKET, TimeInForce.GTC, 0, 2, 0, 0, 10_100);
        assertEquals(before, reserved(3, USD));
        f.limit(4, 1, Side.SELL, 10_200, 10);
        f.events.clear();

        trade(10_100, 2);

        assertEquals(2, f.events.last(EventRecorder.Trade.class).quantity());
        f.engine.validateInternalState();
    }

    @Test
    void aStopAlreadyReachedIsRefused()
    {
        stopLimit(3, 1, Side.BUY, 10_200, 1, 10_100);
        f.events.only(EventRecorder.OrderAccepted.class);
        f.events.clear();
        trade(10_000, 1);
        f.events.clear();

        stopLimit(3, 2, Side.BUY, 10_200, 1, 10_000);
        assertRejected(RejectReason.STOP_WOULD_TRIGGER);
        stopLimit(3, 3, Side.SELL, 9_900, 1, 10_000);
        assertRejected(RejectReason.STOP_WOULD_TRIGGER);
        stopLimit(3, 4, Side.SELL, 9_900, 1, 9_999);
        f.events.only(EventRecorder.OrderAccepted.class);
    }

    @Test
    void badStopTermsAreRefused()
    {
        stopLimit(3, 1, Side.BUY, 10_200, 1, -5);
        assertRejected(RejectReason.INVALID_STOP_PRICE);
        f.engine.newOrder(3, 2, BTC_USD, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, true,
            SelfTradePrevention.ACCOUNT_DEFAULT, 10_200, 1, 0, 0, 10_100, f.tick());
        assertRejected(RejectReason.INVALID_STOP_PRICE);
        f.engine.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 2, 5, 4, 1, 1, 0, 0, 0, EngineFixture.MAKER_FEE_PPM,
            EngineFixture.TAKER_FEE_PPM, TradingState.OPEN, f.tick());
        f.events.clear();
        stopLimit(3, 3, Side.BUY, 10_200, 1, 10_101);
        assertRejected(RejectReason.PRICE_OFF_TICK);
        stop(3, 4, Side.BUY, OrderType.MARKET, TimeInForce.FOK, 0, 0, 1_000, 0, 10_100);
        assertRejected(RejectReason.INVALID_TIME_IN_FORCE);
    }

    @Test
    void aCascadeTriggersEachStopThePriceReachesInTurn()
    {
        trade(10_000, 1);
        stop(3, 1, Side.BUY, OrderType.MARKET, TimeInForce.GTC, 0, 2, 0, 0, 10_100);
        final long first = f.lastOrderId();
        stopLimit(4, 1, Side.BUY, 10_300, 1, 10_200);
        final long second = f.lastOrderId();
        stopLimit(4, 2, Side.BUY, 10_400, 1, 10_400);
        f.limit(1, 10, Side.SELL, 10_200, 2);
        f.limit(1, 11, Side.SELL, 10_300, 5);
        f.events.clear();

        trade(10_100, 2);

        final List<EventRecorder.OrderTriggered> triggered = f.events.all(EventRecorder.OrderTriggered.class);
        assertEquals(List.of(first, second), triggered.stream().map(EventRecorder.OrderTriggered::orderId).toList(),
            "the market stop buys at 10,200, which reaches the second; its fill at 10,300 does not reach the third");
        assertEquals(10_200, triggered.get(1).triggerPrice());
        assertEquals(10_300, f.events.last(EventRecorder.Trade.class).price());
        assertEquals(1, stops(Side.BUY));
        f.engine.validateInternalState();
    }

    @Test
    void stopsOfOnePriceTriggerInTheOrderTheyCame()
    {
        trade(10_000, 1);
        stopLimit(4, 1, Side.BUY, 10_100, 1, 10_100);
        final long later = f.lastOrderId();
        stopLimit(3, 1, Side.BUY, 10_100, 1, 10_050);
        final long lower = f.lastOrderId();
        stopLimit(3, 2, Side.BUY, 10_100, 1, 10_100);
        final long last = f.lastOrderId();
        f.events.clear();

        trade(10_100, 2);

        assertEquals(List.of(lower, later, last), f.events.all(EventRecorder.OrderTriggered.class).stream()
            .map(EventRecorder.OrderTriggered::orderId).toList(), "the lowest buy stop first, then by time");
        f.engine.validateInternalState();
    }

    @Test
    void aStopPassedOnTheWayThroughSeveralPricesTriggers()
    {
        trade(10_050, 1);
        stop(3, 1, Side.SELL, OrderType.MARKET, TimeInForce.GTC, 0, 1, 0, 0, 10_000);
        f.limit(1, 10, Side.SELL, 9_990, 1);
        f.limit(1, 11, Side.SELL, 10_100, 1);
        f.events.clear();

        f.limit(2, 10, Side.BUY, 10_100, 2);

        final EventRecorder.OrderTriggered triggered = f.events.only(EventRecorder.OrderTriggered.class);
        assertEquals(9_990, triggered.triggerPrice(), "the buy's first fill passed the stop, its last did not");
        f.engine.validateInternalState();
    }

    @Test
    void aStopWhoseExpiryHasComeExpiresRatherThanTriggers()
    {
        trade(10_000, 1);
        stop(3, 1, Side.BUY, OrderType.LIMIT, TimeInForce.GTD, 10_200, 1, 0, f.nowNs + 5_000, 10_100);
        f.nowNs += 10_000;
        f.events.clear();

        trade(10_100, 2);

        assertTrue(f.events.all(EventRecorder.OrderTriggered.class).isEmpty());
        f.events.only(EventRecorder.OrderExpired.class);
        assertEquals(0, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void aTriggeredGtdStopRestsAndExpiresLikeAnyGtdOrder()
    {
        trade(10_000, 1);
        stop(3, 1, Side.BUY, OrderType.LIMIT, TimeInForce.GTD, 9_000, 1, 0, f.nowNs + 100_000, 10_100);
        trade(10_100, 2);
        f.events.only(EventRecorder.OrderTriggered.class);
        assertEquals(List.of(9_000L), bids(), "it rests at its limit");
        f.engine.validateInternalState();

        f.nowNs += 200_000;
        f.events.clear();
        f.engine.expireOrders(f.tick());
        f.events.only(EventRecorder.OrderExpired.class);
        assertEquals(List.of(), bids());
        f.engine.validateInternalState();
    }

    @Test
    void aReplaceThatTradesTriggersTheStopsItReaches()
    {
        trade(10_000, 1);
        f.limit(4, 1, Side.BUY, 9_000, 1);
        f.limit(1, 10, Side.SELL, 10_100, 1);
        stopLimit(3, 1, Side.BUY, 10_300, 1, 10_100);
        f.events.clear();

        f.engine.replaceOrder(4, 0, 1, 0, 10_100, 1, 0, f.tick());

        f.events.only(EventRecorder.OrderReplaced.class);
        assertEquals(10_100, f.events.only(EventRecorder.OrderTriggered.class).triggerPrice());
        f.events.clear();

        f.engine.replaceOrder(3, 0, 1, 0, 10_300, 1, 10_500, f.tick());
        assertRejected(RejectReason.INVALID_STOP_PRICE);
        f.engine.validateInternalState();
    }

    @Test
    void aReplaceOfSchemaVersionTwoStillApplies()
    {
        f.limit(3, 1, Side.BUY, 9_000, 2);
        final long orderId = f.lastOrderId();
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer();
        final int length = new CommandEncoder().replaceOrder(buffer, 0, 3, orderId, 0, 0, 9_000, 1, 0);
        new MessageHeaderEncoder().wrap(buffer, 0).version(2).blockLength(ReplaceOrderEncoder.stopPriceEncodingOffset());
        buffer.putLong(MessageHeaderEncoder.ENCODED_LENGTH + ReplaceOrderEncoder.stopPriceEncodingOffset(), 9_500);
        f.events.clear();

        assertTrue(new CommandAdapter(f.engine).onCommand(buffer, 0, length - Long.BYTES, f.tick()));
        final EventRecorder.OrderReplaced replaced = f.events.only(EventRecorder.OrderReplaced.class);
        assertEquals(1, replaced.quantity());
        assertEquals(0, replaced.stopPrice());
    }

    @Test
    void ofABuyAndASellStopBothReachedTheEarlierTriggersFirst()
    {
        // Before the first trade any stop is accepted, so a sell stop above a buy stop can wait for the same trade.
        stopLimit(3, 1, Side.SELL, 9_000, 1, 10_100);
        final long sell = f.lastOrderId();
        stopLimit(4, 1, Side.BUY, 10_100, 1, 10_000);
        final long buy = f.lastOrderId();
        f.events.clear();

        trade(10_050, 1);

        assertEquals(List.of(sell, buy), f.events.all(EventRecorder.OrderTriggered.class).stream()
            .map(EventRecorder.OrderTriggered::orderId).toList());
        assertEquals(9_000, f.events.last(EventRecorder.Trade.class).price(), "the buy takes the sell that rested");
        f.engine.validateInternalState();
    }

    @Test
    void cancelsAndMassCancelsTakeStopsOffAndReleaseThem()
    {
        trade(10_000, 1);
        stopLimit(3, 1, Side.BUY, 10_200, 5, 10_100);
        stopLimit(3, 2, Side.SELL, 9_800, 5, 9_900);
        stop(3, 3, Side.SELL, OrderType.MARKET, TimeInForce.GTC, 0, 2, 0, 0, 9_900);
        f.events.clear();

        f.engine.cancelOrder(3, 0, 1, f.tick());
        assertEquals(CancelReason.CLIENT_REQUEST, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertTrue(f.events.all(EventRecorder.BookLevelChanged.class).isEmpty());
        assertEquals(0, reserved(3, USD));
        f.events.clear();

        f.engine.massCancel(3, 0, Side.NULL_VAL, f.tick());
        assertEquals(2, f.events.only(EventRecorder.MassCancelCompleted.class).canceledCount());
        assertEquals(0, reserved(3, BTC));
        assertEquals(0, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void aReplaceChangesAStopsTermsAndKeepsItOffTheBook()
    {
        trade(10_000, 1);
        stopLimit(3, 1, Side.BUY, 10_200, 5, 10_100);
        f.events.clear();

        f.engine.replaceOrder(3, 0, 1, 0, 10_300, 2, 0, f.tick());
        EventRecorder.OrderReplaced replaced = f.events.only(EventRecorder.OrderReplaced.class);
        assertTrue(replaced.priorityKept(), "the stop price stays, and so does its place among the stops");
        assertEquals(10_100, replaced.stopPrice());
        assertEquals(10_300 * 2 + 10_300 * 2 * EngineFixture.TAKER_FEE_PPM / 1_000_000, reserved(3, USD));
        assertTrue(f.events.all(EventRecorder.BookLevelChanged.class).isEmpty());
        f.events.clear();

        f.engine.replaceOrder(3, 0, 1, 0, 10_300, 2, 10_250, f.tick());
        replaced = f.events.only(EventRecorder.OrderReplaced.class);
        assertFalse(replaced.priorityKept());
        assertEquals(10_250, replaced.stopPrice());
        f.events.clear();

        f.engine.replaceOrder(3, 0, 1, 0, 10_300, 2, 9_990, f.tick());
        assertRejected(RejectReason.STOP_WOULD_TRIGGER);
        f.limit(3, 2, Side.BUY, 9_000, 1);
        f.events.clear();
        f.engine.replaceOrder(3, 0, 2, 0, 9_000, 1, 9_500, f.tick());
        assertRejected(RejectReason.INVALID_STOP_PRICE);

        trade(10_250, 2);
        assertEquals(10_250, f.events.only(EventRecorder.OrderTriggered.class).stopPrice());
        f.engine.validateInternalState();
    }

    @Test
    void aStopMarketOrderIsReplacedWithoutAPrice()
    {
        trade(10_000, 1);
        stop(3, 1, Side.SELL, OrderType.MARKET, TimeInForce.GTC, 0, 4, 0, 0, 9_900);
        stop(3, 2, Side.BUY, OrderType.MARKET, TimeInForce.GTC, 0, 0, 5_000, 0, 10_100);
        f.events.clear();

        f.engine.replaceOrder(3, 0, 1, 0, 9_000, 3, 0, f.tick());
        assertRejected(RejectReason.INVALID_PRICE);
        f.engine.replaceOrder(3, 0, 1, 0, 0, 3, 9_800, f.tick());
        assertEquals(9_800, f.events.only(EventRecorder.OrderReplaced.class).stopPrice());
        assertEquals(3 * 10_000L, reserved(3, BTC));
        f.events.clear();
        f.engine.replaceOrder(3, 0, 2, 0, 0, 3, 0, f.tick());
        assertRejected(RejectReason.INVALID_QUOTE_AMOUNT);
        f.engine.validateInternalState();
    }

    @Test
    void aStopTriggeredUnderAKillSwitchIsCanceled()
    {
        trade(10_000, 1);
        stopLimit(3, 1, Side.BUY, 10_200, 5, 10_100);
        f.engine.setKillSwitch(3, true, f.tick());
        f.events.clear();

        trade(10_100, 2);

        assertTrue(f.events.all(EventRecorder.OrderTriggered.class).isEmpty());
        assertEquals(CancelReason.KILL_SWITCH, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(0, reserved(3, USD));
        assertEquals(0, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void aStopLimitWhosePriceIsOutsideTheBandWhenItTriggersIsCanceled()
    {
        f.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 500, 10_000, TradingState.OPEN);
        trade(10_000, 1);
        stopLimit(3, 1, Side.SELL, 9_980, 1, 9_990);
        f.events.clear();

        trade(9_500, 2);

        assertTrue(f.events.all(EventRecorder.OrderTriggered.class).isEmpty(), f.events.events().toString());
        assertEquals(CancelReason.PRICE_BAND, f.events.only(EventRecorder.OrderCanceled.class).reason(),
            "9,980 is above 5 % over 9,500, where the trade that reached the stop left the band");
        assertEquals(0, reserved(3, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void anUntriggeredGtdStopExpires()
    {
        trade(10_000, 1);
        stop(3, 1, Side.BUY, OrderType.LIMIT, TimeInForce.GTD, 10_200, 1, 0, f.nowNs + 10_000, 10_100);
        f.nowNs += 20_000;
        f.events.clear();
        f.engine.expireOrders(f.tick());
        f.events.only(EventRecorder.OrderExpired.class);
        assertEquals(0, reserved(3, USD));
        assertEquals(0, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void stopsCountAsOpenOrdersAndHoldTheInstrumentsGrid()
    {
        f.engine.setAccountLimits(3, 0, 0, 1, SelfTradePrevention.CANCEL_RESTING, f.tick());
        trade(10_000, 1);
        stopLimit(3, 1, Side.BUY, 10_200, 1, 10_100);
        f.events.clear();
        f.limit(3, 2, Side.BUY, 9_000, 1);
        assertRejected(RejectReason.ACCOUNT_MAX_OPEN_ORDERS);

        f.engine.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 2, 5, 4, 1, 1, 0, 0, 0, EngineFixture.MAKER_FEE_PPM,
            EngineFixture.TAKER_FEE_PPM, TradingState.OPEN, f.tick());
        assertRejected(RejectReason.INSTRUMENT_HAS_OPEN_ORDERS);
    }

    @Test
    void aNewOrderOfSchemaVersionTwoStillApplies()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer();
        final int length = new CommandEncoder().limit(buffer, 0, 3, 1, BTC_USD, Side.BUY, 9_000, 1);
        final MessageHeaderEncoder header = new MessageHeaderEncoder().wrap(buffer, 0);
        header.version(2).blockLength(NewOrderEncoder.stopPriceEncodingOffset());
        // The bytes after a version-2 message are not its stop price.
        buffer.putLong(MessageHeaderEncoder.ENCODED_LENGTH + NewOrderEncoder.stopPriceEncodingOffset(), 12_345);
        f.events.clear();

        assertTrue(new CommandAdapter(f.engine).onCommand(buffer, 0, length - Long.BYTES, f.tick()));
        assertEquals(0, f.events.only(EventRecorder.OrderAccepted.class).stopPrice());

        header.version(3);
        f.events.clear();
        new CommandAdapter(f.engine).onCommand(buffer, 0, length - Long.BYTES, f.tick());
        assertInstanceOf(EventRecorder.CommandRejected.class, f.events.events().getFirst(),
            "a version-3 message has the longer block");
    }

    @Test
    void stopsSurviveASnapshotInTriggerOrder()
    {
        trade(10_000, 1);
        stopLimit(3, 1, Side.BUY, 10_300, 1, 10_200);
        stopLimit(4, 1, Side.BUY, 10_300, 1, 10_100);
        stop(3, 2, Side.SELL, OrderType.MARKET, TimeInForce.GTC, 0, 1, 0, 0, 9_800);
        stop(4, 2, Side.BUY, OrderType.MARKET, TimeInForce.IOC, 0, 0, 30_000, 0, 10_200);
        final byte[] snapshot = SnapshotTest.snapshot(f.engine);
        final EventRecorder restoredEvents = new EventRecorder();
        final Engine restored = new Engine(restoredEvents);
        restored.loadSnapshot(new org.agrona.concurrent.UnsafeBuffer(snapshot), 0, snapshot.length);
        restored.validateInternalState();
        assertEquals(f.engine.stateHash(), restored.stateHash());

        f.limit(1, 20, Side.SELL, 10_300, 10);
        restored.newOrder(1, 20, BTC_USD, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 10_300, 10, 0, 0, 0, f.nowNs);
        f.events.clear();
        trade(10_200, 2);
        restored.newOrder(1, 2, BTC_USD, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 10_200, 1, 0, 0, 0, f.nowNs - 1_000);
        restoredEvents.clear();
        restored.newOrder(2, 2, BTC_USD, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 10_200, 1, 0, 0, 0, f.nowNs);
        assertEquals(3, f.events.all(EventRecorder.OrderTriggered.class).size());
        assertEquals(f.events.all(EventRecorder.OrderTriggered.class), restoredEvents.all(EventRecorder.OrderTriggered.class));
        assertEquals(f.engine.stateHash(), restored.stateHash());
    }

    private List<Long> bids()
    {
        final long[] prices = new long[10];
        final int levels = f.engine.bookDepth(BTC_USD, Side.BUY, 10, prices, new long[10], new int[10]);
        return java.util.Arrays.stream(prices, 0, levels).boxed().toList();
    }

    private int stops(final Side side)
    {
        return f.engine.instruments.get(BTC_USD).stops(side).size();
    }
}
