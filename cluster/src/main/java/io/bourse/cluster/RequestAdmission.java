package io.bourse.cluster;

import io.bourse.protocol.cluster.MessageHeaderDecoder;
import io.bourse.protocol.cluster.RequestDecoder;
import org.agrona.collections.Long2LongHashMap;

/**
 * Which requests in the log are applied: each client's, once each, in the client's numbering, none skipped.
 * <p>
 * A client numbers its requests 1, 2, 3 … and sends them in that order, re-sending from its first unanswered one
 * after a reconnect or a leader change. Each session delivers in order, but a client can have more than one: a
 * client that reconnects has requests of its old session and of its new one in flight at once, and a session's
 * requests lost with a killed node leave a hole that only the client's re-send fills. The log's order is therefore
 * not taken on trust. A request whose predecessor is missing is not applied: applied, it would make the missing one
 * look like a retry of an applied request when it came, and drop it.
 * <p>
 * The cluster's service and every consumer that replays the log through an engine of its own (the post-trade store)
 * must decide alike, so both decide here.
 */
public final class RequestAdmission
{
    /**
     * The client's next request: apply it. It is recorded as the client's last applied one.
     */
    public static final int NEXT = 0;

    /**
     * Applied before: a retry, answered with its original batch.
     */
    public static final int APPLIED_BEFORE = 1;

    /**
     * One or more of the client's requests before it are missing: not applied, and not recorded.
     */
    public static final int OUT_OF_SEQUENCE = 2;

    private RequestAdmission()
    {
    }

    /**
     * Whether a session message in the log is a request at all: of this schema, the Request template, and exactly its
     * block length (another is of another schema version; a shorter one would be read past its end).
     *
     * @param header wrapping the message.
     * @param length the message's length, header included.
     */
    public static boolean isRequest(final MessageHeaderDecoder header, final int length)
    {
        return length >= MessageHeaderDecoder.ENCODED_LENGTH + RequestDecoder.BLOCK_LENGTH &&
            header.schemaId() == MessageHeaderDecoder.SCHEMA_ID && header.templateId() == RequestDecoder.TEMPLATE_ID &&
            header.blockLength() == RequestDecoder.BLOCK_LENGTH;
    }

    /**
     * Decide on a request, and record it as applied when it is the client's next one.
     *
     * @param lastRequestSequenceByClient the last request sequence applied per client id, 0 for none.
     * @return {@link #NEXT}, {@link #APPLIED_BEFORE} or {@link #OUT_OF_SEQUENCE}.
     */
    public static int admit(
        final Long2LongHashMap lastRequestSequenceByClient, final long clientId, final long requestSequence)
    {
        final long last = lastRequestSequenceByClient.get(clientId);
        if (requestSequence <= last)
        {
            return APPLIED_BEFORE;
        }
        if (requestSequence != last + 1)
        {
            return OUT_OF_SEQUENCE;
        }
        lastRequestSequenceByClient.put(clientId, requestSequence);
        return NEXT;
    }
}
