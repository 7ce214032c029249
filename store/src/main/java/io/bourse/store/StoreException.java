package io.bourse.store;

/**
 * A database error while writing history: the batch is rolled back and the store stops, to resume from its fence.
 */
public final class StoreException extends RuntimeException
{
    /**
     * @param cause the database's error, or null when the store found the fault itself.
     */
    public StoreException(final String message, final Throwable cause)
    {
        super(cause == null ? message : message + ": " + cause.getMessage(), cause);
    }
}
