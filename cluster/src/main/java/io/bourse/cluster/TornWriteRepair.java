package io.bourse.cluster;

import io.aeron.archive.ArchiveTool;
import io.aeron.archive.CatalogView;
import io.aeron.archive.client.ArchiveException;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import org.agrona.BitUtil;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static io.aeron.archive.client.AeronArchive.NULL_POSITION;

/**
 * Cuts a journal write that a crash tore in two, so that the node can start again by itself.
 * <p>
 * Linux may stop a process killed with {@code kill -9} in the middle of a {@code write}, between two pages of the
 * file. The archive then finds, at the end of a recording that was never stopped, a fragment that spans a page
 * boundary with an empty page after it; it cannot tell a fragment cut short from one that ends in zeros, so it
 * refuses to start and asks for {@code ArchiveTool verify}. The node records with a CRC-32C in every data fragment
 * ({@link RecordChecksum}), which tells them apart: a fragment whose bytes do not match its checksum was not wholly
 * written. Such a fragment was never counted in the recording's position, so it was never committed nor answered,
 * and cutting it loses nothing a client was told. A whole fragment (its checksum matches, or it is padding, which is
 * recorded as a header alone) is kept, and the recording then stops after it.
 */
final class TornWriteRepair
{
    private static final int READ_CHUNK = 1024 * 1024;

    private TornWriteRepair()
    {
    }

    /**
     * @return whether the archive refused to start because of a fragment that may be torn. Aeron gives this refusal
     * no error code of its own, only its message.
     */
    static boolean isTornWrite(final Throwable error)
    {
        return error instanceof ArchiveException && error.getMessage() != null &&
            error.getMessage().contains("incomplete last fragment straddling page boundary");
    }

    /**
     * Settle where every recording the crash left open (without a stop position) ends, cutting a torn last fragment.
     * The archive must not be running.
     *
     * @param log where the node's log goes: each cut is named there.
     * @throws IllegalStateException when a recording's last segment is damaged otherwise; the archive's verdict is
     *                               printed to the log first.
     */
    static void cutTornWrites(final File archiveDir, final PrintStream log, final int memberId)
    {
        final List<long[]> openRecordings = new ArrayList<>();
        CatalogView.listRecordings(archiveDir, (controlSessionId, correlationId, recordingId, startTimestamp,
            stopTimestamp, startPosition, stopPosition, initialTermId, segmentFileLength, termBufferLength, mtuLength,
            sessionId, streamId, strippedChannel, originalChannel, sourceIdentity) ->
        {
            if (stopPosition == NULL_POSITION)
            {
                openRecordings.add(new long[] { recordingId, startPosition, termBufferLength });
            }
        });
        for (final long[] recording : openRecordings)
        {
            final long recordingId = recording[0];
            final long startPosition = recording[1];
            final long startTermBase = startPosition - (startPosition & (recording[2] - 1));
            // No checksum class for the tool: Aeron's own needs --add-opens. The tool asks about a fragment that may
            // be torn, and the answer (cut it or keep it) comes from this node's checksum.
            final boolean ok = ArchiveTool.verifyRecording(log, archiveDir, recordingId,
                EnumSet.noneOf(ArchiveTool.VerifyOption.class), null, segmentFile ->
                {
                    final long segmentBase = segmentBase(segmentFile);
                    final long fromOffset = segmentBase == startTermBase ? startPosition - startTermBase : 0;
                    final boolean torn = isLastFragmentTorn(segmentFile, fromOffset);
                    log.printf("bourse node %d: the last fragment of %s spans a page boundary with an empty page " +
                        "after it: %s%n", memberId, segmentFile, torn ?
                        "its checksum does not match, a write torn by the crash (never committed): cutting it" :
                        "it is whole (its checksum matches, or it is padding): keeping it");
                    return torn;
                });
            if (!ok)
            {
                throw new IllegalStateException("the journal's recording " + recordingId + " in " + archiveDir +
                    " is damaged beyond a torn last write (see the archive's verdict above); restore the data " +
                    "directory from a backup or, in a cluster, from another member");
            }
        }
    }

    /**
     * @return whether the last fragment of the segment file, scanning frames from {@code fromOffset}, is a data
     * fragment whose bytes do not match the checksum recorded in its header.
     */
    static boolean isLastFragmentTorn(final File segmentFile, final long fromOffset)
    {
        try (FileChannel channel = FileChannel.open(segmentFile.toPath(), StandardOpenOption.READ))
        {
            final ByteBuffer chunk = ByteBuffer.allocate(READ_CHUNK).order(ByteOrder.LITTLE_ENDIAN);
            long chunkStart = fromOffset;
            int chunkLength = read(channel, chunk, chunkStart);
            long offset = fromOffset;
            long lastOffset = -1;
            int lastLength = 0;
            while (true)
            {
                if (offset + DataHeaderFlyweight.HEADER_LENGTH > chunkStart + chunkLength)
                {
                    chunkStart = offset;
                    chunkLength = read(channel, chunk, chunkStart);
                    if (chunkLength < DataHeaderFlyweight.HEADER_LENGTH)
                    {
                        break;
                    }
                }
                final int frameLength = chunk.getInt((int)(offset - chunkStart));
                if (frameLength <= 0)
                {
                    break;
                }
                lastOffset = offset;
                lastLength = BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT);
                offset += lastLength;
            }
            if (lastOffset < 0)
            {
                return false;
            }
            final ByteBuffer fragment = ByteBuffer.allocate(lastLength).order(ByteOrder.LITTLE_ENDIAN);
            read(channel, fragment, lastOffset);
            if (fragment.getShort(DataHeaderFlyweight.TYPE_FIELD_OFFSET) != DataHeaderFlyweight.HDR_TYPE_DATA)
            {
                return false;
            }
            return !RecordChecksum.frameMatches(fragment, 0, lastLength);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("reading " + segmentFile, ex);
        }
    }

    private static int read(final FileChannel channel, final ByteBuffer buffer, final long position)
        throws IOException
    {
        buffer.clear();
        int total = 0;
        while (buffer.hasRemaining())
        {
            final int read = channel.read(buffer, position + total);
            if (read < 0)
            {
                break;
            }
            total += read;
        }
        return total;
    }

    private static long segmentBase(final File segmentFile)
    {
        final String name = segmentFile.getName();
        return Long.parseLong(name.substring(name.indexOf('-') + 1, name.lastIndexOf('.')));
    }
}
