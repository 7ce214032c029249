package io.bourse.gateway.fix;

import io.aeron.archive.status.RecordingPos;
import org.agrona.concurrent.status.CountersReader;
import uk.co.real_logic.artio.protocol.GatewayPublication;

import java.util.concurrent.TimeUnit;

/**
 * How far Artio's archive has recorded the library's outbound stream, the messages the gateway sends: the archive's
 * recording position counter for that stream, read from the gateway's media driver (see {@link AfterArchive}).
 * <p>
 * The library's publication becomes known with its first session (Artio's session proxy factory is given it); the
 * counter is looked up again when the publication changes (Artio moves a reconnected library to a new one that
 * extends the same recording). Used on the gateway's thread only.
 */
final class OutboundArchivePosition
{
    /**
     * What {@link #position} answers while no recording of the stream is known (none started yet, or outbound
     * messages not archived): records then wait for nothing, as they would without this.
     */
    static final long UNKNOWN = Long.MAX_VALUE;
    private static final int NO_SESSION = 0;
    private static final long LOOKUP_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(10);

    private final CountersReader counters;
    private final long archiveId;
    private GatewayPublication publication;
    private int sessionId = NO_SESSION;
    private int counterId = CountersReader.NULL_COUNTER_ID;
    private long recordingId;
    private long nextLookupNs;

    /**
     * @param counters  the counters of the media driver Artio's archive runs on.
     * @param archiveId that archive's id.
     */
    OutboundArchivePosition(final CountersReader counters, final long archiveId)
    {
        this.counters = counters;
        this.archiveId = archiveId;
    }

    /**
     * The library's outbound publication, as Artio hands it to each session's proxy.
     */
    void publication(final GatewayPublication publication)
    {
        this.publication = publication;
    }

    /**
     * @return how far the library has written the stream (0 before its first session).
     */
    long publishedPosition()
    {
        return publication == null ? 0 : publication.position();
    }

    /**
     * @return the stream's position up to which the archive has recorded it, or {@link #UNKNOWN}: a few counter reads
     * once the recording is known, a scan of the counters at most every 10 ms until then.
     */
    long position()
    {
        if (publication == null)
        {
            return UNKNOWN;
        }
        final int currentSessionId = publication.sessionId();
        if (currentSessionId != sessionId ||
            counterId != CountersReader.NULL_COUNTER_ID && !RecordingPos.isActive(counters, counterId, recordingId))
        {
            sessionId = currentSessionId;
            counterId = CountersReader.NULL_COUNTER_ID;
            nextLookupNs = System.nanoTime();
        }
        if (counterId == CountersReader.NULL_COUNTER_ID)
        {
            final long nowNs = System.nanoTime();
            if (nowNs - nextLookupNs < 0)
            {
                return UNKNOWN;
            }
            nextLookupNs = nowNs + LOOKUP_INTERVAL_NS;
            counterId = RecordingPos.findCounterIdBySession(counters, sessionId, archiveId);
            if (counterId == CountersReader.NULL_COUNTER_ID)
            {
                return UNKNOWN;
            }
            recordingId = RecordingPos.getRecordingId(counters, counterId);
        }
        return counters.getCounterValue(counterId);
    }
}
