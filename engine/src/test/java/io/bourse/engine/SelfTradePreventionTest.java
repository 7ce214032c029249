package io.bourse.engine;

import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.bourse.engine.EngineAssertions.baseAmount;
import static io.bourse.engine.EngineAssertions.buyReservation;
import static io.bourse.engine.EngineAssertions.depth;
import static io.bourse.engine.EngineAssertions.limit;
import static io.bourse.engine.EngineAssertions.marketBuyQuote;
import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SelfTradePreventionTest
{
    private final EngineFixture f = new EngineFixture();
    private long restingOrderId;

    @BeforeEach
    void restASellOfAccountOne()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(1, 1, Side.SELL, 10_000, 5);
        restingOrderId = f.lastOrderId();
        f.events.clear();
    }

    private long buy(final SelfTradePrevention stp, final long quantity)
    {
        limit(f, 1, 2, Side.BUY, TimeInForce.GTC, stp, 10_000, quantity);
        return f.lastOrderId();
    }

    private EventRecorder.OrderCanceled canceled(final long orderId)
    {
        return f.events.all(EventRecorder.OrderCanceled.class).stream()
            .filter(c -> c.orderId() == orderId)
            .findFirst()
            .orElseThrow(() -> new AssertionError("order " + orderId + " not canceled: " + f.events.events()));
    }

    @Test
    void accountDefaultIsCancelAggressorUntilSet()
    {
        final long aggressorId = buy(SelfTradePrevention.ACCOUNT_DEFAULT, 3);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(aggressorId).reason());
        assertEquals(1, f.events.all(EventRecorder.OrderCanceled.class).size());
        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        assertArrayEquals(new long[][]{{10_000, 5, 1}}, depth(f, Side.SELL));
        assertEquals(0, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void cancelAggressorCancelsOnlyTheIncomingOrder()
    {
        final long aggressorId = buy(SelfTradePrevention.CANCEL_AGGRESSOR, 3);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(aggressorId).reason());
        assertEquals(1, f.events.all(EventRecorder.OrderCanceled.class).size());
        assertEquals(baseAmount(5), reserved(f, 1, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void cancelAggressorKeepsFillsAlreadyMadeWithOtherAccounts()
    {
        final EngineFixture g = new EngineFixture();
        g.fundAll(1);
        g.fundAll(2);
        g.limit(2, 1, Side.SELL, 10_000, 2);
        g.limit(1, 1, Side.SELL, 10_000, 5);
        g.events.clear();

        limit(g, 1, 2, Side.BUY, TimeInForce.GTC, SelfTradePrevention.CANCEL_AGGRESSOR, 10_000, 5);

        assertEquals(2, g.events.only(EventRecorder.Trade.class).quantity());
        final EventRecorder.OrderCanceled canceled = g.events.only(EventRecorder.OrderCanceled.class);
        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled.reason());
        assertEquals(2, canceled.filledQuantity());
        assertEquals(0, reserved(g, 1, USD));
        g.engine.validateInternalState();
    }

    @Test
    void cancelRestingRemovesTheRestingOrderAndTheAggressorRests()
    {
        final long aggressorId = buy(SelfTradePrevention.CANCEL_RESTING, 3);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(restingOrderId).reason());
        assertEquals(1, f.events.all(EventRecorder.OrderCanceled.class).size());
        assertEquals(0, depth(f, Side.SELL).length);
        assertArrayEquals(new long[][]{{10_000, 3, 1}}, depth(f, Side.BUY));
        assertEquals(0, reserved(f, 1, BTC));
        assertEquals(buyReservation(10_000, 3), reserved(f, 1, USD));
        assertEquals(aggressorId, f.lastOrderId());
        f.engine.validateInternalState();
    }

    @Test
    void cancelRestingGoesOnMatchingOtherAccountsBehindIt()
    {
        f.limit(2, 1, Side.SELL, 10_000, 4);
        f.events.clear();

        buy(SelfTradePrevention.CANCEL_RESTING, 3);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(restingOrderId).reason());
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(2, trade.makerAccountId());
        assertEquals(3, trade.quantity());
        f.engine.validateInternalState();
    }

    @Test
    void cancelBothCancelsTheRestingAndTheIncomingOrder()
    {
        final long aggressorId = buy(SelfTradePrevention.CANCEL_BOTH, 3);

        final List<EventRecorder.OrderCanceled> canceled = f.events.all(EventRecorder.OrderCanceled.class);
        assertEquals(2, canceled.size());
        assertEquals(restingOrderId, canceled.get(0).orderId());
        assertEquals(aggressorId, canceled.get(1).orderId());
        canceled.forEach(c -> assertEquals(CancelReason.SELF_TRADE_PREVENTION, c.reason()));
        assertEquals(0, f.engine.openOrderCount());
        assertEquals(0, reserved(f, 1, USD));
        assertEquals(0, reserved(f, 1, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void decrementWithASmallerAggressorRestatesTheRestingOrderAndEndsTheAggressor()
    {
        final long aggressorId = buy(SelfTradePrevention.DECREMENT, 3);

        final EventRecorder.OrderRestated restated = f.events.only(EventRecorder.OrderRestated.class);
        assertEquals(restingOrderId, restated.orderId());
        assertEquals(2, restated.quantity());
        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(aggressorId).reason());
        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        assertArrayEquals(new long[][]{{10_000, 2, 1}}, depth(f, Side.SELL));
        assertEquals(baseAmount(2), reserved(f, 1, BTC));
        assertEquals(0, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void decrementWithALargerAggressorCancelsTheRestingOrderAndRestatesTheAggressor()
    {
        final long aggressorId = buy(SelfTradePrevention.DECREMENT, 8);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(restingOrderId).reason());
        final EventRecorder.OrderRestated restated = f.events.only(EventRecorder.OrderRestated.class);
        assertEquals(aggressorId, restated.orderId());
        assertEquals(3, restated.quantity());
        assertArrayEquals(new long[][]{{10_000, 3, 1}}, depth(f, Side.BUY));
        assertEquals(buyReservation(10_000, 3), reserved(f, 1, USD));
        assertEquals(0, reserved(f, 1, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void decrementOfEqualOrdersRemovesBoth()
    {
        final long aggressorId = buy(SelfTradePrevention.DECREMENT, 5);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(restingOrderId).reason());
        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(aggressorId).reason());
        assertEquals(0, f.engine.openOrderCount());
        assertEquals(0, reserved(f, 1, USD));
        assertEquals(0, reserved(f, 1, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void decrementedAggressorTradesItsRestWithOtherAccounts()
    {
        f.limit(2, 1, Side.SELL, 10_000, 4);
        f.events.clear();

        buy(SelfTradePrevention.DECREMENT, 7);

        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(2, trade.makerAccountId());
        assertEquals(2, trade.quantity());
        assertEquals(1, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void accountDefaultModeAppliesToOrdersAskingForIt()
    {
        f.engine.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.CANCEL_RESTING, f.tick());
        f.events.clear();

        buy(SelfTradePrevention.ACCOUNT_DEFAULT, 3);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(restingOrderId).reason());
        assertEquals(1, f.events.all(EventRecorder.OrderCanceled.class).size());
        f.engine.validateInternalState();
    }

    @Test
    void explicitModeOnTheOrderOverridesTheAccountDefault()
    {
        f.engine.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.CANCEL_RESTING, f.tick());
        f.events.clear();

        final long aggressorId = buy(SelfTradePrevention.CANCEL_AGGRESSOR, 3);

        assertEquals(aggressorId, f.events.only(EventRecorder.OrderCanceled.class).orderId());
        f.engine.validateInternalState();
    }

    @Test
    void aggressorsModeWinsOverTheRestingOrdersMode()
    {
        f.engine.cancelOrder(1, restingOrderId, 0, f.tick());
        limit(f, 1, 1, Side.SELL, TimeInForce.GTC, SelfTradePrevention.CANCEL_AGGRESSOR, 10_000, 5);
        final long restingId = f.lastOrderId();
        f.events.clear();

        buy(SelfTradePrevention.CANCEL_RESTING, 3);

        assertEquals(restingId, f.events.only(EventRecorder.OrderCanceled.class).orderId());
        f.engine.validateInternalState();
    }

    @Test
    void restingOrdersCancelRestingModeDoesNotProtectItFromACancelAggressorTaker()
    {
        f.engine.cancelOrder(1, restingOrderId, 0, f.tick());
        limit(f, 1, 1, Side.SELL, TimeInForce.GTC, SelfTradePrevention.CANCEL_RESTING, 10_000, 5);
        f.events.clear();

        final long aggressorId = buy(SelfTradePrevention.CANCEL_AGGRESSOR, 3);

        assertEquals(aggressorId, f.events.only(EventRecorder.OrderCanceled.class).orderId());
        assertEquals(1, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void decrementOnAMarketBuyByQuoteAmountCancelsTheRestingOrder()
    {
        f.engine.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.DECREMENT, f.tick());
        f.limit(2, 1, Side.SELL, 10_000, 4);
        f.events.clear();

        marketBuyQuote(f, 1, 2, 20_000);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(restingOrderId).reason());
        assertEquals(2, f.events.only(EventRecorder.Trade.class).makerAccountId());
        f.engine.validateInternalState();
    }

    @Test
    void accountDefaultRequestRestoresCancelAggressor()
    {
        f.engine.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.CANCEL_BOTH, f.tick());
        f.engine.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());

        assertEquals(SelfTradePrevention.CANCEL_AGGRESSOR,
            f.events.last(EventRecorder.AccountLimitsChanged.class).defaultSelfTradePrevention());
    }

    @Test
    void replacedOrderThatCrossesItsOwnOrderAppliesItsSelfTradePrevention()
    {
        limit(f, 1, 2, Side.BUY, TimeInForce.GTC, SelfTradePrevention.CANCEL_AGGRESSOR, 9_900, 3);
        final long buyId = f.lastOrderId();
        f.events.clear();

        f.engine.replaceOrder(1, buyId, 0, 0, 10_000, 3, 0, f.tick());

        final EventRecorder.OrderCanceled canceled = f.events.only(EventRecorder.OrderCanceled.class);
        assertEquals(buyId, canceled.orderId());
        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled.reason());
        assertEquals(1, f.engine.openOrderCount());
        assertEquals(0, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void decrementOnAMarketOrderByQuantityReducesItAndTradesTheRest()
    {
        f.limit(2, 1, Side.SELL, 10_000, 4);
        f.events.clear();

        f.order(1, 2, EngineFixture.BTC_USD, Side.BUY, OrderType.MARKET, TimeInForce.IOC,
            false, SelfTradePrevention.DECREMENT, 0, 7, 0, 0);

        assertEquals(CancelReason.SELF_TRADE_PREVENTION, canceled(restingOrderId).reason());
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(2, trade.quantity());
        assertEquals(0, trade.takerRemainingQuantity());
        assertEquals(1, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }
}
