package io.bourse.gateway.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per API key: {@code ratePerSecond} tokens a second up to {@code burst}; a request takes one.
 */
final class RateLimiter
{
    /**
     * One token bucket; safe to share between threads.
     */
    static final class Bucket
    {
        private final double ratePerSecond;
        private final double burst;
        private double tokens;
        private long lastNs;

        Bucket(final double ratePerSecond, final double burst, final long nowNs)
        {
            this.ratePerSecond = ratePerSecond;
            this.burst = burst;
            this.tokens = burst;
            this.lastNs = nowNs;
        }

        /**
         * @return 0 when a token was taken, else the whole seconds to wait before the next one.
         */
        synchronized long tryTake(final long nowNs)
        {
            tokens = Math.min(burst, tokens + Math.max(0, nowNs - lastNs) * ratePerSecond / 1e9);
            lastNs = nowNs;
            if (tokens >= 1)
            {
                tokens -= 1;
                return 0;
            }
            return Math.max(1, (long)Math.ceil((1 - tokens) / ratePerSecond));
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
     * @return a bucket of this limiter's rate and burst, for something other than an API key.
     */
    Bucket newBucket(final long nowNs)
    {
        return new Bucket(ratePerSecond, burst, nowNs);
    }

    /**
     * Take a token of the key's bucket.
     *
     * @throws ApiException 429 with Retry-After when the key has none left.
     */
    void acquire(final String key, final long nowNs)
    {
        final long retryAfterS = buckets.computeIfAbsent(key, ignored -> newBucket(nowNs)).tryTake(nowNs);
        if (retryAfterS > 0)
        {
            throw new ApiException(429, "RATE_LIMITED", "more than " + describe() + " for this API key", null,
                retryAfterS);
        }
    }

    /**
     * @return the limit in words, for error messages.
     */
    String describe()
    {
        return (long)ratePerSecond + " requests a second (burst " + (long)burst + ")";
    }
}
