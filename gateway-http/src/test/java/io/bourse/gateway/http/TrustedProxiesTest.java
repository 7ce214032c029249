package io.bourse.gateway.http;

import io.vertx.core.net.SocketAddress;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TrustedProxiesTest
{
    private static final TrustedProxies PROXIES = TrustedProxies.parse("10.0.0.0/8, 192.0.2.7, fd00::/8");

    @Test
    void anIpv6ClientIsCountedByItsSlash64AndAnIpv4OneByItsAddress()
    {
        assertEquals("20010db8000000aa::/64", TrustedProxies.NONE.clientAddress(peer("2001:db8:0:aa:1:2:3:4"), List.of()));
        assertEquals("20010db8000000aa::/64", TrustedProxies.NONE.clientAddress(peer("2001:db8:0:aa::9"), List.of()));
        assertEquals("192.0.2.7", TrustedProxies.NONE.clientAddress(peer("::ffff:192.0.2.7"), List.of()));
        assertEquals("192.0.2.7", TrustedProxies.NONE.clientAddress(peer("192.0.2.7"), List.of()));
    }

    @Test
    void aPeerNotTrustedIsTheClientWhateverItsHeaderSays()
    {
        assertEquals("198.51.100.1", TrustedProxies.NONE.clientAddress(peer("198.51.100.1"), List.of("203.0.113.9")));
        assertEquals("198.51.100.1", PROXIES.clientAddress(peer("198.51.100.1"), List.of("203.0.113.9")));
    }

    @Test
    void behindTrustedProxiesTheClientIsTheLastForwardedAddressThatIsNotOne()
    {
        assertEquals("203.0.113.9", PROXIES.clientAddress(peer("10.1.2.3"), List.of("203.0.113.9")));
        // What the client wrote before its address is passed over: a client cannot choose its bucket.
        assertEquals("203.0.113.9",
            PROXIES.clientAddress(peer("10.1.2.3"), List.of("1.1.1.1, 2.2.2.2 , 203.0.113.9")));
        // Through two proxies, and with the header on two lines: the later line is the nearer proxy's.
        assertEquals("203.0.113.9",
            PROXIES.clientAddress(peer("10.1.2.3"), List.of("6.6.6.6, 203.0.113.9", "192.0.2.7")));
        assertEquals("203.0.113.9", PROXIES.clientAddress(peer("10.1.2.3"), List.of("6.6.6.6", "203.0.113.9")));
        assertEquals("20010db8000000aa::/64",
            PROXIES.clientAddress(peer("fd00::5"), List.of("[2001:db8:0:aa::1]:4711, fd12::1")));
        assertEquals("203.0.113.9", PROXIES.clientAddress(peer("10.1.2.3"), List.of("203.0.113.9:55123")));
        assertEquals("fe80000000000000::/64", PROXIES.clientAddress(peer("10.1.2.3"), List.of("fe80::1%eth0")));
        assertEquals("203.0.113.9", PROXIES.clientAddress(peer("::ffff:10.1.2.3"), List.of("203.0.113.9")));
        // Every address a trusted proxy: the farthest is the client.
        assertEquals("10.9.9.9", PROXIES.clientAddress(peer("10.1.2.3"), List.of("10.9.9.9, 192.0.2.7")));
    }

    @Test
    void withNoUsableHeaderTheNearestProxyIsTheClient()
    {
        assertEquals("10.1.2.3", PROXIES.clientAddress(peer("10.1.2.3"), List.of()));
        assertEquals("10.1.2.3", PROXIES.clientAddress(peer("10.1.2.3"), List.of("unknown")));
        assertEquals("10.1.2.3", PROXIES.clientAddress(peer("10.1.2.3"), List.of("")));
        assertEquals("10.1.2.3", PROXIES.clientAddress(peer("10.1.2.3"), List.of("client.example.com")));
        // The first entry that is not an address, after a trusted proxy: that proxy is the client.
        assertEquals("192.0.2.7", PROXIES.clientAddress(peer("10.1.2.3"), List.of("203.0.113.9, junk, 192.0.2.7")));
        assertEquals("10.1.2.3", PROXIES.clientAddress(peer("10.1.2.3"), List.of("[2001:db8::1]junk")));
        assertEquals("10.1.2.3", PROXIES.clientAddress(peer("10.1.2.3"), List.of("203.0.113.9:http")));
    }

    @Test
    void networksAreMatchedByTheirPrefixAndFamily()
    {
        final TrustedProxies proxies = TrustedProxies.parse("172.16.0.0/12,2001:db8::/32,0.0.0.0/0");
        assertTrue(proxies.trusts(InetAddress.ofLiteral("8.8.8.8")), "0.0.0.0/0 is every IPv4");
        assertTrue(proxies.trusts(InetAddress.ofLiteral("2001:db8:ffff::1")));
        assertFalse(proxies.trusts(InetAddress.ofLiteral("2001:db9::1")));
        final TrustedProxies twelve = TrustedProxies.parse("172.16.0.0/12");
        assertTrue(twelve.trusts(InetAddress.ofLiteral("172.31.255.255")));
        assertFalse(twelve.trusts(InetAddress.ofLiteral("172.32.0.0")));
        assertFalse(twelve.trusts(InetAddress.ofLiteral("::ffff:172.15.0.1")));
        assertTrue(twelve.trusts(InetAddress.ofLiteral("::ffff:172.16.0.1")));
        assertEquals(TrustedProxies.NONE, TrustedProxies.parse(" "));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse("10.0.0.0/-1"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse("10.0.0.0/"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse("::/129"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse("localhost"));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse("127.1"), "an IPv4 address in full");
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse("10/8"));
    }

    private static SocketAddress peer(final String host)
    {
        return SocketAddress.inetSocketAddress(4711, host);
    }
}
