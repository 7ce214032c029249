package io.bourse.store;

import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.ControlledFragmentAssembler;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;
import io.aeron.cluster.service.ClusterCounters;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.logbuffer.Header;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.LogRetention;
import io.bourse.cluster.StateHashCheckpoints;
import io.bourse.engine.Engine;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * The store's duty cycle: replays the node's log recording from the archive (following it live), applies each
 * committed message to its own engine ({@link LogApplier}) and commits the resulting rows with the fence in batches,
 * written by a {@link CommitThread} while this thread fills the next batch.
 * <p>
 * Exactly once by construction: a row is written only for a message after the fence, and the fence moves in the same
 * transaction as the rows; the engine is restored from the store's snapshot (taken at a fence, stored in the same
 * transaction) and brought to the fence by replaying without writing. Only log at or below the cluster's commit
 * position is read, so a message that a leader change could still remove is never written.
 */
final class StoreAgent implements Agent, ControlledFragmentHandler
{
    private static final long RETRY_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final int FRAGMENT_LIMIT = 1024;
    private static final long NOT_BEHIND = Long.MIN_VALUE;

    private final Store.Context context;
    private final StoreDatabase database;
    private final Store.Progress progress;
    private final HistoryWriter writer;
    private final BatchCommitter committer;
    private CommitThread commits;
    /**
     * The batch to fill after the one being filled; null while it is with the commit thread.
     */
    private HistoryBatch spare;
    private boolean committing;
    private final LogApplier applier;
    private final ControlledFragmentAssembler assembler = new ControlledFragmentAssembler(this);
    private final ControlledFragmentHandler fragmentHandler = this::onRawFragment;
    private boolean midMessage;
    private final ExpandableArrayBuffer snapshotScratch = new ExpandableArrayBuffer(1 << 20);
    private Aeron aeron;
    private AeronArchive archive;
    private Subscription subscription;
    private Image image;
    private int commitPositionCounterId = CountersReader.NULL_COUNTER_ID;

    /**
     * Committed: every row up to here is in the database.
     */
    private long fenceLogPosition;
    private long snapshotLogPosition;
    /**
     * Handed to the commit thread: the fence and snapshot position once the batch in flight is committed.
     */
    private long sealedLogPosition;
    private long sealedSnapshotLogPosition;
    private long appliedLogPosition;
    private long appliedTimestampNs;
    /**
     * The time of the last message the store had applied when it wrote its fence ({@link #otherHistoryAtFence}).
     */
    private long timestampAtFenceNs;
    /**
     * Whether the replay since the snapshot has passed the fence (or started at it): checked then.
     */
    private boolean fenceReached;
    /**
     * Whether the replay since the snapshot has applied a message (a session message or a timer event).
     */
    private boolean appliedSinceSnapshot;
    private long nextRetryNs;
    private final long maxDeferralNs;
    private long behindSinceNs = NOT_BEHIND;

    StoreAgent(final Store.Context context, final StoreDatabase database, final Store.Progress progress)
    {
        this.context = context;
        this.database = database;
        this.progress = progress;
        try
        {
            writer = new HistoryWriter(database, new HistoryBatch());
            committer = new BatchCommitter(database);
        }
        catch (final SQLException ex)
        {
            throw new StoreException("store database " + database.description(), ex);
        }
        spare = new HistoryBatch();
        applier = new LogApplier(writer, this::onCheckpoint);
        maxDeferralNs = TimeUnit.MILLISECONDS.toNanos(context.maxDeferralMs());
    }

    public void onStart()
    {
        if (context.threadNice() > 0)
        {
            final String refused = ThreadNice.apply(context.threadNice());
            if (refused != null)
            {
                context.log().println("bourse store: runs at normal priority (" + refused + ")");
            }
        }
        try
        {
            final StoreDatabase.Fence fence = database.fence();
            fenceLogPosition = fence.logPosition();
            snapshotLogPosition = fence.snapshotLogPosition();
            appliedTimestampNs = fence.timestampNs();
            timestampAtFenceNs = fence.timestampNs();
            fenceReached = snapshotLogPosition >= fenceLogPosition;
            appliedSinceSnapshot = false;
            if (snapshotLogPosition > 0)
            {
                loadSnapshot();
            }
            appliedLogPosition = snapshotLogPosition;
            sealedLogPosition = fenceLogPosition;
            sealedSnapshotLogPosition = snapshotLogPosition;
            progress.fence(fenceLogPosition, timestampAtFenceNs);
            context.log().printf("bourse store: %s, fence at log position %,d, restoring from %s%n",
                database.description(), fenceLogPosition,
                snapshotLogPosition == 0 ? "the start of the log" : "its snapshot at log position " +
                    String.format("%,d", snapshotLogPosition));
        }
        catch (final SQLException ex)
        {
            throw fail(new StoreException("store database " + database.description(), ex));
        }
        commits = new CommitThread(committer, context.threadNice(), roleName() + "-commit");
        // Aeron's default handler exits the JVM when the media driver stops answering: in the node's process that
        // would take the node down with the store. The store stops instead (and a restart resumes from the fence).
        aeron = Aeron.connect(new Aeron.Context()
            .aeronDirectoryName(context.aeronDirectoryName())
            .errorHandler(progress::failed)
            .subscriberErrorHandler(progress::failed));
    }

    private void loadSnapshot() throws SQLException
    {
        try (PreparedStatement select = database.connection().prepareStatement(
            "SELECT log_position, engine, clients FROM store_snapshot WHERE id = 1");
            ResultSet rows = select.executeQuery())
        {
            if (!rows.next() || rows.getLong(1) != snapshotLogPosition)
            {
                throw new IllegalStateException("store database " + database.description() +
                    ": the fence names a snapshot at log position " + snapshotLogPosition + " that is not there");
            }
            applier.load(rows.getBytes(2), rows.getBytes(3));
        }
        database.connection().commit();
    }

    public int doWork()
    {
        if (progress.state() == StoreState.FAILED)
        {
            // Failed outside this duty cycle (the Aeron client's error handler).
            throw new AgentTerminationException(progress.failure());
        }
        try
        {
            final int reaped = reapCommitted();
            if (image == null)
            {
                return reaped + connect();
            }
            final CountersReader counters = aeron.countersReader();
            if (counters.getCounterState(commitPositionCounterId) != CountersReader.RECORD_ALLOCATED)
            {
                disconnect();
                return 0;
            }
            final long committed = counters.getCounterValue(commitPositionCounterId);
            progress.committed(committed);
            if (defers(committed))
            {
                return reaped;
            }
            if (committing && writer.pendingRows() >= context.batchRows())
            {
                // Both batches full: wait for the commit thread rather than grow this one.
                return reaped;
            }
            final int fragments = image.boundedControlledPoll(fragmentHandler, committed, FRAGMENT_LIMIT);
            if (progress.state() == StoreState.FAILED)
            {
                // Failed within the poll (Aeron hands a handler's exception to the client's error handler, and a
                // refused history stops it): nothing more of this duty cycle, no seal.
                throw new AgentTerminationException(progress.failure());
            }
            final boolean caughtUp = fragments < FRAGMENT_LIMIT;
            // Padding at the end of a term is skipped without a fragment: move over it, so that the fence (and the
            // lag) reaches the commit position even when no message follows.
            final long imagePosition = image.position();
            if (!midMessage && imagePosition > appliedLogPosition)
            {
                if (!fenceReached && imagePosition > fenceLogPosition)
                {
                    // The fence lies within the padding: checked before the store moves over it (and seals there).
                    final IllegalStateException otherHistory = otherHistoryAtFence();
                    if (otherHistory != null)
                    {
                        throw otherHistory;
                    }
                }
                appliedLogPosition = imagePosition;
            }
            if (appliedLogPosition >= fenceLogPosition && progress.state() == StoreState.RESTORING)
            {
                progress.state(StoreState.FOLLOWING);
            }
            if (!committing && appliedLogPosition > sealedLogPosition &&
                (writer.pendingRows() >= context.batchRows() || caughtUp))
            {
                seal();
            }
            if (fragments == 0 && image.isClosed())
            {
                disconnect();
            }
            return reaped + fragments;
        }
        catch (final RuntimeException ex)
        {
            throw fail(ex);
        }
    }

    /**
     * Whether to stand aside this duty cycle: behind the log for less than the deferral limit while the machine is
     * saturated. Once past the limit, the store follows until it has caught up; only then may it defer again.
     */
    private boolean defers(final long committed)
    {
        if (maxDeferralNs == 0 || progress.state() == StoreState.RESTORING)
        {
            return false;
        }
        final long nowNs = System.nanoTime();
        if (committed <= appliedLogPosition)
        {
            behindSinceNs = NOT_BEHIND;
        }
        else if (behindSinceNs == NOT_BEHIND)
        {
            behindSinceNs = nowNs;
        }
        final boolean defers = behindSinceNs != NOT_BEHIND && nowNs - behindSinceNs < maxDeferralNs &&
            context.headroom().isSaturated(nowNs);
        final StoreState state = progress.state();
        if (defers && state == StoreState.FOLLOWING)
        {
            progress.state(StoreState.DEFERRING);
        }
        else if (!defers && state == StoreState.DEFERRING)
        {
            progress.state(StoreState.FOLLOWING);
        }
        return defers;
    }

    private Action onRawFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final Action action = assembler.onFragment(buffer, offset, length, header);
        if (action != Action.ABORT)
        {
            midMessage = (header.flags() & FrameDescriptor.END_FRAG_FLAG) == 0;
        }
        return action;
    }

    /**
     * The leader's hashes at a snapshot's position, compared with the store's engine there: the history written is
     * the exchange's only while they agree.
     */
    private void onCheckpoint(final int result, final StateHashCheckpoints checkpoint)
    {
        progress.checkpoint(result);
        if (result == StateHashCheckpoints.AGREED)
        {
            context.log().printf("bourse store: state at log position %,d agrees with member %d's " +
                "(engine hash %016x)%n", checkpoint.logPosition(), checkpoint.memberId(), checkpoint.engineStateHash());
        }
        else if (result == StateHashCheckpoints.DIVERGED)
        {
            context.log().printf("bourse store: STATE DIVERGED at log position %,d: the store's engine hash %016x, " +
                "member %d's %016x; the history it writes may not be the exchange's: check that the store runs the " +
                "same version as the node%n", checkpoint.logPosition(), checkpoint.ownEngineStateHash(),
                checkpoint.memberId(), checkpoint.engineStateHash());
        }
    }

    public Action onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final long position = header.position();
        if (!fenceReached && position > fenceLogPosition)
        {
            final IllegalStateException otherHistory = otherHistoryAtFence();
            if (otherHistory != null)
            {
                progress.failed(otherHistory);
                return Action.ABORT;
            }
        }
        writer.writing(position > fenceLogPosition);
        writer.logPosition(position);
        if (applier.onLogMessage(buffer, offset, length))
        {
            appliedTimestampNs = applier.lastTimestampNs();
            appliedSinceSnapshot = true;
        }
        appliedLogPosition = position;
        return writer.pendingRows() >= context.batchRows() ? Action.BREAK : Action.CONTINUE;
    }

    /**
     * Before the first message after the fence is applied, or the store moves past the fence over padding (so before
     * anything after the fence is written or sealed): the replay from the snapshot has applied the log up to the
     * fence, and the last message it applied must be the one the store had applied when it wrote the fence (the
     * cluster's timestamps, in nanoseconds, differ between histories). A journal of another history that has grown
     * past the fence (the node's data directory wiped or restored from another backup, the database kept) would
     * otherwise have its rows written after those of the history the database holds. Not told apart: a journal with
     * no session message or timer event between the store's snapshot and its fence (a snapshot at the fence: a store
     * stopped, or idle, since it wrote one).
     *
     * @return why the store stops, or null when the journal is the database's up to the fence.
     */
    private IllegalStateException otherHistoryAtFence()
    {
        if (appliedSinceSnapshot && appliedTimestampNs != timestampAtFenceNs)
        {
            return new IllegalStateException("the node's journal is not the one the database was written from: its " +
                "last message up to the store's fence at log position " + fenceLogPosition + " has the time " +
                appliedTimestampNs + " ns where the database's has " + timestampAtFenceNs + " ns (another cluster's " +
                "journal, or this node's data directory wiped or restored from another backup, the database kept). " +
                "Point the store at the database written from this journal, or at an empty one");
        }
        fenceReached = true;
        return null;
    }

    /**
     * Close the batch at the last message applied and hand it to the commit thread; fill the other meanwhile. Every so
     * much log, the batch carries a snapshot of the store's engine at its fence.
     */
    private void seal()
    {
        byte[] engineSnapshot = null;
        byte[] clientsSnapshot = null;
        long newSnapshotLogPosition = sealedSnapshotLogPosition;
        if (appliedLogPosition - sealedSnapshotLogPosition >= context.snapshotLogBytes())
        {
            engineSnapshot = applier.engineSnapshot(snapshotScratch);
            clientsSnapshot = applier.clientsSnapshot();
            newSnapshotLogPosition = appliedLogPosition;
        }
        final HistoryBatch batch = writer.seal(
            appliedLogPosition, appliedTimestampNs, newSnapshotLogPosition, engineSnapshot, clientsSnapshot);
        sealedLogPosition = appliedLogPosition;
        sealedSnapshotLogPosition = newSnapshotLogPosition;
        writer.startBatch(spare);
        spare = null;
        commits.submit(batch);
        committing = true;
    }

    /**
     * Take back the batch in flight once it is committed: the fence moves, and with a new snapshot the journal before
     * it may go.
     *
     * @return 1 when a batch came back.
     */
    private int reapCommitted()
    {
        if (!committing)
        {
            return 0;
        }
        final HistoryBatch batch = commits.poll();
        if (batch == null)
        {
            return 0;
        }
        committing = false;
        spare = batch;
        fenceLogPosition = batch.fenceLogPosition;
        if (batch.snapshotLogPosition != snapshotLogPosition)
        {
            snapshotLogPosition = batch.snapshotLogPosition;
            // After the commit: until then the journal must still be kept from the previous snapshot.
            LogRetention.floor(context.nodeDataDir(), snapshotLogPosition);
        }
        progress.committedBatch(
            fenceLogPosition, batch.fenceTimestampNs, committer.tradesWritten(), committer.rowsWritten());
        return 1;
    }

    /**
     * Find the node's log recording and the commit position counter, and start a replay that follows the recording
     * from where the store's engine is.
     *
     * @return 1 when connected.
     */
    private int connect()
    {
        final long nowNs = System.nanoTime();
        if (nowNs < nextRetryNs)
        {
            return 0;
        }
        nextRetryNs = nowNs + RETRY_INTERVAL_NS;
        final CountersReader counters = aeron.countersReader();
        commitPositionCounterId = ClusterCounters.find(
            counters, ConsensusModule.Configuration.COMMIT_POSITION_TYPE_ID, context.clusterId());
        final long recordingId = logRecordingId();
        if (commitPositionCounterId == CountersReader.NULL_COUNTER_ID || recordingId == Aeron.NULL_VALUE)
        {
            return 0;
        }
        if (archive == null)
        {
            archive = AeronArchive.connect(new AeronArchive.Context()
                .aeron(aeron)
                .ownsAeronClient(false)
                .controlRequestChannel(ClusterNode.ARCHIVE_LOCAL_CONTROL_CHANNEL)
                .controlResponseChannel(ClusterNode.ARCHIVE_LOCAL_CONTROL_CHANNEL));
        }
        final long startPosition = archive.getStartPosition(recordingId);
        if (startPosition > appliedLogPosition)
        {
            throw new IllegalStateException("the node's journal starts at log position " + startPosition +
                " but the store needs it from " + appliedLogPosition + " (its " +
                (appliedLogPosition == 0 ? "database is empty" : "snapshot") + "): the log between was purged. " +
                "The node keeps the log the store needs while " + LogRetention.FILE_NAME + " is in its data " +
                "directory; a store on an empty database needs a node whose journal was never purged");
        }
        final long stopPosition = archive.getStopPosition(recordingId);
        final long recordedPosition =
            stopPosition != AeronArchive.NULL_POSITION ? stopPosition : archive.getRecordingPosition(recordingId);
        if (recordedPosition != AeronArchive.NULL_POSITION && recordedPosition < fenceLogPosition)
        {
            // A node's journal always holds its log up to its commit position, past every fence a store wrote from it
            // (elections truncate only what was not committed): this journal is not the one the database was written
            // from, or not yet all of it.
            throw new IllegalStateException("the node's journal ends at log position " + recordedPosition +
                ", before the store's fence at " + fenceLogPosition + ": the database holds rows of log this node " +
                "does not have: another cluster's journal, or this one restored from an older backup. Point the " +
                "store at the database written from this journal, or at an empty one; a cluster member restored " +
                "from a backup gets the rest of the log from the others, and the store starts again by itself " +
                "once it has");
        }
        if (stopPosition != AeronArchive.NULL_POSITION && stopPosition <= appliedLogPosition)
        {
            // The member stopped recording its log where the store is: an election is under way (it goes on recording
            // once it has a leader again) or the member is stopping. The archive refuses to replay from the end of a
            // stopped recording, so the store waits for more log instead of failing.
            progress.state(StoreState.WAITING_FOR_NODE);
            return 0;
        }
        final String channel = CommonContext.IPC_CHANNEL;
        subscription = archive.replay(
            recordingId, appliedLogPosition, AeronArchive.REPLAY_ALL_AND_FOLLOW, channel, context.replayStreamId());
        final long deadlineNs = nowNs + TimeUnit.SECONDS.toNanos(10);
        while (subscription.imageCount() == 0)
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("the archive's replay of the log recording " + recordingId +
                    " did not connect within 10 s");
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AgentTerminationException(ex);
            }
        }
        image = subscription.imageAtIndex(0);
        progress.state(appliedLogPosition < fenceLogPosition ? StoreState.RESTORING : StoreState.FOLLOWING);
        return 1;
    }

    private long logRecordingId()
    {
        final File clusterDir = new File(context.nodeDataDir(), "cluster");
        if (!new File(clusterDir, RecordingLog.RECORDING_LOG_FILE_NAME).exists())
        {
            return Aeron.NULL_VALUE;
        }
        try (RecordingLog recordingLog = new RecordingLog(clusterDir, false))
        {
            return recordingLog.findLastTermRecordingId();
        }
    }

    /**
     * The replay ended (the node stopped): replay again from the last whole message applied once the node is back.
     */
    private void disconnect()
    {
        CloseHelper.quietClose(subscription);
        subscription = null;
        image = null;
        CloseHelper.quietClose(archive);
        archive = null;
        // A message cut short by the end of the replay is read again whole.
        assembler.clear();
        midMessage = false;
        progress.state(StoreState.WAITING_FOR_NODE);
        nextRetryNs = System.nanoTime() + RETRY_INTERVAL_NS;
    }

    private RuntimeException fail(final RuntimeException ex)
    {
        progress.failed(ex);
        return new AgentTerminationException(ex);
    }

    public void onClose()
    {
        CloseHelper.quietCloseAll(subscription, archive, aeron);
        if (commits != null)
        {
            commits.close(context.log());
        }
        committer.close();
    }

    public String roleName()
    {
        return "bourse-store";
    }

    long engineStateHash()
    {
        return applier.engineStateHash();
    }

    Engine engine()
    {
        return applier.engine();
    }

    long appliedLogPosition()
    {
        return appliedLogPosition;
    }
}
