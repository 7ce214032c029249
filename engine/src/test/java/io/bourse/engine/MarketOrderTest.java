package io.bourse.engine;

import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelReason;
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
import static io.bourse.engine.EngineAssertions.baseAmount;
import static io.bourse.engine.EngineAssertions.market;
import static io.bourse.engine.EngineAssertions.marketBuyQuote;
import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MarketOrderTest
{
    private final EngineFixture f = new EngineFixture();

    @BeforeEach
    void fund()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.events.clear();
    }

    private void marketOrder(
        final Side side, final TimeInForce tif, final boolean postOnly, final long price, final long quantity,
        final long quoteAmount)
    {
        f.order(2, 1, BTC_USD, side, OrderType.MARKET, tif, postOnly, SelfTradePrevention.ACCOUNT_DEFAULT, price,
            quantity, quoteAmount, 0);
    }

    @Test
    void marketBuyByQuantityFillsAcrossLevelsAndEndsFilled()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.limit(1, 2, Side.SELL, 10_010, 3);
        final long usdBefore = available(f, 2, USD);
        f.events.clear();

        market(f, 2, 1, Side.BUY, TimeInForce.IOC, 5);

        final List<EventRecorder.Trade> trades = f.events.all(EventRecorder.Trade.class);
        assertEquals(2, trades.size());
        assertEquals(3, trades.get(0).quantity());
        assertEquals(2, trades.get(1).quantity());
        assertTrue(f.events.all(EventRecorder.OrderCanceled.class).isEmpty());
        assertEquals(usdBefore - (30_000 + 60) - (20_020 + 40), available(f, 2, USD));
        assertEquals(0, reserved(f, 2, USD));
        f.engine.validateInternalState();
    }

    @Test
    void marketOrderReservesNothing()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.events.clear();

        market(f, 2, 1, Side.BUY, TimeInForce.IOC, 3);

        f.events.all(EventRecorder.BalanceChanged.class)
            .forEach(b -> assertEquals(BalanceChangeReason.TRADE, b.reason()));
    }

    @Test
    void marketBuyByQuantityStopsWhenTheAvailableQuoteRunsOut()
    {
        f.limit(1, 1, Side.SELL, 10_000, 10);
        f.fund(3, USD, 25_000);
        f.events.clear();

        market(f, 3, 1, Side.BUY, TimeInForce.IOC, 10);

        // Each lot costs 10,000 + 20 fee: two fit in 25,000.
        assertEquals(2, f.events.only(EventRecorder.Trade.class).quantity());
        assertEquals(CancelReason.INSUFFICIENT_BALANCE, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(25_000 - 20_040, available(f, 3, USD));
        f.engine.validateInternalState();
    }

    @Test
    void marketBuyByQuoteAmountSpendsAtMostTheAmountIncludingFees()
    {
        f.limit(1, 1, Side.SELL, 10_000, 100);
        final long usdBefore = available(f, 2, USD);
        f.events.clear();

        marketBuyQuote(f, 2, 1, 500_000);

        assertEquals(500_000, f.events.only(EventRecorder.OrderAccepted.class).quoteAmount());
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(49, trade.quantity());
        assertEquals(980, trade.takerFee());
        assertEquals(CancelReason.QUOTE_AMOUNT_SPENT, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(usdBefore - 490_980, available(f, 2, USD));
        assertEquals(baseAmount(49), available(f, 2, BTC) - 1_000_000_000_000L);
        f.engine.validateInternalState();
    }

    @Test
    void marketBuyByQuoteAmountOnAnEmptyBookEndsWithNoLiquidity()
    {
        final long usdBefore = available(f, 2, USD);

        marketBuyQuote(f, 2, 1, 500_000);

        assertEquals(CancelReason.NO_LIQUIDITY, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(usdBefore, available(f, 2, USD));
        f.engine.validateInternalState();
    }

    @Test
    void marketBuyByQuoteAmountThatExhaustsTheBookEndsWithNoLiquidity()
    {
        f.limit(1, 1, Side.SELL, 10_000, 2);
        f.events.clear();

        marketBuyQuote(f, 2, 1, 500_000);

        assertEquals(2, f.events.only(EventRecorder.Trade.class).quantity());
        assertEquals(CancelReason.NO_LIQUIDITY, f.events.only(EventRecorder.OrderCanceled.class).reason());
        f.engine.validateInternalState();
    }

    @Test
    void marketBuyByQuoteAmountAboveTheAvailableBalanceIsRejected()
    {
        f.fund(3, USD, 1_000);

        assertRejected(f, RejectReason.INSUFFICIENT_BALANCE, () -> marketBuyQuote(f, 3, 1, 1_001));
    }

    @Test
    void marketBuyWithNoQuoteAvailableIsRejected()
    {
        f.fund(3, BTC, 1_000);

        assertRejected(f, RejectReason.INSUFFICIENT_BALANCE, () -> market(f, 3, 1, Side.BUY, TimeInForce.IOC, 1));
    }

    @Test
    void marketSellFillsAgainstBidsAndPaysTheTakerFee()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long usdBefore = available(f, 2, USD);
        final long btcBefore = available(f, 2, BTC);
        f.events.clear();

        market(f, 2, 1, Side.SELL, TimeInForce.IOC, 3);

        assertEquals(3, f.events.only(EventRecorder.Trade.class).quantity());
        assertEquals(usdBefore + 30_000 - 60, available(f, 2, USD));
        assertEquals(btcBefore - baseAmount(3), available(f, 2, BTC));
        assertEquals(0, reserved(f, 2, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void marketSellOfMoreBaseThanAvailableIsRejected()
    {
        f.fund(3, BTC, baseAmount(2));

        assertRejected(f, RejectReason.INSUFFICIENT_BALANCE, () -> market(f, 3, 1, Side.SELL, TimeInForce.IOC, 3));
    }

    @Test
    void marketSellWithoutBidsEndsWithNoLiquidity()
    {
        market(f, 2, 1, Side.SELL, TimeInForce.IOC, 3);

        assertEquals(CancelReason.NO_LIQUIDITY, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(0, reserved(f, 2, BTC));
        f.engine.validateInternalState();
    }

    @Test
    void marketOrderStopsAtThePriceBand()
    {
        f.limit(1, 1, Side.SELL, 10_500, 2);
        f.limit(1, 2, Side.SELL, 11_000, 2);
        f.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 500, 10_000, TradingState.OPEN);
        f.events.clear();

        // Band 10,000 ± 5 % = 9,500 … 10,500: the 11,000 ask is outside it.
        market(f, 2, 1, Side.BUY, TimeInForce.IOC, 4);

        assertEquals(10_500, f.events.only(EventRecorder.Trade.class).price());
        assertEquals(CancelReason.PRICE_BAND, f.events.only(EventRecorder.OrderCanceled.class).reason());
        f.engine.validateInternalState();
    }

    @Test
    void marketFokThatCannotBeFilledIsCanceledWithoutTrading()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.events.clear();

        market(f, 2, 1, Side.BUY, TimeInForce.FOK, 4);

        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        assertEquals(CancelReason.FILL_OR_KILL, f.events.only(EventRecorder.OrderCanceled.class).reason());
        f.engine.validateInternalState();
    }

    @Test
    void marketFokThatCanBeFilledFills()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.limit(1, 2, Side.SELL, 10_100, 3);
        f.events.clear();

        market(f, 2, 1, Side.BUY, TimeInForce.FOK, 4);

        assertEquals(2, f.events.all(EventRecorder.Trade.class).size());
        assertTrue(f.events.all(EventRecorder.OrderCanceled.class).isEmpty());
        f.engine.validateInternalState();
    }

    @Test
    void marketFokBuyThatCannotBePaidForIsCanceledWithoutTrading()
    {
        f.limit(1, 1, Side.SELL, 10_000, 10);
        f.fund(3, USD, 25_000);
        f.events.clear();

        market(f, 3, 1, Side.BUY, TimeInForce.FOK, 3);

        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        assertEquals(CancelReason.FILL_OR_KILL, f.events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(25_000, available(f, 3, USD));
    }

    @Test
    void marketOrderWithRestingTimeInForceIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_TIME_IN_FORCE, () -> marketOrder(Side.BUY, TimeInForce.GTC, false, 0, 1, 0));
        assertRejected(f, RejectReason.INVALID_TIME_IN_FORCE, () -> f.order(2, 1, BTC_USD, Side.BUY, OrderType.MARKET,
            TimeInForce.GTD, false, SelfTradePrevention.ACCOUNT_DEFAULT, 0, 1, 0, f.nowNs + 1_000_000));
    }

    @Test
    void marketBuyByQuoteAmountWithFokIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_TIME_IN_FORCE, () -> marketOrder(Side.BUY, TimeInForce.FOK, false, 0, 0, 1_000));
    }

    @Test
    void marketOrderWithAPriceIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_PRICE, () -> marketOrder(Side.BUY, TimeInForce.IOC, false, 10_000, 1, 0));
    }

    @Test
    void postOnlyMarketOrderIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_ORDER_TYPE, () -> marketOrder(Side.BUY, TimeInForce.IOC, true, 0, 1, 0));
    }

    @Test
    void quoteAmountOnlyGoesWithAMarketBuyWithoutQuantity()
    {
        assertRejected(f, RejectReason.INVALID_QUOTE_AMOUNT, () -> marketOrder(Side.SELL, TimeInForce.IOC, false, 0, 0, 1_000));
        assertRejected(f, RejectReason.INVALID_QUOTE_AMOUNT, () -> marketOrder(Side.BUY, TimeInForce.IOC, false, 0, 5, 1_000));
        assertRejected(f, RejectReason.INVALID_QUOTE_AMOUNT, () -> marketOrder(Side.BUY, TimeInForce.IOC, false, 0, 0, -1));
    }

    @Test
    void marketOrderWithNeitherQuantityNorQuoteAmountIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_QUANTITY, () -> marketOrder(Side.BUY, TimeInForce.IOC, false, 0, 0, 0));
    }

    @Test
    void marketBuyByQuoteAmountAboveTheAccountsMaxNotionalIsRejected()
    {
        f.engine.setAccountLimits(2, 0, 100_000, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());

        assertRejected(f, RejectReason.ACCOUNT_MAX_ORDER_NOTIONAL, () -> marketBuyQuote(f, 2, 1, 100_001));
    }
}
