package io.bourse.engine;

import io.bourse.protocol.codec.AccountFeesChangedEncoder;
import io.bourse.protocol.codec.AccountLimitsChangedEncoder;
import io.bourse.protocol.codec.AssetDefinedEncoder;
import io.bourse.protocol.codec.BalanceChangeReason;
import io.bourse.protocol.codec.CancelAllAfterChangedEncoder;
import io.bourse.protocol.codec.BalanceChangedEncoder;
import io.bourse.protocol.codec.BookLevelChangedEncoder;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandRejectedEncoder;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.InstrumentDefinedEncoder;
import io.bourse.protocol.codec.KillSwitchChangedEncoder;
import io.bourse.protocol.codec.MassCancelCompletedEncoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.OrderAcceptedEncoder;
import io.bourse.protocol.codec.OrderCanceledEncoder;
import io.bourse.protocol.codec.OrderExpiredEncoder;
import io.bourse.protocol.codec.OrderReplacedEncoder;
import io.bourse.protocol.codec.OrderRestatedEncoder;
import io.bourse.protocol.codec.OrderStatus;
import io.bourse.protocol.codec.OrderStatusReportEncoder;
import io.bourse.protocol.codec.OrderTriggeredEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradeEncoder;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.TradingStateChangedEncoder;
import io.bourse.protocol.codec.TransferDirection;
import io.bourse.protocol.codec.TransferProcessedEncoder;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * An {@link EngineListener} that encodes each event as an SBE message and hands it to an {@link EventSink}: the
 * bridge from the engine to whatever carries its events (cluster egress, a journal, a test recorder). Encoders and
 * the buffer are re-used, so encoding allocates nothing.
 */
public final class EventEncoder implements EngineListener
{
    private final MutableDirectBuffer buffer = new ExpandableArrayBuffer(256);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final CommandRejectedEncoder commandRejected = new CommandRejectedEncoder();
    private final OrderAcceptedEncoder orderAccepted = new OrderAcceptedEncoder();
    private final TradeEncoder trade = new TradeEncoder();
    private final OrderCanceledEncoder orderCanceled = new OrderCanceledEncoder();
    private final OrderReplacedEncoder orderReplaced = new OrderReplacedEncoder();
    private final OrderRestatedEncoder orderRestated = new OrderRestatedEncoder();
    private final OrderExpiredEncoder orderExpired = new OrderExpiredEncoder();
    private final OrderStatusReportEncoder orderStatusReport = new OrderStatusReportEncoder();
    private final OrderTriggeredEncoder orderTriggered = new OrderTriggeredEncoder();
    private final BookLevelChangedEncoder bookLevelChanged = new BookLevelChangedEncoder();
    private final BalanceChangedEncoder balanceChanged = new BalanceChangedEncoder();
    private final TransferProcessedEncoder transferProcessed = new TransferProcessedEncoder();
    private final MassCancelCompletedEncoder massCancelCompleted = new MassCancelCompletedEncoder();
    private final AssetDefinedEncoder assetDefined = new AssetDefinedEncoder();
    private final InstrumentDefinedEncoder instrumentDefined = new InstrumentDefinedEncoder();
    private final TradingStateChangedEncoder tradingStateChanged = new TradingStateChangedEncoder();
    private final AccountLimitsChangedEncoder accountLimitsChanged = new AccountLimitsChangedEncoder();
    private final AccountFeesChangedEncoder accountFeesChanged = new AccountFeesChangedEncoder();
    private final KillSwitchChangedEncoder killSwitchChanged = new KillSwitchChangedEncoder();
    private final CancelAllAfterChangedEncoder cancelAllAfterChanged = new CancelAllAfterChangedEncoder();
    private final EventSink sink;

    public EventEncoder(final EventSink sink)
    {
        this.sink = sink;
    }

    public void onCommandRejected(
        final CommandType commandType,
        final RejectReason reason,
        final long accountId,
        final long orderId,
        final long clientOrderId,
        final int instrumentId,
        final long timestampNs)
    {
        commandRejected.wrapAndApplyHeader(buffer, 0, header)
            .commandType(commandType)
            .reason(reason)
            .accountId(accountId)
            .orderId(orderId)
            .clientOrderId(clientOrderId)
            .instrumentId(instrumentId)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + commandRejected.encodedLength());
    }

    public void onOrderAccepted(
        final long orderId,
        final long clientOrderId,
        final long accountId,
        final int instrumentId,
        final Side side,
        final OrderType orderType,
        final TimeInForce timeInForce,
        final long price,
        final long quantity,
        final long quoteAmount,
        final boolean postOnly,
        final SelfTradePrevention selfTradePrevention,
        final long expiryTimeNs,
        final long stopPrice,
        final long timestampNs)
    {
        orderAccepted.wrapAndApplyHeader(buffer, 0, header)
            .orderId(orderId)
            .clientOrderId(clientOrderId)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .orderType(orderType)
            .timeInForce(timeInForce)
            .price(price)
            .quantity(quantity)
            .quoteAmount(quoteAmount)
            .timestampNs(timestampNs)
            .postOnly(postOnly ? BooleanType.TRUE : BooleanType.FALSE)
            .selfTradePrevention(selfTradePrevention)
            .expiryTimeNs(expiryTimeNs)
            .stopPrice(stopPrice);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderAccepted.encodedLength());
    }

    public void onOrderTriggered(
        final long orderId,
        final long clientOrderId,
        final long accountId,
        final int instrumentId,
        final Side side,
        final OrderType orderType,
        final long price,
        final long quantity,
        final long stopPrice,
        final long triggerPrice,
        final long timestampNs)
    {
        orderTriggered.wrapAndApplyHeader(buffer, 0, header)
            .orderId(orderId)
            .clientOrderId(clientOrderId)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .orderType(orderType)
            .price(price)
            .quantity(quantity)
            .stopPrice(stopPrice)
            .triggerPrice(triggerPrice)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderTriggered.encodedLength());
    }

    public void onTrade(
        final long tradeId,
        final int instrumentId,
        final long price,
        final long quantity,
        final Side takerSide,
        final long makerOrderId,
        final long makerClientOrderId,
        final long makerAccountId,
        final long makerFilledQuantity,
        final long makerRemainingQuantity,
        final long makerExecutedNotional,
        final long makerFee,
        final long takerOrderId,
        final long takerClientOrderId,
        final long takerAccountId,
        final long takerFilledQuantity,
        final long takerRemainingQuantity,
        final long takerExecutedNotional,
        final long takerFee,
        final long timestampNs)
    {
        trade.wrapAndApplyHeader(buffer, 0, header)
            .tradeId(tradeId)
            .instrumentId(instrumentId)
            .price(price)
            .quantity(quantity)
            .takerSide(takerSide)
            .makerOrderId(makerOrderId)
            .makerClientOrderId(makerClientOrderId)
            .makerAccountId(makerAccountId)
            .makerFilledQuantity(makerFilledQuantity)
            .makerRemainingQuantity(makerRemainingQuantity)
            .makerExecutedNotional(makerExecutedNotional)
            .makerFee(makerFee)
            .takerOrderId(takerOrderId)
            .takerClientOrderId(takerClientOrderId)
            .takerAccountId(takerAccountId)
            .takerFilledQuantity(takerFilledQuantity)
            .takerRemainingQuantity(takerRemainingQuantity)
            .takerExecutedNotional(takerExecutedNotional)
            .takerFee(takerFee)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + trade.encodedLength());
    }

    public void onOrderCanceled(
        final long orderId,
        final long clientOrderId,
        final long accountId,
        final int instrumentId,
        final Side side,
        final long price,
        final long quantity,
        final long filledQuantity,
        final long executedNotional,
        final CancelReason reason,
        final long timestampNs)
    {
        orderCanceled.wrapAndApplyHeader(buffer, 0, header)
            .orderId(orderId)
            .clientOrderId(clientOrderId)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .price(price)
            .quantity(quantity)
            .filledQuantity(filledQuantity)
            .executedNotional(executedNotional)
            .reason(reason)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderCanceled.encodedLength());
    }

    public void onOrderReplaced(
        final long orderId,
        final long origClientOrderId,
        final long clientOrderId,
        final long accountId,
        final int instrumentId,
        final Side side,
        final long price,
        final long quantity,
        final long filledQuantity,
        final boolean priorityKept,
        final long stopPrice,
        final long timestampNs)
    {
        orderReplaced.wrapAndApplyHeader(buffer, 0, header)
            .orderId(orderId)
            .origClientOrderId(origClientOrderId)
            .clientOrderId(clientOrderId)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .price(price)
            .quantity(quantity)
            .filledQuantity(filledQuantity)
            .priorityKept(priorityKept ? BooleanType.TRUE : BooleanType.FALSE)
            .timestampNs(timestampNs)
            .stopPrice(stopPrice);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderReplaced.encodedLength());
    }

    public void onOrderRestated(
        final long orderId,
        final long clientOrderId,
        final long accountId,
        final int instrumentId,
        final Side side,
        final long price,
        final long quantity,
        final long filledQuantity,
        final long timestampNs)
    {
        orderRestated.wrapAndApplyHeader(buffer, 0, header)
            .orderId(orderId)
            .clientOrderId(clientOrderId)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .price(price)
            .quantity(quantity)
            .filledQuantity(filledQuantity)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderRestated.encodedLength());
    }

    public void onOrderExpired(
        final long orderId,
        final long clientOrderId,
        final long accountId,
        final int instrumentId,
        final Side side,
        final long price,
        final long quantity,
        final long filledQuantity,
        final long executedNotional,
        final long timestampNs)
    {
        orderExpired.wrapAndApplyHeader(buffer, 0, header)
            .orderId(orderId)
            .clientOrderId(clientOrderId)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .price(price)
            .quantity(quantity)
            .filledQuantity(filledQuantity)
            .executedNotional(executedNotional)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderExpired.encodedLength());
    }

    public void onOrderStatus(
        final long orderId,
        final long clientOrderId,
        final long accountId,
        final int instrumentId,
        final Side side,
        final TimeInForce timeInForce,
        final OrderStatus status,
        final long price,
        final long quantity,
        final long filledQuantity,
        final long executedNotional,
        final long expiryTimeNs,
        final OrderType orderType,
        final long stopPrice,
        final long timestampNs)
    {
        orderStatusReport.wrapAndApplyHeader(buffer, 0, header)
            .orderId(orderId)
            .clientOrderId(clientOrderId)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .timeInForce(timeInForce)
            .status(status)
            .price(price)
            .quantity(quantity)
            .filledQuantity(filledQuantity)
            .executedNotional(executedNotional)
            .expiryTimeNs(expiryTimeNs)
            .timestampNs(timestampNs)
            .orderType(orderType)
            .stopPrice(stopPrice);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + orderStatusReport.encodedLength());
    }

    public void onBookLevelChanged(
        final int instrumentId,
        final Side side,
        final long price,
        final long quantity,
        final int orderCount,
        final long timestampNs)
    {
        bookLevelChanged.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId)
            .side(side)
            .price(price)
            .quantity(quantity)
            .orderCount(orderCount)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + bookLevelChanged.encodedLength());
    }

    public void onBalanceChanged(
        final long accountId,
        final int assetId,
        final long available,
        final long reserved,
        final BalanceChangeReason reason,
        final long timestampNs)
    {
        balanceChanged.wrapAndApplyHeader(buffer, 0, header)
            .accountId(accountId)
            .assetId(assetId)
            .available(available)
            .reserved(reserved)
            .reason(reason)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + balanceChanged.encodedLength());
    }

    public void onTransferProcessed(
        final long transactionId,
        final long accountId,
        final int assetId,
        final long amount,
        final TransferDirection direction,
        final boolean applied,
        final long timestampNs)
    {
        transferProcessed.wrapAndApplyHeader(buffer, 0, header)
            .transactionId(transactionId)
            .accountId(accountId)
            .assetId(assetId)
            .amount(amount)
            .direction(direction)
            .applied(applied ? BooleanType.TRUE : BooleanType.FALSE)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + transferProcessed.encodedLength());
    }

    public void onMassCancelCompleted(
        final long accountId,
        final int instrumentId,
        final Side side,
        final int canceledCount,
        final long timestampNs)
    {
        massCancelCompleted.wrapAndApplyHeader(buffer, 0, header)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side)
            .canceledCount(canceledCount)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + massCancelCompleted.encodedLength());
    }

    public void onAssetDefined(
        final int assetId,
        final int scale,
        final String symbol,
        final long timestampNs)
    {
        assetDefined.wrapAndApplyHeader(buffer, 0, header)
            .assetId(assetId)
            .scale((short)scale)
            .symbol(symbol)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + assetDefined.encodedLength());
    }

    public void onInstrumentDefined(
        final int instrumentId,
        final String symbol,
        final int baseAssetId,
        final int quoteAssetId,
        final int priceScale,
        final long tickSize,
        final int quantityScale,
        final long lotSize,
        final long minQuantity,
        final long maxQuantity,
        final int priceBandBps,
        final long referencePrice,
        final int makerFeePpm,
        final int takerFeePpm,
        final TradingState tradingState,
        final long timestampNs)
    {
        instrumentDefined.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId)
            .symbol(symbol)
            .baseAssetId(baseAssetId)
            .quoteAssetId(quoteAssetId)
            .priceScale((short)priceScale)
            .tickSize(tickSize)
            .quantityScale((short)quantityScale)
            .lotSize(lotSize)
            .minQuantity(minQuantity)
            .maxQuantity(maxQuantity)
            .priceBandBps(priceBandBps)
            .referencePrice(referencePrice)
            .makerFeePpm(makerFeePpm)
            .takerFeePpm(takerFeePpm)
            .tradingState(tradingState)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + instrumentDefined.encodedLength());
    }

    public void onTradingStateChanged(
        final int instrumentId,
        final TradingState tradingState,
        final long timestampNs)
    {
        tradingStateChanged.wrapAndApplyHeader(buffer, 0, header)
            .instrumentId(instrumentId)
            .tradingState(tradingState)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + tradingStateChanged.encodedLength());
    }

    public void onAccountLimitsChanged(
        final long accountId,
        final long maxOrderQuantity,
        final long maxOrderNotional,
        final int maxOpenOrders,
        final SelfTradePrevention defaultSelfTradePrevention,
        final long timestampNs)
    {
        accountLimitsChanged.wrapAndApplyHeader(buffer, 0, header)
            .accountId(accountId)
            .maxOrderQuantity(maxOrderQuantity)
            .maxOrderNotional(maxOrderNotional)
            .maxOpenOrders(maxOpenOrders)
            .defaultSelfTradePrevention(defaultSelfTradePrevention)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + accountLimitsChanged.encodedLength());
    }

    public void onAccountFeesChanged(
        final long accountId,
        final int makerFeePpm,
        final int takerFeePpm,
        final long timestampNs)
    {
        accountFeesChanged.wrapAndApplyHeader(buffer, 0, header)
            .accountId(accountId)
            .makerFeePpm(makerFeePpm)
            .takerFeePpm(takerFeePpm)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + accountFeesChanged.encodedLength());
    }

    public void onKillSwitchChanged(
        final long accountId,
        final boolean active,
        final long timestampNs)
    {
        killSwitchChanged.wrapAndApplyHeader(buffer, 0, header)
            .accountId(accountId)
            .active(active ? BooleanType.TRUE : BooleanType.FALSE)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + killSwitchChanged.encodedLength());
    }

    public void onCancelAllAfterChanged(
        final long accountId,
        final long timeoutMs,
        final long deadlineNs,
        final boolean triggered,
        final int canceledCount,
        final long timestampNs)
    {
        cancelAllAfterChanged.wrapAndApplyHeader(buffer, 0, header)
            .accountId(accountId)
            .timeoutMs(timeoutMs)
            .deadlineNs(deadlineNs)
            .triggered(triggered ? BooleanType.TRUE : BooleanType.FALSE)
            .canceledCount(canceledCount)
            .timestampNs(timestampNs);
        sink.onEvent(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + cancelAllAfterChanged.encodedLength());
    }
}
