package io.bourse.cluster;

import io.aeron.cluster.service.ClusterTerminationException;
import io.aeron.exceptions.ConductorServiceTimeoutException;
import org.agrona.ErrorHandler;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the node does with its components' errors: it prints them, stops on one that ended a component's thread or
 * made Aeron close its client, and keeps quiet about Aeron's report of an orderly shutdown; and what it does when a
 * component's thread dies of something no handler of its saw.
 */
class ComponentErrorsTest
{
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final List<Throwable> fatal = new ArrayList<>();
    private final ClusterNode.Context context = new ClusterNode.Context()
        .memberId(2)
        .log(new PrintStream(output, true, StandardCharsets.UTF_8))
        .onFatalError(fatal::add);
    private final ErrorHandler errors = ClusterNode.componentErrors(context, "service");

    @Test
    void anErrorThatEndsAThreadStopsTheNode()
    {
        final OutOfMemoryError error = new OutOfMemoryError("Cannot reserve 136048896 bytes of direct buffer memory");
        errors.onError(error);
        assertEquals(List.of(error), fatal);
        assertTrue(log().contains("bourse node 2: service thread died of java.lang.OutOfMemoryError: Cannot reserve"),
            log());
    }

    @Test
    void anAeronClientTimeoutStopsTheNode()
    {
        final ConductorServiceTimeoutException timeout =
            new ConductorServiceTimeoutException("service interval exceeded: timeout=10s, interval=12012754929ns");
        errors.onError(timeout);
        assertEquals(List.of(timeout), fatal);
        assertTrue(log().contains("bourse node 2: Aeron closed the service's client: " +
            "io.aeron.exceptions.ConductorServiceTimeoutException: FATAL - service interval exceeded"), log());
        assertTrue(log().strip().endsWith("; it stops (restarted, it recovers from its journal)"), log());
    }

    @Test
    void anExceptionIsPrintedAndTheNodeGoesOn()
    {
        errors.onError(new IllegalStateException("a bad message"));
        assertEquals(List.of(), fatal);
        assertEquals("bourse node 2: service error: java.lang.IllegalStateException: a bad message",
            log().strip());
    }

    @Test
    void anOrderlyShutdownIsNotReported()
    {
        errors.onError(new ClusterTerminationException(true));
        assertEquals(List.of(), fatal);
        assertEquals("", log());
    }

    @Test
    void aThreadThatDiesBeforeAnyHandlerSeesItsErrorStopsTheNode() throws InterruptedException
    {
        // What a full disk does: Aeron's first write of the error to its mark file faults, and that ends the thread.
        final InternalError fault = new InternalError("a fault occurred in an unsafe memory access operation");
        final Thread thread = ClusterNode.componentThreads(context).newThread(() ->
        {
            throw fault;
        });
        thread.setName("archive-conductor");
        thread.start();
        thread.join();
        assertEquals(List.of(fault), fatal);
        assertTrue(log().contains("bourse node 2: thread archive-conductor died of java.lang.InternalError: a fault " +
            "occurred in an unsafe memory access operation (a write to a memory-mapped file failed: is its disk " +
            "full?); it stops (restarted, it recovers from its journal)"), log());
    }

    @Test
    void aThreadEndedByAnErrorItsHandlerReportedStopsTheNodeOnce() throws InterruptedException
    {
        final StackOverflowError error = new StackOverflowError();
        final Thread thread = ClusterNode.componentThreads(context).newThread(() ->
        {
            // As Agrona's agent runner does: the handler first, then the error is rethrown and ends the thread.
            errors.onError(error);
            throw error;
        });
        thread.start();
        thread.join();
        assertEquals(List.of(error), fatal);
        assertEquals(1, log().lines().count(), log());
    }

    private String log()
    {
        return output.toString(StandardCharsets.UTF_8);
    }
}
