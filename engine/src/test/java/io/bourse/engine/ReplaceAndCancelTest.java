package io.bourse.engine;

import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.OrderStatus;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.bourse.engine.EngineAssertions.assertRejected;
import static io.bourse.engine.EngineAssertions.available;
import static io.bourse.engine.EngineAssertions.buyReservation;
import static io.bourse.engine.EngineAssertions.depth;
import static io.bourse.engine.EngineAssertions.gtd;
import static io.bourse.engine.EngineAssertions.postOnly;
import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.ETH_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplaceAndCancelTest
{
    private final EngineFixture f = new EngineFixture();

    @BeforeEach
    void fund()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.fundAll(3);
        f.events.clear();
    }

    private void replace(final long accountId, final long orderId, final long newClientOrderId, final long price, final long quantity)
    {
        f.engine.replaceOrder(accountId, orderId, 0, newClientOrderId, price, quantity, 0, f.tick());
    }

    /**
     * Account 1 then account 2 bid 10,000 for 5 each; returns account 1's order id.
     */
    private long twoBidsAtOnePrice()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long first = f.lastOrderId();
        f.limit(2, 1, Side.BUY, 10_000, 5);
        f.events.clear();
        return first;
    }

    private long makerOfNextSell()
    {
        f.events.clear();
        f.limit(3, 99, Side.SELL, 10_000, 1);
        return f.events.only(EventRecorder.Trade.class).makerAccountId();
    }

    @Test
    void replaceLoweringQuantityKeepsTimePriority()
    {
        final long orderId = twoBidsAtOnePrice();

        replace(1, orderId, 0, 10_000, 3);

        assertTrue(f.events.only(EventRecorder.OrderReplaced.class).priorityKept());
        assertEquals(1, makerOfNextSell());
        f.engine.validateInternalState();
    }

    @Test
    void replaceRaisingQuantityLosesTimePriority()
    {
        final long orderId = twoBidsAtOnePrice();

        replace(1, orderId, 0, 10_000, 8);

        assertFalse(f.events.only(EventRecorder.OrderReplaced.class).priorityKept());
        assertEquals(2, makerOfNextSell());
        f.engine.validateInternalState();
    }

    @Test
    void replaceChangingPriceLosesTimePriority()
    {
        final long orderId = twoBidsAtOnePrice();

        replace(1, orderId, 0, 9_900, 5);
        replace(1, orderId, 0, 10_000, 5);

        assertFalse(f.events.last(EventRecorder.OrderReplaced.class).priorityKept());
        assertEquals(2, makerOfNextSell());
        f.engine.validateInternalState();
    }

    @Test
    void replaceWithUnchangedPriceAndQuantityKeepsPriority()
    {
        final long orderId = twoBidsAtOnePrice();

        replace(1, orderId, 0, 10_000, 5);

        assertTrue(f.events.only(EventRecorder.OrderReplaced.class).priorityKept());
        assertEquals(1, makerOfNextSell());
    }

    @Test
    void replaceMovesTheOrderBetweenLevels()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);

        replace(1, f.lastOrderId(), 0, 9_800, 6);

        assertArrayEquals(new long[][]{{9_800, 6, 1}}, depth(f, Side.BUY));
        f.engine.validateInternalState();
    }

    @Test
    void replaceAdjustsTheBuyReservationUpAndDown()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        final long total = available(f, 1, USD) + reserved(f, 1, USD);

        replace(1, orderId, 0, 10_000, 9);
        assertEquals(buyReservation(10_000, 9), reserved(f, 1, USD));
        replace(1, orderId, 0, 9_000, 2);
        assertEquals(buyReservation(9_000, 2), reserved(f, 1, USD));
        assertEquals(total, available(f, 1, USD) + reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void replaceOfAPartiallyFilledOrderReservesOnlyTheNewRemainder()
    {
        f.limit(1, 1, Side.SELL, 10_000, 10);
        final long orderId = f.lastOrderId();
        f.limit(2, 1, Side.BUY, 10_000, 4);
        f.events.clear();

        replace(1, orderId, 0, 10_000, 7);

        final EventRecorder.OrderReplaced replaced = f.events.only(EventRecorder.OrderReplaced.class);
        assertEquals(4, replaced.filledQuantity());
        assertEquals(7, replaced.quantity());
        assertEquals(3 * 10_000, reserved(f, 1, BTC));
        assertArrayEquals(new long[][]{{10_000, 3, 1}}, depth(f, Side.SELL));
        f.engine.validateInternalState();
    }

    @Test
    void replaceToTheFilledQuantityIsRejected()
    {
        f.limit(1, 1, Side.SELL, 10_000, 10);
        final long orderId = f.lastOrderId();
        f.limit(2, 1, Side.BUY, 10_000, 4);

        assertRejected(f, RejectReason.REPLACE_QUANTITY_NOT_ABOVE_FILLED, () -> replace(1, orderId, 0, 10_000, 4));
    }

    @Test
    void replaceBelowTheFilledQuantityIsRejected()
    {
        f.limit(1, 1, Side.SELL, 10_000, 10);
        final long orderId = f.lastOrderId();
        f.limit(2, 1, Side.BUY, 10_000, 4);

        assertRejected(f, RejectReason.REPLACE_QUANTITY_NOT_ABOVE_FILLED, () -> replace(1, orderId, 0, 10_000, 2));
    }

    @Test
    void replaceWithANewClientOrderIdRenamesTheOrder()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        replace(1, orderId, 2, 10_000, 5);

        final EventRecorder.OrderReplaced replaced = f.events.only(EventRecorder.OrderReplaced.class);
        assertEquals(1, replaced.origClientOrderId());
        assertEquals(2, replaced.clientOrderId());
        assertEquals(orderId, replaced.orderId());
        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> f.engine.cancelOrder(1, 0, 1, f.tick()));
        f.events.clear();
        f.engine.cancelOrder(1, 0, 2, f.tick());
        assertEquals(orderId, f.events.only(EventRecorder.OrderCanceled.class).orderId());
        f.engine.validateInternalState();
    }

    @Test
    void replaceFindsTheOrderByClientOrderId()
    {
        f.limit(1, 5, Side.BUY, 10_000, 5);

        f.engine.replaceOrder(1, 0, 5, 0, 10_000, 3, 0, f.tick());

        assertEquals(3, f.events.only(EventRecorder.OrderReplaced.class).quantity());
        f.engine.validateInternalState();
    }

    @Test
    void replaceToAClientOrderIdOfAnotherOpenOrderIsRejected()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        f.limit(1, 2, Side.BUY, 9_000, 5);

        assertRejected(f, RejectReason.DUPLICATE_CLIENT_ORDER_ID, () -> replace(1, orderId, 2, 10_000, 4));
    }

    @Test
    void replaceToAPriceThatCrossesTradesLikeANewOrder()
    {
        f.limit(2, 1, Side.SELL, 10_100, 3);
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        f.events.clear();

        replace(1, orderId, 0, 10_100, 5);

        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(10_100, trade.price());
        assertEquals(3, trade.quantity());
        assertEquals(orderId, trade.takerOrderId());
        assertArrayEquals(new long[][]{{10_100, 2, 1}}, depth(f, Side.BUY));
        assertEquals(0, depth(f, Side.SELL).length);
        f.engine.validateInternalState();
    }

    @Test
    void replaceThatCrossesAndFillsCompletelyClosesTheOrder()
    {
        f.limit(2, 1, Side.SELL, 10_100, 5);
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        replace(1, orderId, 0, 10_100, 5);

        assertEquals(0, f.engine.openOrderCount());
        assertEquals(0, reserved(f, 1, USD));
        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> f.engine.cancelOrder(1, orderId, 0, f.tick()));
    }

    @Test
    void replaceNeedingMoreThanAvailableIsRejected()
    {
        final EngineFixture g = new EngineFixture();
        g.fund(1, USD, buyReservation(10_000, 5));
        g.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = g.lastOrderId();

        assertRejected(g, RejectReason.INSUFFICIENT_BALANCE,
            () -> g.engine.replaceOrder(1, orderId, 0, 0, 10_000, 6, 0, g.tick()));
    }

    @Test
    void replaceOfAnUnknownOrderIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> replace(1, 12_345, 0, 10_000, 5));
    }

    @Test
    void replaceOfAnotherAccountsOrderIsRejectedAsUnknown()
    {
        f.limit(2, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> replace(1, orderId, 0, 10_000, 4));
    }

    @Test
    void replaceWithAnInvalidPriceOrQuantityIsRejected()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        assertRejected(f, RejectReason.INVALID_PRICE, () -> replace(1, orderId, 0, 0, 5));
        assertRejected(f, RejectReason.INVALID_QUANTITY, () -> replace(1, orderId, 0, 10_000, 0));
        assertRejected(f, RejectReason.INVALID_CLIENT_ORDER_ID, () -> replace(1, orderId, -1, 10_000, 5));
    }

    @Test
    void replaceOfAPostOnlyOrderToATakingPriceIsRejected()
    {
        f.limit(2, 1, Side.SELL, 10_100, 3);
        postOnly(f, 1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        assertRejected(f, RejectReason.POST_ONLY_WOULD_TAKE, () -> replace(1, orderId, 0, 10_100, 5));
    }

    @Test
    void cancelByOrderIdRemovesTheOrderAndReleasesItsReservation()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        final long availableBefore = available(f, 1, USD) + reserved(f, 1, USD);
        f.events.clear();

        f.engine.cancelOrder(1, orderId, 0, f.tick());

        final EventRecorder.OrderCanceled canceled = f.events.only(EventRecorder.OrderCanceled.class);
        assertEquals(orderId, canceled.orderId());
        assertEquals(CancelReason.CLIENT_REQUEST, canceled.reason());
        assertEquals(0, reserved(f, 1, USD));
        assertEquals(availableBefore, available(f, 1, USD));
        assertEquals(0, depth(f, Side.BUY).length);
        final List<EventRecorder.Event> events = f.events.events();
        assertEquals(3, events.size());
        assertTrue(events.get(1) instanceof EventRecorder.BalanceChanged);
        assertEquals(new EventRecorder.BookLevelChanged(BTC_USD, Side.BUY, 10_000, 0, 0, f.nowNs), events.get(2));
        f.engine.validateInternalState();
    }

    @Test
    void cancelByClientOrderIdRemovesTheOrder()
    {
        f.limit(1, 33, Side.SELL, 10_000, 5);

        f.engine.cancelOrder(1, 0, 33, f.tick());

        assertEquals(33, f.events.only(EventRecorder.OrderCanceled.class).clientOrderId());
        assertEquals(0, f.engine.openOrderCount());
        assertEquals(0, reserved(f, 1, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void cancelOfAnotherAccountsOrderByOrderIdIsRejectedAsUnknown()
    {
        f.limit(2, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        final EventRecorder.CommandRejected rejected = assertRejected(f, RejectReason.UNKNOWN_ORDER,
            () -> f.engine.cancelOrder(1, orderId, 0, f.tick()));
        assertEquals(CommandType.CANCEL_ORDER, rejected.commandType());
    }

    @Test
    void cancelByAClientOrderIdOnlyAnotherAccountUsesIsRejectedAsUnknown()
    {
        f.limit(2, 9, Side.BUY, 10_000, 5);

        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> f.engine.cancelOrder(1, 0, 9, f.tick()));
    }

    @Test
    void cancelByAnUnknownAccountIsRejected()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        assertRejected(f, RejectReason.UNKNOWN_ACCOUNT, () -> f.engine.cancelOrder(88, orderId, 0, f.tick()));
    }

    @Test
    void cancelOfAFilledOrderIsRejectedAsUnknown()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        f.limit(2, 1, Side.SELL, 10_000, 5);

        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> f.engine.cancelOrder(1, orderId, 0, f.tick()));
    }

    @Test
    void cancelOfAPartiallyFilledOrderReportsItsFills()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        f.limit(2, 1, Side.SELL, 10_000, 2);
        f.events.clear();

        f.engine.cancelOrder(1, orderId, 0, f.tick());

        final EventRecorder.OrderCanceled canceled = f.events.only(EventRecorder.OrderCanceled.class);
        assertEquals(5, canceled.quantity());
        assertEquals(2, canceled.filledQuantity());
        assertEquals(20_000, canceled.executedNotional());
        assertEquals(0, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void massCancelCancelsEveryOpenOrderOfTheAccountOnly()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        f.limit(1, 2, Side.SELL, 11_000, 5);
        f.order(1, 3, ETH_USD, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 2_000, 5, 0, 0);
        f.limit(2, 1, Side.BUY, 10_000, 5);
        f.events.clear();

        f.engine.massCancel(1, 0, Side.NULL_VAL, f.tick());

        final List<EventRecorder.OrderCanceled> canceled = f.events.all(EventRecorder.OrderCanceled.class);
        assertEquals(3, canceled.size());
        canceled.forEach(c -> assertEquals(CancelReason.MASS_CANCEL, c.reason()));
        assertEquals(3, f.events.only(EventRecorder.MassCancelCompleted.class).canceledCount());
        assertEquals(1, f.engine.openOrderCount());
        assertEquals(0, reserved(f, 1, USD));
        assertEquals(0, reserved(f, 1, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void massCancelCanBeLimitedToOneInstrument()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        f.order(1, 2, ETH_USD, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 2_000, 5, 0, 0);
        final long ethOrderId = f.lastOrderId();
        f.events.clear();

        f.engine.massCancel(1, BTC_USD, Side.NULL_VAL, f.tick());

        assertEquals(BTC_USD, f.events.only(EventRecorder.OrderCanceled.class).instrumentId());
        f.events.clear();
        f.engine.queryOrder(1, ethOrderId, 0, f.tick());
        f.events.only(EventRecorder.OrderStatusReport.class);
        f.engine.validateInternalState();
    }

    @Test
    void massCancelCanBeLimitedToOneSide()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        f.limit(1, 2, Side.BUY, 9_000, 5);
        f.limit(1, 3, Side.SELL, 11_000, 5);
        f.events.clear();

        f.engine.massCancel(1, BTC_USD, Side.BUY, f.tick());

        final List<EventRecorder.OrderCanceled> canceled = f.events.all(EventRecorder.OrderCanceled.class);
        assertEquals(2, canceled.size());
        canceled.forEach(c -> assertEquals(Side.BUY, c.side()));
        final EventRecorder.MassCancelCompleted completed = f.events.only(EventRecorder.MassCancelCompleted.class);
        assertEquals(Side.BUY, completed.side());
        assertEquals(2, completed.canceledCount());
        assertArrayEquals(new long[][]{{11_000, 5, 1}}, depth(f, Side.SELL));
        f.engine.validateInternalState();
    }

    @Test
    void massCancelWithNothingOpenCompletesWithZero()
    {
        f.engine.massCancel(1, 0, Side.NULL_VAL, f.tick());

        assertEquals(0, f.events.only(EventRecorder.MassCancelCompleted.class).canceledCount());
        assertEquals(1, f.events.events().size());
    }

    @Test
    void massCancelOfAnUnknownInstrumentIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_INSTRUMENT, () -> f.engine.massCancel(1, 99, Side.NULL_VAL, f.tick()));
    }

    @Test
    void massCancelOfAnUnknownAccountIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_ACCOUNT, () -> f.engine.massCancel(99, 0, Side.NULL_VAL, f.tick()));
    }

    @Test
    void queryReportsANewOrder()
    {
        f.limit(1, 4, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        f.events.clear();

        f.engine.queryOrder(1, orderId, 0, f.tick());

        final EventRecorder.OrderStatusReport report = f.events.only(EventRecorder.OrderStatusReport.class);
        assertEquals(new EventRecorder.OrderStatusReport(orderId, 4, 1, BTC_USD, Side.BUY, TimeInForce.GTC,
            OrderStatus.NEW, 10_000, 5, 0, 0, 0, OrderType.LIMIT, 0, f.nowNs), report);
    }

    @Test
    void queryByClientOrderIdReportsAPartiallyFilledOrder()
    {
        f.limit(1, 4, Side.BUY, 10_000, 5);
        f.limit(2, 1, Side.SELL, 10_000, 2);
        f.events.clear();

        f.engine.queryOrder(1, 0, 4, f.tick());

        final EventRecorder.OrderStatusReport report = f.events.only(EventRecorder.OrderStatusReport.class);
        assertEquals(OrderStatus.PARTIALLY_FILLED, report.status());
        assertEquals(2, report.filledQuantity());
        assertEquals(20_000, report.executedNotional());
    }

    @Test
    void queryOfAClosedOrderIsRejectedAsUnknown()
    {
        f.limit(1, 4, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        f.engine.cancelOrder(1, orderId, 0, f.tick());

        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> f.engine.queryOrder(1, orderId, 0, f.tick()));
    }

    @Test
    void queryOfAnotherAccountsOrderIsRejectedAsUnknown()
    {
        f.limit(2, 4, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();

        assertRejected(f, RejectReason.UNKNOWN_ORDER, () -> f.engine.queryOrder(1, orderId, 0, f.tick()));
    }

    @Test
    void cancelIsAcceptedWhileTheInstrumentIsHalted()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long orderId = f.lastOrderId();
        f.engine.setTradingState(BTC_USD, TradingState.HALTED, f.tick());
        f.events.clear();

        f.engine.cancelOrder(1, orderId, 0, f.tick());

        f.events.only(EventRecorder.OrderCanceled.class);
        f.engine.validateInternalState();
    }

    @Test
    void replacedGtdOrderStillExpiresAtItsExpiryTime()
    {
        final long expiryNs = f.nowNs + 1_000_000;
        gtd(f, 1, 1, Side.BUY, 10_000, 5, expiryNs);
        final long orderId = f.lastOrderId();
        replace(1, orderId, 0, 9_000, 8);
        f.events.clear();

        f.engine.expireOrders(expiryNs);

        final EventRecorder.OrderExpired expired = f.events.only(EventRecorder.OrderExpired.class);
        assertEquals(orderId, expired.orderId());
        assertEquals(9_000, expired.price());
        assertEquals(0, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void massCancelCancelsManyOrdersInOrderIdOrder()
    {
        for (int i = 1; i <= 150; i++)
        {
            f.limit(1, i, Side.BUY, 9_000 + i, 1);
        }
        f.events.clear();

        f.engine.massCancel(1, 0, Side.NULL_VAL, f.tick());

        final List<EventRecorder.OrderCanceled> canceled = f.events.all(EventRecorder.OrderCanceled.class);
        assertEquals(150, canceled.size());
        for (int i = 1; i < canceled.size(); i++)
        {
            assertTrue(canceled.get(i - 1).orderId() < canceled.get(i).orderId());
        }
        assertEquals(0, f.engine.openOrderCount());
        assertEquals(0, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void replaceLoweringQuantityOfAPartiallyFilledOrderKeepsItsPlace()
    {
        f.limit(1, 1, Side.SELL, 10_000, 10);
        final long orderId = f.lastOrderId();
        f.limit(2, 1, Side.SELL, 10_000, 10);
        f.limit(3, 1, Side.BUY, 10_000, 4);

        replace(1, orderId, 0, 10_000, 6);

        assertTrue(f.events.last(EventRecorder.OrderReplaced.class).priorityKept());
        assertArrayEquals(new long[][]{{10_000, 12, 2}}, depth(f, Side.SELL));
        f.events.clear();
        f.limit(3, 2, Side.BUY, 10_000, 1);
        assertEquals(orderId, f.events.only(EventRecorder.Trade.class).makerOrderId());
        f.engine.validateInternalState();
    }
}
