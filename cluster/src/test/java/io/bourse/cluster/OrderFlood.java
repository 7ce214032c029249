package io.bourse.cluster;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.agrona.ExpandableArrayBuffer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Another client of the node sending limit orders of one account, on a thread of its own, between {@link #start()}
 * and {@link #stop()}: a busy exchange for a test. IOC orders as fast as the node takes them ({@link #ioc}), whose
 * price is chosen never to meet the book, so that they never rest; or GTC orders that rest, at a pace
 * ({@link #resting}).
 */
public final class OrderFlood implements AutoCloseable
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    private final ExchangeClient.Context context;
    private final long accountId;
    private final Side side;
    private final long price;
    private final long quantity;
    private final TimeInForce timeInForce;
    private final long pauseNs;
    private final AtomicBoolean running = new AtomicBoolean();
    private Thread thread;
    private volatile long answered;
    private long clientOrderId;

    private OrderFlood(
        final ExchangeClient.Context context, final long accountId, final Side side, final long price,
        final long quantity, final TimeInForce timeInForce, final long pauseNs)
    {
        this.context = context;
        this.accountId = accountId;
        this.side = side;
        this.price = price;
        this.quantity = quantity;
        this.timeInForce = timeInForce;
        this.pauseNs = pauseNs;
    }

    /**
     * IOC orders (instrument 1) as fast as the node takes them.
     */
    public static OrderFlood ioc(
        final ExchangeClient.Context context, final long accountId, final Side side, final long price,
        final long quantity)
    {
        return new OrderFlood(context, accountId, side, price, quantity, TimeInForce.IOC, 0);
    }

    /**
     * GTC orders (instrument 1), one every {@code pauseNs} at the most: at a price that meets nothing, each rests.
     */
    public static OrderFlood resting(
        final ExchangeClient.Context context, final long accountId, final Side side, final long price,
        final long quantity, final long pauseNs)
    {
        return new OrderFlood(context, accountId, side, price, quantity, TimeInForce.GTC, pauseNs);
    }

    public void start()
    {
        running.set(true);
        thread = new Thread(this::run, "flood");
        thread.start();
    }

    /**
     * Stop sending, and wait for the answers to what was sent.
     *
     * @return commands answered since the start.
     */
    public long stop() throws InterruptedException
    {
        running.set(false);
        thread.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS));
        if (thread.isAlive())
        {
            throw new AssertionError("the flood did not stop within 60 s");
        }
        return answered;
    }

    private void run()
    {
        final AnsweredRequests answers = new AnsweredRequests();
        // A flood falls behind a small history too: some of its answers are refused as no longer held.
        final ExchangeClient client = answers.newClient(context);
        try
        {
            final CommandEncoder encoder = new CommandEncoder();
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
            long lastSent = 0;
            while (running.get() || answers.upTo() < lastSent)
            {
                client.doWork();
                if (running.get() && client.isConnected())
                {
                    final int length = encoder.newOrder(buffer, 0, accountId, clientOrderId + 1, 1, side,
                        OrderType.LIMIT, timeInForce, false, SelfTradePrevention.ACCOUNT_DEFAULT, price,
                        quantity, 0, 0, 0);
                    final long sequence = client.trySend(buffer, 0, length);
                    if (sequence < 0)
                    {
                        // As many in flight as the client holds: wait a little for answers.
                        LockSupport.parkNanos(100_000);
                    }
                    else
                    {
                        clientOrderId++;
                        lastSent = sequence;
                        if (pauseNs > 0)
                        {
                            LockSupport.parkNanos(pauseNs);
                        }
                    }
                }
                else
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                answered = answers.upTo();
            }
        }
        finally
        {
            client.close();
        }
    }

    /**
     * @return commands answered since the start, so far.
     */
    public long answered()
    {
        return answered;
    }

    public void close() throws InterruptedException
    {
        if (thread != null && thread.isAlive())
        {
            stop();
        }
    }
}
