package io.bourse.cluster;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * The agents of a JVM that idle with {@link NodeIdleStrategy}, so that one which finds work after a lull can wake
 * the others that are asleep.
 * <p>
 * Why: a command crosses several agents in turn (gateway, consensus module, archive, consensus module, service,
 * gateway, FIX framer), each polling what the one before it wrote. When commands are further apart than the agents'
 * yield window, every agent has parked by the time the next one comes, and each hop waits out the rest of a park of
 * up to 100 µs: a cluster round trip of about 250 µs at 1,000 commands/s against 18 µs at 10,000/s. An agent that
 * finds work after a lull is the first to see a burst that the ones after it will see within microseconds; waking
 * them then lets the burst cross the agents as if they had never slept. Agents that find nothing go back to their
 * back-off, and after a few such wake-ups are left out until they have work of their own; an idle JVM has no work
 * and so wakes nobody.
 * <p>
 * Registration is rare (agents start) and copies the array; waking reads it without locking or allocating.
 */
final class ParkedAgents
{
    @SuppressWarnings("unchecked")
    private static final WeakReference<NodeIdleStrategy>[] NONE = new WeakReference[0];

    /**
     * The one instance of a JVM: every node, gateway and client agent in it (after {@link #NONE}, which it uses).
     */
    static final ParkedAgents JVM = new ParkedAgents();

    private volatile WeakReference<NodeIdleStrategy>[] agents = NONE;

    /**
     * Add an agent; agents that are gone (collected, or their thread ended) are dropped at the same time.
     */
    synchronized void register(final NodeIdleStrategy agent)
    {
        final WeakReference<NodeIdleStrategy>[] current = agents;
        @SuppressWarnings("unchecked")
        final WeakReference<NodeIdleStrategy>[] next = new WeakReference[current.length + 1];
        int count = 0;
        for (final WeakReference<NodeIdleStrategy> reference : current)
        {
            final NodeIdleStrategy registered = reference.get();
            if (registered != null && registered.isThreadAlive())
            {
                next[count++] = reference;
            }
        }
        next[count++] = new WeakReference<>(agent);
        agents = count == next.length ? next : Arrays.copyOf(next, count);
    }

    /**
     * Wake every registered agent that is parked, but the caller.
     *
     * @return how many were woken.
     */
    int wakeAllBut(final NodeIdleStrategy caller)
    {
        final WeakReference<NodeIdleStrategy>[] snapshot = agents;
        int woken = 0;
        for (int i = 0; i < snapshot.length; i++)
        {
            final NodeIdleStrategy agent = snapshot[i].get();
            if (agent != null && agent != caller && agent.wakeIfParked())
            {
                woken++;
            }
        }
        return woken;
    }

    /**
     * @return how many agents are registered, gone ones not yet dropped included.
     */
    int size()
    {
        return agents.length;
    }
}
