package io.bourse.gateway.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RateLimiterTest
{
    private static final long SECOND_NS = 1_000_000_000L;

    @Test
    void aKeyOverItsBurstWaitsForItsRateAndOtherKeysDoNot()
    {
        final RateLimiter limiter = new RateLimiter(2, 3, "from this address");
        for (int i = 0; i < 3; i++)
        {
            assertEquals(0, limiter.tryAcquire("10.0.0.1", 0), "the burst, token " + i);
        }
        assertEquals(1, limiter.tryAcquire("10.0.0.1", 0), "the next token comes in half a second: wait 1 s");
        assertEquals(0, limiter.tryAcquire("10.0.0.2", 0));
        assertEquals(0, limiter.tryAcquire("10.0.0.1", SECOND_NS / 2));
        final ApiException limited = assertThrows(ApiException.class, () -> limiter.acquire("10.0.0.1", SECOND_NS / 2, 1));
        assertEquals(429, limited.status);
        assertEquals("more than 2 requests a second (burst 3) from this address", limited.getMessage());
    }

    @Test
    void aBatchTakesItsTokensAllOrNone()
    {
        final RateLimiter limiter = new RateLimiter(2, 5, "for this API key");
        assertEquals(5, limiter.burst());
        assertEquals(0, limiter.tryAcquire("key", 0, 4));
        assertEquals(1, limiter.tryAcquire("key", 0, 3), "one left of three: two more come in a second");
        assertEquals(0, limiter.tryAcquire("key", 0, 1), "the refused batch took none");
        assertEquals(2, limiter.tryAcquire("key", 0, 4), "four more come in two seconds");
        assertEquals(0, limiter.tryAcquire("key", 2 * SECOND_NS, 4));
    }

    @Test
    void bucketsRefilledToTheirBurstAreForgottenOnceThereAreMany()
    {
        final RateLimiter limiter = new RateLimiter(1, 2, "from this address");
        final int addresses = 5_000;
        for (int i = 0; i < addresses; i++)
        {
            limiter.tryAcquire("10.1." + (i >> 8) + "." + (i & 255), 0);
        }
        // One address keeps its bucket empty: it is not forgotten, or it would come back full.
        limiter.tryAcquire("10.9.9.9", 0);
        limiter.tryAcquire("10.9.9.9", 0);
        assertEquals(addresses + 1, limiter.buckets());
        assertEquals(1, limiter.tryAcquire("10.9.9.9", SECOND_NS / 2));
        assertEquals(addresses + 1, limiter.buckets(), "none full yet");

        // More than a second after the last sweep, every bucket but that one is full again.
        final long sweepNs = 1_200_000_000L;
        assertEquals(0, limiter.tryAcquire("10.9.9.9", sweepNs), "the token it earned since");
        assertEquals(1, limiter.buckets(), "the full ones went, the one in use stayed");
        assertEquals(1, limiter.tryAcquire("10.9.9.9", sweepNs), "and kept what it had taken: a new bucket is full");
    }
}
