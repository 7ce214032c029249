package io.bourse.engine;

import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.Side;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.bourse.engine.EngineAssertions.available;
import static io.bourse.engine.EngineAssertions.baseAmount;
import static io.bourse.engine.EngineAssertions.buyReservation;
import static io.bourse.engine.EngineAssertions.depth;
import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MatchingTest
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

    @Test
    void nonCrossingOrdersRestOnBothSides()
    {
        f.limit(1, 1, Side.SELL, 10_100, 5);
        f.limit(2, 1, Side.BUY, 10_000, 7);

        assertTrue(f.events.all(EventRecorder.Trade.class).isEmpty());
        assertArrayEquals(new long[][]{{10_100, 5, 1}}, depth(f, Side.SELL));
        assertArrayEquals(new long[][]{{10_000, 7, 1}}, depth(f, Side.BUY));
        assertEquals(2, f.engine.openOrderCount());
        f.engine.validateInternalState();
    }

    @Test
    void betterPricedRestingOrderFillsFirst()
    {
        f.limit(1, 1, Side.SELL, 10_100, 5);
        f.limit(2, 1, Side.SELL, 10_000, 5);
        final long betterOrderId = f.lastOrderId();
        f.events.clear();

        f.limit(3, 1, Side.BUY, 10_100, 3);

        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(betterOrderId, trade.makerOrderId());
        assertEquals(10_000, trade.price());
        f.engine.validateInternalState();
    }

    @Test
    void equalPricedRestingOrdersFillInArrivalOrder()
    {
        f.limit(1, 1, Side.SELL, 10_000, 5);
        final long firstOrderId = f.lastOrderId();
        f.limit(2, 1, Side.SELL, 10_000, 5);
        final long secondOrderId = f.lastOrderId();
        f.events.clear();

        f.limit(3, 1, Side.BUY, 10_000, 7);

        final List<EventRecorder.Trade> trades = f.events.all(EventRecorder.Trade.class);
        assertEquals(2, trades.size());
        assertEquals(firstOrderId, trades.get(0).makerOrderId());
        assertEquals(5, trades.get(0).quantity());
        assertEquals(secondOrderId, trades.get(1).makerOrderId());
        assertEquals(2, trades.get(1).quantity());
        f.engine.validateInternalState();
    }

    @Test
    void tradePriceIsTheRestingOrdersPrice()
    {
        f.limit(1, 1, Side.BUY, 10_200, 5);
        f.events.clear();

        f.limit(2, 1, Side.SELL, 9_900, 5);

        assertEquals(10_200, f.events.only(EventRecorder.Trade.class).price());
        assertEquals(Side.SELL, f.events.only(EventRecorder.Trade.class).takerSide());
        f.engine.validateInternalState();
    }

    @Test
    void aggressorSweepsLevelsEachAtItsOwnPrice()
    {
        f.limit(1, 1, Side.SELL, 10_000, 2);
        f.limit(1, 2, Side.SELL, 10_001, 2);
        f.limit(1, 3, Side.SELL, 10_002, 2);
        f.events.clear();

        f.limit(2, 1, Side.BUY, 10_001, 10);

        final List<EventRecorder.Trade> trades = f.events.all(EventRecorder.Trade.class);
        assertEquals(2, trades.size());
        assertEquals(10_000, trades.get(0).price());
        assertEquals(10_001, trades.get(1).price());
        assertArrayEquals(new long[][]{{10_002, 2, 1}}, depth(f, Side.SELL));
        assertArrayEquals(new long[][]{{10_001, 6, 1}}, depth(f, Side.BUY));
        f.engine.validateInternalState();
    }

    @Test
    void partiallyFilledAggressorRestsItsRemainder()
    {
        f.limit(1, 1, Side.SELL, 10_000, 3);
        f.events.clear();

        f.limit(2, 1, Side.BUY, 10_000, 10);

        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(3, trade.quantity());
        assertEquals(7, trade.takerRemainingQuantity());
        assertEquals(0, trade.makerRemainingQuantity());
        assertEquals(0, depth(f, Side.SELL).length);
        assertArrayEquals(new long[][]{{10_000, 7, 1}}, depth(f, Side.BUY));
        assertEquals(buyReservation(10_000, 7), reserved(f, 2, USD));
        f.engine.validateInternalState();
    }

    @Test
    void partiallyFilledRestingOrderKeepsItsPlaceAtTheFront()
    {
        f.limit(1, 1, Side.SELL, 10_000, 5);
        final long firstOrderId = f.lastOrderId();
        f.limit(2, 1, Side.SELL, 10_000, 5);
        f.limit(3, 1, Side.BUY, 10_000, 2);
        f.events.clear();

        f.limit(3, 2, Side.BUY, 10_000, 2);

        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(firstOrderId, trade.makerOrderId());
        assertEquals(4, trade.makerFilledQuantity());
        assertEquals(1, trade.makerRemainingQuantity());
        assertArrayEquals(new long[][]{{10_000, 6, 2}}, depth(f, Side.SELL));
        f.engine.validateInternalState();
    }

    @Test
    void tradeReportsCumulativeFillsAndNotionalOfBothOrders()
    {
        f.limit(1, 11, Side.SELL, 10_000, 10);
        final long makerOrderId = f.lastOrderId();
        f.limit(2, 21, Side.BUY, 10_000, 4);
        f.events.clear();

        f.limit(2, 22, Side.BUY, 10_000, 4);
        final long takerOrderId = f.lastOrderId();

        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(makerOrderId, trade.makerOrderId());
        assertEquals(11, trade.makerClientOrderId());
        assertEquals(1, trade.makerAccountId());
        assertEquals(8, trade.makerFilledQuantity());
        assertEquals(2, trade.makerRemainingQuantity());
        assertEquals(80_000, trade.makerExecutedNotional());
        assertEquals(takerOrderId, trade.takerOrderId());
        assertEquals(22, trade.takerClientOrderId());
        assertEquals(2, trade.takerAccountId());
        assertEquals(4, trade.takerFilledQuantity());
        assertEquals(0, trade.takerRemainingQuantity());
        assertEquals(40_000, trade.takerExecutedNotional());
        f.engine.validateInternalState();
    }

    @Test
    void tradeIdsIncreaseByOne()
    {
        f.limit(1, 1, Side.SELL, 10_000, 1);
        f.limit(1, 2, Side.SELL, 10_000, 1);
        f.events.clear();

        f.limit(2, 1, Side.BUY, 10_000, 2);

        final List<EventRecorder.Trade> trades = f.events.all(EventRecorder.Trade.class);
        assertEquals(trades.get(0).tradeId() + 1, trades.get(1).tradeId());
    }

    @Test
    void fillSettlesExactBalancesWithMakerAndTakerFeesInQuote()
    {
        final EngineFixture g = new EngineFixture();
        g.fund(1, BTC, 1_000_000);
        g.fund(2, USD, 10_000_000);

        g.limit(1, 1, Side.SELL, 20_000, 50);
        g.limit(2, 1, Side.BUY, 20_000, 50);

        // notional = 20,000 ticks × 50 lots × 1 µUSD = 1,000,000 µUSD; maker 0.1 % = 1,000, taker 0.2 % = 2,000.
        final EventRecorder.Trade trade = g.events.only(EventRecorder.Trade.class);
        assertEquals(1_000, trade.makerFee());
        assertEquals(2_000, trade.takerFee());
        assertEquals(1_000_000 - baseAmount(50), available(g, 1, BTC));
        assertEquals(1_000_000 - 1_000, available(g, 1, USD));
        assertEquals(baseAmount(50), available(g, 2, BTC));
        assertEquals(10_000_000 - 1_000_000 - 2_000, available(g, 2, USD));
        assertEquals(0, reserved(g, 1, BTC));
        assertEquals(0, reserved(g, 2, USD));
        assertEquals(3_000, g.engine.feesCollected(USD));
        assertEquals(0, g.engine.feesCollected(BTC));
        g.engine.validateInternalState();
    }

    @Test
    void sellAggressorPaysTakerFeeAndBuyMakerPaysMakerFee()
    {
        final EngineFixture g = new EngineFixture();
        g.fund(1, USD, 10_000_000);
        g.fund(2, BTC, 1_000_000);

        g.limit(1, 1, Side.BUY, 20_000, 50);
        g.limit(2, 1, Side.SELL, 20_000, 50);

        final EventRecorder.Trade trade = g.events.only(EventRecorder.Trade.class);
        assertEquals(1_000, trade.makerFee());
        assertEquals(2_000, trade.takerFee());
        assertEquals(10_000_000 - 1_000_000 - 1_000, available(g, 1, USD));
        assertEquals(0, reserved(g, 1, USD));
        assertEquals(baseAmount(50), available(g, 1, BTC));
        assertEquals(1_000_000 - 2_000, available(g, 2, USD));
        g.engine.validateInternalState();
    }

    @Test
    void feesRoundDown()
    {
        f.limit(1, 1, Side.SELL, 999, 1);
        f.events.clear();

        f.limit(2, 1, Side.BUY, 999, 1);

        // 999 µUSD × 0.1 % = 0.999 → 0; × 0.2 % = 1.998 → 1.
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(0, trade.makerFee());
        assertEquals(1, trade.takerFee());
        f.engine.validateInternalState();
    }

    @Test
    void buyFilledBelowItsLimitGetsTheUnusedReservationBack()
    {
        final EngineFixture g = new EngineFixture();
        g.fund(1, BTC, 1_000_000);
        g.fund(2, USD, 10_000_000);
        g.limit(1, 1, Side.SELL, 10_000, 10);

        g.limit(2, 1, Side.BUY, 12_000, 10);

        assertEquals(0, reserved(g, 2, USD));
        assertEquals(10_000_000 - 100_000 - 200, available(g, 2, USD));
        g.engine.validateInternalState();
    }

    @Test
    void fillPublishesTradeThenFourBalancesThenTheMakersLevel()
    {
        f.limit(1, 1, Side.SELL, 10_000, 5);
        f.events.clear();

        f.limit(2, 1, Side.BUY, 10_000, 2);

        final List<EventRecorder.Event> events = f.events.events();
        assertInstanceOf(EventRecorder.OrderAccepted.class, events.get(0));
        assertEquals(BalanceChangeReason.RESERVE, ((EventRecorder.BalanceChanged)events.get(1)).reason());
        assertInstanceOf(EventRecorder.Trade.class, events.get(2));
        for (int i = 3; i < 7; i++)
        {
            assertEquals(BalanceChangeReason.TRADE, ((EventRecorder.BalanceChanged)events.get(i)).reason());
        }
        final EventRecorder.BookLevelChanged level = (EventRecorder.BookLevelChanged)events.get(7);
        assertEquals(new EventRecorder.BookLevelChanged(EngineFixture.BTC_USD, Side.SELL, 10_000, 3, 1, level.timestampNs()), level);
        assertEquals(8, events.size());
    }
}
