package io.bourse.gateway.fix;

import io.bourse.cluster.AnsweredRequests;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.LoopbackPorts;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.TradingState;
import io.aeron.cluster.service.Cluster;
import org.agrona.CloseHelper;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.IoUtil;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Test harness: a single embedded exchange node with one instrument (BTC-USD, price scale 2, quantity scale 4)
 * and funded accounts 1 to 4, plus a FIX gateway in front of it, all in a temporary directory on free ports.
 * Node and gateway can be stopped and started again on the same directories.
 */
final class FixTestExchange implements AutoCloseable
{
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    static final String GATEWAY_COMP_ID = "BOURSE";
    static final FixInstrument BTC_USD = new FixInstrument("BTC-USD", 1, 2, 4, 6);

    final File baseDir;
    final int portBase;
    final int fixPort;
    private final java.util.function.UnaryOperator<FixGateway.Context> customiser;
    private ClusterNode node;
    private FixGateway gateway;
    private int gatewayUnansweredBytes;
    private int historyCapacityBytes = new ClusterNode.Context().historyCapacityBytes();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    FixTestExchange(final java.util.function.UnaryOperator<FixGateway.Context> customiser)
    {
        try
        {
            baseDir = Files.createTempDirectory("bourse-fix-test").toFile();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        this.portBase = freePortBase();
        this.fixPort = freeTcpPort();
        this.customiser = customiser;
    }

    /**
     * The gateway's cluster client holds this few bytes of unanswered commands (the default is megabytes), so that a
     * test can fill it.
     */
    FixTestExchange gatewayUnansweredBytes(final int bytes)
    {
        this.gatewayUnansweredBytes = bytes;
        return this;
    }

    /**
     * The node keeps this few bytes of recent event batches for replays (the default is megabytes), so that a test
     * can make a replay reach past them.
     */
    FixTestExchange historyCapacityBytes(final int bytes)
    {
        this.historyCapacityBytes = bytes;
        return this;
    }

    FixTestExchange start()
    {
        try
        {
            startNode();
            setUpReferenceData();
            startGateway();
            return this;
        }
        catch (final RuntimeException | Error ex)
        {
            // The caller never gets the harness to close: leave no node, gateway or directory behind.
            close();
            throw ex;
        }
    }

    /**
     * The node and its reference data, without a gateway: for a test that runs the gateway in a process of its own.
     */
    FixTestExchange startWithoutGateway()
    {
        startNode();
        setUpReferenceData();
        return this;
    }

    void startNode()
    {
        node = ClusterNode.launch(new ClusterNode.Context()
            .dataDir(new File(baseDir, "node"))
            .memberId(0)
            .memberHosts(java.util.List.of("localhost"))
            .portBase(portBase)
            .historyCapacityBytes(historyCapacityBytes)
            .aeronDirectoryName(new File(System.getProperty("java.io.tmpdir"),
                "bourse-fix-test-" + ProcessHandle.current().pid() + "-" + portBase).getPath())
            .log(new PrintStream(log, true)));
        await("a leader", () -> node.role() == Cluster.Role.LEADER);
    }

    void startGateway()
    {
        gateway = FixGateway.launch(customiser.apply(new FixGateway.Context()
            .dataDir(new File(baseDir, "fix"))
            .port(fixPort)
            .compId(GATEWAY_COMP_ID)
            .instrument(BTC_USD)
            .exchangeClient(gatewayUnansweredBytes > 0 ?
                node.clientContext().maxUnansweredBytes(gatewayUnansweredBytes) : node.clientContext())
            .log(new PrintStream(log, true))));
    }

    FixGateway gateway()
    {
        return gateway;
    }

    ClusterNode node()
    {
        return node;
    }

    void stopGateway()
    {
        CloseHelper.close(gateway);
        gateway = null;
    }

    void stopNode()
    {
        CloseHelper.close(node);
        node = null;
    }

    public void close()
    {
        CloseHelper.closeAll(gateway, node);
        IoUtil.delete(baseDir, true);
    }

    private void setUpReferenceData()
    {
        setUpReferenceData(node.clientContext());
    }

    /**
     * Assets, the instrument (without fees) and four accounts with money, sent through a client of its own; accounts 1
     * and 2 have rates of their own: 0.05 % as a maker for the first, 0.2 % as a taker for the second.
     */
    static void setUpReferenceData(final ExchangeClient.Context clientContext)
    {
        sendCommands(clientContext, (encoder, buffer, send) ->
        {
            long last = send.applyAsLong(encoder.defineAsset(buffer, 0, 1, 8, "BTC"));
            last = Math.max(last, send.applyAsLong(encoder.defineAsset(buffer, 0, 2, 6, "USD")));
            last = Math.max(last, send.applyAsLong(encoder.defineInstrument(buffer, 0, 1, "BTC-USD", 1, 2,
                2, 1, 4, 1, 1, 1_000_000, 0, 0, 0, 0, TradingState.OPEN)));
            for (int account = 1; account <= 4; account++)
            {
                last = Math.max(last, send.applyAsLong(encoder.deposit(buffer, 0, account * 10L + 1, account,
                    1, 100_000_000_000L)));
                last = Math.max(last, send.applyAsLong(encoder.deposit(buffer, 0, account * 10L + 2, account,
                    2, 100_000_000_000_000L)));
                last = Math.max(last, send.applyAsLong(encoder.setAccountLimits(buffer, 0, account, 0, 0,
                    10_000, SelfTradePrevention.CANCEL_AGGRESSOR)));
            }
            last = Math.max(last, send.applyAsLong(encoder.setAccountFees(buffer, 0, 1, 500, -1)));
            last = Math.max(last, send.applyAsLong(encoder.setAccountFees(buffer, 0, 2, -1, 2_000)));
            return last;
        });
    }

    /**
     * An order straight to the node, past the gateway (which may be down), through a client of its own.
     */
    void sendLimitOrder(final long accountId, final long clientOrderId, final io.bourse.protocol.codec.Side side,
        final long price, final long quantity)
    {
        sendCommands(node.clientContext(), (encoder, buffer, send) ->
            send.applyAsLong(encoder.limit(buffer, 0, accountId, clientOrderId, 1, side, price, quantity)));
    }

    /**
     * Replace an order (by its order id, or by its client order id when that is 0) straight at the node, past the
     * gateway (which may be down), giving it a new client order id.
     */
    void sendReplace(final long accountId, final long orderId, final long clientOrderId, final long newClientOrderId,
        final long price, final long quantity)
    {
        sendCommands(node.clientContext(), (encoder, buffer, send) -> send.applyAsLong(
            encoder.replaceOrder(buffer, 0, accountId, orderId, clientOrderId, newClientOrderId, price, quantity, 0)));
    }

    /**
     * Cancel every order of an account straight at the node, past the gateway (which may be down).
     */
    void sendMassCancel(final long accountId)
    {
        sendCommands(node.clientContext(), (encoder, buffer, send) ->
            send.applyAsLong(encoder.massCancel(buffer, 0, accountId, 0, io.bourse.protocol.codec.Side.NULL_VAL)));
    }

    /**
     * Commands encoded into one buffer and sent one by one; each send returns its request sequence.
     */
    private interface Commands
    {
        long sendAll(CommandEncoder encoder, ExpandableArrayBuffer buffer, java.util.function.IntToLongFunction send);
    }

    /**
     * Send commands through a client of its own and wait until the node has answered the last.
     */
    private static void sendCommands(final ExchangeClient.Context clientContext, final Commands commands)
    {
        final AnsweredRequests answered = new AnsweredRequests();
        final ExchangeClient admin = answered.newClient(clientContext);
        try
        {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
            final long expected = commands.sendAll(new CommandEncoder(), buffer,
                length -> admin.trySend(buffer, 0, length));
            await("commands applied", () ->
            {
                admin.doWork();
                return answered.upTo() >= expected;
            });
        }
        finally
        {
            admin.close();
        }
    }

    String log()
    {
        return log.toString();
    }

    static void await(final String what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    static int freeTcpPort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static int freePortBase()
    {
        // 12000-16990: apart from the other modules' tests.
        return LoopbackPorts.freeBase(12_000, 500, ClusterNode.PORTS_PER_MEMBER);
    }
}
