package io.bourse.cluster;

/**
 * {@link TestCluster}, opened up to other modules' tests: members in this JVM on free loopback ports, with the
 * operations a fail-over test needs.
 */
public final class FailoverCluster implements AutoCloseable
{
    private final TestCluster cluster;

    public FailoverCluster(final int members)
    {
        cluster = new TestCluster(members);
        cluster.startAll();
    }

    /**
     * @return the member id of the leader (other than {@code excludedMemberId}, or any when -1).
     */
    public int awaitLeader(final int excludedMemberId)
    {
        return cluster.awaitLeader(excludedMemberId).context().memberId();
    }

    public String ingressEndpoints()
    {
        return cluster.ingressEndpoints();
    }

    /**
     * @return where the member keeps its journal, snapshots and cluster files.
     */
    public java.io.File dataDir(final int memberId)
    {
        return cluster.dataDir(memberId);
    }

    /**
     * @return the member's media driver directory.
     */
    public String aeronDirectoryName(final int memberId)
    {
        return cluster.context(memberId).aeronDirectoryName();
    }

    public void start(final int memberId)
    {
        cluster.start(memberId);
    }

    public void stop(final int memberId)
    {
        cluster.stop(memberId);
    }

    /**
     * Stop a member the way a crash would as far as its journal is concerned: no shutdown snapshot.
     */
    public void crash(final int memberId)
    {
        cluster.crash(memberId);
    }

    /**
     * Wait until every running member has applied the same log and has the same state.
     *
     * @return the engine state hash they share.
     */
    public long awaitSameEngineState()
    {
        cluster.awaitSameState();
        for (int memberId = 0; ; memberId++)
        {
            final ClusterNode node = cluster.node(memberId);
            if (node != null)
            {
                return node.service().engineStateHash();
            }
        }
    }

    public void close()
    {
        cluster.close();
    }
}
