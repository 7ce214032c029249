package io.aeron.archive;

import java.io.File;

import static io.aeron.archive.client.AeronArchive.NULL_POSITION;

/**
 * For tests: marks a recording as still being recorded, as the catalog of an archive killed while recording it
 * shows. The catalog's writer is package-private in Aeron.
 */
public final class CatalogAccess
{
    private CatalogAccess()
    {
    }

    public static void markRecordingOpen(final File archiveDir, final long recordingId)
    {
        try (Catalog catalog = new Catalog(archiveDir, System::currentTimeMillis, Catalog.MIN_CAPACITY, true, null,
            null))
        {
            catalog.stopPosition(recordingId, NULL_POSITION);
        }
    }
}
