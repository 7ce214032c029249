package io.bourse.gateway.fix;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochNanoClock;
import uk.co.real_logic.artio.fields.EpochFractionFormat;
import uk.co.real_logic.artio.fields.RejectReason;
import uk.co.real_logic.artio.messages.CancelOnDisconnectOption;
import uk.co.real_logic.artio.messages.DisconnectReason;
import uk.co.real_logic.artio.protocol.GatewayPublication;
import uk.co.real_logic.artio.session.DirectSessionProxy;
import uk.co.real_logic.artio.session.SessionCustomisationStrategy;
import uk.co.real_logic.artio.session.SessionIdStrategy;

import java.nio.charset.StandardCharsets;

/**
 * Artio's session proxy (which sends the session-level messages Artio decides on itself), noting each ResendRequest
 * it sends ({@link ResendRequestNumbers}, for a count Artio misses), holding a disconnect until the Logout before it
 * is written ({@link DeferredDisconnects}), recording the number of every message before it is published
 * ({@link OutboundSequenceNumbers}, for a restart after a kill), with two corrections to the messages' content:
 * <ul>
 *     <li>A Reject for an invalid MsgType names the field at fault, RefTagID (371) = MsgType (35), as the gateway's
 *     own Reject for an unknown MsgType does; Artio leaves RefTagID out for the MsgTypes its parser refuses.</li>
 *     <li>A Logout for a SendingTime accuracy problem names the field in its Text ("..., field=52"): a Logout has
 *     no RefTagID, so the Text is the only place the peer can learn which time was out of range. Artio only logs
 *     out for that reason when SendingTime (52) is outside the window (a PossDup OrigSendingTime later than
 *     SendingTime gets a Reject, not a Logout).</li>
 * </ul>
 */
final class GatewaySessionProxy extends DirectSessionProxy implements DeferredDisconnects.Sender
{
    private static final int MSG_TYPE_TAG = 35;
    private static final byte[] SENDING_TIME_LOGOUT_TEXT =
        "SendingTime accuracy problem, field=52".getBytes(StandardCharsets.US_ASCII);

    /**
     * What a held disconnect answers in place of a publication position: not negative, so that Artio's session does
     * not retry it (its retry would come back here, and its reason would be lost).
     */
    private static final long HELD_DISCONNECT_POSITION = 0;

    private final ResendRequestNumbers resendRequestNumbers;
    private final DeferredDisconnects deferredDisconnects;
    private final OutboundSequenceNumbers outboundSequenceNumbers;
    private long connectionId;

    GatewaySessionProxy(
        final ResendRequestNumbers resendRequestNumbers,
        final DeferredDisconnects deferredDisconnects,
        final OutboundSequenceNumbers outboundSequenceNumbers,
        final int sessionBufferSize,
        final GatewayPublication gatewayPublication,
        final SessionIdStrategy sessionIdStrategy,
        final SessionCustomisationStrategy customisationStrategy,
        final EpochNanoClock clock,
        final long connectionId,
        final int libraryId,
        final ErrorHandler errorHandler,
        final EpochFractionFormat epochFractionPrecision)
    {
        super(sessionBufferSize, gatewayPublication, sessionIdStrategy, customisationStrategy, clock, connectionId,
            libraryId, errorHandler, epochFractionPrecision);
        this.resendRequestNumbers = resendRequestNumbers;
        this.deferredDisconnects = deferredDisconnects;
        this.outboundSequenceNumbers = outboundSequenceNumbers;
        this.connectionId = connectionId;
    }

    public void connectionId(final long connectionId)
    {
        super.connectionId(connectionId);
        this.connectionId = connectionId;
    }

    public long sendLogon(
        final int msgSeqNo,
        final int heartbeatIntervalInS,
        final String username,
        final String password,
        final boolean resetSeqNumFlag,
        final int sequenceIndex,
        final int lastMsgSeqNumProcessed,
        final CancelOnDisconnectOption cancelOnDisconnectOption,
        final int cancelOnDisconnectTimeoutWindowInMs)
    {
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        return super.sendLogon(msgSeqNo, heartbeatIntervalInS, username, password, resetSeqNumFlag, sequenceIndex,
            lastMsgSeqNumProcessed, cancelOnDisconnectOption, cancelOnDisconnectTimeoutWindowInMs);
    }

    public long sendResendRequest(
        final int msgSeqNo,
        final int beginSeqNo,
        final int endSeqNo,
        final int sequenceIndex,
        final int lastMsgSeqNumProcessed)
    {
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        final long position = super.sendResendRequest(msgSeqNo, beginSeqNo, endSeqNo, sequenceIndex,
            lastMsgSeqNumProcessed);
        if (position > 0)
        {
            resendRequestNumbers.onSent(connectionId, msgSeqNo);
        }
        return position;
    }

    public long sendReject(
        final int msgSeqNo,
        final int refSeqNum,
        final int refTagId,
        final char[] refMsgType,
        final int refMsgTypeLength,
        final int rejectReason,
        final int sequenceIndex,
        final int lastMsgSeqNumProcessed)
    {
        final int tag = rejectReason == RejectReason.INVALID_MSGTYPE.representation() && refTagId <= 0 ?
            MSG_TYPE_TAG : refTagId;
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        return super.sendReject(msgSeqNo, refSeqNum, tag, refMsgType, refMsgTypeLength, rejectReason,
            sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendLogout(
        final int msgSeqNo, final int sequenceIndex, final int rejectReason, final int lastMsgSeqNumProcessed)
    {
        if (rejectReason == RejectReason.SENDINGTIME_ACCURACY_PROBLEM.representation())
        {
            return sendLogout(msgSeqNo, sequenceIndex, lastMsgSeqNumProcessed, SENDING_TIME_LOGOUT_TEXT);
        }
        beforeLogout(sequenceIndex, msgSeqNo);
        return super.sendLogout(msgSeqNo, sequenceIndex, rejectReason, lastMsgSeqNumProcessed);
    }

    public long sendLogout(
        final int msgSeqNo, final int sequenceIndex, final int lastMsgSeqNumProcessed, final byte[] text)
    {
        beforeLogout(sequenceIndex, msgSeqNo);
        return super.sendLogout(msgSeqNo, sequenceIndex, lastMsgSeqNumProcessed, text);
    }

    public long sendLowSequenceNumberLogout(
        final int msgSeqNo,
        final int expectedSeqNo,
        final int receivedSeqNo,
        final int sequenceIndex,
        final int lastMsgSeqNumProcessed)
    {
        beforeLogout(sequenceIndex, msgSeqNo);
        return super.sendLowSequenceNumberLogout(msgSeqNo, expectedSeqNo, receivedSeqNo, sequenceIndex,
            lastMsgSeqNumProcessed);
    }

    public long sendIncorrectBeginStringLogout(
        final int msgSeqNo, final int sequenceIndex, final int lastMsgSeqNumProcessed)
    {
        beforeLogout(sequenceIndex, msgSeqNo);
        return super.sendIncorrectBeginStringLogout(msgSeqNo, sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendNegativeHeartbeatLogout(
        final int msgSeqNo, final int sequenceIndex, final int lastMsgSeqNumProcessed)
    {
        beforeLogout(sequenceIndex, msgSeqNo);
        return super.sendNegativeHeartbeatLogout(msgSeqNo, sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendReceivedMessageWithoutSequenceNumber(
        final int msgSeqNo, final int sequenceIndex, final int lastMsgSeqNumProcessed)
    {
        beforeLogout(sequenceIndex, msgSeqNo);
        return super.sendReceivedMessageWithoutSequenceNumber(msgSeqNo, sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendRejectWhilstNotLoggedOn(
        final int msgSeqNo, final RejectReason reason, final int sequenceIndex, final int lastMsgSeqNumProcessed)
    {
        beforeLogout(sequenceIndex, msgSeqNo);
        return super.sendRejectWhilstNotLoggedOn(msgSeqNo, reason, sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendHeartbeat(final int msgSeqNo, final int sequenceIndex, final int lastMsgSeqNumProcessed)
    {
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        return super.sendHeartbeat(msgSeqNo, sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendHeartbeat(
        final int msgSeqNo,
        final char[] testReqId,
        final int testReqIdLength,
        final int sequenceIndex,
        final int lastMsgSeqNumProcessed)
    {
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        return super.sendHeartbeat(msgSeqNo, testReqId, testReqIdLength, sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendTestRequest(
        final int msgSeqNo, final CharSequence testReqID, final int sequenceIndex, final int lastMsgSeqNumProcessed)
    {
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        return super.sendTestRequest(msgSeqNo, testReqID, sequenceIndex, lastMsgSeqNumProcessed);
    }

    public long sendSequenceReset(
        final int msgSeqNo, final int newSeqNo, final int sequenceIndex, final int lastMsgSeqNumProcessed)
    {
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        return super.sendSequenceReset(msgSeqNo, newSeqNo, sequenceIndex, lastMsgSeqNumProcessed);
    }

    /**
     * A Logout is about to be published: its number recorded, and the disconnect after it held until it is written.
     */
    private void beforeLogout(final int sequenceIndex, final int msgSeqNo)
    {
        outboundSequenceNumbers.beforeSend(connectionId, sequenceIndex, msgSeqNo);
        deferredDisconnects.expectLogout(connectionId, msgSeqNo);
    }

    /**
     * A disconnect right after a Logout still unwritten is held ({@link DeferredDisconnects}); Artio's session takes
     * the connection as closed either way.
     */
    public long sendRequestDisconnect(final long connectionId, final DisconnectReason reason)
    {
        if (deferredDisconnects.defer(this, connectionId, reason))
        {
            return HELD_DISCONNECT_POSITION;
        }
        return super.sendRequestDisconnect(connectionId, reason);
    }

    public long sendDeferredDisconnect(final long connectionId, final DisconnectReason reason)
    {
        return super.sendRequestDisconnect(connectionId, reason);
    }
}
