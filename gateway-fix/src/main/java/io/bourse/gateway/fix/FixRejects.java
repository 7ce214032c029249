package io.bourse.gateway.fix;

import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.RejectReason;

/**
 * FIX reject codes and texts: the engine's coded reasons mapped to OrdRejReason (103), and the texts of session
 * Rejects (3). Texts are constants, so a reject allocates nothing.
 */
final class FixRejects
{
    static final int ORD_REJ_UNKNOWN_SYMBOL = 1;
    static final int ORD_REJ_EXCHANGE_CLOSED = 2;
    static final int ORD_REJ_EXCEEDS_LIMIT = 3;
    static final int ORD_REJ_TOO_LATE = 4;
    static final int ORD_REJ_UNKNOWN_ORDER = 5;
    static final int ORD_REJ_DUPLICATE_ORDER = 6;
    static final int ORD_REJ_UNSUPPORTED = 11;
    static final int ORD_REJ_INCORRECT_QUANTITY = 13;
    static final int ORD_REJ_UNKNOWN_ACCOUNT = 15;
    static final int ORD_REJ_OTHER = 99;

    static final int CXL_REJ_TOO_LATE = 0;
    static final int CXL_REJ_UNKNOWN_ORDER = 1;
    static final int CXL_REJ_DUPLICATE_CLORDID = 6;
    static final int CXL_REJ_OTHER = 99;

    static final int BUSINESS_OTHER = 0;
    static final int BUSINESS_UNKNOWN_SECURITY = 2;
    static final int BUSINESS_UNSUPPORTED_MESSAGE_TYPE = 3;
    static final int BUSINESS_CONDITIONALLY_REQUIRED_FIELD_MISSING = 5;
    static final int SESSION_INCORRECT_DATA_FORMAT = 6;
    static final int SESSION_INVALID_MSG_TYPE = 11;
    static final int SESSION_REPEATING_GROUP_FIELDS_OUT_OF_ORDER = 15;

    /**
     * The text {@link #sessionRejectText} gives for a SessionRejectReason FIX does not define.
     */
    static final String UNKNOWN_SESSION_REJECT_TEXT = "Invalid message";

    private static final String[] ENGINE_TEXTS = new String[64];
    private static final String[] CANCEL_TEXTS = new String[16];

    static
    {
        for (final RejectReason reason : RejectReason.values())
        {
            if (reason != RejectReason.NULL_VAL)
            {
                ENGINE_TEXTS[reason.value()] = "Rejected by the exchange: " + reason.name();
            }
        }
        for (final CancelReason reason : CancelReason.values())
        {
            if (reason != CancelReason.NULL_VAL)
            {
                CANCEL_TEXTS[reason.value()] = "Canceled: " + reason.name();
            }
        }
    }

    private FixRejects()
    {
    }

    static int ordRejReason(final RejectReason reason)
    {
        return switch (reason)
        {
            case UNKNOWN_INSTRUMENT -> ORD_REJ_UNKNOWN_SYMBOL;
            case INSTRUMENT_HALTED, INSTRUMENT_CANCEL_ONLY, ACCOUNT_KILL_SWITCH, GLOBAL_KILL_SWITCH ->
                ORD_REJ_EXCHANGE_CLOSED;
            case ACCOUNT_MAX_ORDER_QUANTITY, ACCOUNT_MAX_ORDER_NOTIONAL, ACCOUNT_MAX_OPEN_ORDERS, INSUFFICIENT_BALANCE,
                NOTIONAL_OVERFLOW -> ORD_REJ_EXCEEDS_LIMIT;
            case EXPIRY_IN_PAST -> ORD_REJ_TOO_LATE;
            case UNKNOWN_ORDER -> ORD_REJ_UNKNOWN_ORDER;
            case DUPLICATE_CLIENT_ORDER_ID -> ORD_REJ_DUPLICATE_ORDER;
            case INVALID_SIDE, INVALID_ORDER_TYPE, INVALID_TIME_IN_FORCE, INVALID_STP_MODE, INSTRUMENT_POST_ONLY,
                POST_ONLY_WOULD_TAKE, INVALID_EXPIRY -> ORD_REJ_UNSUPPORTED;
            case INVALID_QUANTITY, QUANTITY_OFF_LOT, QUANTITY_BELOW_MINIMUM, QUANTITY_ABOVE_MAXIMUM,
                REPLACE_QUANTITY_NOT_ABOVE_FILLED -> ORD_REJ_INCORRECT_QUANTITY;
            case UNKNOWN_ACCOUNT, INVALID_ACCOUNT -> ORD_REJ_UNKNOWN_ACCOUNT;
            default -> ORD_REJ_OTHER;
        };
    }

    static String engineText(final RejectReason reason)
    {
        final String text = reason != RejectReason.NULL_VAL ? ENGINE_TEXTS[reason.value()] : null;
        return text != null ? text : "Rejected by the exchange";
    }

    static String cancelText(final CancelReason reason)
    {
        final String text = reason != CancelReason.NULL_VAL ? CANCEL_TEXTS[reason.value()] : null;
        return text != null ? text : "Canceled";
    }

    /**
     * The text of a session Reject (3) for a SessionRejectReason (373), worded as FIX names the reasons (but for
     * 15, worded as QuickFIX/J words it); {@link SessionRejectEncoder} adds the field for an incorrect data format.
     */
    static String sessionRejectText(final int sessionRejectReason)
    {
        return switch (sessionRejectReason)
        {
            case 0 -> "Invalid tag number";
            case 1 -> "Required tag missing";
            case 2 -> "Tag not defined for this message type";
            case 3 -> "Undefined tag";
            case 4 -> "Tag specified without a value";
            case 5 -> "Value is incorrect (out of range) for this tag";
            case 6 -> "Incorrect data format for value";
            case 7 -> "Decryption problem";
            case 8 -> "Signature problem";
            case 9 -> "CompID problem";
            case 10 -> "SendingTime accuracy problem";
            case 11 -> "Invalid MsgType";
            case 12 -> "XML Validation error";
            case 13 -> "Tag appears more than once";
            case 14 -> "Tag specified out of required order";
            // FIX names it "Repeating group fields out of order"; QuickFIX/J's peers expect QuickFIX/J's words.
            case 15 -> "Out of order repeating group members";
            case 16 -> "Incorrect NumInGroup count for repeating group";
            case 17 -> "Non-data value includes field delimiter";
            case 18 -> "Invalid/unsupported application version";
            case 99 -> "Other";
            default -> UNKNOWN_SESSION_REJECT_TEXT;
        };
    }
}
