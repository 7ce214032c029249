package io.bourse.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A JDBC URL is printed (in the store's lines and errors) without the password it may carry.
 */
class StoreDatabaseTest
{
    @Test
    void passwordsInTheUrlAreNotPrinted()
    {
        assertEquals("jdbc:postgresql://127.0.0.1:5432/bourse",
            StoreDatabase.redacted("jdbc:postgresql://127.0.0.1:5432/bourse"));
        assertEquals("jdbc:postgresql://127.0.0.1/bourse?user=bourse&password=***&ssl=true",
            StoreDatabase.redacted("jdbc:postgresql://127.0.0.1/bourse?user=bourse&password=s3cret&ssl=true"));
        assertEquals("jdbc:postgresql://127.0.0.1/bourse?PASSWORD=***&sslpassword=***",
            StoreDatabase.redacted("jdbc:postgresql://127.0.0.1/bourse?PASSWORD=hunter2&sslpassword=key-pw"));
        assertEquals("jdbc:postgresql://bourse:***@db.example:5432/bourse",
            StoreDatabase.redacted("jdbc:postgresql://bourse:hunter2@db.example:5432/bourse"));
    }
}
