package io.bourse.store;

/**
 * A database error while writing history: the batch is rolled back and the store stops, to resume from its fence.
 */
public final class StoreException extends RuntimeException
{
    public StoreException(final String message, final Throwable cause)
    {
        super(message + ": " + cause.getMessage(), cause);
    }
}
