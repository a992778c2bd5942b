-- The read models as of any version of their workspace's stream.
--
-- Every state a wallet, category, budget, goal or debt takes is kept in its history
-- table, stamped with the version of the event that made it (the projections write it
-- beside the change, and a replay writes the same rows). A transaction keeps its live
-- row, which now records the version of its last change, and each row it replaced, with
-- the version that replaced it. The views of schema finledger_asof show the read models
-- as they stood at the version in the setting finledger.as_of: queries that run with
-- that schema first in their search path read the past with the same SQL that reads the
-- present.
--
-- A history table starts with the version column, then the columns of its table in
-- their order, so that `SELECT version, t.*` fills it; a column added to a table is added
-- to its history table too (a test holds them equal).
--
-- The change feed reads a history in version order across its records, by an index on
-- the expression version + 0: the views, which look up one record's latest state at a
-- version, cannot use that index and are planned on the primary key, whose cost does
-- not grow with the other records' changes. It finds the transactions a range of
-- versions changed from the events that change them, by the events' own key.

CREATE TABLE wallet_versions (version bigint NOT NULL, LIKE wallets);
ALTER TABLE wallet_versions ADD PRIMARY KEY (workspace_id, id, version);
CREATE INDEX wallet_versions_by_version ON wallet_versions (workspace_id, (version + 0));

CREATE TABLE category_versions (version bigint NOT NULL, LIKE categories);
ALTER TABLE category_versions ADD PRIMARY KEY (workspace_id, id, version);
CREATE INDEX category_versions_by_version ON category_versions (workspace_id, (version + 0));

CREATE TABLE budget_versions (version bigint NOT NULL, LIKE budgets);
ALTER TABLE budget_versions ADD PRIMARY KEY (workspace_id, id, version);
CREATE INDEX budget_versions_by_version ON budget_versions (workspace_id, (version + 0));

CREATE TABLE goal_versions (version bigint NOT NULL, LIKE goals);
ALTER TABLE goal_versions ADD PRIMARY KEY (workspace_id, id, version);
CREATE INDEX goal_versions_by_version ON goal_versions (workspace_id, (version + 0));

CREATE TABLE debt_versions (version bigint NOT NULL, LIKE debts);
ALTER TABLE debt_versions ADD PRIMARY KEY (workspace_id, id, version);
CREATE INDEX debt_versions_by_version ON debt_versions (workspace_id, (version + 0));

-- The version of a transaction's last correction or deletion; NULL while it has had
-- none, so that its row has stood since created_version.
ALTER TABLE transactions ADD COLUMN changed_version bigint;
UPDATE transactions t SET changed_version = (
    SELECT max(e.version) FROM events e
    WHERE e.stream_id = 'workspace-' || t.workspace_id AND e.data ? 'transactionId'
        AND e.data->>'transactionId' = t.id::text
        AND e.type IN ('transaction.updated.v1', 'transaction.deleted.v1'))
WHERE t.updated_at <> t.created_at;

-- A row a correction or a deletion replaced: it stood from its own
-- coalesce(changed_version, created_version) until replaced_version.
CREATE TABLE transaction_versions (replaced_version bigint NOT NULL, LIKE transactions);
ALTER TABLE transaction_versions ADD PRIMARY KEY (workspace_id, id, replaced_version);
CREATE INDEX transaction_versions_by_date ON transaction_versions (workspace_id, date);

-- An as-of read finds the version its moment names.
CREATE INDEX events_by_time ON events (stream_id, recorded_at, version);

-- A database written before this migration kept no history: its workspaces' read
-- models are as they stand, and their history starts at the stream's version now. A
-- replay (finledger replay) rebuilds the whole history and removes these rows.
CREATE TABLE history_starts (
    workspace_id uuid   PRIMARY KEY,
    version      bigint NOT NULL
);

INSERT INTO history_starts (workspace_id, version)
SELECT substr(stream_id, 11)::uuid, version FROM streams WHERE stream_id LIKE 'workspace-%';

INSERT INTO wallet_versions SELECT h.version, t.* FROM wallets t JOIN history_starts h USING (workspace_id);
INSERT INTO category_versions SELECT h.version, t.* FROM categories t JOIN history_starts h USING (workspace_id);
INSERT INTO budget_versions SELECT h.version, t.* FROM budgets t JOIN history_starts h USING (workspace_id);
INSERT INTO goal_versions SELECT h.version, t.* FROM goals t JOIN history_starts h USING (workspace_id);
INSERT INTO debt_versions SELECT h.version, t.* FROM debts t JOIN history_starts h USING (workspace_id);

CREATE SCHEMA finledger_asof;

-- The version the views show.
CREATE FUNCTION finledger_asof.cut() RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT current_setting('finledger.as_of')::bigint $$;

-- A view of a record's history names the record by its own row, so that a reader's
-- condition on the workspace or the id reaches the table's key before the history is
-- looked up.
CREATE VIEW finledger_asof.wallets AS
SELECT r.workspace_id, r.id, v.name, v.description, v.type, v.currency, v.card_color, v.initial_balance, v.balance,
    v.clabe, v.provider, v.is_default, v.archived, v.created_at, v.updated_at, v.created_version
FROM public.wallets r CROSS JOIN LATERAL (
    SELECT * FROM public.wallet_versions h
    WHERE h.workspace_id = r.workspace_id AND h.id = r.id AND h.version <= finledger_asof.cut()
    ORDER BY h.version DESC LIMIT 1) v
WHERE r.created_version <= finledger_asof.cut();

CREATE VIEW finledger_asof.categories AS
SELECT r.workspace_id, r.id, v.name, v.icon, v.description, v.color, v.is_default, v.tag_id, v.archived,
    v.created_at, v.updated_at, v.created_version
FROM public.categories r CROSS JOIN LATERAL (
    SELECT * FROM public.category_versions h
    WHERE h.workspace_id = r.workspace_id AND h.id = r.id AND h.version <= finledger_asof.cut()
    ORDER BY h.version DESC LIMIT 1) v
WHERE r.created_version <= finledger_asof.cut();

CREATE VIEW finledger_asof.budgets AS
SELECT r.workspace_id, r.id, v.name, v.category_id, v.amount, v.currency, v.period, v.start_date, v.end_date,
    v.alert_threshold, v.tag_id, v.deleted, v.created_at, v.updated_at, v.created_version
FROM public.budgets r CROSS JOIN LATERAL (
    SELECT * FROM public.budget_versions h
    WHERE h.workspace_id = r.workspace_id AND h.id = r.id AND h.version <= finledger_asof.cut()
    ORDER BY h.version DESC LIMIT 1) v
WHERE r.created_version <= finledger_asof.cut();

CREATE VIEW finledger_asof.goals AS
SELECT r.workspace_id, r.id, v.name, v.target_amount, v.currency, v.deadline, v.saved_amount, v.deleted,
    v.created_at, v.updated_at, v.created_version
FROM public.goals r CROSS JOIN LATERAL (
    SELECT * FROM public.goal_versions h
    WHERE h.workspace_id = r.workspace_id AND h.id = r.id AND h.version <= finledger_asof.cut()
    ORDER BY h.version DESC LIMIT 1) v
WHERE r.created_version <= finledger_asof.cut();

CREATE VIEW finledger_asof.debts AS
SELECT r.workspace_id, r.id, v.name, v.creditor, v.total_amount, v.pending_balance, v.currency, v.due_date, v.deleted,
    v.created_at, v.updated_at, v.created_version
FROM public.debts r CROSS JOIN LATERAL (
    SELECT * FROM public.debt_versions h
    WHERE h.workspace_id = r.workspace_id AND h.id = r.id AND h.version <= finledger_asof.cut()
    ORDER BY h.version DESC LIMIT 1) v
WHERE r.created_version <= finledger_asof.cut();

CREATE VIEW finledger_asof.transactions AS
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version
FROM public.transactions
WHERE coalesce(changed_version, created_version) <= finledger_asof.cut()
UNION ALL
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version
FROM public.transaction_versions
WHERE coalesce(changed_version, created_version) <= finledger_asof.cut() AND replaced_version > finledger_asof.cut();

-- The daily totals are the live income and expenses summed per day, type, currency and
-- category (the nil uuid for none): the rule the projections keep them by.
CREATE VIEW finledger_asof.daily_totals AS
SELECT workspace_id, date AS day, type, currency,
    coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, sum(amount) AS amount, count(*) AS count
FROM finledger_asof.transactions
WHERE deleted_at IS NULL AND type IN ('income', 'expense')
GROUP BY 1, 2, 3, 4, 5;
