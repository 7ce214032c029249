package io.bourse.gateway.http;

import io.bourse.protocol.codec.RejectReason;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The gateway's counters and latency histograms (HdrHistogram, recorded without allocation from any thread).
 * {@link #sample(long)} runs once a second on the gateway thread and keeps the rates and last-interval
 * percentiles that {@code /metrics} and the monitor page show.
 */
final class GatewayMetrics
{
    /**
     * Latency stages: the whole request as the server sees it; the gateway's command to its answer; and that split at
     * the cluster's timestamp of the command (nanosecond cluster clock, comparable on one machine or with synced
     * clocks): to the command being sequenced, then from there to the answer (commit, engine, egress).
     */
    static final String[] STAGES = { "http_request", "cluster_round_trip", "to_sequenced", "sequenced_to_answer" };
    private static final long MAX_NS = TimeUnit.SECONDS.toNanos(60);

    final LongAdder httpRequests = new LongAdder();
    final LongAdder httpErrors = new LongAdder();
    final LongAdder rateLimited = new LongAdder();
    final LongAdder authFailures = new LongAdder();
    final LongAdder commandsSent = new LongAdder();
    final LongAdder commandsBackPressured = new LongAdder();
    /**
     * Times the gateway missed event batches the node no longer held, and commands whose answers were among them.
     */
    final LongAdder eventGaps = new LongAdder();
    final LongAdder answersLost = new LongAdder();
    /**
     * Commands answered 504 OUTCOME_UNKNOWN because no answer came within the command timeout.
     */
    final LongAdder commandsTimedOut = new LongAdder();
    final LongAdder batches = new LongAdder();
    final LongAdder wsMessages = new LongAdder();
    final LongAdder wsDropped = new LongAdder();
    /**
     * WebSocket connections closed for not taking an answer to one of their own messages (see
     * {@link GatewayAgent#WS_ANSWERS_QUEUE_BYTES}).
     */
    final LongAdder wsSlowConsumers = new LongAdder();
    /**
     * WebSocket upgrades refused at the connection limits.
     */
    final LongAdder wsRefused = new LongAdder();
    /**
     * Cancels a WebSocket connection asked for when it closed that failed, or whose outcome is unknown.
     */
    final LongAdder cancelOnDisconnectFailed = new LongAdder();
    final AtomicLongArray rejects = new AtomicLongArray(256);

    private final Recorder[] recorders = new Recorder[STAGES.length];
    private final Histogram[] intervals = new Histogram[STAGES.length];
    private final Histogram[] totals = new Histogram[STAGES.length];

    private volatile double commandsPerSecond;
    private volatile double batchesPerSecond;
    private volatile long[][] lastPercentilesNs = new long[STAGES.length][4];
    private volatile long[][] totalPercentilesNs = new long[STAGES.length][4];
    private long lastSampleNs;
    private long lastCommands;
    private long lastBatches;

    GatewayMetrics()
    {
        for (int i = 0; i < STAGES.length; i++)
        {
            recorders[i] = new Recorder(MAX_NS, 3);
            totals[i] = new Histogram(MAX_NS, 3);
        }
    }

    void recordHttp(final long ns)
    {
        record(0, ns);
    }

    void recordRoundTrip(final long ns, final long toSequencedNs, final long sequencedToAnswerNs)
    {
        record(1, ns);
        record(2, toSequencedNs);
        record(3, sequencedToAnswerNs);
    }

    private void record(final int stage, final long ns)
    {
        recorders[stage].recordValue(Math.max(0, Math.min(ns, MAX_NS)));
    }

    void reject(final RejectReason reason)
    {
        rejects.incrementAndGet(reason.value() & 255);
    }

    /**
     * @return true when a sample was taken.
     */
    boolean sample(final long nowNs)
    {
        if (nowNs - lastSampleNs < TimeUnit.SECONDS.toNanos(1))
        {
            return false;
        }
        final double seconds = lastSampleNs == 0 ? 1 : (nowNs - lastSampleNs) / 1e9;
        final long commands = commandsSent.sum();
        final long batchCount = batches.sum();
        commandsPerSecond = (commands - lastCommands) / seconds;
        batchesPerSecond = (batchCount - lastBatches) / seconds;
        lastCommands = commands;
        lastBatches = batchCount;
        lastSampleNs = nowNs;
        final long[][] last = new long[STAGES.length][];
        final long[][] total = new long[STAGES.length][];
        for (int i = 0; i < STAGES.length; i++)
        {
            intervals[i] = recorders[i].getIntervalHistogram(intervals[i]);
            totals[i].add(intervals[i]);
            last[i] = percentiles(intervals[i]);
            total[i] = percentiles(totals[i]);
        }
        lastPercentilesNs = last;
        totalPercentilesNs = total;
        return true;
    }

    double commandsPerSecond()
    {
        return commandsPerSecond;
    }

    double batchesPerSecond()
    {
        return batchesPerSecond;
    }

    /**
     * @return p50, p90, p99, max of the stage over the last second.
     */
    long[] lastPercentilesNs(final int stage)
    {
        return lastPercentilesNs[stage];
    }

    /**
     * @return p50, p90, p99, max of the stage since start.
     */
    long[] totalPercentilesNs(final int stage)
    {
        return totalPercentilesNs[stage];
    }

    private static long[] percentiles(final Histogram histogram)
    {
        return new long[]{ histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(90),
            histogram.getValueAtPercentile(99), histogram.getMaxValue() };
    }
}
