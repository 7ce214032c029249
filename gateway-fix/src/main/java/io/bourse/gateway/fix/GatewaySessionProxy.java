package io.bourse.gateway.fix;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochNanoClock;
import uk.co.real_logic.artio.fields.EpochFractionFormat;
import uk.co.real_logic.artio.fields.RejectReason;
import uk.co.real_logic.artio.protocol.GatewayPublication;
import uk.co.real_logic.artio.session.DirectSessionProxy;
import uk.co.real_logic.artio.session.SessionCustomisationStrategy;
import uk.co.real_logic.artio.session.SessionIdStrategy;

import java.nio.charset.StandardCharsets;

/**
 * Artio's session proxy (which sends the session-level messages Artio decides on itself), noting each ResendRequest
 * it sends ({@link ResendRequestNumbers}, for a count Artio misses), with two corrections to their content:
 * <ul>
 *     <li>A Reject for an invalid MsgType names the field at fault, RefTagID (371) = MsgType (35), as the gateway's
 *     own Reject for an unknown MsgType does; Artio leaves RefTagID out for the MsgTypes its parser refuses.</li>
 *     <li>A Logout for a SendingTime accuracy problem names the field in its Text ("..., field=52"): a Logout has
 *     no RefTagID, so the Text is the only place the peer can learn which time was out of range. Artio only logs
 *     out for that reason when SendingTime (52) is outside the window (a PossDup OrigSendingTime later than
 *     SendingTime gets a Reject, not a Logout).</li>
 * </ul>
 */
final class GatewaySessionProxy extends DirectSessionProxy
{
    private static final int MSG_TYPE_TAG = 35;
    private static final byte[] SENDING_TIME_LOGOUT_TEXT =
        "SendingTime accuracy problem, field=52".getBytes(StandardCharsets.US_ASCII);

    private final ResendRequestNumbers resendRequestNumbers;
    private long connectionId;

    GatewaySessionProxy(
        final ResendRequestNumbers resendRequestNumbers,
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
        this.connectionId = connectionId;
    }

    public void connectionId(final long connectionId)
    {
        super.connectionId(connectionId);
        this.connectionId = connectionId;
    }

    public long sendResendRequest(
        final int msgSeqNo,
        final int beginSeqNo,
        final int endSeqNo,
        final int sequenceIndex,
        final int lastMsgSeqNumProcessed)
    {
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
        return super.sendLogout(msgSeqNo, sequenceIndex, rejectReason, lastMsgSeqNumProcessed);
    }
}
