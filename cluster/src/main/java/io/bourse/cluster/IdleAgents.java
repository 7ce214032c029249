package io.bourse.cluster;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * The agents that idle with {@link NodeIdleStrategy} and share one {@link CpuHeadroom} (for {@link
 * CpuHeadroom#MACHINE}, every agent of the JVM): counted by the headroom, and woken by one of them that finds work
 * after a lull.
 * <p>
 * Why the waking: a command crosses several agents in turn (gateway, consensus module, archive, consensus module,
 * service, gateway, FIX framer), each polling what the one before it wrote. When commands are further apart than the
 * agents' yield window, every agent has parked by the time the next one comes, and each hop waits out the rest of a
 * park of up to 100 µs: a cluster round trip of about 220 µs at 1,000 commands/s against 18 µs at 10,000/s. An agent
 * that finds work after a lull is the first to see a burst that the ones after it will see within microseconds;
 * waking them then lets the burst cross the agents without their parks adding up. Agents that find nothing go back
 * to their back-off, and after a few such wake-ups are left out until they have work of their own; an idle JVM has no
 * work and so wakes nobody.
 * <p>
 * Registration is rare (agents start) and copies the array; reading it neither locks nor allocates.
 */
final class IdleAgents
{
    @SuppressWarnings("unchecked")
    private static final WeakReference<NodeIdleStrategy>[] NONE = new WeakReference[0];

    private volatile WeakReference<NodeIdleStrategy>[] agents = NONE;

    /**
     * Add an agent; agents that are gone (collected, or their thread ended) are dropped at the same time.
     */
    synchronized void register(final NodeIdleStrategy agent)
    {
        agents = living(agents, new WeakReference<>(agent));
    }

    /**
     * Drop the agents that are gone.
     */
    synchronized void dropGone()
    {
        agents = living(agents, null);
    }

    private static WeakReference<NodeIdleStrategy>[] living(
        final WeakReference<NodeIdleStrategy>[] current, final WeakReference<NodeIdleStrategy> added)
    {
        @SuppressWarnings("unchecked")
        final WeakReference<NodeIdleStrategy>[] next = new WeakReference[current.length + 1];
        int count = 0;
        for (final WeakReference<NodeIdleStrategy> reference : current)
        {
            if (!isGone(reference.get()))
            {
                next[count++] = reference;
            }
        }
        if (added != null)
        {
            next[count++] = added;
        }
        return Arrays.copyOf(next, count);
    }

    /**
     * Wake every agent that is parked, but the caller.
     */
    void wakeAllBut(final NodeIdleStrategy caller)
    {
        final WeakReference<NodeIdleStrategy>[] snapshot = agents;
        for (int i = 0; i < snapshot.length; i++)
        {
            final NodeIdleStrategy agent = snapshot[i].get();
            if (agent != null && agent != caller)
            {
                agent.wakeIfParked();
            }
        }
    }

    /**
     * Count the agents that are not parked; the gone ones found on the way are dropped.
     *
     * @return the agents awake (working or yielding) in the high 32 bits, those yielding in the low 32.
     */
    long countAwake()
    {
        int awake = 0;
        int yielding = 0;
        boolean anyGone = false;
        final WeakReference<NodeIdleStrategy>[] snapshot = agents;
        for (int i = 0; i < snapshot.length; i++)
        {
            final NodeIdleStrategy agent = snapshot[i].get();
            if (isGone(agent))
            {
                anyGone = true;
            }
            else if (!agent.isParked())
            {
                awake++;
                if (agent.isYielding())
                {
                    yielding++;
                }
            }
        }
        if (anyGone)
        {
            dropGone();
        }
        return ((long)awake << 32) | yielding;
    }

    /**
     * @return true for a closed agent's strategy: collected, or its thread has ended.
     */
    private static boolean isGone(final NodeIdleStrategy agent)
    {
        return agent == null || !agent.isThreadAlive();
    }
}
