package io.bourse.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * State hash checkpoints in the log: a node that recovers from a snapshot compares the state it recovered with the
 * hashes sent when the snapshot was taken, and says when they disagree. (Followers comparing theirs with the leader's
 * live: {@link ThreeNodeClusterTest}.)
 */
class StateHashCheckpointTest
{
    @Test
    void aRestartedNodeComparesTheStateItRecoveredWithTheCheckpointInItsLog()
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            final ReferenceWorkload workload = new ReferenceWorkload(21);
            cluster.tradeThenCrash(workload, true);
            cluster.start(0);
            cluster.awaitLeader();
            cluster.awaitSameState();

            assertEquals(workload.reference.stateHash(), cluster.node(0).service().engine().stateHash(),
                "seed " + workload.seed());
            assertEquals(1, cluster.node(0).stateHashesAgreed(), cluster.logLines().toString());
            assertEquals(0, cluster.node(0).stateHashesDiverged(), cluster.logLines().toString());
            assertTrue(cluster.logLines().stream().anyMatch(line -> line.contains("agrees with member 0's")),
                cluster.logLines().toString());
        }
    }

    @ParameterizedTest(name = "the engine''s hash: {0}")
    @ValueSource(booleans = {false, true})
    void aCheckpointWhoseHashesAreNotTheNodesIsReportedAsDivergence(final boolean engine) throws IOException
    {
        try (TestCluster cluster = new TestCluster(1))
        {
            cluster.tradeThenCrash(new ReferenceWorkload(22), true);
            final JournalFiles journal = new JournalFiles(cluster.dataDir(0));
            final File[] log = journal.segmentFiles(journal.logRecordingId());
            assertEquals(1, log.length, "the log fits in one segment file");
            final long position = JournalFiles.alterCheckpointHash(log[0], engine);
            assertEquals(journal.latestServiceSnapshot().logPosition, position, "the checkpoint of the snapshot");

            cluster.start(0);
            cluster.awaitLeader();
            cluster.awaitSameState();

            assertEquals(1, cluster.node(0).stateHashesDiverged(), cluster.logLines().toString());
            assertEquals(0, cluster.node(0).stateHashesAgreed(), cluster.logLines().toString());
            assertTrue(cluster.logLines().stream().anyMatch(line ->
                line.contains(String.format("STATE DIVERGED at log position %,d", position))),
                cluster.logLines().toString());
        }
    }
}
