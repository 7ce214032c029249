package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.FixDictionaryImpl;
import io.bourse.gateway.fix.codecs.builder.HeaderEncoder;
import io.bourse.gateway.fix.codecs.builder.SequenceResetEncoder;
import uk.co.real_logic.artio.builder.AbstractRejectEncoder;
import uk.co.real_logic.artio.builder.AbstractSequenceResetEncoder;
import uk.co.real_logic.artio.builder.Encoder;
import uk.co.real_logic.artio.util.MutableAsciiBuffer;

/**
 * The generated FIX 4.4 dictionary, except that session Rejects are worded by {@link SessionRejectEncoder}
 * (as QuickFIX/J words them), and that a SequenceReset sent with PossDupFlag (43=Y) carries
 * OrigSendingTime (122). FIX 4.4 requires OrigSendingTime on every message sent as PossDup ("if data is not
 * available set to same value as SendingTime"); Artio's replayer sends the SequenceReset-GapFill that answers a
 * ResendRequest with PossDupFlag but without OrigSendingTime, and a strict peer rejects that. Artio creates its
 * session encoders through the dictionary class it is given, so this is where the field can be added.
 */
public class GatewayFixDictionary extends FixDictionaryImpl
{
    /**
     * Artio instantiates the dictionary reflectively.
     */
    public GatewayFixDictionary()
    {
    }

    public AbstractRejectEncoder makeRejectEncoder()
    {
        return new SessionRejectEncoder();
    }

    public AbstractSequenceResetEncoder makeSequenceResetEncoder()
    {
        return new PossDupSequenceResetEncoder();
    }

    /**
     * Encodes the message once to learn the SendingTime Artio set (its length is not exposed by the encoder),
     * then again with that value as OrigSendingTime. Gap fills are rare (only in answer to a ResendRequest), so
     * the second pass costs nothing that matters, and it allocates nothing.
     */
    static final class PossDupSequenceResetEncoder extends SequenceResetEncoder
    {
        private static final byte SOH = 1;
        private final byte[] sendingTime = new byte[32];

        public long encode(final MutableAsciiBuffer buffer, final int offset)
        {
            final HeaderEncoder header = header();
            header.resetOrigSendingTime();
            final long result = super.encode(buffer, offset);
            if (!header.possDupFlag() || result < 0)
            {
                return result;
            }
            final int start = Encoder.offset(result);
            final int end = start + Encoder.length(result);
            final int length = copySendingTime(buffer, start, end);
            if (length <= 0)
            {
                return result;
            }
            header.origSendingTimeAsCopy(sendingTime, 0, length);
            return super.encode(buffer, offset);
        }

        private int copySendingTime(final MutableAsciiBuffer buffer, final int start, final int end)
        {
            for (int i = start; i + 3 < end; i++)
            {
                if (buffer.getByte(i) == SOH && buffer.getByte(i + 1) == '5' && buffer.getByte(i + 2) == '2' &&
                    buffer.getByte(i + 3) == '=')
                {
                    int length = 0;
                    for (int j = i + 4; j < end && buffer.getByte(j) != SOH && length < sendingTime.length; j++)
                    {
                        sendingTime[length++] = buffer.getByte(j);
                    }
                    return length;
                }
            }
            return 0;
        }
    }
}
