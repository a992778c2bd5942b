-- What the planner knows of the transaction an event names. A state meeting the
-- transactions a command names reads their events by events_by_transaction; that index
-- is partial, and PostgreSQL does not estimate from a partial index's statistics, so it
-- took the expression for one of 200 values and any list of more than 200 ids for the
-- whole stream: a statement's commit meeting its 2,151 merged transactions scanned a
-- million events (0.69 s) where the index finds them in 0.13 s. Statistics on the
-- expression itself give it the count of distinct ids; the analysis fills them now,
-- and autovacuum's keep them.
CREATE STATISTICS events_transaction_ids ON (data->>'transactionId') FROM events;
ANALYZE events;
