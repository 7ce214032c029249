package io.bourse.engine;

import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Small helpers shared by the rule tests: order entry shortcuts on BTC-USD and the check that a rejected command
 * is answered by exactly one CommandRejected and changes nothing.
 */
final class EngineAssertions
{
    private EngineAssertions()
    {
    }

    /**
     * Run a command that must be rejected: exactly one CommandRejected with the reason, the state hash unchanged
     * and the invariants intact.
     */
    static EventRecorder.CommandRejected assertRejected(
        final EngineFixture f, final RejectReason reason, final Runnable command)
    {
        f.engine.validateInternalState();
        final long hashBefore = f.engine.stateHash();
        f.events.clear();
        command.run();
        final EventRecorder.CommandRejected rejected = f.events.only(EventRecorder.CommandRejected.class);
        assertEquals(reason, rejected.reason(), () -> "events: " + f.events.events());
        assertEquals(1, f.events.events().size(), () -> "a rejection emits nothing else: " + f.events.events());
        assertEquals(hashBefore, f.engine.stateHash(), "a rejected command must change nothing");
        f.engine.validateInternalState();
        return rejected;
    }

    /**
     * A limit order on BTC-USD with the given time in force and STP mode.
     */
    static void limit(
        final EngineFixture f, final long accountId, final long clientOrderId, final Side side,
        final TimeInForce timeInForce, final SelfTradePrevention stp, final long price, final long quantity)
    {
        f.order(accountId, clientOrderId, EngineFixture.BTC_USD, side, OrderType.LIMIT, timeInForce, false, stp,
            price, quantity, 0, 0);
    }

    static void postOnly(
        final EngineFixture f, final long accountId, final long clientOrderId, final Side side, final long price,
        final long quantity)
    {
        f.order(accountId, clientOrderId, EngineFixture.BTC_USD, side, OrderType.LIMIT, TimeInForce.GTC, true,
            SelfTradePrevention.ACCOUNT_DEFAULT, price, quantity, 0, 0);
    }

    static void gtd(
        final EngineFixture f, final long accountId, final long clientOrderId, final Side side, final long price,
        final long quantity, final long expiryTimeNs)
    {
        f.order(accountId, clientOrderId, EngineFixture.BTC_USD, side, OrderType.LIMIT, TimeInForce.GTD, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, price, quantity, 0, expiryTimeNs);
    }

    /**
     * A market order by base quantity on BTC-USD.
     */
    static void market(
        final EngineFixture f, final long accountId, final long clientOrderId, final Side side,
        final TimeInForce timeInForce, final long quantity)
    {
        f.order(accountId, clientOrderId, EngineFixture.BTC_USD, side, OrderType.MARKET, timeInForce, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 0, quantity, 0, 0);
    }

    /**
     * A market IOC buy on BTC-USD spending at most {@code quoteAmount}, fees included.
     */
    static void marketBuyQuote(final EngineFixture f, final long accountId, final long clientOrderId, final long quoteAmount)
    {
        f.order(accountId, clientOrderId, EngineFixture.BTC_USD, Side.BUY, OrderType.MARKET, TimeInForce.IOC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 0, 0, quoteAmount, 0);
    }

    static long available(final EngineFixture f, final long accountId, final int assetId)
    {
        return f.engine.availableBalance(accountId, assetId);
    }

    static long reserved(final EngineFixture f, final long accountId, final int assetId)
    {
        return f.engine.reservedBalance(accountId, assetId);
    }

    /**
     * The quote a limit buy reserves on the fixture's grid (notional in micro-USD plus the 0.2 % max fee, rounded down).
     */
    static long buyReservation(final long price, final long quantity)
    {
        final long notional = price * quantity;
        return notional + notional * EngineFixture.TAKER_FEE_PPM / 1_000_000;
    }

    /**
     * The base a sell of {@code quantity} lots reserves: 1 lot = 0.0001 BTC = 10,000 satoshi.
     */
    static long baseAmount(final long quantity)
    {
        return quantity * 10_000;
    }

    /**
     * The best {@code maxLevels} prices and quantities of a side of BTC-USD, as [price, quantity, count] rows.
     */
    static long[][] depth(final EngineFixture f, final Side side)
    {
        final long[] prices = new long[16];
        final long[] quantities = new long[16];
        final int[] counts = new int[16];
        final int levels = f.engine.bookDepth(EngineFixture.BTC_USD, side, 16, prices, quantities, counts);
        final long[][] rows = new long[levels][];
        for (int i = 0; i < levels; i++)
        {
            rows[i] = new long[]{prices[i], quantities[i], counts[i]};
        }
        return rows;
    }
}
