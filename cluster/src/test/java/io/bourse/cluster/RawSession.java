package io.bourse.cluster;

import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.EgressListener;
import io.aeron.logbuffer.Header;
import io.bourse.protocol.cluster.BooleanType;
import io.bourse.protocol.cluster.EventBatchDecoder;
import io.bourse.protocol.cluster.IgnoredReason;
import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.MessageHeaderEncoder;
import io.bourse.protocol.cluster.RequestEncoder;
import io.bourse.protocol.cluster.RequestIgnoredDecoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * A bare Aeron Cluster session that sends hand-made requests, for tests of the service's protocol handling
 * (retries and gaps with chosen sequences, malformed input) below the {@link io.bourse.cluster.client.ExchangeClient}.
 */
final class RawSession implements AutoCloseable
{
    record Received(long logPosition, long clientId, long requestSequence, boolean resent, List<Integer> eventTemplateIds)
    {
    }

    record Ignored(long clientId, long requestSequence, IgnoredReason reason)
    {
    }

    private final AeronCluster cluster;
    private final List<Received> received = new ArrayList<>();
    private final List<Ignored> ignored = new ArrayList<>();
    private final ExpandableArrayBuffer sendBuffer = new ExpandableArrayBuffer(512);

    RawSession(final TestCluster testCluster)
    {
        cluster = AeronCluster.connect(new AeronCluster.Context()
            .aeronDirectoryName(testCluster.node(0).context().aeronDirectoryName())
            .ingressChannel("aeron:udp")
            .ingressEndpoints(testCluster.ingressEndpoints())
            .egressChannel("aeron:udp?endpoint=localhost:0")
            // Not Aeron's default, which exits the JVM (the whole test run) on a media driver timeout.
            .errorHandler(error -> System.err.println("raw session: " + error))
            .egressListener(new Listener()));
    }

    void sendRequest(final long clientId, final long requestSequence, final DirectBuffer command, final int length)
    {
        new RequestEncoder().wrapAndApplyHeader(sendBuffer, 0, new MessageHeaderEncoder())
            .clientId(clientId)
            .requestSequence(requestSequence);
        final int envelope = MessageHeaderEncoder.ENCODED_LENGTH + RequestEncoder.BLOCK_LENGTH;
        sendBuffer.putBytes(envelope, command, 0, length);
        TestCluster.await("request offered", () -> cluster.offer(sendBuffer, 0, envelope + length) > 0);
    }

    Received awaitBatch()
    {
        TestCluster.await("a batch", () ->
        {
            cluster.pollEgress();
            return !received.isEmpty();
        });
        return received.remove(0);
    }

    Ignored awaitIgnored()
    {
        TestCluster.await("a request ignored", () ->
        {
            cluster.pollEgress();
            return !ignored.isEmpty();
        });
        return ignored.remove(0);
    }

    public void close()
    {
        cluster.close();
    }

    private final class Listener implements EgressListener
    {
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
        private final io.bourse.protocol.codec.MessageHeaderDecoder eventHeader =
            new io.bourse.protocol.codec.MessageHeaderDecoder();
        private final EventBatchDecoder batch = new EventBatchDecoder();
        private final RequestIgnoredDecoder requestIgnored = new RequestIgnoredDecoder();

        public void onMessage(
            final long clusterSessionId, final long timestamp, final DirectBuffer buffer, final int offset,
            final int length, final Header aeronHeader)
        {
            header.wrap(buffer, offset);
            if (header.templateId() == RequestIgnoredDecoder.TEMPLATE_ID)
            {
                requestIgnored.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(),
                    header.version());
                ignored.add(new Ignored(requestIgnored.clientId(), requestIgnored.requestSequence(),
                    requestIgnored.reason()));
                return;
            }
            if (header.templateId() != EventBatchDecoder.TEMPLATE_ID)
            {
                return;
            }
            batch.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
            final List<Integer> templateIds = new ArrayList<>();
            int position = offset + MessageHeaderDecoder.ENCODED_LENGTH + EventBatchDecoder.BLOCK_LENGTH;
            for (int i = 0; i < batch.eventCount(); i++)
            {
                eventHeader.wrap(buffer, position);
                templateIds.add(eventHeader.templateId());
                position += MessageHeaderDecoder.ENCODED_LENGTH + eventHeader.blockLength();
            }
            received.add(new Received(batch.logPosition(), batch.clientId(), batch.requestSequence(),
                batch.resent() == BooleanType.TRUE, templateIds));
        }
    }
}
