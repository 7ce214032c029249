package io.bourse.cluster;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finding a node's port base on loopback for tests, benchmarks and tools that start nodes of their own beside
 * whatever else runs on the machine.
 */
public final class LoopbackPorts
{
    private static final int ATTEMPTS = 100;
    private static final int STEP = 10;

    private LoopbackPorts()
    {
    }

    /**
     * A base port such that the {@code count} UDP ports from it are free on loopback now, chosen at random among
     * {@code choices} bases {@value #STEP} apart from {@code lowest}, so that runs in parallel rarely collide. Keep
     * the range below Linux's ephemeral ports (32768 and up): a port free now in that range can be handed to any
     * socket opened before the node binds it. Callers that may run at the same time take ranges of their own.
     *
     * @throws IllegalStateException when {@value #ATTEMPTS} random bases were all in use.
     */
    public static int freeBase(final int lowest, final int choices, final int count)
    {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            final int base = lowest + ThreadLocalRandom.current().nextInt(choices) * STEP;
            if (allFree(base, count))
            {
                return base;
            }
        }
        throw new IllegalStateException("no free range of " + count + " UDP ports found in " + lowest + "-" +
            (lowest + (choices - 1) * STEP + count - 1));
    }

    private static boolean allFree(final int base, final int count)
    {
        for (int port = base; port < base + count; port++)
        {
            try (DatagramSocket socket = new DatagramSocket(port, InetAddress.getLoopbackAddress()))
            {
                if (socket.getLocalPort() != port)
                {
                    return false;
                }
            }
            catch (final IOException ex)
            {
                return false;
            }
        }
        return true;
    }
}
