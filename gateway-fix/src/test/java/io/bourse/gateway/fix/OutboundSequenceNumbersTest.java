package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The record of the highest MsgSeqNum handed to Artio per session: what a restarted gateway reads back, and when it
 * makes a session go on after it.
 */
class OutboundSequenceNumbersTest
{
    @TempDir
    File dir;

    private final OutboundSequenceNumbers numbers = new OutboundSequenceNumbers();

    @Test
    void theHighestNumberHandedOverOnATrackedConnectionIsKeptAcrossARestart()
    {
        try (OutboundSequenceNumbers.Numbers session = openSession())
        {
            numbers.track(11, session);
            numbers.beforeSend(11, 3, 40);
            numbers.beforeSend(11, 3, 41);
            // A lower number (the same one again, after back-pressure) moves nothing.
            numbers.beforeSend(11, 3, 12);
            // Another connection, not tracked, is not this session's.
            numbers.beforeSend(12, 3, 900);
        }
        try (FixEventPosition record = new FixEventPosition(file()))
        {
            assertEquals(3, record.batchSequence(), "sequence index");
            assertEquals(41, record.logPosition(), "highest MsgSeqNum handed over");
        }
    }

    @Test
    void aSessionGoesOnAfterTheRecordOnlyWhenArtioCountsFewerSentInTheSameSequenceIndex()
    {
        try (OutboundSequenceNumbers.Numbers session = openSession())
        {
            assertEquals(-1, session.beyond(0, 0), "nothing recorded yet");
            session.beforeSend(2, 775);
        }
        try (OutboundSequenceNumbers.Numbers session = openSession())
        {
            assertEquals(775, session.beyond(2, 765));
            assertEquals(-1, session.beyond(2, 775), "Artio has them all");
            assertEquals(-1, session.beyond(2, 780), "Artio has more");
            assertEquals(-1, session.beyond(3, 1), "numbers reset since");
        }
    }

    @Test
    void aLogonInANewSequenceIndexStartsTheCountAgain()
    {
        try (OutboundSequenceNumbers.Numbers session = openSession())
        {
            session.beforeSend(2, 500);
            session.beforeSend(3, 1);
            session.beforeSend(3, 2);
            assertEquals(2, session.beyond(3, 0));
        }
        try (FixEventPosition record = new FixEventPosition(file()))
        {
            assertEquals(3, record.batchSequence());
            assertEquals(2, record.logPosition());
        }
    }

    @Test
    void aConnectionUntrackedRecordsNothingMoreAndTheSessionKeepsItsCountOnItsNextConnection()
    {
        try (OutboundSequenceNumbers.Numbers session = openSession())
        {
            numbers.track(11, session);
            numbers.beforeSend(11, 1, 5);
            numbers.untrack(11);
            numbers.beforeSend(11, 1, 6);
            assertEquals(5, session.beyond(1, 0));
            numbers.track(12, session);
            numbers.beforeSend(12, 1, 3);
            assertEquals(5, session.beyond(1, 0), "a lower number on the next connection does not lower the record");
            numbers.beforeSend(12, 1, 7);
            assertEquals(7, session.beyond(1, 0));
        }
    }

    /**
     * The session's record as a gateway opens it at start: what earlier runs (in this test, earlier blocks) kept.
     */
    private OutboundSequenceNumbers.Numbers openSession()
    {
        return new OutboundSequenceNumbers.Numbers(new FixEventPosition(file()));
    }

    private File file()
    {
        return new File(dir, "outbound.dat");
    }
}
