package io.bourse.engine;

import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.TransferDirection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.bourse.engine.EngineAssertions.assertRejected;
import static io.bourse.engine.EngineAssertions.available;
import static io.bourse.engine.EngineAssertions.baseAmount;
import static io.bourse.engine.EngineAssertions.buyReservation;
import static io.bourse.engine.EngineAssertions.limit;
import static io.bourse.engine.EngineAssertions.marketBuyQuote;
import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RiskAndBalancesTest
{
    private final EngineFixture f = new EngineFixture();

    private void bandedBtcUsd(final int priceBandBps, final long referencePrice)
    {
        f.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, priceBandBps, referencePrice, TradingState.OPEN);
        f.events.clear();
    }

    // ------------------------------------------------------------------------------------------------ transfers

    @Test
    void depositCreditsAvailableAndCreatesTheAccount()
    {
        f.engine.deposit(10, 5, USD, 1_234, f.tick());

        assertEquals(new EventRecorder.TransferProcessed(10, 5, USD, 1_234, TransferDirection.DEPOSIT, true, f.nowNs),
            f.events.only(EventRecorder.TransferProcessed.class));
        final EventRecorder.BalanceChanged balance = f.events.only(EventRecorder.BalanceChanged.class);
        assertEquals(1_234, balance.available());
        assertEquals(BalanceChangeReason.DEPOSIT, balance.reason());
        assertEquals(1_234, available(f, 5, USD));
        f.engine.validateInternalState();
    }

    @Test
    void repeatedDepositTransactionIdIsIgnoredNotAppliedTwice()
    {
        f.engine.deposit(10, 5, USD, 1_000, f.tick());
        final long hash = f.engine.stateHash();
        f.events.clear();

        f.engine.deposit(10, 5, USD, 1_000, f.tick());

        assertFalse(f.events.only(EventRecorder.TransferProcessed.class).applied());
        assertEquals(1, f.events.events().size());
        assertEquals(1_000, available(f, 5, USD));
        assertEquals(hash, f.engine.stateHash());
        f.engine.validateInternalState();
    }

    @Test
    void repeatedWithdrawalTransactionIdIsIgnoredNotAppliedTwice()
    {
        f.engine.deposit(10, 5, USD, 1_000, f.tick());
        f.engine.withdraw(11, 5, USD, 300, f.tick());
        f.events.clear();

        f.engine.withdraw(11, 5, USD, 300, f.tick());

        assertFalse(f.events.only(EventRecorder.TransferProcessed.class).applied());
        assertEquals(700, available(f, 5, USD));
        f.engine.validateInternalState();
    }

    @Test
    void transactionIdOfADepositCannotBeReusedForAWithdrawal()
    {
        f.engine.deposit(10, 5, USD, 1_000, f.tick());
        f.events.clear();

        f.engine.withdraw(10, 5, USD, 300, f.tick());

        assertFalse(f.events.only(EventRecorder.TransferProcessed.class).applied());
        assertEquals(1_000, available(f, 5, USD));
    }

    @Test
    void withdrawalDebitsAvailable()
    {
        f.engine.deposit(10, 5, USD, 1_000, f.tick());
        f.events.clear();

        f.engine.withdraw(11, 5, USD, 1_000, f.tick());

        assertTrue(f.events.only(EventRecorder.TransferProcessed.class).applied());
        assertEquals(BalanceChangeReason.WITHDRAWAL, f.events.only(EventRecorder.BalanceChanged.class).reason());
        assertEquals(0, available(f, 5, USD));
        f.engine.validateInternalState();
    }

    @Test
    void withdrawalOfMoreThanAvailableIsRejected()
    {
        f.engine.deposit(10, 5, USD, 1_000, f.tick());

        final EventRecorder.CommandRejected rejected = assertRejected(f, RejectReason.INSUFFICIENT_BALANCE,
            () -> f.engine.withdraw(11, 5, USD, 1_001, f.tick()));
        assertEquals(CommandType.WITHDRAW, rejected.commandType());
    }

    @Test
    void withdrawalCannotTakeReservedFunds()
    {
        f.fund(1, BTC, baseAmount(10));
        f.limit(1, 1, Side.SELL, 10_000, 10);

        assertRejected(f, RejectReason.INSUFFICIENT_BALANCE, () -> f.engine.withdraw(99, 1, BTC, 1, f.tick()));
    }

    @Test
    void rejectedWithdrawalDoesNotUseUpItsTransactionId()
    {
        f.engine.deposit(10, 5, USD, 100, f.tick());
        f.engine.withdraw(11, 5, USD, 500, f.tick());
        f.engine.deposit(12, 5, USD, 400, f.tick());
        f.events.clear();

        f.engine.withdraw(11, 5, USD, 500, f.tick());

        assertTrue(f.events.only(EventRecorder.TransferProcessed.class).applied());
        assertEquals(0, available(f, 5, USD));
    }

    @Test
    void withdrawalFromAnUnknownAccountIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_ACCOUNT, () -> f.engine.withdraw(11, 5, USD, 1, f.tick()));
    }

    @Test
    void invalidTransfersAreRejected()
    {
        assertRejected(f, RejectReason.INVALID_TRANSACTION_ID, () -> f.engine.deposit(0, 5, USD, 1, f.tick()));
        assertRejected(f, RejectReason.INVALID_ACCOUNT, () -> f.engine.deposit(1, 0, USD, 1, f.tick()));
        assertRejected(f, RejectReason.UNKNOWN_ASSET, () -> f.engine.deposit(1, 5, 77, 1, f.tick()));
        assertRejected(f, RejectReason.INVALID_AMOUNT, () -> f.engine.deposit(1, 5, USD, 0, f.tick()));
        assertRejected(f, RejectReason.INVALID_AMOUNT, () -> f.engine.withdraw(1, 5, USD, -1, f.tick()));
    }

    @Test
    void depositThatWouldOverflowTheAssetsSupplyIsRejected()
    {
        f.engine.deposit(1, 5, USD, Long.MAX_VALUE - 10, f.tick());

        assertRejected(f, RejectReason.BALANCE_OVERFLOW, () -> f.engine.deposit(2, 6, USD, 11, f.tick()));
    }

    // ------------------------------------------------------------------------------------------------ reservations

    @Test
    void limitBuyReservesNotionalPlusTheLargestFee()
    {
        f.fund(1, USD, 10_000_000);

        f.limit(1, 1, Side.BUY, 12_345, 67);

        // 12,345 × 67 = 827,115 µUSD notional; fee reserve floor(827,115 × 0.2 %) = 1,654.
        assertEquals(827_115 + 1_654, reserved(f, 1, USD));
        assertEquals(10_000_000 - 827_115 - 1_654, available(f, 1, USD));
        assertEquals(BalanceChangeReason.RESERVE, f.events.last(EventRecorder.BalanceChanged.class).reason());
        f.engine.validateInternalState();
    }

    @Test
    void limitSellReservesTheBaseQuantity()
    {
        f.fund(1, BTC, 1_000_000);

        f.limit(1, 1, Side.SELL, 12_345, 67);

        assertEquals(670_000, reserved(f, 1, BTC));
        assertEquals(330_000, available(f, 1, BTC));
        assertEquals(0, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void buyNeedingExactlyTheAvailableQuoteIsAccepted()
    {
        f.fund(1, USD, buyReservation(10_000, 10));

        f.limit(1, 1, Side.BUY, 10_000, 10);

        f.events.only(EventRecorder.OrderAccepted.class);
        assertEquals(0, available(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void buyNeedingOneMoreUnitThanAvailableIsRejected()
    {
        f.fund(1, USD, buyReservation(10_000, 10) - 1);

        assertRejected(f, RejectReason.INSUFFICIENT_BALANCE, () -> f.limit(1, 1, Side.BUY, 10_000, 10));
    }

    @Test
    void sellOfMoreBaseThanAvailableIsRejected()
    {
        f.fund(1, BTC, baseAmount(10) - 1);

        assertRejected(f, RejectReason.INSUFFICIENT_BALANCE, () -> f.limit(1, 1, Side.SELL, 10_000, 10));
    }

    @Test
    void reservedFundsCannotBeReservedAgain()
    {
        f.fund(1, BTC, baseAmount(10));
        f.limit(1, 1, Side.SELL, 10_000, 6);

        assertRejected(f, RejectReason.INSUFFICIENT_BALANCE, () -> f.limit(1, 2, Side.SELL, 10_000, 5));
    }

    @Test
    void cancelReleasesTheWholeReservation()
    {
        f.fund(1, USD, 10_000_000);
        f.limit(1, 1, Side.BUY, 12_345, 67);

        f.engine.cancelOrder(1, f.lastOrderId(), 0, f.tick());

        assertEquals(0, reserved(f, 1, USD));
        assertEquals(10_000_000, available(f, 1, USD));
        assertEquals(BalanceChangeReason.RELEASE, f.events.last(EventRecorder.BalanceChanged.class).reason());
        f.engine.validateInternalState();
    }

    @Test
    void partialFillReleasesTheFilledShareOfTheReservation()
    {
        f.fund(1, USD, 10_000_000);
        f.fund(2, BTC, 1_000_000);
        f.limit(1, 1, Side.BUY, 10_000, 10);

        f.limit(2, 1, Side.SELL, 10_000, 4);

        assertEquals(buyReservation(10_000, 6), reserved(f, 1, USD));
        // Paid 40,000 notional + 40 maker fee for the fill; the rest of the fill's reservation came back.
        assertEquals(10_000_000 - buyReservation(10_000, 6) - 40_000 - 40, available(f, 1, USD));
        f.engine.validateInternalState();
    }

    // ------------------------------------------------------------------------------------------------ price band

    @Test
    void limitPriceOutsideTheBandAroundTheConfiguredReferenceIsRejected()
    {
        f.fundAll(1);
        bandedBtcUsd(1_000, 10_000);

        assertRejected(f, RejectReason.PRICE_OUTSIDE_BAND, () -> f.limit(1, 1, Side.BUY, 11_001, 1));
        assertRejected(f, RejectReason.PRICE_OUTSIDE_BAND, () -> f.limit(1, 1, Side.SELL, 8_999, 1));
    }

    @Test
    void limitPriceAtTheBandEdgesIsAccepted()
    {
        f.fundAll(1);
        bandedBtcUsd(1_000, 10_000);

        f.limit(1, 1, Side.BUY, 9_000, 1);
        f.limit(1, 2, Side.SELL, 11_000, 1);

        assertEquals(2, f.events.all(EventRecorder.OrderAccepted.class).size());
        f.engine.validateInternalState();
    }

    @Test
    void bandFollowsTheLastTradePrice()
    {
        f.fundAll(1);
        f.fundAll(2);
        bandedBtcUsd(1_000, 10_000);
        f.limit(1, 1, Side.SELL, 10_500, 1);
        f.limit(2, 1, Side.BUY, 10_500, 1);
        f.events.clear();

        // Band is now 10,500 ± 10 % = 9,450 … 11,550.
        f.limit(1, 2, Side.SELL, 11_550, 1);
        f.events.only(EventRecorder.OrderAccepted.class);
        assertRejected(f, RejectReason.PRICE_OUTSIDE_BAND, () -> f.limit(1, 3, Side.SELL, 11_551, 1));
        assertRejected(f, RejectReason.PRICE_OUTSIDE_BAND, () -> f.limit(1, 3, Side.BUY, 9_449, 1));
    }

    @Test
    void noBandWithoutReferenceOrTradeAcceptsAnyPrice()
    {
        f.fundAll(1);
        bandedBtcUsd(1_000, 0);

        f.limit(1, 1, Side.BUY, 1, 1);
        f.limit(1, 2, Side.SELL, 1_000_000_000, 1);

        assertEquals(2, f.events.all(EventRecorder.OrderAccepted.class).size());
    }

    @Test
    void replaceToAPriceOutsideTheBandIsRejected()
    {
        f.fundAll(1);
        bandedBtcUsd(1_000, 10_000);
        f.limit(1, 1, Side.BUY, 10_000, 1);
        final long orderId = f.lastOrderId();

        assertRejected(f, RejectReason.PRICE_OUTSIDE_BAND,
            () -> f.engine.replaceOrder(1, orderId, 0, 0, 11_100, 1, 0, f.tick()));
    }

    // ------------------------------------------------------------------------------------------------ account limits

    @Test
    void orderAboveTheAccountsMaxQuantityIsRejected()
    {
        f.fundAll(1);
        f.engine.setAccountLimits(1, 100, 0, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());

        f.limit(1, 1, Side.BUY, 10_000, 100);
        f.events.only(EventRecorder.OrderAccepted.class);
        assertRejected(f, RejectReason.ACCOUNT_MAX_ORDER_QUANTITY, () -> f.limit(1, 2, Side.BUY, 10_000, 101));
    }

    @Test
    void orderAboveTheAccountsMaxNotionalIsRejected()
    {
        f.fundAll(1);
        f.engine.setAccountLimits(1, 0, 1_000_000, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());

        f.limit(1, 1, Side.BUY, 10_000, 100);
        f.events.only(EventRecorder.OrderAccepted.class);
        assertRejected(f, RejectReason.ACCOUNT_MAX_ORDER_NOTIONAL, () -> f.limit(1, 2, Side.BUY, 10_001, 100));
    }

    @Test
    void orderBeyondTheAccountsMaxOpenOrdersIsRejected()
    {
        f.fundAll(1);
        f.engine.setAccountLimits(1, 0, 0, 2, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.limit(1, 1, Side.BUY, 10_000, 1);
        f.limit(1, 2, Side.BUY, 10_000, 1);

        assertRejected(f, RejectReason.ACCOUNT_MAX_OPEN_ORDERS, () -> f.limit(1, 3, Side.BUY, 10_000, 1));
    }

    @Test
    void immediateOrdersAreNotLimitedByMaxOpenOrders()
    {
        f.fundAll(1);
        f.engine.setAccountLimits(1, 0, 0, 1, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.limit(1, 1, Side.BUY, 10_000, 1);
        f.events.clear();

        limit(f, 1, 2, Side.BUY, TimeInForce.IOC, SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
    }

    @Test
    void closingAnOrderFreesAnOpenOrderSlot()
    {
        f.fundAll(1);
        f.engine.setAccountLimits(1, 0, 0, 1, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.limit(1, 1, Side.BUY, 10_000, 1);
        f.engine.cancelOrder(1, f.lastOrderId(), 0, f.tick());
        f.events.clear();

        f.limit(1, 2, Side.BUY, 10_000, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
    }

    @Test
    void replaceAboveTheAccountLimitsIsRejected()
    {
        f.fundAll(1);
        f.engine.setAccountLimits(1, 100, 1_000_000, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.limit(1, 1, Side.BUY, 10_000, 50);
        final long orderId = f.lastOrderId();

        assertRejected(f, RejectReason.ACCOUNT_MAX_ORDER_QUANTITY,
            () -> f.engine.replaceOrder(1, orderId, 0, 0, 10_000, 101, 0, f.tick()));
        assertRejected(f, RejectReason.ACCOUNT_MAX_ORDER_NOTIONAL,
            () -> f.engine.replaceOrder(1, orderId, 0, 0, 20_000, 100, 0, f.tick()));
    }

    @Test
    void zeroLimitsMeanUnlimited()
    {
        f.fundAll(1);
        f.engine.setAccountLimits(1, 100, 100, 1, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.engine.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.events.clear();

        f.limit(1, 1, Side.BUY, 10_000, 1_000);
        f.limit(1, 2, Side.BUY, 10_000, 1_000);

        assertEquals(2, f.events.all(EventRecorder.OrderAccepted.class).size());
    }

    @Test
    void invalidAccountLimitsAreRejected()
    {
        assertRejected(f, RejectReason.INVALID_ACCOUNT,
            () -> f.engine.setAccountLimits(0, 1, 1, 1, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick()));
        assertRejected(f, RejectReason.INVALID_LIMIT,
            () -> f.engine.setAccountLimits(1, -1, 1, 1, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick()));
        assertRejected(f, RejectReason.INVALID_LIMIT,
            () -> f.engine.setAccountLimits(1, 1, 1, -1, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick()));
        assertRejected(f, RejectReason.INVALID_STP_MODE,
            () -> f.engine.setAccountLimits(1, 1, 1, 1, SelfTradePrevention.NULL_VAL, f.tick()));
    }

    @Test
    void marketBuyByQuoteAmountFillsNoMoreThanTheQuantityLimits()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(2, 1, Side.SELL, 10_000, 100);
        f.engine.setAccountLimits(1, 10, 0, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.events.clear();

        marketBuyQuote(f, 1, 1, 1_000_000_000L);

        assertEquals(10, f.events.only(EventRecorder.Trade.class).quantity());
        assertEquals(CancelReason.QUANTITY_LIMIT, f.events.only(EventRecorder.OrderCanceled.class).reason());

        f.engine.setAccountLimits(1, 0, 0, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.engine.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 2, 1, 4, 1, 1, 25, 0, 0, 1_000, 2_000,
            TradingState.OPEN, f.tick());
        f.events.clear();

        marketBuyQuote(f, 1, 2, 1_000_000_000L);

        assertEquals(25, f.events.only(EventRecorder.Trade.class).quantity(), "the instrument's maximum");
        assertEquals(CancelReason.QUANTITY_LIMIT, f.events.only(EventRecorder.OrderCanceled.class).reason());
        f.engine.validateInternalState();
    }

    @ParameterizedTest
    @ValueSource(longs = { 1_000, Long.MAX_VALUE })
    void marketBuyIsNotFilledWhenARaisedFeeTakesItsCostBeyondALong(final long buyersQuote)
    {
        final EventRecorder events = new EventRecorder();
        final Engine engine = new Engine(events);
        long nowNs = 1;
        engine.defineAsset(1, 0, "B", nowNs++);
        engine.defineAsset(2, 0, "Q", nowNs++);
        engine.defineInstrument(1, "B-Q", 1, 2, 0, 1, 0, 1, 1, 0, 0, 0, 1_000, 1_000, TradingState.OPEN, nowNs++);
        engine.deposit(1, 10, 1, 1, nowNs++);
        engine.deposit(2, 20, 2, buyersQuote, nowNs++);
        // Notional plus 0.1 % fits in a long; plus 0.2 % does not, which no budget (not even a long's largest) covers.
        final long price = 9_210_000_000_000_000_000L;
        engine.newOrder(10, 1, 1, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, price, 1, 0, 0, 0, nowNs++);
        engine.defineInstrument(1, "B-Q", 1, 2, 0, 1, 0, 1, 1, 0, 0, 0, 1_000, 2_000, TradingState.OPEN, nowNs++);
        events.clear();

        engine.newOrder(20, 1, 1, Side.BUY, OrderType.MARKET, TimeInForce.IOC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 0, 1, 0, 0, 0, nowNs++);
        assertTrue(events.all(EventRecorder.Trade.class).isEmpty(), events.events().toString());
        assertEquals(CancelReason.INSUFFICIENT_BALANCE, events.only(EventRecorder.OrderCanceled.class).reason());

        events.clear();
        engine.newOrder(20, 2, 1, Side.BUY, OrderType.MARKET, TimeInForce.FOK, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 0, 1, 0, 0, 0, nowNs++);
        assertTrue(events.all(EventRecorder.Trade.class).isEmpty(), events.events().toString());
        assertEquals(CancelReason.FILL_OR_KILL, events.only(EventRecorder.OrderCanceled.class).reason());
        assertEquals(buyersQuote, engine.availableBalance(20, 2));
        engine.validateInternalState();
    }

    @Test
    void marketOrderNotionalIsCappedByTheAccountsMaxNotional()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(2, 1, Side.SELL, 10_000, 100);
        f.engine.setAccountLimits(1, 0, 255_000, 0, SelfTradePrevention.ACCOUNT_DEFAULT, f.tick());
        f.events.clear();

        f.order(1, 1, BTC_USD, Side.BUY, OrderType.MARKET, TimeInForce.IOC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
            0, 50, 0, 0);

        assertEquals(25, f.events.only(EventRecorder.Trade.class).quantity());
        assertEquals(CancelReason.NOTIONAL_LIMIT,
            f.events.only(EventRecorder.OrderCanceled.class).reason());
        f.engine.validateInternalState();
    }
}
