package io.bourse.cluster;

import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TradingState;

import java.util.SplittableRandom;

/**
 * A seeded stream of valid exchange commands, sent through a {@link TestClient} and applied, in the same order,
 * to a reference {@link Engine} in this thread: the cluster's state must end with the reference's state hash.
 * Only GTC orders, so the outcome does not depend on cluster time.
 */
final class ReferenceWorkload
{
    static final int BTC = 1;
    static final int USD = 2;
    static final int BTC_USD = 1;
    static final int ACCOUNTS = 20;

    final Engine reference = new Engine(new EventEncoder((buffer, offset, length) -> {}));
    private final CommandAdapter referenceAdapter = new CommandAdapter(reference);
    private final SplittableRandom random;
    private final long seed;
    private long nextClientOrderId = 1;
    private long nowNs = 1;

    ReferenceWorkload(final long seed)
    {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    long seed()
    {
        return seed;
    }

    void setUp(final TestClient client)
    {
        send(client, client.encoder.defineAsset(client.buffer, 0, BTC, 8, "BTC"));
        send(client, client.encoder.defineAsset(client.buffer, 0, USD, 6, "USD"));
        send(client, client.encoder.defineInstrument(client.buffer, 0, BTC_USD, "BTC-USD", BTC, USD, 2, 1, 4, 1, 1, 0,
            0, 0, 1_000, 2_000, TradingState.OPEN));
        for (int account = 1; account <= ACCOUNTS; account++)
        {
            send(client, client.encoder.deposit(client.buffer, 0, account * 10L, account, BTC, 1_000_000_000_000L));
            send(client, client.encoder.deposit(client.buffer, 0, account * 10L + 1, account, USD, 1_000_000_000_000_000L));
        }
    }

    /**
     * Random limit orders around a price of 100.00, about a third of them crossing, and cancels of earlier ones.
     */
    void trade(final TestClient client, final int commands)
    {
        for (int i = 0; i < commands; i++)
        {
            final long account = 1 + random.nextInt(ACCOUNTS);
            if (random.nextInt(10) == 0 && nextClientOrderId > 1)
            {
                send(client, client.encoder.cancelOrder(client.buffer, 0, account, 0, 1 + random.nextLong(nextClientOrderId)));
            }
            else
            {
                final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
                final long price = 10_000 + (side == Side.BUY ? -1 : 1) * (random.nextInt(60) - 20);
                send(client, client.encoder.limit(client.buffer, 0, account, nextClientOrderId++, BTC_USD, side, price,
                    1 + random.nextInt(50)));
            }
        }
    }

    long send(final TestClient client, final int length)
    {
        referenceAdapter.onCommand(client.buffer, 0, length, nowNs++);
        final long sequence = client.send(length);
        client.client.doWork();
        return sequence;
    }
}
