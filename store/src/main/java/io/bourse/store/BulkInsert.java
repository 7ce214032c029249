package io.bourse.store;

import org.agrona.ExpandableArrayBuffer;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;

import java.nio.ByteOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;

/**
 * Inserts the rows of a {@link RowBuffer} into one table, in bulk: through a batched prepared INSERT (SQLite), or
 * through PostgreSQL's binary COPY, which takes a whole batch in one stream without a statement per row.
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
    final void write(final RowBuffer rows) throws SQLException
    {
        if (rows.rows() > 0)
        {
            writeRows(rows);
        }
    }

    abstract void writeRows(RowBuffer rows) throws SQLException;

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

        void writeRows(final RowBuffer rows) throws SQLException
        {
            final int rowCount = rows.rows();
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

    /**
     * PostgreSQL's COPY in its binary format: each value as the server stores it (no number parsed from text on
     * either side). The format wants each column's exact type, which the table's own metadata gives.
     */
    private static final class Copy extends BulkInsert
    {
        private static final byte[] HEADER = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte)0xFF, '\r', '\n', 0,
            0, 0, 0, 0, 0, 0, 0, 0 };

        private final CopyManager copyManager;
        private final String sql;
        private final int[] types;
        private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(1 << 20);
        private int length;

        Copy(final Connection connection, final String table, final String columns) throws SQLException
        {
            super(table);
            copyManager = connection.unwrap(PGConnection.class).getCopyAPI();
            sql = "COPY " + table + " (" + columns + ") FROM STDIN (FORMAT binary)";
            try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT " + columns + " FROM " + table + " WHERE false"))
            {
                final ResultSetMetaData metaData = rows.getMetaData();
                types = new int[metaData.getColumnCount()];
                for (int i = 0; i < types.length; i++)
                {
                    types[i] = metaData.getColumnType(i + 1);
                }
            }
            connection.commit();
        }

        void writeRows(final RowBuffer rows) throws SQLException
        {
            final int rowCount = rows.rows();
            final int columns = rows.columns();
            buffer.putBytes(0, HEADER);
            length = HEADER.length;
            int cell = 0;
            for (int row = 0; row < rowCount; row++)
            {
                putShort((short)columns);
                for (int column = 0; column < columns; column++, cell++)
                {
                    final byte kind = rows.kind(cell);
                    if (kind == RowBuffer.NULL)
                    {
                        putInt(-1);
                    }
                    else if (kind == RowBuffer.TEXT)
                    {
                        putText(rows.text(cell));
                    }
                    else
                    {
                        putNumber(types[column], rows.number(cell), column);
                    }
                }
            }
            putShort((short)-1);
            final CopyIn copy = copyManager.copyIn(sql);
            try
            {
                copy.writeToCopy(buffer.byteArray(), 0, length);
                copy.endCopy();
            }
            finally
            {
                if (copy.isActive())
                {
                    copy.cancelCopy();
                }
            }
        }

        private void putNumber(final int type, final long value, final int column) throws SQLException
        {
            switch (type)
            {
                case Types.BIGINT ->
                {
                    putInt(8);
                    buffer.putLong(length, value, ByteOrder.BIG_ENDIAN);
                    length += 8;
                }
                case Types.INTEGER ->
                {
                    putInt(4);
                    putInt((int)value);
                }
                case Types.BIT, Types.BOOLEAN ->
                {
                    putInt(1);
                    buffer.putByte(length++, (byte)(value != 0 ? 1 : 0));
                }
                default -> throw new SQLException("COPY into " + table + ": column " + (column + 1) +
                    " has SQL type " + type + ", not a number this store writes");
            }
        }

        /**
         * @param text names of enum values: ASCII, so one byte a character as UTF-8 has them.
         */
        private void putText(final String text)
        {
            final int size = text.length();
            putInt(size);
            for (int i = 0; i < size; i++)
            {
                buffer.putByte(length++, (byte)text.charAt(i));
            }
        }

        private void putInt(final int value)
        {
            buffer.putInt(length, value, ByteOrder.BIG_ENDIAN);
            length += 4;
        }

        private void putShort(final short value)
        {
            buffer.putShort(length, value, ByteOrder.BIG_ENDIAN);
            length += 2;
        }

        public void close()
        {
        }
    }
}
