package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.decoder.NewOrderSingleDecoder;
import org.agrona.DirectBuffer;
import uk.co.real_logic.artio.session.Session;

/**
 * Test-only: takes the NewOrderSingles that passed the gateway's validation instead of the exchange, so that the
 * session layer can be run against a peer's acceptance definitions with an echo application. Not reachable from
 * configuration.
 */
interface FixNewOrderOverride
{
    /**
     * @param session the session the order came on.
     * @param order   the decoded order (valid).
     * @param buffer  the whole FIX message, for echoing it.
     * @param offset  of the message.
     * @param length  of the message.
     */
    void onNewOrderSingle(Session session, NewOrderSingleDecoder order, DirectBuffer buffer, int offset, int length);
}
