-- Bourse post-trade store, version 1. The same schema on SQLite and PostgreSQL: ${key} is the 64-bit primary key
-- type (INTEGER on SQLite, where that makes it the row id, BIGINT on PostgreSQL). Amounts are the engine's scaled
-- integers; times are cluster time in nanoseconds since the epoch; log_position is the cluster log position of the
-- command that produced the row.

-- The store's own position: every row above was written in the same transaction that moved this fence.
CREATE TABLE store_fence (
    id INTEGER PRIMARY KEY,
    log_position BIGINT NOT NULL,
    timestamp_ns BIGINT NOT NULL,
    snapshot_log_position BIGINT NOT NULL
);
INSERT INTO store_fence (id, log_position, timestamp_ns, snapshot_log_position) VALUES (1, 0, 0, 0);

-- The store's own snapshot of the engine at snapshot_log_position (at or before the fence): where a restart resumes.
CREATE TABLE store_snapshot (
    id INTEGER PRIMARY KEY,
    log_position BIGINT NOT NULL,
    engine BYTEA NOT NULL,
    clients BYTEA NOT NULL
);

-- One row per trade; the maker's and the taker's side each.
CREATE TABLE trades (
    trade_id ${key} PRIMARY KEY,
    instrument_id INTEGER NOT NULL,
    price BIGINT NOT NULL,
    quantity BIGINT NOT NULL,
    taker_side VARCHAR(4) NOT NULL,
    maker_order_id BIGINT NOT NULL,
    maker_account_id BIGINT NOT NULL,
    maker_fee BIGINT NOT NULL,
    taker_order_id BIGINT NOT NULL,
    taker_account_id BIGINT NOT NULL,
    taker_fee BIGINT NOT NULL,
    timestamp_ns BIGINT NOT NULL,
    log_position BIGINT NOT NULL
);
CREATE INDEX trades_maker ON trades (maker_account_id, trade_id);
CREATE INDEX trades_taker ON trades (taker_account_id, trade_id);

-- Fills per account: each trade from each side's point of view (a self-trade gives two rows for one account).
CREATE VIEW fills AS
SELECT trade_id, maker_account_id AS account_id, maker_order_id AS order_id, instrument_id,
       CASE WHEN taker_side = 'BUY' THEN 'SELL' ELSE 'BUY' END AS side, 'MAKER' AS liquidity, price, quantity,
       maker_fee AS fee, timestamp_ns, log_position
FROM trades
UNION ALL
SELECT trade_id, taker_account_id, taker_order_id, instrument_id, taker_side, 'TAKER', price, quantity, taker_fee,
       timestamp_ns, log_position
FROM trades;

-- Every order accepted, in its current (or final) state.
CREATE TABLE orders (
    order_id ${key} PRIMARY KEY,
    account_id BIGINT NOT NULL,
    client_order_id BIGINT NOT NULL,
    instrument_id INTEGER NOT NULL,
    side VARCHAR(4) NOT NULL,
    order_type VARCHAR(8) NOT NULL,
    time_in_force VARCHAR(4) NOT NULL,
    price BIGINT NOT NULL,
    quantity BIGINT NOT NULL,
    filled_quantity BIGINT NOT NULL,
    remaining_quantity BIGINT NOT NULL,
    executed_notional BIGINT NOT NULL,
    status VARCHAR(16) NOT NULL,
    created_ns BIGINT NOT NULL,
    updated_ns BIGINT NOT NULL,
    log_position BIGINT NOT NULL
);
CREATE INDEX orders_account ON orders (account_id, order_id);

-- Every state change of an order other than fills (which are the trades): accepted, canceled, replaced, restated,
-- expired.
CREATE TABLE order_events (
    event_id ${key} PRIMARY KEY,
    order_id BIGINT NOT NULL,
    account_id BIGINT NOT NULL,
    kind VARCHAR(10) NOT NULL,
    client_order_id BIGINT NOT NULL,
    price BIGINT NOT NULL,
    quantity BIGINT NOT NULL,
    filled_quantity BIGINT NOT NULL,
    reason VARCHAR(24),
    timestamp_ns BIGINT NOT NULL,
    log_position BIGINT NOT NULL
);
CREATE INDEX order_events_order ON order_events (order_id);

-- The balance ledger: every change of an account's available or reserved balance, with the change and the result.
-- Summed per account and asset, the deltas give the current balance. A TRADE entry is the settlement of one fill for
-- one account and asset, its fee included (the fee itself is in the trade's row).
CREATE TABLE ledger (
    entry_id ${key} PRIMARY KEY,
    account_id BIGINT NOT NULL,
    asset_id INTEGER NOT NULL,
    reason VARCHAR(10) NOT NULL,
    available_delta BIGINT NOT NULL,
    reserved_delta BIGINT NOT NULL,
    available BIGINT NOT NULL,
    reserved BIGINT NOT NULL,
    timestamp_ns BIGINT NOT NULL,
    log_position BIGINT NOT NULL
);
CREATE INDEX ledger_account ON ledger (account_id, asset_id, entry_id);

-- Current balances, as of the fence.
CREATE TABLE balances (
    account_id BIGINT NOT NULL,
    asset_id INTEGER NOT NULL,
    available BIGINT NOT NULL,
    reserved BIGINT NOT NULL,
    updated_ns BIGINT NOT NULL,
    PRIMARY KEY (account_id, asset_id)
);

-- Deposits and withdrawals, applied or refused as repeats of an earlier transaction id.
CREATE TABLE transfers (
    transfer_id ${key} PRIMARY KEY,
    transaction_id BIGINT NOT NULL,
    account_id BIGINT NOT NULL,
    asset_id INTEGER NOT NULL,
    amount BIGINT NOT NULL,
    direction VARCHAR(10) NOT NULL,
    applied BOOLEAN NOT NULL,
    timestamp_ns BIGINT NOT NULL,
    log_position BIGINT NOT NULL
);
CREATE INDEX transfers_account ON transfers (account_id, transfer_id);
