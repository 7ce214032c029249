package io.bourse.store;

import org.postgresql.PGConnection;

import java.io.IOException;
import java.io.Reader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Inserts the rows of a {@link RowBuffer} into one table, in bulk: through a batched prepared INSERT (SQLite), or
 * through PostgreSQL's COPY, which takes a whole batch in one stream without a statement per row.
 */
abstract class BulkInsert implements AutoCloseable
{
    final String table;

    private BulkInsert(final String table)
    {
        this.table = table;
    }

    static BulkInsert of(final StoreDatabase database, final String table, final String columns) throws SQLException
    {
        return database.dialect() == StoreDatabase.Dialect.POSTGRESQL ?
            new Copy(database.connection(), table, columns) : new Insert(database.connection(), table, columns);
    }

    /**
     * Write the buffer's rows, in the current transaction.
     */
    abstract void write(RowBuffer rows) throws SQLException;

    public abstract void close() throws SQLException;

    private static final class Insert extends BulkInsert
    {
        private final PreparedStatement statement;

        Insert(final Connection connection, final String table, final String columns) throws SQLException
        {
            super(table);
            final int count = columns.split(",").length;
            statement = connection.prepareStatement("INSERT INTO " + table + " (" + columns + ") VALUES (" +
                "?, ".repeat(count - 1) + "?)");
        }

        void write(final RowBuffer rows) throws SQLException
        {
            final int rowCount = rows.rows();
            if (rowCount == 0)
            {
                return;
            }
            final int columns = rows.columns();
            int cell = 0;
            for (int row = 0; row < rowCount; row++)
            {
                for (int column = 1; column <= columns; column++, cell++)
                {
                    switch (rows.kind(cell))
                    {
                        case RowBuffer.NUMBER -> statement.setLong(column, rows.number(cell));
                        case RowBuffer.TEXT -> statement.setString(column, rows.text(cell));
                        case RowBuffer.BOOLEAN -> statement.setBoolean(column, rows.number(cell) != 0);
                        default -> statement.setNull(column, Types.BIGINT);
                    }
                }
                statement.addBatch();
            }
            statement.executeBatch();
        }

        public void close() throws SQLException
        {
            statement.close();
        }
    }

    private static final class Copy extends BulkInsert
    {
        private final PGConnection connection;
        private final String sql;
        private final StringBuilder text = new StringBuilder(1 << 20);

        Copy(final Connection connection, final String table, final String columns) throws SQLException
        {
            super(table);
            this.connection = connection.unwrap(PGConnection.class);
            sql = "COPY " + table + " (" + columns + ") FROM STDIN";
        }

        void write(final RowBuffer rows) throws SQLException
        {
            final int rowCount = rows.rows();
            if (rowCount == 0)
            {
                return;
            }
            final int columns = rows.columns();
            int cell = 0;
            for (int row = 0; row < rowCount; row++)
            {
                for (int column = 0; column < columns; column++, cell++)
                {
                    if (column > 0)
                    {
                        text.append('\t');
                    }
                    switch (rows.kind(cell))
                    {
                        case RowBuffer.NUMBER -> text.append(rows.number(cell));
                        case RowBuffer.TEXT -> text.append(rows.text(cell));
                        case RowBuffer.BOOLEAN -> text.append(rows.number(cell) != 0 ? 't' : 'f');
                        default -> text.append("\\N");
                    }
                }
                text.append('\n');
            }
            try
            {
                connection.getCopyAPI().copyIn(sql, new CharSequenceReader(text));
            }
            catch (final IOException ex)
            {
                throw new SQLException("COPY into " + table + ": " + ex.getMessage(), ex);
            }
            finally
            {
                text.setLength(0);
            }
        }

        public void close()
        {
            text.setLength(0);
        }
    }

    /**
     * Reads a StringBuilder in place, without copying it to a String first.
     */
    private static final class CharSequenceReader extends Reader
    {
        private final CharSequence text;
        private int position;

        CharSequenceReader(final CharSequence text)
        {
            this.text = text;
        }

        public int read(final char[] buffer, final int offset, final int length)
        {
            if (position >= text.length())
            {
                return -1;
            }
            final int count = Math.min(length, text.length() - position);
            for (int i = 0; i < count; i++)
            {
                buffer[offset + i] = text.charAt(position + i);
            }
            position += count;
            return count;
        }

        public void close()
        {
        }
    }
}
