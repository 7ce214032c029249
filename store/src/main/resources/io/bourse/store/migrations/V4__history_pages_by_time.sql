-- History pages are read newest first by time (HistoryQueries). With the time in the per-account indexes, a page for
-- any window, at any depth, is found by one seek and read in index order. The indexes by id alone made a page walk
-- every newer row of the account (and, for trades, sort all of the account's rows) before returning any.
DROP INDEX trades_maker;
DROP INDEX trades_taker;
DROP INDEX orders_account;
CREATE INDEX trades_maker_time ON trades (maker_account_id, timestamp_ns, trade_id);
CREATE INDEX trades_taker_time ON trades (taker_account_id, timestamp_ns, trade_id);
CREATE INDEX orders_account_time ON orders (account_id, created_ns, order_id);
