package io.bourse.engine;

import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.MassCancelEncoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.NewOrderEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import io.bourse.protocol.codec.TradingState;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.bourse.engine.EngineFixture.BTC;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command encoded with the SBE encoders and applied through {@link CommandAdapter} has exactly the effect of
 * the same call on the {@link Engine}; messages that are not a command change nothing.
 */
class CommandAdapterTest
{
    private final EngineFixture direct = new EngineFixture();
    private final EngineFixture decoded = new EngineFixture();
    private final CommandAdapter adapter = new CommandAdapter(decoded.engine);
    private final CommandEncoder encoding = new CommandEncoder();
    private final MutableDirectBuffer buffer = new ExpandableArrayBuffer(256);
    private long nowNs = 1_800_000_000_000_000_000L;

    @FunctionalInterface
    interface Call
    {
        void apply(Engine engine, long nowNs);
    }

    @FunctionalInterface
    interface Encode
    {
        int encode(MutableDirectBuffer buffer, int offset);
    }

    @Test
    void everyCommandThroughTheAdapterMatchesTheDirectCall()
    {
        final long gtdExpiry = nowNs + 5_000;
        final List<String> covered = new ArrayList<>();
        step(covered, "define asset", (e, t) -> e.defineAsset(4, 8, "SOL", t),
            (b, o) -> encoding.defineAsset(b, o, 4, 8, "SOL"));
        step(covered, "define instrument", (e, t) -> e.defineInstrument(3, "SOL-USD", 4, USD, 2, 1, 4, 1, 1, 0, 500,
                10_000, 1_000, 2_000, TradingState.OPEN, t),
            (b, o) -> encoding.defineInstrument(b, o, 3, "SOL-USD", 4, USD, 2, 1, 4, 1, 1, 0, 500, 10_000, 1_000, 2_000,
                TradingState.OPEN));
        step(covered, "deposit", (e, t) -> e.deposit(100, 1, USD, 1_000_000_000_000L, t),
            (b, o) -> encoding.deposit(b, o, 100, 1, USD, 1_000_000_000_000L));
        step(covered, "deposit base", (e, t) -> e.deposit(101, 2, 4, 1_000_000_000_000L, t),
            (b, o) -> encoding.deposit(b, o, 101, 2, 4, 1_000_000_000_000L));
        step(covered, "deposit repeated", (e, t) -> e.deposit(100, 1, USD, 1_000_000_000_000L, t),
            (b, o) -> encoding.deposit(b, o, 100, 1, USD, 1_000_000_000_000L));
        step(covered, "withdraw", (e, t) -> e.withdraw(102, 1, USD, 1_000, t),
            (b, o) -> encoding.withdraw(b, o, 102, 1, USD, 1_000));
        step(covered, "withdraw too much", (e, t) -> e.withdraw(103, 1, BTC, 1_000, t),
            (b, o) -> encoding.withdraw(b, o, 103, 1, BTC, 1_000));
        step(covered, "limits", (e, t) -> e.setAccountLimits(2, 1_000, 0, 10, SelfTradePrevention.CANCEL_RESTING, t),
            (b, o) -> encoding.setAccountLimits(b, o, 2, 1_000, 0, 10, SelfTradePrevention.CANCEL_RESTING));
        step(covered, "fees", (e, t) -> e.setAccountFees(1, 0, 1_500, t), (b, o) -> encoding.setAccountFees(b, o, 1, 0, 1_500));
        step(covered, "rest sell", (e, t) -> e.newOrder(2, 1, 3, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 10, 0, 0, 0, t),
            (b, o) -> encoding.newOrder(b, o, 2, 1, 3, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 10, 0, 0, 0));
        step(covered, "partial fill", (e, t) -> e.newOrder(1, 1, 3, Side.BUY, OrderType.LIMIT, TimeInForce.IOC, false,
                SelfTradePrevention.CANCEL_BOTH, 10_000, 4, 0, 0, 0, t),
            (b, o) -> encoding.newOrder(b, o, 1, 1, 3, Side.BUY, OrderType.LIMIT, TimeInForce.IOC, false,
                SelfTradePrevention.CANCEL_BOTH, 10_000, 4, 0, 0, 0));
        step(covered, "query", (e, t) -> e.queryOrder(2, 0, 1, t), (b, o) -> encoding.queryOrder(b, o, 2, 0, 1));
        step(covered, "query unknown", (e, t) -> e.queryOrder(2, 77, 0, t), (b, o) -> encoding.queryOrder(b, o, 2, 77, 0));
        step(covered, "replace", (e, t) -> e.replaceOrder(2, 0, 1, 11, 10_010, 8, 0, t),
            (b, o) -> encoding.replaceOrder(b, o, 2, 0, 1, 11, 10_010, 8, 0));
        step(covered, "rest gtd", (e, t) -> e.newOrder(2, 2, 3, Side.SELL, OrderType.LIMIT, TimeInForce.GTD, true,
                SelfTradePrevention.DECREMENT, 10_020, 5, 0, gtdExpiry, 0, t),
            (b, o) -> encoding.newOrder(b, o, 2, 2, 3, Side.SELL, OrderType.LIMIT, TimeInForce.GTD, true,
                SelfTradePrevention.DECREMENT, 10_020, 5, 0, gtdExpiry, 0));
        nowNs += 10_000;
        step(covered, "expire", (e, t) -> e.expireOrders(t), encoding::expireOrders);
        step(covered, "halt", (e, t) -> e.setTradingState(3, TradingState.HALTED, t),
            (b, o) -> encoding.setTradingState(b, o, 3, TradingState.HALTED));
        step(covered, "order while halted", (e, t) -> e.newOrder(1, 2, 3, Side.BUY, OrderType.LIMIT, TimeInForce.GTC,
                false, SelfTradePrevention.ACCOUNT_DEFAULT, 9_000, 1, 0, 0, 0, t),
            (b, o) -> encoding.limit(b, o, 1, 2, 3, Side.BUY, 9_000, 1));
        step(covered, "open", (e, t) -> e.setTradingState(3, TradingState.OPEN, t),
            (b, o) -> encoding.setTradingState(b, o, 3, TradingState.OPEN));
        step(covered, "kill switch", (e, t) -> e.setKillSwitch(1, true, t), (b, o) -> encoding.setKillSwitch(b, o, 1, true));
        step(covered, "order while killed", (e, t) -> e.newOrder(1, 3, 3, Side.BUY, OrderType.LIMIT, TimeInForce.GTC,
                false, SelfTradePrevention.ACCOUNT_DEFAULT, 9_000, 1, 0, 0, 0, t),
            (b, o) -> encoding.limit(b, o, 1, 3, 3, Side.BUY, 9_000, 1));
        step(covered, "kill switch off", (e, t) -> e.setKillSwitch(1, false, t),
            (b, o) -> encoding.setKillSwitch(b, o, 1, false));
        step(covered, "market buy by quote", (e, t) -> e.newOrder(1, 4, 3, Side.BUY, OrderType.MARKET, TimeInForce.IOC,
                false, SelfTradePrevention.ACCOUNT_DEFAULT, 0, 0, 30_000, 0, 0, t),
            (b, o) -> encoding.newOrder(b, o, 1, 4, 3, Side.BUY, OrderType.MARKET, TimeInForce.IOC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 0, 0, 30_000, 0, 0));
        step(covered, "rest buy", (e, t) -> e.newOrder(1, 5, 3, Side.BUY, OrderType.LIMIT, TimeInForce.GTC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 9_900, 3, 0, 0, 0, t),
            (b, o) -> encoding.limit(b, o, 1, 5, 3, Side.BUY, 9_900, 3));
        step(covered, "cancel", (e, t) -> e.cancelOrder(1, 0, 5, t), (b, o) -> encoding.cancelOrder(b, o, 1, 0, 5));
        step(covered, "cancel unknown", (e, t) -> e.cancelOrder(1, 0, 5, t), (b, o) -> encoding.cancelOrder(b, o, 1, 0, 5));
        step(covered, "rest sells", (e, t) -> e.newOrder(2, 6, 3, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 10_100, 3, 0, 0, 0, t),
            (b, o) -> encoding.limit(b, o, 2, 6, 3, Side.SELL, 10_100, 3));
        step(covered, "mass cancel side", (e, t) -> e.massCancel(2, 3, Side.SELL, t),
            (b, o) -> encoding.massCancel(b, o, 2, 3, Side.SELL));
        step(covered, "mass cancel all", (e, t) -> e.massCancel(2, 0, Side.NULL_VAL, t),
            (b, o) -> encoding.massCancel(b, o, 2, 0, Side.NULL_VAL));
        step(covered, "cancel all after", (e, t) -> e.setCancelAllAfter(1, 30_000, t),
            (b, o) -> encoding.setCancelAllAfter(b, o, 1, 30_000));
        step(covered, "cancel all after off", (e, t) -> e.setCancelAllAfter(1, 0, t),
            (b, o) -> encoding.setCancelAllAfter(b, o, 1, 0));
        step(covered, "invalid side", (e, t) -> e.newOrder(1, 7, 3, Side.NULL_VAL, OrderType.LIMIT, TimeInForce.GTC,
                false, SelfTradePrevention.ACCOUNT_DEFAULT, 9_900, 3, 0, 0, 0, t),
            (b, o) -> encoding.newOrder(b, o, 1, 7, 3, Side.NULL_VAL, OrderType.LIMIT, TimeInForce.GTC, false,
                SelfTradePrevention.ACCOUNT_DEFAULT, 9_900, 3, 0, 0, 0));

        assertEquals(direct.engine.stateHash(), decoded.engine.stateHash());
        decoded.engine.validateInternalState();
        assertTrue(covered.size() > 25, covered.toString());
    }

    @Test
    void messagesThatAreNotACommandAreRejectedAndChangeNothing()
    {
        decoded.fundAll(1);
        decoded.limit(1, 1, Side.BUY, 10_000, 5);
        final long hash = decoded.engine.stateHash();
        final int length = encoding.limit(buffer, 0, 1, 2, BTC_USD, Side.SELL, 11_000, 5);

        assertNotACommand(buffer, 0, "empty");
        assertNotACommand(buffer, MessageHeaderEncoder.ENCODED_LENGTH - 1, "shorter than a header");
        assertNotACommand(buffer, length - 1, "shorter than its block");
        assertNotACommand(buffer, MessageHeaderEncoder.ENCODED_LENGTH, "header only");

        final ExpandableArrayBuffer unknownTemplate = copy(length);
        unknownTemplate.putShort(MessageHeaderEncoder.templateIdEncodingOffset(), (short)999);
        assertNotACommand(unknownTemplate, length, "unknown template");

        final ExpandableArrayBuffer eventTemplate = copy(length);
        eventTemplate.putShort(MessageHeaderEncoder.templateIdEncodingOffset(), (short)100);
        assertNotACommand(eventTemplate, length, "an event, not a command");

        final ExpandableArrayBuffer wrongSchema = copy(length);
        wrongSchema.putShort(MessageHeaderEncoder.schemaIdEncodingOffset(), (short)77);
        assertNotACommand(wrongSchema, length, "another schema");

        final ExpandableArrayBuffer hugeBlock = copy(length);
        hugeBlock.putShort(MessageHeaderEncoder.blockLengthEncodingOffset(), (short)4_000);
        assertNotACommand(hugeBlock, length, "block length beyond the message");

        final ExpandableArrayBuffer shortBlock = copy(length);
        shortBlock.putShort(MessageHeaderEncoder.blockLengthEncodingOffset(), (short)0);
        assertNotACommand(shortBlock, MessageHeaderEncoder.ENCODED_LENGTH, "a block shorter than the command's");
        final ExpandableArrayBuffer longBlock = copy(length + 8);
        longBlock.putShort(
            MessageHeaderEncoder.blockLengthEncodingOffset(), (short)(length - MessageHeaderEncoder.ENCODED_LENGTH + 8));
        assertNotACommand(longBlock, length + 8, "a block longer than the command's");

        final ExpandableArrayBuffer badBoolean = copy(length);
        badBoolean.putByte(MessageHeaderEncoder.ENCODED_LENGTH + NewOrderEncoder.postOnlyEncodingOffset(), (byte)7);
        assertNotACommand(badBoolean, length, "post-only flag neither 0 nor 1");

        final ExpandableArrayBuffer badSide = copy(length);
        badSide.putByte(MessageHeaderEncoder.ENCODED_LENGTH + NewOrderEncoder.sideEncodingOffset(), (byte)9);
        decoded.events.clear();
        assertTrue(adapter.onCommand(badSide, 0, length, ++nowNs), "a command with a bad field is still a command");
        assertEquals(RejectReason.INVALID_SIDE, decoded.events.only(EventRecorder.CommandRejected.class).reason());
        assertEquals(1, decoded.events.events().size());

        final int massCancelLength = encoding.massCancel(buffer, length, 1, 0, Side.NULL_VAL);
        final ExpandableArrayBuffer badMassCancelSide = new ExpandableArrayBuffer(massCancelLength);
        badMassCancelSide.putBytes(0, buffer, length, massCancelLength);
        badMassCancelSide.putByte(MessageHeaderEncoder.ENCODED_LENGTH + MassCancelEncoder.sideEncodingOffset(), (byte)3);
        decoded.events.clear();
        assertTrue(adapter.onCommand(badMassCancelSide, 0, massCancelLength, ++nowNs),
            "a mass cancel with a bad side is still a command");
        assertEquals(RejectReason.INVALID_SIDE, decoded.events.only(EventRecorder.CommandRejected.class).reason(),
            "a side outside the schema is not taken for both sides");
        assertEquals(1, decoded.events.events().size());

        assertEquals(hash, decoded.engine.stateHash());
        assertTrue(adapter.onCommand(buffer, 0, length, ++nowNs), "the intact message is still a command");
    }

    private ExpandableArrayBuffer copy(final int length)
    {
        final ExpandableArrayBuffer copy = new ExpandableArrayBuffer(length);
        copy.putBytes(0, buffer, 0, length);
        return copy;
    }

    private void assertNotACommand(final MutableDirectBuffer message, final int length, final String what)
    {
        decoded.events.clear();
        final long hash = decoded.engine.stateHash();
        final long timestampNs = ++nowNs;
        assertFalse(adapter.onCommand(message, 0, length, timestampNs), what);
        final EventRecorder.CommandRejected rejected = decoded.events.only(EventRecorder.CommandRejected.class);
        assertEquals(RejectReason.UNKNOWN_COMMAND, rejected.reason(), what);
        assertEquals(timestampNs, rejected.timestampNs(), what);
        assertEquals(1, decoded.events.events().size(), what);
        assertEquals(hash, decoded.engine.stateHash(), what);
    }

    private void step(final List<String> covered, final String name, final Call call, final Encode encode)
    {
        final long timestampNs = ++nowNs;
        direct.events.clear();
        decoded.events.clear();
        call.apply(direct.engine, timestampNs);
        final int length = encode.encode(buffer, 16);
        assertTrue(adapter.onCommand(buffer, 16, length, timestampNs), name);
        assertFalse(direct.events.events().isEmpty(), name);
        assertEquals(direct.events.events(), decoded.events.events(), name);
        assertEquals(direct.engine.stateHash(), decoded.engine.stateHash(), name);
        covered.add(name + ": " + direct.events.events().size() + " events");
    }
}
