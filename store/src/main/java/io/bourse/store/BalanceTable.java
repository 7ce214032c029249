package io.bourse.store;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.Collection;

/**
 * Figures per (account, asset), for any account id (a long) and asset id (an int): entries are keyed by a hash of the
 * pair, keep the pair, and a lookup probes past an entry of another pair with the same hash. An entry is
 * {@code [accountId, assetId, value 0, value 1, …]}; entries are never removed but all at once.
 */
final class BalanceTable
{
    static final int ACCOUNT_ID = 0;
    static final int ASSET_ID = 1;
    static final int FIRST_VALUE = 2;

    private final Long2ObjectHashMap<long[]> entries = new Long2ObjectHashMap<>();
    private final int values;

    /**
     * @param values how many figures each entry holds.
     */
    BalanceTable(final int values)
    {
        this.values = values;
    }

    /**
     * @return the pair's entry, or null when it has none.
     */
    long[] get(final long accountId, final int assetId)
    {
        for (long key = hash(accountId, assetId); ; key++)
        {
            final long[] entry = entries.get(key);
            if (entry == null || (entry[ACCOUNT_ID] == accountId && entry[ASSET_ID] == assetId))
            {
                return entry;
            }
        }
    }

    /**
     * @return the pair's entry, made with its figures 0 when it had none.
     */
    long[] getOrCreate(final long accountId, final int assetId)
    {
        for (long key = hash(accountId, assetId); ; key++)
        {
            long[] entry = entries.get(key);
            if (entry == null)
            {
                entry = new long[FIRST_VALUE + values];
                entry[ACCOUNT_ID] = accountId;
                entry[ASSET_ID] = assetId;
                entries.put(key, entry);
                return entry;
            }
            if (entry[ACCOUNT_ID] == accountId && entry[ASSET_ID] == assetId)
            {
                return entry;
            }
        }
    }

    int size()
    {
        return entries.size();
    }

    Collection<long[]> entries()
    {
        return entries.values();
    }

    void clear()
    {
        entries.clear();
    }

    private static long hash(final long accountId, final int assetId)
    {
        long h = accountId * 0x9E3779B97F4A7C15L + assetId;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        return h ^ (h >>> 33);
    }
}
