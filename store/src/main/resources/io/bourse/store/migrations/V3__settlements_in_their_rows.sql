-- Most of the store's rows restated what another row of the same event already held: every trade was followed by
-- four ledger rows (its settlement for each side and asset), every order by an ACCEPTED event and a RESERVE ledger
-- row. At about 1 us of SQLite's B-tree work per row (and 3 us of PostgreSQL's), rows are what ingest costs, so from
-- this version a trade's row carries its four settlements and an order's row its acceptance and its reservation.
-- Nothing is lost and readers see the same relations: `ledger` and `order_events` are now views over the rows kept
-- for other changes (`ledger_entries`, `order_changes`, which also keep every entry written before this version) and
-- those columns. Entry and event ids stay one sequence each, in the order the engine made the changes.
ALTER TABLE ledger RENAME TO ledger_entries;
ALTER TABLE order_events RENAME TO order_changes;

-- The trade's settlement: ledger entries settlement_entry_id .. +3 (maker base, maker quote, taker base, taker quote).
-- Null in trades written before this version, whose settlements are rows of ledger_entries.
ALTER TABLE trades ADD COLUMN settlement_entry_id BIGINT;
ALTER TABLE trades ADD COLUMN base_asset_id INTEGER;
ALTER TABLE trades ADD COLUMN quote_asset_id INTEGER;
ALTER TABLE trades ADD COLUMN maker_base_available_delta BIGINT;
ALTER TABLE trades ADD COLUMN maker_base_reserved_delta BIGINT;
ALTER TABLE trades ADD COLUMN maker_base_available BIGINT;
ALTER TABLE trades ADD COLUMN maker_base_reserved BIGINT;
ALTER TABLE trades ADD COLUMN maker_quote_available_delta BIGINT;
ALTER TABLE trades ADD COLUMN maker_quote_reserved_delta BIGINT;
ALTER TABLE trades ADD COLUMN maker_quote_available BIGINT;
ALTER TABLE trades ADD COLUMN maker_quote_reserved BIGINT;
ALTER TABLE trades ADD COLUMN taker_base_available_delta BIGINT;
ALTER TABLE trades ADD COLUMN taker_base_reserved_delta BIGINT;
ALTER TABLE trades ADD COLUMN taker_base_available BIGINT;
ALTER TABLE trades ADD COLUMN taker_base_reserved BIGINT;
ALTER TABLE trades ADD COLUMN taker_quote_available_delta BIGINT;
ALTER TABLE trades ADD COLUMN taker_quote_reserved_delta BIGINT;
ALTER TABLE trades ADD COLUMN taker_quote_available BIGINT;
ALTER TABLE trades ADD COLUMN taker_quote_reserved BIGINT;

-- The order's acceptance (event accepted_event_id, with the terms it was accepted on, which a replace may change since)
-- and the reservation made for it then (ledger entry reserve_entry_id; none for a market order). Null in orders
-- written before this version, whose acceptance and reservation are rows of order_changes and ledger_entries.
ALTER TABLE orders ADD COLUMN accepted_event_id BIGINT;
ALTER TABLE orders ADD COLUMN accepted_client_order_id BIGINT;
ALTER TABLE orders ADD COLUMN accepted_price BIGINT;
ALTER TABLE orders ADD COLUMN accepted_quantity BIGINT;
ALTER TABLE orders ADD COLUMN created_log_position BIGINT;
ALTER TABLE orders ADD COLUMN reserve_entry_id BIGINT;
ALTER TABLE orders ADD COLUMN reserve_asset_id INTEGER;
ALTER TABLE orders ADD COLUMN reserve_amount BIGINT;
ALTER TABLE orders ADD COLUMN reserve_available BIGINT;
ALTER TABLE orders ADD COLUMN reserve_reserved BIGINT;

-- The next ids, moved with the fence: ids now live in several tables, and a restart must not scan them for the highest.
ALTER TABLE store_fence ADD COLUMN next_order_event_id BIGINT NOT NULL DEFAULT 1;
ALTER TABLE store_fence ADD COLUMN next_ledger_entry_id BIGINT NOT NULL DEFAULT 1;
ALTER TABLE store_fence ADD COLUMN next_transfer_id BIGINT NOT NULL DEFAULT 1;
UPDATE store_fence SET
    next_order_event_id = (SELECT COALESCE(MAX(event_id), 0) + 1 FROM order_changes),
    next_ledger_entry_id = (SELECT COALESCE(MAX(entry_id), 0) + 1 FROM ledger_entries),
    next_transfer_id = (SELECT COALESCE(MAX(transfer_id), 0) + 1 FROM transfers);

CREATE VIEW order_events AS
SELECT event_id, order_id, account_id, kind, client_order_id, price, quantity, filled_quantity, reason, timestamp_ns,
       log_position
FROM order_changes
UNION ALL
SELECT accepted_event_id, order_id, account_id, 'ACCEPTED', accepted_client_order_id, accepted_price,
       accepted_quantity, 0, NULL, created_ns, created_log_position
FROM orders WHERE accepted_event_id IS NOT NULL;

CREATE VIEW ledger AS
SELECT entry_id, account_id, asset_id, reason, available_delta, reserved_delta, available, reserved, timestamp_ns,
       log_position
FROM ledger_entries
UNION ALL
SELECT reserve_entry_id, account_id, reserve_asset_id, 'RESERVE', -reserve_amount, reserve_amount, reserve_available,
       reserve_reserved, created_ns, created_log_position
FROM orders WHERE reserve_entry_id IS NOT NULL
UNION ALL
SELECT settlement_entry_id + 0, maker_account_id, base_asset_id, 'TRADE', maker_base_available_delta,
       maker_base_reserved_delta, maker_base_available, maker_base_reserved, timestamp_ns, log_position
FROM trades WHERE settlement_entry_id IS NOT NULL
UNION ALL
SELECT settlement_entry_id + 1, maker_account_id, quote_asset_id, 'TRADE', maker_quote_available_delta,
       maker_quote_reserved_delta, maker_quote_available, maker_quote_reserved, timestamp_ns, log_position
FROM trades WHERE settlement_entry_id IS NOT NULL
UNION ALL
SELECT settlement_entry_id + 2, taker_account_id, base_asset_id, 'TRADE', taker_base_available_delta,
       taker_base_reserved_delta, taker_base_available, taker_base_reserved, timestamp_ns, log_position
FROM trades WHERE settlement_entry_id IS NOT NULL
UNION ALL
SELECT settlement_entry_id + 3, taker_account_id, quote_asset_id, 'TRADE', taker_quote_available_delta,
       taker_quote_reserved_delta, taker_quote_available, taker_quote_reserved, timestamp_ns, log_position
FROM trades WHERE settlement_entry_id IS NOT NULL;
