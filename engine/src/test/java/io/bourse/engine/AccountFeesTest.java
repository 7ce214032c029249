package io.bourse.engine;

import io.bourse.protocol.codec.AccountRecordDecoder;
import io.bourse.protocol.codec.AccountRecordEncoder;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.MessageHeaderEncoder;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.bourse.engine.EngineAssertions.assertRejected;
import static io.bourse.engine.EngineAssertions.available;
import static io.bourse.engine.EngineAssertions.marketBuyQuote;
import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An account's own maker and taker fee rates (a market maker's, a tier's) in place of the instruments': what each
 * side of a fill pays, what a buy reserves, and what a snapshot keeps. The fixture's instruments charge 0.1 % to the
 * maker and 0.2 % to the taker.
 */
class AccountFeesTest
{
    private final EngineFixture f = new EngineFixture();

    @Test
    void eachSideOfAFillPaysItsOwnAccountsRate()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.engine.setAccountFees(1, 0, 500, f.tick());
        assertEquals(new EventRecorder.AccountFeesChanged(1, 0, 500, f.nowNs),
            f.events.only(EventRecorder.AccountFeesChanged.class));

        // Account 1 makes: no fee; account 2 takes at the instrument's 0.2 %.
        f.limit(1, 1, Side.SELL, 10_000, 10);
        f.events.clear();
        f.limit(2, 1, Side.BUY, 10_000, 10);
        EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(0, trade.makerFee());
        assertEquals(200, trade.takerFee());

        // Account 1 takes: its own 0.05 %; account 2 makes at the instrument's 0.1 %.
        f.limit(2, 2, Side.SELL, 10_000, 10);
        f.events.clear();
        f.limit(1, 2, Side.BUY, 10_000, 10);
        trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(100, trade.makerFee());
        assertEquals(50, trade.takerFee());
        f.engine.validateInternalState();
    }

    @Test
    void aBuyReservesFeesAtTheAccountsHighestRateAndAtMostPaysThat()
    {
        f.fund(1, USD, 10_000_000);
        f.fundAll(2);
        f.engine.setAccountFees(1, 300, 500, f.tick());

        f.limit(1, 1, Side.BUY, 10_000, 10);
        assertEquals(100_000 + 50, reserved(f, 1, USD), "notional plus 0.05 %");

        // Raised while the buy rests: the buy pays no more than its reservation holds, as when an instrument's change.
        f.engine.setAccountFees(1, 4_000, 4_000, f.tick());
        f.limit(2, 1, Side.SELL, 10_000, 10);
        final EventRecorder.Trade trade = f.events.last(EventRecorder.Trade.class);
        assertEquals(50, trade.makerFee());
        assertEquals(0, reserved(f, 1, USD));
        assertEquals(10_000_000 - 100_050, available(f, 1, USD));

        // A new buy reserves at the new rate.
        f.limit(1, 2, Side.BUY, 10_000, 10);
        assertEquals(100_000 + 400, reserved(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void aReplaceReservesAtTheRatesInForceThen()
    {
        f.fund(1, USD, 10_000_000);
        f.engine.setAccountFees(1, 0, 500, f.tick());
        f.limit(1, 1, Side.BUY, 10_000, 10);
        assertEquals(100_000 + 50, reserved(f, 1, USD));

        f.engine.setAccountFees(1, 0, 4_000, f.tick());
        f.engine.replaceOrder(1, 0, 1, 0, 10_000, 8, 0, f.tick());
        f.events.only(EventRecorder.OrderReplaced.class);
        assertEquals(80_000 + 320, reserved(f, 1, USD), "the smaller order at the account's new, higher rate");
        assertEquals(10_000_000 - 80_320, available(f, 1, USD));
        f.engine.validateInternalState();
    }

    @Test
    void aMarketBuyByQuoteAmountAffordsWhatItsAccountsTakerRateLeaves()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(2, 1, Side.SELL, 10_000, 10);
        f.engine.setAccountFees(1, -1, 500, f.tick());
        f.events.clear();

        // 50,025 buys 5 lots at 10,005 each with the account's 0.05 %; at the instrument's 0.2 % it would buy 4.
        marketBuyQuote(f, 1, 1, 50_025);
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(5, trade.quantity());
        assertEquals(25, trade.takerFee());
        assertEquals(50, trade.makerFee(), "the seller pays the instrument's 0.1 %");
        f.engine.validateInternalState();
    }

    @Test
    void aSellTakesAtItsAccountsOwnRate()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(2, 1, Side.BUY, 10_000, 10);
        f.engine.setAccountFees(1, -1, 500, f.tick());
        f.events.clear();

        f.order(1, 1, EngineFixture.BTC_USD, Side.SELL, OrderType.LIMIT, TimeInForce.FOK, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 10_000, 10, 0, 0);
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(50, trade.takerFee());
        assertEquals(100, trade.makerFee());
        f.engine.validateInternalState();
    }

    @Test
    void minusOneRestoresTheInstrumentsRates()
    {
        f.fundAll(1);
        f.fundAll(2);
        final long hashBefore = f.engine.stateHash();
        f.engine.setAccountFees(1, 0, 0, f.tick());
        assertNotEquals(hashBefore, f.engine.stateHash(), "an account's own rates are part of the state");
        f.engine.setAccountFees(1, -1, -1, f.tick());
        assertEquals(hashBefore, f.engine.stateHash(),
            "an account back on the instruments' rates hashes as one that never had rates of its own");

        f.limit(2, 1, Side.SELL, 10_000, 10);
        f.limit(1, 1, Side.BUY, 10_000, 10);
        final EventRecorder.Trade trade = f.events.last(EventRecorder.Trade.class);
        assertEquals(100, trade.makerFee());
        assertEquals(200, trade.takerFee());
    }

    @Test
    void ratesOutsideTheirRangeOrOfNoAccountAreRefused()
    {
        for (final int[] rates : new int[][]{ { -2, 0 }, { 0, -2 }, { 1_000_001, 0 }, { 0, Integer.MIN_VALUE } })
        {
            final EventRecorder.CommandRejected rejected = assertRejected(f, RejectReason.INVALID_FEE_RATE,
                () -> f.engine.setAccountFees(1, rates[0], rates[1], f.tick()));
            assertEquals(CommandType.SET_ACCOUNT_FEES, rejected.commandType());
        }
        assertRejected(f, RejectReason.INVALID_ACCOUNT, () -> f.engine.setAccountFees(0, 0, 0, f.tick()));
        f.events.clear();
        f.engine.setAccountFees(7, 1_000_000, 0, f.tick());
        assertEquals(new EventRecorder.AccountFeesChanged(7, 1_000_000, 0, f.nowNs),
            f.events.only(EventRecorder.AccountFeesChanged.class), "an account it had not seen, at the highest rate");
    }

    @Test
    void aSnapshotWrittenBeforeAccountsHadRatesLoadsWithTheInstrumentsRates()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.limit(1, 1, Side.BUY, 10_000, 10);
        final byte[] versionOne = asSchemaVersionOne(SnapshotTest.snapshot(f.engine));

        final Engine restored = new Engine(new EventRecorder());
        restored.loadSnapshot(new UnsafeBuffer(versionOne), 0, versionOne.length);
        assertEquals(f.engine.stateHash(), restored.stateHash(), "its recorded hash verifies, and the states agree");
        restored.validateInternalState();
        assertArrayEquals(SnapshotTest.snapshot(f.engine), SnapshotTest.snapshot(restored));
    }

    @Test
    void aSnapshotWithARateOutsideItsRangeIsRefused()
    {
        f.fundAll(1);
        f.engine.setAccountFees(1, 0, 500, f.tick());
        final byte[] snapshot = SnapshotTest.snapshot(f.engine);
        final UnsafeBuffer buffer = new UnsafeBuffer(snapshot);
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        for (int position = 0; position < snapshot.length;
            position += MessageHeaderDecoder.ENCODED_LENGTH + SnapshotTest.bodyLength(buffer, position, header))
        {
            if (header.wrap(buffer, position).templateId() == AccountRecordDecoder.TEMPLATE_ID)
            {
                new AccountRecordEncoder().wrap(buffer, position + MessageHeaderDecoder.ENCODED_LENGTH).takerFeePpm(-7);
            }
        }
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> new Engine(new EventRecorder()).loadSnapshot(buffer, 0, snapshot.length));
        assertTrue(refused.getMessage().contains("fee rates"), refused.getMessage());
    }

    /**
     * The same snapshot as schema version 1 wrote it (format 3): every record of version 1, and account records
     * without the fee rates, the last fields of their block.
     */
    private static byte[] asSchemaVersionOne(final byte[] snapshot)
    {
        final UnsafeBuffer in = new UnsafeBuffer(snapshot);
        final ExpandableArrayBuffer out = new ExpandableArrayBuffer();
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        int written = 0;
        for (int position = 0; position < snapshot.length;)
        {
            header.wrap(in, position);
            final int length = MessageHeaderDecoder.ENCODED_LENGTH + SnapshotTest.bodyLength(in, position, header);
            final int cut = header.templateId() == AccountRecordDecoder.TEMPLATE_ID ? 2 * Integer.BYTES : 0;
            final int blockEnd = MessageHeaderDecoder.ENCODED_LENGTH + header.blockLength();
            out.putBytes(written, in, position, blockEnd - cut);
            out.putBytes(written + blockEnd - cut, in, position + blockEnd, length - blockEnd);
            new MessageHeaderEncoder().wrap(out, written).version(1).blockLength(header.blockLength() - cut);
            written += length - cut;
            position += length;
        }
        final byte[] bytes = new byte[written];
        out.getBytes(0, bytes);
        return bytes;
    }

    @Test
    void aSnapshotKeepsTheAccountsRates()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.engine.setAccountFees(1, 0, 500, f.tick());
        f.engine.setAccountFees(2, 2_500, -1, f.tick());
        final byte[] snapshot = SnapshotTest.snapshot(f.engine);

        final EventRecorder events = new EventRecorder();
        final Engine restored = new Engine(events);
        restored.loadSnapshot(new UnsafeBuffer(snapshot), 0, snapshot.length);
        assertEquals(f.engine.stateHash(), restored.stateHash());

        restored.newOrder(2, 1, EngineFixture.BTC_USD, Side.SELL, OrderType.LIMIT,
            TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
            10_000, 10, 0, 0, 0, f.tick());
        restored.newOrder(1, 1, EngineFixture.BTC_USD, Side.BUY, OrderType.LIMIT,
            TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
            10_000, 10, 0, 0, 0, f.tick());
        final EventRecorder.Trade trade = events.last(EventRecorder.Trade.class);
        assertEquals(250, trade.makerFee());
        assertEquals(50, trade.takerFee());
    }
}
