package io.bourse.gateway.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per API key: {@code ratePerSecond} tokens a second up to {@code burst}; a request takes one.
 */
final class RateLimiter
{
    private static final class Bucket
    {
        private double tokens;
        private long lastNs;

        Bucket(final double tokens, final long nowNs)
        {
            this.tokens = tokens;
            this.lastNs = nowNs;
        }
    }

    private final double ratePerSecond;
    private final double burst;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    RateLimiter(final double ratePerSecond, final double burst)
    {
        this.ratePerSecond = ratePerSecond;
        this.burst = burst;
    }

    /**
     * @return 0 when the request may go ahead, else the whole seconds to wait before the next token.
     */
    long tryAcquire(final String key, final long nowNs)
    {
        final Bucket bucket = buckets.computeIfAbsent(key, ignored -> new Bucket(burst, nowNs));
        synchronized (bucket)
        {
            bucket.tokens = Math.min(burst, bucket.tokens + (nowNs - bucket.lastNs) * ratePerSecond / 1e9);
            bucket.lastNs = nowNs;
            if (bucket.tokens >= 1)
            {
                bucket.tokens -= 1;
                return 0;
            }
            return Math.max(1, (long)Math.ceil((1 - bucket.tokens) / ratePerSecond));
        }
    }
}
