package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Records are kept in the order they were added, each once the outbound stream is archived up to its position, and
 * none before: what a restart finds recorded is always a prefix of what the gateway did.
 */
class AfterArchiveTest
{
    private final AfterArchive afterArchive = new AfterArchive();
    private final List<String> kept = new ArrayList<>();
    private final AfterArchive.Keeper keeper = (type, session, first, second) ->
        kept.add(type + ":" + first + ":" + second);

    @Test
    void aRecordIsKeptOnceTheStreamIsArchivedUpToItsPosition()
    {
        afterArchive.add(100, 1, null, 7, 1);
        afterArchive.add(200, 2, null, 8, 0);
        afterArchive.add(200, 4, null, 7, 4_096);

        assertEquals(0, afterArchive.keep(99, keeper));
        assertEquals(1, afterArchive.keep(150, keeper));
        assertEquals(List.of("1:7:1"), kept);
        assertEquals(2, afterArchive.keep(200, keeper));
        assertEquals(List.of("1:7:1", "2:8:0", "4:7:4096"), kept);
        assertEquals(0, afterArchive.size());
    }

    @Test
    void aRecordWaitsForTheOnesBeforeIt()
    {
        afterArchive.add(300, 1, null, 1, 0);
        afterArchive.add(100, 1, null, 2, 0);
        assertEquals(0, afterArchive.keep(200, keeper), "the second is archived, the first is not");
        assertEquals(2, afterArchive.keep(300, keeper));
        assertEquals(List.of("1:1:0", "1:2:0"), kept);
    }

    @Test
    void moreRecordsThanItsFirstCapacityWaitInOrderAcrossTheRingsEnd()
    {
        for (int i = 0; i < 700; i++)
        {
            afterArchive.add(i, 1, null, i, 0);
        }
        assertEquals(700, afterArchive.keep(699, keeper));
        for (int i = 700; i < 3_000; i++)
        {
            afterArchive.add(i, 1, null, i, 0);
        }
        assertEquals(2_300, afterArchive.size());
        assertEquals(2_300, afterArchive.keep(Long.MAX_VALUE, keeper));
        for (int i = 0; i < 3_000; i++)
        {
            assertEquals("1:" + i + ":0", kept.get(i));
        }
    }
}
