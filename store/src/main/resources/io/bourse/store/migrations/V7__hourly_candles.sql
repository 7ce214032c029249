-- Each instrument's trades by the hour, for candles older than the HTTP gateway's day of minutes (GET
-- /api/v1/candles with an interval of an hour or more): the open, high, low and close price, the quantity, the quote
-- amount (price times quantity in units of both scales together, exactly: a decimal integer, as it can pass 64 bits)
-- and the number of trades, with the first and last trade id. A row is written once, when its hour has closed by the
-- log's time (in the batch whose fence is past the hour's end), so the hour being traded has none yet.
CREATE TABLE candles_1h (
    instrument_id INTEGER NOT NULL,
    start_ns BIGINT NOT NULL,
    open_price BIGINT NOT NULL,
    high_price BIGINT NOT NULL,
    low_price BIGINT NOT NULL,
    close_price BIGINT NOT NULL,
    volume BIGINT NOT NULL,
    quote_volume VARCHAR(40) NOT NULL,
    trade_count BIGINT NOT NULL,
    first_trade_id BIGINT NOT NULL,
    last_trade_id BIGINT NOT NULL,
    PRIMARY KEY (instrument_id, start_ns)
);
