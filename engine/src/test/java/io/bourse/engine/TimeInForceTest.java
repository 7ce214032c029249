package io.bourse.engine;

import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.bourse.engine.EngineAssertions.assertRejected;
import static io.bourse.engine.EngineAssertions.available;
import static io.bourse.engine.EngineAssertions.baseAmount;
import static io.bourse.engine.EngineAssertions.depth;
import static io.bourse.engine.EngineAssertions.gtd;
import static io.bourse.engine.EngineAssertions.limit;
import static io.bourse.engine.EngineAssertions.postOnly;
import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TimeInForceTest
{
    private final EngineFixture f = new EngineFixture();

    @BeforeEach
    void fund()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.events.clear();
    }

    private void buy(final TimeInForce timeInForce, final SelfTradePrevention stp, final long price, final long quantity)
    {
        limit(f, 2, 1, Side.BUY, timeInForce, stp, price, quantity);
    }

    // ------------------------------------------------------------------------------------------------ IOC

    @Test
    void iocRemainderIsCanceledAfterFilling()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.events.clear();

        buy(TimeInForce.IOC, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 5);

        assertEquals(3, f.events.only(EventRecorder.Trade.class).quantity());
        final EventRecorder.OrderCanceled canceled = f.events.only(EventRecorder.OrderCanceled.class);
        assertEquals(CancelReason.IMMEDIATE_OR_CANCEL, canceled.reason());
        assertEquals(3, canceled.filledQuantity());
        assertEquals(0, depth(f, Side.BUY).length);
        assertEquals(0, reserved(f, 2, USD));
        f.engine.validateInternalState();
    }

    @Test
    void iocThatCannotTradeIsCanceledAndChangesNoBalance()
    {
        final long usdBefore = available(f, 2, USD);

        buy(TimeInForce.IOC, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 5);

        assertEquals(CancelReason.IMMEDIATE_OR_CANCEL, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(usdBefore, available(f, 2, USD));
        assertEquals(0, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void iocFilledCompletelyEndsWithoutCancel()
    {
        f.limit(1, 1, Side.SELL, 10_000, 5);
        f.events.clear();

        buy(TimeInForce.IOC, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 5);

        f.events.only(EventRecorder.Trade.class);
        assertTrue(f.events.all(EventRecorder.OrderCanceled.class).isEmpty());
        f.engine.validateInternalState();
    }

    // ------------------------------------------------------------------------------------------------ FOK

    @Test
    void fokThatCanBeFilledCompletelyFills()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.limit(1, 2, Side.SELL, 10_001, 3);
        f.events.clear();

        buy(TimeInForce.FOK, SelfTradePrevention.ACCOUNT_DEFAULT, 10_001, 6);

        assertEquals(2, f.events.all(EventRecorder.Trade.class).size());
        assertTrue(f.events.all(EventRecorder.OrderCanceled.class).isEmpty());
        assertEquals(0, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void fokThatCannotBeFilledCompletelyIsCanceledWithoutTrading()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.limit(1, 2, Side.SELL, 10_002, 3);
        f.events.clear();

        buy(TimeInForce.FOK, SelfTradePrevention.ACCOUNT_DEFAULT, 10_001, 6);

        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        final EventRecorder.OrderCanceled canceled = f.events.only(EventRecorder.OrderCanceled.class);
        assertEquals(CancelReason.FILL_OR_KILL, canceled.reason());
        assertEquals(0, canceled.filledQuantity());
        assertArrayEquals(new long[][]{{10_000, 3, 1}, {10_002, 3, 1}}, depth(f, Side.SELL));
        assertEquals(0, reserved(f, 2, USD));
        f.engine.validateInternalState();
    }

    @Test
    void fokCountsOwnRestingOrdersOnlyWhenTheyWouldBeCanceled()
    {
        f.limit(2, 5, Side.SELL, 10_000, 3);
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.events.clear();

        buy(TimeInForce.FOK, SelfTradePrevention.CANCEL_AGGRESSOR, 10_000, 3);
        assertEquals(CancelReason.FILL_OR_KILL, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        f.events.clear();

        limit(f, 2, 2, Side.BUY, TimeInForce.FOK, SelfTradePrevention.CANCEL_RESTING, 10_000, 3);
        assertEquals(CancelReason.SELF_TRADE_PREVENTION, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(1, f.events.only(EventRecorder.Trade.class).makerAccountId());
        f.engine.validateInternalState();
    }

    // ------------------------------------------------------------------------------------------------ GTC / GTD

    @Test
    void gtcOrderIsNotExpired()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);

        f.engine.expireOrders(Long.MAX_VALUE);

        assertTrue(f.events.all(EventRecorder.OrderExpired.class).isEmpty());
        assertEquals(1, f.engine.openOrderCount());
    }

    @Test
    void gtdOrderRestsBeforeItsExpiry()
    {
        final long expiryNs = f.nowNs + 1_000_000;
        gtd(f, 1, 1, Side.BUY, 10_000, 5, expiryNs);
        f.events.clear();

        f.engine.expireOrders(expiryNs - 1);

        assertTrue(f.events.events().isEmpty());
        assertEquals(1, f.engine.openOrderCount());
    }

    @Test
    void gtdOrderExpiresAtItsExpiryTimeAndReleasesItsReservation()
    {
        final long expiryNs = f.nowNs + 1_000_000;
        gtd(f, 1, 1, Side.SELL, 10_000, 5, expiryNs);
        final long orderId = f.lastOrderId();
        f.events.clear();

        f.engine.expireOrders(expiryNs);

        final EventRecorder.OrderExpired expired = f.events.only(EventRecorder.OrderExpired.class);
        assertEquals(orderId, expired.orderId());
        assertEquals(expiryNs, expired.timestampNs());
        assertEquals(0, reserved(f, 1, BTC));
        assertEquals(0, depth(f, Side.SELL).length);
        assertEquals(0, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void expireOrdersExpiresEarliestFirstAndOnlyThoseDue()
    {
        final long base = f.nowNs;
        gtd(f, 1, 1, Side.BUY, 10_000, 1, base + 3_000_000);
        final long late = f.lastOrderId();
        gtd(f, 1, 2, Side.BUY, 10_000, 1, base + 1_000_000);
        final long early = f.lastOrderId();
        gtd(f, 1, 3, Side.BUY, 10_000, 1, base + 9_000_000);
        f.events.clear();

        f.engine.expireOrders(base + 5_000_000);

        final List<EventRecorder.OrderExpired> expired = f.events.all(EventRecorder.OrderExpired.class);
        assertEquals(2, expired.size());
        assertEquals(early, expired.get(0).orderId());
        assertEquals(late, expired.get(1).orderId());
        assertEquals(1, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void canceledGtdOrderIsNotExpiredLater()
    {
        final long expiryNs = f.nowNs + 1_000_000;
        gtd(f, 1, 1, Side.BUY, 10_000, 5, expiryNs);
        f.engine.cancelOrder(1, f.lastOrderId(), 0, f.tick());
        f.events.clear();

        f.engine.expireOrders(expiryNs);

        assertTrue(f.events.events().isEmpty());
        f.engine.validateInternalState();
    }

    @Test
    void expiredRestingOrderIsExpiredWhenMatchingReachesIt()
    {
        final long expiryNs = f.nowNs + 5_000;
        gtd(f, 1, 1, Side.SELL, 10_000, 5, expiryNs);
        final long expiringId = f.lastOrderId();
        f.limit(1, 2, Side.SELL, 10_001, 5);
        f.nowNs = expiryNs;
        f.events.clear();

        buy(TimeInForce.GTC, SelfTradePrevention.ACCOUNT_DEFAULT, 10_001, 2);

        assertEquals(expiringId, f.events.only(EventRecorder.OrderExpired.class).orderId());
        assertEquals(10_001, f.events.only(EventRecorder.Trade.class).price());
        assertEquals(baseAmount(3), reserved(f, 1, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void orderPastItsExpiryIsExpiredByAReplaceOrCancelAndDoesNotTrade()
    {
        final long expiryNs = f.nowNs + 5_000;
        gtd(f, 1, 1, Side.BUY, 9_000, 5, expiryNs);
        final long replacedId = f.lastOrderId();
        gtd(f, 1, 2, Side.BUY, 9_000, 5, expiryNs);
        final long canceledId = f.lastOrderId();
        f.limit(2, 1, Side.SELL, 10_000, 5);
        f.nowNs = expiryNs;
        f.events.clear();

        f.engine.replaceOrder(1, replacedId, 0, 0, 10_000, 5, 0, f.tick());

        assertEquals(replacedId, f.events.only(EventRecorder.OrderExpired.class).orderId());
        assertEquals(RejectReason.UNKNOWN_ORDER, f.events.only(EventRecorder.CommandRejected.class).reason());
        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty(), "an expired order must not trade");

        f.events.clear();
        f.engine.cancelOrder(1, canceledId, 0, f.tick());

        assertEquals(canceledId, f.events.only(EventRecorder.OrderExpired.class).orderId());
        assertEquals(RejectReason.UNKNOWN_ORDER, f.events.only(EventRecorder.CommandRejected.class).reason());
        assertTrue(f.events.all(EventRecorder.OrderCanceled.class).isEmpty());
        assertEquals(0, reserved(f, 1, USD));
        assertEquals(0, depth(f, Side.BUY).length);
        f.engine.validateInternalState();
    }

    @Test
    void postOnlyIsNotRefusedForAnOrderPastItsExpiry()
    {
        final long expiryNs = f.nowNs + 5_000;
        gtd(f, 1, 1, Side.SELL, 10_000, 5, expiryNs);
        final long expiringId = f.lastOrderId();
        f.nowNs = expiryNs;
        f.events.clear();

        postOnly(f, 2, 1, Side.BUY, 10_000, 5);

        assertTrue(f.events.all(EventRecorder.CommandRejected.class).isEmpty(), f.events.events().toString());
        assertEquals(expiringId, f.events.only(EventRecorder.OrderExpired.class).orderId());
        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        assertEquals(0, depth(f, Side.SELL).length);
        assertEquals(1, depth(f, Side.BUY).length);
        f.engine.validateInternalState();
    }

    @Test
    void gtdWithoutExpiryIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_EXPIRY, () -> gtd(f, 1, 1, Side.BUY, 10_000, 5, 0));
    }

    @Test
    void gtdExpiringAtOrBeforeTheCommandTimeIsRejected()
    {
        assertRejected(f, RejectReason.EXPIRY_IN_PAST, () -> gtd(f, 1, 1, Side.BUY, 10_000, 5, f.nowNs));
        assertRejected(f, RejectReason.EXPIRY_IN_PAST, () -> gtd(f, 1, 1, Side.BUY, 10_000, 5, f.nowNs + 1_000));
    }

    @Test
    void expiryOnANonGtdOrderIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_EXPIRY, () -> f.order(1, 1, BTC_USD, Side.BUY, OrderType.LIMIT,
            TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 5, 0, f.nowNs + 1_000_000));
    }

    @Test
    void queryReportsTheExpiryOfAGtdOrder()
    {
        final long expiryNs = f.nowNs + 1_000_000;
        gtd(f, 1, 1, Side.BUY, 10_000, 5, expiryNs);
        f.events.clear();

        f.engine.queryOrder(1, 0, 1, f.tick());

        final EventRecorder.OrderStatusReport report = f.events.only(EventRecorder.OrderStatusReport.class);
        assertEquals(TimeInForce.GTD, report.timeInForce());
        assertEquals(expiryNs, report.expiryTimeNs());
    }

    // ------------------------------------------------------------------------------------------------ post-only

    @Test
    void postOnlyOrderThatDoesNotCrossRests()
    {
        f.limit(1, 1, Side.SELL, 10_100, 5);
        f.events.clear();

        postOnly(f, 2, 1, Side.BUY, 10_000, 5);

        f.events.only(EventRecorder.OrderAccepted.class);
        assertArrayEquals(new long[][]{{10_000, 5, 1}}, depth(f, Side.BUY));
        f.engine.validateInternalState();
    }

    @Test
    void postOnlyOrderThatWouldTakeIsRejected()
    {
        f.limit(1, 1, Side.SELL, 10_100, 5);

        assertRejected(f, RejectReason.POST_ONLY_WOULD_TAKE, () -> postOnly(f, 2, 1, Side.BUY, 10_100, 5));
    }

    @Test
    void postOnlyWithImmediateTimeInForceIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_TIME_IN_FORCE, () -> f.order(2, 1, BTC_USD, Side.BUY, OrderType.LIMIT,
            TimeInForce.IOC, true, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 5, 0, 0));
    }
}
