package io.bourse.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The log position from which a reader of the journal outside the node (the post-trade store) still needs the log,
 * kept in a file in the node's data directory. The node's journal purge never removes log at or after it, whatever
 * the snapshots allow; without the file the snapshots alone decide.
 * <p>
 * The reader writes the file (atomically: a complete value or the previous one) before it starts reading and each
 * time it needs less; to stop holding the journal back for a reader that is gone for good, delete the file.
 */
public final class LogRetention
{
    /**
     * The file's name in the node's data directory.
     */
    public static final String FILE_NAME = "log-retention-floor";

    private LogRetention()
    {
    }

    /**
     * @return the position from which the log must be kept, or {@link Long#MAX_VALUE} when no reader has said.
     * @throws IllegalStateException when the file exists but does not hold a position.
     */
    public static long floor(final File dataDir)
    {
        final File file = new File(dataDir, FILE_NAME);
        final String text;
        try
        {
            text = Files.readString(file.toPath(), StandardCharsets.US_ASCII).trim();
        }
        catch (final NoSuchFileException ex)
        {
            return Long.MAX_VALUE;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read " + file + ": " + ex.getMessage(), ex);
        }
        try
        {
            final long position = Long.parseLong(text);
            if (position < 0)
            {
                throw new NumberFormatException("negative");
            }
            return position;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalStateException(file + " holds '" + text + "', not a log position");
        }
    }

    /**
     * Say that the log from {@code logPosition} on must be kept.
     */
    public static void floor(final File dataDir, final long logPosition)
    {
        final File file = new File(dataDir, FILE_NAME);
        final File temporary = new File(dataDir, FILE_NAME + ".tmp");
        try
        {
            // Synced before and after the rename: after a power loss the file holds this value or the one before,
            // never an empty or partial one that would stop the node from starting.
            try (FileChannel channel = FileChannel.open(temporary.toPath(), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))
            {
                channel.write(ByteBuffer.wrap((logPosition + "\n").getBytes(StandardCharsets.US_ASCII)));
                channel.force(true);
            }
            Files.move(temporary.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel directory = FileChannel.open(dataDir.toPath(), StandardOpenOption.READ))
            {
                directory.force(true);
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot write " + file + ": " + ex.getMessage(), ex);
        }
    }
}
