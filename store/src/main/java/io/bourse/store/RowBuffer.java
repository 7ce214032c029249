package io.bourse.store;

import java.util.Arrays;

/**
 * Rows for one table, gathered in memory for the next commit: {@link #column} values in the table's column order,
 * then {@link #endRow()}. Plain arrays, reused batch after batch, so that the thread applying the log builds rows
 * without touching the database; {@link BulkInsert} writes them on the thread that commits.
 */
final class RowBuffer
{
    static final byte NUMBER = 0;
    static final byte TEXT = 1;
    static final byte NULL = 2;
    static final byte BOOLEAN = 3;

    private final int columns;
    private byte[] kinds;
    private long[] numbers;
    private String[] texts;
    private int cells;

    RowBuffer(final int columns)
    {
        this.columns = columns;
        final int capacity = columns * 1024;
        kinds = new byte[capacity];
        numbers = new long[capacity];
        texts = new String[capacity];
    }

    int columns()
    {
        return columns;
    }

    RowBuffer column(final long value)
    {
        return cell(NUMBER, value, null);
    }

    /**
     * @param value a value without tabs, newlines or backslashes (names of enum values), or null.
     */
    RowBuffer column(final String value)
    {
        return value == null ? cell(NULL, 0, null) : cell(TEXT, 0, value);
    }

    RowBuffer column(final boolean value)
    {
        return cell(BOOLEAN, value ? 1 : 0, null);
    }

    /**
     * A SQL NULL in a numeric column.
     */
    RowBuffer nullColumn()
    {
        return cell(NULL, 0, null);
    }

    private RowBuffer cell(final byte kind, final long number, final String text)
    {
        if (cells == kinds.length)
        {
            kinds = Arrays.copyOf(kinds, cells * 2);
            numbers = Arrays.copyOf(numbers, cells * 2);
            texts = Arrays.copyOf(texts, cells * 2);
        }
        kinds[cells] = kind;
        numbers[cells] = number;
        texts[cells] = text;
        cells++;
        return this;
    }

    void endRow()
    {
        if (cells % columns != 0)
        {
            throw new IllegalStateException("a row of " + (cells % columns) + " values for " + columns + " columns");
        }
    }

    int rows()
    {
        return cells / columns;
    }

    byte kind(final int cell)
    {
        return kinds[cell];
    }

    long number(final int cell)
    {
        return numbers[cell];
    }

    String text(final int cell)
    {
        return texts[cell];
    }

    void clear()
    {
        cells = 0;
    }
}
