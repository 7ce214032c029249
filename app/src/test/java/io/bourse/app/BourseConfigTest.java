package io.bourse.app;

import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.NodeIdleStrategy;
import io.bourse.protocol.codec.TradingState;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BourseConfigTest
{
    @Test
    void packagedDefaultIsTheCheckedInFileAndDescribesTheDemoExchange()
    {
        final BourseConfig packaged = BourseConfig.load(null, Map.of());
        final BourseConfig checkedIn = BourseConfig.load(new File("../config/bourse.properties"), Map.of());
        assertEquals(packaged.assets(), checkedIn.assets());
        assertEquals(packaged.instruments(), checkedIn.instruments());
        assertEquals(packaged.accounts(), checkedIn.accounts());

        final ClusterNode.Context context = packaged.nodeContext();
        assertEquals(new File("data"), context.dataDir());
        assertEquals(0, context.memberId());
        assertEquals(List.of("localhost"), context.memberHosts());
        assertEquals(9000, context.portBase());
        assertEquals(512L * 1024 * 1024, context.snapshotLogBytes());
        assertEquals(TimeUnit.MINUTES.toNanos(30), context.snapshotIntervalNs());
        assertEquals(2, context.retainedSnapshots());
        assertEquals(8 * 1024 * 1024, context.historyCapacityBytes());
        assertFalse(context.journalSync(), "Aeron's default: a node's journal is not synced to disk");
        assertEquals(NodeIdleStrategy.DEFAULT_YIELD_WINDOW_NS, context.agentYieldWindowNs(),
            "agents yield between commands while the machine has CPU to spare");

        assertEquals(List.of(new BourseConfig.AssetConfig("BTC", 1, 8), new BourseConfig.AssetConfig("USD", 2, 6)),
            packaged.assets());
        final BourseConfig.InstrumentConfig btcUsd = packaged.instruments().getFirst();
        assertEquals("BTC-USD", btcUsd.symbol());
        assertEquals(1, btcUsd.tickSize(), "0.01 at price scale 2");
        assertEquals(1, btcUsd.lotSize(), "0.0001 at quantity scale 4");
        assertEquals(1_000_000, btcUsd.maxQuantity(), "100 at quantity scale 4");
        assertEquals(TradingState.OPEN, btcUsd.tradingState());
        assertEquals(4, packaged.accounts().size());
        final BourseConfig.DepositConfig btcDeposit = packaged.accounts().getFirst().deposits().getFirst();
        assertEquals(10 * 100_000_000L, btcDeposit.amount(), "10 BTC at scale 8");
        assertEquals(1001, btcDeposit.transactionId());
    }

    @Test
    void commandLineOverridesReplaceFileValues()
    {
        final BourseConfig config = BourseConfig.load(null, Map.of(
            "data.dir", "/tmp/elsewhere", "port.base", "9100", "instrument.BTC-USD.state", "halted",
            "snapshot.interval.ms", "1000", "agent.yield.us", "100", "journal.sync", "true"));
        assertEquals(new File("/tmp/elsewhere"), config.nodeContext().dataDir());
        assertEquals(9100, config.nodeContext().portBase());
        assertEquals(TimeUnit.SECONDS.toNanos(1), config.nodeContext().snapshotIntervalNs());
        assertEquals(TimeUnit.MICROSECONDS.toNanos(100), config.nodeContext().agentYieldWindowNs());
        assertTrue(config.nodeContext().journalSync());
        assertEquals(TradingState.HALTED, config.instruments().getFirst().tradingState());
    }

    @Test
    void anAccountsOwnFeeRatesAreSentAfterItsLimits()
    {
        final BourseConfig config = BourseConfig.load(null, Map.of("account.2.maker.fee.ppm", "0"));
        final BourseConfig.AccountConfig maker = config.accounts().get(1);
        assertEquals(2, maker.id());
        assertTrue(maker.hasFees());
        assertEquals(0, maker.makerFeePpm());
        assertEquals(-1, maker.takerFeePpm(), "the instruments' taker rate");
        assertFalse(config.accounts().getFirst().hasFees());
        final List<String> commands = Bootstrap.commands(config).stream().map(Bootstrap.AdminCommand::description)
            .filter(description -> description.endsWith("account 2")).toList();
        assertEquals(List.of("limits of account 2", "fee rates of account 2", "deposit 2001 to account 2",
            "deposit 2002 to account 2"), commands);
        assertMessage(Map.of("account.1.taker.fee.ppm", "-2"),
            "configuration key 'account.1.taker.fee.ppm': expected -1 to 1000000, got -2");
    }

    @Test
    void unknownKeysAreRefusedByName()
    {
        assertMessage(Map.of("asset.BTC.colour", "orange"), "unknown configuration key 'asset.BTC.colour'");
        assertMessage(Map.of("port", "9000"), "unknown configuration key 'port'");
        assertMessage(Map.of("account.1.deposit", "5"), "unknown configuration key 'account.1.deposit'");
    }

    @Test
    void badValuesAreRefusedWithTheKeyAndWhatWasExpected()
    {
        assertMessage(Map.of("port.base", "abc"), "configuration key 'port.base': expected an integer, got 'abc'");
        assertMessage(Map.of("member.id", "1"), "configuration key 'member.id': expected 0 to 0, got 1");
        assertMessage(Map.of("history.bytes", "1000000"), "configuration key 'history.bytes': expected a power of two");
        assertMessage(Map.of("journal.sync", "1"), "configuration key 'journal.sync': expected true or false, got '1'");
        assertMessage(Map.of("instrument.BTC-USD.tick", "0.001"),
            "configuration key 'instrument.BTC-USD.tick': 0.001 has more than 2 decimal places");
        assertMessage(Map.of("instrument.BTC-USD.tick", "ten"),
            "configuration key 'instrument.BTC-USD.tick': expected a decimal number, got 'ten'");
        assertMessage(Map.of("instrument.BTC-USD.state", "SHUT"),
            "configuration key 'instrument.BTC-USD.state': expected one of OPEN, HALTED, CANCEL_ONLY, POST_ONLY");
        assertMessage(Map.of("instrument.BTC-USD.base", "ETH"),
            "configuration key 'instrument.BTC-USD.base': unknown asset 'ETH'");
        assertMessage(Map.of("account.3.deposit.BTC", "1"),
            "configuration key 'account.3.deposit.BTC.transaction' is required");
        assertMessage(Map.of("account.3.deposit.BTC", "1", "account.3.deposit.BTC.transaction", "1001"),
            "transaction id 1001 is also used by account.1.deposit.BTC");
        assertMessage(Map.of("account.x.max.open.orders", "1"), "configuration key 'account.x.max.open.orders': " +
            "the account id must be a positive integer");
        assertMessage(Map.of("account.1.deposit.EUR", "5", "account.1.deposit.EUR.transaction", "9"),
            "configuration key 'account.1.deposit.EUR': unknown asset 'EUR'");
    }

    @Test
    void httpConnectionAndReadModelBoundsAreRefusedOutOfRange()
    {
        for (final Map.Entry<String, String> bad : Map.of(
            "http.idle.timeout.seconds", "-1",
            "http.command.timeout.ms", "50",
            "http.recent.closed.orders", "0",
            "http.recent.fills", "many").entrySet())
        {
            final BourseConfig.ConfigException ex = assertThrows(BourseConfig.ConfigException.class,
                () -> new HttpConfig(BourseConfig.load(null, Map.of(bad.getKey(), bad.getValue()))).context());
            assertTrue(ex.getMessage().startsWith("configuration key '" + bad.getKey() + "': expected an integer " +
                "from "), ex.getMessage());
            assertTrue(ex.getMessage().endsWith(", got '" + bad.getValue() + "'"), ex.getMessage());
        }
        new HttpConfig(BourseConfig.load(null, Map.of("http.idle.timeout.seconds", "0"))).context();
    }

    @Test
    void theAdminAuditTrailIsInTheDataDirectoryUnlessSetElsewhereOrToNone()
    {
        assertEquals(new File("/var/bourse/http/admin-audit.log"),
            new HttpConfig(BourseConfig.load(null, Map.of("data.dir", "/var/bourse"))).adminAuditLog());
        assertEquals(new File("/var/log/bourse-audit.log"), new HttpConfig(BourseConfig.load(null,
            Map.of("http.admin.audit.log", "/var/log/bourse-audit.log"))).adminAuditLog());
        assertNull(new HttpConfig(BourseConfig.load(null, Map.of("http.admin.audit.log", ""))).adminAuditLog());
    }

    @Test
    void storeKeysConfigureThePostTradeStore()
    {
        final BourseConfig defaults = BourseConfig.load(null, Map.of());
        assertTrue(defaults.storeEnabled());
        assertEquals("", defaults.storeContext().jdbcUrl(), "SQLite by default");
        assertEquals(new File(new File("data", "store"), "history.db"), defaults.storeContext().sqliteFile());
        final BourseConfig postgres = BourseConfig.load(null, Map.of("store.jdbc.url",
            "jdbc:postgresql://127.0.0.1:5432/bourse", "store.batch.rows", "500", "store.enabled", "false"));
        assertEquals("jdbc:postgresql://127.0.0.1:5432/bourse", postgres.storeContext().jdbcUrl());
        assertEquals(500, postgres.storeContext().batchRows());
        assertEquals(false, postgres.storeEnabled());
        assertEquals(1_000, defaults.storeContext().restartDelayMs(), "a failed store starts again after 1 s");
        assertEquals(30_000, defaults.storeContext().maxRestartDelayMs());

        assertMessage(Map.of("store.jdbc.url", "jdbc:mysql://x/y"), "configuration key 'store.jdbc.url': expected empty");
        assertMessage(Map.of("store.enabled", "yes"), "configuration key 'store.enabled': expected true or false");
        assertMessage(Map.of("store.batch.rows", "0"), "configuration key 'store.batch.rows': expected 1 to");
        assertMessage(Map.of("store.restart.delay.ms", "5000", "store.restart.max.delay.ms", "1000"),
            "configuration key 'store.restart.max.delay.ms': expected at least store.restart.delay.ms (5000), got 1000");
        assertMessage(Map.of("store.colour", "red"), "unknown configuration key 'store.colour'");
    }

    @Test
    void missingFileIsReported()
    {
        final BourseConfig.ConfigException ex = assertThrows(BourseConfig.ConfigException.class,
            () -> BourseConfig.load(new File("no-such-bourse.properties"), Map.of()));
        assertEquals("configuration file not found: no-such-bourse.properties", ex.getMessage());
    }

    private static void assertMessage(final Map<String, String> overrides, final String expected)
    {
        final BourseConfig.ConfigException ex = assertThrows(BourseConfig.ConfigException.class,
            () -> BourseConfig.load(null, overrides), "overrides " + overrides);
        assertTrue(ex.getMessage().contains(expected), "expected '" + expected + "' in: " + ex.getMessage());
    }

    @Test
    void fixGatewaySessionsAndTheirErrorsNameTheKey()
    {
        final BourseConfig packaged = BourseConfig.load(null, Map.of());
        assertTrue(packaged.fixEnabled());
        final io.bourse.gateway.fix.FixGateway.Context fix = packaged.fixContext();
        assertEquals(9880, fix.port());
        assertEquals(io.bourse.gateway.fix.FixGateway.DEFAULT_YIELD_WINDOW_NS, fix.agentYieldWindowNs(),
            "the gateway's framer keeps reading its sockets between orders a millisecond apart");
        assertEquals(0, BourseConfig.load(null, Map.of("fix.yield.us", "0")).fixContext().agentYieldWindowNs());
        assertEquals(3_600_000, fix.archivePruneIntervalMs(), "the message archive is pruned hourly");
        assertEquals(null, fix.endOfDayUtc(), "no end of day unless configured");
        assertEquals(java.time.LocalTime.of(22, 0), BourseConfig.load(null, Map.of("fix.end.of.day.utc", "22:00"))
            .fixContext().endOfDayUtc());
        assertEquals("configuration key 'fix.end.of.day.utc': expected a time of day in UTC as HH:MM, got '25:00'",
            assertThrows(BourseConfig.ConfigException.class, () -> BourseConfig.load(null,
                Map.of("fix.end.of.day.utc", "25:00")).fixContext()).getMessage());
        assertEquals(0, BourseConfig.load(null, Map.of("fix.archive.prune.interval.ms", "0")).fixContext()
            .archivePruneIntervalMs());
        assertEquals(1000, fix.messageRatePerSecond(), "each session's messages are limited out of the box");
        assertEquals(2000, fix.messageRateBurst());
        final io.bourse.gateway.fix.FixGateway.Context ownRate = BourseConfig.load(null,
            Map.of("fix.rate.limit.per.second", "50", "fix.rate.limit.burst", "")).fixContext();
        assertEquals(50, ownRate.messageRatePerSecond());
        assertEquals(100, ownRate.messageRateBurst(), "twice the rate when not set");
        assertEquals(0, BourseConfig.load(null, Map.of("fix.rate.limit.per.second", "0")).fixContext()
            .messageRatePerSecond(), "no limit");
        assertEquals("configuration key 'fix.rate.limit.burst': expected 1 to 1000000000, got 0", assertThrows(
            BourseConfig.ConfigException.class, () -> BourseConfig.load(null, Map.of("fix.rate.limit.burst", "0")))
            .getMessage());

        final Map<String, io.bourse.gateway.fix.FixSessionSpec> sessionRates = BourseConfig.load(null, Map.of(
            "fix.session.MM.account", "7", "fix.session.MM.password", "mm",
            "fix.session.MM.rate.limit.per.second", "5000",
            "fix.session.FREE.account", "8", "fix.session.FREE.password", "free",
            "fix.session.FREE.rate.limit.per.second", "0",
            "fix.session.SLOW.account", "9", "fix.session.SLOW.password", "slow",
            "fix.session.SLOW.rate.limit.per.second", "10", "fix.session.SLOW.rate.limit.burst", "3")).fixContext()
            .sessions();
        assertEquals(new io.bourse.gateway.fix.FixSessionSpec.RateLimit(5000, 10_000),
            sessionRates.get("MM").rateLimit(), "a session's own rate, its burst twice that when not set");
        assertEquals(new io.bourse.gateway.fix.FixSessionSpec.RateLimit(0, 0), sessionRates.get("FREE").rateLimit(),
            "no limit for this session");
        assertEquals(new io.bourse.gateway.fix.FixSessionSpec.RateLimit(10, 3), sessionRates.get("SLOW").rateLimit());
        assertEquals(null, sessionRates.get("DEMO1").rateLimit(), "the gateway's");
        assertEquals("configuration key 'fix.session.X.rate.limit.burst' needs 'fix.session.X.rate.limit.per.second' " +
            "as well", assertThrows(BourseConfig.ConfigException.class, () -> BourseConfig.load(null, Map.of(
                "fix.session.X.account", "7", "fix.session.X.password", "x", "fix.session.X.rate.limit.burst", "9")))
            .getMessage());
        assertEquals("configuration key 'fix.session.X.rate.limit.per.second': expected an integer, got 'fast'",
            assertThrows(BourseConfig.ConfigException.class, () -> BourseConfig.load(null, Map.of(
                "fix.session.X.account", "7", "fix.session.X.password", "x",
                "fix.session.X.rate.limit.per.second", "fast"))).getMessage());

        assertEquals("configuration key 'fix.session.X.cancel.on.disconnect': expected one of [NONE, SESSION, " +
            "ACCOUNT], got 'sometimes'", assertThrows(BourseConfig.ConfigException.class, () -> BourseConfig.load(
            null, Map.of("fix.session.X.account", "1", "fix.session.X.password", "p",
            "fix.session.X.cancel.on.disconnect", "sometimes"))).getMessage());
        assertEquals("configuration key 'fix.session.Y.password' is required", assertThrows(
            BourseConfig.ConfigException.class, () -> BourseConfig.load(null, Map.of("fix.session.Y.account", "2")))
            .getMessage());
        assertEquals("configuration key 'fix.port': expected 1 to 65535, got 0", assertThrows(
            BourseConfig.ConfigException.class, () -> BourseConfig.load(null, Map.of("fix.port", "0"))).getMessage());
        assertTrue(assertThrows(BourseConfig.ConfigException.class, () -> BourseConfig.load(null,
            Map.of("fix.session.Z.colour", "red"))).getMessage().startsWith("unknown configuration key"));
    }
}
