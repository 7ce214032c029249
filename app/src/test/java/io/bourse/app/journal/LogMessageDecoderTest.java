package io.bourse.app.journal;

import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.codecs.SessionMessageHeaderEncoder;
import io.bourse.protocol.cluster.BatchContinueEncoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.StateContinueEncoder;
import io.bourse.protocol.cluster.StateRequestEncoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The journal tools name every ingress message the exchange's clients send, the ones that carry no engine command
 * included: a journal holds the state requests of gateways and their asks for the next round of an answer.
 */
class LogMessageDecoderTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final LogMessageDecoder decoder = new LogMessageDecoder();

    @Test
    void stateRequestsAndAsksForTheNextRoundAreNamedWithTheirFields()
    {
        int length = new StateRequestEncoder().wrapAndApplyHeader(buffer, AeronCluster.SESSION_HEADER_LENGTH, header)
            .clientId(7).encodedLength();
        assertDecoded(length, "StateRequest", ",\"clusterSessionId\":3,\"clientId\":7");

        length = new StateContinueEncoder().wrapAndApplyHeader(buffer, AeronCluster.SESSION_HEADER_LENGTH, header)
            .clientId(7).logPosition(123_456).fromChunkIndex(128).encodedLength();
        assertDecoded(length, "StateContinue",
            ",\"clusterSessionId\":3,\"clientId\":7,\"logPosition\":123456,\"fromChunkIndex\":128");

        length = new BatchContinueEncoder().wrapAndApplyHeader(buffer, AeronCluster.SESSION_HEADER_LENGTH, header)
            .clientId(7).batchSequence(99).fromPartIndex(256).encodedLength();
        assertDecoded(length, "BatchContinue",
            ",\"clusterSessionId\":3,\"clientId\":7,\"batchSequence\":99,\"fromPartIndex\":256");
    }

    private void assertDecoded(final int bodyLength, final String type, final String json)
    {
        new SessionMessageHeaderEncoder()
            .wrapAndApplyHeader(buffer, 0, new io.aeron.cluster.codecs.MessageHeaderEncoder())
            .leadershipTermId(1)
            .clusterSessionId(3)
            .timestamp(1_000);
        decoder.decode(buffer, 0, AeronCluster.SESSION_HEADER_LENGTH + MessageHeaderEncoder.ENCODED_LENGTH + bodyLength);
        assertEquals(type, decoder.type());
        assertEquals(1_000, decoder.timestamp());
        final StringBuilder fields = new StringBuilder();
        decoder.appendJson(fields);
        assertEquals(json, fields.toString());
    }
}
