package io.bourse.app;

import io.bourse.cluster.ClusterNode;
import io.bourse.gateway.http.NodeStatus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a gateway in the node's own JVM can read about it: role, journal bytes on disk (re-measured at most once a
 * second) and the age of the last snapshot taken since this process started.
 */
final class EmbeddedNodeStatus implements NodeStatus
{
    private static final long MEASURE_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    private final ClusterNode node;
    private final Path dataDir;
    private long measuredAtNs;
    private long journalBytes = -1;
    private long snapshotCount;
    private long lastSnapshotMs = -1;

    EmbeddedNodeStatus(final ClusterNode node)
    {
        this.node = node;
        this.dataDir = node.context().dataDir().toPath();
        this.snapshotCount = node.snapshotCount();
    }

    public String role()
    {
        return node.role() == null ? null : node.role().name();
    }

    public synchronized long journalBytes()
    {
        final long nowNs = System.nanoTime();
        if (journalBytes < 0 || nowNs - measuredAtNs > MEASURE_INTERVAL_NS)
        {
            measuredAtNs = nowNs;
            try (Stream<Path> files = Files.walk(dataDir))
            {
                journalBytes = files.filter(Files::isRegularFile).mapToLong(EmbeddedNodeStatus::size).sum();
            }
            catch (final IOException | UncheckedIOException ex)
            {
                journalBytes = -1;
            }
        }
        return journalBytes;
    }

    public synchronized long lastSnapshotAgeMs()
    {
        final long count = node.snapshotCount();
        if (count != snapshotCount)
        {
            snapshotCount = count;
            lastSnapshotMs = System.currentTimeMillis();
        }
        return lastSnapshotMs < 0 ? -1 : System.currentTimeMillis() - lastSnapshotMs;
    }

    public long stateHashesAgreed()
    {
        return node.stateHashesAgreed();
    }

    public long stateHashesDiverged()
    {
        return node.stateHashesDiverged();
    }

    private static long size(final Path file)
    {
        try
        {
            return Files.size(file);
        }
        catch (final IOException ex)
        {
            // Purged while we walked: it no longer counts.
            return 0;
        }
    }
}
