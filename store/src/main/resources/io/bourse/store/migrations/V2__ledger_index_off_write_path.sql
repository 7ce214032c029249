-- The ledger is the store's largest table (about six entries per trade: reserve, four settlements, release) and its
-- per-account index was maintained on every one of them for no query the store serves (HistoryQueries reads trades
-- and orders). Without it the rows are the same; reading one account's ledger is a scan of the table, or an index a
-- reader-side job builds where such queries are wanted.
DROP INDEX ledger_account;
