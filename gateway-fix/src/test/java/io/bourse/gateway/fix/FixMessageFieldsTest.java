package io.bourse.gateway.fix;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FixMessageFieldsTest
{
    private static final String MESSAGE = "8=FIX.4.4\u00019=70\u000135=4\u000134=1234\u000149=A\u000156=B\u0001" +
        "123=Y\u000136=1300\u000158=x=1\u000110=000\u0001";

    @Test
    void anIntegerFieldIsReadWhereverItIsInTheMessage()
    {
        assertEquals(1234, FixMessageFields.intField(buffer(MESSAGE), 0, MESSAGE.length(), 34));
        assertEquals(1300, FixMessageFields.intField(buffer(MESSAGE), 0, MESSAGE.length(), 36));
    }

    @Test
    void anAbsentFieldReadsAsMinusOne()
    {
        assertEquals(-1, FixMessageFields.intField(buffer(MESSAGE), 0, MESSAGE.length(), 7));
        assertEquals(-1, FixMessageFields.fieldValueOffset(buffer(MESSAGE), 0, MESSAGE.length(), 16));
    }

    @Test
    void aFieldThatIsNotANumberOfAtMostNineDigitsReadsAsMinusOne()
    {
        final String message = "35=D\u000134=12a\u000136=1234567890\u000137=\u0001";
        assertEquals(-1, FixMessageFields.intField(buffer(message), 0, message.length(), 34));
        assertEquals(-1, FixMessageFields.intField(buffer(message), 0, message.length(), 36));
        assertEquals(-1, FixMessageFields.intField(buffer(message), 0, message.length(), 37));
    }

    @Test
    void aFlagsValueIsFoundByItsOffset()
    {
        final int offset = FixMessageFields.fieldValueOffset(buffer(MESSAGE), 0, MESSAGE.length(), 123);
        assertEquals('Y', MESSAGE.charAt(offset));
    }

    @Test
    void onlyTheGivenPartOfTheBufferIsRead()
    {
        final String padded = "34=9\u0001" + MESSAGE;
        assertEquals(1234, FixMessageFields.intField(buffer(padded), 5, MESSAGE.length(), 34));
    }

    private static UnsafeBuffer buffer(final String message)
    {
        return new UnsafeBuffer(message.getBytes(StandardCharsets.US_ASCII));
    }
}
