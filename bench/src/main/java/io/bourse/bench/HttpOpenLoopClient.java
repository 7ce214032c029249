package io.bourse.bench;

import io.bourse.cluster.NodeIdleStrategy;
import org.HdrHistogram.Histogram;
import org.agrona.collections.LongArrayQueue;

import java.io.DataInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An open-loop HTTP/1.1 load client in its own process, light enough to leave the two cores to the server: request
 * <i>i</i> is due at start + <i>i</i>/rate and goes out on keep-alive connection <i>i</i> mod N, behind that
 * connection's earlier requests if they are still unanswered (one request in flight per connection, no pipelining);
 * its latency runs from the due time to the last byte of its response, so a stall is charged to every request it
 * delays (no coordinated omission). One thread, non-blocking sockets, pre-signed requests from a file written by
 * {@code HttpLoadBenchmark --serve-seconds}.
 * <p>
 * Arguments: port, requests file, rate per second, seconds measured, seconds of warm-up, connections, .hgrm output.
 */
public final class HttpOpenLoopClient
{
    private static final long BEHIND_LIMIT_NS = TimeUnit.SECONDS.toNanos(5);
    private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);

    /**
     * One keep-alive connection: its queue of due requests by number (which give the request and its due time), the
     * head in flight.
     */
    private static final class Connection
    {
        final SocketChannel channel;
        final LongArrayQueue due = new LongArrayQueue();
        final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
        ByteBuffer out;

        Connection(final SocketChannel channel)
        {
            this.channel = channel;
        }
    }

    private final ByteBuffer[] requests;
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    /**
     * The worst latency of the requests due in each second of the run, to tell a steady tail from one stall.
     */
    private long[] worstBySecondNs = new long[0];
    private long startNs;
    private long intervalNs;
    private long answered;
    private long failed;

    private HttpOpenLoopClient(final ByteBuffer[] requests)
    {
        this.requests = requests;
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length != 7)
        {
            System.err.println("usage: HttpOpenLoopClient port requestsFile rate seconds warmupSeconds connections out.hgrm");
            System.exit(2);
        }
        final int port = Integer.parseInt(args[0]);
        final ByteBuffer[] requests = readRequests(new File(args[1]));
        final long rate = Long.parseLong(args[2]);
        final long seconds = Long.parseLong(args[3]);
        final long warmupSeconds = Long.parseLong(args[4]);
        final int connections = Integer.parseInt(args[5]);
        final boolean sustained = new HttpOpenLoopClient(requests).run(port, rate, seconds, warmupSeconds, connections,
            new File(args[6]));
        System.exit(sustained ? 0 : 1);
    }

    private boolean run(
        final int port, final long rate, final long seconds, final long warmupSeconds, final int connectionCount,
        final File report) throws IOException
    {
        try (Selector selector = Selector.open())
        {
            final List<Connection> connections = new ArrayList<>();
            for (int i = 0; i < connectionCount; i++)
            {
                final SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.configureBlocking(false);
                final Connection connection = new Connection(channel);
                channel.register(selector, SelectionKey.OP_READ, connection);
                connections.add(connection);
            }
            final NodeIdleStrategy idle = new NodeIdleStrategy();
            intervalNs = TimeUnit.SECONDS.toNanos(1) / rate;
            final long total = rate * (seconds + warmupSeconds);
            startNs = System.nanoTime();
            worstBySecondNs = new long[(int)(seconds + warmupSeconds + 1)];
            final long measureFromNs = startNs + TimeUnit.SECONDS.toNanos(warmupSeconds);
            long next = 0;
            long outstanding = 0;
            boolean sustained = true;
            while (next < total || outstanding > 0)
            {
                final long nowNs = System.nanoTime();
                int work = 0;
                while (next < total && dueNs(next) <= nowNs)
                {
                    final Connection connection = connections.get((int)(next % connectionCount));
                    connection.due.addLong(next);
                    if (connection.due.size() == 1)
                    {
                        send(connection);
                    }
                    next++;
                    outstanding++;
                    work++;
                }
                if (selector.selectNow() > 0)
                {
                    for (final SelectionKey key : selector.selectedKeys())
                    {
                        final int responses = read((Connection)key.attachment(), measureFromNs);
                        outstanding -= responses;
                        work += responses;
                    }
                    selector.selectedKeys().clear();
                }
                for (final Connection connection : connections)
                {
                    if (connection.out != null && connection.out.hasRemaining())
                    {
                        connection.channel.write(connection.out);
                    }
                }
                if (next < total && nowNs - dueNs(next) > BEHIND_LIMIT_NS ||
                    outstanding > 0 && nowNs - oldestDueNs(connections) > BEHIND_LIMIT_NS)
                {
                    sustained = false;
                    break;
                }
                idle.idle(work);
            }
            final double achievedPerSecond = answered / ((System.nanoTime() - startNs) / 1e9);
            System.out.printf("open loop: target %,d/s over %d s (after %d s warm-up), %d connections: %,d answered " +
                "200, %,d other statuses, %,.0f/s completed%s%n", rate, seconds, warmupSeconds, connectionCount,
                answered, failed, achievedPerSecond, sustained ? "" : "; NOT SUSTAINED: fell 5 s behind, stopped");
            System.out.printf("placement latency from intended send (µs): p50 %.0f, p90 %.0f, p99 %.0f, p99.9 %.0f, " +
                "p99.99 %.0f, max %.0f (%,d measured)%n", latency.getValueAtPercentile(50) / 1e3,
                latency.getValueAtPercentile(90) / 1e3, latency.getValueAtPercentile(99) / 1e3,
                latency.getValueAtPercentile(99.9) / 1e3, latency.getValueAtPercentile(99.99) / 1e3,
                latency.getMaxValue() / 1e3, latency.getTotalCount());
            final StringBuilder worst = new StringBuilder("worst latency of the requests due in each second (ms):");
            for (final long worstNs : worstBySecondNs)
            {
                worst.append(' ').append(worstNs / 1_000_000);
            }
            System.out.println(worst);
            try (PrintStream out = new PrintStream(new FileOutputStream(report), true, StandardCharsets.UTF_8))
            {
                latency.outputPercentileDistribution(out, 1000.0);
            }
            for (final Connection connection : connections)
            {
                connection.channel.close();
            }
            return sustained;
        }
    }

    private long dueNs(final long requestNumber)
    {
        return startNs + requestNumber * intervalNs;
    }

    private long oldestDueNs(final List<Connection> connections)
    {
        long oldest = Long.MAX_VALUE;
        for (final Connection connection : connections)
        {
            if (!connection.due.isEmpty())
            {
                oldest = Math.min(oldest, dueNs(connection.due.peekLong()));
            }
        }
        return oldest;
    }

    private void send(final Connection connection) throws IOException
    {
        connection.out = requests[(int)(connection.due.peekLong() % requests.length)].duplicate();
        connection.channel.write(connection.out);
    }

    /**
     * Read what the connection has, complete every whole response in it, and send the connection's next request.
     *
     * @return responses completed.
     */
    private int read(final Connection connection, final long measureFromNs) throws IOException
    {
        final ByteBuffer in = connection.in;
        if (connection.channel.read(in) < 0)
        {
            throw new IOException("the server closed a connection");
        }
        int responses = 0;
        int length;
        while ((length = responseLength(in)) > 0)
        {
            final long nowNs = System.nanoTime();
            final boolean ok = in.get(9) == '2' && in.get(10) == '0' && in.get(11) == '0';
            in.flip();
            in.position(length);
            in.compact();
            final long dueAtNs = dueNs(connection.due.pollLong());
            if (ok)
            {
                answered++;
            }
            else
            {
                failed++;
            }
            final int second = (int)((dueAtNs - startNs) / 1_000_000_000L);
            worstBySecondNs[second] = Math.max(worstBySecondNs[second], nowNs - dueAtNs);
            if (dueAtNs >= measureFromNs)
            {
                latency.recordValue(Math.min(nowNs - dueAtNs, latency.getHighestTrackableValue()));
            }
            responses++;
            if (!connection.due.isEmpty())
            {
                send(connection);
            }
        }
        return responses;
    }

    /**
     * @return the length of the whole response at the start of the buffer (written up to its position), or 0 while
     * it is incomplete.
     */
    static int responseLength(final ByteBuffer in)
    {
        final int end = in.position();
        for (int i = 3; i < end; i++)
        {
            if (in.get(i) == '\n' && in.get(i - 1) == '\r' && in.get(i - 2) == '\n' && in.get(i - 3) == '\r')
            {
                final int bodyLength = contentLength(in, i);
                return i + 1 + bodyLength <= end ? i + 1 + bodyLength : 0;
            }
        }
        return 0;
    }

    private static int contentLength(final ByteBuffer in, final int headerEnd)
    {
        for (int i = 0; i + CONTENT_LENGTH.length < headerEnd; i++)
        {
            boolean match = true;
            for (int j = 0; j < CONTENT_LENGTH.length && match; j++)
            {
                match = Character.toLowerCase(in.get(i + j)) == CONTENT_LENGTH[j];
            }
            if (match)
            {
                int at = i + CONTENT_LENGTH.length;
                while (in.get(at) == ' ')
                {
                    at++;
                }
                int value = 0;
                while (in.get(at) >= '0' && in.get(at) <= '9')
                {
                    value = value * 10 + (in.get(at++) - '0');
                }
                return value;
            }
        }
        return 0;
    }

    /**
     * The requests file: a count, then each request's length and bytes.
     */
    private static ByteBuffer[] readRequests(final File file) throws IOException
    {
        try (DataInputStream in = new DataInputStream(new FileInputStream(file)))
        {
            final ByteBuffer[] requests = new ByteBuffer[in.readInt()];
            for (int i = 0; i < requests.length; i++)
            {
                final byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                requests[i] = ByteBuffer.wrap(bytes).asReadOnlyBuffer();
            }
            return requests;
        }
    }
}
