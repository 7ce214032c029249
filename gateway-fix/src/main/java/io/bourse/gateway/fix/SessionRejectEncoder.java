package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.builder.RejectEncoder;
import uk.co.real_logic.artio.util.MutableAsciiBuffer;

/**
 * A session Reject (3) whose Text is the FIX wording of its SessionRejectReason (373), worded as QuickFIX/J
 * words it: for an incorrect data format (6) the Text also names the field, "Incorrect data format for value,
 * field=38"; for the other reasons QuickFIX/J's Text is the reason alone (its acceptance definitions expect
 * exactly that, e.g. "Required tag missing" with 371=56), and so is this one's, except that for an entry of a
 * repeating group that does not start with its delimiter the Text says so as QuickFIX/J does, "The group 146 must
 * set the delimiter field 55" (see {@link #groupWithoutDelimiter}). Both the gateway's own Rejects and
 * Artio's (Artio creates its session encoders through {@link GatewayFixDictionary}) are encoded by this class, so
 * every session Reject the gateway sends is worded the same way. The Text is composed in a buffer owned by the
 * encoder: nothing is allocated per Reject.
 */
final class SessionRejectEncoder extends RejectEncoder
{
    private static final byte[] FIELD = ", field=".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] THE_GROUP = "The group ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] MUST_SET_THE_DELIMITER =
        " must set the delimiter field ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
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

    // The longest reason text (48) plus ", field=" and a signed int fit with room to spare, as does the missing
    // delimiter's text with its two ints (at most 62).
    private final byte[] text = new byte[96];
    private int groupWithoutDelimiterTag;
    private int delimiterTag;

    /**
     * Word the Text of this Reject for an entry of a repeating group that does not start with its delimiter; the
     * reason (15) and RefTagID (the field found instead) are set as usual. Cleared by {@link #reset()}.
     *
     * @param groupTag     the group's NumInGroup tag.
     * @param delimiterTag the group's first field.
     */
    void groupWithoutDelimiter(final int groupTag, final int delimiterTag)
    {
        this.groupWithoutDelimiterTag = groupTag;
        this.delimiterTag = delimiterTag;
    }

    /**
     * A copy to hold, with the wording of a group without its delimiter, which is not a field of the message.
     */
    SessionRejectEncoder copyTo(final SessionRejectEncoder encoder)
    {
        super.copyTo(encoder);
        encoder.groupWithoutDelimiter(groupWithoutDelimiterTag, delimiterTag);
        return encoder;
    }

    public void resetMessage()
    {
        super.resetMessage();
        groupWithoutDelimiterTag = 0;
        delimiterTag = 0;
    }

    public long encode(final MutableAsciiBuffer buffer, final int offset)
    {
        final int reason = hasSessionRejectReason() ? sessionRejectReason() : -1;
        final byte[] base = reason >= 0 && reason < TEXTS.length ? TEXTS[reason] : null;
        if (groupWithoutDelimiterTag != 0 && reason == FixRejects.SESSION_REPEATING_GROUP_FIELDS_OUT_OF_ORDER)
        {
            System.arraycopy(THE_GROUP, 0, text, 0, THE_GROUP.length);
            int length = appendInt(groupWithoutDelimiterTag, THE_GROUP.length);
            System.arraycopy(MUST_SET_THE_DELIMITER, 0, text, length, MUST_SET_THE_DELIMITER.length);
            length = appendInt(delimiterTag, length + MUST_SET_THE_DELIMITER.length);
            text(text, 0, length);
        }
        else if (base != null)
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
