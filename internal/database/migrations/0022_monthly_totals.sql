-- The monthly totals: the daily totals summed per month (named by its first day), kept
-- by the projections beside them, with their history as daily_total_versions keeps the
-- days'. A sum over a range reads the whole months in it here and only the days at its
-- ends from the daily totals: a year as of a moment looks up one kept total per month
-- and category, not one per day.
CREATE TABLE monthly_totals (
    workspace_id uuid    NOT NULL,
    month        date    NOT NULL,
    type         text    NOT NULL,
    currency     text    NOT NULL,
    category_id  uuid    NOT NULL,
    amount       numeric NOT NULL,
    count        bigint  NOT NULL,
    PRIMARY KEY (workspace_id, category_id, type, currency, month)
);

-- A month's total is its days' totals added up; a month has a row once one of its days
-- has, and keeps it (a total that falls to nothing counts zero), as the days' do.
INSERT INTO monthly_totals (workspace_id, month, type, currency, category_id, amount, count)
SELECT workspace_id, date_trunc('month', day)::date, type, currency, category_id, sum(amount), sum(count)
FROM daily_totals
GROUP BY workspace_id, date_trunc('month', day), type, currency, category_id;

-- Each total an event leaves, as daily_total_versions (migration 0020), with an index of
-- the same shape and for the same reasons.
CREATE TABLE monthly_total_versions (version bigint NOT NULL, LIKE monthly_totals);
CREATE INDEX monthly_total_versions_by_total ON monthly_total_versions
    (workspace_id, month, hashtext(category_id::text || type || currency), version);

-- Derived from the transactions' history as migration 0020 derives the days'.
INSERT INTO monthly_total_versions (version, workspace_id, month, type, currency, category_id, amount, count)
SELECT version, workspace_id, month, type, currency, category_id,
    trim_scale(sum(sum(amount)) OVER total), sum(sum(count)) OVER total
FROM (
    SELECT coalesce(changed_version, created_version) AS version, workspace_id, date_trunc('month', date)::date AS month,
        type, currency, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, amount, 1 AS count
    FROM transactions WHERE deleted_at IS NULL AND type IN ('income', 'expense')
    UNION ALL
    SELECT coalesce(changed_version, created_version), workspace_id, date_trunc('month', date)::date, type, currency,
        coalesce(category_id, '00000000-0000-0000-0000-000000000000'), amount, 1
    FROM transaction_versions WHERE deleted_at IS NULL AND type IN ('income', 'expense')
    UNION ALL
    SELECT replaced_version, workspace_id, date_trunc('month', date)::date, type, currency,
        coalesce(category_id, '00000000-0000-0000-0000-000000000000'), -amount, -1
    FROM transaction_versions WHERE deleted_at IS NULL AND type IN ('income', 'expense')
) AS moves
GROUP BY version, workspace_id, month, type, currency, category_id
WINDOW total AS (PARTITION BY workspace_id, category_id, type, currency, month ORDER BY version);

-- The monthly totals at the cut: each live total's latest kept state at or before it.
CREATE VIEW finledger_asof.monthly_totals AS
SELECT r.workspace_id, r.month, r.type, r.currency, r.category_id, v.amount, v.count
FROM public.monthly_totals r CROSS JOIN LATERAL (
    SELECT h.amount, h.count FROM public.monthly_total_versions h
    WHERE h.workspace_id = r.workspace_id AND h.month = r.month
        AND hashtext(h.category_id::text || h.type || h.currency) = hashtext(r.category_id::text || r.type || r.currency)
        AND h.category_id = r.category_id AND h.type = r.type AND h.currency = r.currency
        AND h.version <= finledger_asof.cut()
    ORDER BY h.version DESC LIMIT 1) v;
