package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.decoder.EmailDecoder;
import io.bourse.gateway.fix.codecs.decoder.NewOrderSingleDecoder;
import io.bourse.gateway.fix.codecs.decoder.OrderCancelRequestDecoder;
import io.bourse.gateway.fix.codecs.decoder.SecurityDefinitionDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import uk.co.real_logic.artio.dictionary.DictionaryParser;
import uk.co.real_logic.artio.dictionary.ir.Entry;
import uk.co.real_logic.artio.dictionary.ir.Field;
import uk.co.real_logic.artio.dictionary.ir.Group;
import uk.co.real_logic.artio.dictionary.ir.Message;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FixRepeatingGroupsTest
{
    private static final String HEADER = "8=FIX.4.4|9=100|35=X|34=2|49=TW|52=20261122-01:00:00.000|56=ISLD|";
    private static final String ORDER = "11=ID|21=1|40=1|54=1|38=200|55=INTC|60=20261122-01:00:00.000|";

    private final FixRepeatingGroups groups = FixRepeatingGroups.load();

    @Test
    void nestedGroupCountWhereTheEnclosingEntryNeedsItsDelimiter()
    {
        // QuickFIX/J's QFJ934 definition: NoRelatedSym (146) starts with the nested NoEvents (864), not Symbol (55).
        assertFalse(validate(EmailDecoder.MESSAGE_TYPE,
            "164=thread-id|94=0|147=subject|146=1|864=1|865=1|33=1|58=test|354=1|355=1|"));
        assertEquals(864, groups.invalidTagId());
        assertEquals(146, groups.groupWithoutDelimiterTag());
        assertEquals(55, groups.delimiterTag());
    }

    @Test
    void entryWithoutItsDelimiter()
    {
        assertFalse(validate(NewOrderSingleDecoder.MESSAGE_TYPE, ORDER + "453=1|447=D|448=X|452=3|"));
        assertEquals(447, groups.invalidTagId());
        assertEquals(453, groups.groupWithoutDelimiterTag());
        assertEquals(448, groups.delimiterTag());
    }

    @Test
    void entryWithFieldsOutOfOrder()
    {
        assertFalse(validate(NewOrderSingleDecoder.MESSAGE_TYPE, "453=2|448=X|447=D|452=3|448=Y|452=3|447=D|" + ORDER));
        assertEquals(447, groups.invalidTagId());
        assertEquals(0, groups.groupWithoutDelimiterTag());
        assertEquals(0, groups.delimiterTag());
    }

    @Test
    void wellFormedGroupsPass()
    {
        assertTrue(validate(NewOrderSingleDecoder.MESSAGE_TYPE,
            "453=2|448=X|447=D|452=3|448=Y|452=3|" + ORDER + "386=1|336=A|"));
        assertTrue(validate(EmailDecoder.MESSAGE_TYPE,
            "164=t|94=0|147=s|146=2|55=A|48=1|864=1|865=1|866=20260101|55=B|33=1|58=test|"));
    }

    @Test
    void groupWithNoEntriesEndsAtTheNextField()
    {
        // QuickFIX/J's definition 21: a SecurityDefinition with NoSecurityAltID (454) = 0 as its last body field.
        assertTrue(validate(SecurityDefinitionDecoder.MESSAGE_TYPE, "320=JCD1091-20021011|322=1034356488676|323=6|" +
            "55=TBS|22=8|167=CS|336=ONE_MAIN|58=No Products found for this Class Symbol|454=0|"));
    }

    @Test
    void dataFieldsAreSkippedByTheirLength()
    {
        // EncodedText (355) holds an SOH and what would read as EncodedTextLen (354) after EncodedText: out of order.
        assertTrue(validate(EmailDecoder.MESSAGE_TYPE, "164=t|94=0|147=s|33=1|58=test|354=7|355=x|354=1|"));
        assertFalse(validate(EmailDecoder.MESSAGE_TYPE, "164=t|94=0|147=s|33=1|58=test|354=1|355=x|354=1|"));
        assertEquals(354, groups.invalidTagId());
    }

    @Test
    void messageTypeWithoutGroupsPasses()
    {
        assertTrue(validate(OrderCancelRequestDecoder.MESSAGE_TYPE, "41=A|11=B|55=X|54=1|447=D|448=X|"));
    }

    @Test
    void unparseableMessageIsLeftToTheDecoder()
    {
        assertTrue(validate(NewOrderSingleDecoder.MESSAGE_TYPE, "453=1|-1=X|447=D|"));
    }

    @Test
    void newOrderSingleHasTheGroupsTheAgentLooksFor() throws Exception
    {
        // FixGatewayAgent scans an order only when its decoder saw NoPartyIDs (453) or NoTradingSessions (386): a
        // group added to NewOrderSingle in the dictionary must be added there too.
        try (InputStream in = getClass().getResourceAsStream(FixRepeatingGroups.DICTIONARY_RESOURCE))
        {
            final Message newOrderSingle = new DictionaryParser(false).parse(in, null).messages().stream()
                .filter(message -> message.packedType() == NewOrderSingleDecoder.MESSAGE_TYPE)
                .findFirst()
                .orElseThrow();
            final Set<Integer> groupTags = newOrderSingle.entries().stream()
                .filter(Entry::isGroup)
                .map(entry -> ((Field)((Group)entry.element()).numberField().element()).number())
                .collect(Collectors.toSet());
            assertEquals(Set.of(453, 386), groupTags);
        }
    }

    private boolean validate(final long messageType, final String body)
    {
        final byte[] bytes = (HEADER + body + "10=000|").replace('|', '\001').getBytes(StandardCharsets.US_ASCII);
        return groups.validate(messageType, new UnsafeBuffer(bytes), 0, bytes.length);
    }
}
