-- A statement import records its new transactions in parts (transactions.imported.v1),
-- each listing its transactions' ids in transactionIds, as a reconciliation lists those
-- it marks. A state that has not met a transaction, the change feed and the undo of an
-- agent's work find the parts that list it through the index of migration 0030, which
-- now covers both types.
CREATE INDEX events_listed_transactions ON events USING gin ((data->'transactionIds'))
    WHERE type IN ('wallet.reconciled.v1', 'transactions.imported.v1');
DROP INDEX events_reconciled_transactions;

-- The transactions of one part share its version, so the listing's order goes on to
-- the id: a page of equal dates and versions is the same page every time it is read,
-- and the running balances follow that order. The indexes of the listing carry the id
-- as a key, so that a page is still found by walking one index alone.
DROP INDEX transactions_listing;
CREATE INDEX transactions_listing ON transactions (workspace_id, date DESC, created_version DESC, id DESC)
    WHERE deleted_at IS NULL;
DROP INDEX transactions_listing_by_category;
CREATE INDEX transactions_listing_by_category ON transactions (workspace_id, category_id, date DESC, created_version DESC, id DESC)
    WHERE deleted_at IS NULL;
