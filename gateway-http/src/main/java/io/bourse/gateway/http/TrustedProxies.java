package io.bourse.gateway.http;

import io.vertx.core.net.SocketAddress;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Whom a request comes from, for the limits kept per client address: the connection's peer, or, when that peer is one
 * of the reverse proxies configured here, the client that proxy names in {@code X-Forwarded-For}.
 * <p>
 * Behind a proxy every connection comes from the proxy's address, so without this one client over its limit would
 * refuse everyone. A proxy appends the address it received the request from to the header's end; what the client put
 * before that is the client's to make up. So the header is read from its end: trusted proxies are passed over, and the
 * first address that is not one is the client. Only a peer trusted here is believed at all; anyone else's header is
 * ignored, or a client could claim a fresh address with each request. So only the proxies' own addresses belong here:
 * a client that can connect from a trusted address names any address it likes, another client's too.
 */
public final class TrustedProxies
{
    /**
     * No proxy is trusted: every request is its connection's peer's.
     */
    public static final TrustedProxies NONE = new TrustedProxies(List.of());

    private final List<Network> networks;

    private TrustedProxies(final List<Network> networks)
    {
        this.networks = networks;
    }

    /**
     * @param list comma-separated IP addresses and networks ({@code 10.0.0.0/8}, {@code 192.0.2.7}, {@code fd00::/8}),
     *             blank for none. Names are not accepted: nothing is looked up.
     * @throws IllegalArgumentException naming the entry that is not an address or a network.
     */
    public static TrustedProxies parse(final String list)
    {
        final List<Network> networks = new ArrayList<>();
        for (final String text : list.split(",", -1))
        {
            final String entry = text.strip();
            if (entry.isEmpty())
            {
                if (list.isBlank())
                {
                    break;
                }
                throw new IllegalArgumentException("an empty entry in '" + list + "'");
            }
            networks.add(Network.parse(entry));
        }
        return networks.isEmpty() ? NONE : new TrustedProxies(List.copyOf(networks));
    }

    /**
     * @param peer         the connection's remote address.
     * @param forwardedFor the request's {@code X-Forwarded-For} header lines, in order (empty when none).
     * @return the client's address as its limits count it ({@link #key}): the peer's when the peer is not a trusted
     * proxy; else the first entry from the header's end that is not a trusted proxy; or, when the header has none (or
     * the entry after the last trusted proxy is not an address), the farthest trusted proxy reached.
     */
    public String clientAddress(final SocketAddress peer, final List<String> forwardedFor)
    {
        final String host = peer == null ? null : peer.hostAddress();
        if (networks.isEmpty() && host != null && host.indexOf(':') < 0)
        {
            return host;
        }
        final InetAddress peerAddress = host == null ? null : literal(host);
        if (peerAddress == null)
        {
            return host == null ? "" : host;
        }
        InetAddress client = peerAddress;
        for (int line = forwardedFor.size() - 1; line >= 0 && trusts(client); line--)
        {
            final String[] entries = forwardedFor.get(line).split(",", -1);
            for (int i = entries.length - 1; i >= 0 && trusts(client); i--)
            {
                final InetAddress named = forwardedEntry(entries[i]);
                if (named == null)
                {
                    // Something a trusted proxy would not have written: the last proxy's own address it is.
                    return key(client);
                }
                client = named;
            }
        }
        return key(client);
    }

    /**
     * What a client's limits count by: its IPv4 address, or the /64 network of an IPv6 one, since an IPv6 host is
     * commonly given a whole /64 and would otherwise have a fresh bucket, and a fresh connection count, at each
     * address. An IPv4-mapped IPv6 address is its IPv4 address.
     */
    static String key(final InetAddress address)
    {
        final byte[] bytes = address.getAddress();
        return bytes.length == 16 ? HexFormat.of().formatHex(bytes, 0, 8) + "::/64" : address.getHostAddress();
    }

    boolean trusts(final InetAddress address)
    {
        for (final Network network : networks)
        {
            if (network.contains(address))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * An entry of {@code X-Forwarded-For}: an address, an IPv4 one perhaps with a port ({@code 192.0.2.7:4711}), an
     * IPv6 one perhaps in brackets with a port ({@code [2001:db8::1]:4711}).
     *
     * @return the address, or null when it is none (such as {@code unknown}, or a name).
     */
    private static InetAddress forwardedEntry(final String text)
    {
        final String entry = text.strip();
        if (entry.startsWith("["))
        {
            final int end = entry.indexOf(']');
            return end > 0 && isPortOrNothing(entry, end + 1) ? literal(entry.substring(1, end)) : null;
        }
        final int colon = entry.indexOf(':');
        if (colon >= 0 && colon == entry.lastIndexOf(':'))
        {
            return isPortOrNothing(entry, colon) ? literal(entry.substring(0, colon)) : null;
        }
        return literal(entry);
    }

    /**
     * @return whether the text from {@code from} on is empty or a colon and a port number.
     */
    private static boolean isPortOrNothing(final String text, final int from)
    {
        if (from == text.length())
        {
            return true;
        }
        return text.charAt(from) == ':' && text.length() - from >= 2 && text.length() - from <= 6 &&
            isDigits(text, from + 1);
    }

    private static boolean isDigits(final String text, final int from)
    {
        for (int i = from; i < text.length(); i++)
        {
            if (text.charAt(i) < '0' || text.charAt(i) > '9')
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the address written in the text (an IPv6 one's zone, as in {@code fe80::1%eth0}, left out), or null when
     * it is not an IP address literal; never looks a name up.
     */
    private static InetAddress literal(final String text)
    {
        final int zone = text.indexOf('%');
        final String address = zone < 0 ? text : text.substring(0, zone);
        if (address.isEmpty() || !isAddressCharacters(address))
        {
            return null;
        }
        try
        {
            return InetAddress.ofLiteral(address);
        }
        catch (final IllegalArgumentException notAnAddress)
        {
            return null;
        }
    }

    /**
     * @return whether any proxy is trusted: when none is, {@code X-Forwarded-For} need not be read.
     */
    public boolean trustsAny()
    {
        return !networks.isEmpty();
    }

    /**
     * A cheap test first, so that the common non-addresses ({@code unknown}, a name) cost no exception.
     */
    private static boolean isAddressCharacters(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '.' || c == ':'))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString()
    {
        return networks.toString();
    }

    /**
     * An address ({@code /32} or {@code /128}) or a network.
     */
    private static final class Network
    {
        private final byte[] prefix;
        private final int bits;
        private final String text;

        private Network(final byte[] prefix, final int bits, final String text)
        {
            this.prefix = prefix;
            this.bits = bits;
            this.text = text;
        }

        static Network parse(final String entry)
        {
            final int slash = entry.indexOf('/');
            final String addressText = slash < 0 ? entry : entry.substring(0, slash);
            // An IPv4 address in full (the JDK would also take 10 for 0.0.0.10, and 127.1 for 127.0.0.1); no zone.
            final boolean fullForm = addressText.indexOf('%') < 0 &&
                (addressText.indexOf(':') >= 0 || addressText.split("\\.", -1).length == 4);
            final InetAddress address = fullForm ? literal(addressText) : null;
            if (address == null)
            {
                throw new IllegalArgumentException("'" + entry + "' is not an IP address or network (such as " +
                    "192.0.2.7, 10.0.0.0/8 or fd00::/8; names are not looked up)");
            }
            final byte[] bytes = address.getAddress();
            final int maxBits = bytes.length * 8;
            final int bits = slash < 0 ? maxBits : prefixLength(entry, entry.substring(slash + 1), maxBits);
            for (int bit = bits; bit < maxBits; bit++)
            {
                if ((bytes[bit / 8] & (0x80 >>> (bit % 8))) != 0)
                {
                    throw new IllegalArgumentException("'" + entry + "' has address bits set beyond its /" + bits +
                        " prefix");
                }
            }
            return new Network(bytes, bits, entry);
        }

        private static int prefixLength(final String entry, final String text, final int maxBits)
        {
            if (!text.isEmpty() && text.length() <= 3 && isDigits(text, 0))
            {
                final int bits = Integer.parseInt(text);
                if (bits <= maxBits)
                {
                    return bits;
                }
            }
            throw new IllegalArgumentException("'" + entry + "': the prefix length must be from 0 to " + maxBits);
        }

        boolean contains(final InetAddress address)
        {
            final byte[] bytes = address.getAddress();
            if (bytes.length != prefix.length)
            {
                return false;
            }
            for (int bit = 0; bit < bits; bit += 8)
            {
                final int mask = bits - bit >= 8 ? 0xFF : (0xFF << (8 - (bits - bit))) & 0xFF;
                if (((bytes[bit / 8] ^ prefix[bit / 8]) & mask) != 0)
                {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString()
        {
            return text;
        }
    }
}
