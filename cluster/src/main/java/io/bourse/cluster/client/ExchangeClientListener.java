package io.bourse.cluster.client;

import io.bourse.protocol.cluster.IgnoredReason;
import org.agrona.DirectBuffer;

/**
 * What an {@link ExchangeClient} delivers, on the thread that calls {@link ExchangeClient#doWork()}.
 */
public interface ExchangeClientListener
{
    /**
     * The events of one command (or expiry timer), delivered exactly once and in log order.
     *
     * @param batchSequence   increases by one per batch.
     * @param logPosition     position of the command in the cluster log.
     * @param timestampNs     cluster time of the command.
     * @param clientId        the client that sent the command, 0 for a timer.
     * @param requestSequence the sender's request sequence.
     * @param buffer          holds the events: SBE engine event messages back to back, header first.
     * @param offset          of the first event.
     * @param length          of all the events.
     * @param eventCount      number of events.
     */
    void onEventBatch(
        long batchSequence,
        long logPosition,
        long timestampNs,
        long clientId,
        long requestSequence,
        DirectBuffer buffer,
        int offset,
        int length,
        int eventCount);

    /**
     * Batches after {@code fromLogPosition} were missed and are no longer held by the cluster: state derived from
     * the event stream must be rebuilt (for example by querying open orders). The batches delivered next go on from
     * the oldest the cluster still holds.
     *
     * @param renumbered false when the missed batches were dropped from the cluster's history and the numbering goes
     *                   on (a sequence seen before still compares with later ones); true when the cluster numbers
     *                   its batches afresh (it is not the one a resumed position came from), so sequences seen before
     *                   no longer compare with the ones to come.
     */
    default void onGap(final long fromLogPosition, final boolean renumbered)
    {
    }

    /**
     * The cluster did not apply a request and could not re-send its original answer. (A request refused as
     * {@link IgnoredReason#OUT_OF_SEQUENCE} does not come here: the client sends it again itself.)
     */
    default void onRequestIgnored(final long requestSequence, final IgnoredReason reason)
    {
    }

    /**
     * Part of the answer to {@link ExchangeClient#requestState()}: engine snapshot records (engine schema), the
     * state after every batch up to {@code logPosition}. Chunks come in order, possibly with batches after that
     * position between them; chunk 0 starts an answer; a missing index means one was lost and the state must be asked
     * for again.
     *
     * @param logPosition the log position of the state request.
     * @param chunkIndex  0, 1, 2 … within one answer.
     * @param lastChunk   true for the final chunk.
     * @param totalLength of the joined payload.
     */
    default void onStateChunk(
        final long logPosition, final int chunkIndex, final boolean lastChunk, final long totalLength,
        final DirectBuffer buffer, final int offset, final int length)
    {
    }

    /**
     * Connected, or reconnected, to the cluster, whose leader is the given member.
     */
    default void onConnected(final int leaderMemberId)
    {
    }
}
