package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.decoder.HeaderDecoder;
import io.bourse.gateway.fix.codecs.decoder.NewOrderSingleDecoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import uk.co.real_logic.artio.dictionary.DictionaryParser;
import uk.co.real_logic.artio.dictionary.ir.Field;
import uk.co.real_logic.artio.session.Session;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The acceptance definitions' application: echoes each application message it is given (NewOrderSingle,
 * SecurityDefinition, Email) back with the same body fields, except a PossResend NewOrderSingle duplicating a
 * ClOrdID already sent on the same connection (the reference application forgets the ClOrdIDs it has seen when the
 * session logs out). Like the reference application, which sends back a clone of the message, the echo keeps
 * PossResend (97), and leaves out a NumInGroup of 0 (QuickFIX/J writes no count for a group without entries).
 * Test only.
 */
final class EchoApplication implements FixApplicationMessageOverride
{
    private static final Set<String> HEADER_AND_TRAILER = Set.of(
        "8", "9", "35", "34", "49", "56", "52", "43", "122", "115", "116", "128", "129", "142", "143", "144",
        "145", "50", "57", "90", "91", "212", "213", "347", "369", "627", "628", "629", "630", "1128", "1129", "10",
        "93", "89");
    private static final DateTimeFormatter FIX_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HH:mm:ss.SSS");

    private final Set<String> numInGroupTags = numInGroupTags();
    private final Map<Long, Set<String>> clOrdIdsByConnection = new HashMap<>();

    public void onApplicationMessage(
        final Session session, final long messageType, final HeaderDecoder header, final DirectBuffer buffer,
        final int offset, final int length)
    {
        final String message = buffer.getStringWithoutLengthAscii(offset, length);
        String msgType = null;
        String clOrdId = null;
        final StringBuilder body = new StringBuilder();
        for (final String field : message.split("\u0001"))
        {
            final int equals = field.indexOf('=');
            if (equals <= 0)
            {
                continue;
            }
            final String tag = field.substring(0, equals);
            final String value = field.substring(equals + 1);
            if (tag.equals("35"))
            {
                msgType = value;
            }
            else if (tag.equals("11"))
            {
                clOrdId = value;
            }
            if (!HEADER_AND_TRAILER.contains(tag) && !(numInGroupTags.contains(tag) && value.equals("0")))
            {
                body.append(field).append('\u0001');
            }
        }
        if (messageType == NewOrderSingleDecoder.MESSAGE_TYPE)
        {
            final Set<String> seen =
                clOrdIdsByConnection.computeIfAbsent(session.connectionId(), key -> new HashSet<>());
            final boolean possResend = header.hasPossResend() && header.possResend();
            if (!seen.add(clOrdId) && possResend)
            {
                return;
            }
        }
        final int seqNum = session.lastSentMsgSeqNum() + 1;
        final String echoHeader = "35=" + msgType + "\u000134=" + seqNum + "\u000149=" +
            session.compositeKey().localCompId() + "\u000152=" + ZonedDateTime.now(ZoneOffset.UTC).format(FIX_TIME) +
            "\u000156=" + session.compositeKey().remoteCompId() + "\u0001";
        final String start = "8=FIX.4.4\u00019=" + (echoHeader.length() + body.length()) + "\u0001" + echoHeader + body;
        int sum = 0;
        for (int i = 0; i < start.length(); i++)
        {
            sum += start.charAt(i);
        }
        final byte[] bytes = (start + "10=" + String.format("%03d", sum % 256) + "\u0001")
            .getBytes(StandardCharsets.ISO_8859_1);
        session.trySend(new UnsafeBuffer(bytes), 0, bytes.length, seqNum, messageType);
    }

    private static Set<String> numInGroupTags()
    {
        try (InputStream in = EchoApplication.class.getResourceAsStream(FixRepeatingGroups.DICTIONARY_RESOURCE))
        {
            return new DictionaryParser(false).parse(in, null).fields().values().stream()
                .filter(field -> field.type() == Field.Type.NUMINGROUP)
                .map(field -> String.valueOf(field.number()))
                .collect(Collectors.toUnmodifiableSet());
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("cannot read the FIX dictionary", ex);
        }
    }
}
