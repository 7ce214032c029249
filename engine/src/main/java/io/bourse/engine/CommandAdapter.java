package io.bourse.engine;

import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.CancelOrderDecoder;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.DefineAssetDecoder;
import io.bourse.protocol.codec.DefineInstrumentDecoder;
import io.bourse.protocol.codec.DepositDecoder;
import io.bourse.protocol.codec.ExpireOrdersDecoder;
import io.bourse.protocol.codec.MassCancelDecoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.NewOrderDecoder;
import io.bourse.protocol.codec.QueryOrderDecoder;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.ReplaceOrderDecoder;
import io.bourse.protocol.codec.SetAccountLimitsDecoder;
import io.bourse.protocol.codec.SetKillSwitchDecoder;
import io.bourse.protocol.codec.SetTradingStateDecoder;
import io.bourse.protocol.codec.WithdrawDecoder;
import org.agrona.DirectBuffer;

/**
 * Decodes SBE command messages and applies them to an {@link Engine}. Decoders are re-wrapped per message, so
 * decoding allocates nothing (admin commands with symbols excepted).
 */
public final class CommandAdapter
{
    private final Engine engine;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancelOrder = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replaceOrder = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final QueryOrderDecoder queryOrder = new QueryOrderDecoder();
    private final ExpireOrdersDecoder expireOrders = new ExpireOrdersDecoder();
    private final DefineAssetDecoder defineAsset = new DefineAssetDecoder();
    private final DefineInstrumentDecoder defineInstrument = new DefineInstrumentDecoder();
    private final SetTradingStateDecoder setTradingState = new SetTradingStateDecoder();
    private final DepositDecoder deposit = new DepositDecoder();
    private final WithdrawDecoder withdraw = new WithdrawDecoder();
    private final SetAccountLimitsDecoder setAccountLimits = new SetAccountLimitsDecoder();
    private final SetKillSwitchDecoder setKillSwitch = new SetKillSwitchDecoder();

    public CommandAdapter(final Engine engine)
    {
        this.engine = engine;
    }

    /**
     * Apply one command message.
     *
     * @param buffer  holding the message, header first.
     * @param offset  of the header.
     * @param length  of the message.
     * @param nowNs   the command's time (cluster time of the log entry).
     * @return true when the message was a known command; an unknown or short message is answered with
     * {@link RejectReason#UNKNOWN_COMMAND} and returns false.
     */
    public boolean onCommand(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        try
        {
            return decodeAndApply(buffer, offset, length, nowNs);
        }
        catch (final IllegalArgumentException ex)
        {
            // A garbled enum field: the SBE decoder throws while the arguments are read, before the engine is
            // called, so nothing has changed. A log entry must never stop the service that applies it.
            return unknown(nowNs);
        }
    }

    private boolean decodeAndApply(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (length < MessageHeaderDecoder.ENCODED_LENGTH)
        {
            return unknown(nowNs);
        }
        header.wrap(buffer, offset);
        final int blockLength = header.blockLength();
        final int version = header.version();
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        if (header.schemaId() != MessageHeaderDecoder.SCHEMA_ID || length - MessageHeaderDecoder.ENCODED_LENGTH < blockLength)
        {
            return unknown(nowNs);
        }

        switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID ->
            {
                final NewOrderDecoder d = newOrder.wrap(buffer, body, blockLength, version);
                engine.newOrder(
                    d.accountId(), d.clientOrderId(), d.instrumentId(), d.side(), d.orderType(), d.timeInForce(),
                    d.postOnly() == BooleanType.TRUE, d.selfTradePrevention(), d.price(), d.quantity(),
                    d.quoteAmount(), d.expiryTimeNs(), nowNs);
            }
            case CancelOrderDecoder.TEMPLATE_ID ->
            {
                final CancelOrderDecoder d = cancelOrder.wrap(buffer, body, blockLength, version);
                engine.cancelOrder(d.accountId(), d.orderId(), d.clientOrderId(), nowNs);
            }
            case ReplaceOrderDecoder.TEMPLATE_ID ->
            {
                final ReplaceOrderDecoder d = replaceOrder.wrap(buffer, body, blockLength, version);
                engine.replaceOrder(
                    d.accountId(), d.orderId(), d.origClientOrderId(), d.newClientOrderId(), d.price(), d.quantity(), nowNs);
            }
            case MassCancelDecoder.TEMPLATE_ID ->
            {
                final MassCancelDecoder d = massCancel.wrap(buffer, body, blockLength, version);
                engine.massCancel(d.accountId(), d.instrumentId(), d.side(), nowNs);
            }
            case QueryOrderDecoder.TEMPLATE_ID ->
            {
                final QueryOrderDecoder d = queryOrder.wrap(buffer, body, blockLength, version);
                engine.queryOrder(d.accountId(), d.orderId(), d.clientOrderId(), nowNs);
            }
            case ExpireOrdersDecoder.TEMPLATE_ID ->
            {
                expireOrders.wrap(buffer, body, blockLength, version);
                engine.expireOrders(nowNs);
            }
            case DefineAssetDecoder.TEMPLATE_ID ->
            {
                final DefineAssetDecoder d = defineAsset.wrap(buffer, body, blockLength, version);
                engine.defineAsset(d.assetId(), d.scale(), d.symbol().trim(), nowNs);
            }
            case DefineInstrumentDecoder.TEMPLATE_ID ->
            {
                final DefineInstrumentDecoder d = defineInstrument.wrap(buffer, body, blockLength, version);
                engine.defineInstrument(
                    d.instrumentId(), d.symbol().trim(), d.baseAssetId(), d.quoteAssetId(), d.priceScale(), d.tickSize(),
                    d.quantityScale(), d.lotSize(), d.minQuantity(), d.maxQuantity(), d.priceBandBps(),
                    d.referencePrice(), d.makerFeePpm(), d.takerFeePpm(), d.tradingState(), nowNs);
            }
            case SetTradingStateDecoder.TEMPLATE_ID ->
            {
                final SetTradingStateDecoder d = setTradingState.wrap(buffer, body, blockLength, version);
                engine.setTradingState(d.instrumentId(), d.tradingState(), nowNs);
            }
            case DepositDecoder.TEMPLATE_ID ->
            {
                final DepositDecoder d = deposit.wrap(buffer, body, blockLength, version);
                engine.deposit(d.transactionId(), d.accountId(), d.assetId(), d.amount(), nowNs);
            }
            case WithdrawDecoder.TEMPLATE_ID ->
            {
                final WithdrawDecoder d = withdraw.wrap(buffer, body, blockLength, version);
                engine.withdraw(d.transactionId(), d.accountId(), d.assetId(), d.amount(), nowNs);
            }
            case SetAccountLimitsDecoder.TEMPLATE_ID ->
            {
                final SetAccountLimitsDecoder d = setAccountLimits.wrap(buffer, body, blockLength, version);
                engine.setAccountLimits(
                    d.accountId(), d.maxOrderQuantity(), d.maxOrderNotional(), d.maxOpenOrders(),
                    d.defaultSelfTradePrevention(), nowNs);
            }
            case SetKillSwitchDecoder.TEMPLATE_ID ->
            {
                final SetKillSwitchDecoder d = setKillSwitch.wrap(buffer, body, blockLength, version);
                engine.setKillSwitch(d.accountId(), d.active() == BooleanType.TRUE, nowNs);
            }
            default ->
            {
                return unknown(nowNs);
            }
        }
        return true;
    }

    private boolean unknown(final long nowNs)
    {
        engine.listener.onCommandRejected(CommandType.NULL_VAL, RejectReason.UNKNOWN_COMMAND, 0, 0, 0, 0, nowNs);
        return false;
    }
}
