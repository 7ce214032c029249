package io.bourse.gateway.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per key (an API key, or a client's address): {@code ratePerSecond} tokens a second up to
 * {@code burst}; a request takes one, a batch of orders one an order.
 */
final class RateLimiter
{
    /**
     * Buckets held beyond which those refilled to their burst are forgotten (at most once a second): a forgotten bucket
     * comes back as a new one, which is full, so nothing changes for its key, and keys such as addresses have no bound.
     */
    private static final int SWEEP_ABOVE = 1024;

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
            return tryTake(nowNs, 1);
        }

        /**
         * @param count tokens to take, all or none: at most the burst.
         * @return 0 when they were taken, else the whole seconds to wait until there are as many.
         */
        synchronized long tryTake(final long nowNs, final int count)
        {
            refill(nowNs);
            if (tokens >= count)
            {
                tokens -= count;
                return 0;
            }
            return Math.max(1, (long)Math.ceil((count - tokens) / ratePerSecond));
        }

        synchronized boolean isFull(final long nowNs)
        {
            refill(nowNs);
            return tokens >= burst;
        }

        private void refill(final long nowNs)
        {
            tokens = Math.min(burst, tokens + Math.max(0, nowNs - lastNs) * ratePerSecond / 1e9);
            lastNs = nowNs;
        }
    }

    private final double ratePerSecond;
    private final double burst;
    private final String whose;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    /**
     * When buckets were last swept: {@link Long#MIN_VALUE} before the first sweep (the clock may read negative).
     */
    private volatile long lastSweepNs = Long.MIN_VALUE;

    /**
     * @param whose what a key is, for error messages: "for this API key".
     */
    RateLimiter(final double ratePerSecond, final double burst, final String whose)
    {
        this.ratePerSecond = ratePerSecond;
        this.burst = burst;
        this.whose = whose;
    }

    /**
     * @return a bucket of this limiter's rate and burst, for something other than a key.
     */
    Bucket newBucket(final long nowNs)
    {
        return new Bucket(ratePerSecond, burst, nowNs);
    }

    /**
     * Take tokens of the key's bucket, all or none.
     *
     * @param count at most {@link #burst()}.
     * @throws ApiException 429 with Retry-After when the key has fewer left.
     */
    void acquire(final String key, final long nowNs, final int count)
    {
        final long retryAfterS = tryAcquire(key, nowNs, count);
        if (retryAfterS > 0)
        {
            final ApiException refusal = refusal(retryAfterS);
            throw count == 1 ? refusal : new ApiException(refusal.status, refusal.code, refusal.getMessage() +
                ": this batch takes " + count + " tokens, one an order", null, retryAfterS);
        }
    }

    /**
     * @param retryAfterS what {@link #tryAcquire} said.
     * @return the 429 RATE_LIMITED to answer a request over the rate with.
     */
    ApiException refusal(final long retryAfterS)
    {
        return new ApiException(429, "RATE_LIMITED", "more than " + describe() + " " + whose, null, retryAfterS);
    }

    /**
     * @return 0 when a token of the key's bucket was taken, else the whole seconds to wait before the next one.
     */
    long tryAcquire(final String key, final long nowNs)
    {
        return tryAcquire(key, nowNs, 1);
    }

    /**
     * @return 0 when {@code count} tokens of the key's bucket were taken, else the whole seconds to wait until there
     * are as many.
     */
    long tryAcquire(final String key, final long nowNs, final int count)
    {
        if (buckets.size() > SWEEP_ABOVE && (lastSweepNs == Long.MIN_VALUE || nowNs - lastSweepNs > 1_000_000_000L))
        {
            lastSweepNs = nowNs;
            // A token taken from a bucket as it goes is not counted: the key's next request finds a full one.
            buckets.values().removeIf(bucket -> bucket.isFull(nowNs));
        }
        return buckets.computeIfAbsent(key, ignored -> newBucket(nowNs)).tryTake(nowNs, count);
    }

    /**
     * @return how many keys have a bucket: those that took a token and are not yet forgotten.
     */
    int buckets()
    {
        return buckets.size();
    }

    /**
     * @return the most tokens a key has at once.
     */
    long burst()
    {
        return (long)burst;
    }

    /**
     * @return the limit in words, for error messages.
     */
    String describe()
    {
        return (long)ratePerSecond + " requests a second (burst " + (long)burst + ")";
    }
}
