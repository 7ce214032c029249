package io.bourse.store;

import org.agrona.CloseHelper;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * The store's database: opens SQLite (in WAL mode) or PostgreSQL through JDBC, brings the schema up to date with the
 * versioned migrations in {@code io/bourse/store/migrations}, and reads the store's fence and snapshot. One schema and
 * one code path for both; the only difference is the 64-bit key type the migrations are given.
 */
public final class StoreDatabase implements AutoCloseable
{
    /**
     * The database kinds supported.
     */
    public enum Dialect
    {
        SQLITE("INTEGER"),
        POSTGRESQL("BIGINT");

        private final String keyType;

        Dialect(final String keyType)
        {
            this.keyType = keyType;
        }
    }

    /**
     * Migrations in order; version N is {@code V<N>__<name>.sql}. Add new ones at the end, never edit an applied one.
     */
    static final List<String> MIGRATIONS = List.of("V1__history.sql", "V2__ledger_index_off_write_path.sql",
        "V3__settlements_in_their_rows.sql", "V4__history_pages_by_time.sql", "V5__order_terms.sql",
        "V6__orders_by_client_order_id.sql", "V7__hourly_candles.sql", "V8__stop_orders.sql");

    /**
     * The store's position and snapshot as last committed.
     *
     * @param logPosition         the fence: every row for the log up to here is written, nothing after it.
     * @param timestampNs         cluster time of the last message before the fence.
     * @param snapshotLogPosition where the store's snapshot was taken, 0 for none (start from empty state).
     */
    public record Fence(long logPosition, long timestampNs, long snapshotLogPosition)
    {
    }

    /**
     * The PostgreSQL advisory lock a writing store holds on its database: "Bourse" in ASCII.
     */
    private static final long WRITER_LOCK_KEY = 0x426F75727365L;

    private final Connection connection;
    private final Dialect dialect;
    private final String description;
    /**
     * The SQLite file, or null for PostgreSQL.
     */
    private final File sqliteFile;
    private FileChannel writerLockFile;
    private boolean holdsAdvisoryLock;

    private StoreDatabase(
        final Connection connection, final Dialect dialect, final String description, final File sqliteFile)
    {
        this.connection = connection;
        this.dialect = dialect;
        this.description = description;
        this.sqliteFile = sqliteFile;
    }

    /**
     * Take the database for this store alone to write: two stores writing one database would each fail on the other's
     * rows and move each other's fence. PostgreSQL: an advisory lock held by this connection's session; SQLite: a lock
     * on a file beside the database. Either goes with the connection or the process.
     *
     * @throws IllegalStateException when another store holds it.
     */
    private void lockForWriting() throws SQLException
    {
        final String held = "another post-trade store is writing " + description + ": one store per database (a " +
            "cluster's members each need their own, or one store for the cluster); or this store's own connection " +
            "before a network cut, until the server finds it gone";
        if (dialect == Dialect.POSTGRESQL)
        {
            try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT pg_try_advisory_lock(" + WRITER_LOCK_KEY + ")"))
            {
                final boolean locked = result.next() && result.getBoolean(1);
                if (!connection.getAutoCommit())
                {
                    // The lock is the session's: it outlives this transaction.
                    connection.commit();
                }
                if (!locked)
                {
                    throw new IllegalStateException(held);
                }
                holdsAdvisoryLock = true;
            }
            return;
        }
        final File lockFile = new File(sqliteFile.getPath() + ".writer-lock");
        try
        {
            final FileChannel channel = FileChannel.open(lockFile.toPath(), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
            FileLock lock = null;
            try
            {
                lock = channel.tryLock();
            }
            catch (final OverlappingFileLockException ex)
            {
                // Held by another store in this process.
            }
            finally
            {
                if (lock == null)
                {
                    channel.close();
                }
            }
            if (lock == null)
            {
                throw new IllegalStateException(held);
            }
            writerLockFile = channel;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot lock " + lockFile + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Open the database and apply any migrations it has not had yet.
     *
     * @param jdbcUrl   a PostgreSQL JDBC URL ({@code jdbc:postgresql://...}), or empty for SQLite.
     * @param sqliteFile the SQLite database file when {@code jdbcUrl} is empty.
     * @param user      PostgreSQL user, may be null when given in the URL.
     * @param password  PostgreSQL password, may be null.
     * @throws IllegalArgumentException for a URL of an unsupported database.
     * @throws IllegalStateException    naming the database when it cannot be opened or migrated.
     */
    public static StoreDatabase open(final String jdbcUrl, final File sqliteFile, final String user, final String password)
    {
        return open(jdbcUrl, sqliteFile, user, password, MIGRATIONS.size(), false);
    }

    /**
     * Open the database for the store that writes it: as {@link #open}, holding it for this store alone
     * ({@link #lockForWriting}) before any migration, so that a second store changes nothing before it is refused.
     */
    static StoreDatabase openWriter(final String jdbcUrl, final File sqliteFile, final String user, final String password)
    {
        return open(jdbcUrl, sqliteFile, user, password, MIGRATIONS.size(), true);
    }

    /**
     * Open the database migrated up to the given version only: for tests of upgrading a database written by an
     * earlier version.
     */
    static StoreDatabase open(
        final String jdbcUrl, final File sqliteFile, final String user, final String password, final int schemaVersion)
    {
        return open(jdbcUrl, sqliteFile, user, password, schemaVersion, false);
    }

    private static StoreDatabase open(
        final String jdbcUrl, final File sqliteFile, final String user, final String password, final int schemaVersion,
        final boolean writer)
    {
        final Dialect dialect;
        final String url;
        final Properties properties = new Properties();
        if (jdbcUrl == null || jdbcUrl.isEmpty())
        {
            dialect = Dialect.SQLITE;
            final File parent = sqliteFile.getAbsoluteFile().getParentFile();
            if (parent != null && !parent.isDirectory() && !parent.mkdirs())
            {
                throw new IllegalStateException("cannot create directory " + parent + " for the store database");
            }
            url = "jdbc:sqlite:" + sqliteFile.getPath();
            properties.setProperty("journal_mode", "WAL");
            // WAL with synchronous=NORMAL is durable against a crash of the process, which is the failure the fence
            // protects against; a power loss may lose the last commits, which the store then writes again from the
            // journal. A commit carrying a snapshot, after which the journal may be purged, is synced (BatchCommitter).
            properties.setProperty("synchronous", "NORMAL");
            properties.setProperty("busy_timeout", "10000");
            // The indexes of a growing history outgrow SQLite's 2 MB default page cache within seconds of ingest; a
            // larger cache keeps their hot pages in memory.
            properties.setProperty("cache_size", "-131072");
        }
        else if (jdbcUrl.startsWith("jdbc:postgresql:"))
        {
            dialect = Dialect.POSTGRESQL;
            url = jdbcUrl;
            // Batches of inserts become multi-row inserts: one round trip per few hundred rows.
            properties.setProperty("reWriteBatchedInserts", "true");
            // A server that vanishes without closing the connection (a host down, a network cut) would leave a call
            // waiting for ever, and the store neither failing nor starting again: a minute without an answer fails it
            // (a batch takes well under a second). The URL's own parameters override these.
            properties.setProperty("socketTimeout", "60");
            properties.setProperty("tcpKeepAlive", "true");
            if (user != null && !user.isEmpty())
            {
                properties.setProperty("user", user);
            }
            if (password != null && !password.isEmpty())
            {
                properties.setProperty("password", password);
            }
        }
        else
        {
            throw new IllegalArgumentException("store.jdbc.url: unsupported database '" + redacted(jdbcUrl) +
                "': give a jdbc:postgresql:// URL, or leave it empty for SQLite in the data directory");
        }
        final String description =
            dialect == Dialect.SQLITE ? "SQLite " + sqliteFile.getAbsolutePath() : redacted(jdbcUrl);
        try
        {
            // Registered by name: in a shaded jar the drivers' service files may not both survive.
            Class.forName(dialect == Dialect.SQLITE ? "org.sqlite.JDBC" : "org.postgresql.Driver");
        }
        catch (final ClassNotFoundException ex)
        {
            throw new IllegalStateException("JDBC driver for " + dialect + " missing from the class path", ex);
        }
        try
        {
            final Connection connection = DriverManager.getConnection(url, properties);
            if (dialect == Dialect.SQLITE)
            {
                // Not a connection property the driver knows (it would be ignored silently): checkpoint the WAL every
                // 64 MB instead of SQLite's 4 MB, so that the indexes' hot pages are copied into the database file once
                // per many commits rather than again every few commits.
                try (Statement statement = connection.createStatement())
                {
                    statement.execute("PRAGMA wal_autocheckpoint = 16384");
                }
            }
            final StoreDatabase database =
                new StoreDatabase(connection, dialect, description, dialect == Dialect.SQLITE ? sqliteFile : null);
            try
            {
                if (writer)
                {
                    database.lockForWriting();
                }
                database.migrate(schemaVersion);
            }
            catch (final SQLException | RuntimeException ex)
            {
                database.close();
                throw ex;
            }
            return database;
        }
        catch (final SQLException ex)
        {
            throw new IllegalStateException("store database " + description + ": " + ex.getMessage(), ex);
        }
    }

    public Dialect dialect()
    {
        return dialect;
    }

    /**
     * The URL as it may be printed: a password in it (user information or a parameter) replaced by {@code ***}.
     */
    public static String redacted(final String jdbcUrl)
    {
        return jdbcUrl
            .replaceAll("(//[^/:@?]+:)[^@/?]*@", "$1***@")
            .replaceAll("(?i)([?&;](?:ssl)?password=)[^&;]*", "$1***");
    }

    /**
     * @return what the database is, for messages: the SQLite file or the JDBC URL.
     */
    public String description()
    {
        return description;
    }

    /**
     * The connection, in manual-commit mode. Used by one thread at a time.
     */
    Connection connection()
    {
        return connection;
    }

    /**
     * @return the schema version the database is at.
     */
    public int schemaVersion() throws SQLException
    {
        try (Statement statement = connection.createStatement();
            ResultSet rows = statement.executeQuery("SELECT MAX(version) FROM store_schema_version"))
        {
            return rows.next() ? rows.getInt(1) : 0;
        }
    }

    /**
     * @return the fence and snapshot position as last committed.
     */
    public Fence fence() throws SQLException
    {
        try (Statement statement = connection.createStatement();
            ResultSet rows = statement.executeQuery(
                "SELECT log_position, timestamp_ns, snapshot_log_position FROM store_fence WHERE id = 1"))
        {
            if (!rows.next())
            {
                throw new IllegalStateException("store database " + description + " has no fence row");
            }
            final Fence fence = new Fence(rows.getLong(1), rows.getLong(2), rows.getLong(3));
            connection.commit();
            return fence;
        }
    }

    private void migrate(final int targetVersion) throws SQLException
    {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement())
        {
            statement.execute("CREATE TABLE IF NOT EXISTS store_schema_version (" +
                "version INTEGER PRIMARY KEY, name VARCHAR(200) NOT NULL, applied_ms BIGINT NOT NULL)");
            connection.commit();
        }
        if (dialect == Dialect.POSTGRESQL)
        {
            try (Statement statement = connection.createStatement())
            {
                // Two stores starting on one PostgreSQL database migrate one after the other.
                statement.execute("LOCK TABLE store_schema_version IN EXCLUSIVE MODE");
            }
        }
        final int current = schemaVersion();
        if (current > MIGRATIONS.size())
        {
            connection.rollback();
            throw new IllegalStateException("store database " + description + " is at schema version " + current +
                ", newer than this build knows (" + MIGRATIONS.size() + ")");
        }
        for (int version = current + 1; version <= targetVersion; version++)
        {
            final String name = MIGRATIONS.get(version - 1);
            // Comments first (they may hold semicolons), then one statement per semicolon.
            final String sql = stripComments(readMigration(name)).replace("${key}", dialect.keyType);
            try (Statement statement = connection.createStatement())
            {
                for (final String part : sql.split(";"))
                {
                    if (!part.isBlank())
                    {
                        statement.execute(part);
                    }
                }
            }
            try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO store_schema_version (version, name, applied_ms) VALUES (?, ?, ?)"))
            {
                insert.setInt(1, version);
                insert.setString(2, name);
                insert.setLong(3, System.currentTimeMillis());
                insert.executeUpdate();
            }
        }
        connection.commit();
    }

    private static String stripComments(final String sql)
    {
        final StringBuilder text = new StringBuilder();
        for (final String line : sql.split("\n"))
        {
            if (!line.stripLeading().startsWith("--"))
            {
                text.append(line).append('\n');
            }
        }
        return text.toString();
    }

    private static String readMigration(final String name)
    {
        try (InputStream in = StoreDatabase.class.getResourceAsStream("migrations/" + name))
        {
            if (in == null)
            {
                throw new IllegalStateException("migration " + name + " missing from the store's resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read migration " + name, ex);
        }
    }

    public void close()
    {
        try
        {
            if (!connection.isClosed())
            {
                rollbackBeforeClose();
                releaseAdvisoryLock();
                connection.close();
            }
        }
        catch (final SQLException ex)
        {
            throw new IllegalStateException("closing store database " + description + ": " + ex.getMessage(), ex);
        }
        finally
        {
            if (writerLockFile != null)
            {
                CloseHelper.quietClose(writerLockFile);
                writerLockFile = null;
            }
        }
    }

    /**
     * The server releases a session's advisory lock when the session's backend exits, which it does some time after the
     * connection closes: released here first, so that the next store (this one starting again, say) is not refused
     * meanwhile. On a broken connection this fails, and the server releases it once it finds the session gone.
     */
    private void releaseAdvisoryLock()
    {
        if (!holdsAdvisoryLock)
        {
            return;
        }
        holdsAdvisoryLock = false;
        try (Statement statement = connection.createStatement())
        {
            statement.execute("SELECT pg_advisory_unlock(" + WRITER_LOCK_KEY + ")");
            if (!connection.getAutoCommit())
            {
                connection.commit();
            }
        }
        catch (final SQLException ex)
        {
            // Released by the server instead, as the method comment says.
        }
    }

    private void rollbackBeforeClose()
    {
        try
        {
            if (!connection.getAutoCommit())
            {
                connection.rollback();
            }
        }
        catch (final SQLException ex)
        {
            // After a failed commit SQLite may have rolled back already (a full disk, an I/O error), and the rollback
            // fails; closing discards what the transaction held either way, and must still release the file.
        }
    }
}
