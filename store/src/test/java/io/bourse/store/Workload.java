package io.bourse.store;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradeDecoder;
import io.bourse.protocol.codec.TradingState;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.LongHashSet;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A seeded stream of exchange commands sent to a node: limit orders around 100.00 (a third crossing), cancels,
 * replaces, GTD orders that expire on the cluster's timer a few hundred milliseconds later, deposits, withdrawals and repeated
 * deposits. Independently of the store, it keeps the trades the node reported on its egress: their count and a
 * checksum over (trade id, price, quantity), the oracle the store's database is checked against.
 */
final class Workload implements ExchangeClientListener, AutoCloseable
{
    static final int BTC = 1;
    static final int USD = 2;
    static final int BTC_USD = 1;
    static final int ACCOUNTS = 20;

    private final CommandEncoder encoder = new CommandEncoder();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final LongHashSet seenBatches = new LongHashSet();
    private final ExchangeClient client;
    private final SplittableRandom random;
    private long nextClientOrderId = 1;
    // Each account's latest client order id: replaces aim at an order of their own account that is likely open,
    // so that every run has replaces that the engine applies.
    private final long[] latestClientOrderIdByAccount = new long[ACCOUNTS + 1];
    private long nextTransactionId = 1_000_000;
    private long trades;
    private long tradeChecksum;
    private long maxTradeId;
    private long latestExpiryMs;

    Workload(final TestNode node, final long seed)
    {
        this(node.node.clientContext(), seed);
    }

    /**
     * @param clientContext how to reach the cluster.
     */
    Workload(final ExchangeClient.Context clientContext, final long seed)
    {
        random = new SplittableRandom(seed);
        client = new ExchangeClient(clientContext.listener(this));
        TestNode.await("client connected", () ->
        {
            client.doWork();
            return client.isConnected();
        });
    }

    void setUp()
    {
        send(encoder.defineAsset(buffer, 0, BTC, 8, "BTC"));
        send(encoder.defineAsset(buffer, 0, USD, 6, "USD"));
        send(encoder.defineInstrument(buffer, 0, BTC_USD, "BTC-USD", BTC, USD, 2, 1, 4, 1, 1, 0,
            0, 0, 1_000, 2_000, TradingState.OPEN));
        for (int account = 1; account <= ACCOUNTS; account++)
        {
            send(encoder.deposit(buffer, 0, account * 10L, account, BTC, 1_000_000_000_000L));
            send(encoder.deposit(buffer, 0, account * 10L + 1, account, USD, 1_000_000_000_000_000L));
        }
    }

    void trade(final int commands)
    {
        for (int i = 0; i < commands; i++)
        {
            final long account = 1 + random.nextInt(ACCOUNTS);
            final int kind = random.nextInt(100);
            if (kind < 10 && nextClientOrderId > 1)
            {
                send(encoder.cancelOrder(buffer, 0, account, 0, 1 + random.nextLong(nextClientOrderId)));
            }
            else if (kind < 14 && latestClientOrderIdByAccount[(int)account] > 0)
            {
                final long replacement = nextClientOrderId++;
                send(encoder.replaceOrder(buffer, 0, account, 0, latestClientOrderIdByAccount[(int)account],
                    replacement, 10_000 + random.nextInt(40) - 20, 1 + random.nextInt(50), 0));
                latestClientOrderIdByAccount[(int)account] = replacement;
            }
            else if (kind < 18)
            {
                final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
                // Far enough ahead that a loaded machine still accepts the order before its expiry.
                final long expiryMs = System.currentTimeMillis() + 200 + random.nextInt(300);
                latestExpiryMs = Math.max(latestExpiryMs, expiryMs);
                final long expiryNs = TimeUnit.MILLISECONDS.toNanos(expiryMs);
                send(encoder.newOrder(buffer, 0, account, nextClientOrderId++, BTC_USD, side, OrderType.LIMIT,
                    TimeInForce.GTD, false, SelfTradePrevention.ACCOUNT_DEFAULT,
                    10_000 + (side == Side.BUY ? -1 : 1) * (random.nextInt(40) + 5), 1 + random.nextInt(20), 0, expiryNs,
                    0));
            }
            else if (kind < 21)
            {
                // A stop near the price: many are refused as reached already, the others trigger as the price moves.
                final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
                final long stopPrice = 9_990 + random.nextInt(21);
                final boolean market = random.nextInt(3) == 0;
                send(encoder.newOrder(buffer, 0, account, nextClientOrderId++, BTC_USD, side,
                    market ? OrderType.MARKET : OrderType.LIMIT, TimeInForce.GTC, false,
                    SelfTradePrevention.ACCOUNT_DEFAULT, market ? 0 : stopPrice + (side == Side.BUY ? 5 : -5),
                    1 + random.nextInt(20), 0, 0, stopPrice));
            }
            else if (kind < 22)
            {
                send(encoder.deposit(buffer, 0, nextTransactionId++, account, USD, 1 + random.nextInt(1_000_000)));
            }
            else if (kind < 23)
            {
                send(encoder.withdraw(buffer, 0, nextTransactionId++, account, BTC, 1 + random.nextInt(1_000)));
            }
            else if (kind < 24)
            {
                // A repeated transaction id: answered, not applied.
                send(encoder.deposit(buffer, 0, account * 10L + 1, account, USD, 5));
            }
            else
            {
                final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
                final long price = 10_000 + (side == Side.BUY ? -1 : 1) * (random.nextInt(60) - 20);
                latestClientOrderIdByAccount[(int)account] = nextClientOrderId;
                send(encoder.limit(buffer, 0, account, nextClientOrderId++, BTC_USD, side, price, 1 + random.nextInt(50)));
            }
        }
    }

    private void send(final int length)
    {
        final long deadlineNs = System.nanoTime() + TestNode.TIMEOUT_NS;
        while (client.trySend(buffer, 0, length) < 0)
        {
            client.doWork();
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("the node took no command for 60 s");
            }
            TestNode.sleepMs(1);
        }
        client.doWork();
    }

    /**
     * Wait until every command sent has its answer.
     */
    void awaitAllAnswered()
    {
        // The GTD orders sent expire on the cluster's timer: let their time pass so that the expiries are in the log.
        TestNode.sleepMs(Math.max(0, latestExpiryMs + 50 - System.currentTimeMillis()));
        TestNode.await(() -> "all commands answered, " + client.unansweredCount() + " left", () ->
        {
            client.doWork();
            return client.unansweredCount() == 0;
        });
    }

    public void onEventBatch(
        final long batchSequence, final long logPosition, final long timestampNs, final long clientId,
        final long requestSequence, final DirectBuffer eventBuffer, final int offset, final int length,
        final int eventCount)
    {
        if (!seenBatches.add(batchSequence))
        {
            return;
        }
        int position = offset;
        for (int i = 0; i < eventCount; i++)
        {
            header.wrap(eventBuffer, position);
            if (header.templateId() == TradeDecoder.TEMPLATE_ID)
            {
                trade.wrap(eventBuffer, position + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(),
                    header.version());
                trades++;
                tradeChecksum += StoreChecks.tradeChecksum(trade.tradeId(), trade.price(), trade.quantity());
                maxTradeId = Math.max(maxTradeId, trade.tradeId());
            }
            position += MessageHeaderDecoder.ENCODED_LENGTH + header.blockLength();
        }
    }

    long trades()
    {
        return trades;
    }

    long tradeChecksum()
    {
        return tradeChecksum;
    }

    long maxTradeId()
    {
        return maxTradeId;
    }

    public void close()
    {
        client.close();
    }
}
