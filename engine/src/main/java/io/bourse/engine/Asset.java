package io.bourse.engine;

/**
 * An asset balances are kept in, with the exchange-wide totals used to prove conservation.
 */
final class Asset
{
    final int assetId;
    /** Dense index into every account's balance arrays. */
    final int index;
    final int scale;
    String symbol;
    /** Deposits minus withdrawals. */
    long totalSupply;
    long feesCollected;

    Asset(final int assetId, final int index, final int scale, final String symbol)
    {
        this.assetId = assetId;
        this.index = index;
        this.scale = scale;
        this.symbol = symbol;
    }
}
