package io.bourse.engine;

import io.bourse.protocol.codec.CancelReason;
import io.bourse.protocol.codec.CommandType;
import io.bourse.protocol.codec.OrderType;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.SelfTradePrevention;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TimeInForce;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.bourse.engine.EngineAssertions.reserved;
import static io.bourse.engine.EngineFixture.BTC_USD;
import static io.bourse.engine.EngineFixture.ETH_USD;
import static io.bourse.engine.EngineFixture.USD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cancel-all-after switch (a dead man's switch) the exchange holds for an account: armed by a command, triggered
 * by the host's expiry call once its deadline has passed, canceling every open order of the account.
 */
class CancelAllAfterTest
{
    private static final long MS = 1_000_000L;

    private final EngineFixture f = new EngineFixture();

    @BeforeEach
    void fundAccounts()
    {
        f.fundAll(1);
        f.fundAll(2);
        f.events.clear();
    }

    private long arm(final long accountId, final long timeoutMs)
    {
        final long nowNs = f.tick();
        f.engine.setCancelAllAfter(accountId, timeoutMs, nowNs);
        return nowNs;
    }

    @Test
    void armingAnswersTheDeadlineAndTheHostIsToldWhenToCallBack()
    {
        assertEquals(Long.MAX_VALUE, f.engine.nextExpiryTimeNs());
        final long armedNs = arm(1, 5_000);

        assertEquals(new EventRecorder.CancelAllAfterChanged(1, 5_000, armedNs + 5_000 * MS, false, 0, armedNs),
            f.events.only(EventRecorder.CancelAllAfterChanged.class));
        assertEquals(armedNs + 5_000 * MS, f.engine.nextExpiryTimeNs());
        f.engine.validateInternalState();
    }

    @Test
    void atTheDeadlineEveryOpenOrderOfTheAccountIsCanceledStopsIncluded()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        f.order(1, 2, ETH_USD, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false, SelfTradePrevention.ACCOUNT_DEFAULT,
            20_000, 3, 0, 0);
        f.engine.newOrder(1, 3, BTC_USD, Side.SELL, OrderType.LIMIT, TimeInForce.GTC, false,
            SelfTradePrevention.ACCOUNT_DEFAULT, 9_000, 2, 0, 0, 9_500, f.tick());
        f.limit(2, 1, Side.SELL, 10_100, 5);
        final long armedNs = arm(1, 1_000);
        final long deadlineNs = armedNs + 1_000 * MS;
        f.events.clear();

        f.engine.expireOrders(deadlineNs - 1);
        assertTrue(f.events.events().isEmpty(), "nothing before the deadline: " + f.events.events());

        f.engine.expireOrders(deadlineNs);
        final List<EventRecorder.OrderCanceled> canceled = f.events.all(EventRecorder.OrderCanceled.class);
        assertEquals(List.of(1L, 2L, 3L), canceled.stream().map(EventRecorder.OrderCanceled::clientOrderId).toList());
        assertTrue(canceled.stream().allMatch(c -> c.reason() == CancelReason.CANCEL_ALL_AFTER && c.accountId() == 1));
        assertEquals(new EventRecorder.CancelAllAfterChanged(1, 1_000, deadlineNs, true, 3, deadlineNs),
            f.events.last(EventRecorder.CancelAllAfterChanged.class));
        assertEquals(0, reserved(f, 1, USD), "the buy's reservation released");
        assertEquals(1, f.engine.openOrderCount(), "account 2's order stays");
        assertEquals(Long.MAX_VALUE, f.engine.nextExpiryTimeNs(), "the switch is disarmed once it has triggered");
        f.engine.validateInternalState();

        f.events.clear();
        f.engine.expireOrders(deadlineNs + 10_000 * MS);
        assertTrue(f.events.events().isEmpty(), "it triggers once: " + f.events.events());
    }

    @Test
    void armingAgainMovesTheDeadlineAndZeroDisarms()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        arm(1, 1_000);
        final long againNs = arm(1, 2_000);
        assertEquals(againNs + 2_000 * MS, f.engine.nextExpiryTimeNs());
        f.events.clear();
        f.engine.expireOrders(againNs + 1_999 * MS);
        assertTrue(f.events.events().isEmpty(), "the first deadline no longer holds: " + f.events.events());

        final long disarmedNs = arm(1, 0);
        assertEquals(new EventRecorder.CancelAllAfterChanged(1, 0, 0, false, 0, disarmedNs),
            f.events.last(EventRecorder.CancelAllAfterChanged.class));
        assertEquals(Long.MAX_VALUE, f.engine.nextExpiryTimeNs());
        f.events.clear();
        f.engine.expireOrders(againNs + 3_000 * MS);
        assertTrue(f.events.events().isEmpty());
        assertEquals(1, f.engine.openOrderCount());
        arm(1, 0);
        assertEquals(new EventRecorder.CancelAllAfterChanged(1, 0, 0, false, 0, f.nowNs),
            f.events.last(EventRecorder.CancelAllAfterChanged.class), "disarming a disarmed switch is answered alike");
        f.engine.validateInternalState();
    }

    @Test
    void aSwitchArmedAgainAfterItsDeadlineTriggersFirst()
    {
        f.limit(1, 1, Side.BUY, 10_000, 5);
        final long armedNs = arm(1, 1_000);
        f.events.clear();
        // Sequenced before the timer that would have triggered the switch: too late all the same.
        f.nowNs = armedNs + 1_000 * MS;
        final long againNs = arm(1, 1_000);
        assertEquals(List.of(CancelReason.CANCEL_ALL_AFTER),
            f.events.all(EventRecorder.OrderCanceled.class).stream().map(EventRecorder.OrderCanceled::reason).toList());
        assertEquals(List.of(
                new EventRecorder.CancelAllAfterChanged(1, 1_000, armedNs + 1_000 * MS, true, 1, againNs),
                new EventRecorder.CancelAllAfterChanged(1, 1_000, againNs + 1_000 * MS, false, 0, againNs)),
            f.events.all(EventRecorder.CancelAllAfterChanged.class), "triggered, then armed again");
        assertEquals(againNs + 1_000 * MS, f.engine.nextExpiryTimeNs());
        f.engine.validateInternalState();
    }

    @Test
    void switchesDueTogetherTriggerEarliestFirstThenByAccountAndBeforeGtdExpiries()
    {
        f.fundAll(3);
        f.limit(3, 1, Side.BUY, 10_000, 1);
        f.limit(2, 1, Side.BUY, 10_000, 1);
        f.limit(1, 1, Side.BUY, 10_000, 1);
        f.fundAll(4);
        // Account 4 has no switch; its GTD order expires as account 1's switch is due.
        final long nowNs = f.nowNs + 1_000;
        EngineAssertions.gtd(f, 4, 1, Side.BUY, 9_000, 1, nowNs + 1_000 * MS);
        // Accounts 3 and 2 due at the same time, account 1 earlier.
        f.nowNs = nowNs;
        f.engine.setCancelAllAfter(3, 2_000, nowNs);
        f.engine.setCancelAllAfter(2, 2_000, nowNs);
        f.engine.setCancelAllAfter(1, 1_000, nowNs);
        f.events.clear();

        f.engine.expireOrders(nowNs + 20_000 * MS);
        final List<Long> order = f.events.events().stream()
            .filter(e -> e instanceof EventRecorder.CancelAllAfterChanged || e instanceof EventRecorder.OrderExpired)
            .map(e -> e instanceof EventRecorder.CancelAllAfterChanged c ? c.accountId() : -1L)
            .toList();
        assertEquals(List.of(1L, 2L, 3L, -1L), order, "every switch due, then every GTD order due");
        f.engine.validateInternalState();
    }

    @Test
    void manySwitchesArmedAgainAndDisarmedAtRandomTriggerInDeadlineThenAccountOrder()
    {
        final long seed = System.nanoTime();
        final java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        final int accounts = 300;
        for (long account = 3; account <= accounts; account++)
        {
            f.fund(account, USD, 1);
        }
        // The model: each account's deadline, 0 while disarmed.
        final java.util.Map<Long, Long> deadlines = new java.util.HashMap<>();
        for (int i = 0; i < 5_000; i++)
        {
            final long account = 1 + random.nextInt(accounts);
            // Whole milliseconds and few of them, so that deadlines often tie.
            final long timeoutMs = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(5);
            f.nowNs += random.nextInt(3) * MS;
            f.engine.setCancelAllAfter(account, timeoutMs, f.nowNs);
            deadlines.put(account, timeoutMs == 0 ? 0 : f.nowNs + timeoutMs * MS);
            if (i % 500 == 0)
            {
                f.engine.validateInternalState();
            }
        }
        f.engine.validateInternalState();
        f.events.clear();

        final List<Long> expected = deadlines.entrySet().stream().filter(e -> e.getValue() != 0)
            .sorted(java.util.Map.Entry.<Long, Long>comparingByValue().thenComparing(java.util.Map.Entry.comparingByKey()))
            .map(java.util.Map.Entry::getKey).toList();
        f.engine.expireOrders(f.nowNs + 10 * MS);
        assertEquals(expected, f.events.all(EventRecorder.CancelAllAfterChanged.class).stream()
            .map(EventRecorder.CancelAllAfterChanged::accountId).toList(), "seed " + seed);
        assertEquals(Long.MAX_VALUE, f.engine.nextExpiryTimeNs(), "seed " + seed);
        f.engine.validateInternalState();
    }

    @Test
    void refusals()
    {
        arm(0, 1_000);
        assertEquals(RejectReason.INVALID_ACCOUNT, rejected().reason());
        arm(1, -1);
        assertEquals(RejectReason.INVALID_TIMEOUT, rejected().reason());
        arm(1, Engine.MAX_CANCEL_ALL_AFTER_MS + 1);
        assertEquals(RejectReason.INVALID_TIMEOUT, rejected().reason());
        arm(99, 1_000);
        final EventRecorder.CommandRejected unknown = rejected();
        assertEquals(RejectReason.UNKNOWN_ACCOUNT, unknown.reason());
        assertEquals(CommandType.SET_CANCEL_ALL_AFTER, unknown.commandType());
        assertEquals(Long.MAX_VALUE, f.engine.nextExpiryTimeNs());

        arm(1, Engine.MAX_CANCEL_ALL_AFTER_MS);
        assertTrue(f.events.only(EventRecorder.CancelAllAfterChanged.class).deadlineNs() > 0, "a day is taken");
    }

    private EventRecorder.CommandRejected rejected()
    {
        final EventRecorder.CommandRejected rejected = f.events.only(EventRecorder.CommandRejected.class);
        f.events.clear();
        return rejected;
    }

    @Test
    void anArmedSwitchIsPartOfTheStateHash()
    {
        final EngineFixture other = new EngineFixture();
        other.fundAll(1);
        other.fundAll(2);
        assertEquals(other.engine.stateHash(), f.engine.stateHash());

        arm(1, 1_000);
        assertNotEquals(other.engine.stateHash(), f.engine.stateHash());
        other.nowNs = f.nowNs - 1_000;
        other.engine.setCancelAllAfter(1, 1_001, other.tick());
        assertNotEquals(other.engine.stateHash(), f.engine.stateHash(), "another timeout, another deadline");

        arm(1, 0);
        other.engine.setCancelAllAfter(1, 0, other.tick());
        assertEquals(other.engine.stateHash(), f.engine.stateHash(), "disarmed, as if never armed");
        assertFalse(f.engine.nextExpiryTimeNs() < Long.MAX_VALUE);
    }
}
