package io.bourse.cluster;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.protocol.cluster.IgnoredReason;
import org.agrona.DirectBuffer;

/**
 * Follows the answers to one client's own requests (its batches, or its requests refused): the highest request
 * sequence answered. Other clients' batches carry their own numbering and say nothing of this client's.
 */
public final class AnsweredRequests implements ExchangeClientListener
{
    private long clientId;
    private volatile long upTo;

    /**
     * A client whose answers this follows.
     */
    public ExchangeClient newClient(final ExchangeClient.Context context)
    {
        final ExchangeClient client = new ExchangeClient(context.listener(this));
        clientId = client.clientId();
        return client;
    }

    /**
     * @return the highest request sequence answered so far; any thread.
     */
    public long upTo()
    {
        return upTo;
    }

    public void onEventBatch(
        final long batchSequence, final long logPosition, final long timestampNs, final long clientId,
        final long requestSequence, final DirectBuffer buffer, final int offset, final int length,
        final int eventCount)
    {
        if (clientId == this.clientId)
        {
            upTo = Math.max(upTo, requestSequence);
        }
    }

    public void onRequestIgnored(final long requestSequence, final IgnoredReason reason)
    {
        upTo = Math.max(upTo, requestSequence);
    }
}
