package io.bourse.cluster;

/**
 * The cluster module's {@link TestCluster}, opened up to the gateway's tests: three members in this JVM on free
 * loopback ports, with the operations a fail-over test needs.
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

    public void stop(final int memberId)
    {
        cluster.stop(memberId);
    }

    public void close()
    {
        cluster.close();
    }
}
