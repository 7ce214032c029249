package io.bourse.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of the test's own class path started for a crash test to kill: its output lines are echoed, prefixed with
 * its name and pid, and kept for the test to wait on; it takes lines on its standard input.
 */
public final class JavaChildProcess
{
    private final String name;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> printed = Collections.synchronizedList(new ArrayList<>());

    private JavaChildProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = out.readLine()) != null)
                {
                    System.out.println("[" + name + " pid " + process.pid() + "] " + line);
                    lines.add(line);
                    printed.add(line);
                }
            }
            catch (final IOException ignore)
            {
                // The process was killed: its output simply ends.
            }
        }, name + "-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Start {@code mainClass} with Bourse's module options, the given JVM options and arguments, and wait until it
     * prints a line starting with {@code ready}; it is killed if it does not within the timeout.
     */
    public static JavaChildProcess start(
        final String name,
        final List<String> jvmOptions,
        final String mainClass,
        final List<String> arguments,
        final String ready,
        final long timeoutNs)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        command.addAll(jvmOptions);
        command.addAll(List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(arguments);
        final JavaChildProcess child;
        try
        {
            child = new JavaChildProcess(name, new ProcessBuilder(command).redirectErrorStream(true).start());
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot start the " + name + " process", ex);
        }
        try
        {
            child.awaitLine(ready, timeoutNs);
        }
        catch (final RuntimeException | Error ex)
        {
            child.kill();
            throw ex;
        }
        return child;
    }

    public boolean hasPrinted(final String part)
    {
        synchronized (printed)
        {
            return printed.stream().anyMatch(line -> line.contains(part));
        }
    }

    public void send(final String line)
    {
        try
        {
            stdin.write(line + "\n");
            stdin.flush();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot talk to " + name + " process " + process.pid(), ex);
        }
    }

    /**
     * @return the next line the process prints that starts with {@code prefix}, skipping others.
     */
    public String awaitLine(final String prefix, final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        try
        {
            while (true)
            {
                final String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line != null && line.startsWith(prefix))
                {
                    return line;
                }
                if (line == null && !process.isAlive() && lines.isEmpty())
                {
                    throw new AssertionError(name + " process " + process.pid() + " exited with " +
                        process.exitValue() + " before printing '" + prefix + "'");
                }
                if (System.nanoTime() > deadlineNs)
                {
                    throw new AssertionError("timed out waiting for the " + name + " process to print '" + prefix +
                        "'");
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Send a signal by name ({@code STOP}, {@code CONT}) with {@code kill}.
     */
    public void signal(final String signal)
    {
        try
        {
            final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0)
            {
                throw new AssertionError("could not send SIG" + signal + " to " + name + " process " + process.pid());
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * SIGKILL, and wait for the process to be gone.
     */
    public void kill()
    {
        process.destroyForcibly();
        awaitExit();
    }

    /**
     * @return the exit code, once the process has exited (waiting up to 30 s).
     */
    public int awaitExitCode()
    {
        awaitExit();
        return process.exitValue();
    }

    public void awaitExit()
    {
        try
        {
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                throw new AssertionError(name + " process " + process.pid() + " did not exit within 30 s");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
