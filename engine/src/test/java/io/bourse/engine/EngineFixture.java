package io.bourse.engine;

import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;

/**
 * A small exchange for tests: assets BTC (scale 8), USD (scale 6) and ETH (scale 8), and instrument BTC-USD with
 * prices in cents (tick 0.01) and quantities in 0.0001 BTC (lot 1), so 1 tick × 1 lot = 1 micro-USD of notional.
 * Fees: maker 0.1 %, taker 0.2 %. Every command advances the clock by 1 µs and goes through the recorder.
 */
public final class EngineFixture
{
    public static final int BTC = 1;
    public static final int USD = 2;
    public static final int ETH = 3;
    public static final int BTC_USD = 1;
    public static final int ETH_USD = 2;
    public static final int MAKER_FEE_PPM = 1_000;
    public static final int TAKER_FEE_PPM = 2_000;

    public final EventRecorder events = new EventRecorder();
    public final Engine engine;
    public long nowNs = 1_700_000_000_000_000_000L;
    private long nextTransactionId = 1;

    public EngineFixture()
    {
        this(new Engine.Context());
    }

    public EngineFixture(final Engine.Context context)
    {
        engine = new Engine(events, context);
        engine.defineAsset(BTC, 8, "BTC", tick());
        engine.defineAsset(USD, 6, "USD", tick());
        engine.defineAsset(ETH, 8, "ETH", tick());
        defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 0, 0, TradingState.OPEN);
        defineInstrument(ETH_USD, "ETH-USD", ETH, USD, 0, 0, TradingState.OPEN);
        events.clear();
    }

    public void defineInstrument(
        final int instrumentId, final String symbol, final int base, final int quote, final int priceBandBps,
        final long referencePrice, final TradingState state)
    {
        engine.defineInstrument(
            instrumentId, symbol, base, quote, 2, 1, 4, 1, 1, 0, priceBandBps, referencePrice, MAKER_FEE_PPM,
            TAKER_FEE_PPM, state, tick());
    }

    public long tick()
    {
        return nowNs += 1_000;
    }

    /**
     * Deposit into an account under a fresh transaction id.
     */
    public void fund(final long accountId, final int assetId, final long amount)
    {
        engine.deposit(nextTransactionId++, accountId, assetId, amount, tick());
    }

    /**
     * Fund an account generously in every asset.
     */
    public void fundAll(final long accountId)
    {
        fund(accountId, BTC, 1_000_000_000_000L);
        fund(accountId, USD, 1_000_000_000_000_000L);
        fund(accountId, ETH, 1_000_000_000_000L);
    }

    /**
     * A GTC limit order on BTC-USD with the account's default STP mode.
     */
    public void limit(final long accountId, final long clientOrderId, final Side side, final long price, final long quantity)
    {
        order(accountId, clientOrderId, BTC_USD, side, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, price, quantity, 0, 0);
    }

    public void order(
        final long accountId, final long clientOrderId, final int instrumentId, final Side side,
        final OrderType orderType, final TimeInForce timeInForce, final boolean postOnly,
        final SelfTradePrevention selfTradePrevention, final long price, final long quantity, final long quoteAmount,
        final long expiryTimeNs)
    {
        engine.newOrder(accountId, clientOrderId, instrumentId, side, orderType, timeInForce, postOnly,
            selfTradePrevention, price, quantity, quoteAmount, expiryTimeNs, 0, tick());
    }

    /**
     * @return the order id the engine gave the last accepted order.
     */
    public long lastOrderId()
    {
        return events.last(EventRecorder.OrderAccepted.class).orderId();
    }
}
