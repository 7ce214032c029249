-- The terms an order was accepted with that earlier versions did not keep, so that an order read from the store says
-- what the live API says of it. Null in orders written before this version (post_only and self_trade_prevention are
-- always set from it on, so their null marks such a row).
-- quote_amount: a market buy's amount of quote to spend, in quote minor units; 0 for an order sized in base.
-- post_only: refused rather than trading on arrival.
-- self_trade_prevention: the mode it trades under (the engine's SelfTradePrevention).
-- expire_ns: a GTD order's expiry, cluster time in epoch nanoseconds; null for any other order.
ALTER TABLE orders ADD COLUMN quote_amount BIGINT;
ALTER TABLE orders ADD COLUMN post_only BOOLEAN;
ALTER TABLE orders ADD COLUMN self_trade_prevention VARCHAR(16);
ALTER TABLE orders ADD COLUMN expire_ns BIGINT;
