package io.bourse.store;

import org.postgresql.PGConnection;

import java.io.IOException;
import java.io.Reader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Rows for one table, gathered for the next commit and written in bulk: through a batched prepared INSERT (SQLite),
 * or through PostgreSQL's COPY, which takes a whole batch in one stream without a statement per row. The writer adds
 * rows the same way for both: {@link #column} values in the table's column order, then {@link #endRow()}.
 */
abstract class RowBatch
{
    final String table;
    final String columns;

    private RowBatch(final String table, final String columns)
    {
        this.table = table;
        this.columns = columns;
    }

    static RowBatch of(final StoreDatabase database, final String table, final String columns) throws SQLException
    {
        return database.dialect() == StoreDatabase.Dialect.POSTGRESQL ?
            new Copy(database.connection(), table, columns) : new Insert(database.connection(), table, columns);
    }

    abstract RowBatch column(long value) throws SQLException;

    /**
     * @param value a value without tabs, newlines or backslashes (names of enum values), or null.
     */
    abstract RowBatch column(String value) throws SQLException;

    abstract RowBatch column(boolean value) throws SQLException;

    /**
     * A SQL NULL in a numeric column.
     */
    abstract RowBatch nullColumn() throws SQLException;

    abstract void endRow() throws SQLException;

    /**
     * Write the rows gathered, in the current transaction.
     */
    abstract void flush() throws SQLException;

    abstract void close() throws SQLException;

    private static final class Insert extends RowBatch
    {
        private final PreparedStatement statement;
        private int index = 1;

        Insert(final Connection connection, final String table, final String columns) throws SQLException
        {
            super(table, columns);
            final int count = columns.split(",").length;
            statement = connection.prepareStatement("INSERT INTO " + table + " (" + columns + ") VALUES (" +
                "?, ".repeat(count - 1) + "?)");
        }

        RowBatch column(final long value) throws SQLException
        {
            statement.setLong(index++, value);
            return this;
        }

        RowBatch column(final String value) throws SQLException
        {
            statement.setString(index++, value);
            return this;
        }

        RowBatch column(final boolean value) throws SQLException
        {
            statement.setBoolean(index++, value);
            return this;
        }

        RowBatch nullColumn() throws SQLException
        {
            statement.setNull(index++, Types.BIGINT);
            return this;
        }

        void endRow() throws SQLException
        {
            statement.addBatch();
            index = 1;
        }

        void flush() throws SQLException
        {
            statement.executeBatch();
        }

        void close() throws SQLException
        {
            statement.close();
        }
    }

    private static final class Copy extends RowBatch
    {
        private final PGConnection connection;
        private final String sql;
        private final StringBuilder text = new StringBuilder(1 << 20);
        private boolean firstColumn = true;

        Copy(final Connection connection, final String table, final String columns) throws SQLException
        {
            super(table, columns);
            this.connection = connection.unwrap(PGConnection.class);
            sql = "COPY " + table + " (" + columns + ") FROM STDIN";
        }

        private void separator()
        {
            if (!firstColumn)
            {
                text.append('\t');
            }
            firstColumn = false;
        }

        RowBatch column(final long value)
        {
            separator();
            text.append(value);
            return this;
        }

        RowBatch column(final String value)
        {
            separator();
            if (value == null)
            {
                text.append("\\N");
            }
            else
            {
                text.append(value);
            }
            return this;
        }

        RowBatch column(final boolean value)
        {
            separator();
            text.append(value ? 't' : 'f');
            return this;
        }

        RowBatch nullColumn()
        {
            separator();
            text.append("\\N");
            return this;
        }

        void endRow()
        {
            text.append('\n');
            firstColumn = true;
        }

        void flush() throws SQLException
        {
            if (text.isEmpty())
            {
                return;
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

        void close()
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
