package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.JavaChildProcess;
import io.bourse.cluster.LoopbackPorts;
import io.bourse.cluster.client.ExchangeClient;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An embedded node and an HTTP gateway on free ports, set up through the admin API with BTC, USD, the BTC-USD
 * instrument and funded accounts 1, 2 and 3; and a signing HTTP client. Tests read as prose on top of it.
 */
final class GatewayHarness implements AutoCloseable
{
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    static final ApiKey ADMIN = new ApiKey("admin-key", "admin-secret", 0, true);
    static final ApiKey ALICE = new ApiKey("alice-key", "alice-secret", 1, false);
    static final ApiKey BOB = new ApiKey("bob-key", "bob-secret", 2, false);
    static final ApiKey CAROL = new ApiKey("carol-key", "carol-secret", 3, false);
    /**
     * A read-only key of ALICE's account.
     */
    static final ApiKey ALICE_READER = new ApiKey("alice-reader-key", "alice-reader-secret", 1, false, true);

    /**
     * A response: status, headers of interest and the JSON body.
     */
    record Response(int status, String contentType, String retryAfter, JsonNode json, String text)
    {
        JsonNode get(final String field)
        {
            return json.get(field);
        }

        String str(final String field)
        {
            final JsonNode node = json.get(field);
            return node == null ? null : node.asText();
        }
    }

    private final File dataDir;
    private final int portBase;
    private final int historyBytes;
    private final boolean gatewayInOwnProcess;
    /**
     * The cluster the gateway connects to, or null for a node of the harness's own.
     */
    private final String ingressEndpoints;
    private ClusterNode node;
    private HttpGateway gateway;
    private JavaChildProcess gatewayProcess;
    private int gatewayProcessPort;
    private final UnaryOperator<HttpGateway.Context> customiser;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    GatewayHarness()
    {
        this(context -> context);
    }

    GatewayHarness(final UnaryOperator<HttpGateway.Context> customiser)
    {
        this(customiser, new ClusterNode.Context().historyCapacityBytes(), false, null);
    }

    /**
     * A node that keeps this few bytes of event history, and its gateway in a process of its own
     * ({@link HttpGatewayProcess}) for a test to stop and continue.
     */
    static GatewayHarness withGatewayProcess(final int historyBytes)
    {
        return new GatewayHarness(context -> context, historyBytes, true, null);
    }

    /**
     * A gateway in this JVM in front of a cluster that runs elsewhere (its own client and media driver), as
     * {@code bourse gateway-http} runs for a cluster.
     */
    static GatewayHarness onCluster(final String ingressEndpoints)
    {
        return onCluster(ingressEndpoints, context -> context);
    }

    static GatewayHarness onCluster(final String ingressEndpoints, final UnaryOperator<HttpGateway.Context> customiser)
    {
        return new GatewayHarness(customiser, 0, false, ingressEndpoints);
    }

    /**
     * A UDP port range for a node the test runs itself, from this module's tests' range.
     */
    static int nodePortBase()
    {
        return freePortBase();
    }

    private GatewayHarness(
        final UnaryOperator<HttpGateway.Context> customiser, final int historyBytes, final boolean gatewayInOwnProcess,
        final String ingressEndpoints)
    {
        this.customiser = customiser;
        this.historyBytes = historyBytes;
        this.gatewayInOwnProcess = gatewayInOwnProcess;
        this.ingressEndpoints = ingressEndpoints;
        try
        {
            this.dataDir = Files.createTempDirectory("bourse-http-test").toFile();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        this.portBase = freePortBase();
        if (ingressEndpoints == null)
        {
            startNode();
        }
        startGateway();
        setUpExchange();
    }

    void startNode()
    {
        node = ClusterNode.launch(new ClusterNode.Context()
            .dataDir(new File(dataDir, "node"))
            .memberId(0)
            .memberHosts(List.of("localhost"))
            .portBase(portBase)
            .historyCapacityBytes(historyBytes)
            .aeronDirectoryName(new File(System.getProperty("java.io.tmpdir"),
                "bourse-http-test-" + ProcessHandle.current().pid() + "-" + portBase).getPath())
            .log(new PrintStream(OutputStream.nullOutputStream())));
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (node.role() != io.aeron.cluster.service.Cluster.Role.LEADER)
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("no leader within the timeout");
            }
            sleepMs(10);
        }
    }

    void startGateway()
    {
        if (gatewayInOwnProcess)
        {
            gatewayProcessPort = freeTcpPort();
            gatewayProcess = JavaChildProcess.start("http-gateway", List.of("-Xmx256m"),
                HttpGatewayProcess.class.getName(),
                List.of(Integer.toString(gatewayProcessPort), node.context().ingressEndpoints()),
                HttpGatewayProcess.READY, TIMEOUT_NS);
            return;
        }
        gateway = HttpGateway.launch(customiser.apply(new HttpGateway.Context()
            .port(0)
            .apiKeys(List.of(ADMIN, ALICE, BOB, CAROL, ALICE_READER))
            .rateLimit(100_000, 100_000)
            .addressRateLimit(100_000, 100_000)
            .heartbeatIntervalMs(200)
            .nodeStatus(new NodeStatus()
            {
                public String role()
                {
                    return node == null || node.role() == null ? null : node.role().name();
                }

                public long journalBytes()
                {
                    return -1;
                }

                public long lastSnapshotAgeMs()
                {
                    return -1;
                }

                public long stateHashesAgreed()
                {
                    return node == null ? -1 : node.stateHashesAgreed();
                }

                public long stateHashesDiverged()
                {
                    return node == null ? -1 : node.stateHashesDiverged();
                }
            })
            .clientContext(ingressEndpoints != null ?
                new ExchangeClient.Context().ingressEndpoints(ingressEndpoints) : node.clientContext())));
        gateway.awaitReady(TIMEOUT_NS);
    }

    void stopGateway()
    {
        CloseHelper.close(gateway);
        gateway = null;
    }

    void restartNode()
    {
        stopGateway();
        CloseHelper.close(node);
        startNode();
        startGateway();
    }

    HttpGateway gateway()
    {
        return gateway;
    }

    ClusterNode node()
    {
        return node;
    }

    JavaChildProcess gatewayProcess()
    {
        return gatewayProcess;
    }

    String baseUrl()
    {
        return "http://127.0.0.1:" + (gatewayProcess != null ? gatewayProcessPort : gateway.port());
    }

    private void setUpExchange()
    {
        expect(200, callPatiently(ADMIN, "PUT", "/api/v1/admin/assets/BTC", "{\"id\":1,\"scale\":8}"));
        expect(200, callPatiently(ADMIN, "PUT", "/api/v1/admin/assets/USD", "{\"id\":2,\"scale\":6}"));
        expect(200, callPatiently(ADMIN, "PUT", "/api/v1/admin/instruments/BTC-USD", """
            {"id":1,"baseAsset":"BTC","quoteAsset":"USD","priceScale":2,"tickSize":"0.01","quantityScale":4,
             "lotSize":"0.0001","minQuantity":"0.0001","maxQuantity":"100","priceBandBps":0,
             "makerFeePpm":1000,"takerFeePpm":2000,"tradingState":"OPEN"}"""));
        long transactionId = 1;
        for (final ApiKey key : List.of(ALICE, BOB, CAROL))
        {
            expect(200, callPatiently(ADMIN, "POST", "/api/v1/admin/accounts/" + key.accountId() + "/deposits",
                "{\"asset\":\"BTC\",\"amount\":\"10\",\"transactionId\":" + transactionId++ + "}"));
            expect(200, callPatiently(ADMIN, "POST", "/api/v1/admin/accounts/" + key.accountId() + "/deposits",
                "{\"asset\":\"USD\",\"amount\":\"1000000\",\"transactionId\":" + transactionId++ + "}"));
        }
    }

    static Response expect(final int status, final Response response)
    {
        assertEquals(status, response.status(), () -> "unexpected status; body: " + response.text());
        return response;
    }

    Response get(final String path)
    {
        return send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).GET());
    }

    Response call(final ApiKey key, final String method, final String path, final String body)
    {
        return call(key.key(), key.secret(), System.currentTimeMillis(), method, path, body);
    }

    /**
     * Call, waiting as told by {@code Retry-After} while rate limited (for set-up under a low limit).
     */
    Response callPatiently(final ApiKey key, final String method, final String path, final String body)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        Response response = call(key, method, path, body);
        while (response.status() == 429 && System.nanoTime() < deadlineNs)
        {
            sleepMs(Long.parseLong(response.retryAfter()) * 1000);
            response = call(key, method, path, body);
        }
        return response;
    }

    Response call(
        final String key, final String secret, final long timestampMs, final String method, final String path,
        final String body)
    {
        return send(signed(key, secret, timestampMs, method, path, body));
    }

    /**
     * A call whose answer comes later, on the HTTP client's threads: for many calls in flight at once.
     */
    CompletableFuture<Response> callAsync(final ApiKey key, final String method, final String path, final String body)
    {
        return http.sendAsync(signed(key.key(), key.secret(), System.currentTimeMillis(), method, path, body)
            .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString())
            .thenApply(GatewayHarness::response);
    }

    private HttpRequest.Builder signed(
        final String key, final String secret, final long timestampMs, final String method, final String path,
        final String body)
    {
        final byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        final String timestamp = Long.toString(timestampMs);
        return HttpRequest.newBuilder(URI.create(baseUrl() + path))
            .method(method, bytes.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(bytes))
            .header("Content-Type", "application/json")
            .header("X-Bourse-Key", key)
            .header("X-Bourse-Timestamp", timestamp)
            .header("X-Bourse-Signature", Authenticator.signature(secret, timestamp, method, path, bytes));
    }

    private static Response response(final HttpResponse<String> response)
    {
        final String contentType = response.headers().firstValue("Content-Type").orElse("");
        try
        {
            final JsonNode json = contentType.contains("json") ?
                HttpGateway.tree(response.body().getBytes(StandardCharsets.UTF_8)) : null;
            return new Response(response.statusCode(), contentType,
                response.headers().firstValue("Retry-After").orElse(null), json, response.body());
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    Response send(final HttpRequest.Builder builder)
    {
        try
        {
            return response(http.send(builder.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString()));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    Response placeLimit(final ApiKey key, final String side, final String price, final String quantity, final String clientOrderId)
    {
        return call(key, "POST", "/api/v1/orders", limitOrder(side, price, quantity, clientOrderId));
    }

    static String limitOrder(final String side, final String price, final String quantity, final String clientOrderId)
    {
        return "{\"symbol\":\"BTC-USD\",\"side\":\"" + side + "\",\"type\":\"LIMIT\"," +
            "\"price\":\"" + price + "\",\"quantity\":\"" + quantity + "\"" +
            (clientOrderId == null ? "" : ",\"clientOrderId\":\"" + clientOrderId + "\"") + "}";
    }

    public void close()
    {
        if (gatewayProcess != null)
        {
            gatewayProcess.kill();
        }
        CloseHelper.close(gateway);
        CloseHelper.close(node);
        IoUtil.delete(dataDir, true);
    }

    static void await(final String what, final java.util.function.BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            sleepMs(5);
        }
    }

    static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static int freeTcpPort()
    {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * A UDP port range for one node, from a range this module's tests use (other modules' tests use 20000-39999).
     */
    private static int freePortBase()
    {
        return LoopbackPorts.freeBase(29_000, 200, ClusterNode.PORTS_PER_MEMBER);
    }
}
