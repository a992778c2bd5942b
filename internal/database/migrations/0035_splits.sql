-- Split transactions (domain/splits.go): an income or expense whose amount is shared
-- among parts, each with its amount, currency, category, tag and concept, kept on the
-- transaction's row as its event states them (a JSON array, amounts as strings with
-- their scale), NULL when it is not split. The parts go with the row into its history
-- (transaction_versions), so that an as-of read shows them as they stood.
ALTER TABLE transactions ADD COLUMN splits jsonb;
ALTER TABLE transaction_versions ADD COLUMN splits jsonb;

-- What a transaction row counts under each category: its whole amount under its own
-- category when it is not split, else each part's amount under the part's category,
-- the parts of one category summed (a transaction counts once per category). The
-- uncategorized count under the nil uuid, as in the tables of totals.
CREATE FUNCTION finledger_category_lines(own_category uuid, own_amount numeric, parts jsonb)
RETURNS TABLE (category_id uuid, amount numeric)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(l.category, '00000000-0000-0000-0000-000000000000'), sum(l.amount)
    FROM (
        SELECT $1 AS category, $2 AS amount WHERE $3 IS NULL
        UNION ALL
        SELECT (p->>'categoryId')::uuid, (p->>'amount')::numeric FROM jsonb_array_elements($3) p
    ) l
    GROUP BY 1
$$;

-- A listing filtered by a category finds a split transaction by any of its parts.
CREATE INDEX transactions_split_parts ON transactions USING gin (splits jsonb_path_ops) WHERE splits IS NOT NULL;

CREATE OR REPLACE VIEW finledger_asof.transactions AS
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared, import_id, external_id, reconciled, splits
FROM public.transactions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
UNION ALL
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared, import_id, external_id, reconciled, splits
FROM public.transaction_versions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
    AND replaced_version > (SELECT finledger_asof.cut());

-- Whether a workspace holds split transactions decides how a listing by category is
-- counted (queries.Transactions): this index answers it at once.
CREATE INDEX transactions_split ON transactions (workspace_id) WHERE splits IS NOT NULL AND deleted_at IS NULL;
