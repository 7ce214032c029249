package io.bourse.gateway.fix;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A FIX client on a plain socket for hostile input: writes exactly the bytes it is given (framing them when asked,
 * with BodyLength and CheckSum computed or deliberately wrong), and reads the gateway's answers one message at a
 * time. Messages are written with '|' for SOH.
 */
final class RawFixClient implements AutoCloseable
{
    static final DateTimeFormatter SENDING_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HH:mm:ss.SSS");

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final StringBuilder pending = new StringBuilder();
    final String senderCompId;
    int nextSeqNum = 1;

    RawFixClient(final int port, final String senderCompId)
    {
        this.senderCompId = senderCompId;
        try
        {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static String now()
    {
        return ZonedDateTime.now(ZoneOffset.UTC).format(SENDING_TIME);
    }

    /**
     * Logon with ResetSeqNumFlag, so that every test's session starts at 1 on both sides.
     */
    Map<String, String> logon(final String password)
    {
        send("35=A|34=1|49=" + senderCompId + "|52=" + now() + "|56=BOURSE|98=0|108=30|141=Y|554=" + password + "|");
        nextSeqNum = 2;
        return read(5_000);
    }

    /**
     * Frame and send: the body (from 35 on) gets BeginString, BodyLength and CheckSum.
     */
    void send(final String body)
    {
        final String bodyWithSoh = body.replace('|', '\001');
        final String head = "8=FIX.4.4\0019=" + bodyWithSoh.length() + "\001";
        sendRaw((head + bodyWithSoh).replace('\001', '|') + "10=" + checksum(head + bodyWithSoh) + "|");
    }

    /**
     * Frame and send a session message with the next sequence number and the usual header.
     */
    void sendApp(final String msgType, final String fields)
    {
        send("35=" + msgType + "|34=" + (nextSeqNum++) + "|49=" + senderCompId + "|52=" + now() + "|56=BOURSE|" +
            fields);
    }

    void sendRaw(final String message)
    {
        try
        {
            out.write(message.replace('|', '\001').getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static String checksum(final String message)
    {
        int sum = 0;
        for (int i = 0; i < message.length(); i++)
        {
            sum += message.charAt(i);
        }
        return String.format("%03d", sum % 256);
    }

    /**
     * The next message, as tag to value (first occurrence; "raw" holds the whole message with '|'), skipping
     * Heartbeats; null if none came within the time or the connection closed.
     */
    Map<String, String> read(final long timeoutMs)
    {
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        while (true)
        {
            final Map<String, String> message = parseOne();
            if (message != null)
            {
                if ("0".equals(message.get("35")) && !message.containsKey("112"))
                {
                    continue;
                }
                return message;
            }
            final long leftMs = deadlineMs - System.currentTimeMillis();
            if (leftMs <= 0 || !fill(leftMs))
            {
                return null;
            }
        }
    }

    /**
     * True when the gateway closed the connection within the time (anything it sends first is discarded).
     */
    boolean awaitDisconnect(final long timeoutMs)
    {
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        try
        {
            while (System.currentTimeMillis() < deadlineMs)
            {
                socket.setSoTimeout((int)Math.max(1, deadlineMs - System.currentTimeMillis()));
                final byte[] buffer = new byte[4096];
                try
                {
                    if (in.read(buffer) < 0)
                    {
                        return true;
                    }
                }
                catch (final SocketTimeoutException ex)
                {
                    return false;
                }
            }
            return false;
        }
        catch (final IOException ex)
        {
            return true;
        }
    }

    private boolean fill(final long timeoutMs)
    {
        try
        {
            socket.setSoTimeout((int)Math.max(1, timeoutMs));
            final byte[] buffer = new byte[8192];
            final int read = in.read(buffer);
            if (read < 0)
            {
                return false;
            }
            pending.append(new String(buffer, 0, read, StandardCharsets.ISO_8859_1).replace('\001', '|'));
            return true;
        }
        catch (final SocketTimeoutException ex)
        {
            return false;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private Map<String, String> parseOne()
    {
        final int start = pending.indexOf("8=FIX");
        if (start < 0)
        {
            return null;
        }
        final int checksum = pending.indexOf("|10=", start);
        if (checksum < 0 || pending.length() < checksum + 8)
        {
            return null;
        }
        final String raw = pending.substring(start, checksum + 8);
        pending.delete(0, checksum + 8);
        final Map<String, String> fields = new LinkedHashMap<>();
        for (final String field : raw.split("\\|"))
        {
            final int equals = field.indexOf('=');
            if (equals > 0)
            {
                fields.putIfAbsent(field.substring(0, equals), field.substring(equals + 1));
            }
        }
        fields.put("raw", raw);
        return fields;
    }

    public void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
