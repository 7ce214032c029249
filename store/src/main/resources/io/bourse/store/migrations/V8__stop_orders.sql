-- Stop orders: an order that waits off the book until a trade reaches its stop price, then enters the market.
-- stop_price: the trigger, in the instrument's price units, as entered or as last replaced; null for an order without
-- one (every order written before this version).
-- triggered_ns: when the stop price was reached, cluster time in epoch nanoseconds; null while the order waits (and
-- for an order without a stop price). An open order with a stop price and no trigger time has not entered the market.
ALTER TABLE orders ADD COLUMN stop_price BIGINT;
ALTER TABLE orders ADD COLUMN triggered_ns BIGINT;
