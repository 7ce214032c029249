package io.bourse.cluster;

import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a stopped or running node's journal files for tests: the recording log's entries and the archive's
 * segment files ({@code <recordingId>-<segmentBasePosition>.rec}).
 */
final class JournalFiles
{
    private final File dataDir;

    JournalFiles(final File dataDir)
    {
        this.dataDir = dataDir;
    }

    /**
     * @return valid snapshot entries of the given service (0 for the exchange, -1 for the consensus module), oldest first.
     */
    List<RecordingLog.Entry> snapshots(final int serviceId)
    {
        final List<RecordingLog.Entry> snapshots = new ArrayList<>();
        try (RecordingLog recordingLog = new RecordingLog(new File(dataDir, "cluster"), false))
        {
            for (final RecordingLog.Entry entry : recordingLog.entries())
            {
                if (entry.isValid && entry.type == RecordingLog.ENTRY_TYPE_SNAPSHOT && entry.serviceId == serviceId)
                {
                    snapshots.add(entry);
                }
            }
        }
        snapshots.sort((a, b) -> Long.compare(a.logPosition, b.logPosition));
        return snapshots;
    }

    String describe()
    {
        try (RecordingLog recordingLog = new RecordingLog(new File(dataDir, "cluster"), false))
        {
            return recordingLog.toString();
        }
    }

    RecordingLog.Entry latestServiceSnapshot()
    {
        final List<RecordingLog.Entry> snapshots = snapshots(0);
        return snapshots.get(snapshots.size() - 1);
    }

    long logRecordingId()
    {
        try (RecordingLog recordingLog = new RecordingLog(new File(dataDir, "cluster"), false))
        {
            return recordingLog.findLastTermRecordingId();
        }
    }

    static int consensusModuleServiceId()
    {
        return ConsensusModule.Configuration.SERVICE_ID;
    }

    /**
     * @return the recording's segment files, in position order.
     */
    File[] segmentFiles(final long recordingId)
    {
        final File[] files = new File(dataDir, "archive").listFiles((dir, name) ->
            name.startsWith(recordingId + "-") && name.endsWith(".rec"));
        final File[] sorted = files == null ? new File[0] : files;
        Arrays.sort(sorted, (a, b) -> Long.compare(segmentBase(a), segmentBase(b)));
        return sorted;
    }

    static long segmentBase(final File segmentFile)
    {
        final String name = segmentFile.getName();
        return Long.parseLong(name.substring(name.indexOf('-') + 1, name.length() - ".rec".length()));
    }

    /**
     * @return the length of a segment file up to its last non-zero byte: segment files may be pre-allocated.
     */
    static long dataLength(final File file) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "r"))
        {
            final byte[] bytes = new byte[(int)raf.length()];
            raf.readFully(bytes);
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] == 0)
            {
                end--;
            }
            return end;
        }
    }

    static void flipBytes(final File file, final long position, final int count) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            for (int i = 0; i < count; i++)
            {
                raf.seek(position + i);
                final int value = raf.read();
                raf.seek(position + i);
                raf.write(value ^ 0xFF);
            }
        }
    }

    static void truncate(final File file, final long length) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.setLength(length);
        }
    }
}
