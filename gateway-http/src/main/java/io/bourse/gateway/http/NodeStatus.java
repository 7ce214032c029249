package io.bourse.gateway.http;

/**
 * What the gateway can tell about the node it serves, for {@code /health}, {@code /metrics} and the monitor page.
 * An embedded gateway reads its node directly; a separate gateway knows only what the cluster client sees.
 */
public interface NodeStatus
{
    /**
     * @return the node's cluster role (LEADER, FOLLOWER, CANDIDATE), or null when not known here.
     */
    String role();

    /**
     * @return bytes of journal on disk, or -1 when not known here.
     */
    long journalBytes();

    /**
     * @return milliseconds since the last snapshot this process saw taken or loaded, or -1 when none.
     */
    long lastSnapshotAgeMs();

    /**
     * @return snapshots at whose log position this process's member had the state hashes another member (or itself
     * before a restart) had there, since it started; -1 when not known here.
     */
    long stateHashesAgreed();

    /**
     * @return snapshots at which it did not: its state went another way; -1 when not known here.
     */
    long stateHashesDiverged();

    /**
     * Nothing known: a gateway in its own process.
     */
    NodeStatus UNKNOWN = new NodeStatus()
    {
        public String role()
        {
            return null;
        }

        public long journalBytes()
        {
            return -1;
        }

        public long lastSnapshotAgeMs()
        {
            return -1;
        }

        public long stateHashesAgreed()
        {
            return -1;
        }

        public long stateHashesDiverged()
        {
            return -1;
        }
    };
}
