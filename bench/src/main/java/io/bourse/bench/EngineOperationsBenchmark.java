package io.bourse.bench;

import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.CancelOrderEncoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.NewOrderEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Single operations through the same path as {@link EngineBenchmark} (SBE decode → engine → SBE encode into a
 * counting sink), each leaving the book as it found it so that every invocation does the same work.
 * <ul>
 * <li>{@code placeAndCancel}: a GTC buy that rests away from the touch of exchange-core's ~1,000 order book, then its
 * cancel by client order id: two commands.</li>
 * <li>{@code placeAndMatch}: on an empty book, a GTC sell of one lot, then an IOC buy that fills it: two commands,
 * one trade with its balance and book events.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-XX:+UseParallelGC" })
@State(Scope.Thread)
public class EngineOperationsBenchmark
{
    private static final long SEED = 1;
    private static final long CLIENT_ORDER_ID = 1_000_000_000L;

    private final UnsafeBuffer messages = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
    private final int[] offsets = new int[5];
    private CommandAdapter bookAdapter;
    private CommandAdapter emptyAdapter;
    private long nowNs = ExchangeCoreWorkload.START_TIME_NS + 1_000_000_000_000L;

    @Setup(Level.Trial)
    public void setUp()
    {
        final ExchangeCoreWorkload book = ExchangeCoreWorkload.generate(SEED, 1_000, 1_000, 1, 1 << 20);
        final Engine bookEngine = new Engine(new EventEncoder(new EngineBenchmark.CountingSink()));
        bookAdapter = new CommandAdapter(bookEngine);
        book.apply(bookAdapter, 0, book.setupCount());
        final long[] prices = new long[1];
        bookEngine.bookDepth(ExchangeCoreWorkload.INSTRUMENT_ID, Side.BUY, 1, prices, new long[1], new int[1]);
        final long belowBestBid = prices[0] - 50;

        final ExchangeCoreWorkload empty = ExchangeCoreWorkload.generate(SEED, 2, 0, 1, 1 << 20);
        emptyAdapter = new CommandAdapter(new Engine(new EventEncoder(new EngineBenchmark.CountingSink())));
        empty.apply(emptyAdapter, 0, empty.setupCount());

        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final NewOrderEncoder newOrder = new NewOrderEncoder();
        final CancelOrderEncoder cancel = new CancelOrderEncoder();
        int offset = 0;
        offsets[0] = offset;
        offset += encode(newOrder, header, offset, 1, CLIENT_ORDER_ID, Side.BUY, TimeInForce.GTC, belowBestBid, 10);
        offsets[1] = offset;
        cancel.wrapAndApplyHeader(messages, offset, header).accountId(1).orderId(0).clientOrderId(CLIENT_ORDER_ID);
        offset += MessageHeaderEncoder.ENCODED_LENGTH + cancel.encodedLength();
        offsets[2] = offset;
        offset += encode(
            newOrder, header, offset, 1, CLIENT_ORDER_ID, Side.SELL, TimeInForce.GTC, ExchangeCoreWorkload.DEFAULT_CENTRAL_PRICE,
            1);
        offsets[3] = offset;
        offset += encode(
            newOrder, header, offset, 2, CLIENT_ORDER_ID, Side.BUY, TimeInForce.IOC, ExchangeCoreWorkload.DEFAULT_CENTRAL_PRICE,
            1);
        offsets[4] = offset;
    }

    private int encode(
        final NewOrderEncoder newOrder, final MessageHeaderEncoder header, final int offset, final long accountId,
        final long clientOrderId, final Side side, final TimeInForce timeInForce, final long price, final long quantity)
    {
        newOrder.wrapAndApplyHeader(messages, offset, header)
            .accountId(accountId).clientOrderId(clientOrderId).instrumentId(ExchangeCoreWorkload.INSTRUMENT_ID)
            .side(side).orderType(OrderType.LIMIT).timeInForce(timeInForce).postOnly(BooleanType.FALSE)
            .selfTradePrevention(SelfTradePrevention.ACCOUNT_DEFAULT).price(price).quantity(quantity).quoteAmount(0)
            .expiryTimeNs(0).stopPrice(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + newOrder.encodedLength();
    }

    @Benchmark
    public boolean placeAndCancel()
    {
        bookAdapter.onCommand(messages, offsets[0], offsets[1] - offsets[0], nowNs += 1_000);
        return bookAdapter.onCommand(messages, offsets[1], offsets[2] - offsets[1], nowNs += 1_000);
    }

    @Benchmark
    public boolean placeAndMatch()
    {
        emptyAdapter.onCommand(messages, offsets[2], offsets[3] - offsets[2], nowNs += 1_000);
        return emptyAdapter.onCommand(messages, offsets[3], offsets[4] - offsets[3], nowNs += 1_000);
    }
}
