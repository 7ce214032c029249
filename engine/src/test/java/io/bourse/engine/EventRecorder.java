package io.bourse.engine;

import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.OrderStatus;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.TransferDirection;

import java.util.ArrayList;
import java.util.List;

/**
 * Test listener that keeps every engine event as a typed record, in order, so tests can assert on them and
 * differential tests can compare two engines' outputs with equals().
 */
public final class EventRecorder implements EngineListener
{
    /**
     * One recorded event; each record mirrors one {@link EngineListener} callback.
     */
    public sealed interface Event
    {
    }

    record CommandRejected(CommandType commandType, RejectReason reason, long accountId, long orderId, long clientOrderId, int instrumentId, long timestampNs) implements Event
    {
    }

    record OrderAccepted(long orderId, long clientOrderId, long accountId, int instrumentId, Side side, OrderType orderType, TimeInForce timeInForce, long price, long quantity, long quoteAmount, boolean postOnly, SelfTradePrevention selfTradePrevention, long expiryTimeNs, long stopPrice, long timestampNs) implements Event
    {
    }

    record OrderTriggered(long orderId, long clientOrderId, long accountId, int instrumentId, Side side, OrderType orderType, long price, long quantity, long stopPrice, long triggerPrice, long timestampNs) implements Event
    {
    }

    record Trade(long tradeId, int instrumentId, long price, long quantity, Side takerSide, long makerOrderId, long makerClientOrderId, long makerAccountId, long makerFilledQuantity, long makerRemainingQuantity, long makerExecutedNotional, long makerFee, long takerOrderId, long takerClientOrderId, long takerAccountId, long takerFilledQuantity, long takerRemainingQuantity, long takerExecutedNotional, long takerFee, long timestampNs) implements Event
    {
    }

    record OrderCanceled(long orderId, long clientOrderId, long accountId, int instrumentId, Side side, long price, long quantity, long filledQuantity, long executedNotional, CancelReason reason, long timestampNs) implements Event
    {
    }

    record OrderReplaced(long orderId, long origClientOrderId, long clientOrderId, long accountId, int instrumentId, Side side, long price, long quantity, long filledQuantity, boolean priorityKept, long stopPrice, long timestampNs) implements Event
    {
    }

    record OrderRestated(long orderId, long clientOrderId, long accountId, int instrumentId, Side side, long price, long quantity, long filledQuantity, long timestampNs) implements Event
    {
    }

    record OrderExpired(long orderId, long clientOrderId, long accountId, int instrumentId, Side side, long price, long quantity, long filledQuantity, long executedNotional, long timestampNs) implements Event
    {
    }

    record OrderStatusReport(long orderId, long clientOrderId, long accountId, int instrumentId, Side side, TimeInForce timeInForce, OrderStatus status, long price, long quantity, long filledQuantity, long executedNotional, long expiryTimeNs, OrderType orderType, long stopPrice, long timestampNs) implements Event
    {
    }

    record BookLevelChanged(int instrumentId, Side side, long price, long quantity, int orderCount, long timestampNs) implements Event
    {
    }

    record BalanceChanged(long accountId, int assetId, long available, long reserved, BalanceChangeReason reason, long timestampNs) implements Event
    {
    }

    record TransferProcessed(long transactionId, long accountId, int assetId, long amount, TransferDirection direction, boolean applied, long timestampNs) implements Event
    {
    }

    record MassCancelCompleted(long accountId, int instrumentId, Side side, int canceledCount, long timestampNs) implements Event
    {
    }

    record AssetDefined(int assetId, int scale, String symbol, long timestampNs) implements Event
    {
    }

    record InstrumentDefined(int instrumentId, String symbol, int baseAssetId, int quoteAssetId, int priceScale, long tickSize, int quantityScale, long lotSize, long minQuantity, long maxQuantity, int priceBandBps, long referencePrice, int makerFeePpm, int takerFeePpm, TradingState tradingState, long timestampNs) implements Event
    {
    }

    record TradingStateChanged(int instrumentId, TradingState tradingState, long timestampNs) implements Event
    {
    }

    record AccountFeesChanged(long accountId, int makerFeePpm, int takerFeePpm, long timestampNs) implements Event
    {
    }

    record CancelAllAfterChanged(
        long accountId, long timeoutMs, long deadlineNs, boolean triggered, int canceledCount, long timestampNs)
        implements Event
    {
    }

    record AccountLimitsChanged(long accountId, long maxOrderQuantity, long maxOrderNotional, int maxOpenOrders, SelfTradePrevention defaultSelfTradePrevention, long timestampNs) implements Event
    {
    }

    record KillSwitchChanged(long accountId, boolean active, long timestampNs) implements Event
    {
    }

    private final List<Event> events = new ArrayList<>();

    public List<Event> events()
    {
        return events;
    }

    public void clear()
    {
        events.clear();
    }

    public <T extends Event> List<T> all(final Class<T> type)
    {
        final List<T> result = new ArrayList<>();
        for (final Event event : events)
        {
            if (type.isInstance(event))
            {
                result.add(type.cast(event));
            }
        }
        return result;
    }

    /**
     * @return the single event of the type, failing when there is none or more than one.
     */
    public <T extends Event> T only(final Class<T> type)
    {
        final List<T> matching = all(type);
        if (matching.size() != 1)
        {
            throw new AssertionError("expected exactly one " + type.getSimpleName() + " but got " + matching + " in " + events);
        }
        return matching.get(0);
    }

    public <T extends Event> T last(final Class<T> type)
    {
        final List<T> matching = all(type);
        if (matching.isEmpty())
        {
            throw new AssertionError("no " + type.getSimpleName() + " in " + events);
        }
        return matching.get(matching.size() - 1);
    }

    public void onCommandRejected(final CommandType commandType, final RejectReason reason, final long accountId, final long orderId, final long clientOrderId, final int instrumentId, final long timestampNs)
    {
        events.add(new CommandRejected(commandType, reason, accountId, orderId, clientOrderId, instrumentId, timestampNs));
    }

    public void onOrderAccepted(final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side, final OrderType orderType, final TimeInForce timeInForce, final long price, final long quantity, final long quoteAmount, final boolean postOnly, final SelfTradePrevention selfTradePrevention, final long expiryTimeNs, final long stopPrice, final long timestampNs)
    {
        events.add(new OrderAccepted(orderId, clientOrderId, accountId, instrumentId, side, orderType, timeInForce, price, quantity, quoteAmount, postOnly, selfTradePrevention, expiryTimeNs, stopPrice, timestampNs));
    }

    public void onOrderTriggered(final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side, final OrderType orderType, final long price, final long quantity, final long stopPrice, final long triggerPrice, final long timestampNs)
    {
        events.add(new OrderTriggered(orderId, clientOrderId, accountId, instrumentId, side, orderType, price, quantity, stopPrice, triggerPrice, timestampNs));
    }

    public void onTrade(final long tradeId, final int instrumentId, final long price, final long quantity, final Side takerSide, final long makerOrderId, final long makerClientOrderId, final long makerAccountId, final long makerFilledQuantity, final long makerRemainingQuantity, final long makerExecutedNotional, final long makerFee, final long takerOrderId, final long takerClientOrderId, final long takerAccountId, final long takerFilledQuantity, final long takerRemainingQuantity, final long takerExecutedNotional, final long takerFee, final long timestampNs)
    {
        events.add(new Trade(tradeId, instrumentId, price, quantity, takerSide, makerOrderId, makerClientOrderId, makerAccountId, makerFilledQuantity, makerRemainingQuantity, makerExecutedNotional, makerFee, takerOrderId, takerClientOrderId, takerAccountId, takerFilledQuantity, takerRemainingQuantity, takerExecutedNotional, takerFee, timestampNs));
    }

    public void onOrderCanceled(final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side, final long price, final long quantity, final long filledQuantity, final long executedNotional, final CancelReason reason, final long timestampNs)
    {
        events.add(new OrderCanceled(orderId, clientOrderId, accountId, instrumentId, side, price, quantity, filledQuantity, executedNotional, reason, timestampNs));
    }

    public void onOrderReplaced(final long orderId, final long origClientOrderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side, final long price, final long quantity, final long filledQuantity, final boolean priorityKept, final long stopPrice, final long timestampNs)
    {
        events.add(new OrderReplaced(orderId, origClientOrderId, clientOrderId, accountId, instrumentId, side, price, quantity, filledQuantity, priorityKept, stopPrice, timestampNs));
    }

    public void onOrderRestated(final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side, final long price, final long quantity, final long filledQuantity, final long timestampNs)
    {
        events.add(new OrderRestated(orderId, clientOrderId, accountId, instrumentId, side, price, quantity, filledQuantity, timestampNs));
    }

    public void onOrderExpired(final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side, final long price, final long quantity, final long filledQuantity, final long executedNotional, final long timestampNs)
    {
        events.add(new OrderExpired(orderId, clientOrderId, accountId, instrumentId, side, price, quantity, filledQuantity, executedNotional, timestampNs));
    }

    public void onOrderStatus(final long orderId, final long clientOrderId, final long accountId, final int instrumentId, final Side side, final TimeInForce timeInForce, final OrderStatus status, final long price, final long quantity, final long filledQuantity, final long executedNotional, final long expiryTimeNs, final OrderType orderType, final long stopPrice, final long timestampNs)
    {
        events.add(new OrderStatusReport(orderId, clientOrderId, accountId, instrumentId, side, timeInForce, status, price, quantity, filledQuantity, executedNotional, expiryTimeNs, orderType, stopPrice, timestampNs));
    }

    public void onBookLevelChanged(final int instrumentId, final Side side, final long price, final long quantity, final int orderCount, final long timestampNs)
    {
        events.add(new BookLevelChanged(instrumentId, side, price, quantity, orderCount, timestampNs));
    }

    public void onBalanceChanged(final long accountId, final int assetId, final long available, final long reserved, final BalanceChangeReason reason, final long timestampNs)
    {
        events.add(new BalanceChanged(accountId, assetId, available, reserved, reason, timestampNs));
    }

    public void onTransferProcessed(final long transactionId, final long accountId, final int assetId, final long amount, final TransferDirection direction, final boolean applied, final long timestampNs)
    {
        events.add(new TransferProcessed(transactionId, accountId, assetId, amount, direction, applied, timestampNs));
    }

    public void onMassCancelCompleted(final long accountId, final int instrumentId, final Side side, final int canceledCount, final long timestampNs)
    {
        events.add(new MassCancelCompleted(accountId, instrumentId, side, canceledCount, timestampNs));
    }

    public void onAssetDefined(final int assetId, final int scale, final String symbol, final long timestampNs)
    {
        events.add(new AssetDefined(assetId, scale, symbol, timestampNs));
    }

    public void onInstrumentDefined(final int instrumentId, final String symbol, final int baseAssetId, final int quoteAssetId, final int priceScale, final long tickSize, final int quantityScale, final long lotSize, final long minQuantity, final long maxQuantity, final int priceBandBps, final long referencePrice, final int makerFeePpm, final int takerFeePpm, final TradingState tradingState, final long timestampNs)
    {
        events.add(new InstrumentDefined(instrumentId, symbol, baseAssetId, quoteAssetId, priceScale, tickSize, quantityScale, lotSize, minQuantity, maxQuantity, priceBandBps, referencePrice, makerFeePpm, takerFeePpm, tradingState, timestampNs));
    }

    public void onTradingStateChanged(final int instrumentId, final TradingState tradingState, final long timestampNs)
    {
        events.add(new TradingStateChanged(instrumentId, tradingState, timestampNs));
    }

    public void onAccountLimitsChanged(final long accountId, final long maxOrderQuantity, final long maxOrderNotional, final int maxOpenOrders, final SelfTradePrevention defaultSelfTradePrevention, final long timestampNs)
    {
        events.add(new AccountLimitsChanged(accountId, maxOrderQuantity, maxOrderNotional, maxOpenOrders, defaultSelfTradePrevention, timestampNs));
    }

    public void onKillSwitchChanged(final long accountId, final boolean active, final long timestampNs)
    {
        events.add(new KillSwitchChanged(accountId, active, timestampNs));
    }

    public void onAccountFeesChanged(
        final long accountId, final int makerFeePpm, final int takerFeePpm, final long timestampNs)
    {
        events.add(new AccountFeesChanged(accountId, makerFeePpm, takerFeePpm, timestampNs));
    }

    public void onCancelAllAfterChanged(
        final long accountId,
        final long timeoutMs,
        final long deadlineNs,
        final boolean triggered,
        final int canceledCount,
        final long timestampNs)
    {
        events.add(new CancelAllAfterChanged(accountId, timeoutMs, deadlineNs, triggered, canceledCount, timestampNs));
    }
}
