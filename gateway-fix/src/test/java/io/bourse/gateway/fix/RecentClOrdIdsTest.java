package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's recent ClOrdIDs stay within their limit, the oldest going first, and one used again is not counted
 * twice; kept in a file, they are read back by the next run, up to its own limit, and a cleared set stays cleared.
 */
class RecentClOrdIdsTest
{
    @Test
    void keepsTheMostRecentUpToItsCapacity()
    {
        final RecentClOrdIds recent = new RecentClOrdIds(3);
        recent.add(1);
        recent.add(2);
        recent.add(2);
        recent.add(3);
        assertEquals(3, recent.size(), "one used again is kept once");
        recent.add(4);
        assertEquals(3, recent.size());
        assertFalse(recent.contains(1), "the oldest went");
        assertTrue(recent.contains(2) && recent.contains(3) && recent.contains(4));
        for (long hash = 5; hash < 1_000; hash++)
        {
            recent.add(hash);
            assertEquals(3, recent.size());
        }
        assertTrue(recent.contains(997) && recent.contains(998) && recent.contains(999));
        assertFalse(recent.contains(996));
    }

    @Test
    void keptInAFileTheyAreReadBackByTheNextRun(@TempDir final File dir)
    {
        final File file = new File(dir, "session-ALICE-clordids.dat");
        try (RecentClOrdIds recent = new RecentClOrdIds(100))
        {
            recent.keepIn(file, Long.MIN_VALUE, 1_000);
            for (long hash = 1; hash <= 250; hash++)
            {
                recent.add(hash);
            }
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(100))
        {
            recent.keepIn(file, Long.MIN_VALUE, 1_000);
            assertEquals(100, recent.size());
            assertTrue(recent.contains(151) && recent.contains(250), "the most recent 100");
            assertFalse(recent.contains(150));
            recent.add(251);
            assertFalse(recent.contains(151), "the oldest read back goes first");
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, Long.MIN_VALUE, 1_000);
            assertEquals(10, recent.size(), "a smaller limit keeps the most recent of those read back");
            assertTrue(recent.contains(242) && recent.contains(251));
            assertFalse(recent.contains(241));
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, Long.MIN_VALUE, 1_000);
            assertTrue(recent.contains(242) && recent.contains(251), "the file was made again for the new limit");
            recent.clear(2_000);
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, Long.MIN_VALUE, 1_000);
            assertEquals(0, recent.size(), "cleared for a new trading day, and so after a restart");
            recent.add(7);
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, Long.MIN_VALUE, 1_000);
            assertEquals(1, recent.size());
            assertTrue(recent.contains(7));
        }
    }

    @Test
    void idsOfAnEarlierTradingDayAreNotReadBack(@TempDir final File dir)
    {
        final File file = new File(dir, "session-ALICE-clordids.dat");
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, Long.MIN_VALUE, 1_000);
            recent.add(1);
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, 1_000, 5_000);
            assertTrue(recent.contains(1), "the same trading day: it began when the file was made");
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, 4_000, 5_000);
            assertEquals(0, recent.size(), "an end of day passed while the gateway was down");
            recent.add(2);
        }
        try (RecentClOrdIds recent = new RecentClOrdIds(10))
        {
            recent.keepIn(file, 4_000, 6_000);
            assertEquals(1, recent.size(), "the new day's began when the file was cleared");
            assertTrue(recent.contains(2));
        }
    }
}
