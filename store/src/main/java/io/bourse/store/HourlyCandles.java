package io.bourse.store;

import org.agrona.collections.Int2ObjectHashMap;

import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Each instrument's trades of the hour being traded, summed for its row of {@code candles_1h}, which is written once
 * the hour has closed by the log's time: by the batch whose fence is past the hour's end, or with an earlier batch's
 * rows when the instrument trades in a later hour first. So the database holds a row for every closed hour with a
 * trade, and the trades of the open hour (its every trade up to the fence) are what a restarted store sums again.
 * Single-threaded: the store's thread.
 */
final class HourlyCandles
{
    static final long HOUR_NS = 3_600_000_000_000L;
    /**
     * Trades read at a time when summing again: PostgreSQL's driver would otherwise hold the whole result.
     */
    private static final int LOAD_FETCH_ROWS = 10_000;
    static final String COLUMNS = "instrument_id, start_ns, open_price, high_price, low_price, close_price, volume, " +
        "quote_volume, trade_count, first_trade_id, last_trade_id";

    /**
     * One instrument's hour: the one being summed, or the last written (closed).
     */
    private static final class Hour
    {
        final int instrumentId;
        /**
         * Whether {@link #hour} is still being summed; once written it is kept, closed, as the instrument's last.
         */
        boolean isOpen;
        long hour;
        long open;
        long high;
        long low;
        long close;
        long volume;
        long trades;
        long quoteHigh;
        long quoteLow;
        long firstTradeId;
        long lastTradeId;

        Hour(final int instrumentId)
        {
            this.instrumentId = instrumentId;
        }

        void start(final long hour, final long tradeId, final long price)
        {
            this.hour = hour;
            isOpen = true;
            open = price;
            high = price;
            low = price;
            volume = 0;
            trades = 0;
            quoteHigh = 0;
            quoteLow = 0;
            firstTradeId = tradeId;
        }

        void add(final long tradeId, final long price, final long quantity)
        {
            high = Math.max(high, price);
            low = Math.min(low, price);
            close = price;
            volume += quantity;
            trades++;
            // Price times quantity in 128 bits: an hour of it can pass a long.
            final long productLow = price * quantity;
            final long productHigh = Math.multiplyHigh(price, quantity);
            final long sumLow = quoteLow + productLow;
            quoteHigh += productHigh + (Long.compareUnsigned(sumLow, quoteLow) < 0 ? 1 : 0);
            quoteLow = sumLow;
            lastTradeId = tradeId;
        }

        String quote()
        {
            return BigInteger.valueOf(quoteHigh).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(quoteLow)))
                .toString();
        }
    }

    /**
     * Each instrument's hour, open or the last written.
     */
    private final Int2ObjectHashMap<Hour> hours = new Int2ObjectHashMap<>();

    /**
     * Sum again the trades no row holds yet: those of the hour the fence is in, after a restart; every trade of a
     * database written before this table (migration 7), whose closed hours then go into {@code rows}, once (read a part
     * at a time: it may be every trade the exchange made). As trade ids and times rise together, and every hour that
     * closed was written, the trades after the highest trade id in a row are those. Each instrument's last written hour
     * is kept, closed, so that no row is written twice even if the log's time steps back (its trades are then counted
     * in the next hour; a second row of an hour would stop the store at its commit).
     *
     * @param fenceTimestampNs the log's time at the store's fence.
     * @param rows             where the closed hours' rows go: the first batch's.
     */
    void load(final Connection connection, final long fenceTimestampNs, final RowBuffer rows) throws SQLException
    {
        hours.clear();
        long written = 0;
        try (PreparedStatement last = connection.prepareStatement("SELECT instrument_id, MAX(start_ns), " +
            "MAX(last_trade_id) FROM candles_1h GROUP BY instrument_id"); ResultSet row = last.executeQuery())
        {
            while (row.next())
            {
                final Hour bar = new Hour(row.getInt(1));
                bar.hour = Math.floorDiv(row.getLong(2), HOUR_NS);
                hours.put(bar.instrumentId, bar);
                written = Math.max(written, row.getLong(3));
            }
        }
        try (PreparedStatement query = connection.prepareStatement("SELECT trade_id, instrument_id, price, quantity, " +
            "timestamp_ns FROM trades WHERE trade_id > ? ORDER BY trade_id"))
        {
            query.setFetchSize(LOAD_FETCH_ROWS);
            query.setLong(1, written);
            try (ResultSet trades = query.executeQuery())
            {
                while (trades.next())
                {
                    add(trades.getLong(1), trades.getInt(2), trades.getLong(3), trades.getLong(4), trades.getLong(5),
                        rows);
                }
            }
        }
        connection.commit();
        closeBefore(fenceTimestampNs, rows);
    }

    /**
     * Count a trade in its instrument's hour; an hour it closes (the instrument's earlier one) goes into the rows.
     *
     * @param rows where a closed hour's row goes.
     */
    void add(
        final long tradeId, final int instrumentId, final long price, final long quantity, final long timestampNs,
        final RowBuffer rows)
    {
        final long hour = Math.floorDiv(timestampNs, HOUR_NS);
        Hour bar = hours.get(instrumentId);
        if (bar == null)
        {
            bar = new Hour(instrumentId);
            bar.start(hour, tradeId, price);
            hours.put(instrumentId, bar);
        }
        else if (!bar.isOpen)
        {
            // Never an hour already written (the log's time does not go back; if it did, a second row of an hour
            // would stop the store at its commit).
            bar.start(Math.max(hour, bar.hour + 1), tradeId, price);
        }
        else if (bar.hour < hour)
        {
            write(bar, rows);
            bar.start(hour, tradeId, price);
        }
        bar.add(tradeId, price, quantity);
    }

    /**
     * Write the hours that ended by the log's time at a batch's fence.
     */
    void closeBefore(final long fenceTimestampNs, final RowBuffer rows)
    {
        final long fenceHour = Math.floorDiv(fenceTimestampNs, HOUR_NS);
        for (final Hour bar : hours.values())
        {
            if (bar.isOpen && bar.hour < fenceHour)
            {
                write(bar, rows);
                bar.isOpen = false;
            }
        }
    }

    private static void write(final Hour bar, final RowBuffer rows)
    {
        rows.column(bar.instrumentId).column(bar.hour * HOUR_NS).column(bar.open).column(bar.high).column(bar.low)
            .column(bar.close).column(bar.volume).column(bar.quote()).column(bar.trades).column(bar.firstTradeId)
            .column(bar.lastTradeId).endRow();
    }
}
