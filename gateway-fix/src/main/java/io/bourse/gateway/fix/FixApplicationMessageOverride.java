package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.decoder.HeaderDecoder;
import org.agrona.DirectBuffer;
import uk.co.real_logic.artio.session.Session;

/**
 * Test-only: takes the application messages that passed the gateway's validation and that the gateway would
 * otherwise hand to the exchange (NewOrderSingle) or answer with a BusinessMessageReject as unsupported (the
 * message types in its dictionary that the exchange does not trade on: SecurityDefinition, Email), so that the
 * session layer can be run against a peer's acceptance definitions with an echo application. The other application
 * messages are answered with a BusinessMessageReject, as there is no exchange behind the gateway. Not reachable from
 * configuration.
 */
interface FixApplicationMessageOverride
{
    /**
     * @param session     the session the message came on.
     * @param messageType Artio's packed MsgType.
     * @param header      the message's decoded header (valid).
     * @param buffer      the whole FIX message, for echoing it.
     * @param offset      of the message.
     * @param length      of the message.
     */
    void onApplicationMessage(
        Session session, long messageType, HeaderDecoder header, DirectBuffer buffer, int offset, int length);
}
