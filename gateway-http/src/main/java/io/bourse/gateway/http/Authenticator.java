package io.bourse.gateway.http;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Checks signed requests: {@code X-Bourse-Key}, {@code X-Bourse-Timestamp} (Unix milliseconds) and
 * {@code X-Bourse-Signature}, the lower-case hex HMAC-SHA256, under the key's secret, of
 * {@code timestamp + method + pathWithQuery + body}. A timestamp further than the window from the server's clock
 * is refused, which bounds how long a captured request can be replayed; within the window, a request that acts
 * (anything but GET and HEAD, and a WebSocket's authentication) is accepted once: its signature is remembered until its
 * timestamp leaves the window, and the same signed request again is refused. Reads may repeat: a client polling the
 * same resource twice in a millisecond signs the same bytes, and reading again changes nothing.
 * <p>
 * A request whose signature holds takes a token of its key's rate limit before its signature is remembered: a request
 * refused for the rate is not remembered (the client may send it again as it is), and the signatures remembered are
 * bounded by the keys' rates.
 */
final class Authenticator
{
    /**
     * How often the remembered signatures are swept of those whose timestamp has left the window.
     */
    private static final long SWEEP_INTERVAL_MS = 1_000;

    private final Map<String, ApiKey> keys = new HashMap<>();
    private final long windowMs;
    private final boolean rejectReplays;
    private final RateLimiter rateLimiter;
    private final ThreadLocal<Map<String, Mac>> macs = ThreadLocal.withInitial(HashMap::new);
    /**
     * Signatures of accepted single-use requests, each with the time after which its timestamp is stale anyway. Bounded
     * by the rate limit: at most the keys' requests of two windows and a sweep interval.
     */
    private final ConcurrentHashMap<ByteBuffer, Long> accepted = new ConcurrentHashMap<>();
    private final AtomicLong nextSweepMs = new AtomicLong();

    /**
     * @param rejectReplays whether a single-use request is refused when it comes again within the window; off only
     *                      for load generators that replay pre-signed requests.
     * @param rateLimiter   the requests' rate limit per key.
     */
    Authenticator(
        final List<ApiKey> keys, final long windowMs, final boolean rejectReplays, final RateLimiter rateLimiter)
    {
        for (final ApiKey key : keys)
        {
            this.keys.put(key.key(), key);
        }
        this.windowMs = windowMs;
        this.rejectReplays = rejectReplays;
        this.rateLimiter = rateLimiter;
    }

    /**
     * @param singleUse whether the request acts (is accepted once) rather than reads.
     * @param tokens    of the key's rate limit the request takes: 1, or a batch's orders.
     * @param nowMs     the server's time, Unix milliseconds; also the rate limit's clock.
     * @return the key that signed the request.
     * @throws ApiException 401 naming what is wrong, 429 when the key is over its rate, or 400 for a batch of more
     *                      orders than the rate limit's burst, which no wait would let through.
     */
    ApiKey authenticate(
        final String key, final String timestamp, final String signature, final String method,
        final String pathWithQuery, final byte[] body, final boolean singleUse, final int tokens, final long nowMs)
    {
        if (key == null || timestamp == null || signature == null)
        {
            throw new ApiException(401, "MISSING_CREDENTIALS",
                "signed requests need the headers X-Bourse-Key, X-Bourse-Timestamp and X-Bourse-Signature", null);
        }
        final ApiKey apiKey = keys.get(key);
        if (apiKey == null)
        {
            throw new ApiException(401, "UNKNOWN_API_KEY", "unknown API key", null);
        }
        final long timestampMs;
        try
        {
            timestampMs = Long.parseLong(timestamp);
        }
        catch (final NumberFormatException ex)
        {
            throw new ApiException(401, "INVALID_TIMESTAMP",
                "X-Bourse-Timestamp: expected Unix time in milliseconds", null);
        }
        if (Math.abs(nowMs - timestampMs) > windowMs)
        {
            throw new ApiException(401, "STALE_TIMESTAMP", "X-Bourse-Timestamp is more than " + windowMs +
                " ms from the server's time (" + nowMs + "): check the client's clock", null);
        }
        final byte[] expected = sign(apiKey, timestamp, method, pathWithQuery, body);
        final byte[] given;
        try
        {
            given = HexFormat.of().parseHex(signature);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ApiException(401, "INVALID_SIGNATURE", "X-Bourse-Signature: expected hex", null);
        }
        if (!MessageDigest.isEqual(expected, given))
        {
            throw new ApiException(401, "INVALID_SIGNATURE",
                "signature does not match HMAC-SHA256(secret, timestamp + method + path + body)", null);
        }
        if (!singleUse || !rejectReplays)
        {
            takeTokens(key, nowMs, tokens);
            return apiKey;
        }
        final ByteBuffer signed = ByteBuffer.wrap(expected);
        sweepAt(nowMs);
        if (accepted.containsKey(signed))
        {
            throw replayed();
        }
        takeTokens(key, nowMs, tokens);
        // Looked up again: the same request may have come on two connections at once.
        if (accepted.putIfAbsent(signed, timestampMs + windowMs) != null)
        {
            throw replayed();
        }
        return apiKey;
    }

    /**
     * Take the request's tokens of the key's rate limit. A batch larger than the burst is refused here, once the
     * signature holds, so that only a client with a valid key learns the burst.
     */
    private void takeTokens(final String key, final long nowMs, final int tokens)
    {
        if (tokens > rateLimiter.burst())
        {
            throw ApiException.badRequest("OUT_OF_RANGE", "orders: a batch takes one token of the key's rate limit " +
                "an order, and the limit's burst is " + rateLimiter.burst() + ": send at most that many at once",
                "orders");
        }
        rateLimiter.acquire(key, nowMs * 1_000_000L, tokens);
    }

    /**
     * Forget an accepted request that was then refused before it acted, so that it may be sent again as it was.
     *
     * @param signature the request's {@code X-Bourse-Signature}, which {@link #authenticate} accepted.
     */
    void forget(final String signature)
    {
        accepted.remove(ByteBuffer.wrap(HexFormat.of().parseHex(signature)));
    }

    private static ApiException replayed()
    {
        return new ApiException(401, "REPLAYED_REQUEST", "the same signed request was already accepted within the " +
            "auth window: a new request needs a new timestamp or another body (its own clientOrderId)", null);
    }

    /**
     * @return whether a request with this method acts, and so is accepted once.
     */
    static boolean isSingleUse(final String method)
    {
        return !method.equals("GET") && !method.equals("HEAD");
    }

    /**
     * @return signatures of single-use requests remembered now.
     */
    int rememberedCount()
    {
        return accepted.size();
    }

    private void sweepAt(final long nowMs)
    {
        final long due = nextSweepMs.get();
        if (nowMs >= due && nextSweepMs.compareAndSet(due, nowMs + SWEEP_INTERVAL_MS))
        {
            // A remembered signature whose timestamp has left the window is refused as stale before it is looked up.
            accepted.values().removeIf(staleAfterMs -> staleAfterMs < nowMs);
        }
    }

    private byte[] sign(
        final ApiKey apiKey, final String timestamp, final String method, final String pathWithQuery, final byte[] body)
    {
        final Mac mac = macs.get().computeIfAbsent(apiKey.key(), ignored -> newMac(apiKey.secret()));
        mac.update(timestamp.getBytes(StandardCharsets.US_ASCII));
        mac.update(method.getBytes(StandardCharsets.US_ASCII));
        mac.update(pathWithQuery.getBytes(StandardCharsets.UTF_8));
        mac.update(body);
        return mac.doFinal();
    }

    /**
     * The signature a client computes; for clients and tests.
     */
    static String signature(
        final String secret, final String timestamp, final String method, final String pathWithQuery, final byte[] body)
    {
        final Mac mac = newMac(secret);
        mac.update((timestamp + method + pathWithQuery).getBytes(StandardCharsets.UTF_8));
        mac.update(body);
        return HexFormat.of().formatHex(mac.doFinal());
    }

    private static Mac newMac(final String secret)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 is not available", ex);
        }
    }
}
