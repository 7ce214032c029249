package io.bourse.engine;

import io.bourse.protocol.codec.AccountFeesChangedDecoder;
import io.bourse.protocol.codec.CancelAllAfterChangedDecoder;
import io.bourse.protocol.codec.AccountLimitsChangedDecoder;
import io.bourse.protocol.codec.AssetDefinedDecoder;
import io.bourse.protocol.codec.BalanceChangedDecoder;
import io.bourse.protocol.codec.BookLevelChangedDecoder;
import io.bourse.protocol.codec.CommandRejectedDecoder;
import io.bourse.protocol.codec.InstrumentDefinedDecoder;
import io.bourse.protocol.codec.KillSwitchChangedDecoder;
import io.bourse.protocol.codec.MassCancelCompletedDecoder;
import io.bourse.protocol.codec.OrderAcceptedDecoder;
import io.bourse.protocol.codec.OrderCanceledDecoder;
import io.bourse.protocol.codec.OrderExpiredDecoder;
import io.bourse.protocol.codec.OrderReplacedDecoder;
import io.bourse.protocol.codec.OrderRestatedDecoder;
import io.bourse.protocol.codec.OrderStatusReportDecoder;
import io.bourse.protocol.codec.OrderTriggeredDecoder;
import io.bourse.protocol.codec.TradeDecoder;
import io.bourse.protocol.codec.TradingStateChangedDecoder;
import io.bourse.protocol.codec.TransferProcessedDecoder;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.ETH;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What {@link EventEncoder} writes decodes, with the SBE decoders, to exactly the values the engine passed to its
 * listener, for every event type.
 */
class EventEncoderTest
{
    private final EventRecorder recorder = new EventRecorder();
    private final List<EventRecorder.Event> decodedEvents = new ArrayList<>();
    private final SbeEventDecoder decoder = new SbeEventDecoder();
    private final EventEncoder encoder = new EventEncoder((buffer, offset, length) ->
        decodedEvents.add(decoder.decode(buffer, offset, length)));
    private final Engine engine = new Engine(tee(recorder, encoder));
    private long nowNs = 1_700_000_000_000_000_000L;

    @Test
    void encodedEventsDecodeToTheValuesTheListenerSaw()
    {
        engine.defineAsset(BTC, 8, "BTC", ++nowNs);
        engine.defineAsset(USD, 6, "USD", ++nowNs);
        engine.defineAsset(ETH, 8, "ETHEREUM-CLASSIC", ++nowNs);
        engine.defineInstrument(BTC_USD, "BTC-USD", BTC, USD, 2, 1, 4, 1, 1, 1_000_000, 1_000, 10_000,
            EngineFixture.MAKER_FEE_PPM, EngineFixture.TAKER_FEE_PPM, TradingState.OPEN, ++nowNs);
        for (long account = 1; account <= 3; account++)
        {
            engine.deposit(account * 10, account, BTC, 1_000_000_000_000L, ++nowNs);
            engine.deposit(account * 10 + 1, account, USD, 1_000_000_000_000L, ++nowNs);
        }
        engine.deposit(10, 1, BTC, 5, ++nowNs);
        engine.withdraw(99, 1, USD, 1_000, ++nowNs);
        engine.withdraw(98, 1, ETH, 1_000, ++nowNs);
        engine.setAccountLimits(3, 500, 9_000_000, 20, SelfTradePrevention.DECREMENT, ++nowNs);
        engine.setAccountFees(2, 250, -1, ++nowNs);

        limit(1, 1, Side.SELL, 10_000, 10, TimeInForce.GTC, 0);
        limit(1, 2, Side.SELL, 10_010, 10, TimeInForce.GTD, nowNs + 50_000);
        limit(2, 1, Side.BUY, 10_005, 4, TimeInForce.GTC, 0);
        limit(2, 2, Side.BUY, 10_020, 12, TimeInForce.IOC, 0);
        engine.replaceOrder(1, 0, 2, 3, 10_010, 8, 0, ++nowNs);
        engine.replaceOrder(1, 0, 3, 0, 10_030, 9, 0, ++nowNs);
        limit(3, 1, Side.BUY, 9_990, 8, TimeInForce.GTC, 0);
        limit(3, 2, Side.SELL, 9_990, 3, TimeInForce.GTC, 0);
        engine.queryOrder(3, 0, 1, ++nowNs);
        engine.queryOrder(3, 0, 42, ++nowNs);
        limit(1, 4, Side.BUY, 9_500, 3, TimeInForce.GTD, nowNs + 10);
        nowNs += 1_000;
        engine.expireOrders(++nowNs);
        engine.cancelOrder(3, 0, 1, ++nowNs);
        engine.cancelOrder(3, 0, 1, ++nowNs);
        limit(2, 3, Side.BUY, 9_500, 2, TimeInForce.GTC, 0);
        limit(2, 4, Side.BUY, 9_600, 2, TimeInForce.GTC, 0);
        engine.massCancel(2, BTC_USD, Side.NULL_VAL, ++nowNs);
        engine.newOrder(2, 5, BTC_USD, Side.BUY, OrderType.MARKET, TimeInForce.IOC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 0, 0, 20_000, 0, 0, ++nowNs);
        engine.setTradingState(BTC_USD, TradingState.HALTED, ++nowNs);
        limit(2, 6, Side.BUY, 9_600, 2, TimeInForce.GTC, 0);
        engine.setTradingState(BTC_USD, TradingState.OPEN, ++nowNs);
        engine.setKillSwitch(0, true, ++nowNs);
        limit(2, 7, Side.BUY, 9_600, 2, TimeInForce.GTC, 0);
        engine.setKillSwitch(0, false, ++nowNs);
        limit(2, 8, Side.BUY, 9_600, 2, TimeInForce.GTC, 0);
        engine.setCancelAllAfter(2, 1, ++nowNs);
        nowNs += 1_000_000;
        engine.expireOrders(++nowNs);
        limit(1, 5, Side.SELL, 9_900, 1, TimeInForce.GTC, 0);
        limit(2, 9, Side.BUY, 9_900, 1, TimeInForce.GTC, 0);
        engine.newOrder(2, 10, BTC_USD, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 10_100, 2, 0, 0, 9_950, ++nowNs);
        engine.queryOrder(2, 0, 10, ++nowNs);
        engine.replaceOrder(2, 0, 10, 0, 10_100, 3, 9_960, ++nowNs);
        limit(1, 6, Side.SELL, 9_960, 1, TimeInForce.GTC, 0);
        limit(3, 4, Side.BUY, 9_960, 1, TimeInForce.GTC, 0);
        limit(2, 8, Side.BUY, 123, -1, TimeInForce.GTC, 0);

        assertEquals(recorder.events(), decodedEvents);
        final Set<Class<?>> types = new HashSet<>();
        recorder.events().forEach(event -> types.add(event.getClass()));
        assertEquals(Set.of(EventRecorder.Event.class.getPermittedSubclasses()), types, "every event type is covered");
    }

    private void limit(
        final long accountId, final long clientOrderId, final Side side, final long price, final long quantity,
        final TimeInForce timeInForce, final long expiryTimeNs)
    {
        engine.newOrder(accountId, clientOrderId, BTC_USD, side, OrderType.LIMIT, timeInForce, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, price, quantity, 0, expiryTimeNs, 0, ++nowNs);
    }

    private static EngineListener tee(final EngineListener first, final EngineListener second)
    {
        return (EngineListener)Proxy.newProxyInstance(
            EngineListener.class.getClassLoader(), new Class<?>[]{ EngineListener.class },
            (proxy, method, args) ->
            {
                try
                {
                    method.invoke(first, args);
                    return method.invoke(second, args);
                }
                catch (final InvocationTargetException ex)
                {
                    throw ex.getCause();
                }
            });
    }

    /**
     * Decodes any event message into the {@link EventRecorder} record of the same name.
     */
    static final class SbeEventDecoder
    {
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final CommandRejectedDecoder commandRejected = new CommandRejectedDecoder();
    private final OrderAcceptedDecoder orderAccepted = new OrderAcceptedDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final OrderCanceledDecoder orderCanceled = new OrderCanceledDecoder();
    private final OrderReplacedDecoder orderReplaced = new OrderReplacedDecoder();
    private final OrderRestatedDecoder orderRestated = new OrderRestatedDecoder();
    private final OrderExpiredDecoder orderExpired = new OrderExpiredDecoder();
    private final OrderStatusReportDecoder orderStatusReport = new OrderStatusReportDecoder();
    private final OrderTriggeredDecoder orderTriggered = new OrderTriggeredDecoder();
    private final BookLevelChangedDecoder bookLevelChanged = new BookLevelChangedDecoder();
    private final BalanceChangedDecoder balanceChanged = new BalanceChangedDecoder();
    private final TransferProcessedDecoder transferProcessed = new TransferProcessedDecoder();
    private final MassCancelCompletedDecoder massCancelCompleted = new MassCancelCompletedDecoder();
    private final AssetDefinedDecoder assetDefined = new AssetDefinedDecoder();
    private final InstrumentDefinedDecoder instrumentDefined = new InstrumentDefinedDecoder();
    private final TradingStateChangedDecoder tradingStateChanged = new TradingStateChangedDecoder();
    private final AccountLimitsChangedDecoder accountLimitsChanged = new AccountLimitsChangedDecoder();
    private final AccountFeesChangedDecoder accountFeesChanged = new AccountFeesChangedDecoder();
    private final KillSwitchChangedDecoder killSwitchChanged = new KillSwitchChangedDecoder();
    private final CancelAllAfterChangedDecoder cancelAllAfterChanged = new CancelAllAfterChangedDecoder();

        EventRecorder.Event decode(final DirectBuffer buffer, final int offset, final int length)
        {
            header.wrap(buffer, offset);
            final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
            final int blockLength = header.blockLength();
            final int version = header.version();
            final EventRecorder.Event event = switch (header.templateId())
            {
            case CommandRejectedDecoder.TEMPLATE_ID ->
            {
                commandRejected.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.CommandRejected(
                    commandRejected.commandType(),
                    commandRejected.reason(),
                    commandRejected.accountId(),
                    commandRejected.orderId(),
                    commandRejected.clientOrderId(),
                    commandRejected.instrumentId(),
                    commandRejected.timestampNs());
            }
            case OrderAcceptedDecoder.TEMPLATE_ID ->
            {
                orderAccepted.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.OrderAccepted(
                    orderAccepted.orderId(),
                    orderAccepted.clientOrderId(),
                    orderAccepted.accountId(),
                    orderAccepted.instrumentId(),
                    orderAccepted.side(),
                    orderAccepted.orderType(),
                    orderAccepted.timeInForce(),
                    orderAccepted.price(),
                    orderAccepted.quantity(),
                    orderAccepted.quoteAmount(),
                    orderAccepted.postOnly() == BooleanType.TRUE,
                    orderAccepted.selfTradePrevention(),
                    orderAccepted.expiryTimeNs(),
                    orderAccepted.stopPrice(),
                    orderAccepted.timestampNs());
            }
            case TradeDecoder.TEMPLATE_ID ->
            {
                trade.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.Trade(
                    trade.tradeId(),
                    trade.instrumentId(),
                    trade.price(),
                    trade.quantity(),
                    trade.takerSide(),
                    trade.makerOrderId(),
                    trade.makerClientOrderId(),
                    trade.makerAccountId(),
                    trade.makerFilledQuantity(),
                    trade.makerRemainingQuantity(),
                    trade.makerExecutedNotional(),
                    trade.makerFee(),
                    trade.takerOrderId(),
                    trade.takerClientOrderId(),
                    trade.takerAccountId(),
                    trade.takerFilledQuantity(),
                    trade.takerRemainingQuantity(),
                    trade.takerExecutedNotional(),
                    trade.takerFee(),
                    trade.timestampNs());
            }
            case OrderCanceledDecoder.TEMPLATE_ID ->
            {
                orderCanceled.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.OrderCanceled(
                    orderCanceled.orderId(),
                    orderCanceled.clientOrderId(),
                    orderCanceled.accountId(),
                    orderCanceled.instrumentId(),
                    orderCanceled.side(),
                    orderCanceled.price(),
                    orderCanceled.quantity(),
                    orderCanceled.filledQuantity(),
                    orderCanceled.executedNotional(),
                    orderCanceled.reason(),
                    orderCanceled.timestampNs());
            }
            case OrderReplacedDecoder.TEMPLATE_ID ->
            {
                orderReplaced.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.OrderReplaced(
                    orderReplaced.orderId(),
                    orderReplaced.origClientOrderId(),
                    orderReplaced.clientOrderId(),
                    orderReplaced.accountId(),
                    orderReplaced.instrumentId(),
                    orderReplaced.side(),
                    orderReplaced.price(),
                    orderReplaced.quantity(),
                    orderReplaced.filledQuantity(),
                    orderReplaced.priorityKept() == BooleanType.TRUE,
                    orderReplaced.stopPrice(),
                    orderReplaced.timestampNs());
            }
            case OrderRestatedDecoder.TEMPLATE_ID ->
            {
                orderRestated.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.OrderRestated(
                    orderRestated.orderId(),
                    orderRestated.clientOrderId(),
                    orderRestated.accountId(),
                    orderRestated.instrumentId(),
                    orderRestated.side(),
                    orderRestated.price(),
                    orderRestated.quantity(),
                    orderRestated.filledQuantity(),
                    orderRestated.timestampNs());
            }
            case OrderExpiredDecoder.TEMPLATE_ID ->
            {
                orderExpired.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.OrderExpired(
                    orderExpired.orderId(),
                    orderExpired.clientOrderId(),
                    orderExpired.accountId(),
                    orderExpired.instrumentId(),
                    orderExpired.side(),
                    orderExpired.price(),
                    orderExpired.quantity(),
                    orderExpired.filledQuantity(),
                    orderExpired.executedNotional(),
                    orderExpired.timestampNs());
            }
            case OrderStatusReportDecoder.TEMPLATE_ID ->
            {
                orderStatusReport.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.OrderStatusReport(
                    orderStatusReport.orderId(),
                    orderStatusReport.clientOrderId(),
                    orderStatusReport.accountId(),
                    orderStatusReport.instrumentId(),
                    orderStatusReport.side(),
                    orderStatusReport.timeInForce(),
                    orderStatusReport.status(),
                    orderStatusReport.price(),
                    orderStatusReport.quantity(),
                    orderStatusReport.filledQuantity(),
                    orderStatusReport.executedNotional(),
                    orderStatusReport.expiryTimeNs(),
                    orderStatusReport.orderType(),
                    orderStatusReport.stopPrice(),
                    orderStatusReport.timestampNs());
            }
            case OrderTriggeredDecoder.TEMPLATE_ID ->
            {
                orderTriggered.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.OrderTriggered(
                    orderTriggered.orderId(),
                    orderTriggered.clientOrderId(),
                    orderTriggered.accountId(),
                    orderTriggered.instrumentId(),
                    orderTriggered.side(),
                    orderTriggered.orderType(),
                    orderTriggered.price(),
                    orderTriggered.quantity(),
                    orderTriggered.stopPrice(),
                    orderTriggered.triggerPrice(),
                    orderTriggered.timestampNs());
            }
            case BookLevelChangedDecoder.TEMPLATE_ID ->
            {
                bookLevelChanged.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.BookLevelChanged(
                    bookLevelChanged.instrumentId(),
                    bookLevelChanged.side(),
                    bookLevelChanged.price(),
                    bookLevelChanged.quantity(),
                    bookLevelChanged.orderCount(),
                    bookLevelChanged.timestampNs());
            }
            case BalanceChangedDecoder.TEMPLATE_ID ->
            {
                balanceChanged.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.BalanceChanged(
                    balanceChanged.accountId(),
                    balanceChanged.assetId(),
                    balanceChanged.available(),
                    balanceChanged.reserved(),
                    balanceChanged.reason(),
                    balanceChanged.timestampNs());
            }
            case TransferProcessedDecoder.TEMPLATE_ID ->
            {
                transferProcessed.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.TransferProcessed(
                    transferProcessed.transactionId(),
                    transferProcessed.accountId(),
                    transferProcessed.assetId(),
                    transferProcessed.amount(),
                    transferProcessed.direction(),
                    transferProcessed.applied() == BooleanType.TRUE,
                    transferProcessed.timestampNs());
            }
            case MassCancelCompletedDecoder.TEMPLATE_ID ->
            {
                massCancelCompleted.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.MassCancelCompleted(
                    massCancelCompleted.accountId(),
                    massCancelCompleted.instrumentId(),
                    massCancelCompleted.side(),
                    massCancelCompleted.canceledCount(),
                    massCancelCompleted.timestampNs());
            }
            case AssetDefinedDecoder.TEMPLATE_ID ->
            {
                assetDefined.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.AssetDefined(
                    assetDefined.assetId(),
                    assetDefined.scale(),
                    assetDefined.symbol(),
                    assetDefined.timestampNs());
            }
            case InstrumentDefinedDecoder.TEMPLATE_ID ->
            {
                instrumentDefined.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.InstrumentDefined(
                    instrumentDefined.instrumentId(),
                    instrumentDefined.symbol(),
                    instrumentDefined.baseAssetId(),
                    instrumentDefined.quoteAssetId(),
                    instrumentDefined.priceScale(),
                    instrumentDefined.tickSize(),
                    instrumentDefined.quantityScale(),
                    instrumentDefined.lotSize(),
                    instrumentDefined.minQuantity(),
                    instrumentDefined.maxQuantity(),
                    instrumentDefined.priceBandBps(),
                    instrumentDefined.referencePrice(),
                    instrumentDefined.makerFeePpm(),
                    instrumentDefined.takerFeePpm(),
                    instrumentDefined.tradingState(),
                    instrumentDefined.timestampNs());
            }
            case TradingStateChangedDecoder.TEMPLATE_ID ->
            {
                tradingStateChanged.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.TradingStateChanged(
                    tradingStateChanged.instrumentId(),
                    tradingStateChanged.tradingState(),
                    tradingStateChanged.timestampNs());
            }
            case AccountLimitsChangedDecoder.TEMPLATE_ID ->
            {
                accountLimitsChanged.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.AccountLimitsChanged(
                    accountLimitsChanged.accountId(),
                    accountLimitsChanged.maxOrderQuantity(),
                    accountLimitsChanged.maxOrderNotional(),
                    accountLimitsChanged.maxOpenOrders(),
                    accountLimitsChanged.defaultSelfTradePrevention(),
                    accountLimitsChanged.timestampNs());
            }
            case AccountFeesChangedDecoder.TEMPLATE_ID ->
            {
                accountFeesChanged.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.AccountFeesChanged(
                    accountFeesChanged.accountId(),
                    accountFeesChanged.makerFeePpm(),
                    accountFeesChanged.takerFeePpm(),
                    accountFeesChanged.timestampNs());
            }
            case KillSwitchChangedDecoder.TEMPLATE_ID ->
            {
                killSwitchChanged.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.KillSwitchChanged(
                    killSwitchChanged.accountId(),
                    killSwitchChanged.active() == BooleanType.TRUE,
                    killSwitchChanged.timestampNs());
            }
            case CancelAllAfterChangedDecoder.TEMPLATE_ID ->
            {
                cancelAllAfterChanged.wrap(buffer, body, blockLength, version);
                yield new EventRecorder.CancelAllAfterChanged(
                    cancelAllAfterChanged.accountId(),
                    cancelAllAfterChanged.timeoutMs(),
                    cancelAllAfterChanged.deadlineNs(),
                    cancelAllAfterChanged.triggered() == BooleanType.TRUE,
                    cancelAllAfterChanged.canceledCount(),
                    cancelAllAfterChanged.timestampNs());
            }
                default -> throw new AssertionError("not an event template " + header.templateId());
            };
            assertEquals(MessageHeaderDecoder.ENCODED_LENGTH + blockLength, length, "message length of " + event);
            return event;
        }
    }
}
