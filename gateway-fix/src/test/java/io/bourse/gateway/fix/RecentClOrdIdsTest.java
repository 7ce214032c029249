package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's recent ClOrdIDs stay within their limit, the oldest going first, and one used again is not counted
 * twice.
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
}
