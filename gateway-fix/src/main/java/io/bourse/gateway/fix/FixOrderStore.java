package io.bourse.gateway.fix;

import org.agrona.LangUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gateway's record of its open orders, so that after a restart ExecutionReports still carry the ClOrdID the
 * client gave and cancels by OrigClOrdID still find their order. An append-only file of fixed-size records in the
 * data directory: PENDING (a new order about to be sent to the exchange, written before it is, so that a gateway that
 * stops before the answer still knows the order the answer is about), OPEN (an order accepted, or its state after a
 * replace) and CLOSED (by order id, or by client order id for a pending order that was not accepted); on start it is
 * read, and rewritten with only the open and pending orders.
 * <p>
 * A record is written with one {@code write} call from a buffer allocated once; the operating system's page cache
 * keeps it across a process crash (not across a machine crash: that would need an fsync per order).
 */
final class FixOrderStore implements AutoCloseable
{
    static final byte OPEN = 1;
    static final byte CLOSED = 2;
    static final byte PENDING = 3;
    private static final int COMP_ID_LENGTH = 64;
    private static final int RECORD_LENGTH = 1 + 8 * 8 + 2 + COMP_ID_LENGTH + 2 * (2 + FixOrder.MAX_ID_LENGTH) + 2 + 2;

    /**
     * An open order as read back from the file; a pending one has order id 0.
     */
    record Entry(
        String senderCompId, long orderId, long engineClientOrderId, long accountId, int instrumentId, char side,
        char ordType, long price, long quantity, long filledQuantity, long executedNotional, String clOrdId,
        String origClOrdId)
    {
    }

    private final File file;
    private final ByteBuffer byteBuffer = ByteBuffer.allocateDirect(RECORD_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final UnsafeBuffer buffer = new UnsafeBuffer(byteBuffer);
    private FileChannel channel;

    FixOrderStore(final File file)
    {
        this.file = file;
    }

    /**
     * Read the open orders, compact the file to them, and open it for appending.
     */
    List<Entry> open()
    {
        final Map<Long, Entry> open = new LinkedHashMap<>();
        final Map<Long, Entry> pending = new LinkedHashMap<>();
        try
        {
            if (file.exists())
            {
                final byte[] bytes = Files.readAllBytes(file.toPath());
                final UnsafeBuffer in = new UnsafeBuffer(bytes);
                // A torn last record (crash mid-write) is shorter than a record and ignored.
                for (int offset = 0; offset + RECORD_LENGTH <= bytes.length; offset += RECORD_LENGTH)
                {
                    final byte type = in.getByte(offset);
                    final long orderId = in.getLong(offset + 1, ByteOrder.LITTLE_ENDIAN);
                    if (type == OPEN)
                    {
                        final Entry entry = read(in, offset);
                        open.put(orderId, entry);
                        pending.remove(entry.engineClientOrderId());
                    }
                    else if (type == PENDING)
                    {
                        final Entry entry = read(in, offset);
                        pending.put(entry.engineClientOrderId(), entry);
                    }
                    else if (type == CLOSED && orderId != 0)
                    {
                        open.remove(orderId);
                    }
                    else if (type == CLOSED)
                    {
                        pending.remove(in.getLong(offset + 9, ByteOrder.LITTLE_ENDIAN));
                    }
                }
            }
            final File compacted = new File(file.getPath() + ".tmp");
            try (FileChannel out = FileChannel.open(compacted.toPath(),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))
            {
                for (final Entry entry : concat(open.values(), pending.values()))
                {
                    encode(entry);
                    byteBuffer.clear();
                    while (byteBuffer.hasRemaining())
                    {
                        out.write(byteBuffer);
                    }
                }
                out.force(true);
            }
            Files.move(compacted.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
            channel = FileChannel.open(file.toPath(), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            LangUtil.rethrowUnchecked(ex);
        }
        return concat(open.values(), pending.values());
    }

    private static List<Entry> concat(final Collection<Entry> open, final Collection<Entry> pending)
    {
        final List<Entry> entries = new ArrayList<>(open);
        entries.addAll(pending);
        return entries;
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
        buffer.setMemory(0, RECORD_LENGTH, (byte)0);
        buffer.putByte(0, type);
        int offset = 1;
        buffer.putLong(offset, order.orderId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.engineClientOrderId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.accountId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, instrumentId, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.price, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.quantity, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.filledQuantity, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putLong(offset, order.executedNotional, ByteOrder.LITTLE_ENDIAN);
        offset += 8;
        buffer.putChar(offset, order.side, ByteOrder.LITTLE_ENDIAN);
        offset += 2;
        buffer.putShort(offset, (short)compId.length(), ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < compId.length(); i++)
        {
            buffer.putByte(offset + 2 + i, (byte)compId.charAt(i));
        }
        offset += 2 + COMP_ID_LENGTH;
        offset = putChars(offset, order.clOrdId, order.clOrdIdLength);
        offset = putChars(offset, order.origClOrdId, order.origClOrdIdLength);
        buffer.putChar(offset, order.ordType, ByteOrder.LITTLE_ENDIAN);
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

    private int putChars(final int offset, final char[] value, final int length)
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
        }
        catch (final IOException ex)
        {
            LangUtil.rethrowUnchecked(ex);
        }
    }

    private void encode(final Entry entry)
    {
        final FixOrder order = new FixOrder();
        order.orderId = entry.orderId();
        order.engineClientOrderId = entry.engineClientOrderId();
        order.accountId = entry.accountId();
        order.price = entry.price();
        order.quantity = entry.quantity();
        order.filledQuantity = entry.filledQuantity();
        order.executedNotional = entry.executedNotional();
        order.side = entry.side();
        order.ordType = entry.ordType();
        order.clOrdId(entry.clOrdId().toCharArray(), entry.clOrdId().length());
        order.origClOrdId(entry.origClOrdId().toCharArray(), entry.origClOrdId().length());
        encode(entry.orderId() == 0 ? PENDING : OPEN, entry.senderCompId(), entry.instrumentId(), order);
    }

    private static Entry read(final UnsafeBuffer in, final int start)
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
        final char side = in.getChar(offset, ByteOrder.LITTLE_ENDIAN);
        offset += 2;
        final String compId = in.getStringWithoutLengthAscii(offset + 2, in.getShort(offset, ByteOrder.LITTLE_ENDIAN));
        offset += 2 + COMP_ID_LENGTH;
        final String clOrdId = in.getStringWithoutLengthAscii(offset + 2, in.getShort(offset, ByteOrder.LITTLE_ENDIAN));
        offset += 2 + FixOrder.MAX_ID_LENGTH;
        final String origClOrdId =
            in.getStringWithoutLengthAscii(offset + 2, in.getShort(offset, ByteOrder.LITTLE_ENDIAN));
        offset += 2 + FixOrder.MAX_ID_LENGTH;
        final char ordType = in.getChar(offset, ByteOrder.LITTLE_ENDIAN);
        return new Entry(compId, orderId, engineClientOrderId, accountId, instrumentId, side, ordType, price, quantity,
            filled, notional, clOrdId, origClOrdId);
    }
}
