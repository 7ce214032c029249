package io.bourse.engine;

import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.bourse.engine.EngineAssertions.assertRejected;
import static io.bourse.engine.EngineAssertions.limit;
import static io.bourse.engine.EngineAssertions.market;
import static io.bourse.engine.EngineAssertions.postOnly;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.ETH_USD;
import static org.junit.jupiter.api.Assertions.assertEquals;

class TradingStateAndKillSwitchTest
{
    private final EngineFixture f = new EngineFixture();
    private long restingBuyId;

    @BeforeEach
    void restABuyOfAccountOne()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(1, 1, Side.BUY, 10_000, 5);
        restingBuyId = f.lastOrderId();
        f.events.clear();
    }

    private void state(final TradingState state)
    {
        f.engine.setTradingState(BTC_USD, state, f.tick());
        f.events.clear();
    }

    private void killSwitch(final long accountId, final boolean active)
    {
        f.engine.setKillSwitch(accountId, active, f.tick());
        f.events.clear();
    }

    private void replaceRestingBuy(final long price, final long quantity)
    {
        f.engine.replaceOrder(1, restingBuyId, 0, 0, price, quantity, 0, f.tick());
    }

    private void assertCancelAccepted()
    {
        f.events.clear();
        f.engine.cancelOrder(1, restingBuyId, 0, f.tick());
        f.events.only(EventRecorder.OrderCanceled.class);
        f.engine.validateInternalState();
    }

    // ------------------------------------------------------------------------------------------------ trading states

    @Test
    void haltedInstrumentRejectsNewOrders()
    {
        state(TradingState.HALTED);

        assertRejected(f, RejectReason.INSTRUMENT_HALTED, () -> f.limit(2, 1, Side.SELL, 10_100, 1));
        assertRejected(f, RejectReason.INSTRUMENT_HALTED, () -> market(f, 2, 1, Side.SELL, TimeInForce.IOC, 1));
    }

    @Test
    void haltedInstrumentRejectsReplaces()
    {
        state(TradingState.HALTED);

        assertRejected(f, RejectReason.INSTRUMENT_HALTED, () -> replaceRestingBuy(10_000, 3));
    }

    @Test
    void haltedInstrumentAcceptsCancels()
    {
        state(TradingState.HALTED);

        assertCancelAccepted();
    }

    @Test
    void haltedInstrumentAcceptsMassCancel()
    {
        state(TradingState.HALTED);

        f.engine.massCancel(1, BTC_USD, Side.NULL_VAL, f.tick());

        assertEquals(1, f.events.only(EventRecorder.MassCancelCompleted.class).canceledCount());
        f.engine.validateInternalState();
    }

    @Test
    void haltingOneInstrumentLeavesOthersOpen()
    {
        state(TradingState.HALTED);

        f.order(2, 1, ETH_USD, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
            2_000, 1, 0, 0);

        f.events.only(EventRecorder.OrderAccepted.class);
    }

    @Test
    void reopenedInstrumentAcceptsOrdersAgain()
    {
        state(TradingState.HALTED);
        state(TradingState.OPEN);

        f.limit(2, 1, Side.SELL, 10_000, 2);

        f.events.only(EventRecorder.Trade.class);
        f.engine.validateInternalState();
    }

    @Test
    void cancelOnlyInstrumentRejectsNewOrdersAndReplaces()
    {
        state(TradingState.CANCEL_ONLY);

        assertRejected(f, RejectReason.INSTRUMENT_CANCEL_ONLY, () -> f.limit(2, 1, Side.SELL, 10_100, 1));
        assertRejected(f, RejectReason.INSTRUMENT_CANCEL_ONLY, () -> replaceRestingBuy(10_000, 3));
    }

    @Test
    void cancelOnlyInstrumentAcceptsCancels()
    {
        state(TradingState.CANCEL_ONLY);

        assertCancelAccepted();
    }

    @Test
    void postOnlyInstrumentAcceptsOrdersThatRestWithoutTaking()
    {
        state(TradingState.POST_ONLY);

        f.limit(2, 1, Side.SELL, 10_100, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
        f.engine.validateInternalState();
    }

    @Test
    void postOnlyInstrumentRejectsOrdersThatWouldTake()
    {
        state(TradingState.POST_ONLY);

        assertRejected(f, RejectReason.INSTRUMENT_POST_ONLY, () -> f.limit(2, 1, Side.SELL, 10_000, 1));
    }

    @Test
    void postOnlyInstrumentRejectsImmediateAndMarketOrders()
    {
        state(TradingState.POST_ONLY);

        assertRejected(f, RejectReason.INSTRUMENT_POST_ONLY,
            () -> limit(f, 2, 1, Side.SELL, TimeInForce.IOC, SelfTradePrevention.ACCOUNT_DEFAULT, 10_100, 1));
        assertRejected(f, RejectReason.INSTRUMENT_POST_ONLY, () -> market(f, 2, 1, Side.SELL, TimeInForce.IOC, 1));
    }

    @Test
    void postOnlyFlagInAPostOnlyInstrumentReportsTheOrdersOwnReason()
    {
        state(TradingState.POST_ONLY);

        assertRejected(f, RejectReason.POST_ONLY_WOULD_TAKE, () -> postOnly(f, 2, 1, Side.SELL, 10_000, 1));
    }

    @Test
    void postOnlyInstrumentRejectsReplacesThatWouldTake()
    {
        f.limit(2, 1, Side.SELL, 10_100, 1);
        state(TradingState.POST_ONLY);

        assertRejected(f, RejectReason.INSTRUMENT_POST_ONLY, () -> replaceRestingBuy(10_100, 5));
    }

    @Test
    void postOnlyInstrumentAcceptsReplacesThatDoNotTake()
    {
        f.limit(2, 1, Side.SELL, 10_100, 1);
        state(TradingState.POST_ONLY);

        replaceRestingBuy(10_050, 5);

        f.events.only(EventRecorder.OrderReplaced.class);
        f.engine.validateInternalState();
    }

    // ------------------------------------------------------------------------------------------------ kill switches

    @Test
    void accountKillSwitchRejectsTheAccountsNewOrders()
    {
        killSwitch(1, true);

        assertRejected(f, RejectReason.ACCOUNT_KILL_SWITCH, () -> f.limit(1, 2, Side.BUY, 10_000, 1));
    }

    @Test
    void accountKillSwitchRejectsTheAccountsReplaces()
    {
        killSwitch(1, true);

        assertRejected(f, RejectReason.ACCOUNT_KILL_SWITCH, () -> replaceRestingBuy(10_000, 3));
    }

    @Test
    void accountKillSwitchAcceptsCancels()
    {
        killSwitch(1, true);

        assertCancelAccepted();
    }

    @Test
    void accountKillSwitchLeavesOtherAccountsTrading()
    {
        killSwitch(1, true);

        f.limit(2, 1, Side.SELL, 10_000, 2);

        // The killed account's resting order still trades as a maker; only its new orders and replaces are blocked.
        assertEquals(1, f.events.only(EventRecorder.Trade.class).makerAccountId());
        f.engine.validateInternalState();
    }

    @Test
    void clearedAccountKillSwitchAcceptsOrdersAgain()
    {
        killSwitch(1, true);
        killSwitch(1, false);

        f.limit(1, 2, Side.BUY, 10_000, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
    }

    @Test
    void killSwitchChangeIsReported()
    {
        f.engine.setKillSwitch(1, true, f.tick());

        assertEquals(new EventRecorder.KillSwitchChanged(1, true, f.nowNs),
            f.events.only(EventRecorder.KillSwitchChanged.class));
    }

    @Test
    void killSwitchOfAnUnknownAccountIsRejected()
    {
        assertRejected(f, RejectReason.UNKNOWN_ACCOUNT, () -> f.engine.setKillSwitch(99, true, f.tick()));
    }

    @Test
    void globalKillSwitchRejectsEveryAccountsNewOrdersAndReplaces()
    {
        killSwitch(0, true);

        assertRejected(f, RejectReason.GLOBAL_KILL_SWITCH, () -> f.limit(2, 1, Side.SELL, 10_100, 1));
        assertRejected(f, RejectReason.GLOBAL_KILL_SWITCH, () -> f.limit(1, 2, Side.SELL, 10_100, 1));
        assertRejected(f, RejectReason.GLOBAL_KILL_SWITCH, () -> replaceRestingBuy(10_000, 3));
    }

    @Test
    void globalKillSwitchAcceptsCancels()
    {
        killSwitch(0, true);

        assertCancelAccepted();
    }

    @Test
    void globalKillSwitchIsReportedBeforeTheAccountOne()
    {
        killSwitch(1, true);
        killSwitch(0, true);

        assertRejected(f, RejectReason.GLOBAL_KILL_SWITCH, () -> f.limit(1, 2, Side.BUY, 10_000, 1));
    }

    @Test
    void clearedGlobalKillSwitchAcceptsOrdersAgain()
    {
        killSwitch(0, true);
        killSwitch(0, false);

        f.limit(2, 1, Side.SELL, 10_100, 1);

        f.events.only(EventRecorder.OrderAccepted.class);
    }
}
