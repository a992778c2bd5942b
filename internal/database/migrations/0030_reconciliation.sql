-- Reconciliation of a wallet with its bank statement (wallet.reconciled.v1).

-- A transaction a reconciliation counted. Its history keeps it too: transaction_versions
-- holds the same columns in the same order (0019 made it LIKE transactions).
ALTER TABLE transactions ADD COLUMN reconciled boolean NOT NULL DEFAULT false;
ALTER TABLE transaction_versions ADD COLUMN reconciled boolean NOT NULL DEFAULT false;

-- The date and balance of the last statement a wallet was reconciled with, in the
-- wallet's row and in every state its history keeps.
ALTER TABLE wallets ADD COLUMN reconciled_through date, ADD COLUMN reconciled_balance numeric;
ALTER TABLE wallet_versions ADD COLUMN reconciled_through date, ADD COLUMN reconciled_balance numeric;

CREATE OR REPLACE VIEW finledger_asof.transactions AS
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared, import_id, external_id, reconciled
FROM public.transactions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
UNION ALL
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared, import_id, external_id, reconciled
FROM public.transaction_versions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
    AND replaced_version > (SELECT finledger_asof.cut());

CREATE OR REPLACE VIEW finledger_asof.wallets AS
SELECT r.workspace_id, r.id, v.name, v.description, v.type, v.currency, v.card_color, v.initial_balance, v.balance,
    v.clabe, v.provider, v.is_default, v.archived, v.created_at, v.updated_at, v.created_version,
    v.reconciled_through, v.reconciled_balance
FROM public.wallets r CROSS JOIN LATERAL (
    SELECT * FROM public.wallet_versions h
    WHERE h.workspace_id = r.workspace_id AND h.id = r.id AND h.version <= finledger_asof.cut()
    ORDER BY h.version DESC LIMIT 1) v
WHERE r.created_version <= finledger_asof.cut();

-- A state that has not met a transaction loads it from its own events (0014) and from
-- the reconciliations that list it: this index finds those without reading the stream.
CREATE INDEX events_reconciled_transactions ON events USING gin ((data->'transactionIds'))
    WHERE type = 'wallet.reconciled.v1';
