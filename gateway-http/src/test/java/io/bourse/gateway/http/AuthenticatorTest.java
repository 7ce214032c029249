package io.bourse.gateway.http;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AuthenticatorTest
{
    private static final ApiKey KEY = new ApiKey("k", "secret-of-k", 1, false);
    private static final long WINDOW_MS = 5_000;
    private static final RateLimiter UNLIMITED = new RateLimiter(1_000_000, 1_000_000, "for this API key");

    @Test
    void rememberedSignaturesAreForgottenOnceTheirTimestampHasLeftTheWindow()
    {
        final Authenticator authenticator = new Authenticator(List.of(KEY), WINDOW_MS, true, UNLIMITED);
        final long startMs = 1_000_000;
        for (int i = 0; i < 3; i++)
        {
            place(authenticator, startMs, "{\"n\":" + i + "}", startMs);
        }
        assertEquals(3, authenticator.rememberedCount());

        final long laterMs = startMs + WINDOW_MS + 1_001;
        place(authenticator, laterMs, "{\"n\":0}", laterMs);
        assertEquals(1, authenticator.rememberedCount(), "only the request signed within the window now");
    }

    @Test
    void aReplayIsRefusedOnlyWhenReplaysAreRejected()
    {
        final long nowMs = 2_000_000;
        final Authenticator strict = new Authenticator(List.of(KEY), WINDOW_MS, true, UNLIMITED);
        place(strict, nowMs, "{}", nowMs);
        final ApiException replay = assertThrows(ApiException.class, () -> place(strict, nowMs, "{}", nowMs + 10));
        assertEquals(401, replay.status);
        assertEquals("REPLAYED_REQUEST", replay.code);

        final Authenticator lenient = new Authenticator(List.of(KEY), WINDOW_MS, false, UNLIMITED);
        place(lenient, nowMs, "{}", nowMs);
        place(lenient, nowMs, "{}", nowMs + 10);
        assertEquals(0, lenient.rememberedCount());
    }

    @Test
    void aRequestRefusedForTheRateIsNotRememberedAndMayBeSentAgainAsItWas()
    {
        final Authenticator authenticator =
            new Authenticator(List.of(KEY), WINDOW_MS, true, new RateLimiter(1, 1, "for this API key"));
        final long nowMs = 3_000_000;
        place(authenticator, nowMs, "{\"n\":1}", nowMs);
        final ApiException limited = assertThrows(ApiException.class,
            () -> place(authenticator, nowMs, "{\"n\":2}", nowMs + 10));
        assertEquals(429, limited.status);
        assertEquals("RATE_LIMITED", limited.code);
        assertEquals(1, authenticator.rememberedCount(), "the refused request is not remembered");

        place(authenticator, nowMs, "{\"n\":2}", nowMs + 1_010);
        assertEquals(2, authenticator.rememberedCount());
        final ApiException replay = assertThrows(ApiException.class,
            () -> place(authenticator, nowMs, "{\"n\":2}", nowMs + 3_000));
        assertEquals("REPLAYED_REQUEST", replay.code);
        place(authenticator, nowMs, "{\"n\":3}", nowMs + 3_000);
        assertEquals(3, authenticator.rememberedCount(), "the replay took no token: the next request had one");
    }

    private static void place(final Authenticator authenticator, final long timestampMs, final String body, final long nowMs)
    {
        final String timestamp = Long.toString(timestampMs);
        final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        authenticator.authenticate(KEY.key(), timestamp,
            Authenticator.signature(KEY.secret(), timestamp, "POST", "/api/v1/orders", bytes), "POST", "/api/v1/orders",
            bytes, true, 1, nowMs);
    }
}
