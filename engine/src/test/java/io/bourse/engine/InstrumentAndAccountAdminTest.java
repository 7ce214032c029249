package io.bourse.engine;

import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.junit.jupiter.api.Test;

import static io.bourse.engine.EngineAssertions.assertRejected;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.ETH;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;

class InstrumentAndAccountAdminTest
{
    private static final int ETH_BTC = 3;

    private final EngineFixture f = new EngineFixture();

    /**
     * Define or change an instrument; the arguments not given are those of the fixture's BTC-USD.
     */
    private void define(
        final int instrumentId, final int base, final int quote, final int priceScale, final long tickSize,
        final int quantityScale, final long lotSize, final long minQuantity, final long maxQuantity,
        final int priceBandBps, final long referencePrice, final int makerFeePpm, final int takerFeePpm,
        final TradingState state)
    {
        f.engine.defineInstrument(instrumentId, "X", base, quote, priceScale, tickSize, quantityScale, lotSize,
            minQuantity, maxQuantity, priceBandBps, referencePrice, makerFeePpm, takerFeePpm, state, f.tick());
    }

    private void defineBtcUsd(final long tickSize, final long lotSize, final int makerFeePpm, final int takerFeePpm)
    {
        define(BTC_USD, BTC, USD, 2, tickSize, 4, lotSize, 0, 0, 0, 0, makerFeePpm, takerFeePpm, TradingState.OPEN);
    }

    private void assertInvalid(final Runnable definition)
    {
        assertRejected(f, RejectReason.INVALID_INSTRUMENT_DEFINITION, definition);
    }

    @Test
    void newInstrumentIsDefinedAndTakesOrders()
    {
        f.fundAll(1);
        f.events.clear();

        f.engine.defineInstrument(ETH_BTC, "ETH-BTC", ETH, BTC, 5, 1, 3, 1, 0, 0, 0, 0, 500, 1_000,
            TradingState.OPEN, f.tick());

        assertEquals(new EventRecorder.InstrumentDefined(ETH_BTC, "ETH-BTC", ETH, BTC, 5, 1, 3, 1, 0, 0, 0, 0, 500,
            1_000, TradingState.OPEN, f.nowNs), f.events.only(EventRecorder.InstrumentDefined.class));
        f.order(1, 1, ETH_BTC, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
            5_000, 10, 0, 0);
        f.events.only(EventRecorder.OrderAccepted.class);
        f.engine.validateInternalState();
    }

    @Test
    void nonPositiveInstrumentIdIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_INSTRUMENT,
            () -> define(0, BTC, USD, 2, 1, 4, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void instrumentOnAnUnknownAssetIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_ASSET,
            () -> define(ETH_BTC, 42, USD, 2, 1, 4, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
        assertRejected(f, RejectReason.UNKNOWN_ASSET,
            () -> define(ETH_BTC, BTC, 42, 2, 1, 4, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void instrumentTradingAnAssetAgainstItselfIsRejected()
    {
        assertInvalid(() -> define(ETH_BTC, BTC, BTC, 2, 1, 4, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void nonPositiveTickOrLotIsRejected()
    {
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 0, 4, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 0, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, -1, 4, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void invalidQuantityLimitsAreRejected()
    {
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, -1, 0, 0, 0, 0, 0, TradingState.OPEN));
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, 10, 5, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void invalidPriceBandOrReferenceIsRejected()
    {
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, 0, 0, 10_001, 0, 0, 0, TradingState.OPEN));
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, 0, 0, -1, 0, 0, 0, TradingState.OPEN));
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, 0, 0, 100, -1, 0, 0, TradingState.OPEN));
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 5, 4, 1, 0, 0, 100, 10_001, 0, 0, TradingState.OPEN));
    }

    @Test
    void feesOutsideZeroToOneMillionPpmAreRejected()
    {
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, 0, 0, 0, 0, 1_000_001, 0, TradingState.OPEN));
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, 0, 0, 0, 0, 0, -1, TradingState.OPEN));
    }

    @Test
    void missingTradingStateIsRejected()
    {
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 2, 1, 4, 1, 0, 0, 0, 0, 0, 0, TradingState.NULL_VAL));
    }

    @Test
    void gridWithoutAnExactNotionalPerTickAndLotIsRejected()
    {
        // 0.00000001 USD × 0.00000001 ETH is far below the USD's 6 decimals.
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 8, 1, 8, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void quantityScaleFinerThanTheBaseAssetIsRejected()
    {
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 0, 1, 9, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void scaleAboveEighteenIsRejected()
    {
        assertInvalid(() -> define(ETH_BTC, ETH, USD, 19, 1, 0, 1, 0, 0, 0, 0, 0, 0, TradingState.OPEN));
    }

    @Test
    void gridChangeIsRejectedWhileTheBookHasOrders()
    {
        f.fundAll(1);
        f.limit(1, 1, Side.BUY, 10_000, 5);

        assertRejected(f, RejectReason.INSTRUMENT_HAS_OPEN_ORDERS, () -> defineBtcUsd(10, 1, 1_000, 2_000));
        assertRejected(f, RejectReason.INSTRUMENT_HAS_OPEN_ORDERS, () -> defineBtcUsd(1, 5, 1_000, 2_000));
        assertRejected(f, RejectReason.INSTRUMENT_HAS_OPEN_ORDERS,
            () -> define(BTC_USD, ETH, USD, 2, 1, 4, 1, 0, 0, 0, 0, 1_000, 2_000, TradingState.OPEN));
    }

    @Test
    void gridChangeIsAcceptedOnceTheBookIsEmpty()
    {
        f.fundAll(1);
        f.limit(1, 1, Side.BUY, 10_000, 5);
        f.engine.cancelOrder(1, f.lastOrderId(), 0, f.tick());
        f.events.clear();

        defineBtcUsd(10, 5, 1_000, 2_000);

        assertEquals(10, f.events.only(EventRecorder.InstrumentDefined.class).tickSize());
        f.engine.validateInternalState();
    }

    @Test
    void feesLimitsAndBandCanChangeWhileTheBookHasOrders()
    {
        f.fundAll(1);
        f.limit(1, 1, Side.BUY, 10_000, 5);
        f.events.clear();

        define(BTC_USD, BTC, USD, 2, 1, 4, 1, 1, 100, 2_000, 10_000, 500, 700, TradingState.POST_ONLY);

        final EventRecorder.InstrumentDefined defined = f.events.only(EventRecorder.InstrumentDefined.class);
        assertEquals(500, defined.makerFeePpm());
        assertEquals(TradingState.POST_ONLY, defined.tradingState());
        assertEquals(1, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void changedFeesApplyToLaterTrades()
    {
        f.fundAll(1);
        f.fundAll(2);
        defineBtcUsd(1, 1, 0, 5_000);
        f.limit(1, 1, Side.SELL, 10_000, 10);
        f.events.clear();

        f.limit(2, 1, Side.BUY, 10_000, 10);

        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(0, trade.makerFee());
        assertEquals(500, trade.takerFee());
        f.engine.validateInternalState();
    }

    @Test
    void restingBuyIsNeverChargedMoreFeeThanItReserved()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(1, 1, Side.BUY, 10_000, 10);
        defineBtcUsd(1, 1, 5_000, 5_000);
        f.events.clear();

        f.limit(2, 1, Side.SELL, 10_000, 10);

        // The buy reserved its fee at 0.2 % when it was entered: it pays at most that.
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(200, trade.makerFee());
        assertEquals(500, trade.takerFee());
        assertEquals(0, f.engine.reservedBalance(1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void restingSellPaysTheFeeInForceAfterARaise()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(1, 1, Side.SELL, 10_000, 10);
        defineBtcUsd(1, 1, 5_000, 5_000);
        f.events.clear();

        f.limit(2, 1, Side.BUY, 10_000, 10);

        // A sell reserves no fee: it pays the rate in force out of its proceeds.
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(500, trade.makerFee());
        assertEquals(500, trade.takerFee());
        f.engine.validateInternalState();
    }

    @Test
    void newReferencePriceCentresTheBandAgainAfterTrades()
    {
        f.fundAll(1);
        f.fundAll(2);
        define(BTC_USD, BTC, USD, 2, 1, 4, 1, 0, 0, 1_000, 10_000, 1_000, 2_000, TradingState.OPEN);
        f.limit(1, 1, Side.SELL, 10_500, 1);
        f.limit(2, 1, Side.BUY, 10_500, 1);
        final Instrument instrument = f.engine.instruments.get(BTC_USD);
        assertEquals(11_550, instrument.bandHighPrice, "the band follows the last trade");

        define(BTC_USD, BTC, USD, 2, 1, 4, 1, 0, 0, 1_000, 10_000, 1_000, 2_000, TradingState.OPEN);
        assertEquals(11_550, instrument.bandHighPrice, "the same definition again leaves the band on the last trade");
        define(BTC_USD, BTC, USD, 2, 1, 4, 1, 0, 0, 1_000, 0, 1_000, 2_000, TradingState.OPEN);
        assertEquals(11_550, instrument.bandHighPrice, "no reference leaves the band on the last trade");

        define(BTC_USD, BTC, USD, 2, 1, 4, 1, 0, 0, 1_000, 20_000, 1_000, 2_000, TradingState.OPEN);
        assertEquals(18_000, instrument.bandLowPrice, "a new reference centres the band on it");
        assertEquals(22_000, instrument.bandHighPrice);

        define(BTC_USD, BTC, USD, 4, 100, 4, 1, 0, 0, 1_000, 2_000_000, 1_000, 2_000, TradingState.OPEN);
        f.events.clear();
        f.limit(1, 2, Side.SELL, 2_000_000, 1);
        f.events.only(EventRecorder.OrderAccepted.class);
        f.engine.validateInternalState();
    }

    @Test
    void invalidAssetDefinitionsAreRejected()
    {
        assertRejected(f, RejectReason.INVALID_ASSET_DEFINITION, () -> f.engine.defineAsset(0, 2, "X", f.tick()));
        assertRejected(f, RejectReason.INVALID_ASSET_DEFINITION, () -> f.engine.defineAsset(9, 19, "X", f.tick()));
        assertRejected(f, RejectReason.INVALID_ASSET_DEFINITION, () -> f.engine.defineAsset(9, -1, "X", f.tick()));
    }

    @Test
    void assetScaleCannotChange()
    {
        assertRejected(f, RejectReason.ASSET_REDEFINITION, () -> f.engine.defineAsset(BTC, 6, "BTC", f.tick()));
    }

    @Test
    void assetSymbolCanChange()
    {
        f.engine.defineAsset(BTC, 8, "XBT", f.tick());

        assertEquals("XBT", f.events.only(EventRecorder.AssetDefined.class).symbol());
        f.engine.validateInternalState();
    }

    @Test
    void newAssetIsUsableByExistingAccounts()
    {
        f.fundAll(1);
        f.engine.defineAsset(9, 2, "EUR", f.tick());
        f.events.clear();

        f.engine.deposit(999, 1, 9, 500, f.tick());

        assertEquals(500, f.engine.availableBalance(1, 9));
        f.engine.validateInternalState();
    }

    @Test
    void tradingStateChangeIsReported()
    {
        f.engine.setTradingState(BTC_USD, TradingState.HALTED, f.tick());

        assertEquals(new EventRecorder.TradingStateChanged(BTC_USD, TradingState.HALTED, f.nowNs),
            f.events.only(EventRecorder.TradingStateChanged.class));
    }

    @Test
    void tradingStateOfAnUnknownInstrumentIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_INSTRUMENT,
            () -> f.engine.setTradingState(99, TradingState.HALTED, f.tick()));
    }

    @Test
    void missingTradingStateChangeIsRejected()
    {
        assertRejected(f, RejectReason.INVALID_TRADING_STATE,
            () -> f.engine.setTradingState(BTC_USD, TradingState.NULL_VAL, f.tick()));
    }

    @Test
    void accountLimitsCreateTheAccountAndAreReported()
    {
        f.engine.setAccountLimits(50, 10, 20, 3, SelfTradePrevention.DECREMENT, f.tick());

        assertEquals(new EventRecorder.AccountLimitsChanged(50, 10, 20, 3, SelfTradePrevention.DECREMENT, f.nowNs),
            f.events.only(EventRecorder.AccountLimitsChanged.class));
        f.engine.setKillSwitch(50, true, f.tick());
        f.events.last(EventRecorder.KillSwitchChanged.class);
        f.engine.validateInternalState();
    }
}
