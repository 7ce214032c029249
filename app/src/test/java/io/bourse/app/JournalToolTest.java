package io.bourse.app;

import io.aeron.archive.CatalogAccess;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.service.Cluster;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import io.bourse.app.journal.Journal;
import io.bourse.app.journal.JournalTool;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.LoopbackPorts;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.engine.CommandAdapter;
import io.bourse.engine.Engine;
import io.bourse.engine.EventEncoder;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.Side;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The journal tools and the start-up bootstrap on a real data directory, written by an in-JVM node.
 */
class JournalToolTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long SEED = 20261121L;
    private static final int ORDERS_BEFORE_SNAPSHOT = 300;
    private static final int ORDERS_AFTER_SNAPSHOT = 200;

    private final Engine reference = new Engine(new EventEncoder((buffer, offset, length) -> {}));
    private final CommandAdapter referenceAdapter = new CommandAdapter(reference);
    private final CommandEncoder encoder = new CommandEncoder();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
    private File baseDir;
    private File configFile;
    private ClusterNode node;
    private long referenceTimeNs = 1;
    private long nextClientOrderId = 1;

    @AfterEach
    void tearDown()
    {
        CloseHelper.quietClose(node);
        if (baseDir != null)
        {
            IoUtil.delete(baseDir, true);
        }
    }

    @Test
    void inspectDumpAndVerifyReadWhatTheNodeWroteAndRestartDoesNotDepositTwice() throws IOException
    {
        baseDir = Files.createTempDirectory("bourse-app-test").toFile();
        configFile = new File(baseDir, "test.properties");
        Files.writeString(configFile.toPath(), String.join("\n",
            "data.dir=" + new File(baseDir, "data").getAbsolutePath(),
            "aeron.dir=" + new File(System.getProperty("java.io.tmpdir"),
                "bourse-app-test-" + ProcessHandle.current().pid()).getAbsolutePath(),
            "port.base=" + freePortBase(),
            "history.bytes=1048576",
            "log.term.bytes=1048576",
            "journal.segment.bytes=4194304",
            "asset.BTC.id=1", "asset.BTC.scale=8", "asset.USD.id=2", "asset.USD.scale=6",
            "instrument.BTC-USD.id=1", "instrument.BTC-USD.base=BTC", "instrument.BTC-USD.quote=USD",
            "instrument.BTC-USD.price.scale=2", "instrument.BTC-USD.tick=0.01",
            "instrument.BTC-USD.quantity.scale=4", "instrument.BTC-USD.lot=0.0001",
            "instrument.BTC-USD.maker.fee.ppm=1000", "instrument.BTC-USD.taker.fee.ppm=2000",
            "account.1.deposit.BTC=10", "account.1.deposit.BTC.transaction=11",
            "account.1.deposit.USD=100000", "account.1.deposit.USD.transaction=12",
            "account.2.deposit.BTC=10", "account.2.deposit.BTC.transaction=21",
            "account.2.deposit.USD=100000", "account.2.deposit.USD.transaction=22",
            "account.2.max.open.orders=10000", ""));
        final BourseConfig config = BourseConfig.load(configFile, Map.of());

        startNode(config);
        final Bootstrap.Result first = bootstrap(config);
        assertEquals(4, first.depositsApplied(), first.summary());
        assertEquals(List.of(), first.rejections());

        final SplittableRandom random = new SplittableRandom(SEED);
        sendOrders(config, random, ORDERS_BEFORE_SNAPSHOT);
        final CommandLine snapshot = bourse("journal", "snapshot", "--config", configFile.getPath());
        assertEquals(0, snapshot.code(), snapshot.err());
        assertTrue(snapshot.out().contains("snapshot taken"), snapshot.out());
        sendOrders(config, random, ORDERS_AFTER_SNAPSHOT);
        final long liveStateHash = node.service().stateHash();

        // The data directory is locked while the node runs: the tools would read half-written files, a second node
        // would corrupt the journal. Both are refused, naming the directory, and the node runs on unharmed.
        final String dataDir = config.nodeContext().dataDir().getAbsolutePath();
        final CommandLine inspectRunning = bourse("journal", "inspect", "--config", configFile.getPath());
        assertNotEquals(0, inspectRunning.code());
        assertTrue(inspectRunning.err().contains("a node is running on " + dataDir), inspectRunning.err());
        final IllegalStateException secondNode =
            assertThrows(IllegalStateException.class, () -> ClusterNode.launch(config.nodeContext()));
        assertEquals("data directory " + dataDir + " is in use by another running node", secondNode.getMessage());
        assertEquals(liveStateHash, node.service().stateHash());
        // Stop as a crash would: no shutdown snapshot, so verify must replay the tail after the requested snapshot.
        node.abort();
        node = null;

        final CommandLine inspect = bourse("journal", "inspect", "--config", configFile.getPath());
        assertEquals(0, inspect.code(), inspect.err());
        assertLine(inspect.out(), "NewOrder\\s+" + (ORDERS_BEFORE_SNAPSHOT + ORDERS_AFTER_SNAPSHOT) + "\\s+[\\d,]+");
        assertLine(inspect.out(), "Deposit\\s+4\\s+[\\d,]+");
        assertLine(inspect.out(), "DefineInstrument\\s+1\\s+[\\d,]+");
        assertLine(inspect.out(), "[\\d,]+\\s+\\S+Z\\s+\\d+\\s+service 0\\s+[\\d,]+\\s+yes");
        assertLine(inspect.out(), "tail after the latest snapshot .*");
        System.out.println(inspect.out());

        final CommandLine dump = bourse("journal", "dump", "--config", configFile.getPath());
        assertEquals(0, dump.code(), dump.err());
        final List<String> lines = dump.out().lines().toList();
        assertTrue(lines.stream().allMatch(line -> line.startsWith("{\"type\":\"") && line.endsWith("}")), dump.out());
        assertEquals(ORDERS_BEFORE_SNAPSHOT + ORDERS_AFTER_SNAPSHOT,
            lines.stream().filter(line -> line.contains("\"type\":\"NewOrder\"")).count());
        assertTrue(lines.stream().anyMatch(line -> line.contains("\"type\":\"Deposit\"") &&
            line.contains("\"transactionId\":11") && line.contains("\"amount\":1000000000")), dump.out());
        final CommandLine limited = bourse("journal", "dump", "--limit=3", "--config", configFile.getPath());
        assertEquals(0, limited.code(), limited.err());
        assertEquals(lines.subList(0, 3), limited.out().lines().toList(), "the first three messages");
        final CommandLine tail = bourse("journal", "dump", "--tail", "--config", configFile.getPath());
        assertEquals(ORDERS_AFTER_SNAPSHOT,
            tail.out().lines().filter(line -> line.contains("\"type\":\"NewOrder\"")).count());
        final CommandLine notTail = bourse("journal", "dump", "--tail=false", "--config", configFile.getPath());
        assertEquals(ORDERS_BEFORE_SNAPSHOT + ORDERS_AFTER_SNAPSHOT,
            notTail.out().lines().filter(line -> line.contains("\"type\":\"NewOrder\"")).count());
        final CommandLine badFlag = bourse("journal", "dump", "--tail=yes", "--config", configFile.getPath());
        assertEquals(2, badFlag.code(), badFlag.err());
        assertTrue(badFlag.err().contains("option --tail is a flag: give it alone, or =true or =false"), badFlag.err());

        final JournalTool.VerifyResult verified = verify(config);
        assertTrue(verified.snapshotLogPosition() > 0, "replay starts from the snapshot");
        assertEquals(ORDERS_AFTER_SNAPSHOT, verified.applied(), "commands in the tail");
        assertEquals(liveStateHash, verified.stateHash(), "offline replay reaches the live node's state");
        assertEquals(reference.stateHash(), verified.engineStateHash(), "seed " + SEED);
        assertTrue(verified.fragmentChecks().matched() > ORDERS_AFTER_SNAPSHOT, verified.fragmentChecks().toString());
        assertEquals(0, verified.fragmentChecks().withoutChecksum(), verified.fragmentChecks().toString());
        assertEquals(0, verified.fragmentChecks().damaged(), verified.fragmentChecks().toString());
        assertEquals(1, verified.checkpointsAgreed(), "the snapshot's state hash checkpoint, in the tail");
        assertEquals(0, verified.checkpointsDiverged());

        // The last fragment of the stopped log lost from the disk (read as zeros): verify does not stop short quietly.
        final long stopPosition;
        try (Journal journal = Journal.open(config.nodeContext().dataDir()))
        {
            stopPosition = journal.logRecording().stopPosition();
        }
        final SavedBytes lost = overwriteLastLogFragment(config.nodeContext().dataDir(),
            DataHeaderFlyweight.FRAME_LENGTH_FIELD_OFFSET, new byte[Integer.BYTES]);
        final CommandLine truncated = bourse("journal", "verify", "--config", configFile.getPath());
        assertEquals(1, truncated.code(), truncated.out());
        assertTrue(truncated.err().contains("before its recording's stop position " + stopPosition), truncated.err());
        lost.putBack();

        startNode(config);
        final Bootstrap.Result again = bootstrap(config);
        assertEquals(0, again.depositsApplied(), again.summary());
        assertEquals(4, again.depositsRepeated(), again.summary());
        assertEquals(List.of(), again.rejections());
        final long restartedStateHash = node.service().stateHash();
        node.close();
        node = null;

        final JournalTool.VerifyResult afterCleanStop = verify(config);
        assertEquals(restartedStateHash, afterCleanStop.stateHash());
        assertEquals(reference.stateHash(), afterCleanStop.engineStateHash(), "no deposit applied twice");

        // Killed while writing: the log's recording still open and its last write torn between two pages.
        tearWriteAtEndOfLog(config.nodeContext().dataDir());
        final CommandLine torn = bourse("journal", "verify", "--config", configFile.getPath());
        assertEquals(0, torn.code(), torn.err());
        assertTrue(torn.out().contains("the log ends in a write torn by a crash, left out"), torn.out());
        assertTrue(torn.out().contains(String.format("state hash %016x", restartedStateHash)), torn.out());

        // A byte changed on disk, in the alignment padding of a fragment, leaves its message readable; its checksum
        // no longer matches and verify says so.
        final SavedBytes padding = overwriteSnapshotFrame(config.nodeContext().dataDir(), -1, new byte[] {0x5A});
        final CommandLine damaged = bourse("journal", "verify", "--config", configFile.getPath());
        assertEquals(1, damaged.code(), damaged.out());
        assertTrue(damaged.err().matches("(?s).*the journal is damaged: 1 fragment\\(s\\), the first with bytes at " +
            "position \\d+ that no longer match their checksum.*"), damaged.err());
        padding.putBack();

        // A frame's header changed on disk: its length, and so where every later frame starts, cannot be trusted.
        final SavedBytes header = overwriteSnapshotFrame(config.nodeContext().dataDir(),
            DataHeaderFlyweight.TYPE_FIELD_OFFSET, new byte[] {7, 0});
        final CommandLine damagedHeader = bourse("journal", "verify", "--config", configFile.getPath());
        assertEquals(1, damagedHeader.code(), damagedHeader.out());
        assertTrue(damagedHeader.err().matches("(?s).*the journal is damaged: 1 fragment\\(s\\), the first with a " +
            "header at position \\d+ that does not fit where it lies \\(type 7 is neither data nor padding\\).*"),
            damagedHeader.err());
        header.putBack();
    }

    /**
     * Bytes of a segment file as they were before a test changed them.
     */
    private record SavedBytes(File file, long offset, byte[] bytes)
    {
        void putBack() throws IOException
        {
            try (RandomAccessFile segment = new RandomAccessFile(file, "rw"))
            {
                segment.seek(offset);
                segment.write(bytes);
            }
        }
    }

    /**
     * Overwrite a field of the header of the log's last fragment: zeros in its frame length are a write lost from the
     * disk.
     */
    private static SavedBytes overwriteLastLogFragment(final File dataDir, final int fieldOffset, final byte[] bytes)
        throws IOException
    {
        final File segment;
        final long offset;
        try (Journal journal = Journal.open(dataDir))
        {
            final Journal.Recording log = journal.logRecording();
            final long[] lastStart = new long[1];
            journal.scan(log, journal.firstPosition(log), Long.MAX_VALUE,
                (buffer, messageOffset, length, start, stop) -> lastStart[0] = start);
            final long segmentBase = AeronArchive.segmentFileBasePosition(log.startPosition(), lastStart[0],
                log.termBufferLength(), log.segmentFileLength());
            segment = new File(dataDir, "archive/" + log.recordingId() + "-" + segmentBase + ".rec");
            offset = lastStart[0] - segmentBase + fieldOffset;
        }
        return overwrite(segment, offset, bytes);
    }

    private static SavedBytes overwrite(final File segment, final long offset, final byte[] bytes) throws IOException
    {
        final byte[] held = new byte[bytes.length];
        try (RandomAccessFile file = new RandomAccessFile(segment, "rw"))
        {
            file.seek(offset);
            file.readFully(held);
            file.seek(offset);
            file.write(bytes);
        }
        return new SavedBytes(segment, offset, held);
    }

    /**
     * Mark the log's recording open, as a kill leaves it, and write after its last fragment the first page's worth
     * of one more (its whole header and the start of its message), whose frame runs on into the next page: a write the
     * kernel stopped between two pages.
     */
    private static void tearWriteAtEndOfLog(final File dataDir) throws IOException
    {
        final File segment;
        final long offset;
        final int termOffset;
        final int termId;
        final int streamId;
        try (Journal journal = Journal.open(dataDir))
        {
            final Journal.Recording log = journal.logRecording();
            final long end = journal.scan(log, journal.firstPosition(log), Long.MAX_VALUE,
                (buffer, messageOffset, length, start, stop) -> {});
            final long segmentBase = AeronArchive.segmentFileBasePosition(log.startPosition(), end,
                log.termBufferLength(), log.segmentFileLength());
            segment = new File(dataDir, "archive/" + log.recordingId() + "-" + segmentBase + ".rec");
            offset = end - segmentBase;
            termOffset = (int)(end & (log.termBufferLength() - 1));
            termId = log.initialTermId() + (int)(end / log.termBufferLength());
            streamId = log.streamId();
            CatalogAccess.markRecordingOpen(new File(dataDir, "archive"), log.recordingId());
        }
        final int pageSize = 4096;
        final long pageEnd = (offset / pageSize + 1) * pageSize;
        final ByteBuffer written = ByteBuffer.allocate((int)(pageEnd - offset)).order(ByteOrder.LITTLE_ENDIAN);
        written.putInt(DataHeaderFlyweight.FRAME_LENGTH_FIELD_OFFSET, (int)(pageEnd - offset) + 256)
            .put(DataHeaderFlyweight.FLAGS_FIELD_OFFSET, (byte)DataHeaderFlyweight.BEGIN_AND_END_FLAGS)
            .putShort(DataHeaderFlyweight.TYPE_FIELD_OFFSET, (short)DataHeaderFlyweight.HDR_TYPE_DATA)
            .putInt(DataHeaderFlyweight.TERM_OFFSET_FIELD_OFFSET, termOffset)
            .putInt(DataHeaderFlyweight.STREAM_ID_FIELD_OFFSET, streamId)
            .putInt(DataHeaderFlyweight.TERM_ID_FIELD_OFFSET, termId);
        for (int i = DataHeaderFlyweight.HEADER_LENGTH; i < written.capacity(); i++)
        {
            written.put(i, (byte)0x5A);
        }
        try (RandomAccessFile file = new RandomAccessFile(segment, "rw"))
        {
            file.seek(offset);
            file.write(written.array());
        }
    }

    /**
     * Overwrite bytes of a frame of the latest snapshot: after the message of its last frame that holds a whole
     * message with alignment padding after it (when {@code offset} is negative), or at {@code offset} from the start of
     * the frame that begins the middle one of its messages (one of the service's chunks).
     */
    private static SavedBytes overwriteSnapshotFrame(final File dataDir, final int offset, final byte[] bytes)
        throws IOException
    {
        final long[] padding = new long[2];
        final List<Long> messageStarts = new ArrayList<>();
        final File segment;
        final long segmentBase;
        final long position;
        try (Journal journal = Journal.open(dataDir))
        {
            final Journal.Recording recording = journal.recording(
                journal.latestSnapshot(JournalTool.SERVICE_ID).recordingId);
            journal.scan(recording, recording.startPosition(), Long.MAX_VALUE,
                (buffer, messageOffset, length, start, end) ->
                {
                    messageStarts.add(start);
                    final int frameLength = DataHeaderFlyweight.HEADER_LENGTH + length;
                    // One frame (not reassembled from several) with padding after its payload.
                    if (end - start == BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT) &&
                        end - start > frameLength)
                    {
                        padding[0] = start;
                        padding[1] = start + DataHeaderFlyweight.HEADER_LENGTH + length;
                    }
                });
            assertTrue(padding[1] > 0, "a snapshot message with padding after it");
            final long frame = offset < 0 ? padding[0] : messageStarts.get(messageStarts.size() / 2);
            position = offset < 0 ? padding[1] : frame + offset;
            segmentBase = AeronArchive.segmentFileBasePosition(recording.startPosition(), frame,
                recording.termBufferLength(), recording.segmentFileLength());
            segment = new File(dataDir, "archive/" + recording.recordingId() + "-" + segmentBase + ".rec");
        }
        return overwrite(segment, position - segmentBase, bytes);
    }

    private JournalTool.VerifyResult verify(final BourseConfig config)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final JournalTool.VerifyResult result = new JournalTool(new PrintStream(out, true, StandardCharsets.UTF_8))
            .verify(config.nodeContext().dataDir(), config.nodeContext().historyCapacityBytes());
        System.out.print(out.toString(StandardCharsets.UTF_8));
        return result;
    }

    private void startNode(final BourseConfig config)
    {
        node = ClusterNode.launch(config.nodeContext());
        await("leader", () -> node.role() == Cluster.Role.LEADER);
    }

    private Bootstrap.Result bootstrap(final BourseConfig config)
    {
        final ClusterNode.Context context = node.context();
        final Bootstrap.Result result = Bootstrap.apply(
            config, context.ingressEndpoints(), context.aeronDirectoryName(), TIMEOUT_NS);
        for (final Bootstrap.AdminCommand command : Bootstrap.commands(config))
        {
            applyToReference(new UnsafeBuffer(command.message()), command.message().length);
        }
        return result;
    }

    private void sendOrders(final BourseConfig config, final SplittableRandom random, final int count)
    {
        final ClusterNode.Context context = node.context();
        final ExchangeClientListener ignoreEvents = (batchSequence, logPosition, timestampNs, clientId,
            requestSequence, events, offset, length, eventCount) -> {};
        try (ExchangeClient client = new ExchangeClient(new ExchangeClient.Context()
            .ingressEndpoints(context.ingressEndpoints())
            .aeronDirectoryName(context.aeronDirectoryName())
            .listener(ignoreEvents)))
        {
            for (int i = 0; i < count; i++)
            {
                final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
                final long price = 10_000 + (side == Side.BUY ? -1 : 1) * (random.nextInt(40) - 10);
                final int length = encoder.limit(buffer, 0, 1 + random.nextInt(2), nextClientOrderId++, 1, side, price,
                    1 + random.nextInt(20));
                applyToReference(buffer, length);
                if (client.trySend(buffer, 0, length) < 0)
                {
                    throw new AssertionError("client refused a command");
                }
                client.doWork();
            }
            await("all orders answered", () ->
            {
                client.doWork();
                return client.unansweredCount() == 0;
            });
        }
    }

    private void applyToReference(final DirectBuffer command, final int length)
    {
        referenceAdapter.onCommand(command, 0, length, referenceTimeNs++);
    }

    private static void assertLine(final String text, final String regex)
    {
        final Pattern pattern = Pattern.compile("^\\s*" + regex + "$", Pattern.MULTILINE);
        assertTrue(pattern.matcher(text).find(), "no line matching '" + regex + "' in:\n" + text);
    }

    private record CommandLine(int code, String out, String err)
    {
    }

    private static CommandLine bourse(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = new Bourse(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
        return new CommandLine(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
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
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
        }
    }

    private static int freePortBase()
    {
        return LoopbackPorts.freeBase(22_000, 300, ClusterNode.PORTS_PER_MEMBER);
    }
}
