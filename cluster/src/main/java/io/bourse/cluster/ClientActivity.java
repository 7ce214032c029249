package io.bourse.cluster;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether clients are using this JVM: noted where their commands and requests arrive (the exchange service, the
 * gateways) and read by idle agents ({@link NodeIdleStrategy}), which park longer once clients have been quiet a
 * while.
 * <p>
 * Why not each agent's own work: Aeron's agents have timer work every millisecond or ten however quiet the exchange,
 * so an agent's own idleness never lasts long enough to tell a quiet exchange from one between two commands.
 */
public final class ClientActivity
{
    /**
     * Notes of activity so far. Only its changes matter, so concurrent notes may overwrite each other's increment.
     */
    private static final AtomicLong NOTES = new AtomicLong();

    private ClientActivity()
    {
    }

    /**
     * A client's command or request arrived. Cheap enough for every message: one uncontended store.
     */
    public static void note()
    {
        NOTES.setOpaque(NOTES.getOpaque() + 1);
    }

    /**
     * @return a value that changes whenever activity is noted.
     */
    static long notes()
    {
        return NOTES.getOpaque();
    }
}
