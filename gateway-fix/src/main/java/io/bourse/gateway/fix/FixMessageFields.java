package io.bourse.gateway.fix;

import org.agrona.DirectBuffer;

/**
 * Reads single fields of a raw FIX message, tag=value pairs separated by SOH, without decoding it: for the few values
 * the gateway needs of every message whatever its type (its MsgSeqNum), allocation-free.
 */
final class FixMessageFields
{
    static final byte SOH = 1;

    private FixMessageFields()
    {
    }

    /**
     * @return the value of a FIX message's non-negative integer field (its first occurrence), or -1 when it is absent
     * or not a number of at most nine digits.
     */
    static int intField(final DirectBuffer buffer, final int offset, final int length, final int tag)
    {
        final int valueOffset = fieldValueOffset(buffer, offset, length, tag);
        if (valueOffset < 0)
        {
            return -1;
        }
        final int end = offset + length;
        int valueEnd = valueOffset;
        while (valueEnd < end && buffer.getByte(valueEnd) != SOH)
        {
            valueEnd++;
        }
        return nonNegativeInt(buffer, valueOffset, valueEnd);
    }

    /**
     * Copy a FIX message's field value (its first occurrence, up to the array's length) into {@code into}.
     *
     * @return its length; 0 when the field is absent.
     */
    static int copyValue(final DirectBuffer buffer, final int offset, final int length, final int tag, final char[] into)
    {
        final int valueOffset = fieldValueOffset(buffer, offset, length, tag);
        if (valueOffset < 0)
        {
            return 0;
        }
        final int end = Math.min(offset + length, valueOffset + into.length);
        int valueEnd = valueOffset;
        while (valueEnd < end && buffer.getByte(valueEnd) != SOH)
        {
            into[valueEnd - valueOffset] = (char)buffer.getByte(valueEnd);
            valueEnd++;
        }
        return valueEnd - valueOffset;
    }

    /**
     * @return the number written in the buffer from {@code from} to {@code to} (exclusive), or -1 when it is empty, not
     * all digits or longer than nine digits.
     */
    static int nonNegativeInt(final DirectBuffer buffer, final int from, final int to)
    {
        if (from == to || to - from > 9)
        {
            return -1;
        }
        int value = 0;
        for (int i = from; i < to; i++)
        {
            final byte digit = buffer.getByte(i);
            if (digit < '0' || digit > '9')
            {
                return -1;
            }
            value = value * 10 + (digit - '0');
        }
        return value;
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
