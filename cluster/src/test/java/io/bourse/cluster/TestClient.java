package io.bourse.cluster;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.cluster.IgnoredReason;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.TradeDecoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Test client: sends engine commands through an {@link ExchangeClient} and keeps every batch it receives.
 */
final class TestClient implements ExchangeClientListener, AutoCloseable
{
    /**
     * A received batch: who caused it and the template ids of its events, in order.
     */
    record Batch(long batchSequence, long logPosition, long clientId, long requestSequence, List<Integer> templateIds)
    {
        long count(final int templateId)
        {
            return templateIds.stream().filter(id -> id == templateId).count();
        }
    }

    final CommandEncoder encoder = new CommandEncoder();
    final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
    final ExchangeClient client;
    final List<Batch> batches = new ArrayList<>();
    final Long2ObjectHashMap<Batch> answers = new Long2ObjectHashMap<>();
    final List<Long> answeredTwice = new ArrayList<>();

    /**
     * Calls of {@link #onConnected}: each session opened, and each new leader of an open one.
     */
    int connections;
    /**
     * Calls of {@link #onGap}: batches this client found it had missed.
     */
    int gaps;

    TestClient(final TestCluster cluster)
    {
        this(cluster, UnaryOperator.identity());
    }

    TestClient(final TestCluster cluster, final UnaryOperator<ExchangeClient.Context> customiser)
    {
        this(cluster.ingressEndpoints(), customiser);
    }

    /**
     * A client with the given context, such as a node's {@link ClusterNode#clientContext()}.
     */
    TestClient(final ExchangeClient.Context context)
    {
        client = new ExchangeClient(context.listener(this));
    }

    /**
     * A client of nodes this test did not start in its own JVM (a {@link NodeProcess}).
     */
    TestClient(final String ingressEndpoints, final UnaryOperator<ExchangeClient.Context> customiser)
    {
        client = new ExchangeClient(customiser.apply(new ExchangeClient.Context()
            .ingressEndpoints(ingressEndpoints)
            .listener(this)));
    }

    /**
     * Send the command just encoded into {@link #buffer} at offset 0.
     */
    long send(final int length)
    {
        final long sequence = client.trySend(buffer, 0, length);
        if (sequence < 0)
        {
            throw new AssertionError("client refused the command: too many unanswered");
        }
        return sequence;
    }

    void awaitConnected()
    {
        TestCluster.await("client connected", () ->
        {
            client.doWork();
            return client.isConnected();
        });
    }

    Batch awaitAnswer(final long requestSequence)
    {
        TestCluster.await("answer to request " + requestSequence, () ->
        {
            client.doWork();
            return answers.containsKey(requestSequence);
        });
        return answers.get(requestSequence);
    }

    void awaitAllAnswered()
    {
        TestCluster.await(() -> "all requests answered: " + this, () ->
        {
            client.doWork();
            return client.unansweredCount() == 0;
        });
    }

    long trades()
    {
        return batches.stream().mapToLong(batch -> batch.count(TradeDecoder.TEMPLATE_ID)).sum();
    }

    public void onEventBatch(
        final long batchSequence,
        final long logPosition,
        final long timestampNs,
        final long clientId,
        final long requestSequence,
        final DirectBuffer eventBuffer,
        final int offset,
        final int length,
        final int eventCount)
    {
        final Batch batch = new Batch(
            batchSequence, logPosition, clientId, requestSequence, templateIds(eventBuffer, offset, length, eventCount));
        batches.add(batch);
        if (clientId == client.clientId())
        {
            if (answers.put(requestSequence, batch) != null)
            {
                answeredTwice.add(requestSequence);
            }
        }
    }

    /**
     * The template ids of a batch's events, in order, checking that they fill the batch exactly.
     */
    static List<Integer> templateIds(
        final DirectBuffer eventBuffer, final int offset, final int length, final int eventCount)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final List<Integer> templateIds = new ArrayList<>(eventCount);
        int position = offset;
        for (int i = 0; i < eventCount; i++)
        {
            header.wrap(eventBuffer, position);
            templateIds.add(header.templateId());
            position += MessageHeaderDecoder.ENCODED_LENGTH + header.blockLength();
        }
        if (position != offset + length)
        {
            throw new AssertionError("batch length " + length + " does not match its " + eventCount + " events");
        }
        return templateIds;
    }

    public void onConnected(final int leaderMemberId)
    {
        connections++;
        System.out.println("[client] connected, leader " + leaderMemberId + ": " + this);
    }

    public void onGap(final long fromLogPosition, final boolean renumbered)
    {
        gaps++;
        System.out.println("[client] gap after log position " + fromLogPosition + (renumbered ? ", renumbered" : "") +
            ": " + this);
    }

    public void onRequestIgnored(final long requestSequence, final IgnoredReason reason)
    {
        System.out.println("[client] request " + requestSequence + " ignored: " + reason + ": " + this);
    }

    public String toString()
    {
        return "client " + client.clientId() + " connected=" + client.isConnected() + " unanswered=" +
            client.unansweredCount() + " answers=" + answers.size() + " batches=" + batches.size() + " last batch " +
            (batches.isEmpty() ? "none" : batches.get(batches.size() - 1));
    }

    public void close()
    {
        client.close();
    }
}
