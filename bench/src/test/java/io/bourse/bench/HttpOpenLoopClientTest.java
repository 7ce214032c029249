package io.bourse.bench;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HttpOpenLoopClientTest
{
    private static final String RESPONSE = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 17\r\n" +
        "\r\n{\"orderId\":\"42\"}\n";

    @Test
    void aWholeResponseIsItsHeadersAndContentLengthBytes()
    {
        assertEquals(RESPONSE.length(), HttpOpenLoopClient.responseLength(received(RESPONSE)));
    }

    @Test
    void aResponseWithoutAllOfItsBodyIsNotComplete()
    {
        assertEquals(0, HttpOpenLoopClient.responseLength(received(RESPONSE.substring(0, RESPONSE.length() - 1))));
        assertEquals(0, HttpOpenLoopClient.responseLength(received(RESPONSE.substring(0, 40))));
    }

    @Test
    void onlyTheFirstOfTwoResponsesInTheBufferIsMeasured()
    {
        assertEquals(RESPONSE.length(), HttpOpenLoopClient.responseLength(received(RESPONSE + RESPONSE)));
    }

    private static ByteBuffer received(final String text)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(1024);
        buffer.put(text.getBytes(StandardCharsets.US_ASCII));
        return buffer;
    }
}
