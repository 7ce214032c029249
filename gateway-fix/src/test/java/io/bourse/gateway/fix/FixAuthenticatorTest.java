package io.bourse.gateway.fix;

import io.bourse.gateway.fix.codecs.decoder.LogonDecoder;
import org.junit.jupiter.api.Test;
import uk.co.real_logic.artio.util.MutableAsciiBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The Logon checks: while the end of day resets the sequence numbers every Logon is refused and says why, even with the
 * right password, without counting towards a lock-out; afterwards Logons are accepted again.
 */
class FixAuthenticatorTest
{
    @Test
    void logonsAreRefusedDuringTheEndOfDayWithoutCountingAsFailures()
    {
        final FixAuthenticator authenticator = new FixAuthenticator("BOURSE",
            Map.of("ALICE", new FixSessionSpec("ALICE", "alice-pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0)),
            2, 60_000, 300_000, () -> 1_000_000L);
        final LogonDecoder logon = logon("ALICE", "alice-pw");
        assertNull(authenticator.refusal(logon));

        authenticator.endOfDay(true);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(FixAuthenticator.END_OF_DAY_REFUSAL, authenticator.refusal(logon));
        }
        authenticator.endOfDay(false);
        assertNull(authenticator.refusal(logon), "accepted again, not locked out by the refusals");
    }

    private static LogonDecoder logon(final String senderCompId, final String password)
    {
        final String message = ("8=FIX.4.4|9=0|35=A|34=1|49=" + senderCompId + "|52=20261126-17:00:00.000|56=BOURSE|" +
            "98=0|108=30|554=" + password + "|10=000|").replace('|', '\001');
        final byte[] bytes = message.getBytes(StandardCharsets.US_ASCII);
        final LogonDecoder decoder = new LogonDecoder();
        decoder.decode(new MutableAsciiBuffer(bytes), 0, bytes.length);
        return decoder;
    }
}
