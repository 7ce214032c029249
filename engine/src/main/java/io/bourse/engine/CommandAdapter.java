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
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.QueryOrderDecoder;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.ReplaceOrderDecoder;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.SetAccountFeesDecoder;
import io.bourse.protocol.codec.SetAccountLimitsDecoder;
import io.bourse.protocol.codec.SetCancelAllAfterDecoder;
import io.bourse.protocol.codec.SetKillSwitchDecoder;
import io.bourse.protocol.codec.SetTradingStateDecoder;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.WithdrawDecoder;
import org.agrona.DirectBuffer;

/**
 * Decodes SBE command messages and applies them to an {@link Engine}. Decoders are re-wrapped per message, so
 * decoding allocates nothing (admin commands with symbols excepted).
 */
public final class CommandAdapter
{
    // Enum fields are read raw and looked up here, so that a value outside the schema becomes the enum's
    // NULL_VAL, which the engine rejects with a specific reason (INVALID_SIDE, ...), instead of an exception.
    private static final Side[] SIDES = lookup(Side.values(), Side.NULL_VAL);
    private static final OrderType[] ORDER_TYPES = lookup(OrderType.values(), OrderType.NULL_VAL);
    private static final TimeInForce[] TIMES_IN_FORCE = lookup(TimeInForce.values(), TimeInForce.NULL_VAL);
    private static final SelfTradePrevention[] SELF_TRADE_PREVENTIONS =
        lookup(SelfTradePrevention.values(), SelfTradePrevention.NULL_VAL);
    private static final TradingState[] TRADING_STATES = lookup(TradingState.values(), TradingState.NULL_VAL);

    /**
     * The schema version that added stop orders: NewOrder's and ReplaceOrder's stop price.
     */
    private static final int STOP_ORDERS_VERSION = 3;

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
    private final SetAccountFeesDecoder setAccountFees = new SetAccountFeesDecoder();
    private final SetKillSwitchDecoder setKillSwitch = new SetKillSwitchDecoder();
    private final SetCancelAllAfterDecoder setCancelAllAfter = new SetCancelAllAfterDecoder();

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
     * {@link RejectReason#UNKNOWN_COMMAND} and returns false. An enum field with a value outside the schema
     * reaches the engine as the enum's NULL_VAL and is rejected with the field's own reason.
     */
    public boolean onCommand(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (length < MessageHeaderDecoder.ENCODED_LENGTH)
        {
            return unknown(nowNs);
        }
        header.wrap(buffer, offset);
        final int blockLength = header.blockLength();
        final int version = header.version();
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        // A block of another length than its version's is from another schema: decoding a shorter one would read the
        // bytes after the message, which a replay need not have the same.
        if (header.schemaId() != MessageHeaderDecoder.SCHEMA_ID ||
            blockLength != blockLength(header.templateId(), version) ||
            length - MessageHeaderDecoder.ENCODED_LENGTH < blockLength)
        {
            return unknown(nowNs);
        }

        switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID ->
            {
                final NewOrderDecoder d = newOrder.wrap(buffer, body, blockLength, version);
                if (d.postOnlyRaw() > BooleanType.TRUE.value())
                {
                    return unknown(nowNs);
                }
                engine.newOrder(
                    d.accountId(), d.clientOrderId(), d.instrumentId(), SIDES[d.sideRaw()], ORDER_TYPES[d.orderTypeRaw()],
                    TIMES_IN_FORCE[d.timeInForceRaw()], d.postOnlyRaw() == BooleanType.TRUE.value(),
                    SELF_TRADE_PREVENTIONS[d.selfTradePreventionRaw()], d.price(), d.quantity(),
                    d.quoteAmount(), d.expiryTimeNs(), version < STOP_ORDERS_VERSION ? 0 : d.stopPrice(), nowNs);
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
                    d.accountId(), d.orderId(), d.origClientOrderId(), d.newClientOrderId(), d.price(), d.quantity(),
                    version < STOP_ORDERS_VERSION ? 0 : d.stopPrice(), nowNs);
            }
            case MassCancelDecoder.TEMPLATE_ID ->
            {
                final MassCancelDecoder d = massCancel.wrap(buffer, body, blockLength, version);
                final short side = d.sideRaw();
                // Null means both sides here, so a value outside the schema must not become null.
                if (side != Side.NULL_VAL.value() && SIDES[side] == Side.NULL_VAL)
                {
                    engine.listener.onCommandRejected(
                        CommandType.MASS_CANCEL, RejectReason.INVALID_SIDE, d.accountId(), 0, 0, d.instrumentId(), nowNs);
                    return true;
                }
                engine.massCancel(d.accountId(), d.instrumentId(), SIDES[side], nowNs);
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
                    d.referencePrice(), d.makerFeePpm(), d.takerFeePpm(), TRADING_STATES[d.tradingStateRaw()], nowNs);
            }
            case SetTradingStateDecoder.TEMPLATE_ID ->
            {
                final SetTradingStateDecoder d = setTradingState.wrap(buffer, body, blockLength, version);
                engine.setTradingState(d.instrumentId(), TRADING_STATES[d.tradingStateRaw()], nowNs);
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
                    SELF_TRADE_PREVENTIONS[d.defaultSelfTradePreventionRaw()], nowNs);
            }
            case SetAccountFeesDecoder.TEMPLATE_ID ->
            {
                final SetAccountFeesDecoder d = setAccountFees.wrap(buffer, body, blockLength, version);
                engine.setAccountFees(d.accountId(), d.makerFeePpm(), d.takerFeePpm(), nowNs);
            }
            case SetKillSwitchDecoder.TEMPLATE_ID ->
            {
                final SetKillSwitchDecoder d = setKillSwitch.wrap(buffer, body, blockLength, version);
                if (d.activeRaw() > BooleanType.TRUE.value())
                {
                    return unknown(nowNs);
                }
                engine.setKillSwitch(d.accountId(), d.activeRaw() == BooleanType.TRUE.value(), nowNs);
            }
            case SetCancelAllAfterDecoder.TEMPLATE_ID ->
            {
                final SetCancelAllAfterDecoder d = setCancelAllAfter.wrap(buffer, body, blockLength, version);
                engine.setCancelAllAfter(d.accountId(), d.timeoutMs(), nowNs);
            }
            default ->
            {
                return unknown(nowNs);
            }
        }
        return true;
    }

    /**
     * @return the block length of the command with the template id at the schema version, or -1 when it is not a
     * command of that version: a message with another is not applied (it is of another schema, or would be read past
     * its end). Versions before 3 had no stop orders: their NewOrder and ReplaceOrder end before the stop price.
     */
    public static int blockLength(final int templateId, final int version)
    {
        if (version > NewOrderDecoder.SCHEMA_VERSION)
        {
            return -1;
        }
        final boolean beforeStops = version < STOP_ORDERS_VERSION;
        return switch (templateId)
        {
            case NewOrderDecoder.TEMPLATE_ID ->
                beforeStops ? NewOrderDecoder.stopPriceEncodingOffset() : NewOrderDecoder.BLOCK_LENGTH;
            case CancelOrderDecoder.TEMPLATE_ID -> CancelOrderDecoder.BLOCK_LENGTH;
            case ReplaceOrderDecoder.TEMPLATE_ID ->
                beforeStops ? ReplaceOrderDecoder.stopPriceEncodingOffset() : ReplaceOrderDecoder.BLOCK_LENGTH;
            case MassCancelDecoder.TEMPLATE_ID -> MassCancelDecoder.BLOCK_LENGTH;
            case QueryOrderDecoder.TEMPLATE_ID -> QueryOrderDecoder.BLOCK_LENGTH;
            case ExpireOrdersDecoder.TEMPLATE_ID -> ExpireOrdersDecoder.BLOCK_LENGTH;
            case DefineAssetDecoder.TEMPLATE_ID -> DefineAssetDecoder.BLOCK_LENGTH;
            case DefineInstrumentDecoder.TEMPLATE_ID -> DefineInstrumentDecoder.BLOCK_LENGTH;
            case SetTradingStateDecoder.TEMPLATE_ID -> SetTradingStateDecoder.BLOCK_LENGTH;
            case DepositDecoder.TEMPLATE_ID -> DepositDecoder.BLOCK_LENGTH;
            case WithdrawDecoder.TEMPLATE_ID -> WithdrawDecoder.BLOCK_LENGTH;
            case SetAccountLimitsDecoder.TEMPLATE_ID -> SetAccountLimitsDecoder.BLOCK_LENGTH;
            case SetKillSwitchDecoder.TEMPLATE_ID -> SetKillSwitchDecoder.BLOCK_LENGTH;
            case SetCancelAllAfterDecoder.TEMPLATE_ID -> SetCancelAllAfterDecoder.BLOCK_LENGTH;
            case SetAccountFeesDecoder.TEMPLATE_ID -> SetAccountFeesDecoder.BLOCK_LENGTH;
            default -> -1;
        };
    }

    private static <E extends Enum<E>> E[] lookup(final E[] values, final E nullValue)
    {
        final E[] table = java.util.Arrays.copyOf(values, 256);
        java.util.Arrays.fill(table, nullValue);
        for (final E value : values)
        {
            table[rawValue(value)] = value;
        }
        return table;
    }

    private static int rawValue(final Enum<?> value)
    {
        return switch (value)
        {
            case Side side -> side.value();
            case OrderType orderType -> orderType.value();
            case TimeInForce timeInForce -> timeInForce.value();
            case SelfTradePrevention mode -> mode.value();
            case TradingState state -> state.value();
            default -> throw new IllegalArgumentException("no raw value for " + value);
        };
    }

    private boolean unknown(final long nowNs)
    {
        engine.listener.onCommandRejected(CommandType.NULL_VAL, RejectReason.UNKNOWN_COMMAND, 0, 0, 0, 0, nowNs);
        return false;
    }
}
