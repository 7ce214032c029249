package io.bourse.bench;

import io.aeron.cluster.service.Cluster;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.gateway.fix.FixGateway;
import io.bourse.gateway.fix.FixInstrument;
import io.bourse.gateway.fix.FixLatencyProbe;
import io.bourse.gateway.fix.FixSessionSpec;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.TradingState;
import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.OffsetEpochNanoClock;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The FIX gateway's latency harness, on one embedded node: {@code sessions} FIX sessions send background orders at
 * a fixed total rate (mostly resting orders and cancels, some crossing IOC orders) while one more session sends
 * measured orders at {@code measuredRate}. For each measured order the time from its intended send time to the
 * ExecutionReport (New) it gets back is recorded (no coordinated omission), with the gateway's stage timestamps
 * (received by Artio, sequenced by the cluster, events back at the gateway, report handed to Artio). In the same run,
 * a plain TCP ping-pong on loopback with messages of the same sizes, paced the same way, gives the floor.
 * <p>
 * Usage: {@code FixLatencyBenchmark [rates=1000,5000,10000] [seconds=30] [measuredRate=200] [sessions=4]
 * [outDir=target/fix-bench]}; {@code ./bourse bench fix [...]} runs it. Prints min, mean, p50, p99, p99.9, p99.99
 * and max per stage and end to end, and writes {@code .hgrm} files.
 */
public final class FixLatencyBenchmark
{
    private static final DateTimeFormatter SENDING_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HH:mm:ss.SSS");
    private static final long WARMUP_NS = TimeUnit.SECONDS.toNanos(5);
    private static final int MID_PRICE_TICKS = 10_000_00;
    private static final EpochNanoClock CLOCK = new OffsetEpochNanoClock();

    private FixLatencyBenchmark()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final List<Integer> rates = new ArrayList<>();
        for (final String rate : (args.length > 0 ? args[0] : "1000,5000,10000").split(","))
        {
            rates.add(Integer.parseInt(rate.trim()));
        }
        final int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        final int measuredRate = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        final int sessions = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        final File outDir = new File(args.length > 4 ? args[4] : "target/fix-bench");
        IoUtil.ensureDirectoryExists(outDir, "output");

        System.out.printf("FIX latency: background %s orders/s over %d sessions, %d measured orders/s, %d s each " +
            "(after %d s warm-up); %d cores; JVM %s%n", rates, sessions, measuredRate, seconds,
            TimeUnit.NANOSECONDS.toSeconds(WARMUP_NS), Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"));
        for (final int rate : rates)
        {
            runRate(rate, seconds, measuredRate, sessions, outDir);
        }
    }

    private static void runRate(
        final int rate, final int seconds, final int measuredRate, final int sessions, final File outDir)
        throws Exception
    {
        final File baseDir = Files.createTempDirectory("bourse-fix-bench").toFile();
        final int measuredCount = measuredRate * seconds;
        final Stages stages = new Stages(measuredCount + measuredRate * (int)TimeUnit.NANOSECONDS.toSeconds(WARMUP_NS));
        ClusterNode node = null;
        FixGateway gateway = null;
        try
        {
            final int portBase = 11_000 + new SplittableRandom().nextInt(100) * 10;
            node = ClusterNode.launch(new ClusterNode.Context()
                .dataDir(new File(baseDir, "node"))
                .memberId(0)
                .memberHosts(List.of("localhost"))
                .portBase(portBase)
                .agentYieldWindowNs(NodeIdleStrategy.DEFAULT_YIELD_WINDOW_NS)
                .aeronDirectoryName(new File("/dev/shm", "bourse-fix-bench-" + ProcessHandle.current().pid())
                    .getPath())
                .log(new PrintStream(OutputStream.nullOutputStream())));
            final ClusterNode started = node;
            await("leader", () -> started.role() == Cluster.Role.LEADER);
            setUpReferenceData(node, sessions + 1);

            final int fixPort;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                fixPort = probe.getLocalPort();
            }
            final FixGateway.Context context = new FixGateway.Context()
                .agentYieldWindowNs(FixGateway.DEFAULT_YIELD_WINDOW_NS)
                .dataDir(new File(baseDir, "fix"))
                .port(fixPort)
                .instrument(new FixInstrument("BTC-USD", 1, 2, 4, 6))
                .exchangeClient(node.clientContext())
                .epochNanoClock(CLOCK)
                .latencyProbe(stages)
                .log(new PrintStream(OutputStream.nullOutputStream()));
            for (int i = 1; i <= sessions + 1; i++)
            {
                context.session(new FixSessionSpec(compId(i, sessions), "pw", i,
                    FixSessionSpec.CancelOnDisconnect.NONE, 0));
            }
            gateway = FixGateway.launch(context);

            final Floor floor = Floor.measure(measuredRate, seconds, outDir, rate);
            final FixRun run = new FixRun(fixPort, sessions, rate, measuredRate, seconds, stages);
            run.execute();
            run.report(floor, outDir);
        }
        finally
        {
            CloseHelper.closeAll(gateway, node);
            IoUtil.delete(baseDir, true);
        }
    }

    static String compId(final int index, final int sessions)
    {
        return index > sessions ? "MEASURED" : "BG" + index;
    }

    private static void setUpReferenceData(final ClusterNode node, final int accounts)
    {
        final long[] answered = new long[1];
        final ExchangeClient admin = new ExchangeClient(node.clientContext().listener(new ExchangeClientListener()
        {
            public void onEventBatch(
                final long batchSequence, final long logPosition, final long timestampNs, final long clientId,
                final long requestSequence, final DirectBuffer buffer, final int offset, final int length,
                final int eventCount)
            {
                answered[0] = Math.max(answered[0], requestSequence);
            }
        }));
        try
        {
            final CommandEncoder encoder = new CommandEncoder();
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
            long last = admin.trySend(buffer, 0, encoder.defineAsset(buffer, 0, 1, 8, "BTC"));
            last = Math.max(last, admin.trySend(buffer, 0, encoder.defineAsset(buffer, 0, 2, 6, "USD")));
            last = Math.max(last, admin.trySend(buffer, 0, encoder.defineInstrument(buffer, 0, 1, "BTC-USD", 1, 2, 2,
                1, 4, 1, 1, 1_000_000_000, 0, 0, 0, 0, TradingState.OPEN)));
            for (int account = 1; account <= accounts; account++)
            {
                last = Math.max(last, admin.trySend(buffer, 0,
                    encoder.deposit(buffer, 0, account * 10L + 1, account, 1, 1_000_000_000_000_000L)));
                last = Math.max(last, admin.trySend(buffer, 0,
                    encoder.deposit(buffer, 0, account * 10L + 2, account, 2, 1_000_000_000_000_000L)));
                last = Math.max(last, admin.trySend(buffer, 0, encoder.setAccountLimits(buffer, 0, account, 0, 0,
                    1_000_000, SelfTradePrevention.CANCEL_AGGRESSOR)));
            }
            final long expected = last;
            await("reference data", () ->
            {
                admin.doWork();
                return answered[0] >= expected;
            });
        }
        finally
        {
            admin.close();
        }
    }

    static void await(final String what, final java.util.function.BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * Sleep until the intended time: park while far from it, then yield (not spin: the machine has 2 cores).
     */
    static void waitUntil(final long intendedNs)
    {
        long leftNs;
        while ((leftNs = intendedNs - System.nanoTime()) > 0)
        {
            if (leftNs > 100_000)
            {
                LockSupport.parkNanos(leftNs - 60_000);
            }
            else
            {
                Thread.yield();
            }
        }
    }

    static void printStats(final String name, final Histogram histogram)
    {
        System.out.printf("  %-32s n=%7d  min %8.1f  mean %8.1f  p50 %8.1f  p99 %8.1f  p99.9 %8.1f  p99.99 %8.1f  " +
            "max %8.1f  (us)%n", name, histogram.getTotalCount(), histogram.getMinValue() / 1000.0,
            histogram.getMean() / 1000.0, histogram.getValueAtPercentile(50) / 1000.0,
            histogram.getValueAtPercentile(99) / 1000.0, histogram.getValueAtPercentile(99.9) / 1000.0,
            histogram.getValueAtPercentile(99.99) / 1000.0, histogram.getMaxValue() / 1000.0);
    }

    static void writeHgrm(final File outDir, final String name, final Histogram histogram) throws IOException
    {
        try (PrintStream out = new PrintStream(new FileOutputStream(new File(outDir, name + ".hgrm"))))
        {
            histogram.outputPercentileDistribution(out, 1000.0);
        }
    }

    /**
     * The gateway's stage timestamps of each measured order, by its index (ClOrdID {@code M<index>}).
     */
    static final class Stages implements FixLatencyProbe
    {
        final long[] receivedNs;
        final long[] commandSentNs;
        final long[] sequencedNs;
        final long[] eventsNs;
        final long[] reportSentNs;

        Stages(final int capacity)
        {
            receivedNs = new long[capacity];
            commandSentNs = new long[capacity];
            sequencedNs = new long[capacity];
            eventsNs = new long[capacity];
            reportSentNs = new long[capacity];
        }

        public void onNewOrderAcknowledged(
            final char[] clOrdId, final int clOrdIdLength, final long receivedNs, final long commandSentNs,
            final long sequencedNs, final long eventsReceivedNs, final long reportSentNs)
        {
            if (clOrdIdLength < 2 || clOrdId[0] != 'M')
            {
                return;
            }
            int index = 0;
            for (int i = 1; i < clOrdIdLength; i++)
            {
                index = index * 10 + (clOrdId[i] - '0');
            }
            if (index < this.receivedNs.length)
            {
                this.receivedNs[index] = receivedNs;
                this.commandSentNs[index] = commandSentNs;
                this.sequencedNs[index] = sequencedNs;
                this.eventsNs[index] = eventsReceivedNs;
                this.reportSentNs[index] = reportSentNs;
            }
        }
    }

    /**
     * FIX messages written by hand into a reused buffer, with BodyLength and CheckSum.
     */
    static final class FixWriter
    {
        private final byte[] body = new byte[512];
        private final byte[] out = new byte[600];
        private int bodyLength;
        private String sendingTime = "";
        private long sendingTimeMs;

        FixWriter begin(final String msgType, final int seqNum, final String senderCompId)
        {
            bodyLength = 0;
            final long nowMs = System.currentTimeMillis();
            if (nowMs != sendingTimeMs)
            {
                sendingTimeMs = nowMs;
                sendingTime = ZonedDateTime.now(ZoneOffset.UTC).format(SENDING_TIME);
            }
            return field(35, msgType).field(34, seqNum).field(49, senderCompId).field(52, sendingTime)
                .field(56, "BOURSE");
        }

        FixWriter field(final int tag, final String value)
        {
            number(tag);
            body[bodyLength++] = '=';
            for (int i = 0; i < value.length(); i++)
            {
                body[bodyLength++] = (byte)value.charAt(i);
            }
            body[bodyLength++] = 1;
            return this;
        }

        FixWriter field(final int tag, final long value)
        {
            number(tag);
            body[bodyLength++] = '=';
            number(value);
            body[bodyLength++] = 1;
            return this;
        }

        FixWriter idField(final int tag, final char prefix, final long value)
        {
            number(tag);
            body[bodyLength++] = '=';
            body[bodyLength++] = (byte)prefix;
            number(value);
            body[bodyLength++] = 1;
            return this;
        }

        /**
         * A price in ticks (2 decimals).
         */
        FixWriter price(final int tag, final long ticks)
        {
            number(tag);
            body[bodyLength++] = '=';
            number(ticks / 100);
            body[bodyLength++] = '.';
            body[bodyLength++] = (byte)('0' + (ticks / 10) % 10);
            body[bodyLength++] = (byte)('0' + ticks % 10);
            body[bodyLength++] = 1;
            return this;
        }

        private void number(final long value)
        {
            if (value >= 10)
            {
                number(value / 10);
            }
            body[bodyLength++] = (byte)('0' + value % 10);
        }

        /**
         * @return the length of the framed message in {@link #bytes()}.
         */
        int end()
        {
            int length = 0;
            for (final byte b : "8=FIX.4.4\u00019=".getBytes(StandardCharsets.US_ASCII))
            {
                out[length++] = b;
            }
            final String bodyLengthText = Integer.toString(bodyLength);
            for (int i = 0; i < bodyLengthText.length(); i++)
            {
                out[length++] = (byte)bodyLengthText.charAt(i);
            }
            out[length++] = 1;
            System.arraycopy(body, 0, out, length, bodyLength);
            length += bodyLength;
            int sum = 0;
            for (int i = 0; i < length; i++)
            {
                sum += out[i];
            }
            sum &= 0xFF;
            out[length++] = '1';
            out[length++] = '0';
            out[length++] = '=';
            out[length++] = (byte)('0' + sum / 100);
            out[length++] = (byte)('0' + (sum / 10) % 10);
            out[length++] = (byte)('0' + sum % 10);
            out[length++] = 1;
            return length;
        }

        byte[] bytes()
        {
            return out;
        }
    }

    /**
     * One FIX session over a blocking socket, with a reader thread that hands each received message to a handler.
     */
    static final class FixConnection implements AutoCloseable
    {
        final String compId;
        final FixWriter writer = new FixWriter();
        final Socket socket;
        final OutputStream out;
        final AtomicLong reports = new AtomicLong();
        int seqNum = 1;
        private final Thread reader;
        private volatile boolean loggedOn;

        interface Handler
        {
            void onMessage(byte[] buffer, int start, int end, long receivedNs);
        }

        FixConnection(final int port, final String compId, final Handler handler) throws IOException
        {
            this.compId = compId;
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port));
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            final InputStream in = socket.getInputStream();
            reader = new Thread(() -> read(in, handler), "fix-bench-" + compId);
            reader.setDaemon(true);
            reader.start();
            writer.begin("A", seqNum++, compId).field(98, 0).field(108, 30).field(141, "Y").field(554, "pw");
            send();
            await(compId + " logon", () -> loggedOn);
        }

        void send() throws IOException
        {
            final int length = writer.end();
            out.write(writer.bytes(), 0, length);
        }

        private void read(final InputStream in, final Handler handler)
        {
            final byte[] buffer = new byte[1 << 16];
            int filled = 0;
            try
            {
                while (true)
                {
                    final int read = in.read(buffer, filled, buffer.length - filled);
                    if (read < 0)
                    {
                        return;
                    }
                    final long receivedNs = CLOCK.nanoTime();
                    filled += read;
                    int start = 0;
                    while (true)
                    {
                        final int end = messageEnd(buffer, start, filled);
                        if (end < 0)
                        {
                            break;
                        }
                        if (!loggedOn && indexOf(buffer, start, end, "\u000135=A\u0001") >= 0)
                        {
                            loggedOn = true;
                        }
                        reports.incrementAndGet();
                        handler.onMessage(buffer, start, end, receivedNs);
                        start = end;
                    }
                    System.arraycopy(buffer, start, buffer, 0, filled - start);
                    filled -= start;
                }
            }
            catch (final IOException ex)
            {
                // Closed at the end of the run.
            }
        }

        public void close() throws IOException
        {
            socket.close();
        }
    }

    static int messageEnd(final byte[] buffer, final int start, final int end)
    {
        final int checksum = indexOf(buffer, start, end, "\u000110=");
        return checksum < 0 || checksum + 8 > end ? -1 : checksum + 8;
    }

    static int indexOf(final byte[] buffer, final int start, final int end, final String pattern)
    {
        outer:
        for (int i = start; i <= end - pattern.length(); i++)
        {
            for (int j = 0; j < pattern.length(); j++)
            {
                if (buffer[i + j] != pattern.charAt(j))
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * The value of a tag in a message, as a long (digits after an optional letter prefix), or -1.
     */
    static long longField(final byte[] buffer, final int start, final int end, final String tagEquals)
    {
        final int at = indexOf(buffer, start, end, "\u0001" + tagEquals);
        if (at < 0)
        {
            return -1;
        }
        int i = at + 1 + tagEquals.length();
        if (i < end && (buffer[i] < '0' || buffer[i] > '9'))
        {
            i++;
        }
        long value = 0;
        while (i < end && buffer[i] >= '0' && buffer[i] <= '9')
        {
            value = value * 10 + (buffer[i++] - '0');
        }
        return value;
    }

    /**
     * The background sessions, the measured session and the paced sender.
     */
    static final class FixRun
    {
        private final int port;
        private final int sessionCount;
        private final int rate;
        private final int measuredRate;
        private final int seconds;
        private final Stages stages;
        private final long[] intendedNs;
        private final long[] sentNs;
        private final long[] ackNs;
        private final AtomicLong measuredAcks = new AtomicLong();
        private long backgroundSent;
        private long maxBacklog;

        FixRun(final int port, final int sessionCount, final int rate, final int measuredRate, final int seconds,
            final Stages stages)
        {
            this.port = port;
            this.sessionCount = sessionCount;
            this.rate = rate;
            this.measuredRate = measuredRate;
            this.seconds = seconds;
            this.stages = stages;
            this.intendedNs = new long[stages.receivedNs.length];
            this.sentNs = new long[stages.receivedNs.length];
            this.ackNs = new long[stages.receivedNs.length];
        }

        void execute() throws Exception
        {
            final FixConnection[] background = new FixConnection[sessionCount];
            final long[][] resting = new long[sessionCount][128];
            final int[] restingHead = new int[sessionCount];
            final int[] restingCount = new int[sessionCount];
            final long[] nextOrderId = new long[sessionCount];
            for (int i = 0; i < sessionCount; i++)
            {
                background[i] = new FixConnection(port, compId(i + 1, sessionCount), (buffer, start, end, ns) -> { });
            }
            final FixConnection measured = new FixConnection(port, "MEASURED", (buffer, start, end, receivedNs) ->
            {
                if (indexOf(buffer, start, end, "\u000135=8\u0001") >= 0 &&
                    indexOf(buffer, start, end, "\u0001150=0\u0001") >= 0)
                {
                    final long index = longField(buffer, start, end, "11=");
                    if (index >= 0 && index < ackNs.length)
                    {
                        ackNs[(int)index] = receivedNs;
                        measuredAcks.incrementAndGet();
                    }
                }
            });

            final SplittableRandom random = new SplittableRandom(42);
            final long periodNs = 1_000_000_000L / rate;
            final long measuredPeriodNs = 1_000_000_000L / measuredRate;
            final long startNs = System.nanoTime() + 10_000_000;
            final long endNs = startNs + WARMUP_NS + TimeUnit.SECONDS.toNanos(seconds);
            long nextBackgroundNs = startNs;
            long nextMeasuredNs = startNs;
            int measuredIndex = 0;
            long nextBacklogCheckNs = startNs;
            final long epochOffsetNs = CLOCK.nanoTime() - System.nanoTime();
            while (true)
            {
                final long nextNs = Math.min(nextBackgroundNs, nextMeasuredNs);
                if (nextNs >= endNs || measuredIndex >= intendedNs.length)
                {
                    break;
                }
                waitUntil(nextNs);
                if (nextMeasuredNs <= nextBackgroundNs)
                {
                    intendedNs[measuredIndex] = nextMeasuredNs + epochOffsetNs;
                    measured.writer.begin("D", measured.seqNum++, "MEASURED")
                        .idField(11, 'M', measuredIndex).field(21, 1).field(55, "BTC-USD").field(54, 1)
                        .field(60, "20260101-00:00:00").field(38, "0.0100").field(40, 2)
                        .price(44, 100 + measuredIndex % 50).field(59, 1);
                    sentNs[measuredIndex] = CLOCK.nanoTime();
                    measured.send();
                    if (measuredIndex >= 10)
                    {
                        // Keep the measured orders' price levels short: cancel the one sent ten before.
                        measured.writer.begin("F", measured.seqNum++, "MEASURED")
                            .idField(11, 'X', measuredIndex).idField(41, 'M', measuredIndex - 10)
                            .field(55, "BTC-USD").field(54, 1).field(60, "20260101-00:00:00");
                        measured.send();
                    }
                    measuredIndex++;
                    nextMeasuredNs += measuredPeriodNs;
                }
                else
                {
                    final int session = (int)(backgroundSent % sessionCount);
                    sendBackground(background[session], session, random, resting, restingHead, restingCount,
                        nextOrderId);
                    backgroundSent++;
                    nextBackgroundNs += periodNs;
                    if (nextBackgroundNs >= nextBacklogCheckNs)
                    {
                        nextBacklogCheckNs += 100_000_000;
                        long answered = 0;
                        for (final FixConnection connection : background)
                        {
                            answered += connection.reports.get();
                        }
                        maxBacklog = Math.max(maxBacklog, backgroundSent - answered);
                    }
                }
            }
            final int sent = measuredIndex;
            await("measured acknowledgements", () -> measuredAcks.get() >= sent);
            this.measuredSent = sent;
            for (final FixConnection connection : background)
            {
                connection.close();
            }
            measured.close();
            this.elapsedNs = System.nanoTime() - startNs;
        }

        private int measuredSent;
        private long elapsedNs;

        private void sendBackground(
            final FixConnection connection, final int session, final SplittableRandom random, final long[][] resting,
            final int[] restingHead, final int[] restingCount, final long[] nextOrderId) throws IOException
        {
            final int roll = random.nextInt(100);
            final String compId = connection.compId;
            if ((roll < 45 || restingCount[session] >= 100) && restingCount[session] > 0)
            {
                final int slot = restingHead[session];
                final long orderId = resting[session][slot];
                restingHead[session] = (slot + 1) % resting[session].length;
                restingCount[session]--;
                final boolean buy = (orderId & 1) == 0;
                connection.writer.begin("F", connection.seqNum++, compId)
                    .idField(11, 'C', nextOrderId[session]++).idField(41, 'B', orderId).field(55, "BTC-USD")
                    .field(54, buy ? 1 : 2).field(60, "20260101-00:00:00");
            }
            else if (roll < 95)
            {
                long orderId = nextOrderId[session]++;
                final boolean buy = random.nextBoolean();
                orderId = buy ? orderId & ~1L : orderId | 1L;
                nextOrderId[session] = orderId + 1;
                final long price = MID_PRICE_TICKS + (buy ? -1 : 1) * (1 + random.nextInt(50));
                connection.writer.begin("D", connection.seqNum++, compId)
                    .idField(11, 'B', orderId).field(21, 1).field(55, "BTC-USD").field(54, buy ? 1 : 2)
                    .field(60, "20260101-00:00:00").field(38, "0.0100").field(40, 2).price(44, price).field(59, 1);
                final int tail = (restingHead[session] + restingCount[session]) % resting[session].length;
                resting[session][tail] = orderId;
                restingCount[session]++;
            }
            else
            {
                final boolean buy = random.nextBoolean();
                connection.writer.begin("D", connection.seqNum++, compId)
                    .idField(11, 'I', nextOrderId[session]++).field(21, 1).field(55, "BTC-USD")
                    .field(54, buy ? 1 : 2).field(60, "20260101-00:00:00").field(38, "0.0200").field(40, 2)
                    .price(44, MID_PRICE_TICKS + (buy ? 5 : -5)).field(59, 3);
            }
            connection.send();
        }

        void report(final Floor floor, final File outDir) throws IOException
        {
            final int warmup = (int)(measuredRate * TimeUnit.NANOSECONDS.toSeconds(WARMUP_NS));
            final Histogram endToEnd = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Histogram toGateway = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Histogram toCommandSent = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Histogram clusterRoundTrip = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Histogram toSequenced = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Histogram toEvents = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Histogram toReportSent = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Histogram toClient = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            for (int i = warmup; i < measuredSent; i++)
            {
                endToEnd.recordValue(Math.max(0, ackNs[i] - intendedNs[i]));
                if (stages.receivedNs[i] != 0)
                {
                    toGateway.recordValue(Math.max(0, stages.receivedNs[i] - sentNs[i]));
                    toCommandSent.recordValue(Math.max(0, stages.commandSentNs[i] - stages.receivedNs[i]));
                    clusterRoundTrip.recordValue(Math.max(0, stages.eventsNs[i] - stages.commandSentNs[i]));
                    toSequenced.recordValue(Math.max(0, stages.sequencedNs[i] - stages.commandSentNs[i]));
                    toEvents.recordValue(Math.max(0, stages.eventsNs[i] - stages.sequencedNs[i]));
                    toReportSent.recordValue(Math.max(0, stages.reportSentNs[i] - stages.eventsNs[i]));
                    toClient.recordValue(Math.max(0, ackNs[i] - stages.reportSentNs[i]));
                }
            }
            final double achieved = backgroundSent * 1e9 / elapsedNs;
            System.out.printf("%nbackground %d orders/s (achieved %.0f/s over the run incl. warm-up), %d measured " +
                "(%d after warm-up); largest backlog of unanswered background messages %d%n", rate, achieved,
                measuredSent, measuredSent - warmup, maxBacklog);
            printStats("TCP floor (ping-pong)", floor.histogram);
            printStats("end to end (intended send->ER)", endToEnd);
            printStats("client send -> Artio read", toGateway);
            printStats("Artio read -> command sent", toCommandSent);
            printStats("command sent -> events at gateway", clusterRoundTrip);
            printStats("  command sent -> sequenced *", toSequenced);
            printStats("  sequenced -> events at gateway *", toEvents);
            printStats("events -> report to Artio", toReportSent);
            printStats("report to Artio -> client", toClient);
            System.out.println("  (* the cluster's clock against the gateway's: offset by up to a millisecond)");
            System.out.printf("  median end to end / median floor = %.2f%n",
                (double)endToEnd.getValueAtPercentile(50) / floor.histogram.getValueAtPercentile(50));
            writeHgrm(outDir, "fix-" + rate + "-end-to-end", endToEnd);
            writeHgrm(outDir, "fix-" + rate + "-floor", floor.histogram);
            writeHgrm(outDir, "fix-" + rate + "-stage-client-to-artio", toGateway);
            writeHgrm(outDir, "fix-" + rate + "-stage-artio-to-command-sent", toCommandSent);
            writeHgrm(outDir, "fix-" + rate + "-stage-command-to-events", clusterRoundTrip);
            writeHgrm(outDir, "fix-" + rate + "-stage-command-to-sequenced", toSequenced);
            writeHgrm(outDir, "fix-" + rate + "-stage-sequenced-to-events", toEvents);
            writeHgrm(outDir, "fix-" + rate + "-stage-events-to-report", toReportSent);
            writeHgrm(outDir, "fix-" + rate + "-stage-report-to-client", toClient);
        }
    }

    /**
     * The physical floor: a TCP ping-pong on loopback, a NewOrderSingle-sized message out and an ExecutionReport-sized
     * one back, paced and measured as the measured orders are (from the intended send time, blocking reads).
     */
    static final class Floor
    {
        static final int REQUEST_BYTES = 150;
        static final int RESPONSE_BYTES = 230;
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);

        static Floor measure(final int pingRate, final int seconds, final File outDir, final int rate)
            throws Exception
        {
            final Floor floor = new Floor();
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                final Thread echo = new Thread(() ->
                {
                    try (Socket socket = server.accept())
                    {
                        socket.setTcpNoDelay(true);
                        final InputStream in = socket.getInputStream();
                        final OutputStream out = socket.getOutputStream();
                        final byte[] request = new byte[REQUEST_BYTES];
                        final byte[] response = new byte[RESPONSE_BYTES];
                        while (in.readNBytes(request, 0, REQUEST_BYTES) == REQUEST_BYTES)
                        {
                            out.write(response);
                        }
                    }
                    catch (final IOException ex)
                    {
                        // Client closed.
                    }
                }, "fix-bench-floor-echo");
                echo.setDaemon(true);
                echo.start();
                try (Socket socket = new Socket())
                {
                    socket.connect(server.getLocalSocketAddress());
                    socket.setTcpNoDelay(true);
                    final OutputStream out = socket.getOutputStream();
                    final InputStream in = socket.getInputStream();
                    final int count = pingRate * (seconds + (int)TimeUnit.NANOSECONDS.toSeconds(WARMUP_NS));
                    final int warmup = pingRate * (int)TimeUnit.NANOSECONDS.toSeconds(WARMUP_NS);
                    final long[] intendedNs = new long[count];
                    final AtomicLong received = new AtomicLong();
                    final Thread reader = new Thread(() ->
                    {
                        final byte[] response = new byte[RESPONSE_BYTES];
                        try
                        {
                            for (int i = 0; i < count; i++)
                            {
                                if (in.readNBytes(response, 0, RESPONSE_BYTES) != RESPONSE_BYTES)
                                {
                                    return;
                                }
                                if (i >= warmup)
                                {
                                    floor.histogram.recordValue(Math.max(0, System.nanoTime() - intendedNs[i]));
                                }
                                received.incrementAndGet();
                            }
                        }
                        catch (final IOException ex)
                        {
                            // Closed.
                        }
                    }, "fix-bench-floor-reader");
                    reader.setDaemon(true);
                    reader.start();
                    final byte[] request = new byte[REQUEST_BYTES];
                    final long periodNs = 1_000_000_000L / pingRate;
                    final long startNs = System.nanoTime() + 10_000_000;
                    for (int i = 0; i < count; i++)
                    {
                        intendedNs[i] = startNs + i * periodNs;
                        waitUntil(intendedNs[i]);
                        out.write(request);
                    }
                    await("floor responses", () -> received.get() >= count);
                }
            }
            return floor;
        }
    }
}
