package io.bourse.protocol;

import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.CancelOrderEncoder;
import io.bourse.protocol.codec.DefineAssetEncoder;
import io.bourse.protocol.codec.DefineInstrumentEncoder;
import io.bourse.protocol.codec.DepositEncoder;
import io.bourse.protocol.codec.ExpireOrdersEncoder;
import io.bourse.protocol.codec.MassCancelEncoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.NewOrderEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.QueryOrderEncoder;
import io.bourse.protocol.codec.ReplaceOrderEncoder;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.SetAccountFeesEncoder;
import io.bourse.protocol.codec.SetAccountLimitsEncoder;
import io.bourse.protocol.codec.SetCancelAllAfterEncoder;
import io.bourse.protocol.codec.SetKillSwitchEncoder;
import io.bourse.protocol.codec.SetTradingStateEncoder;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import io.bourse.protocol.codec.WithdrawEncoder;
import org.agrona.MutableDirectBuffer;

/**
 * Encodes engine commands as SBE messages: one method per engine command, with the engine's parameters (minus
 * the time, which the cluster supplies). Each writes the message, header first, at {@code offset} and returns its
 * length. Encoders are re-used, so encoding allocates nothing; not thread safe.
 */
public final class CommandEncoder
{
    private static final int HEADER = MessageHeaderEncoder.ENCODED_LENGTH;

    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final NewOrderEncoder newOrder = new NewOrderEncoder();
    private final CancelOrderEncoder cancelOrder = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replaceOrder = new ReplaceOrderEncoder();
    private final MassCancelEncoder massCancel = new MassCancelEncoder();
    private final QueryOrderEncoder queryOrder = new QueryOrderEncoder();
    private final ExpireOrdersEncoder expireOrders = new ExpireOrdersEncoder();
    private final DefineAssetEncoder defineAsset = new DefineAssetEncoder();
    private final DefineInstrumentEncoder defineInstrument = new DefineInstrumentEncoder();
    private final SetTradingStateEncoder setTradingState = new SetTradingStateEncoder();
    private final DepositEncoder deposit = new DepositEncoder();
    private final WithdrawEncoder withdraw = new WithdrawEncoder();
    private final SetAccountLimitsEncoder setAccountLimits = new SetAccountLimitsEncoder();
    private final SetAccountFeesEncoder setAccountFees = new SetAccountFeesEncoder();
    private final SetKillSwitchEncoder setKillSwitch = new SetKillSwitchEncoder();
    private final SetCancelAllAfterEncoder setCancelAllAfter = new SetCancelAllAfterEncoder();

    public int newOrder(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final long clientOrderId,
        final int instrumentId, final Side side, final OrderType orderType, final TimeInForce timeInForce,
        final boolean postOnly, final SelfTradePrevention selfTradePrevention, final long price, final long quantity,
        final long quoteAmount, final long expiryTimeNs, final long stopPrice)
    {
        newOrder.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .clientOrderId(clientOrderId)
            .instrumentId(instrumentId)
            .side(side)
            .orderType(orderType)
            .timeInForce(timeInForce)
            .postOnly(postOnly ? BooleanType.TRUE : BooleanType.FALSE)
            .selfTradePrevention(selfTradePrevention)
            .price(price)
            .quantity(quantity)
            .quoteAmount(quoteAmount)
            .expiryTimeNs(expiryTimeNs)
            .stopPrice(stopPrice);
        return HEADER + newOrder.encodedLength();
    }

    /**
     * A GTC limit order with the account's default STP mode.
     */
    public int limit(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final long clientOrderId,
        final int instrumentId, final Side side, final long price, final long quantity)
    {
        return newOrder(buffer, offset, accountId, clientOrderId, instrumentId, side, OrderType.LIMIT, TimeInForce.GTC,
            false, SelfTradePrevention.ACCOUNT_DEFAULT, price, quantity, 0, 0, 0);
    }

    public int cancelOrder(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final long orderId,
        final long clientOrderId)
    {
        cancelOrder.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .orderId(orderId)
            .clientOrderId(clientOrderId);
        return HEADER + cancelOrder.encodedLength();
    }

    public int replaceOrder(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final long orderId,
        final long origClientOrderId, final long newClientOrderId, final long price, final long quantity,
        final long stopPrice)
    {
        replaceOrder.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .orderId(orderId)
            .origClientOrderId(origClientOrderId)
            .newClientOrderId(newClientOrderId)
            .price(price)
            .quantity(quantity)
            .stopPrice(stopPrice);
        return HEADER + replaceOrder.encodedLength();
    }

    public int massCancel(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final int instrumentId, final Side side)
    {
        massCancel.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .instrumentId(instrumentId)
            .side(side);
        return HEADER + massCancel.encodedLength();
    }

    public int queryOrder(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final long orderId,
        final long clientOrderId)
    {
        queryOrder.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .orderId(orderId)
            .clientOrderId(clientOrderId);
        return HEADER + queryOrder.encodedLength();
    }

    public int expireOrders(final MutableDirectBuffer buffer, final int offset)
    {
        expireOrders.wrapAndApplyHeader(buffer, offset, header).reserved(0);
        return HEADER + expireOrders.encodedLength();
    }

    public int defineAsset(
        final MutableDirectBuffer buffer, final int offset, final int assetId, final int scale, final String symbol)
    {
        defineAsset.wrapAndApplyHeader(buffer, offset, header)
            .assetId(assetId)
            .scale((short)scale)
            .symbol(symbol);
        return HEADER + defineAsset.encodedLength();
    }

    public int defineInstrument(
        final MutableDirectBuffer buffer, final int offset, final int instrumentId, final String symbol,
        final int baseAssetId, final int quoteAssetId, final int priceScale, final long tickSize,
        final int quantityScale, final long lotSize, final long minQuantity, final long maxQuantity,
        final int priceBandBps, final long referencePrice, final int makerFeePpm, final int takerFeePpm,
        final TradingState tradingState)
    {
        defineInstrument.wrapAndApplyHeader(buffer, offset, header)
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
            .tradingState(tradingState);
        return HEADER + defineInstrument.encodedLength();
    }

    public int setTradingState(
        final MutableDirectBuffer buffer, final int offset, final int instrumentId, final TradingState tradingState)
    {
        setTradingState.wrapAndApplyHeader(buffer, offset, header)
            .instrumentId(instrumentId)
            .tradingState(tradingState);
        return HEADER + setTradingState.encodedLength();
    }

    public int deposit(
        final MutableDirectBuffer buffer, final int offset, final long transactionId, final long accountId,
        final int assetId, final long amount)
    {
        deposit.wrapAndApplyHeader(buffer, offset, header)
            .transactionId(transactionId)
            .accountId(accountId)
            .assetId(assetId)
            .amount(amount);
        return HEADER + deposit.encodedLength();
    }

    public int withdraw(
        final MutableDirectBuffer buffer, final int offset, final long transactionId, final long accountId,
        final int assetId, final long amount)
    {
        withdraw.wrapAndApplyHeader(buffer, offset, header)
            .transactionId(transactionId)
            .accountId(accountId)
            .assetId(assetId)
            .amount(amount);
        return HEADER + withdraw.encodedLength();
    }

    public int setAccountLimits(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final long maxOrderQuantity,
        final long maxOrderNotional, final int maxOpenOrders, final SelfTradePrevention defaultSelfTradePrevention)
    {
        setAccountLimits.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .maxOrderQuantity(maxOrderQuantity)
            .maxOrderNotional(maxOrderNotional)
            .maxOpenOrders(maxOpenOrders)
            .defaultSelfTradePrevention(defaultSelfTradePrevention);
        return HEADER + setAccountLimits.encodedLength();
    }

    /**
     * @param makerFeePpm the account's maker fee rate on every instrument, in millionths of notional; -1 for each
     *                    instrument's own.
     * @param takerFeePpm likewise for its taker fees.
     */
    public int setAccountFees(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final int makerFeePpm,
        final int takerFeePpm)
    {
        setAccountFees.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .makerFeePpm(makerFeePpm)
            .takerFeePpm(takerFeePpm);
        return HEADER + setAccountFees.encodedLength();
    }

    public int setKillSwitch(final MutableDirectBuffer buffer, final int offset, final long accountId, final boolean active)
    {
        setKillSwitch.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .active(active ? BooleanType.TRUE : BooleanType.FALSE);
        return HEADER + setKillSwitch.encodedLength();
    }

    /**
     * @param timeoutMs arm the account's dead man's switch for that long from the command's time; 0 disarms it.
     */
    public int setCancelAllAfter(
        final MutableDirectBuffer buffer, final int offset, final long accountId, final long timeoutMs)
    {
        setCancelAllAfter.wrapAndApplyHeader(buffer, offset, header)
            .accountId(accountId)
            .timeoutMs(timeoutMs);
        return HEADER + setCancelAllAfter.encodedLength();
    }
}
