package io.bourse.protocol;

import io.bourse.protocol.codec.SelfTradePrevention;

/**
 * What a new account has until the exchange is told otherwise: part of the protocol, since those who follow the
 * engine's events (the gateways) learn an account's limits only once they change.
 */
public final class AccountDefaults
{
    /**
     * The self-trade prevention of an account that has not set its own (and what setting ACCOUNT_DEFAULT sets). A new
     * account has no limits (0) and its kill switch off.
     */
    public static final SelfTradePrevention SELF_TRADE_PREVENTION = SelfTradePrevention.CANCEL_AGGRESSOR;

    private AccountDefaults()
    {
    }
}
