package io.bourse.cluster;

import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.cluster.IgnoredReason;
import io.bourse.protocol.codec.Side;
import io.bourse.protocol.codec.TradingState;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kill -9 under load: one node runs in a child process ({@link NodeProcess}); this test's client keeps a window of
 * commands in flight (limit orders with unique client order ids, cancels, deposits with unique transaction ids),
 * kills the process at a seeded random moment (in half the rounds after asking for a snapshot at another random
 * moment; in every third round after the process has hung for a while, and in another third after it hung and then
 * went on: the client opens a new session beside the silent one, which races the old one's answers), restarts it on
 * the same data directory and carries on. A {@link Bystander} client trades alongside throughout, as other gateways
 * would.
 * <p>
 * How the check proves that no acknowledged command is lost and none is applied twice: every command the client
 * sends is also kept here, numbered by its request sequence. After each restart, before this test polls the client
 * again, the recovered node reports its engine's state hash and the highest request sequence {@code k} it has
 * applied for this client, all taken at one log position. (The client's media driver may meanwhile deliver commands
 * the client sent before the kill: {@code k} counts any the node has applied.) {@code k} must be at least the
 * highest request sequence the client had seen answered before the kill, and a reference {@link Engine} that applies
 * the kept commands {@code 1..k} in request order, once each, must have the same state hash: the recovered state is
 * exactly "every command up to k, once, in order", which contains every acknowledged one. Commands after k were not
 * committed; the client re-sends them and the node, deduplicating by request sequence, applies each once. The client
 * must see the answers to its requests exactly once and in sequence order (a command applied twice would be answered
 * twice), and at the end the node's hash must equal the reference's after every command sent.
 */
class CrashRecoveryTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(90);
    private static final int WINDOW = 256;
    private static final int BTC = 1;
    private static final int USD = 2;
    private static final int BTC_USD = 1;
    private static final int ACCOUNTS = 20;
    private static final int PAGE_SIZE = 4096;
    // Past two of the client's 1 s re-send and session probe timeouts, short of its 3 s session-lost timeout.
    private static final long STALL_NS = TimeUnit.MILLISECONDS.toNanos(2_500);

    @Test
    void everyAcknowledgedCommandSurvivesKillMinus9()
    {
        run(Integer.getInteger("bourse.crash.rounds", 3));
    }

    @Test
    @Tag("slow")
    void everyAcknowledgedCommandSurvivesTwentyKills()
    {
        run(Math.max(20, Integer.getInteger("bourse.crash.rounds", 20)));
    }

    /**
     * A kill can stop the journal's {@code write} between two pages (see {@link TornWriteRepair}): here the write is
     * torn by hand, as the kernel would tear it, after a kill that followed load. The node must start by itself,
     * cut the torn fragment, and hold exactly the state it had before the kill.
     */
    @Test
    void aJournalWriteTornByTheKillIsCutAtRestart() throws IOException
    {
        final long seed = Long.getLong("bourse.crash.seed", System.nanoTime());
        System.out.println("CrashRecoveryTest: seed " + seed + " (rerun with -Dbourse.crash.seed=" + seed + ")");
        final Scratch scratch = Scratch.create("bourse-torn-", seed);
        final Workload workload = new Workload(new SplittableRandom(seed));
        ChildNode child = null;
        ExchangeClient client = null;
        try
        {
            child = scratch.startNode();
            client = scratch.connect(workload);
            workload.setUp(client);
            final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < endNs)
            {
                workload.sendAndPoll(client);
            }
            final ExchangeClient loadClient = client;
            await("seed " + seed + ": every command answered", () ->
            {
                loadClient.doWork();
                return workload.answeredUpTo == workload.sentCount();
            });
            final NodeState before = child.state(client.clientId());
            child.kill();

            final JournalFiles journal = new JournalFiles(scratch.dataDir());
            final File[] segments = journal.segmentFiles(journal.logRecordingId());
            final File lastSegment = segments[segments.length - 1];
            assertFalse(TornWriteRepair.isLastFragmentTorn(lastSegment, 0),
                "the archive recorded the last fragment with its checksum");
            final long tornAt = tearWriteAfterLastFragment(lastSegment);
            assertTrue(TornWriteRepair.isLastFragmentTorn(lastSegment, 0), "the torn fragment is recognised");

            child = scratch.startNode();
            assertTrue(child.hasPrinted("a write torn by the crash (never committed): cutting it"),
                "seed " + seed + ": the node said it cut the torn write at offset " + tornAt);
            final NodeState after = child.state(client.clientId());
            assertEquals(before.lastRequestSequence(), after.lastRequestSequence(), "seed " + seed);
            assertEquals(before.stateHash(), after.stateHash(), "seed " + seed + ": state after the restart");
            child.stop();
        }
        finally
        {
            scratch.close(client, child, false);
        }
    }

    /**
     * After the segment's last fragment, write the first part of one more: a data frame that spans the next page
     * boundary, with only the bytes before that boundary written, as a {@code write} the kernel stopped between
     * two pages leaves it.
     *
     * @return the torn fragment's offset in the file.
     */
    private static long tearWriteAfterLastFragment(final File segment) throws IOException
    {
        try (RandomAccessFile file = new RandomAccessFile(segment, "rw"))
        {
            final ByteBuffer header = ByteBuffer.allocate(DataHeaderFlyweight.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            long offset = 0;
            while (true)
            {
                file.seek(offset);
                final int frameLength = Integer.reverseBytes(file.readInt());
                if (frameLength <= 0)
                {
                    break;
                }
                offset += BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT);
            }
            final long pageEnd = (offset / PAGE_SIZE + 1) * PAGE_SIZE;
            final int frameLength = (int)(pageEnd - offset) + 256;
            header.putInt(DataHeaderFlyweight.FRAME_LENGTH_FIELD_OFFSET, frameLength)
                .put(DataHeaderFlyweight.FLAGS_FIELD_OFFSET, (byte)DataHeaderFlyweight.BEGIN_AND_END_FLAGS)
                .putShort(DataHeaderFlyweight.TYPE_FIELD_OFFSET, (short)DataHeaderFlyweight.HDR_TYPE_DATA);
            final byte[] writtenPart = new byte[(int)(pageEnd - offset) - DataHeaderFlyweight.HEADER_LENGTH];
            Arrays.fill(writtenPart, (byte)0x5A);
            if (file.length() < pageEnd + PAGE_SIZE)
            {
                file.setLength(pageEnd + PAGE_SIZE);
            }
            file.seek(offset);
            file.write(header.array());
            file.write(writtenPart);
            return offset;
        }
    }

    private static void run(final int rounds)
    {
        final long seed = Long.getLong("bourse.crash.seed", System.nanoTime());
        System.out.println("CrashRecoveryTest: seed " + seed + " (rerun with -Dbourse.crash.seed=" + seed + "), " +
            rounds + " rounds");
        final SplittableRandom random = new SplittableRandom(seed);
        final Scratch scratch = Scratch.create("bourse-crash-", seed);
        final Workload workload = new Workload(random);
        ChildNode child = null;
        ExchangeClient client = null;
        Bystander bystander = null;
        boolean failed = false;
        try
        {
            child = scratch.startNode();
            client = scratch.connect(workload);
            workload.setUp(client);
            bystander = new Bystander();
            bystander.client = scratch.connect(bystander);
            workload.bystander = bystander;
            long recoveredPrefix = 0;
            for (int round = 1; round <= rounds; round++)
            {
                final String where = "seed " + seed + ", round " + round;
                // Answers up to the recovered prefix may come from the restarted node's replay of its log: wait for
                // one the restarted node gave to a command it had not applied before, so the kill hits live load.
                final long resumeStartNs = System.nanoTime();
                awaitProgress(client, workload, Math.max(workload.answeredUpTo, recoveredPrefix), where);
                final long resumeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumeStartNs);
                final long loadMs = 100 + random.nextInt(1_500);
                final long startNs = System.nanoTime();
                final long endNs = startNs + TimeUnit.MILLISECONDS.toNanos(loadMs);
                // Half the rounds also ask for a snapshot at some point, so that kills land before, during and after
                // snapshots and recovery runs from a snapshot plus a log tail as well as from the log alone.
                final boolean snapshotRequested = random.nextBoolean();
                long snapshotAtNs = snapshotRequested ?
                    startNs + TimeUnit.MILLISECONDS.toNanos(random.nextLong(loadMs)) : Long.MAX_VALUE;
                while (System.nanoTime() < endNs)
                {
                    workload.sendAndPoll(client);
                    if (System.nanoTime() >= snapshotAtNs && client.requestSnapshot())
                    {
                        snapshotAtNs = Long.MAX_VALUE;
                    }
                }

                // Every third round the node hangs before it is killed (a node stuck in a pause, killed by its
                // supervisor) while the clients carry on and re-send into it; in another third it hangs as long and
                // then goes on (a long pause), for a while before the kill.
                final boolean stalled = round % 3 == 2;
                final boolean paused = round % 3 == 0;
                if (stalled || paused)
                {
                    child.pause();
                    final long stallEndNs = System.nanoTime() + STALL_NS;
                    while (System.nanoTime() < stallEndNs)
                    {
                        workload.sendAndPoll(client);
                    }
                }
                if (paused)
                {
                    child.resume();
                    final long goOnEndNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
                    while (System.nanoTime() < goOnEndNs)
                    {
                        workload.sendAndPoll(client);
                    }
                }
                final long acknowledged = workload.answeredUpTo;
                final long sent = workload.sentCount();
                child.kill();
                final long restartStartNs = System.nanoTime();
                child = scratch.startNode();
                final long restartMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartStartNs);
                final NodeState recovered = child.state(client.clientId());
                final long prefix = recovered.lastRequestSequence();
                recoveredPrefix = prefix;
                assertTrue(prefix >= acknowledged && prefix <= sent, where + ": the node recovered up to request " +
                    prefix + " of " + sent + " sent, " + acknowledged + " acknowledged");
                workload.applyReferenceUpTo(prefix);
                assertEquals(workload.referenceHash(), recovered.stateHash(), where + ": recovered state (" +
                    recovered.openOrders() + " open orders) differs from requests 1.." + prefix + " applied once (" +
                    workload.referenceOpenOrders() + " open orders)");
                System.out.printf("CrashRecoveryTest round %d: client resumed in %d ms, killed after %d ms of load " +
                    "(snapshot requested: %b, hung first: %b, hung and went on: %b), %d commands acknowledged, " +
                    "%d sent; recovered exactly the first %d, restarted in %d ms%n",
                    round, resumeMs, loadMs, snapshotRequested, stalled, paused, acknowledged, sent, prefix, restartMs);
            }

            final String where = "seed " + seed + ", after the last round";
            final ExchangeClient finalClient = client;
            await(where + ": every command answered", () ->
            {
                workload.poll(finalClient);
                return workload.answeredUpTo == workload.sentCount();
            });
            final NodeState last = child.state(client.clientId());
            assertEquals(workload.sentCount(), last.lastRequestSequence(), where);
            workload.applyReferenceUpTo(workload.sentCount());
            assertEquals(workload.referenceHash(), last.stateHash(),
                where + ": the node's state is that of every command applied once");
            assertEquals(0, workload.ignoredRequests, where + ": requests the node ignored");
            child.stop();
        }
        catch (final RuntimeException | Error ex)
        {
            failed = true;
            throw ex;
        }
        finally
        {
            if (bystander != null && bystander.client != null)
            {
                bystander.client.close();
            }
            scratch.close(client, child, failed);
        }
    }

    private static void awaitProgress(
        final ExchangeClient client, final Workload workload, final long answeredUpTo, final String where)
    {
        await(where + ": the client reconnects and new commands are answered", () ->
        {
            workload.sendAndPoll(client);
            return workload.answeredUpTo > answeredUpTo;
        });
    }

    private static void await(final String what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out after " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS) +
                    " s waiting for " + what);
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /**
     * A test's scratch space: the node's data directory, its Aeron directory (in /dev/shm when there is one) and its
     * ports.
     */
    private record Scratch(Path baseDir, File dataDir, String aeronDir, int portBase)
    {
        static Scratch create(final String name, final long seed)
        {
            final Path baseDir;
            try
            {
                baseDir = Files.createTempDirectory("bourse-crash-test");
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
            final String aeronDir = new File(new File("/dev/shm").isDirectory() ? "/dev/shm" : baseDir.toString(),
                name + ProcessHandle.current().pid() + "-" + seed).getPath();
            return new Scratch(baseDir, baseDir.resolve("node").toFile(), aeronDir, TestCluster.freePortBase(1));
        }

        ChildNode startNode()
        {
            return ChildNode.start(dataDir, portBase, aeronDir);
        }

        ExchangeClient connect(final ExchangeClientListener listener)
        {
            return new ExchangeClient(new ExchangeClient.Context()
                .ingressEndpoints("0=localhost:" + portBase)
                .listener(listener));
        }

        /**
         * Close the client and kill the node if the test left them, then delete the directories, but keep the data
         * directory of a failed run: its journal and snapshots are what there is to inspect.
         */
        void close(final ExchangeClient client, final ChildNode child, final boolean failed)
        {
            if (client != null)
            {
                client.close();
            }
            if (child != null)
            {
                child.kill();
            }
            IoUtil.delete(new File(aeronDir), true);
            if (failed)
            {
                System.out.println("CrashRecoveryTest: the node's data directory is kept for inspection: " + dataDir);
            }
            else
            {
                IoUtil.delete(baseDir.toFile(), true);
            }
        }
    }

    /**
     * The seeded command stream, the copy of every command sent, the reference engine that follows behind, and
     * the client's listener checking that answers come once each and in request order.
     */
    private static final class Workload implements ExchangeClientListener
    {
        private final SplittableRandom random;
        private final CommandEncoder encoder = new CommandEncoder();
        private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        private final List<byte[]> sent = new ArrayList<>();
        private final Engine reference = new Engine(new EventEncoder((eventBuffer, offset, length) -> {}));
        private final CommandAdapter referenceAdapter = new CommandAdapter(reference);
        private final UnsafeBuffer commandBuffer = new UnsafeBuffer(new byte[0]);
        private ExchangeClient client;
        private Bystander bystander;
        private long referenceApplied;
        private long answeredUpTo;
        private long ignoredRequests;
        private long nextClientOrderId = 1;
        private long nextTransactionId = 1_000_000;

        Workload(final SplittableRandom random)
        {
            this.random = random;
        }

        long sentCount()
        {
            return sent.size();
        }

        void setUp(final ExchangeClient client)
        {
            this.client = client;
            send(encoder.defineAsset(buffer, 0, BTC, 8, "BTC"));
            send(encoder.defineAsset(buffer, 0, USD, 6, "USD"));
            send(encoder.defineInstrument(buffer, 0, BTC_USD, "BTC-USD", BTC, USD, 2, 1, 4, 1, 1, 0,
                0, 0, 1_000, 2_000, TradingState.OPEN));
            for (int account = 1; account <= ACCOUNTS; account++)
            {
                send(encoder.deposit(buffer, 0, nextTransactionId++, account, BTC, 1_000_000_000_000L));
                send(encoder.deposit(buffer, 0, nextTransactionId++, account, USD, 1_000_000_000_000_000L));
            }
        }

        /**
         * Top the window of unanswered commands up and poll the client (and the bystander, if any) once.
         */
        void sendAndPoll(final ExchangeClient client)
        {
            while (client.unansweredCount() < WINDOW)
            {
                sendNext();
            }
            poll(client);
        }

        void poll(final ExchangeClient client)
        {
            int work = client.doWork();
            if (bystander != null)
            {
                work += bystander.poll();
            }
            if (work == 0)
            {
                LockSupport.parkNanos(20_000);
            }
        }

        private void sendNext()
        {
            final long account = 1 + random.nextInt(ACCOUNTS);
            final int kind = random.nextInt(10);
            if (kind == 0)
            {
                send(encoder.deposit(buffer, 0, nextTransactionId++, account, random.nextBoolean() ? BTC : USD,
                    1 + random.nextInt(1_000)));
            }
            else if (kind == 1)
            {
                send(encoder.cancelOrder(buffer, 0, account, 0, 1 + random.nextLong(nextClientOrderId)));
            }
            else
            {
                final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
                final long price = 10_000 + (side == Side.BUY ? -1 : 1) * (random.nextInt(60) - 20);
                send(encoder.limit(buffer, 0, account, nextClientOrderId++, BTC_USD, side, price,
                    1 + random.nextInt(50)));
            }
        }

        private void send(final int length)
        {
            final long sequence = client.trySend(buffer, 0, length);
            if (sequence != sent.size() + 1)
            {
                throw new AssertionError("client refused or misnumbered a command: " + sequence);
            }
            final byte[] copy = new byte[length];
            buffer.getBytes(0, copy);
            sent.add(copy);
        }

        /**
         * Apply the kept commands to the reference, in request order, up to request {@code requestSequence}.
         */
        void applyReferenceUpTo(final long requestSequence)
        {
            if (referenceApplied > requestSequence)
            {
                throw new AssertionError("the reference is already at request " + referenceApplied +
                    ", past the node's " + requestSequence);
            }
            while (referenceApplied < requestSequence)
            {
                applyNext();
            }
        }

        long referenceHash()
        {
            return reference.stateHash();
        }

        int referenceOpenOrders()
        {
            return reference.openOrderCount();
        }

        private void applyNext()
        {
            final byte[] command = sent.get((int)referenceApplied);
            commandBuffer.wrap(command);
            referenceApplied++;
            referenceAdapter.onCommand(commandBuffer, 0, command.length, referenceApplied);
        }

        public void onEventBatch(
            final long batchSequence,
            final long logPosition,
            final long timestampNs,
            final long clientId,
            final long requestSequence,
            final DirectBuffer eventBuffer,
            final int offset,
            final int length,
            final int eventCount)
        {
            if (clientId == client.clientId())
            {
                if (requestSequence != answeredUpTo + 1)
                {
                    throw new AssertionError("answer to request " + requestSequence + " after the answer to " +
                        answeredUpTo + ": a command answered twice or out of order");
                }
                answeredUpTo = requestSequence;
            }
        }

        public void onRequestIgnored(final long requestSequence, final IgnoredReason reason)
        {
            ignoredRequests++;
            System.out.println("CrashRecoveryTest: request " + requestSequence + " ignored: " + reason);
        }

        public void onGap(final long fromLogPosition, final boolean renumbered)
        {
            throw new AssertionError("the client missed batches after log position " + fromLogPosition);
        }
    }

    /**
     * Another client trading at the same time, as another gateway would, about a thousand commands a second: cancels
     * for an account that does not exist, which the engine refuses without changing its state. Their answers go to
     * every client, so the test's client never has a quiet egress: it must notice a lost request of its own by its
     * missing answer, not by silence.
     */
    private static final class Bystander implements ExchangeClientListener
    {
        private static final long NO_SUCH_ACCOUNT = 999_999;
        private static final long SEND_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);
        private final CommandEncoder encoder = new CommandEncoder();
        private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(128);
        private ExchangeClient client;
        private long nextClientOrderId = 1;
        private long nextSendNs;

        int poll()
        {
            final long nowNs = System.nanoTime();
            if (nowNs >= nextSendNs && client.unansweredCount() < 8)
            {
                final int length = encoder.cancelOrder(buffer, 0, NO_SUCH_ACCOUNT, 0, nextClientOrderId++);
                client.trySend(buffer, 0, length);
                nextSendNs = nowNs + SEND_INTERVAL_NS;
            }
            return client.doWork();
        }

        public void onEventBatch(
            final long batchSequence,
            final long logPosition,
            final long timestampNs,
            final long clientId,
            final long requestSequence,
            final DirectBuffer eventBuffer,
            final int offset,
            final int length,
            final int eventCount)
        {
        }
    }

    private record NodeState(long logPosition, long stateHash, long lastRequestSequence, int openOrders)
    {
    }

    /**
     * A {@link NodeProcess} child: its output lines are echoed and queued for the test to wait on.
     */
    private static final class ChildNode
    {
        private final JavaChildProcess process;

        private ChildNode(final JavaChildProcess process)
        {
            this.process = process;
        }

        static ChildNode start(final File dataDir, final int portBase, final String aeronDir)
        {
            // Rounds add about 30,000 open orders each: past 30 rounds a million of them, whose snapshot (~100 MB, in
            // direct memory, limited to the heap's size) and book no longer fit in 256 MB together.
            return new ChildNode(JavaChildProcess.start("node", List.of("-Xms512m", "-Xmx512m", "-XX:+UseSerialGC"),
                NodeProcess.class.getName(), List.of(dataDir.getPath(), Integer.toString(portBase), aeronDir),
                NodeProcess.READY, TIMEOUT_NS));
        }

        boolean hasPrinted(final String part)
        {
            return process.hasPrinted(part);
        }

        NodeState state(final long clientId)
        {
            process.send(NodeProcess.STATE + " " + clientId);
            final String[] parts = process.awaitLine(NodeProcess.STATE + " ", TIMEOUT_NS).split(" ");
            return new NodeState(Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]),
                Integer.parseInt(parts[4]));
        }

        void stop()
        {
            process.send("stop");
            process.awaitLine(NodeProcess.STOPPED, TIMEOUT_NS);
            process.awaitExit();
        }

        /**
         * Stop the process where it is (SIGSTOP): its threads stop, its sockets stay open.
         */
        void pause()
        {
            process.signal("STOP");
        }

        /**
         * Let a paused process go on (SIGCONT).
         */
        void resume()
        {
            process.signal("CONT");
        }

        void kill()
        {
            process.kill();
        }
    }
}
