package io.bourse.engine;

import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.bourse.engine.EngineAssertions.assertRejected;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;

class OrderEntryValidationTest
{
    private final EngineFixture f = new EngineFixture();

    @BeforeEach
    void fund()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.events.clear();
    }

    private void order(
        final long clientOrderId, final Side side, final OrderType type, final TimeInForce tif, final boolean postOnly,
        final SelfTradePrevention stp, final long price, final long quantity, final long quoteAmount,
        final long expiryTimeNs)
    {
        f.order(1, clientOrderId, BTC_USD, side, type, tif, postOnly, stp, price, quantity, quoteAmount, expiryTimeNs);
    }

    private void limitOrder(final long price, final long quantity)
    {
        order(1, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT, price,
            quantity, 0, 0);
    }

    /**
     * BTC-USD on a coarser grid: tick 5, lot 10, quantity between 20 and 1,000.
     */
    private void coarseGrid()
    {
        f.engine.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 2, 5, 4, 10, 20, 1_000, 0, 0, 1_000, 2_000,
            TradingState.OPEN, f.tick());
        f.events.clear();
    }

    @Test
    void validLimitOrderIsAcceptedAndRests()
    {
        limitOrder(10_000, 5);

        final EventRecorder.OrderAccepted accepted = f.events.only(EventRecorder.OrderAccepted.class);
        assertEquals(1, accepted.clientOrderId());
        assertEquals(10_000, accepted.price());
        assertEquals(5, accepted.quantity());
        assertEquals(1, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void unknownInstrumentIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_INSTRUMENT, () -> f.order(1, 1, 99, Side.BUY, OrderType.LIMIT,
            TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 1, 0, 0));
    }

    @Test
    void unknownAccountIsRejected()
    {
        final EventRecorder.CommandRejected rejected = assertRejected(f, RejectReason.UNKNOWN_ACCOUNT,
            () -> f.limit(77, 1, Side.BUY, 10_000, 1));
        assertEquals(CommandType.NEW_ORDER, rejected.commandType());
        assertEquals(77, rejected.accountId());
    }

    @Test
    void nonPositiveClientOrderIdIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_CLIENT_ORDER_ID, () -> f.limit(1, 0, Side.BUY, 10_000, 1));
        assertRejected(f, RejectReason.INVALID_CLIENT_ORDER_ID, () -> f.limit(1, -5, Side.BUY, 10_000, 1));
    }

    @Test
    void missingSideIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_SIDE, () -> order(1, Side.NULL_VAL, OrderType.LIMIT, TimeInForce.GTC,
            false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 1, 0, 0));
    }

    @Test
    void missingOrderTypeIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_ORDER_TYPE, () -> order(1, Side.BUY, OrderType.NULL_VAL,
            TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 1, 0, 0));
    }

    @Test
    void missingTimeInForceIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_TIME_IN_FORCE, () -> order(1, Side.BUY, OrderType.LIMIT,
            TimeInForce.NULL_VAL, false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 1, 0, 0));
    }

    @Test
    void missingSelfTradePreventionModeIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_STP_MODE, () -> order(1, Side.BUY, OrderType.LIMIT,
            TimeInForce.GTC, false, SelfTradePrevention.NULL_VAL, 10_000, 1, 0, 0));
    }

    @Test
    void nonPositiveLimitPriceIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_PRICE, () -> limitOrder(0, 1));
        assertRejected(f, RejectReason.INVALID_PRICE, () -> limitOrder(-100, 1));
    }

    @Test
    void priceOffTheTickGridIsRejected()
    {
        coarseGrid();
        assertRejected(f, RejectReason.PRICE_OFF_TICK, () -> limitOrder(10_003, 20));
    }

    @Test
    void nonPositiveQuantityIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_QUANTITY, () -> limitOrder(10_000, 0));
        assertRejected(f, RejectReason.INVALID_QUANTITY, () -> limitOrder(10_000, -1));
    }

    @Test
    void quantityOffTheLotGridIsRejected()
    {
        coarseGrid();
        assertRejected(f, RejectReason.QUANTITY_OFF_LOT, () -> limitOrder(10_000, 25));
    }

    @Test
    void quantityBelowTheInstrumentMinimumIsRejected()
    {
        coarseGrid();
        assertRejected(f, RejectReason.QUANTITY_BELOW_MINIMUM, () -> limitOrder(10_000, 10));
    }

    @Test
    void quantityAboveTheInstrumentMaximumIsRejected()
    {
        coarseGrid();
        assertRejected(f, RejectReason.QUANTITY_ABOVE_MAXIMUM, () -> limitOrder(10_000, 1_010));
    }

    @Test
    void quantityAtTheInstrumentMinimumAndMaximumIsAccepted()
    {
        coarseGrid();
        limitOrder(10_000, 20);
        order(2, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000,
            1_000, 0, 0);

        assertEquals(2, f.events.all(EventRecorder.OrderAccepted.class).size());
        f.engine.validateInternalState();
    }

    @Test
    void quoteAmountOnALimitOrderIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_QUOTE_AMOUNT, () -> order(1, Side.BUY, OrderType.LIMIT,
            TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 1, 500, 0));
    }

    @Test
    void notionalThatOverflowsIsRejected()
    {
        assertRejected(f, RejectReason.NOTIONAL_OVERFLOW, () -> limitOrder(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2));
    }

    @Test
    void clientOrderIdAlreadyUsedByAnOpenOrderOfTheAccountIsRejected()
    {
        f.limit(1, 7, Side.BUY, 10_000, 1);
        assertRejected(f, RejectReason.DUPLICATE_CLIENT_ORDER_ID, () -> f.limit(1, 7, Side.SELL, 20_000, 1));
    }

    @Test
    void sameClientOrderIdIsAcceptedForDifferentAccounts()
    {
        f.limit(1, 7, Side.BUY, 10_000, 1);
        f.limit(2, 7, Side.BUY, 10_000, 1);

        assertEquals(2, f.events.all(EventRecorder.OrderAccepted.class).size());
        assertEquals(2, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void clientOrderIdIsReusableAfterTheOrderIsCanceled()
    {
        f.limit(1, 7, Side.BUY, 10_000, 1);
        f.engine.cancelOrder(1, f.lastOrderId(), 0, f.tick());
        f.events.clear();

        f.limit(1, 7, Side.BUY, 10_000, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
        f.engine.validateInternalState();
    }

    @Test
    void clientOrderIdIsReusableAfterTheOrderIsFilled()
    {
        f.limit(1, 7, Side.BUY, 10_000, 1);
        f.limit(2, 1, Side.SELL, 10_000, 1);
        f.events.clear();

        f.limit(1, 7, Side.BUY, 10_000, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
        f.engine.validateInternalState();
    }

    @Test
    void clientOrderIdOfAnImmediateOrderIsReusableAtOnce()
    {
        order(7, Side.BUY, OrderType.LIMIT, TimeInForce.IOC, false, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 1,
            0, 0);
        f.events.clear();

        f.limit(1, 7, Side.BUY, 10_000, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
        f.engine.validateInternalState();
    }

    @Test
    void rejectionEchoesTheCommandsIdentifiers()
    {
        final EventRecorder.CommandRejected rejected = assertRejected(f, RejectReason.INVALID_PRICE,
            () -> f.limit(1, 42, Side.BUY, 0, 1));
        assertEquals(CommandType.NEW_ORDER, rejected.commandType());
        assertEquals(1, rejected.accountId());
        assertEquals(42, rejected.clientOrderId());
        assertEquals(BTC_USD, rejected.instrumentId());
        assertEquals(0, rejected.orderId());
    }

    @Test
    void rejectedOrderDoesNotConsumeAnOrderId()
    {
        f.limit(1, 1, Side.BUY, 10_000, 1);
        final long firstOrderId = f.lastOrderId();
        f.limit(1, 2, Side.BUY, 0, 1);
        f.limit(1, 3, Side.BUY, 10_000, 1);

        assertEquals(firstOrderId + 1, f.lastOrderId());
    }
}
