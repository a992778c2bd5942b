-- The transaction listing at a million transactions in a workspace.

-- Live transactions counted per day, type and category (uncategorized ones under the nil
-- uuid), every type included: a listing filtered by nothing else than these reads its
-- total here, and a deep page the day it starts on, instead of counting or walking the
-- transactions. A group whose last transaction goes away loses its row, so the rows are
-- the same whether the projections made them one event at a time or this statement did.
CREATE TABLE transaction_counts (
    workspace_id uuid   NOT NULL,
    day          date   NOT NULL,
    type         text   NOT NULL,
    category_id  uuid   NOT NULL,
    count        bigint NOT NULL,
    PRIMARY KEY (workspace_id, day, type, category_id)
);

INSERT INTO transaction_counts (workspace_id, day, type, category_id, count)
SELECT workspace_id, date, type, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), count(*)
FROM transactions WHERE deleted_at IS NULL
GROUP BY 1, 2, 3, 4;

-- The listing's index carries the id, so a page is found by walking the index alone
-- (an index-only scan) and only its own rows are read from the table.
DROP INDEX transactions_listing;
CREATE INDEX transactions_listing ON transactions (workspace_id, date DESC, created_version DESC) INCLUDE (id)
    WHERE deleted_at IS NULL;

-- A category's transactions in the listing's order.
CREATE INDEX transactions_listing_by_category ON transactions (workspace_id, category_id, date DESC, created_version DESC)
    INCLUDE (id) WHERE deleted_at IS NULL;

-- `search` and `q` look for a text anywhere in the concept or the description
-- (ILIKE '%text%'): trigram indexes find the rows holding it. pg_trgm is a trusted
-- extension, which the database's owner may create.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX transactions_concept_trigrams ON transactions USING gin (concept gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX transactions_description_trigrams ON transactions USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL;
