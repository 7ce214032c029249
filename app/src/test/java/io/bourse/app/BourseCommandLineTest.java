package io.bourse.app;

import io.aeron.CncFileDescriptor;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.IoUtil;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BourseCommandLineTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void usageErrorsExitWithTwoAndSayWhatIsWrong()
    {
        assertExit(2, "no command given");
        assertExit(2, "unknown command 'frob'", "frob");
        assertExit(2, "journal needs a subcommand", "journal");
        assertExit(2, "unknown journal subcommand 'list'", "journal", "list");
        assertExit(2, "unknown configuration key 'bogus'", "run", "--bogus=1");
        assertExit(2, "configuration key 'port.base': expected an integer, got 'x'", "run", "--port-base", "x");
        assertExit(2, "option --port-base needs a value", "run", "--port-base");
        assertExit(2, "unexpected argument 'now'", "run", "now");
        assertExit(2, "option --limit: expected a positive integer, got 'x'", "journal", "dump", "--limit=x");
        assertExit(2, "run starts one embedded node, but member.hosts lists 3 members", "run", "--member-hosts=a,b,c");
        assertExit(2, "node needs --member-id and --member-hosts", "node");
        assertExit(2, "configuration file not found: nowhere.properties", "run", "--config", "nowhere.properties");
        assertExit(2, "configuration key 'store.jdbc.url'", "store", "--store.jdbc.url=jdbc:mysql://x/y");
    }

    @Test
    void aotTrainingRefusesADataDirectoryWithAnythingInIt() throws IOException
    {
        final Path used = Files.createTempDirectory("bourse-cli-test");
        final Path journal = Files.writeString(used.resolve("a-journal"), "");
        try
        {
            assertExit(2, "aot-training needs a new or empty --data-dir, and " + used.toAbsolutePath() + " is not empty",
                "aot-training", "--data-dir=" + used);
            assertTrue(Files.exists(journal), "left as it was");
        }
        finally
        {
            Files.deleteIfExists(journal);
            Files.deleteIfExists(used);
        }
    }

    @Test
    void aBadValueOfAComponentStartedLateIsRefusedBeforeTheNodeStarts() throws IOException
    {
        final Path dataDir = Files.createTempDirectory("bourse-cli-test");
        try
        {
            assertExit(2, "configuration key 'http.command.timeout.ms': expected an integer from 100",
                "run", "--data-dir=" + dataDir, "--http.command.timeout.ms=5");
            assertExit(2, "configuration key 'store.report.interval.ms'",
                "run", "--data-dir=" + dataDir, "--store.report.interval.ms=-1");
            assertExit(2, "configuration key 'http.admin.audit.log': cannot write " + dataDir,
                "run", "--data-dir=" + dataDir, "--http.admin.audit.log=" + dataDir);
            try (Stream<Path> entries = Files.list(dataDir))
            {
                assertEquals(0, entries.count(), "nothing started in the data directory");
            }
        }
        finally
        {
            IoUtil.delete(dataDir.toFile(), true);
        }
    }

    @Test
    void failuresExitWithOne() throws IOException
    {
        final Path empty = Files.createTempDirectory("bourse-cli-test");
        try
        {
            assertExit(1, "no journal in " + empty.toAbsolutePath(), "journal", "inspect", "--data-dir=" + empty);
            assertExit(1, "no running node: no media driver at " + empty.resolve("none"),
                "journal", "snapshot", "--aeron-dir=" + empty.resolve("none"));
            assertExit(1, "no node runs on " + empty.toAbsolutePath(),
                "store", "--data-dir=" + empty, "--aeron-dir=" + empty.resolve("none"));
        }
        finally
        {
            Files.deleteIfExists(empty);
        }
    }

    @Test
    void aSnapshotRequestToANodeThatCrashedFailsAtOnce() throws IOException
    {
        final Path aeronDir = Files.createTempDirectory("bourse-cli-crashed");
        try
        {
            // A stopped driver's files, as a crash leaves them: its last heartbeat long ago.
            leftDriverFiles(aeronDir, (mapped, metaData) ->
                new ManyToOneRingBuffer(CncFileDescriptor.createToDriverBuffer(mapped, metaData)).consumerHeartbeatTime(0));
            final long startNs = System.nanoTime();
            assertExit(1, "no running node: the media driver at " + aeronDir + " has stopped",
                "journal", "snapshot", "--aeron-dir=" + aeronDir);
            assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(30), "not the 60 s timeout");
        }
        finally
        {
            IoUtil.delete(aeronDir.toFile(), true);
        }
    }

    @Test
    void aSnapshotRequestToANodeWhoseProcessIsGoneFailsAtOnceEvenWithAFreshHeartbeat() throws Exception
    {
        final Path aeronDir = Files.createTempDirectory("bourse-cli-killed");
        try
        {
            // A driver killed a moment ago: its heartbeat not yet stale, its process gone.
            final Process gone = new ProcessBuilder("true").start();
            assertTrue(gone.waitFor(10, TimeUnit.SECONDS));
            leftDriverFiles(aeronDir, (mapped, metaData) -> metaData.putLong(CncFileDescriptor.pidOffset(0), gone.pid()));
            final long startNs = System.nanoTime();
            assertExit(1, "no running node: the media driver at " + aeronDir + " has stopped (its process " +
                gone.pid() + " is gone", "journal", "snapshot", "--aeron-dir=" + aeronDir);
            assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(5), "not the heartbeat's 10 s");
        }
        finally
        {
            IoUtil.delete(aeronDir.toFile(), true);
        }
    }

    @Test
    void helpPrintsTheCommands()
    {
        assertEquals(0, execute("help"));
        final String usage = out.toString(StandardCharsets.UTF_8);
        for (final String command : new String[]{ "run", "node", "store", "journal inspect", "journal dump", "journal verify",
            "journal snapshot", "aot-training" })
        {
            assertTrue(usage.contains("  " + command + " "), command + " in " + usage);
        }
    }

    /**
     * The files of a media driver that ran in the directory and stopped without deleting them, then changed as a
     * test needs (the driver's CnC file and its metadata).
     */
    private static void leftDriverFiles(
        final Path aeronDir, final java.util.function.BiConsumer<MappedByteBuffer, UnsafeBuffer> change)
    {
        MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(aeronDir.toString()).dirDeleteOnStart(true).dirDeleteOnShutdown(false)
            .threadingMode(ThreadingMode.SHARED).sharedIdleStrategy(new SleepingMillisIdleStrategy(1))).close();
        final MappedByteBuffer mapped =
            IoUtil.mapExistingFile(new File(aeronDir.toFile(), CncFileDescriptor.CNC_FILE), "cnc");
        try
        {
            change.accept(mapped, CncFileDescriptor.createMetaDataBuffer(mapped));
        }
        finally
        {
            IoUtil.unmap(mapped);
        }
    }

    private void assertExit(final int expectedCode, final String expectedMessage, final String... args)
    {
        err.reset();
        final int code = execute(args);
        final String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(expectedCode, code, String.join(" ", args) + ": " + message);
        assertTrue(message.contains(expectedMessage), "expected '" + expectedMessage + "' in: " + message);
    }

    private int execute(final String... args)
    {
        return new Bourse(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
    }
}
