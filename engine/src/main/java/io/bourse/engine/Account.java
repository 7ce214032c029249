package io.bourse.engine;

import io.bourse.protocol.AccountDefaults;
import io.bourse.protocol.codec.SelfTradePrevention;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * A trading account: balances per asset split into available and reserved, risk limits, kill switch,
 * and its open orders by client order id.
 */
final class Account
{
    /**
     * An account fee rate that stands for the instrument's own.
     */
    static final int INSTRUMENT_FEE_RATE = -1;

    final long accountId;
    long[] available;
    long[] reserved;
    /** 0 = unlimited. */
    long maxOrderQuantity;
    /** In quote minor units of the instrument traded; 0 = unlimited. */
    long maxOrderNotional;
    /** 0 = unlimited. */
    int maxOpenOrders;
    SelfTradePrevention defaultSelfTradePrevention = AccountDefaults.SELF_TRADE_PREVENTION;
    boolean killSwitch;
    /**
     * The account's own fee rates on every instrument, in millionths of notional, or {@link #INSTRUMENT_FEE_RATE}.
     */
    int makerFeePpm = INSTRUMENT_FEE_RATE;
    int takerFeePpm = INSTRUMENT_FEE_RATE;
    /**
     * The cancel-all-after switch: the timeout it was armed with and when it triggers; both 0 while disarmed.
     */
    long cancelAllAfterTimeoutMs;
    long cancelAllAfterDeadlineNs;
    /**
     * The account's slot in the engine's queue of armed switches, -1 while disarmed.
     */
    int cancelAllAfterIndex = -1;
    final Long2ObjectHashMap<Order> openOrdersByClientOrderId = new Long2ObjectHashMap<>(8, 0.65f);

    Account(final long accountId, final int assetCount)
    {
        this.accountId = accountId;
        available = new long[assetCount];
        reserved = new long[assetCount];
    }

    void ensureAssets(final int assetCount)
    {
        if (available.length < assetCount)
        {
            available = java.util.Arrays.copyOf(available, assetCount);
            reserved = java.util.Arrays.copyOf(reserved, assetCount);
        }
    }

    int makerFeePpm(final Instrument instrument)
    {
        return makerFeePpm == INSTRUMENT_FEE_RATE ? instrument.makerFeePpm : makerFeePpm;
    }

    int takerFeePpm(final Instrument instrument)
    {
        return takerFeePpm == INSTRUMENT_FEE_RATE ? instrument.takerFeePpm : takerFeePpm;
    }

    /**
     * @return the highest rate the account pays on the instrument: what a buy's reservation holds for its fees.
     */
    int maxFeePpm(final Instrument instrument)
    {
        return Math.max(makerFeePpm(instrument), takerFeePpm(instrument));
    }

    SelfTradePrevention resolve(final SelfTradePrevention mode)
    {
        return mode == SelfTradePrevention.ACCOUNT_DEFAULT ? defaultSelfTradePrevention : mode;
    }
}
