package io.bourse.cluster;

import org.agrona.collections.Long2LongHashMap;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RequestAdmissionTest
{
    private static final long CLIENT = 7;
    private static final long OTHER_CLIENT = 8;

    private final Long2LongHashMap lastRequestSequenceByClient = new Long2LongHashMap(0);

    @Test
    void aNewClientsFirstRequestIsOne()
    {
        assertEquals(RequestAdmission.OUT_OF_SEQUENCE, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 2));
        assertEquals(RequestAdmission.NEXT, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 1));
    }

    @Test
    void theNextRequestIsAppliedAndRecorded()
    {
        admitInOrder(CLIENT, 3);

        assertEquals(RequestAdmission.NEXT, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 4));
        assertEquals(4, lastRequestSequenceByClient.get(CLIENT));
    }

    @Test
    void anEarlierRequestIsARetryAndChangesNothing()
    {
        admitInOrder(CLIENT, 3);

        assertEquals(RequestAdmission.APPLIED_BEFORE, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 3));
        assertEquals(RequestAdmission.APPLIED_BEFORE, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 1));
        assertEquals(3, lastRequestSequenceByClient.get(CLIENT));
    }

    @Test
    void aRequestPastAMissingOneIsRefusedAndNotRecordedSoTheMissingOneIsStillApplied()
    {
        admitInOrder(CLIENT, 3);

        assertEquals(RequestAdmission.OUT_OF_SEQUENCE, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 5));
        assertEquals(3, lastRequestSequenceByClient.get(CLIENT));
        assertEquals(RequestAdmission.NEXT, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 4));
        assertEquals(RequestAdmission.NEXT, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 5));
    }

    @Test
    void eachClientIsNumberedOnItsOwn()
    {
        admitInOrder(CLIENT, 3);

        assertEquals(RequestAdmission.NEXT, RequestAdmission.admit(lastRequestSequenceByClient, OTHER_CLIENT, 1));
        assertEquals(RequestAdmission.NEXT, RequestAdmission.admit(lastRequestSequenceByClient, CLIENT, 4));
    }

    private void admitInOrder(final long clientId, final long upTo)
    {
        for (long sequence = 1; sequence <= upTo; sequence++)
        {
            assertEquals(RequestAdmission.NEXT, RequestAdmission.admit(lastRequestSequenceByClient, clientId, sequence));
        }
    }
}
