-- An account's order by the id its client gave it (GET /api/v1/orders/by-client-id/{id}) once the HTTP gateway no
-- longer holds it: a client that had no answer to an order knows only that id, and must learn whether the order was
-- placed before it sends it again. A client order id is unique among an account's open orders only, so the open
-- order with it is the one meant, else the newest (the highest order id): the index ends with the order id.
CREATE INDEX orders_account_client ON orders (account_id, client_order_id, order_id);
