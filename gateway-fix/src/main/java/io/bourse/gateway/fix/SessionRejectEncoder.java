package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.builder.RejectEncoder;
import uk.co.real_logic.artio.util.MutableAsciiBuffer;

/**
 * A session Reject (3) whose Text is the FIX wording of its SessionRejectReason (373), worded as QuickFIX/J
 * words it: for an incorrect data format (6) the Text also names the field, "Incorrect data format for value,
 * field=38"; for the other reasons QuickFIX/J's Text is the reason alone (its acceptance definitions expect
 * exactly that, e.g. "Required tag missing" with 371=56), and so is this one's. Both the gateway's own Rejects and
 * Artio's (Artio creates its session encoders through {@link GatewayFixDictionary}) are encoded by this class, so
 * every session Reject the gateway sends is worded the same way. The Text is composed in a buffer owned by the
 * encoder: nothing is allocated per Reject.
 */
final class SessionRejectEncoder extends RejectEncoder
{
    private static final byte[] FIELD = ", field=".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[][] TEXTS = new byte[100][];

    static
    {
        for (int reason = 0; reason < TEXTS.length; reason++)
        {
            final String text = FixRejects.sessionRejectText(reason);
            if (!text.equals(FixRejects.UNKNOWN_SESSION_REJECT_TEXT))
            {
                TEXTS[reason] = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            }
        }
    }

    // The longest reason text (48) plus ", field=" and a signed int fit with room to spare.
    private final byte[] text = new byte[96];

    public long encode(final MutableAsciiBuffer buffer, final int offset)
    {
        final int reason = hasSessionRejectReason() ? sessionRejectReason() : -1;
        final byte[] base = reason >= 0 && reason < TEXTS.length ? TEXTS[reason] : null;
        if (base != null)
        {
            int length = base.length;
            System.arraycopy(base, 0, text, 0, length);
            if (reason == FixRejects.SESSION_INCORRECT_DATA_FORMAT && hasRefTagID())
            {
                System.arraycopy(FIELD, 0, text, length, FIELD.length);
                length = appendInt(refTagID(), length + FIELD.length);
            }
            text(text, 0, length);
        }
        return super.encode(buffer, offset);
    }

    private int appendInt(final int value, final int offset)
    {
        long remaining = value;
        int position = offset;
        if (remaining < 0)
        {
            text[position++] = '-';
            remaining = -remaining;
        }
        final int start = position;
        do
        {
            text[position++] = (byte)('0' + remaining % 10);
            remaining /= 10;
        }
        while (remaining > 0);
        for (int i = start, j = position - 1; i < j; i++, j--)
        {
            final byte digit = text[i];
            text[i] = text[j];
            text[j] = digit;
        }
        return position;
    }
}
