package io.bourse.gateway.http;

import io.bourse.protocol.CommandEncoder;
import org.agrona.MutableDirectBuffer;

/**
 * One engine command on its way from a request thread to the cluster and back: encoded and answered on the gateway
 * thread, completed on the request's own thread by {@link #complete}.
 */
interface Command
{
    /**
     * @return the length of the command encoded at offset 0.
     */
    int encode(CommandEncoder encoder, MutableDirectBuffer buffer);

    /**
     * Build the response from the answer, on the gateway thread (where the read model lives).
     *
     * @return the response body; throw {@link ApiException} for an error response.
     */
    Object answer(Answer answer, ReadModel model);

    /**
     * Deliver the outcome; called on the gateway thread, must hand over to the request's thread.
     */
    void complete(Object response, ApiException error);
}
