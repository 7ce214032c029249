package io.bourse.app;

import io.bourse.gateway.http.ApiKey;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HttpConfigTest
{
    @Test
    void theDefaultConfigurationHasDemoKeysForTheDemoAccountsAndAnAdminKey()
    {
        final HttpConfig config = new HttpConfig(BourseConfig.load(null, Map.of()));
        assertEquals(8080, config.port());
        assertEquals("127.0.0.1", config.host());
        assertTrue(config.keys().contains(new ApiKey("demo-1", "demo-1-secret", 1, false)));
        assertTrue(config.keys().contains(new ApiKey("demo-2", "demo-2-secret", 2, false)));
        assertTrue(config.keys().contains(new ApiKey("demo-admin", "demo-admin-secret", 0, true)));
    }

    @Test
    void aTradingKeyMayBeReadOnly()
    {
        final HttpConfig config = new HttpConfig(BourseConfig.load(null,
            Map.of("http.key.reports.secret", "reports-secret", "http.key.reports.account", "7",
                "http.key.reports.readonly", "true")));
        assertTrue(config.keys().contains(new ApiKey("reports", "reports-secret", 7, false, true)));
    }

    @Test
    void badHttpSettingsAreRefusedNamingTheKey()
    {
        assertRefused("configuration key 'http.port': expected an integer from 0 to 65535, got 'x'", Map.of("http.port", "x"));
        assertRefused("configuration key 'http.key.k.secret': every API key needs a secret of at least 8 characters",
            Map.of("http.key.k.account", "1"));
        assertRefused("API key 'k': set either http.key.k.account (a trading key) or http.key.k.admin=true (an admin key)",
            Map.of("http.key.k.secret", "long-enough", "http.key.k.account", "1", "http.key.k.admin", "true"));
        assertRefused("configuration key 'http.key.k.account': expected an integer from 1 to 9223372036854775807, got '0'",
            Map.of("http.key.k.secret", "long-enough", "http.key.k.account", "0"));
        assertRefused("configuration key 'http.auth.reject.replays': expected true or false, got 'maybe'",
            Map.of("http.auth.reject.replays", "maybe"));
        assertRefused("configuration key 'http.key.k.admin': expected true or false, got 'yes'",
            Map.of("http.key.k.secret", "long-enough", "http.key.k.admin", "yes"));
        assertRefused("API key 'k': http.key.k.readonly is for a trading key, not an admin key",
            Map.of("http.key.k.secret", "long-enough", "http.key.k.admin", "true", "http.key.k.readonly", "true"));
        assertRefused("configuration key 'http.ws.max.connections': expected an integer from 1 to 1000000, got '0'",
            Map.of("http.ws.max.connections", "0"));
        assertRefused("configuration key 'http.rate.limit.per.address.per.second': expected an integer from 0 to " +
            "10000000, got '-1'", Map.of("http.rate.limit.per.address.per.second", "-1"));
        assertRefused("configuration key 'http.rate.limit.per.address.burst': expected an integer from 1 to 10000000, " +
            "got '0'", Map.of("http.rate.limit.per.address.burst", "0"));
        // 0: no limit per address.
        new HttpConfig(BourseConfig.load(null, Map.of("http.rate.limit.per.address.per.second", "0")));
        assertRefused("configuration key 'http.trusted.proxies': 'proxy.example.com' is not an IP address or network " +
            "(such as 192.0.2.7, 10.0.0.0/8 or fd00::/8; names are not looked up)",
            Map.of("http.trusted.proxies", "10.0.0.0/8, proxy.example.com"));
        assertRefused("configuration key 'http.trusted.proxies': '10.0.0.1/8' has address bits set beyond its /8 prefix",
            Map.of("http.trusted.proxies", "10.0.0.1/8"));
        assertRefused("configuration key 'http.trusted.proxies': '10.0.0.0/33': the prefix length must be from 0 to 32",
            Map.of("http.trusted.proxies", "10.0.0.0/33"));
        assertRefused("configuration key 'http.trusted.proxies': an empty entry in '10.0.0.0/8,,::1'",
            Map.of("http.trusted.proxies", "10.0.0.0/8,,::1"));
        new HttpConfig(BourseConfig.load(null, Map.of("http.trusted.proxies", "10.0.0.0/8, 192.0.2.7, fd00::/8")));
        final BourseConfig.ConfigException unknown = assertThrows(BourseConfig.ConfigException.class,
            () -> BourseConfig.load(null, Map.of("http.colour", "red")));
        assertEquals("unknown configuration key 'http.colour' (see config/bourse.properties for the keys)", unknown.getMessage());
    }

    private static void assertRefused(final String message, final Map<String, String> overrides)
    {
        final BourseConfig.ConfigException ex = assertThrows(BourseConfig.ConfigException.class,
            () -> new HttpConfig(BourseConfig.load(null, overrides)));
        assertEquals(message, ex.getMessage());
    }
}
