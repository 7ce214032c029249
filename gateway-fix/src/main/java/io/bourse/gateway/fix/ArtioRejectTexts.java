package io.bourse.gateway.fix;

import uk.co.real_logic.artio.fields.RejectReason;
import uk.co.real_logic.artio.session.DirectSessionProxy;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;

/**
 * Artio words the Text of the session Rejects and Logouts it sends as its enum names in lower case ("compid
 * problem", "invalid msgtype"); FIX and its peers' conformance suites use the specification's wording ("CompID
 * problem", "Invalid MsgType"). Artio keeps these texts in a private table of byte arrays, filled once; this
 * rewrites the table's entries in place. If a later Artio changes the table, the texts stay Artio's (and
 * {@code FixHostileInputTest} notices).
 */
final class ArtioRejectTexts
{
    private ArtioRejectTexts()
    {
    }

    static void useFixWording()
    {
        try
        {
            final Field field = DirectSessionProxy.class.getDeclaredField("LOGGED_ON_SESSION_REJECT_REASONS");
            field.setAccessible(true);
            final byte[][] texts = (byte[][])field.get(null);
            final RejectReason[] reasons = RejectReason.values();
            for (int i = 0; i < reasons.length && i < texts.length; i++)
            {
                final String text = FixRejects.sessionRejectText(reasons[i].representation());
                if (!text.equals(FixRejects.UNKNOWN_SESSION_REJECT_TEXT))
                {
                    texts[i] = text.getBytes(StandardCharsets.US_ASCII);
                }
            }
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            // Artio's own wording remains: the rejects are still correct, only their Text differs.
        }
    }
}
