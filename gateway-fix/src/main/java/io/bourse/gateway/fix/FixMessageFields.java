package io.bourse.gateway.fix;

import org.agrona.DirectBuffer;

/**
 * Reads single fields of a raw FIX message, tag=value pairs separated by SOH, without decoding it: for the few values
 * the gateway needs of every message whatever its type (its MsgSeqNum), allocation-free.
 */
final class FixMessageFields
{
    private static final byte SOH = 1;

    private FixMessageFields()
    {
    }

    /**
     * @return the value of a FIX message's non-negative integer field (its first occurrence), or -1 when it is absent
     * or not a number of at most nine digits.
     */
    static int intField(final DirectBuffer buffer, final int offset, final int length, final int tag)
    {
        int index = fieldValueOffset(buffer, offset, length, tag);
        if (index < 0)
        {
            return -1;
        }
        final int end = offset + length;
        int value = 0;
        int digits = 0;
        for (; index < end && buffer.getByte(index) != SOH; index++)
        {
            final byte b = buffer.getByte(index);
            if (b < '0' || b > '9' || ++digits > 9)
            {
                return -1;
            }
            value = value * 10 + (b - '0');
        }
        return digits > 0 ? value : -1;
    }

    /**
     * @return the offset of the value of a FIX message's field (its first occurrence), or -1 when it is absent.
     */
    static int fieldValueOffset(final DirectBuffer buffer, final int offset, final int length, final int tag)
    {
        final int end = offset + length;
        int index = offset;
        while (index < end)
        {
            int fieldTag = 0;
            while (index < end && buffer.getByte(index) != '=')
            {
                fieldTag = fieldTag * 10 + (buffer.getByte(index++) - '0');
            }
            index++;
            if (fieldTag == tag)
            {
                return index < end ? index : -1;
            }
            while (index < end && buffer.getByte(index) != SOH)
            {
                index++;
            }
            index++;
        }
        return -1;
    }
}
