package io.bourse.gateway.fix;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.aeron.Aeron;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.IdleStrategy;
import uk.co.real_logic.artio.engine.EngineConfiguration;
import uk.co.real_logic.artio.engine.EngineScheduler;
import uk.co.real_logic.artio.engine.FixEngine;
import uk.co.real_logic.artio.engine.RecordingCoordinator;

/**
 * How Artio's engine is run in the gateway: its framer (the sessions' sockets and session protocol) by the gateway's
 * own thread, between its other steps, and the rest (the indexes and the replayer for resends, the error printer, the
 * engine's Aeron client conductor) by one background thread.
 * <p>
 * Why: with the framer on a thread of its own, every order crossed two threads in the gateway (the framer read it,
 * the gateway's thread handled it) and every report two more, each crossing a wake-up on a machine where the node's
 * agents want the same cores. Run by the gateway's thread, an order is handled, and its report written to the socket,
 * in the duty cycle that reads it.
 * <p>
 * Threads: {@link #invokeFramer()} on one thread at a time: the thread that connects the library, then the gateway's.
 * Once that thread has stopped, {@link #closeEngine(FixEngine)} drives the framer from a thread of its own, as Artio's
 * close waits for the framer to disconnect every session.
 */
final class FramerOnGatewayThread implements EngineScheduler
{
    private static final long CLOSE_JOIN_MS = TimeUnit.SECONDS.toMillis(10);

    private AgentInvoker framer;
    private AgentRunner background;
    private RecordingCoordinator recordingCoordinator;
    private Thread closingDriver;
    private volatile boolean closed;

    public void launch(
        final EngineConfiguration configuration,
        final ErrorHandler errorHandler,
        final Agent framer,
        final Agent indexingAgent,
        final Agent monitoringAgent,
        final Agent conductorAgent,
        final RecordingCoordinator recordingCoordinator)
    {
        if (this.framer != null)
        {
            EngineScheduler.fail();
        }
        this.recordingCoordinator = recordingCoordinator;
        this.framer = new AgentInvoker(errorHandler, null, framer);
        this.framer.start();
        final List<Agent> others = new ArrayList<>(3);
        for (final Agent agent : new Agent[] { indexingAgent, monitoringAgent, conductorAgent })
        {
            if (agent != null)
            {
                others.add(agent);
            }
        }
        background = new AgentRunner(configuration.archiverIdleStrategy(), errorHandler, null,
            new CompositeAgent(others));
        AgentRunner.startOnThread(background, configuration.threadFactory());
    }

    /**
     * One duty cycle of the framer, on the thread that runs it now.
     *
     * @return the work it did.
     */
    int invokeFramer()
    {
        return framer.invoke();
    }

    /**
     * Nothing here: Artio's replayer calls this while it waits for the framer, which the gateway's thread runs.
     */
    public int pollFramer()
    {
        return 0;
    }

    /**
     * The engine's Aeron client conductor runs on the background thread, not one of its own.
     */
    public void configure(final Aeron.Context aeronContext)
    {
        aeronContext.useConductorAgentInvoker(true);
    }

    /**
     * Close the engine once the thread that ran the framer has stopped (or never started): a thread of its own drives
     * the framer meanwhile, until the engine closes this scheduler.
     */
    void closeEngine(final FixEngine engine)
    {
        if (framer != null && closingDriver == null)
        {
            closingDriver = new Thread(this::driveFramerUntilClosed, "bourse-fix-framer-closing");
            closingDriver.setDaemon(true);
            closingDriver.start();
        }
        engine.close();
    }

    private void driveFramerUntilClosed()
    {
        final IdleStrategy idle = new BackoffIdleStrategy(20, 10, 1_000, 1_000_000);
        while (!closed)
        {
            idle.idle(framer.invoke());
        }
    }

    public void close()
    {
        closed = true;
        if (closingDriver != null)
        {
            try
            {
                closingDriver.join(CLOSE_JOIN_MS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        CloseHelper.closeAll(framer, recordingCoordinator, background);
    }
}
