package io.bourse.gateway.http;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs a test tool outside the JVM (Playwright under Node, schemathesis under Python) against a gateway the test
 * started, with a bounded time, and fails with its output when it fails. When the tool is not installed the test
 * is skipped with a message saying how to install it, unless {@code BOURSE_REQUIRE_E2E=1} (set by {@code .ci/run},
 * which installs them), where a missing tool is a failure.
 */
final class ExternalTool
{
    private ExternalTool()
    {
    }

    static File repoRoot()
    {
        final String root = System.getenv("BOURSE_REPO_ROOT");
        return new File(root != null ? root : "..").getAbsoluteFile();
    }

    static void require(final boolean present, final String what)
    {
        if (!present && "1".equals(System.getenv("BOURSE_REQUIRE_E2E")))
        {
            fail(what + " is missing, and BOURSE_REQUIRE_E2E=1: run .ci/run's install step");
        }
        assumeTrue(present, what + " is missing: .ci/run installs it");
    }

    static void run(final List<String> command, final File directory, final Map<String, String> environment,
        final long timeoutS)
    {
        final ProcessBuilder builder = new ProcessBuilder(command).directory(directory).redirectErrorStream(true);
        builder.environment().putAll(environment);
        final File log = new File(repoRoot(), "gateway-http/target/" + new File(command.get(command.size() - 1)).getName() + ".log");
        builder.redirectOutput(log);
        try
        {
            final Process process = builder.start();
            if (!process.waitFor(timeoutS, TimeUnit.SECONDS))
            {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                fail(String.join(" ", command) + " did not finish within " + timeoutS + " s; output:\n" + read(log));
            }
            final String output = read(log);
            System.out.println(output);
            assertEquals(0, process.exitValue(), () -> String.join(" ", command) + " failed; output:\n" + output);
        }
        catch (final IOException ex)
        {
            fail("cannot run " + command + ": " + ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
    }

    private static String read(final File log) throws IOException
    {
        final String text = new String(java.nio.file.Files.readAllBytes(log.toPath()), StandardCharsets.UTF_8);
        return text.length() > 20_000 ? "…" + text.substring(text.length() - 20_000) : text;
    }
}
