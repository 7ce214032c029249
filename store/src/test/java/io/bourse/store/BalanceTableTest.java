package io.bourse.store;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Every (account, asset) pair has an entry of its own, whatever the size of its ids: a key packing an account into
 * 44 bits and an asset into 20 once gave account 2^44 + 5 the balances of account 5.
 */
class BalanceTableTest
{
    @Test
    void pairsThatAPackedKeyWouldConfuseAreApart()
    {
        final BalanceTable table = new BalanceTable(2);
        final long[] small = table.getOrCreate(5, 1);
        final long[] large = table.getOrCreate((1L << 44) + 5, 1);
        final long[] otherAsset = table.getOrCreate(5, (1 << 20) + 1);
        assertNotSame(small, large);
        assertNotSame(small, otherAsset);
        assertSame(large, table.get((1L << 44) + 5, 1));
        assertEquals((1L << 44) + 5, large[BalanceTable.ACCOUNT_ID]);
        assertEquals((1 << 20) + 1, otherAsset[BalanceTable.ASSET_ID]);
        assertNull(table.get(Long.MAX_VALUE, Integer.MAX_VALUE));
        assertEquals(3, table.size());
    }

    @Test
    void agreesWithAMapOfPairs()
    {
        final long seed = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        final BalanceTable table = new BalanceTable(1);
        final Map<String, Long> reference = new HashMap<>();
        for (int i = 0; i < 200_000; i++)
        {
            final long accountId =
                1 + (random.nextBoolean() ? random.nextLong(1_000) : random.nextLong(Long.MAX_VALUE - 1));
            final int assetId = 1 + (random.nextBoolean() ? random.nextInt(8) : random.nextInt(Integer.MAX_VALUE - 1));
            final long value = random.nextLong();
            table.getOrCreate(accountId, assetId)[BalanceTable.FIRST_VALUE] = value;
            reference.put(accountId + "/" + assetId, value);
        }
        assertEquals(reference.size(), table.size(), "seed " + seed);
        for (final long[] entry : table.entries())
        {
            assertEquals(reference.get(entry[BalanceTable.ACCOUNT_ID] + "/" + entry[BalanceTable.ASSET_ID]),
                entry[BalanceTable.FIRST_VALUE], "seed " + seed);
        }
    }
}
