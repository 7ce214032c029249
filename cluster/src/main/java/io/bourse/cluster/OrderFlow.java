package io.bourse.cluster;

import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TradingState;
import org.agrona.MutableDirectBuffer;

import java.util.SplittableRandom;

/**
 * Seeded order flow for the benchmarks and for the JVM's AOT training ({@code bourse aot-training}), encoded as
 * engine commands: one instrument (BTC-USD, tick 0.01),
 * {@value #ACCOUNTS} funded accounts. {@link #next} gives 70 % GTC limit orders within ±0.40 of 100.00 (about a
 * third of them cross), 25 % cancels of one of the last 1,000 orders by its owner, 5 % deposits; {@link #nextResting}
 * gives orders that never cross (bids 50.00–99.99, asks 100.01–150.00).
 */
public final class OrderFlow
{
    public static final int ACCOUNTS = 100;
    public static final int BTC = 1;
    public static final int USD = 2;
    public static final int BTC_USD = 1;
    private static final int RECENT = 1024;

    private final CommandEncoder encoder = new CommandEncoder();
    private final SplittableRandom random;
    private final long[] recentAccounts = new long[RECENT];
    private long nextClientOrderId = 1;
    private long nextTransactionId = 1;
    private int setUpStep;

    public OrderFlow(final long seed)
    {
        random = new SplittableRandom(seed);
    }

    /**
     * Encode the next set-up command (assets, instrument, deposits).
     *
     * @return its length, or 0 once set-up is complete.
     */
    public int nextSetUp(final MutableDirectBuffer buffer)
    {
        final int step = setUpStep++;
        if (step == 0)
        {
            return encoder.defineAsset(buffer, 0, BTC, 8, "BTC");
        }
        if (step == 1)
        {
            return encoder.defineAsset(buffer, 0, USD, 6, "USD");
        }
        if (step == 2)
        {
            return encoder.defineInstrument(buffer, 0, BTC_USD, "BTC-USD", BTC, USD, 2, 1, 4, 1, 1, 0,
                0, 0, 1_000, 2_000, TradingState.OPEN);
        }
        final int deposit = step - 3;
        if (deposit < 2 * ACCOUNTS)
        {
            final long account = 1 + deposit / 2;
            return deposit % 2 == 0 ?
                encoder.deposit(buffer, 0, nextTransactionId++, account, BTC, 1_000_000_000_000L) :
                encoder.deposit(buffer, 0, nextTransactionId++, account, USD, 1_000_000_000_000_000L);
        }
        return 0;
    }

    public int nextResting(final MutableDirectBuffer buffer)
    {
        final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
        final long price = side == Side.BUY ? 5_000 + random.nextInt(5_000) : 10_001 + random.nextInt(5_000);
        return limit(buffer, 1 + random.nextInt(ACCOUNTS), side, price);
    }

    public int next(final MutableDirectBuffer buffer)
    {
        final int kind = random.nextInt(20);
        if (kind == 0)
        {
            return encoder.deposit(buffer, 0, nextTransactionId++, 1 + random.nextInt(ACCOUNTS), USD,
                1 + random.nextInt(1_000));
        }
        if (kind <= 5 && nextClientOrderId > RECENT)
        {
            final long clientOrderId = nextClientOrderId - 1 - random.nextInt(RECENT);
            return encoder.cancelOrder(buffer, 0, recentAccounts[(int)(clientOrderId & (RECENT - 1))], 0, clientOrderId);
        }
        final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
        final long price = 10_000 + (side == Side.BUY ? -1 : 1) * (random.nextInt(60) - 20);
        return limit(buffer, 1 + random.nextInt(ACCOUNTS), side, price);
    }

    private int limit(final MutableDirectBuffer buffer, final long account, final Side side, final long price)
    {
        final long clientOrderId = nextClientOrderId++;
        recentAccounts[(int)(clientOrderId & (RECENT - 1))] = account;
        return encoder.limit(buffer, 0, account, clientOrderId, BTC_USD, side, price, 1 + random.nextInt(50));
    }
}
