package io.bourse.gateway.fix;

import org.agrona.DirectBuffer;
import org.agrona.LangUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongLongConsumer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The gateway's record of its open orders, so that after a restart ExecutionReports still carry the ClOrdID the
 * client gave and cancels by OrigClOrdID still find their order. An append-only file of fixed-size records in the
 * data directory: PENDING (a new order about to be sent to the exchange, written before it is, so that a gateway that
 * stops before the answer still knows the order the answer is about), OPEN (an order accepted, or its state after a
 * replace) and CLOSED (by order id, or by client order id for a pending order that was not accepted); REPLACING (a
 * replace about to be sent: the order as the replace would leave it, under the replace's client order id, so that a
 * gateway that stops before the answer still reports what the replace did) and REPLACE_DONE (its answer reported). On
 * start it is read, and rewritten with only the open and pending orders and the replaces not yet answered.
 * <p>
 * It is also rewritten so while the gateway runs, once it has grown to four times what those orders take (and at least
 * {@link #DEFAULT_COMPACT_AT_BYTES}): a gateway taking 1,000 orders a second appends about 70 GB a day, which would
 * fill the disk and, on the next start, be more than one read can take. So the store keeps the records a start would
 * read back (the live records) in memory as well, in slots reused as orders close, and writes those out; the rewrite's
 * cost is that of the open orders, not of the file.
 * <p>
 * A record is written with one {@code write} call from a buffer allocated once; the operating system's page cache
 * keeps it across a process crash (not across a machine crash: that would need an fsync per order).
 */
final class FixOrderStore implements AutoCloseable
{
    static final byte OPEN = 1;
    static final byte CLOSED = 2;
    static final byte PENDING = 3;
    static final byte REPLACING = 4;
    static final byte REPLACE_DONE = 5;
    private static final int COMP_ID_LENGTH = 64;
    private static final byte TRIGGERED = 1;
    private static final byte EXPIRE_BY_DATE = 2;
    /**
     * A record of a gateway that did not keep stop prices, expiry times and triggers: the file it wrote is
     * {@link #LEGACY_FILE_NAME}, read once and rewritten as the current file.
     */
    static final int LEGACY_RECORD_LENGTH =
        1 + 8 * 8 + 2 + (2 + COMP_ID_LENGTH) + 2 * (2 + FixOrder.MAX_ID_LENGTH) + 2;
    /**
     * Side, post only, the CompID, the ClOrdIDs, OrdType and TimeInForce follow the eight longs, then StopPx, the
     * expiry time and a byte of flags: whether the stop triggered (1) and whether the expiry was given as ExpireDate
     * (2; gateways before it wrote 0 or 1). Side and OrdType are ASCII in the first byte of two; post only and
     * TimeInForce take the second, which gateways that did not keep them left zero, so their records still read
     * (TimeInForce unknown, not post only); so do a legacy record's, the fields after it zero (none known). The
     * reverse does not hold: a gateway is not to be downgraded past a change of record.
     */
    static final int RECORD_LENGTH = LEGACY_RECORD_LENGTH + 8 + 8 + 1;
    /**
     * The file's name in the gateway's data directory.
     */
    static final String FILE_NAME = "open-orders-2.dat";
    /**
     * The file of a gateway that wrote records of {@link #LEGACY_RECORD_LENGTH} bytes, in the same directory.
     */
    static final String LEGACY_FILE_NAME = "open-orders.dat";
    /**
     * The smallest file that is rewritten while the gateway runs: 16 MiB, about 20,000 orders' records.
     */
    static final long DEFAULT_COMPACT_AT_BYTES = 16 * 1024 * 1024;
    private static final int RECORDS_PER_WRITE = 256;
    private static final int NO_SLOT = -1;

    /**
     * An open order as read back from the file; a pending one has order id 0.
     */
    record Entry(
        String senderCompId, long orderId, long engineClientOrderId, long accountId, int instrumentId, char side,
        char ordType, char timeInForce, boolean postOnly, long price, long quantity, long filledQuantity,
        long executedNotional, String clOrdId, String origClOrdId, long stopPx, long expireTimeNs, boolean triggered,
        boolean expireByDate)
    {
    }

    private final File file;
    private final long compactAtBytes;
    private final PrintStream log;
    private long nextCompactionBytes;
    private final ByteBuffer byteBuffer = ByteBuffer.allocateDirect(RECORD_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final UnsafeBuffer buffer = new UnsafeBuffer(byteBuffer);
    private FileChannel channel;
    private long fileLength;
    /**
     * The live records: those of open orders by order id, those of pending orders and of replaces under way by engine
     * client order id (a replace's own, which the engine's answer carries), each in a slot of {@link #slots}; slots of
     * closed orders and answered replaces are reused.
     */
    private final Long2LongHashMap openSlots = new Long2LongHashMap(NO_SLOT);
    private final Long2LongHashMap pendingSlots = new Long2LongHashMap(NO_SLOT);
    private final Long2LongHashMap replacingSlots = new Long2LongHashMap(NO_SLOT);
    private UnsafeBuffer slots = new UnsafeBuffer(new byte[64 * RECORD_LENGTH]);
    private int slotsUsed;
    private final IntArrayList freeSlots = new IntArrayList();
    /**
     * Where a rewrite gathers records, so that it writes many at once.
     */
    private ByteBuffer writeBuffer;
    private FileChannel rewriting;
    private final LongLongConsumer rewriteSlot = (key, slot) -> rewrite((int)slot);
    private int compactions;

    FixOrderStore(final File file, final PrintStream log)
    {
        this(file, DEFAULT_COMPACT_AT_BYTES, log);
    }

    /**
     * @param compactAtBytes the smallest file rewritten while the gateway runs.
     * @param log            where a rewrite that failed is reported.
     */
    FixOrderStore(final File file, final long compactAtBytes, final PrintStream log)
    {
        this.file = file;
        this.compactAtBytes = compactAtBytes;
        this.nextCompactionBytes = compactAtBytes;
        this.log = log;
    }

    /**
     * Read the open orders, compact the file to them, and open it for appending.
     *
     * @return the open orders (by order id), then the pending ones (by engine client order id).
     */
    List<Entry> open()
    {
        try
        {
            final File legacy = new File(file.getParentFile(), LEGACY_FILE_NAME);
            // A legacy file written after the current one is a downgraded gateway's, and holds the later state; one
            // older is what a crash between the rewrite below and its deletion left.
            final boolean fromLegacy = !legacy.equals(file) && legacy.exists() &&
                (!file.exists() || legacy.lastModified() > file.lastModified());
            if (fromLegacy)
            {
                log.println("bourse: FIX gateway: reading the open-order record " + legacy + " of an earlier " +
                    "version, to be kept as " + file + " from now on");
                readRecords(legacy, LEGACY_RECORD_LENGTH);
            }
            else if (file.exists())
            {
                readRecords(file, RECORD_LENGTH);
            }
            compact();
            if (!legacy.equals(file) && legacy.exists())
            {
                // Only once the current file holds what it held (compact synced it and its directory); a crash before
                // leaves it to be read again.
                Files.delete(legacy.toPath());
            }
        }
        catch (final IOException ex)
        {
            LangUtil.rethrowUnchecked(ex);
        }
        final List<Entry> open = entries(openSlots);
        open.sort(Comparator.comparingLong(Entry::orderId));
        final List<Entry> pending = entries(pendingSlots);
        pending.sort(Comparator.comparingLong(Entry::engineClientOrderId));
        open.addAll(pending);
        return open;
    }

    private void readRecords(final File from, final int recordLength) throws IOException
    {
        try (FileChannel in = FileChannel.open(from.toPath(), StandardOpenOption.READ))
        {
            final ByteBuffer chunk = ByteBuffer.allocateDirect(RECORDS_PER_WRITE * recordLength);
            while (in.read(chunk) >= 0)
            {
                // A torn last record (crash mid-write) is shorter than a record and ignored.
                final int records = chunk.position() / recordLength;
                for (int i = 0; i < records; i++)
                {
                    buffer.setMemory(0, RECORD_LENGTH, (byte)0);
                    buffer.putBytes(0, chunk, i * recordLength, recordLength);
                    apply();
                }
                chunk.limit(chunk.position()).position(records * recordLength);
                chunk.compact();
            }
        }
    }

    /**
     * @return after {@link #open()}, the replaces sent and not yet answered when the gateway stopped: each the order
     * as the replace would leave it (its order id 0 for an order not yet accepted then), with the replace's engine
     * client order id and ClOrdID, and as OrigClOrdID the order's ClOrdID before it.
     */
    List<Entry> replacing()
    {
        final List<Entry> replacing = entries(replacingSlots);
        replacing.sort(Comparator.comparingLong(Entry::engineClientOrderId));
        return replacing;
    }

    private List<Entry> entries(final Long2LongHashMap slotsByKey)
    {
        final List<Entry> entries = new ArrayList<>(slotsByKey.size());
        slotsByKey.forEachLong((key, slot) -> entries.add(read(slots, (int)slot * RECORD_LENGTH)));
        return entries;
    }

    /**
     * @return the length of the file: its live records after the last rewrite, and the records appended since.
     */
    long fileLength()
    {
        return fileLength;
    }

    /**
     * @return the records a start would read back now.
     */
    int liveRecords()
    {
        return openSlots.size() + pendingSlots.size() + replacingSlots.size();
    }

    /**
     * @return how many times the file was rewritten while the gateway ran.
     */
    int compactions()
    {
        return compactions;
    }

    void writeOpen(final FixOrder order)
    {
        encode(OPEN, order.session.spec.senderCompId(), order.instrument.instrumentId(), order);
        append();
    }

    /**
     * A new order about to be sent: until an OPEN record (its acceptance) or {@link #writeNotAccepted} follows, a
     * restarted gateway restores it as pending.
     */
    void writePending(final FixOrder order)
    {
        encode(PENDING, order.session.spec.senderCompId(), order.instrument.instrumentId(), order);
        append();
    }

    /**
     * A replace of {@code order} about to be sent: until {@link #writeReplaceDone} follows, a restarted gateway
     * restores it as under way.
     */
    void writeReplacing(
        final FixOrder order,
        final long engineClientOrderId,
        final long price,
        final long quantity,
        final long stopPx,
        final char[] clOrdId,
        final int clOrdIdLength)
    {
        encode(buffer, 0, REPLACING, order.session.spec.senderCompId(), order.instrument.instrumentId(), order,
            engineClientOrderId, price, quantity, stopPx, clOrdId, clOrdIdLength, order.clOrdId, order.clOrdIdLength);
        append();
    }

    /**
     * The replace with this engine client order id was answered (and the answer reported), or was not sent.
     */
    void writeReplaceDone(final long engineClientOrderId)
    {
        buffer.setMemory(0, RECORD_LENGTH, (byte)0);
        buffer.putByte(0, REPLACE_DONE);
        buffer.putLong(9, engineClientOrderId, ByteOrder.LITTLE_ENDIAN);
        append();
    }

    /**
     * A pending order that the exchange did not accept: rejected, not applied, or not sent.
     */
    void writeNotAccepted(final long engineClientOrderId)
    {
        buffer.setMemory(0, RECORD_LENGTH, (byte)0);
        buffer.putByte(0, CLOSED);
        buffer.putLong(9, engineClientOrderId, ByteOrder.LITTLE_ENDIAN);
        append();
    }

    private void encode(final byte type, final String compId, final int instrumentId, final FixOrder order)
    {
        encode(buffer, 0, type, compId, instrumentId, order, order.engineClientOrderId, order.price, order.quantity,
            order.stopPx, order.clOrdId, order.clOrdIdLength, order.origClOrdId, order.origClOrdIdLength);
    }

    /**
     * Write an order's record of the given type at an offset of any buffer: what {@link #read} reads back.
     */
    static void encode(
        final MutableDirectBuffer buffer, final int offset, final byte type, final String compId, final FixOrder order)
    {
        encode(buffer, offset, type, compId, order.instrument.instrumentId(), order, order.engineClientOrderId,
            order.price, order.quantity, order.stopPx, order.clOrdId, order.clOrdIdLength, order.origClOrdId,
            order.origClOrdIdLength);
    }

    private static void encode(
        final MutableDirectBuffer buffer,
        final int start,
        final byte type,
        final String compId,
        final int instrumentId,
        final FixOrder order,
        final long engineClientOrderId,
        final long price,
        final long quantity,
        final long stopPx,
        final char[] clOrdId,
        final int clOrdIdLength,
        final char[] origClOrdId,
        final int origClOrdIdLength)
    {
        buffer.setMemory(start, RECORD_LENGTH, (byte)0);
        buffer.putByte(start, type);
        int offset = start + 1;
        buffer.putLong(offset, order.orderId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, engineClientOrderId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.accountId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, instrumentId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, price, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, quantity, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.filledQuantity, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.executedNotional, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putByte(offset, (byte)order.side);
        buffer.putByte(offset + 1, (byte)(order.postOnly ? 1 : 0));
        offset += 2;
        buffer.putShort(offset, (short)compId.length(), ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < compId.length(); i++)
        {
            buffer.putByte(offset + 2 + i, (byte)compId.charAt(i));
        }
        offset += 2 + COMP_ID_LENGTH;
        offset = putChars(buffer, offset, clOrdId, clOrdIdLength);
        offset = putChars(buffer, offset, origClOrdId, origClOrdIdLength);
        buffer.putByte(offset, (byte)order.ordType);
        buffer.putByte(offset + 1, (byte)order.timeInForce);
        offset += 2;
        buffer.putLong(offset, stopPx, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(offset + 8, order.expireTimeNs, ByteOrder.LITTLE_ENDIAN);
        buffer.putByte(offset + 16,
            (byte)((order.triggered ? TRIGGERED : 0) | (order.expireByDate ? EXPIRE_BY_DATE : 0)));
    }

    void writeClosed(final long orderId)
    {
        buffer.setMemory(0, RECORD_LENGTH, (byte)0);
        buffer.putByte(0, CLOSED);
        buffer.putLong(1, orderId, ByteOrder.LITTLE_ENDIAN);
        append();
    }

    public void close()
    {
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ex)
            {
                LangUtil.rethrowUnchecked(ex);
            }
            channel = null;
        }
    }

    private static int putChars(
        final MutableDirectBuffer buffer, final int offset, final char[] value, final int length)
    {
        buffer.putShort(offset, (short)length, ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(offset + 2 + i, (byte)value[i]);
        }
        return offset + 2 + FixOrder.MAX_ID_LENGTH;
    }

    private void append()
    {
        try
        {
            byteBuffer.clear();
            while (byteBuffer.hasRemaining())
            {
                channel.write(byteBuffer);
            }
            fileLength += RECORD_LENGTH;
            apply();
            if (fileLength >= nextCompactionBytes && fileLength >= 4L * liveRecords() * RECORD_LENGTH)
            {
                compactWhileRunning();
            }
        }
        catch (final IOException ex)
        {
            LangUtil.rethrowUnchecked(ex);
        }
    }

    /**
     * Apply the record in {@link #buffer} to the live records, as a start reading the file would.
     */
    private void apply()
    {
        final byte type = buffer.getByte(0);
        final long orderId = buffer.getLong(1, ByteOrder.LITTLE_ENDIAN);
        final long engineClientOrderId = buffer.getLong(9, ByteOrder.LITTLE_ENDIAN);
        if (type == OPEN)
        {
            keep(openSlots, orderId);
            free(pendingSlots.remove(engineClientOrderId));
        }
        else if (type == PENDING)
        {
            keep(pendingSlots, engineClientOrderId);
        }
        else if (type == REPLACING)
        {
            keep(replacingSlots, engineClientOrderId);
        }
        else if (type == REPLACE_DONE)
        {
            free(replacingSlots.remove(engineClientOrderId));
        }
        else if (type == CLOSED && orderId != 0)
        {
            free(openSlots.remove(orderId));
        }
        else if (type == CLOSED)
        {
            free(pendingSlots.remove(engineClientOrderId));
        }
    }

    private void keep(final Long2LongHashMap slotsByKey, final long key)
    {
        int slot = (int)slotsByKey.get(key);
        if (slot == NO_SLOT)
        {
            slot = freeSlots.isEmpty() ? newSlot() : freeSlots.popInt();
            slotsByKey.put(key, slot);
        }
        slots.putBytes(slot * RECORD_LENGTH, buffer, 0, RECORD_LENGTH);
    }

    private int newSlot()
    {
        if ((slotsUsed + 1) * RECORD_LENGTH > slots.capacity())
        {
            final UnsafeBuffer grown = new UnsafeBuffer(new byte[2 * slots.capacity()]);
            grown.putBytes(0, slots, 0, slotsUsed * RECORD_LENGTH);
            slots = grown;
        }
        return slotsUsed++;
    }

    private void free(final long slot)
    {
        if (slot != NO_SLOT)
        {
            freeSlots.pushInt((int)slot);
        }
    }

    /**
     * A rewrite while the gateway runs is only housekeeping: when it fails (a full disk, say) the record just appended
     * stays, the gateway goes on appending to the file it has, and the rewrite is tried again once as much more has
     * been appended.
     */
    private void compactWhileRunning()
    {
        try
        {
            compact();
            compactions++;
            nextCompactionBytes = compactAtBytes;
        }
        catch (final IOException | UncheckedIOException ex)
        {
            log.println("bourse: FIX gateway: could not rewrite the open-order record " + file +
                " to its open orders (" + ex + "); going on with it as it is");
            nextCompactionBytes = fileLength + compactAtBytes;
        }
    }

    /**
     * Rewrite the file with the live records only, and go on appending to the new file. The new file replaces the old
     * in one rename, so a crash at any point leaves one or the other whole.
     */
    private void compact() throws IOException
    {
        if (writeBuffer == null)
        {
            writeBuffer = ByteBuffer.allocateDirect(RECORDS_PER_WRITE * RECORD_LENGTH);
        }
        final File compacted = new File(file.getPath() + ".tmp");
        try (FileChannel out = FileChannel.open(compacted.toPath(),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))
        {
            rewriting = out;
            writeBuffer.clear();
            openSlots.forEachLong(rewriteSlot);
            pendingSlots.forEachLong(rewriteSlot);
            replacingSlots.forEachLong(rewriteSlot);
            flushRewrite();
            rewriting = null;
            // On start, before the gateway takes any order; while running, the page cache is as durable as the
            // appends themselves (see the class comment), and an fsync could hold the gateway's thread for long.
            if (channel == null)
            {
                out.force(true);
            }
        }
        // The old file's channel stays open until the new file has replaced it, so that a failed rename leaves the
        // store appending where it was.
        Files.move(compacted.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
        if (channel == null)
        {
            // The rename itself, before the gateway takes any order (and before a legacy file is deleted).
            try (FileChannel directory = FileChannel.open(file.getAbsoluteFile().getParentFile().toPath(),
                StandardOpenOption.READ))
            {
                directory.force(true);
            }
        }
        final FileChannel appending =
            FileChannel.open(file.toPath(), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        if (channel != null)
        {
            channel.close();
        }
        channel = appending;
        fileLength = (long)liveRecords() * RECORD_LENGTH;
    }

    private void rewrite(final int slot)
    {
        if (writeBuffer.remaining() < RECORD_LENGTH)
        {
            flushRewrite();
        }
        slots.getBytes(slot * RECORD_LENGTH, writeBuffer, writeBuffer.position(), RECORD_LENGTH);
        writeBuffer.position(writeBuffer.position() + RECORD_LENGTH);
    }

    private void flushRewrite()
    {
        try
        {
            writeBuffer.flip();
            while (writeBuffer.hasRemaining())
            {
                rewriting.write(writeBuffer);
            }
            writeBuffer.clear();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @return whether the bytes at the offset hold an order's record as {@link #encode} writes it: a known type, a
     * side, an OrdType, and the CompID's and ClOrdIDs' lengths within their fields.
     */
    static boolean isOrderRecord(final DirectBuffer in, final int start)
    {
        final byte type = in.getByte(start);
        final int sideOffset = start + 1 + 8 * 8;
        final int compIdOffset = sideOffset + 2;
        final int clOrdIdOffset = compIdOffset + 2 + COMP_ID_LENGTH;
        final int origClOrdIdOffset = clOrdIdOffset + 2 + FixOrder.MAX_ID_LENGTH;
        final int ordTypeOffset = origClOrdIdOffset + 2 + FixOrder.MAX_ID_LENGTH;
        return (type == OPEN || type == PENDING || type == REPLACING) &&
            (in.getByte(sideOffset) == '1' || in.getByte(sideOffset) == '2') &&
            in.getByte(ordTypeOffset) >= '1' && in.getByte(ordTypeOffset) <= '4' &&
            lengthWithin(in, compIdOffset, COMP_ID_LENGTH) &&
            lengthWithin(in, clOrdIdOffset, FixOrder.MAX_ID_LENGTH) &&
            lengthWithin(in, origClOrdIdOffset, FixOrder.MAX_ID_LENGTH);
    }

    private static boolean lengthWithin(final DirectBuffer in, final int offset, final int max)
    {
        final short length = in.getShort(offset, ByteOrder.LITTLE_ENDIAN);
        return length >= 0 && length <= max;
    }

    /**
     * Read a record written by {@link #encode} back.
     */
    static Entry read(final DirectBuffer in, final int start)
    {
        int offset = start + 1;
        final long orderId = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final long engineClientOrderId = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final long accountId = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final int instrumentId = (int)in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final long price = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final long quantity = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final long filled = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final long notional = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        final char side = (char)in.getByte(offset);
        final boolean postOnly = in.getByte(offset + 1) == 1;
        offset += 2;
        final String compId = in.getStringWithoutLengthAscii(offset + 2, in.getShort(offset, ByteOrder.LITTLE_ENDIAN));
        offset += 2 + COMP_ID_LENGTH;
        final String clOrdId = in.getStringWithoutLengthAscii(offset + 2, in.getShort(offset, ByteOrder.LITTLE_ENDIAN));
        offset += 2 + FixOrder.MAX_ID_LENGTH;
        final String origClOrdId =
            in.getStringWithoutLengthAscii(offset + 2, in.getShort(offset, ByteOrder.LITTLE_ENDIAN));
        offset += 2 + FixOrder.MAX_ID_LENGTH;
        final char ordType = (char)in.getByte(offset);
        final char timeInForce = (char)in.getByte(offset + 1);
        offset += 2;
        final long stopPx = in.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        final long expireTimeNs = in.getLong(offset + 8, ByteOrder.LITTLE_ENDIAN);
        final byte flags = in.getByte(offset + 16);
        return new Entry(compId, orderId, engineClientOrderId, accountId, instrumentId, side, ordType, timeInForce,
            postOnly, price, quantity, filled, notional, clOrdId, origClOrdId, stopPx, expireTimeNs,
            (flags & TRIGGERED) != 0, (flags & EXPIRE_BY_DATE) != 0);
    }
}
