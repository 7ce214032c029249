package io.bourse.cluster;

import io.aeron.exceptions.ClientTimeoutException;
import io.aeron.exceptions.ConductorServiceTimeoutException;
import io.aeron.exceptions.DriverTimeoutException;
import org.agrona.ErrorHandler;

import java.io.PrintStream;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * What a Bourse process (node or gateway) does with an error one of its threads reports. An {@link Error} (out of
 * memory, a stack overflow) ends the thread that met it: Agrona's agent runner rethrows it once the handler has run,
 * so the process would go on without the thread, up but unable to make progress, which a supervisor cannot tell from
 * healthy. So does an Aeron client's timeout (the media driver silent, or the client itself not run, for longer than
 * Aeron's timeouts: a process paused that long): Aeron closes that client, and the component using it can do no more.
 * Such an error is logged and handed to the process's fatal-error action instead, by default {@link #HALT}. Anything
 * else goes to the handler for errors the thread survives.
 * <p>
 * An error handler is not always reached: Aeron first records an error in its component's memory-mapped mark file, and
 * when that write fails (the file's disk is full) the thread dies of the failure before any handler of ours runs. So
 * the components' threads come from {@link #threadFactory}, whose uncaught-exception handler takes the same action
 * for a thread that dies of anything.
 */
public final class FatalErrors
{
    /**
     * The exit code of a process that halts because one of its threads died of an {@link Error}.
     */
    public static final int EXIT_CODE = 70;

    /**
     * The default fatal-error action: halt the JVM at once, as a crash would (no shutdown hooks, which could wait on
     * the dead thread), so that a supervisor restarts the process and its recovery runs.
     */
    public static final Consumer<Throwable> HALT = error -> Runtime.getRuntime().halt(EXIT_CODE);

    /**
     * The fatal error the handler has taken action on, for the thread it ends: its uncaught-exception handler then
     * leaves it alone.
     */
    private static final ThreadLocal<Throwable> HANDLED = new ThreadLocal<>();

    private FatalErrors()
    {
    }

    /**
     * @param log         where a fatal error is said, flushed before the action runs.
     * @param process     how the log names the process, e.g. {@code bourse node 1}.
     * @param component   how the log names the thread's component, e.g. {@code service}.
     * @param restart     what a restart does about it, for the operator reading the log.
     * @param onFatal     the process's fatal-error action.
     * @param otherErrors errors the thread survives.
     * @return a handler for the component's thread.
     */
    public static ErrorHandler handler(
        final PrintStream log,
        final String process,
        final String component,
        final String restart,
        final Consumer<Throwable> onFatal,
        final ErrorHandler otherErrors)
    {
        return error ->
        {
            if (error instanceof Error || closesTheAeronClient(error))
            {
                final String what = error instanceof Error ?
                    component + " thread died of " + error : "Aeron closed the " + component + "'s client: " + error;
                HANDLED.set(error);
                stop(log, process + ": " + what + hint(error) + "; it stops (restarted, " + restart + ")", onFatal,
                    error);
            }
            else
            {
                otherErrors.onError(error);
            }
        };
    }

    /**
     * Threads for a process's components whose death, of whatever escapes them, is fatal to the process: logged and
     * handed to its fatal-error action unless a {@link #handler} already did so.
     *
     * @param log     where the death is said, flushed before the action runs.
     * @param process how the log names the process, e.g. {@code bourse node 1}.
     * @param restart what a restart does about it, for the operator reading the log.
     * @param onFatal the process's fatal-error action.
     */
    public static ThreadFactory threadFactory(
        final PrintStream log, final String process, final String restart, final Consumer<Throwable> onFatal)
    {
        return runnable ->
        {
            final Thread thread = new Thread(runnable);
            thread.setUncaughtExceptionHandler((dying, error) ->
            {
                if (HANDLED.get() == error)
                {
                    return;
                }
                stop(log, process + ": thread " + dying.getName() + " died of " + error + hint(error) +
                    "; it stops (restarted, " + restart + ")", onFatal, error);
            });
            return thread;
        };
    }

    /**
     * Say why the process stops, flushed so that the line is out before the action (by default a halt), then act.
     *
     * @param log     where the line goes.
     * @param line    the whole line, for the operator: what happened and what a restart does about it.
     * @param onFatal the process's fatal-error action.
     * @param error   what it is handed.
     */
    public static void stop(
        final PrintStream log, final String line, final Consumer<Throwable> onFatal, final Throwable error)
    {
        log.println(line);
        log.flush();
        onFatal.accept(error);
    }

    /**
     * @return what the error most likely means, for an operator, or nothing.
     */
    private static String hint(final Throwable error)
    {
        // The JVM's word for a SIGBUS in a memory-mapped file, which a full disk causes when a page is first written.
        return error instanceof InternalError && String.valueOf(error.getMessage()).contains("unsafe memory access") ?
            " (a write to a memory-mapped file failed: is its disk full?)" : "";
    }

    private static boolean closesTheAeronClient(final Throwable error)
    {
        return error instanceof DriverTimeoutException || error instanceof ConductorServiceTimeoutException ||
            error instanceof ClientTimeoutException;
    }
}
