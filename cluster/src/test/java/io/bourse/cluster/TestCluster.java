package io.bourse.cluster;

import io.aeron.cluster.service.Cluster;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Test harness: a cluster of {@link ClusterNode}s in this JVM, on free loopback ports, in a temporary directory.
 * Reads as prose in tests: {@code cluster.startAll()}, {@code cluster.awaitLeader()}, {@code cluster.stop(leader)}.
 * Every node's log lines are kept, so that a test can check what start-up reported.
 */
final class TestCluster implements AutoCloseable
{
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    static final File FATAL_ERRORS_FILE = new File("target", "test-cluster-fatal-errors.txt");

    private final File baseDir;
    private final int memberCount;
    private final int portBase;
    private final UnaryOperator<ClusterNode.Context> customiser;
    private final ClusterNode[] nodes;
    private final List<String> logLines = Collections.synchronizedList(new ArrayList<>());

    TestCluster(final int memberCount)
    {
        this(memberCount, context -> context);
    }

    TestCluster(final int memberCount, final UnaryOperator<ClusterNode.Context> customiser)
    {
        try
        {
            this.baseDir = Files.createTempDirectory("bourse-cluster-test").toFile();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        this.memberCount = memberCount;
        this.portBase = freePortBase(memberCount);
        this.customiser = customiser;
        this.nodes = new ClusterNode[memberCount];
    }

    File dataDir(final int memberId)
    {
        return new File(baseDir, "node-" + memberId);
    }

    ClusterNode.Context context(final int memberId)
    {
        final List<String> hosts = new ArrayList<>();
        for (int i = 0; i < memberCount; i++)
        {
            hosts.add("localhost");
        }
        return customiser.apply(new ClusterNode.Context()
            .dataDir(dataDir(memberId))
            .memberId(memberId)
            .memberHosts(hosts)
            .portBase(portBase)
            .aeronDirectoryName(new File(System.getProperty("java.io.tmpdir"),
                "bourse-test-" + ProcessHandle.current().pid() + "-" + portBase + "-" + memberId).getPath())
            .log(new PrintStream(new LineCapture(memberId), true))
            .onFatalError(error ->
            {
                keepFatalError(memberId, error);
                FatalErrors.HALT.accept(error);
            }));
    }

    /**
     * A member's fatal error halts this JVM, as it would a node's (a test that expects one sets its own action). The
     * test's output is then lost with the JVM (surefire does not get its last lines), so the error and the members'
     * last log lines are first written to {@link #FATAL_ERRORS_FILE}, in the module's directory, to read afterwards.
     */
    private void keepFatalError(final int memberId, final Throwable error)
    {
        final StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text))
        {
            out.println(Instant.now() + " pid " + ProcessHandle.current().pid() + ": member " + memberId +
                " of the test cluster in " + baseDir + " halts on a fatal error; the members' last log lines:");
            final List<String> lines = logLines();
            lines.subList(Math.max(0, lines.size() - 50), lines.size()).forEach(line -> out.println("  " + line));
            error.printStackTrace(out);
        }
        try
        {
            Files.writeString(FATAL_ERRORS_FILE.toPath(), text.toString(), StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.SYNC);
        }
        catch (final IOException | RuntimeException ex)
        {
            error.addSuppressed(ex);
        }
        System.err.print(text);
        System.err.flush();
    }

    ClusterNode start(final int memberId)
    {
        nodes[memberId] = ClusterNode.launch(context(memberId));
        return nodes[memberId];
    }

    void startAll()
    {
        for (int i = 0; i < memberCount; i++)
        {
            start(i);
        }
    }

    ClusterNode node(final int memberId)
    {
        return nodes[memberId];
    }

    String ingressEndpoints()
    {
        return context(0).ingressEndpoints();
    }

    ClusterNode awaitLeader()
    {
        return awaitLeader(-1);
    }

    /**
     * Wait for a leader other than {@code excludedMemberId}.
     */
    ClusterNode awaitLeader(final int excludedMemberId)
    {
        final ClusterNode[] leader = new ClusterNode[1];
        await("a leader", () ->
        {
            for (int i = 0; i < memberCount; i++)
            {
                if (i != excludedMemberId && nodes[i] != null && nodes[i].role() == Cluster.Role.LEADER)
                {
                    leader[0] = nodes[i];
                    return true;
                }
            }
            return false;
        });
        return leader[0];
    }

    void stop(final int memberId)
    {
        CloseHelper.close(nodes[memberId]);
        nodes[memberId] = null;
    }

    /**
     * Stop a node the way a crash would as far as its journal is concerned: no shutdown snapshot.
     */
    void crash(final int memberId)
    {
        nodes[memberId].abort();
        nodes[memberId] = null;
    }

    /**
     * Ask a member for a snapshot and wait until it has taken it.
     */
    void snapshot(final int memberId)
    {
        final ClusterNode node = nodes[memberId];
        final long snapshots = node.snapshotCount();
        await("snapshot request placed", node::requestSnapshot);
        await("snapshot taken", () -> node.snapshotCount() > snapshots);
    }

    /**
     * On a single member: the workload's set-up and 300 of its commands, then, when asked, a snapshot and 300 more;
     * then a crash.
     */
    void tradeThenCrash(final ReferenceWorkload workload, final boolean snapshotBetween)
    {
        startAll();
        awaitLeader();
        try (TestClient client = new TestClient(this))
        {
            client.awaitConnected();
            workload.setUp(client);
            workload.trade(client, 300);
            client.awaitAllAnswered();
            if (snapshotBetween)
            {
                snapshot(0);
                workload.trade(client, 300);
                client.awaitAllAnswered();
            }
        }
        awaitSameState();
        crash(0);
    }

    /**
     * Wait until every running node has applied the same log position and report their state hashes.
     */
    long awaitSameState()
    {
        final long[] hash = new long[1];
        await("all nodes at the same log position and state", () ->
        {
            long position = -1;
            for (final ClusterNode node : nodes)
            {
                if (node != null)
                {
                    final long nodePosition = node.service().appliedLogPosition();
                    if (nodePosition <= 0 || (position != -1 && nodePosition != position))
                    {
                        return false;
                    }
                    position = nodePosition;
                }
            }
            // Same position everywhere, so every service has started and applied the same log: compare states.
            long stateHash = 0;
            boolean first = true;
            for (final ClusterNode node : nodes)
            {
                if (node != null)
                {
                    final long nodeHash = node.service().stateHash();
                    if (!first && nodeHash != stateHash)
                    {
                        return false;
                    }
                    stateHash = nodeHash;
                    first = false;
                }
            }
            hash[0] = stateHash;
            return position > 0;
        });
        return hash[0];
    }

    /**
     * A copy of the lines the nodes have printed so far: the readers of the nodes' output keep appending while a
     * test streams over the lines, so iterating the live list would throw {@code ConcurrentModificationException}.
     */
    List<String> logLines()
    {
        synchronized (logLines)
        {
            return List.copyOf(logLines);
        }
    }

    public void close()
    {
        for (int i = nodes.length - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(nodes[i]);
        }
        IoUtil.delete(baseDir, true);
    }

    static void await(final String what, final BooleanSupplier condition)
    {
        await(() -> what, condition);
    }

    /**
     * Wait for a condition, describing what was awaited (and the state at the time) only when it times out.
     */
    static void await(final Supplier<String> what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out after " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS) +
                    " s waiting for " + what.get());
            }
            sleepMs(1);
        }
    }

    static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * A base port such that every member's five UDP ports are free now; random so parallel runs rarely collide, and
     * below Linux's ephemeral ports (32768 and up): a port free now in that range can be handed to any socket the test
     * opens before the node binds it. Each module's tests take their own range.
     */
    static int freePortBase(final int memberCount)
    {
        return LoopbackPorts.freeBase(17_000, 490, memberCount * ClusterNode.PORTS_PER_MEMBER);
    }

    private final class LineCapture extends ByteArrayOutputStream
    {
        private final int memberId;

        LineCapture(final int memberId)
        {
            this.memberId = memberId;
        }

        public synchronized void flush()
        {
            final String text = toString();
            final int end = text.lastIndexOf('\n');
            if (end < 0)
            {
                return;
            }
            reset();
            final String rest = text.substring(end + 1);
            write(rest.getBytes(), 0, rest.length());
            for (final String line : text.substring(0, end).split("\n"))
            {
                if (!line.isEmpty())
                {
                    logLines.add(line);
                    System.out.println("[node " + memberId + "] " + line);
                }
            }
        }
    }
}
