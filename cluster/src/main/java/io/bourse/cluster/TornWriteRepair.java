package io.bourse.cluster;

import io.aeron.archive.ArchiveTool;
import io.aeron.archive.CatalogView;
import io.aeron.archive.client.ArchiveException;
import io.aeron.archive.codecs.CatalogHeaderEncoder;
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
import java.util.function.Supplier;

import static io.aeron.archive.client.AeronArchive.NULL_POSITION;

/**
 * Cuts a journal write that a crash tore in two, and counts a recording whose addition to the catalog a crash cut short
 * ({@link #countLastRecording}), so that the node (or a FIX gateway, whose message archive is an Aeron archive too) can
 * start again by itself.
 * <p>
 * Linux may stop a process killed with {@code kill -9} in the middle of a {@code write}, between two pages of the
 * file. The archive then finds, at the end of a recording that was never stopped, a fragment that spans a page
 * boundary with an empty page after it; it cannot tell a fragment cut short from one that ends in zeros, so it
 * refuses to start and asks for {@code ArchiveTool verify}. The node records with a CRC-32C in every data fragment
 * ({@link RecordChecksum}), which tells them apart: a fragment whose bytes do not match its checksum was not wholly
 * written. Such a fragment was never counted in the recording's position, so it was never committed nor answered,
 * and cutting it loses nothing a client was told. A whole fragment (its checksum matches, or it is padding, which is
 * recorded as a header alone) is kept, and the recording then stops after it.
 * <p>
 * An archive it repairs must record with {@link RecordChecksum}.
 */
public final class TornWriteRepair
{
    private static final int READ_CHUNK = 1024 * 1024;
    private static final String CATALOG_FILE = "archive.catalog";
    /**
     * No recording's session id: every fragment is judged by its checksum.
     */
    static final long NO_SESSION_ID = Long.MIN_VALUE;

    private TornWriteRepair()
    {
    }

    /**
     * Start an archive on a directory a crash may have left with a torn last write: cut the last fragments whose
     * checksums show them torn ({@link #cutTornLastFragments}), launch, and if the archive still refuses to start
     * because of a fragment that may be torn, cut by the checksums where the archive points ({@link #cutTornWrites})
     * and launch again.
     *
     * @param launch starts the archive with what it runs on (its media driver), all afresh each time: a refused start
     *               leaves its client's counters in the driver, which would refuse the next one, so a launch that
     *               fails must close what it started.
     * @param who    what the log lines begin with, e.g. "bourse node 0".
     */
    public static <T> T launch(final File archiveDir, final PrintStream log, final String who, final Supplier<T> launch)
    {
        countLastRecording(archiveDir, log, who);
        cutTornLastFragments(archiveDir, log, who);
        try
        {
            return launch.get();
        }
        catch (final RuntimeException ex)
        {
            if (!isTornWrite(ex))
            {
                throw ex;
            }
            log.printf("%s: %s%n", who, ex.getMessage().lines().findFirst().orElse(""));
            cutTornWrites(archiveDir, log, who);
            return launch.get();
        }
    }

    /**
     * Before the archive starts: make the catalog's next recording id count the last recording it describes. Aeron adds
     * a recording by writing its descriptor into the catalog and then the catalog header's next recording id (both in
     * memory-mapped pages); a process killed between the two stores leaves a whole descriptor the header does not count,
     * and the archive then refuses to start ("invalid nextRecordingId"). The descriptor was written first and whole, so
     * the header is brought up to it, as the next store would have done: the recording it names had at most begun, and
     * nothing in it was committed. The catalog is read by Aeron's read-only view, which does not check the header.
     *
     * @param log where the process's log goes: a repair is named there.
     * @param who what the log lines begin with, e.g. "bourse node 0".
     */
    static void countLastRecording(final File archiveDir, final PrintStream log, final String who)
    {
        final File catalog = new File(archiveDir, CATALOG_FILE);
        if (!catalog.exists())
        {
            return;
        }
        final long[] lastRecordingId = {-1};
        CatalogView.listRecordings(archiveDir, (controlSessionId, correlationId, recordingId, startTimestamp,
            stopTimestamp, startPosition, stopPosition, initialTermId, segmentFileLength, termBufferLength, mtuLength,
            sessionId, streamId, strippedChannel, originalChannel, sourceIdentity) ->
            lastRecordingId[0] = Math.max(lastRecordingId[0], recordingId));
        try (FileChannel channel = FileChannel.open(catalog.toPath(), StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer field = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            final int offset = CatalogHeaderEncoder.nextRecordingIdEncodingOffset();
            channel.read(field, offset);
            final long nextRecordingId = field.getLong(0);
            if (field.position() == Long.BYTES && nextRecordingId < lastRecordingId[0] + 1)
            {
                log.printf("%s: the journal's catalog counts %d recordings but describes recording %d, added as the " +
                    "crash came: counting it%n", who, nextRecordingId, lastRecordingId[0]);
                field.clear();
                field.putLong(0, lastRecordingId[0] + 1);
                while (field.hasRemaining())
                {
                    channel.write(field, offset + field.position());
                }
                channel.force(false);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @return whether the archive refused to start because of a fragment that may be torn. Aeron gives this refusal
     * no error code of its own, only its message.
     */
    public static boolean isTornWrite(final Throwable error)
    {
        return error instanceof ArchiveException && error.getMessage() != null &&
            error.getMessage().contains("incomplete last fragment straddling page boundary");
    }

    /**
     * Settle where every recording the crash left open (without a stop position) ends, cutting a torn last fragment.
     * The archive must not be running.
     *
     * @param log where the process's log goes: each cut is named there.
     * @param who  what the log lines begin with, e.g. "bourse node 0".
     * @throws IllegalStateException when a recording's last segment is damaged otherwise; the archive's verdict is
     *                               printed to the log first.
     */
    public static void cutTornWrites(final File archiveDir, final PrintStream log, final String who)
    {
        for (final OpenRecording recording : openRecordings(archiveDir))
        {
            // No checksum class for the tool: Aeron's own needs --add-opens. The tool asks about a fragment that may
            // be torn, and the answer (cut it or keep it) comes from this node's checksum.
            final boolean ok = ArchiveTool.verifyRecording(log, archiveDir, recording.recordingId(),
                EnumSet.noneOf(ArchiveTool.VerifyOption.class), null, segmentFile ->
                {
                    final boolean torn = isLastFragmentTorn(segmentFile, recording.fromOffset(segmentFile));
                    log.printf("%s: the last fragment of %s spans a page boundary with an empty page " +
                        "after it: %s%n", who, segmentFile, torn ?
                        "its checksum does not match, a write torn by the crash (never committed): cutting it" :
                        "it is whole (its checksum matches, or it is padding): keeping it");
                    return torn;
                });
            if (!ok)
            {
                throw new IllegalStateException("the recording " + recording.recordingId() + " in " +
                    archiveDir +
                    " is damaged beyond a torn last write (see the archive's verdict above); restore the data " +
                    "directory from a backup (a cluster member can also take another member's)");
            }
        }
    }

    /**
     * Before the archive starts: cut the torn last fragment of every recording the crash left open, judged by this
     * node's checksum. The archive's own judgement, on start, misses some: Aeron 1.50 reads the segment in 1 MiB
     * chunks that start wherever a fragment does, and looks for the empty page after the boundary at multiples of 4 KiB
     * from the chunk's start rather than the file's; when the chunk does not start on a page the place it looks can lie
     * past the fragment, it finds nothing empty, takes the torn fragment as whole and the node applies the command
     * with its torn bytes (a CrashRecoveryTest run found one: a NewOrder whose last 64 bytes were zeros, refused on
     * recovery although the order had been valid). A fragment recorded without a checksum (its session id field holds
     * the recording's session id) cannot be judged here and is left to the archive.
     *
     * @param log where the process's log goes: each cut is named there.
     * @param who  what the log lines begin with, e.g. "bourse node 0".
     */
    public static void cutTornLastFragments(final File archiveDir, final PrintStream log, final String who)
    {
        if (!new File(archiveDir, CATALOG_FILE).exists())
        {
            return;
        }
        for (final OpenRecording recording : openRecordings(archiveDir))
        {
            final File segmentFile = lastSegmentFile(archiveDir, recording.recordingId());
            if (segmentFile == null)
            {
                continue;
            }
            final long tornOffset =
                tornLastFragmentOffset(segmentFile, recording.fromOffset(segmentFile), recording.sessionId());
            if (tornOffset >= 0)
            {
                log.printf("%s: the last fragment of %s (at offset %d) does not match its checksum, a " +
                    "write torn by the crash (never committed): cutting it%n", who, segmentFile, tornOffset);
                cut(segmentFile, tornOffset, recording.segmentFileLength());
            }
        }
    }

    /**
     * A recording the crash left open (without a stop position).
     */
    private record OpenRecording(
        long recordingId, long startPosition, int termBufferLength, long segmentFileLength, int sessionId)
    {
        /**
         * @return where the recording's frames begin in one of its segment files: past its start position in the
         * segment that holds it, at 0 in later ones.
         */
        long fromOffset(final File segmentFile)
        {
            final long startTermBase = startPosition - (startPosition & (termBufferLength - 1));
            return segmentBase(segmentFile) == startTermBase ? startPosition - startTermBase : 0;
        }
    }

    private static List<OpenRecording> openRecordings(final File archiveDir)
    {
        final List<OpenRecording> openRecordings = new ArrayList<>();
        CatalogView.listRecordings(archiveDir, (controlSessionId, correlationId, recordingId, startTimestamp,
            stopTimestamp, startPosition, stopPosition, initialTermId, segmentFileLength, termBufferLength, mtuLength,
            sessionId, streamId, strippedChannel, originalChannel, sourceIdentity) ->
        {
            if (stopPosition == NULL_POSITION)
            {
                openRecordings.add(new OpenRecording(
                    recordingId, startPosition, termBufferLength, segmentFileLength, sessionId));
            }
        });
        return openRecordings;
    }

    /**
     * @return whether the last fragment of the segment file, scanning frames from {@code fromOffset}, is a data
     * fragment whose bytes do not match the checksum recorded in its header.
     */
    static boolean isLastFragmentTorn(final File segmentFile, final long fromOffset)
    {
        return tornLastFragmentOffset(segmentFile, fromOffset, NO_SESSION_ID) >= 0;
    }

    /**
     * @param recordingSessionId the recording's session id: a fragment that holds it was recorded without a checksum
     *                           and is not judged; {@link #NO_SESSION_ID} to judge every fragment by its checksum.
     * @return where the last fragment of the segment file starts, scanning frames from {@code fromOffset}, if it is a
     * data fragment whose bytes do not match the checksum recorded in its header; -1 otherwise.
     */
    static long tornLastFragmentOffset(final File segmentFile, final long fromOffset, final long recordingSessionId)
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
                return -1;
            }
            final ByteBuffer fragment = ByteBuffer.allocate(lastLength).order(ByteOrder.LITTLE_ENDIAN);
            read(channel, fragment, lastOffset);
            if (fragment.getShort(DataHeaderFlyweight.TYPE_FIELD_OFFSET) != DataHeaderFlyweight.HDR_TYPE_DATA ||
                fragment.getInt(DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET) == recordingSessionId)
            {
                return -1;
            }
            return RecordChecksum.frameMatches(fragment, 0, lastLength) ? -1 : lastOffset;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("reading " + segmentFile, ex);
        }
    }

    /**
     * Cut a segment file at an offset, keeping its length, as the archive cuts one: zeros from there on.
     */
    static void cut(final File segmentFile, final long offset, final long segmentFileLength)
    {
        try (FileChannel channel = FileChannel.open(segmentFile.toPath(), StandardOpenOption.WRITE))
        {
            channel.truncate(offset);
            if (channel.write(ByteBuffer.allocate(1), segmentFileLength - 1) != 1)
            {
                throw new IOException("could not restore the length of " + segmentFile);
            }
            channel.force(true);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cutting " + segmentFile, ex);
        }
    }

    /**
     * @return the recording's segment file that starts furthest into it (the one being written when the crash came),
     * or null when it has none.
     */
    private static File lastSegmentFile(final File archiveDir, final long recordingId)
    {
        final String prefix = recordingId + "-";
        final File[] files = archiveDir.listFiles((dir, name) -> name.startsWith(prefix) && name.endsWith(".rec"));
        File last = null;
        if (files != null)
        {
            for (final File file : files)
            {
                if (last == null || segmentBase(file) > segmentBase(last))
                {
                    last = file;
                }
            }
        }
        return last;
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
