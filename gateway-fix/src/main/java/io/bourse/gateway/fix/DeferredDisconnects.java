package io.bourse.gateway.fix;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import uk.co.real_logic.artio.Pressure;
import uk.co.real_logic.artio.engine.MessageTimingHandler;
import uk.co.real_logic.artio.messages.DisconnectReason;

import java.util.concurrent.TimeUnit;

/**
 * Disconnects Artio asks for right after sending a Logout, held until Artio's framer has written that Logout to the
 * socket, so that the counterparty always gets the Logout before the connection closes.
 * <p>
 * Artio (0.175) asks for the disconnect as soon as its session has published the Logout (answering the counterparty's
 * Logout, or logging out for a fault). Its framer holds a session's new messages back while it is resending earlier
 * ones for that session (a ResendRequest being answered), and drops what it holds when it closes the connection: a
 * Logout published while a resend was still being written was never sent, and the counterparty saw the connection
 * close without one (QuickFIX/J's {@code 20_SimultaneousResendRequest} definition, in about one run in thirty on a
 * loaded machine). The framer tells this class each message it writes ({@link MessageTimingHandler}); the gateway's
 * session proxy notes each Logout before publishing it and hands the disconnect that follows here while that Logout is
 * unwritten; the gateway's agent sends it once the Logout is written, or after {@link #WAIT_NS} at most (a
 * counterparty that does not read, or a connection already gone).
 * <p>
 * Threads: {@link #onMessage} runs on the framer's thread for every message written, and returns at once unless a
 * Logout is awaited, which is rare and brief: the lock is taken only then. Everything else runs on the library's
 * thread.
 */
final class DeferredDisconnects implements MessageTimingHandler
{
    /**
     * Sends a disconnect held until now: the session's proxy.
     */
    interface Sender
    {
        /**
         * @return the publication's position, negative if not sent.
         */
        long sendDeferredDisconnect(long connectionId, DisconnectReason reason);
    }

    /**
     * The longest a disconnect is held for its Logout.
     */
    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(1);

    private final NanoClock clock;
    private final long[] connectionIds;
    private final int[] logoutMsgSeqNums;
    private final boolean[] written;
    private final Sender[] deferredBy;
    private final DisconnectReason[] reasons;
    private final long[] deadlinesNs;
    private int used;
    private int deferred;
    private volatile boolean awaiting;

    /**
     * @param capacity Logouts awaited at once: one per session configured (a session has one connection at a time);
     *                 beyond it a disconnect goes at once, as Artio would send it.
     * @param clock    for the wait's deadline.
     */
    DeferredDisconnects(final int capacity, final NanoClock clock)
    {
        this.clock = clock;
        connectionIds = new long[capacity];
        logoutMsgSeqNums = new int[capacity];
        written = new boolean[capacity];
        deferredBy = new Sender[capacity];
        reasons = new DisconnectReason[capacity];
        deadlinesNs = new long[capacity];
    }

    /**
     * Note a Logout about to be published (before it is, so that the framer cannot write it unseen).
     */
    synchronized void expectLogout(final long connectionId, final int msgSeqNum)
    {
        int slot = slotOf(connectionId);
        if (slot < 0)
        {
            if (used == connectionIds.length)
            {
                return;
            }
            slot = used++;
            connectionIds[slot] = connectionId;
        }
        logoutMsgSeqNums[slot] = msgSeqNum;
        written[slot] = false;
        awaiting = true;
    }

    /**
     * Hold a disconnect when the connection's last Logout is not written yet.
     *
     * @return whether it is held (sent later through {@code sender}); if not, the caller sends it now.
     */
    synchronized boolean defer(final Sender sender, final long connectionId, final DisconnectReason reason)
    {
        final int slot = slotOf(connectionId);
        if (slot < 0)
        {
            return false;
        }
        if (written[slot])
        {
            remove(slot);
            return false;
        }
        if (deferredBy[slot] == null)
        {
            deferred++;
        }
        deferredBy[slot] = sender;
        reasons[slot] = reason;
        deadlinesNs[slot] = clock.nanoTime() + WAIT_NS;
        return true;
    }

    /**
     * Send the held disconnects whose Logout is written or whose wait is over; one back-pressured is tried again
     * next time.
     *
     * @return disconnects sent.
     */
    int poll()
    {
        if (deferred == 0)
        {
            return 0;
        }
        synchronized (this)
        {
            final long nowNs = clock.nanoTime();
            int sent = 0;
            for (int slot = used - 1; slot >= 0; slot--)
            {
                final Sender sender = deferredBy[slot];
                if (sender != null && (written[slot] || nowNs - deadlinesNs[slot] >= 0) &&
                    !Pressure.isBackPressured(sender.sendDeferredDisconnect(connectionIds[slot], reasons[slot])))
                {
                    remove(slot);
                    sent++;
                }
            }
            return sent;
        }
    }

    /**
     * Forget the connection, closed by either side.
     */
    synchronized void onDisconnect(final long connectionId)
    {
        final int slot = slotOf(connectionId);
        if (slot >= 0)
        {
            remove(slot);
        }
    }

    /**
     * @return disconnects held now.
     */
    synchronized int deferred()
    {
        return deferred;
    }

    public void onMessage(
        final long sequenceNumber,
        final long connectionId,
        final DirectBuffer metaDataBuffer,
        final int metaDataOffset,
        final int metaDataLength)
    {
        if (!awaiting)
        {
            return;
        }
        synchronized (this)
        {
            final int slot = slotOf(connectionId);
            if (slot >= 0 && sequenceNumber >= logoutMsgSeqNums[slot])
            {
                written[slot] = true;
            }
        }
    }

    private int slotOf(final long connectionId)
    {
        for (int slot = 0; slot < used; slot++)
        {
            if (connectionIds[slot] == connectionId)
            {
                return slot;
            }
        }
        return -1;
    }

    private void remove(final int slot)
    {
        if (deferredBy[slot] != null)
        {
            deferred--;
        }
        final int last = --used;
        connectionIds[slot] = connectionIds[last];
        logoutMsgSeqNums[slot] = logoutMsgSeqNums[last];
        written[slot] = written[last];
        deferredBy[slot] = deferredBy[last];
        reasons[slot] = reasons[last];
        deadlinesNs[slot] = deadlinesNs[last];
        deferredBy[last] = null;
        reasons[last] = null;
        awaiting = used > 0;
    }
}
