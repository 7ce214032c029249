package io.bourse.gateway.fix;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The framer's record of the highest MsgSeqNum written per session: what a restarted gateway reads back, and when it
 * makes a session go on after it.
 */
class WrittenSequenceNumbersTest
{
    private static final UnsafeBuffer NO_METADATA = new UnsafeBuffer(new byte[0]);

    @TempDir
    File dir;

    private final List<Long> passedOn = new ArrayList<>();
    private final WrittenSequenceNumbers numbers = new WrittenSequenceNumbers(
        (sequenceNumber, connectionId, buffer, offset, length) -> passedOn.add(sequenceNumber));

    @Test
    void theHighestNumberWrittenOnATrackedConnectionIsKeptAcrossARestart()
    {
        final File file = new File(dir, "written.dat");
        try (FixEventPosition record = new FixEventPosition(file))
        {
            numbers.track(11, record, 3);
            written(11, 40);
            written(11, 41);
            // A resend writes earlier numbers again, PossDup: the highest stays.
            written(11, 12);
            // Another connection, not tracked, is not this session's.
            written(12, 900);
        }
        assertEquals(List.of(40L, 41L, 12L, 900L), passedOn, "every message is passed on");
        try (FixEventPosition record = new FixEventPosition(file))
        {
            assertEquals(3, record.batchSequence(), "sequence index");
            assertEquals(41, record.logPosition(), "highest MsgSeqNum written");
        }
    }

    @Test
    void aSessionGoesOnAfterTheLastNumberWrittenOnlyWhenArtioCountsFewerSentInTheSameSequenceIndex()
    {
        try (FixEventPosition record = new FixEventPosition(new File(dir, "written.dat")))
        {
            assertEquals(-1, WrittenSequenceNumbers.lastWrittenBefore(record, 0, 0), "nothing recorded yet");
            numbers.track(11, record, 2);
            written(11, 775);
        }
        try (FixEventPosition record = new FixEventPosition(new File(dir, "written.dat")))
        {
            assertEquals(775, WrittenSequenceNumbers.lastWrittenBefore(record, 2, 765));
            assertEquals(-1, WrittenSequenceNumbers.lastWrittenBefore(record, 2, 775), "Artio has them all");
            assertEquals(-1, WrittenSequenceNumbers.lastWrittenBefore(record, 2, 780), "Artio has more");
            assertEquals(-1, WrittenSequenceNumbers.lastWrittenBefore(record, 3, 1), "numbers reset since");
        }
    }

    @Test
    void aLogonInANewSequenceIndexStartsTheCountAgain()
    {
        final File file = new File(dir, "written.dat");
        try (FixEventPosition record = new FixEventPosition(file))
        {
            numbers.track(11, record, 2);
            written(11, 500);
            numbers.sequenceIndex(11, 3);
            written(11, 1);
            written(11, 2);
        }
        try (FixEventPosition record = new FixEventPosition(file))
        {
            assertEquals(3, record.batchSequence());
            assertEquals(2, record.logPosition());
        }
    }

    @Test
    void nothingIsRecordedForAConnectionOnceUntracked()
    {
        final File file = new File(dir, "written.dat");
        try (FixEventPosition record = new FixEventPosition(file);
            FixEventPosition other = new FixEventPosition(new File(dir, "other.dat")))
        {
            numbers.track(11, record, 1);
            numbers.track(12, other, 1);
            written(11, 5);
            numbers.untrack(11);
            written(11, 6);
            written(12, 7);
        }
        try (FixEventPosition record = new FixEventPosition(file);
            FixEventPosition other = new FixEventPosition(new File(dir, "other.dat")))
        {
            assertEquals(5, record.logPosition());
            assertEquals(7, other.logPosition(), "the other connection is still tracked");
        }
    }

    private void written(final long connectionId, final int msgSeqNum)
    {
        numbers.onMessage(msgSeqNum, connectionId, NO_METADATA, 0, 0);
    }
}
