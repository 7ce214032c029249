package io.bourse.cluster;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.exceptions.DriverTimeoutException;
import org.agrona.IoUtil;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A client whose media driver stops answering for longer than Aeron's driver timeout (a process paused or starved
 * that long) goes on: Aeron's default error handler would exit the JVM, taking a gateway (and a node embedded in the
 * same process) down with it. The driver here runs in a process of its own, stopped with SIGSTOP past the timeout and
 * then continued; the client reports the timeout to its error handler, opens a new session, and every command is
 * still applied exactly once.
 */
class MediaDriverTimeoutTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    @Test
    void aClientWhoseMediaDriverTimedOutOpensANewSessionInsteadOfExitingTheJvm() throws Exception
    {
        final File driverDir = Files.createTempDirectory("bourse-driver-timeout").toFile();
        JavaChildProcess driver = null;
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.startAll();
            cluster.awaitLeader();
            driver = JavaChildProcess.start("driver", List.of("-Xmx64m", "-XX:+UseSerialGC"),
                StandaloneDriver.class.getName(), List.of(driverDir.getPath()), StandaloneDriver.READY, TIMEOUT_NS);
            final List<Throwable> errors = new CopyOnWriteArrayList<>();
            final ReferenceWorkload workload = new ReferenceWorkload(System.nanoTime());
            try (TestClient trader = new TestClient(cluster, context -> context
                .aeronDirectoryName(driverDir.getPath())
                .errorHandler(errors::add)))
            {
                trader.awaitConnected();
                workload.setUp(trader);
                workload.trade(trader, 50);
                trader.awaitAllAnswered();
                assertEquals(1, trader.connections);

                driver.signal("STOP");
                try
                {
                    TestCluster.await(() -> "the client's driver timeout, errors so far " + errors,
                        () -> errors.stream().anyMatch(DriverTimeoutException.class::isInstance));
                }
                finally
                {
                    driver.signal("CONT");
                }
                workload.trade(trader, 50);
                trader.awaitAllAnswered();

                assertEquals(2, trader.connections, "a new session after the timeout; seed " + workload.seed());
                assertEquals(List.of(), trader.answeredTwice, "seed " + workload.seed());
                assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash(),
                    "every command applied once; seed " + workload.seed());
            }
        }
        finally
        {
            if (driver != null)
            {
                driver.kill();
            }
            IoUtil.delete(driverDir, true);
        }
    }

    /**
     * A media driver alone in its process, on the directory given as its argument, until its standard input ends:
     * the test closes it, or its JVM is gone however it ended, so that no driver outlives the test.
     */
    public static final class StandaloneDriver
    {
        static final String READY = "driver ready";

        public static void main(final String[] args) throws IOException
        {
            try (MediaDriver ignored = MediaDriver.launch(new MediaDriver.Context()
                .aeronDirectoryName(args[0])
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new SleepingMillisIdleStrategy(1))
                .termBufferSparseFile(true)
                .publicationTermBufferLength(4 * 1024 * 1024)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)))
            {
                System.out.println(READY);
                while (System.in.read() >= 0)
                {
                    // Nothing is sent: the read only waits for the end of the input.
                }
            }
        }
    }
}
