package io.bourse.app.journal;

import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.codecs.SessionMessageHeaderEncoder;
import io.bourse.protocol.cluster.BatchContinueEncoder;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.RequestEncoder;
import io.bourse.protocol.codec.DefineAssetEncoder;
import io.bourse.protocol.codec.NewOrderEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.cluster.StateContinueEncoder;
import io.bourse.protocol.cluster.StateHashCheckpointEncoder;
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

    @Test
    void aStateHashCheckpointIsNamedWithItsHashes()
    {
        final int length = new StateHashCheckpointEncoder()
            .wrapAndApplyHeader(buffer, AeronCluster.SESSION_HEADER_LENGTH, header)
            .logPosition(4_096).stateHash(-5).engineStateHash(17).memberId(2).encodedLength();
        assertDecoded(length, "StateHashCheckpoint", ",\"clusterSessionId\":3,\"logPosition\":4096," +
            "\"stateHash\":-5,\"engineStateHash\":17,\"memberId\":2");
    }

    @Test
    void symbolsAreStringsWhateverTheyHoldAndAShortBlockIsNotReadPastItsEnd()
    {
        final String session = ",\"clusterSessionId\":3,\"clientId\":7";
        assertDecoded(request(7, 1, "0700"), "DefineAsset",
            session + ",\"requestSequence\":1,\"symbol\":\"0700\",\"assetId\":9,\"scale\":2");
        assertDecoded(request(7, 2, "A|B=\"C"), "DefineAsset",
            session + ",\"requestSequence\":2,\"symbol\":\"A|B=\\\"C\",\"assetId\":9,\"scale\":2");

        final int highByte = request(7, 4, "ABCD");
        buffer.putByte(AeronCluster.SESSION_HEADER_LENGTH + MessageHeaderEncoder.ENCODED_LENGTH +
            RequestEncoder.BLOCK_LENGTH + io.bourse.protocol.codec.MessageHeaderEncoder.ENCODED_LENGTH +
            DefineAssetEncoder.symbolEncodingOffset() + 2, (byte)0xC3);
        assertDecoded(highByte, "DefineAsset",
            session + ",\"requestSequence\":4,\"symbol\":\"AB\",\"assetId\":9,\"scale\":2");

        final int badRequest = request(7, 5, "BTC");
        buffer.putShort(AeronCluster.SESSION_HEADER_LENGTH + MessageHeaderEncoder.blockLengthEncodingOffset(),
            (short)(RequestEncoder.BLOCK_LENGTH - 8), java.nio.ByteOrder.LITTLE_ENDIAN);
        assertDecoded(badRequest, "MalformedIngress", ",\"clusterSessionId\":3");

        final int length = request(7, 3, "BTC");
        buffer.putShort(AeronCluster.SESSION_HEADER_LENGTH + MessageHeaderEncoder.ENCODED_LENGTH +
            RequestEncoder.BLOCK_LENGTH + io.bourse.protocol.codec.MessageHeaderEncoder.blockLengthEncodingOffset(),
            (short)4, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertDecoded(length, "MalformedCommand", ",\"clusterSessionId\":3,\"clientId\":7,\"requestSequence\":3");
    }

    @Test
    void aStopPriceIsPrintedOnlyForCommandsOfAVersionThatCarriesOne()
    {
        final int commandOffset = AeronCluster.SESSION_HEADER_LENGTH + MessageHeaderEncoder.ENCODED_LENGTH +
            RequestEncoder.BLOCK_LENGTH;
        final String fields = ",\"clusterSessionId\":3,\"clientId\":7,\"requestSequence\":1,\"accountId\":3," +
            "\"clientOrderId\":1,\"instrumentId\":2,\"side\":\"BUY\",\"orderType\":\"LIMIT\"," +
            "\"timeInForce\":\"GTC\",\"postOnly\":\"FALSE\",\"selfTradePrevention\":\"CANCEL_AGGRESSOR\"," +
            "\"price\":9000,\"quantity\":1,\"quoteAmount\":0,\"expiryTimeNs\":0";
        new RequestEncoder().wrapAndApplyHeader(buffer, AeronCluster.SESSION_HEADER_LENGTH, header)
            .clientId(7).requestSequence(1);
        final int length = RequestEncoder.BLOCK_LENGTH + new CommandEncoder().newOrder(buffer, commandOffset, 3, 1, 2,
            Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false, SelfTradePrevention.CANCEL_AGGRESSOR, 9_000, 1, 0, 0,
            8_500);
        assertDecoded(length, "NewOrder", fields + ",\"stopPrice\":8500");

        new io.bourse.protocol.codec.MessageHeaderEncoder().wrap(buffer, commandOffset).version(2)
            .blockLength(NewOrderEncoder.stopPriceEncodingOffset());
        assertDecoded(length - Long.BYTES, "NewOrder", fields);
    }

    @Test
    void aCancelAllAfterIsNamedWithItsAccountAndTimeout()
    {
        new RequestEncoder().wrapAndApplyHeader(buffer, AeronCluster.SESSION_HEADER_LENGTH, header)
            .clientId(7).requestSequence(1);
        final int length = RequestEncoder.BLOCK_LENGTH + new CommandEncoder().setCancelAllAfter(buffer,
            AeronCluster.SESSION_HEADER_LENGTH + MessageHeaderEncoder.ENCODED_LENGTH + RequestEncoder.BLOCK_LENGTH, 3,
            30_000);
        assertDecoded(length, "SetCancelAllAfter",
            ",\"clusterSessionId\":3,\"clientId\":7,\"requestSequence\":1,\"accountId\":3,\"timeoutMs\":30000");
    }

    /**
     * @return the length after the cluster's message header of a Request carrying a DefineAsset of asset 9.
     */
    private int request(final long clientId, final long requestSequence, final String symbol)
    {
        final RequestEncoder request = new RequestEncoder()
            .wrapAndApplyHeader(buffer, AeronCluster.SESSION_HEADER_LENGTH, header)
            .clientId(clientId)
            .requestSequence(requestSequence);
        return request.encodedLength() + new CommandEncoder().defineAsset(buffer,
            AeronCluster.SESSION_HEADER_LENGTH + MessageHeaderEncoder.ENCODED_LENGTH + request.encodedLength(), 9, 2,
            symbol);
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
