package io.bourse.cluster;

import org.agrona.CloseHelper;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.StandardOpenOption;

/**
 * The lock on a data directory's {@code node.lock}: a node holds it for as long as it runs, the journal tools while
 * they read. Two nodes on one directory would corrupt each other's journal, and a tool reading a running node's files
 * would read them half-written. It is an operating-system file lock, so it goes with a process that dies: a node
 * killed with {@code kill -9} leaves no stale lock behind.
 */
public final class DataDirectoryLock implements AutoCloseable
{
    private static final String FILE_NAME = "node.lock";

    private final FileChannel channel;

    private DataDirectoryLock(final FileChannel channel)
    {
        this.channel = channel;
    }

    /**
     * @param dataDir an existing data directory.
     * @return the lock, or null when another process (or another node in this JVM) holds it.
     * @throws IllegalStateException when the lock file cannot be opened or locked.
     */
    public static DataDirectoryLock tryAcquire(final File dataDir)
    {
        return tryAcquire(dataDir, FILE_NAME);
    }

    /**
     * @param dataDir  an existing data directory.
     * @param fileName the lock file's name in it: another component's directory has its own.
     * @return the lock, or null when another process (or another holder in this JVM) holds it.
     * @throws IllegalStateException when the lock file cannot be opened or locked.
     */
    public static DataDirectoryLock tryAcquire(final File dataDir, final String fileName)
    {
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(
                new File(dataDir, fileName).toPath(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            if (channel.tryLock() != null)
            {
                return new DataDirectoryLock(channel);
            }
        }
        catch (final OverlappingFileLockException ex)
        {
            // Held by this JVM: as held by another process.
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(channel);
            throw new IllegalStateException("cannot lock data directory " + dataDir.getAbsolutePath(), ex);
        }
        CloseHelper.quietClose(channel);
        return null;
    }

    /**
     * Release the lock (closing the file releases it).
     */
    public void close()
    {
        CloseHelper.quietClose(channel);
    }
}
