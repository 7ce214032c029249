package io.bourse.cluster;

import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.RequestEncoder;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RequestAdmissionTest
{
    private static final long CLIENT = 7;
    private static final long OTHER_CLIENT = 8;

    private final Long2LongHashMap lastRequestSequenceByClient = new Long2LongHashMap(0);

    @Test
    void aRequestIsOfThisSchemaAndTemplateWithExactlyItsBlockLength()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final int length = new RequestEncoder().wrapAndApplyHeader(buffer, 0, header).clientId(CLIENT)
            .requestSequence(1).encodedLength() + MessageHeaderEncoder.ENCODED_LENGTH;
        final MessageHeaderDecoder decoder = new MessageHeaderDecoder().wrap(buffer, 0);
        assertTrue(RequestAdmission.isRequest(decoder, length));
        assertFalse(RequestAdmission.isRequest(decoder, length - 1), "cut short");

        header.blockLength(RequestEncoder.BLOCK_LENGTH - 8);
        assertFalse(RequestAdmission.isRequest(decoder, length), "a shorter block");
        header.blockLength(RequestEncoder.BLOCK_LENGTH + 8);
        assertFalse(RequestAdmission.isRequest(decoder, length + 8), "a longer block: another schema version");
        header.blockLength(RequestEncoder.BLOCK_LENGTH).templateId(RequestEncoder.TEMPLATE_ID + 1);
        assertFalse(RequestAdmission.isRequest(decoder, length), "another template");
        header.templateId(RequestEncoder.TEMPLATE_ID).schemaId(RequestEncoder.SCHEMA_ID + 1);
        assertFalse(RequestAdmission.isRequest(decoder, length), "another schema");
    }

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
