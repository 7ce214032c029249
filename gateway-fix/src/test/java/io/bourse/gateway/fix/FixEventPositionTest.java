package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The gateway's record of its last reported batch: the latest record is read back, a record torn by a crash leaves
 * the one before it, and a file too short to hold one is started afresh.
 */
class FixEventPositionTest
{
    @TempDir
    File dir;

    @Test
    void theLatestRecordIsReadBack()
    {
        final File file = new File(dir, "event-position.dat");
        try (FixEventPosition position = new FixEventPosition(file))
        {
            assertEquals(0, position.batchSequence());
            position.record(7, 700);
            position.record(8, 864);
        }
        try (FixEventPosition position = new FixEventPosition(file))
        {
            assertEquals(8, position.batchSequence());
            assertEquals(864, position.logPosition());
        }
    }

    @Test
    void aTornRecordLeavesTheOneBefore() throws IOException
    {
        final File file = new File(dir, "event-position.dat");
        try (FixEventPosition position = new FixEventPosition(file))
        {
            position.record(7, 700);
            position.record(8, 864);
        }
        // The second record (slot 0: records alternate from slot 1) loses its log position, as a kill would leave it.
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.seek(2 * Long.BYTES);
            raf.write(new byte[Long.BYTES]);
        }
        try (FixEventPosition position = new FixEventPosition(file))
        {
            assertEquals(7, position.batchSequence());
            assertEquals(700, position.logPosition());
        }
    }

    @Test
    void aFileTooShortForARecordStartsAfresh() throws IOException
    {
        final File file = new File(dir, "event-position.dat");
        Files.write(file.toPath(), new byte[3]);
        try (FixEventPosition position = new FixEventPosition(file))
        {
            assertEquals(0, position.batchSequence());
            position.record(1, 128);
        }
        try (FixEventPosition position = new FixEventPosition(file))
        {
            assertEquals(1, position.batchSequence());
        }
    }
}
