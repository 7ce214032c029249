package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static io.bourse.gateway.http.GatewayHarness.ADMIN;
import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;
import static io.bourse.gateway.http.GatewayHarness.CAROL;
import static io.bourse.gateway.http.GatewayHarness.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's view of the accounts: each one's kill switch, limits, open orders and balances, and the list of them,
 * as the exchange holds them, after a gateway restart too.
 */
class AdminAccountsTest
{
    @Test
    void everyAdminChangeAcceptedOrRefusedIsInTheAuditTrailWithWhoAskedForIt(@TempDir final File dir) throws Exception
    {
        final File audit = new File(dir, "audit/admin-audit.log");
        try (GatewayHarness harness = new GatewayHarness(context -> context.adminAuditLog(audit)))
        {
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/2/kill-switch", "{\"active\":true}"));
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/2/kill-switch", "{\"active\":false}"));
            expect(400, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/2/limits", "{\"maxOpenOrders\":-1}"));
            expect(403, harness.call(BOB, "PUT", "/api/v1/admin/kill-switch", "{\"active\":true}"));
            expect(401, harness.call(ADMIN.key(), "not-the-secret", System.currentTimeMillis(), "PUT",
                "/api/v1/admin/kill-switch", "{\"active\":true}"));
            // Reads are not changes.
            expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/2", null));
        }
        final List<JsonNode> all = new ArrayList<>();
        for (final String line : Files.readAllLines(audit.toPath()))
        {
            all.add(com.fasterxml.jackson.databind.json.JsonMapper.builder().build().readTree(line));
        }
        // The harness's own set-up first (assets, instruments, deposits), then the test's changes; not the one no key
        // vouched for.
        assertEquals("/api/v1/admin/assets/BTC", all.get(0).get("uri").asText(), all.toString());
        final List<JsonNode> lines = all.subList(all.size() - 4, all.size());
        final JsonNode on = lines.get(0);
        assertEquals(ADMIN.key(), on.get("key").asText());
        assertEquals("PUT", on.get("method").asText());
        assertEquals("/api/v1/admin/accounts/2/kill-switch", on.get("uri").asText());
        assertEquals("{\"active\":true}", on.get("body").asText());
        assertEquals(200, on.get("status").asInt());
        assertTrue(on.get("code").isNull(), on.toString());
        assertEquals("127.0.0.1", on.get("address").asText());
        assertTrue(java.time.Instant.parse(on.get("time").asText()).isAfter(java.time.Instant.now().minusSeconds(600)));
        assertEquals("{\"active\":false}", lines.get(1).get("body").asText());
        assertEquals(400, lines.get(2).get("status").asInt());
        assertEquals("OUT_OF_RANGE", lines.get(2).get("code").asText(), lines.get(2).toString());
        assertEquals(BOB.key(), lines.get(3).get("key").asText());
        assertEquals(403, lines.get(3).get("status").asInt());
        assertTrue(all.stream().noneMatch(line -> line.get("status").asInt() == 401), all.toString());
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(audit.toPath())), "readable by its owner only");
    }

    @Test
    void anOperatorSeesEveryAccountsSwitchLimitsOrdersAndBalances()
    {
        try (GatewayHarness harness = new GatewayHarness())
        {
            final JsonNode fresh = expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/2", null)).json();
            assertEquals("2", fresh.get("accountId").asText());
            assertFalse(fresh.get("killSwitch").asBoolean());
            assertEquals(0, fresh.get("maxOrderQuantity").asLong(), "no limit");
            assertEquals("CANCEL_AGGRESSOR", fresh.get("selfTradePrevention").asText(), "the engine's default");
            assertEquals(0, fresh.get("openOrders").asInt());

            expect(200, harness.placeLimit(BOB, "BUY", "90.00", "1", null));
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/2/limits",
                "{\"maxOrderQuantity\":50000,\"maxOrderNotional\":1000000000,\"maxOpenOrders\":5," +
                "\"selfTradePrevention\":\"CANCEL_BOTH\"}"));
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/accounts/2/kill-switch", "{\"active\":true}"));
            final JsonNode set = expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/2", null)).json();
            assertTrue(set.get("killSwitch").asBoolean(), set.toString());
            assertEquals(50_000, set.get("maxOrderQuantity").asLong());
            assertEquals(1_000_000_000, set.get("maxOrderNotional").asLong());
            assertEquals(5, set.get("maxOpenOrders").asInt());
            assertEquals("CANCEL_BOTH", set.get("selfTradePrevention").asText());
            assertEquals(1, set.get("openOrders").asInt());
            assertEquals(expect(200, harness.call(BOB, "GET", "/api/v1/balances", null)).json().get("balances"),
                set.get("balances"), "the balances as the account's own key reads them");

            // The list, a page at a time, and the global switch.
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/kill-switch", "{\"active\":true}"));
            final List<String> ids = new ArrayList<>();
            String after = "0";
            JsonNode page;
            do
            {
                page = expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts?limit=2&after=" + after, null))
                    .json();
                assertTrue(page.get("globalKillSwitch").asBoolean(), page.toString());
                page.get("accounts").forEach(account -> ids.add(account.get("accountId").asText()));
                after = page.get("nextAfter").asText();
            }
            while (!page.get("nextAfter").isNull());
            assertEquals(List.of(ALICE, BOB, CAROL).stream().map(key -> Long.toString(key.accountId())).toList(), ids);
            final JsonNode whole = expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts?limit=3", null)).json();
            assertEquals(3, whole.get("accounts").size());
            assertTrue(whole.get("nextAfter").isNull(), "a page that holds the last account is the last");
            assertEquals(0, expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts?after=3", null)).json()
                .get("accounts").size());

            // A restarted gateway reads them from the exchange's state.
            harness.stopGateway();
            harness.startGateway();
            assertEquals(set, expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/2", null)).json());
            assertTrue(expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts", null)).json()
                .get("globalKillSwitch").asBoolean());
            expect(200, harness.call(ADMIN, "PUT", "/api/v1/admin/kill-switch", "{\"active\":false}"));
            assertFalse(expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts", null)).json()
                .get("globalKillSwitch").asBoolean());

            for (final String read : List.of("", "/balances", "/fills", "/orders"))
            {
                RestApiTest.expectProblem(404, "UNKNOWN_ACCOUNT", "accountId",
                    harness.call(ADMIN, "GET", "/api/v1/admin/accounts/999" + read, null));
            }
            RestApiTest.expectProblem(403, "FORBIDDEN", null, harness.call(ALICE, "GET", "/api/v1/admin/accounts", null));
            RestApiTest.expectProblem(400, "INVALID_PARAMETER", "limit",
                harness.call(ADMIN, "GET", "/api/v1/admin/accounts?limit=0", null));
            for (final String bad : List.of("limit=1001", "after=-1", "after=abc", "after=1234567890123456789"))
            {
                final GatewayHarness.Response refused = harness.call(ADMIN, "GET", "/api/v1/admin/accounts?" + bad, null);
                RestApiTest.expectProblem(400, "INVALID_PARAMETER", bad.substring(0, bad.indexOf('=')), refused);
            }
            RestApiTest.expectProblem(400, "UNKNOWN_PARAMETER", "symbol",
                harness.call(ADMIN, "GET", "/api/v1/admin/accounts?symbol=BTC-USD", null));
            RestApiTest.expectProblem(405, "METHOD_NOT_ALLOWED", null,
                harness.call(ADMIN, "DELETE", "/api/v1/admin/accounts/2", null));
        }
    }

    @Test
    void anAccountsOwnFeeRatesReplaceTheInstrumentsUntilTakenBack()
    {
        try (GatewayHarness harness = new GatewayHarness())
        {
            final String path = "/api/v1/admin/accounts/3/fees";
            final JsonNode before = expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3", null)).json();
            assertTrue(before.get("makerFeePpm").isNull() && before.get("takerFeePpm").isNull(), before.toString());
            assertEquals(List.of("BTC-USD", 1000, 2000), rates(harness, CAROL));

            expect(200, harness.call(ADMIN, "PUT", path, "{\"makerFeePpm\":0,\"takerFeePpm\":500}"));
            final JsonNode set = expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3", null)).json();
            assertEquals(0, set.get("makerFeePpm").asInt(), set.toString());
            assertEquals(500, set.get("takerFeePpm").asInt(), set.toString());
            assertEquals(List.of("BTC-USD", 0, 500), rates(harness, CAROL));
            assertEquals(List.of("BTC-USD", 1000, 2000), rates(harness, BOB), "another account pays the instrument's");

            // Carol makes for nothing, and takes at 0.05 %; Bob pays the instrument's rates.
            expect(200, harness.placeLimit(CAROL, "SELL", "100.00", "1", "fee-1"));
            expect(200, harness.placeLimit(BOB, "BUY", "100.00", "1", null));
            expect(200, harness.placeLimit(BOB, "SELL", "100.00", "1", null));
            expect(200, harness.placeLimit(CAROL, "BUY", "100.00", "1", "fee-2"));
            final JsonNode carolFills = expect(200, harness.call(CAROL, "GET", "/api/v1/fills", null)).json();
            assertEquals("0.050000", carolFills.get(0).get("fee").asText(), carolFills.toString());
            assertEquals("0.000000", carolFills.get(1).get("fee").asText(), carolFills.toString());
            final JsonNode bobFills = expect(200, harness.call(BOB, "GET", "/api/v1/fills", null)).json();
            assertEquals("0.100000", bobFills.get(0).get("fee").asText(), "maker");
            assertEquals("0.200000", bobFills.get(1).get("fee").asText(), "taker");

            // A restarted gateway reads them from the exchange's state.
            final JsonNode traded = expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3", null)).json();
            harness.stopGateway();
            harness.startGateway();
            assertEquals(traded, expect(200, harness.call(ADMIN, "GET", "/api/v1/admin/accounts/3", null)).json());

            // Taken back: the instrument's again.
            expect(200, harness.call(ADMIN, "PUT", path, "{\"makerFeePpm\":null}"));
            assertEquals(List.of("BTC-USD", 1000, 2000), rates(harness, CAROL));

            for (final String bad : List.of("{\"makerFeePpm\":-1}", "{\"takerFeePpm\":1000001}"))
            {
                RestApiTest.expectProblem(400, "OUT_OF_RANGE", bad.contains("maker") ? "makerFeePpm" : "takerFeePpm",
                    harness.call(ADMIN, "PUT", path, bad));
            }
            RestApiTest.expectProblem(400, "INVALID_TYPE", "makerFeePpm",
                harness.call(ADMIN, "PUT", path, "{\"makerFeePpm\":\"0\"}"));
            RestApiTest.expectProblem(400, "UNKNOWN_FIELD", "makerFee", harness.call(ADMIN, "PUT", path, "{\"makerFee\":0}"));
            RestApiTest.expectProblem(403, "FORBIDDEN", null, harness.call(CAROL, "PUT", path, "{\"makerFeePpm\":0}"));
            RestApiTest.expectProblem(405, "METHOD_NOT_ALLOWED", null, harness.call(ADMIN, "GET", path, null));
            RestApiTest.expectProblem(403, "FORBIDDEN", null, harness.call(ADMIN, "GET", "/api/v1/fees", null));
        }
    }

    /**
     * @return the key's account's rates on the one instrument: its symbol, maker and taker rate.
     */
    private static List<Object> rates(final GatewayHarness harness, final ApiKey key)
    {
        final JsonNode fees = expect(200, harness.call(key, "GET", "/api/v1/fees", null)).json();
        assertEquals(Long.toString(key.accountId()), fees.get("accountId").asText());
        assertEquals(1, fees.get("instruments").size(), fees.toString());
        final JsonNode row = fees.get("instruments").get(0);
        return List.of(row.get("symbol").asText(), row.get("makerFeePpm").asInt(), row.get("takerFeePpm").asInt());
    }
}
