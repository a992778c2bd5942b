-- The probable duplicates of a statement's rows (imports.matchProbable) are live
-- transactions of the same amount within a few days of each row. With the date in the
-- amounts' index, each row's lookup reads the entries of its days alone, not every
-- transaction of its amount and then their rows to check the date: for 97,849 rows
-- against a wallet of a million transactions of 50,000 amounts, 0.30 s against 1.18 s
-- (BENCHMARKS.md, 2026-12-01). A search by amount reads it as it read the index it
-- replaces, whose name it takes.
CREATE INDEX transactions_amounts_by_date ON transactions (workspace_id, amount, date) WHERE deleted_at IS NULL;
DROP INDEX transactions_amounts;
ALTER INDEX transactions_amounts_by_date RENAME TO transactions_amounts;
