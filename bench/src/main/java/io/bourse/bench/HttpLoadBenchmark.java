package io.bourse.bench;

import io.aeron.cluster.service.Cluster;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.gateway.http.ApiKey;
import io.bourse.gateway.http.HttpGateway;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import org.HdrHistogram.Histogram;
import org.agrona.IoUtil;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Load on the HTTP gateway with the embedded node, as {@code bourse run} has it: signed order placements over
 * keep-alive connections at a fixed rate (open loop: latency from each request's intended send time, so a stall is
 * counted against every request it delays, no coordinated omission), then WebSocket subscribers of the L2 book
 * channel checking that every update's sequence follows the one before.
 * <p>
 * Everything runs in one JVM (node, gateway, load client), so the client's CPU is taken from the server's two
 * cores: the figures are conservative. Options: {@code --rate N --seconds N --warmup-seconds N --connections N
 * --event-loops N --subscribers N --ws-rate N --ws-seconds N --seed N --phases=saturate,rate,fanout}; with
 * {@code --serve-seconds N} it only serves, for wrk ({@code ./bourse bench http-wrk}).
 */
public final class HttpLoadBenchmark
{
    private static final String SYMBOL = "BTC-USD";
    private static final int ACCOUNTS = 8;

    private final Map<String, String> options;
    private final HttpClient setupClient = HttpClient.newHttpClient();
    private final List<ApiKey> traders = new ArrayList<>();
    private final ApiKey admin = new ApiKey("bench-admin", "bench-admin-secret", 0, true);
    private String baseUrl;
    private int port;

    private HttpLoadBenchmark(final Map<String, String> options)
    {
        this.options = options;
        for (int i = 1; i <= ACCOUNTS; i++)
        {
            traders.add(new ApiKey("bench-" + i, "bench-secret-" + i, i, false));
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final Map<String, String> options = new java.util.HashMap<>();
        for (final String arg : args)
        {
            final int equals = arg.indexOf('=');
            if (!arg.startsWith("--") || equals < 0)
            {
                throw new IllegalArgumentException("options are --name=value, got " + arg);
            }
            options.put(arg.substring(2, equals), arg.substring(equals + 1));
        }
        new HttpLoadBenchmark(options).run();
    }

    private long option(final String name, final long defaultValue)
    {
        return Long.parseLong(options.getOrDefault(name, Long.toString(defaultValue)));
    }

    private void run() throws Exception
    {
        final File dir = Files.createTempDirectory("bourse-http-bench").toFile();
        final int portBase = 10_000 + new SplittableRandom().nextInt(100) * 10;
        // As `bourse run` has it unless configured otherwise (agent.yield.us).
        final long agentYieldWindowNs = TimeUnit.MICROSECONDS.toNanos(
            option("agent-yield-us", TimeUnit.NANOSECONDS.toMicros(NodeIdleStrategy.DEFAULT_YIELD_WINDOW_NS)));
        final ClusterNode node = ClusterNode.launch(new ClusterNode.Context()
            .dataDir(new File(dir, "node"))
            .memberHosts(List.of("localhost"))
            .portBase(portBase)
            .agentYieldWindowNs(agentYieldWindowNs)
            .aeronDirectoryName(new File(System.getProperty("java.io.tmpdir"), "bourse-http-bench-" + portBase).getPath())
            .log(new PrintStream(OutputStream.nullOutputStream())));
        while (node.role() != Cluster.Role.LEADER)
        {
            Thread.sleep(10);
        }
        final List<ApiKey> keys = new ArrayList<>(traders);
        keys.add(admin);
        final HttpGateway gateway = HttpGateway.launch(new HttpGateway.Context()
            .port(0)
            .eventLoops((int)option("event-loops", 1))
            .agentYieldWindowNs(agentYieldWindowNs)
            .apiKeys(keys)
            .rateLimit(1e9, 1e9)
            // The fan-out phase opens every subscriber from this one address.
            .webSocketLimits((int)option("subscribers", 200) + 10, (int)option("subscribers", 200) + 10)
            .addressRateLimit(0, 1)
            .authWindowMs(option("auth-window-ms", 5_000))
            // The served mode's load generators send each pre-signed placement many times, and the in-process ones draw
            // placements from a few thousand kinds without client order ids, so identical ones fall in one millisecond.
            .rejectReplays(false)
            .clientContext(node.clientContext()));
        gateway.awaitReady(TimeUnit.SECONDS.toNanos(60));
        port = gateway.port();
        baseUrl = "http://127.0.0.1:" + port;
        final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        try
        {
            setUp();
            if (options.containsKey("serve-seconds"))
            {
                serve(option("serve-seconds", 30), options.getOrDefault("wrk-script", "bench/target/wrk-orders.lua"));
                return;
            }
            System.out.printf("machine: %d cores, %s, JVM %s; load client in the same JVM as node and gateway%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), System.getProperty("java.version"));
            System.out.printf("load before: %s%n", loadAverage());
            final String phases = options.getOrDefault("phases", "saturate,rate,fanout");
            if (phases.contains("saturate"))
            {
                saturate(vertx, (int)option("in-flight", 64), option("saturate-seconds", 15));
                System.out.printf("load after saturation: %s%n", loadAverage());
            }
            if (phases.contains("rate"))
            {
                placements(vertx, option("rate", 20_000), option("warmup-seconds", 5), option("seconds", 20),
                    (int)option("connections", 32), option("seed", 42));
                System.out.printf("load after placements: %s%n", loadAverage());
            }
            if (phases.contains("fanout"))
            {
                fanOut(vertx, (int)option("subscribers", 200), option("ws-rate", 1_000), option("ws-seconds", 10));
                System.out.printf("load after fan-out: %s%n", loadAverage());
            }
        }
        finally
        {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            gateway.close();
            node.close();
            IoUtil.delete(dir, true);
        }
    }

    private void setUp() throws Exception
    {
        setup("PUT", "/api/v1/admin/assets/BTC", "{\"id\":1,\"scale\":8}");
        setup("PUT", "/api/v1/admin/assets/USD", "{\"id\":2,\"scale\":6}");
        setup("PUT", "/api/v1/admin/instruments/" + SYMBOL, "{\"id\":1,\"baseAsset\":\"BTC\",\"quoteAsset\":\"USD\"," +
            "\"priceScale\":2,\"tickSize\":\"0.01\",\"quantityScale\":4,\"lotSize\":\"0.0001\",\"makerFeePpm\":1000," +
            "\"takerFeePpm\":2000}");
        long transactionId = 1;
        for (final ApiKey trader : traders)
        {
            setup("POST", "/api/v1/admin/accounts/" + trader.accountId() + "/deposits",
                "{\"asset\":\"BTC\",\"amount\":\"1000000\",\"transactionId\":" + transactionId++ + "}");
            setup("POST", "/api/v1/admin/accounts/" + trader.accountId() + "/deposits",
                "{\"asset\":\"USD\",\"amount\":\"100000000000\",\"transactionId\":" + transactionId++ + "}");
        }
    }

    private void setup(final String method, final String path, final String body) throws Exception
    {
        final String timestamp = Long.toString(System.currentTimeMillis());
        final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        final HttpResponse<String> response = setupClient.send(HttpRequest.newBuilder(URI.create(baseUrl + path))
            .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes))
            .header("X-Bourse-Key", admin.key()).header("X-Bourse-Timestamp", timestamp)
            .header("X-Bourse-Signature", sign(admin.secret(), timestamp, method, path, bytes)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200)
        {
            throw new IllegalStateException(path + ": " + response.body());
        }
    }

    /**
     * Open-loop placements: request i is due at start + i / rate; its latency runs from then to its response.
     */
    private void placements(
        final Vertx vertx, final long rate, final long warmupSeconds, final long seconds, final int connections,
        final long seed) throws Exception
    {
        final HttpClientAgent client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true)
            .setDefaultHost("127.0.0.1").setDefaultPort(port), new PoolOptions().setHttp1MaxSize(connections).setMaxWaitQueueSize(-1));
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong inFlight = new AtomicLong();
        final Mac[] macs = new Mac[traders.size()];
        for (int i = 0; i < macs.length; i++)
        {
            macs[i] = mac(traders.get(i).secret());
        }
        final SplittableRandom random = new SplittableRandom(seed);
        final long intervalNs = TimeUnit.SECONDS.toNanos(1) / rate;
        final long total = rate * (warmupSeconds + seconds);
        final long warmupCount = rate * warmupSeconds;
        final long[] measuredStartEnd = new long[2];
        final CpuUse cpu = new CpuUse();
        final io.vertx.core.Context clientContext = vertx.getOrCreateContext();
        final long startNs = System.nanoTime();
        boolean overloaded = false;
        for (long i = 0; i < total; i++)
        {
            final long intendedNs = startNs + i * intervalNs;
            long waitNs;
            while ((waitNs = intendedNs - System.nanoTime()) > 50_000)
            {
                LockSupport.parkNanos(waitNs - 20_000);
            }
            if (i == warmupCount)
            {
                cpu.start();
                measuredStartEnd[0] = System.nanoTime();
                synchronized (latency)
                {
                    latency.reset();
                }
                ok.set(0);
                failed.set(0);
            }
            if (inFlight.get() > rate * 5)
            {
                System.out.printf("placements: NOT SUSTAINED at %d/s: more than 5 s of requests outstanding after %.1f s; " +
                    "%d completed in the measured window%n", rate, (System.nanoTime() - startNs) / 1e9, ok.get());
                overloaded = true;
                break;
            }
            final int account = random.nextInt(traders.size());
            final boolean buy = random.nextBoolean();
            final long priceTicks = 100_000 + (buy ? -1 : 1) * (random.nextInt(60) - 10);
            final long lots = 1 + random.nextInt(100);
            final String body = "{\"symbol\":\"" + SYMBOL + "\",\"side\":\"" + (buy ? "BUY" : "SELL") + "\",\"price\":\"" +
                (priceTicks / 100) + "." + (priceTicks % 100 < 10 ? "0" : "") + (priceTicks % 100) + "\",\"quantity\":\"0.0" +
                (lots < 10 ? "00" : lots < 100 ? "0" : "") + lots + "\"}";
            final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            final String timestamp = Long.toString(System.currentTimeMillis());
            final String signature = sign(macs[account], timestamp, "POST", "/api/v1/orders", bytes);
            final boolean measured = i >= warmupCount;
            final RequestOptions requestOptions = new RequestOptions().setMethod(HttpMethod.POST).setURI("/api/v1/orders")
                .putHeader("Content-Type", "application/json")
                .putHeader("X-Bourse-Key", traders.get(account).key())
                .putHeader("X-Bourse-Timestamp", timestamp)
                .putHeader("X-Bourse-Signature", signature);
            inFlight.incrementAndGet();
            // Issued on the client's own event loop: a request made from a foreign thread costs a new context each.
            clientContext.runOnContext(ignored -> client.request(requestOptions)
                .compose(request -> request.send(Buffer.buffer(bytes)))
                .compose(response -> response.body().map(ignore -> response.statusCode()))
                .onComplete(result ->
                {
                    inFlight.decrementAndGet();
                    final long nowNs = System.nanoTime();
                    if (result.succeeded() && result.result() == 200)
                    {
                        ok.incrementAndGet();
                    }
                    else
                    {
                        failed.incrementAndGet();
                    }
                    if (measured)
                    {
                        synchronized (latency)
                        {
                            latency.recordValue(Math.min(nowNs - intendedNs, latency.getHighestTrackableValue()));
                        }
                        measuredStartEnd[1] = nowNs;
                    }
                }));
        }
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (inFlight.get() > 0 && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(10);
        }
        if (overloaded || measuredStartEnd[1] == 0)
        {
            client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            return;
        }
        final double elapsedS = (measuredStartEnd[1] - measuredStartEnd[0]) / 1e9;
        cpu.report(ok.get());
        System.out.printf("placements: target %d/s over %d s (after %d s warm-up), %d connections: %d ok, %d failed, " +
                "%.0f/s completed%n", rate, seconds, warmupSeconds, connections, ok.get(), failed.get(), ok.get() / elapsedS);
        synchronized (latency)
        {
            System.out.printf("placement latency from intended send (µs): p50 %d, p90 %d, p99 %d, p99.9 %d, max %d%n",
                latency.getValueAtPercentile(50) / 1000, latency.getValueAtPercentile(90) / 1000,
                latency.getValueAtPercentile(99) / 1000, latency.getValueAtPercentile(99.9) / 1000,
                latency.getMaxValue() / 1000);
        }
        final HttpResponse<String> monitor = setupClient.send(HttpRequest.newBuilder(URI.create(baseUrl + "/api/v1/monitor"))
            .build(), HttpResponse.BodyHandlers.ofString());
        final String figures = monitor.body();
        System.out.printf("gateway's own stages, last second (µs): %s%n",
            figures.substring(figures.indexOf("\"latencyUs\""), figures.indexOf(",\"rejects\"")));
        client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * For a load generator in another process (wrk): write a Lua script holding pre-signed placements (valid for the
     * gateway's auth window, which the caller sets long enough with --auth-window-ms), then serve for a while and
     * report this JVM's CPU per placement (node and gateway only) and the gateway's stage percentiles.
     */
    private void serve(final long seconds, final String scriptPath) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(11);
        final Mac[] macs = new Mac[traders.size()];
        for (int i = 0; i < macs.length; i++)
        {
            macs[i] = mac(traders.get(i).secret());
        }
        final StringBuilder lua = new StringBuilder(8 * 1024 * 1024)
            .append("-- Generated by HttpLoadBenchmark --serve-seconds: pre-signed order placements, sent round robin.\n")
            .append("local requests = {}\n");
        final String timestamp = Long.toString(System.currentTimeMillis());
        final int count = 20_000;
        // The same requests as raw HTTP/1.1 for HttpOpenLoopClient: a count, then each one's length and bytes.
        final ByteArrayOutputStream raw = new ByteArrayOutputStream(8 * 1024 * 1024);
        final DataOutputStream rawOut = new DataOutputStream(raw);
        rawOut.writeInt(count);
        for (int i = 0; i < count; i++)
        {
            final int account = random.nextInt(traders.size());
            final boolean buy = random.nextBoolean();
            final long priceTicks = 100_000 + (buy ? -1 : 1) * (random.nextInt(60) - 10);
            final String body = "{\"symbol\":\"" + SYMBOL + "\",\"side\":\"" + (buy ? "BUY" : "SELL") + "\",\"price\":\"" +
                (priceTicks / 100) + "." + (priceTicks % 100 < 10 ? "0" : "") + (priceTicks % 100) + "\",\"quantity\":\"0.0010\"}";
            final String signature = sign(macs[account], timestamp, "POST", "/api/v1/orders",
                body.getBytes(StandardCharsets.UTF_8));
            lua.append("requests[").append(i + 1).append("] = wrk.format(\"POST\", \"/api/v1/orders\", {[\"Content-Type\"]=")
                .append("\"application/json\", [\"X-Bourse-Key\"]=\"").append(traders.get(account).key())
                .append("\", [\"X-Bourse-Timestamp\"]=\"").append(timestamp).append("\", [\"X-Bourse-Signature\"]=\"")
                .append(signature).append("\"}, '").append(body).append("')\n");
            final byte[] request = ("POST /api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" +
                "Content-Type: application/json\r\nX-Bourse-Key: " + traders.get(account).key() + "\r\n" +
                "X-Bourse-Timestamp: " + timestamp + "\r\nX-Bourse-Signature: " + signature + "\r\n" +
                "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8);
            rawOut.writeInt(request.length);
            rawOut.write(request);
        }
        lua.append("local i = 0\nrequest = function()\n  i = i % ").append(count)
            .append(" + 1\n  return requests[i]\nend\n")
            .append("local errors = 0\nresponse = function(status, headers, body)\n  if status ~= 200 then errors = errors + 1 end\nend\n")
            .append("done = function(summary, latency, requests)\n")
            .append("  io.write(string.format(\"wrk: %d requests, %d non-2xx/3xx reported by wrk\\n\", summary.requests, summary.errors.status))\n")
            .append("end\n");
        Files.writeString(new File(scriptPath).toPath(), lua);
        Files.write(new File(scriptPath + ".requests").toPath(), raw.toByteArray());
        System.out.printf("serving on port %d for %d s; wrk script %s (%d pre-signed placements)%n", port, seconds,
            scriptPath, count);
        Files.writeString(new File(scriptPath + ".port").toPath(), Integer.toString(port));
        Thread.sleep(3_000);
        final CpuUse cpu = new CpuUse();
        final long commandsBefore = commandsTotal();
        cpu.start();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        final long placements = commandsTotal() - commandsBefore;
        System.out.printf("server side over %d s: %d placements (%.0f/s) reached the cluster%n", seconds, placements,
            placements / (double)seconds);
        cpu.report(Math.max(1, placements));
        final String figures = setupClient.send(HttpRequest.newBuilder(URI.create(baseUrl + "/api/v1/monitor")).build(),
            HttpResponse.BodyHandlers.ofString()).body();
        System.out.printf("gateway's own stages, last second (µs): %s%n",
            figures.substring(figures.indexOf("\"latencyUs\""), figures.indexOf(",\"rejects\"")));
    }

    private long commandsTotal() throws Exception
    {
        final String figures = setupClient.send(HttpRequest.newBuilder(URI.create(baseUrl + "/api/v1/monitor")).build(),
            HttpResponse.BodyHandlers.ofString()).body();
        final int at = figures.indexOf("\"commandsTotal\":") + 16;
        int end = at;
        while (Character.isDigit(figures.charAt(end)))
        {
            end++;
        }
        return Long.parseLong(figures.substring(at, end));
    }

    /**
     * Closed loop for the ceiling: a fixed number of requests in flight over as many keep-alive connections, each
     * sent as soon as the one before it is answered. Its latency is service time under saturation (a closed loop
     * hides queueing; the open-loop phase measures latency at a rate).
     */
    private void saturate(final Vertx vertx, final int inFlightTarget, final long seconds) throws Exception
    {
        final HttpClientAgent client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true)
            .setDefaultHost("127.0.0.1").setDefaultPort(port), new PoolOptions().setHttp1MaxSize(inFlightTarget));
        final Mac[] macs = new Mac[traders.size()];
        for (int i = 0; i < macs.length; i++)
        {
            macs[i] = mac(traders.get(i).secret());
        }
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final SplittableRandom random = new SplittableRandom(3);
        final io.vertx.core.Context context = vertx.getOrCreateContext();
        final long warmupEndNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        final long endNs = warmupEndNs + TimeUnit.SECONDS.toNanos(seconds);
        final CpuUse cpu = new CpuUse();
        final long[] measuredStartNs = { 0 };
        final Runnable[] next = new Runnable[1];
        next[0] = () ->
        {
            final long nowNs = System.nanoTime();
            if (nowNs > endNs)
            {
                return;
            }
            if (nowNs > warmupEndNs && measuredStartNs[0] == 0)
            {
                measuredStartNs[0] = nowNs;
                latency.reset();
                ok.set(0);
                failed.set(0);
                cpu.start();
            }
            final int account = random.nextInt(traders.size());
            final boolean buy = random.nextBoolean();
            final long priceTicks = 100_000 + (buy ? -1 : 1) * (random.nextInt(60) - 10);
            final String body = "{\"symbol\":\"" + SYMBOL + "\",\"side\":\"" + (buy ? "BUY" : "SELL") + "\",\"price\":\"" +
                (priceTicks / 100) + "." + (priceTicks % 100 < 10 ? "0" : "") + (priceTicks % 100) + "\",\"quantity\":\"0.0010\"}";
            final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            final String timestamp = Long.toString(System.currentTimeMillis());
            client.request(new RequestOptions().setMethod(HttpMethod.POST).setURI("/api/v1/orders")
                    .putHeader("Content-Type", "application/json")
                    .putHeader("X-Bourse-Key", traders.get(account).key())
                    .putHeader("X-Bourse-Timestamp", timestamp)
                    .putHeader("X-Bourse-Signature", sign(macs[account], timestamp, "POST", "/api/v1/orders", bytes)))
                .compose(request -> request.send(Buffer.buffer(bytes)))
                .compose(response -> response.body().map(ignore -> response.statusCode()))
                .onComplete(result ->
                {
                    if (result.succeeded() && result.result() == 200)
                    {
                        ok.incrementAndGet();
                    }
                    else
                    {
                        failed.incrementAndGet();
                    }
                    latency.recordValue(Math.min(System.nanoTime() - nowNs, latency.getHighestTrackableValue()));
                    next[0].run();
                });
        };
        context.runOnContext(ignored ->
        {
            for (int i = 0; i < inFlightTarget; i++)
            {
                next[0].run();
            }
        });
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(endNs - System.nanoTime()) + 2_000);
        final long completed = ok.get();
        final double elapsedS = (endNs - measuredStartNs[0]) / 1e9;
        context.runOnContext(ignored ->
        {
            System.out.printf("saturation: %d in flight over keep-alive connections for %d s (after 5 s warm-up): " +
                "%.0f placements/s answered 200, %d failed; service time (µs) p50 %d, p99 %d, max %d%n", inFlightTarget,
                seconds, completed / elapsedS, failed.get(), latency.getValueAtPercentile(50) / 1000,
                latency.getValueAtPercentile(99) / 1000, latency.getMaxValue() / 1000);
            cpu.report(completed);
        });
        Thread.sleep(500);
        client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * Subscribers of the book channel while orders flow at a fixed rate; each checks its updates are numbered one by
     * one (a gap would be a dropped update).
     */
    private void fanOut(final Vertx vertx, final int subscribers, final long rate, final long seconds) throws Exception
    {
        final WebSocketClient wsClient = vertx.createWebSocketClient(new WebSocketClientOptions()
            .setDefaultHost("127.0.0.1").setDefaultPort(port).setMaxConnections(subscribers + 10));
        final long[] lastSequence = new long[subscribers];
        final AtomicLong updates = new AtomicLong();
        final AtomicLong gaps = new AtomicLong();
        final AtomicLong snapshots = new AtomicLong();
        final List<WebSocket> sockets = new ArrayList<>();
        for (int s = 0; s < subscribers; s++)
        {
            final int subscriber = s;
            final WebSocket socket = wsClient.connect("/ws").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            socket.textMessageHandler(text ->
            {
                if (text.startsWith("{\"type\":\"book.update\"") || text.startsWith("{\"type\":\"book.snapshot\"") ||
                    text.contains("\"type\":\"book.snapshot\""))
                {
                    final int at = text.indexOf("\"sequence\":") + 11;
                    int end = at;
                    while (Character.isDigit(text.charAt(end)))
                    {
                        end++;
                    }
                    final long sequence = Long.parseLong(text, at, end, 10);
                    if (text.contains("book.snapshot"))
                    {
                        snapshots.incrementAndGet();
                    }
                    else
                    {
                        updates.incrementAndGet();
                        if (sequence != lastSequence[subscriber] + 1)
                        {
                            gaps.incrementAndGet();
                        }
                    }
                    lastSequence[subscriber] = sequence;
                }
            });
            socket.writeTextMessage("{\"op\":\"subscribe\",\"channel\":\"book\",\"symbol\":\"" + SYMBOL + "\"}");
            sockets.add(socket);
        }
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (snapshots.get() < subscribers && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(10);
        }
        System.out.printf("fan-out: %d subscribers connected, %d snapshots received%n", subscribers, snapshots.get());
        placements(vertx, rate, 1, seconds, 8, 7);
        Thread.sleep(2_000);
        System.out.printf("fan-out: %d book updates received in all (%.0f per subscriber), %d sequence gaps%n",
            updates.get(), updates.get() / (double)subscribers, gaps.get());
        for (final WebSocket socket : sockets)
        {
            socket.close();
        }
        wsClient.close();
    }

    /**
     * CPU time this JVM's threads used over the measured window: a cost per request that other processes on the
     * machine hardly change, and which bounds what two cores can do.
     */
    private static final class CpuUse
    {
        private final java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        private final Map<Long, Long> startNs = new java.util.HashMap<>();
        private long processStartNs;

        void start()
        {
            processStartNs = ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
            for (final long id : threads.getAllThreadIds())
            {
                startNs.put(id, threads.getThreadCpuTime(id));
            }
        }

        void report(final long requests)
        {
            final long processNs = ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() - processStartNs;
            System.out.printf("CPU: %.1f µs of process CPU per placement (%.0f placements/s would fill 2 cores)%n",
                processNs / 1e3 / requests, 2e9 / (processNs / (double)requests));
            final Map<String, Long> byGroup = new java.util.TreeMap<>();
            for (final java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds()))
            {
                if (info != null)
                {
                    final long used = threads.getThreadCpuTime(info.getThreadId()) -
                        startNs.getOrDefault(info.getThreadId(), 0L);
                    byGroup.merge(info.getThreadName().replaceAll("[-#]?[0-9]+$", ""), used, Long::sum);
                }
            }
            final StringBuilder top = new StringBuilder();
            byGroup.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(10)
                .forEach(e -> top.append(String.format(" %s %.1f;", e.getKey(), e.getValue() / 1e3 / requests)));
            System.out.printf("CPU per placement by thread (µs):%s%n", top);
        }
    }

    private static String loadAverage()
    {
        return String.format("%.2f (1-min load average)", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static Mac mac(final String secret)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac;
        }
        catch (final java.security.GeneralSecurityException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static String sign(final String secret, final String timestamp, final String method, final String path,
        final byte[] body)
    {
        return sign(mac(secret), timestamp, method, path, body);
    }

    private static String sign(final Mac mac, final String timestamp, final String method, final String path,
        final byte[] body)
    {
        mac.update((timestamp + method + path).getBytes(StandardCharsets.UTF_8));
        mac.update(body);
        return HexFormat.of().formatHex(mac.doFinal());
    }
}
