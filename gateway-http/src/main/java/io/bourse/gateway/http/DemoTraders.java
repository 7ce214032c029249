package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Simulated traders for a live-looking market in the UI: through the public REST API (signed like any client),
 * they rest orders around a drifting mid price (at most {@link #RESTING_ORDERS_PER_TRADER} each), cancel some, and now
 * and then cross the spread. For demos only.
 */
public final class DemoTraders implements AutoCloseable
{
    /**
     * Orders a trader keeps resting at most: a book of a few hundred orders around the mid.
     */
    static final int RESTING_ORDERS_PER_TRADER = 100;

    private final String baseUrl;
    private final List<ApiKey> keys;
    private final String symbol;
    private final long periodNs;
    private final Random random;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Thread thread;
    private volatile boolean running = true;
    private BigDecimal mid;
    private BigDecimal tick;
    private BigDecimal lot;
    private long failures;

    /**
     * @param baseUrl         the gateway, e.g. {@code http://127.0.0.1:8080}.
     * @param keys            trading keys of the simulated traders (two or more).
     * @param symbol          the instrument to trade.
     * @param startMid        the starting mid price when the instrument has not traded.
     * @param actionsPerSecond how busy they are.
     * @param seed            random seed, printed at start so a run can be repeated.
     */
    public DemoTraders(
        final String baseUrl, final List<ApiKey> keys, final String symbol, final BigDecimal startMid,
        final double actionsPerSecond, final long seed)
    {
        this.baseUrl = baseUrl;
        this.keys = List.copyOf(keys);
        this.symbol = symbol;
        this.mid = startMid;
        this.periodNs = (long)(1e9 / actionsPerSecond);
        this.random = new Random(seed);
        this.thread = new Thread(this::run, "bourse-demo-traders");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    public void close()
    {
        running = false;
        thread.interrupt();
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        try
        {
            final JsonNode instruments = call(null, "GET", "/api/v1/instruments", null);
            for (final JsonNode instrument : instruments)
            {
                if (instrument.get("symbol").asText().equals(symbol))
                {
                    tick = new BigDecimal(instrument.get("tickSize").asText());
                    lot = new BigDecimal(instrument.get("lotSize").asText());
                }
            }
            if (tick == null)
            {
                System.err.println("bourse: demo traders: no instrument " + symbol);
                return;
            }
            final JsonNode ticker = call(null, "GET", "/api/v1/ticker/" + symbol, null);
            if (ticker.hasNonNull("lastPrice"))
            {
                mid = new BigDecimal(ticker.get("lastPrice").asText());
            }
            while (running)
            {
                step();
                TimeUnit.NANOSECONDS.sleep(periodNs);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final IOException | RuntimeException ex)
        {
            if (running)
            {
                System.err.println("bourse: demo traders stopped: " + ex);
            }
        }
    }

    private void step() throws IOException, InterruptedException
    {
        final ApiKey trader = keys.get(random.nextInt(keys.size()));
        mid = mid.add(tick.multiply(BigDecimal.valueOf(random.nextInt(11) - 5))).max(tick.multiply(BigDecimal.valueOf(100)));
        final int action = random.nextInt(100);
        final JsonNode open = call(trader, "GET", "/api/v1/orders?symbol=" + symbol, null);
        final int resting = open == null ? 0 : open.size();
        if (resting > 0 && (action < 20 || resting >= RESTING_ORDERS_PER_TRADER))
        {
            // The mid wanders away from old orders, which would then rest for ever: at its depth, a trader cancels the
            // one farthest from the mid instead of placing another (and would otherwise reach its account's limit of
            // open orders, after which every placement is refused).
            final JsonNode cancel = resting >= RESTING_ORDERS_PER_TRADER ? farthestFromMid(open) :
                open.get(random.nextInt(resting));
            call(trader, "DELETE", "/api/v1/orders/" + cancel.get("orderId").asText(), null);
            return;
        }
        final boolean buy = random.nextBoolean();
        final BigDecimal quantity = lot.multiply(BigDecimal.valueOf(10 + random.nextInt(500)));
        final BigDecimal price;
        final String timeInForce;
        if (action >= 88)
        {
            // Cross the spread: a marketable limit order that takes what is there and leaves nothing behind.
            price = mid.add(tick.multiply(BigDecimal.valueOf(buy ? 40 : -40)));
            timeInForce = "IOC";
        }
        else
        {
            final int ticksAway = 1 + random.nextInt(30);
            price = mid.add(tick.multiply(BigDecimal.valueOf(buy ? -ticksAway : ticksAway)));
            timeInForce = "GTC";
        }
        final String body = "{\"symbol\":\"" + symbol + "\",\"side\":\"" + (buy ? "BUY" : "SELL") + "\",\"price\":\"" +
            price.toPlainString() + "\",\"quantity\":\"" + quantity.toPlainString() + "\",\"timeInForce\":\"" +
            timeInForce + "\"}";
        call(trader, "POST", "/api/v1/orders", body);
    }

    private JsonNode farthestFromMid(final JsonNode orders)
    {
        JsonNode farthest = orders.get(0);
        BigDecimal distance = BigDecimal.ZERO;
        for (final JsonNode order : orders)
        {
            final BigDecimal away = new BigDecimal(order.get("price").asText()).subtract(mid).abs();
            if (away.compareTo(distance) > 0)
            {
                farthest = order;
                distance = away;
            }
        }
        return farthest;
    }

    private JsonNode call(final ApiKey key, final String method, final String path, final String body)
        throws IOException, InterruptedException
    {
        final byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(Duration.ofSeconds(10))
            .method(method, bytes.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(bytes));
        if (key != null)
        {
            final String timestamp = Long.toString(System.currentTimeMillis());
            request.header("Content-Type", "application/json")
                .header("X-Bourse-Key", key.key())
                .header("X-Bourse-Timestamp", timestamp)
                .header("X-Bourse-Signature", Authenticator.signature(key.secret(), timestamp, method, path, bytes));
        }
        final HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() >= 500 && ++failures % 100 == 1)
        {
            System.err.println("bourse: demo traders: " + response.statusCode() + " " +
                new String(response.body(), StandardCharsets.UTF_8));
        }
        return response.statusCode() == 200 ? Views.MAPPER.readTree(response.body()) : null;
    }
}
