package io.bourse.gateway.fix;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one QuickFIX/J acceptance definition against an acceptor on a port, following the format described in
 * {@code ../shared/conformance/README.md}: I lines are sent (BodyLength and CheckSum filled in when absent, lines
 * that are not messages sent as they are), E lines are compared with the next message the acceptor sends, and
 * eDISCONNECT waits for the acceptor to close the connection.
 * <p>
 * Interpretations beyond the README: the time fields SendingTime (52), TransactTime (60) and OrigSendingTime (122)
 * may be present in a received message even where the expected one does not list them, as QuickFIX/J's own runner
 * ({@code ExpectMessageStep}) allows (the reference acceptor sends SendingTime on every message and some
 * definitions omit it; MinQty44's expected echo omits the TransactTime the order carried), and BodyLength is then
 * not compared, as it depends on those fields' lengths; an E line without BodyLength or CheckSum
 * (as I lines may be written) does not check them, nor does one whose BodyLength does not count its own listed
 * fields (no acceptor could send exactly those fields with that BodyLength).
 */
final class AcceptanceDefinitionRunner
{
    static final char SOH = '\001';
    private static final long READ_TIMEOUT_MS = 10_000;
    private static final Set<String> TIME_TAGS = Set.of("52", "60", "122");
    /**
     * Framing fields (like the I lines, whose BodyLength and CheckSum the runner fills in) and the time fields may be
     * left out of an E line.
     */
    private static final Set<String> OPTIONAL_IN_EXPECTATION = Set.of("8", "9", "10", "52", "60", "122");
    private static final Pattern TIME = Pattern.compile("<TIME([+-]\\d+)?>");
    private static final Pattern CONNECTION_PREFIX = Pattern.compile("^(\\d+),(.*)$");
    private static final DateTimeFormatter FIX_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HH:mm:ss.SSS");

    private final int port;
    private final Runnable beforeFirstConnection;
    private final Map<Integer, Connection> connections = new HashMap<>();

    /**
     * @param beforeFirstConnection run before a connection is opened while no other is open: the reference
     *                              acceptor starts every connection at sequence number 1.
     */
    AcceptanceDefinitionRunner(final int port, final Runnable beforeFirstConnection)
    {
        this.port = port;
        this.beforeFirstConnection = beforeFirstConnection;
    }

    /**
     * Run the definition; throws AssertionError naming the line that failed.
     */
    void run(final Path definition) throws IOException
    {
        final List<String> lines = Files.readAllLines(definition, StandardCharsets.ISO_8859_1);
        try
        {
            int lineNumber = 0;
            for (final String rawLine : lines)
            {
                lineNumber++;
                final String line = rawLine.stripTrailing();
                if (line.isBlank() || line.startsWith("#"))
                {
                    continue;
                }
                try
                {
                    step(line.stripLeading());
                }
                catch (final AssertionError | IOException ex)
                {
                    throw new AssertionError(definition.getFileName() + " line " + lineNumber + " '" +
                        line.replace(SOH, '|') + "': " + ex.getMessage(), ex);
                }
            }
        }
        finally
        {
            for (final Connection connection : connections.values())
            {
                connection.close();
            }
            connections.clear();
        }
    }

    private void step(final String line) throws IOException
    {
        final char action = line.charAt(0);
        String rest = line.substring(1);
        int connectionId = 1;
        final Matcher prefix = CONNECTION_PREFIX.matcher(rest);
        if (prefix.matches())
        {
            connectionId = Integer.parseInt(prefix.group(1));
            rest = prefix.group(2);
        }
        switch (action)
        {
            case 'i' ->
            {
                if (!rest.equals("CONNECT"))
                {
                    throw new AssertionError("unknown initiator action " + rest);
                }
                if (connections.values().stream().allMatch(connection -> connection.closed))
                {
                    beforeFirstConnection.run();
                }
                final Connection previous = connections.put(connectionId, new Connection(port));
                if (previous != null)
                {
                    previous.close();
                }
            }
            case 'I' -> connection(connectionId).write(frame(substituteTimes(rest)));
            case 'E' -> compare(parse(rest), connection(connectionId).read(READ_TIMEOUT_MS));
            case 'e' ->
            {
                if (!rest.equals("DISCONNECT"))
                {
                    throw new AssertionError("unknown expectation " + rest);
                }
                final String unexpected = connection(connectionId).awaitClose(READ_TIMEOUT_MS);
                if (unexpected != null)
                {
                    throw new AssertionError("expected a disconnect, got " + unexpected.replace(SOH, '|'));
                }
            }
            default -> throw new AssertionError("unknown step");
        }
    }

    private Connection connection(final int id)
    {
        final Connection connection = connections.get(id);
        if (connection == null)
        {
            throw new AssertionError("connection " + id + " not open");
        }
        return connection;
    }

    static String substituteTimes(final String message)
    {
        final Matcher matcher = TIME.matcher(message);
        final StringBuilder result = new StringBuilder();
        while (matcher.find())
        {
            final long offsetMs = matcher.group(1) == null ? 0 : Long.parseLong(matcher.group(1)) * 1100;
            final String time = ZonedDateTime.now(ZoneOffset.UTC).plusNanos(offsetMs * 1_000_000).format(FIX_TIME);
            matcher.appendReplacement(result, time);
        }
        matcher.appendTail(result);
        return result.toString();
    }

    /**
     * BodyLength and CheckSum added when absent; {@code 10=0} sent as {@code 10=000}; not a message: as it is.
     */
    static String frame(final String message)
    {
        final List<String[]> fields = fields(message);
        if (fields == null || fields.isEmpty() || !fields.get(0)[0].equals("8"))
        {
            return message;
        }
        final StringBuilder out = new StringBuilder();
        final boolean hasBodyLength = fields.size() > 1 && fields.get(1)[0].equals("9");
        final boolean hasChecksum = fields.get(fields.size() - 1)[0].equals("10");
        final StringBuilder body = new StringBuilder();
        for (int i = hasBodyLength ? 2 : 1; i < fields.size() - (hasChecksum ? 1 : 0); i++)
        {
            body.append(fields.get(i)[0]).append('=').append(fields.get(i)[1]).append(SOH);
        }
        out.append("8=").append(fields.get(0)[1]).append(SOH);
        out.append("9=").append(hasBodyLength ? fields.get(1)[1] : String.valueOf(body.length())).append(SOH);
        out.append(body);
        if (hasChecksum)
        {
            final String given = fields.get(fields.size() - 1)[1];
            out.append("10=").append(given.equals("0") ? "000" : given).append(SOH);
        }
        else
        {
            int sum = 0;
            for (int i = 0; i < out.length(); i++)
            {
                sum += out.charAt(i);
            }
            out.append("10=").append(String.format("%03d", sum % 256)).append(SOH);
        }
        return out.toString();
    }

    /**
     * The fields of a message, or null when it is not one (a field without '=' or with a non-numeric tag).
     */
    static List<String[]> fields(final String message)
    {
        final List<String[]> fields = new ArrayList<>();
        for (final String field : message.split(String.valueOf(SOH)))
        {
            if (field.isEmpty())
            {
                continue;
            }
            final int equals = field.indexOf('=');
            if (equals <= 0 || !field.substring(0, equals).chars().allMatch(Character::isDigit))
            {
                return null;
            }
            fields.add(new String[]{field.substring(0, equals), field.substring(equals + 1)});
        }
        return fields;
    }

    private static List<String[]> parse(final String message)
    {
        final List<String[]> fields = fields(message);
        if (fields == null)
        {
            throw new AssertionError("expected message does not parse");
        }
        return fields;
    }

    private static void compare(final List<String[]> expected, final String actualMessage)
    {
        if (actualMessage == null)
        {
            throw new AssertionError("expected a message, got none (or the connection closed)");
        }
        final List<String[]> actual = fields(actualMessage);
        final String shown = actualMessage.replace(SOH, '|');
        if (actual == null)
        {
            throw new AssertionError("received something that is not a message: " + shown);
        }
        final Map<String, List<String>> expectedByTag = byTag(expected);
        final Map<String, List<String>> actualByTag = byTag(actual);
        if (!expectedByTag.get("35").equals(actualByTag.get("35")))
        {
            throw new AssertionError("expected MsgType " + expectedByTag.get("35") + ", got " + shown);
        }
        boolean timeLengthsMatch = true;
        for (final String tag : TIME_TAGS)
        {
            timeLengthsMatch &= expectedByTag.containsKey(tag) || !actualByTag.containsKey(tag);
        }
        if (!expectedByTag.containsKey("9") || listedBodyLength(expected) != parseInt(expectedByTag.get("9").get(0)))
        {
            // No BodyLength listed, or one that does not count the listed fields (a few definitions have such):
            // no acceptor could match it while sending exactly those fields.
            timeLengthsMatch = false;
        }
        for (final Map.Entry<String, List<String>> entry : actualByTag.entrySet())
        {
            final String tag = entry.getKey();
            final List<String> expectedValues = expectedByTag.get(tag);
            if (expectedValues == null)
            {
                if (!OPTIONAL_IN_EXPECTATION.contains(tag))
                {
                    throw new AssertionError("field " + tag + " not expected: " + shown);
                }
                continue;
            }
            if (TIME_TAGS.contains(tag))
            {
                for (int i = 0; i < Math.min(expectedValues.size(), entry.getValue().size()); i++)
                {
                    timeLengthsMatch &= expectedValues.get(i).length() == entry.getValue().get(i).length();
                }
            }
        }
        for (final Map.Entry<String, List<String>> entry : expectedByTag.entrySet())
        {
            final String tag = entry.getKey();
            final List<String> actualValues = actualByTag.get(tag);
            if (tag.equals("9") && !timeLengthsMatch || tag.equals("10"))
            {
                continue;
            }
            if (actualValues == null || actualValues.size() != entry.getValue().size())
            {
                throw new AssertionError("field " + tag + " missing or repeated differently: " + shown);
            }
            if (TIME_TAGS.contains(tag) || tag.equals("10") || (tag.equals("9") && !timeLengthsMatch))
            {
                continue;
            }
            for (int i = 0; i < actualValues.size(); i++)
            {
                final String want = entry.getValue().get(i);
                final String got = actualValues.get(i);
                final boolean equal = tag.equals("58") ? got.startsWith(want) : got.equals(want);
                if (!equal)
                {
                    throw new AssertionError("field " + tag + ": expected '" + want + "', got '" + got + "' in " + shown);
                }
            }
        }
    }

    private static int listedBodyLength(final List<String[]> fields)
    {
        int length = 0;
        for (final String[] field : fields)
        {
            if (!field[0].equals("8") && !field[0].equals("9") && !field[0].equals("10"))
            {
                length += field[0].length() + 1 + field[1].length() + 1;
            }
        }
        return length;
    }

    private static int parseInt(final String value)
    {
        try
        {
            return Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    private static Map<String, List<String>> byTag(final List<String[]> fields)
    {
        final Map<String, List<String>> byTag = new HashMap<>();
        for (final String[] field : fields)
        {
            byTag.computeIfAbsent(field[0], key -> new ArrayList<>()).add(field[1]);
        }
        return byTag;
    }

    /**
     * One TCP connection of the test, reading the acceptor's messages one by one.
     */
    private static final class Connection
    {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final StringBuilder pending = new StringBuilder();
        boolean closed;

        Connection(final int port) throws IOException
        {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }

        void write(final String message) throws IOException
        {
            out.write(message.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        String read(final long timeoutMs) throws IOException
        {
            final long deadlineMs = System.currentTimeMillis() + timeoutMs;
            while (true)
            {
                final String message = next();
                if (message != null)
                {
                    return message;
                }
                final long leftMs = deadlineMs - System.currentTimeMillis();
                if (closed || leftMs <= 0 || !fill(leftMs))
                {
                    return null;
                }
            }
        }

        /**
         * @return null once closed (messages sent before closing are not checked), or why it did not close.
         */
        String awaitClose(final long timeoutMs) throws IOException
        {
            final long deadlineMs = System.currentTimeMillis() + timeoutMs;
            while (!closed)
            {
                final long leftMs = deadlineMs - System.currentTimeMillis();
                if (leftMs <= 0)
                {
                    return "nothing (the connection stayed open)";
                }
                fill(leftMs);
            }
            return null;
        }

        private boolean fill(final long timeoutMs) throws IOException
        {
            socket.setSoTimeout((int)Math.max(1, timeoutMs));
            final byte[] buffer = new byte[8192];
            try
            {
                final int read = in.read(buffer);
                if (read < 0)
                {
                    closed = true;
                    return false;
                }
                pending.append(new String(buffer, 0, read, StandardCharsets.ISO_8859_1));
                return true;
            }
            catch (final SocketTimeoutException ex)
            {
                return false;
            }
            catch (final IOException ex)
            {
                closed = true;
                return false;
            }
        }

        private String next()
        {
            final int start = pending.indexOf("8=FIX");
            if (start < 0)
            {
                return null;
            }
            final int checksum = pending.indexOf(SOH + "10=", start);
            if (checksum < 0 || pending.length() < checksum + 8)
            {
                return null;
            }
            final String message = pending.substring(start, checksum + 8);
            pending.delete(0, checksum + 8);
            return message;
        }

        void close()
        {
            try
            {
                socket.close();
            }
            catch (final IOException ignored)
            {
                // Closing at the end of a definition: nothing left to check.
            }
        }
    }
}
