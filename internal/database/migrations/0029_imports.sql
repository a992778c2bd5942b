-- Statement imports (docs/api.md, Imports). A preview is not history: it is the file's
-- rows as the service read them and the decisions a person makes on them, kept here
-- until its commit, whose events then make the transactions. The status and counts are
-- projected from those events.

-- The import that recorded or linked a transaction, and its statement row's id at the bank.
ALTER TABLE transactions ADD COLUMN import_id uuid, ADD COLUMN external_id text;
ALTER TABLE transaction_versions ADD COLUMN import_id uuid, ADD COLUMN external_id text;

CREATE OR REPLACE VIEW finledger_asof.transactions AS
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared, import_id, external_id
FROM public.transactions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
UNION ALL
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared, import_id, external_id
FROM public.transaction_versions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
    AND replaced_version > (SELECT finledger_asof.cut());

-- A statement row is in a wallet once: a second import of it is refused, even when two
-- previews of one file are committed at once.
CREATE UNIQUE INDEX transactions_external_id ON transactions (workspace_id, wallet_id, external_id)
    WHERE deleted_at IS NULL AND external_id IS NOT NULL;
-- What may be the same as a statement row: a transaction of the wallet near its date.
CREATE INDEX transactions_by_wallet_date ON transactions (workspace_id, wallet_id, date)
    WHERE deleted_at IS NULL;

CREATE TABLE imports (
    workspace_id uuid        NOT NULL,
    id           uuid        NOT NULL,
    wallet_id    uuid        NOT NULL,
    format       text        NOT NULL,
    status       text        NOT NULL DEFAULT 'preview' CHECK (status IN ('preview', 'committed', 'undone')),
    file_name    text,
    file_sha256  text        NOT NULL,
    -- The statement's own balances, when the file states them.
    opening_balance numeric,
    closing_balance numeric,
    statement_date  date,
    row_count    integer     NOT NULL,
    -- Rises with every change of a row's decision, so that a commit takes the rows it read.
    revision     integer     NOT NULL DEFAULT 0,
    created_by   text        NOT NULL,
    created_at   timestamptz NOT NULL,
    committed_at timestamptz,
    undone_at    timestamptz,
    created      integer,
    merged       integer,
    skipped      integer,
    PRIMARY KEY (workspace_id, id)
);
CREATE INDEX imports_listing ON imports (workspace_id, created_at DESC);

CREATE TABLE import_rows (
    workspace_id   uuid    NOT NULL,
    import_id      uuid    NOT NULL,
    index          integer NOT NULL,
    date           date    NOT NULL,
    value_date     date,
    amount         numeric NOT NULL,
    currency       text    NOT NULL,
    payee          text    NOT NULL,
    memo           text    NOT NULL,
    external_id    text    NOT NULL,
    -- Whether the bank gave the external id, or the service made it from the row's content.
    external_id_given boolean NOT NULL,
    counterparty   text    NOT NULL,
    -- The proposed transaction.
    type           text    NOT NULL,
    concept        text,
    category_id    uuid,
    tag_id         uuid,
    to_wallet_id   uuid,
    rule_id        uuid,
    -- The duplicate verdict: new, duplicate or probable, why, and the transaction it names.
    verdict        text    NOT NULL,
    reason         text    NOT NULL,
    match_id       uuid,
    decision       text    NOT NULL CHECK (decision IN ('import', 'skip', 'merge')),
    -- The transaction the commit created or linked.
    transaction_id uuid,
    PRIMARY KEY (workspace_id, import_id, index)
);

-- The rules that say what a statement's rows are (docs/api.md, Rules), in the order
-- they apply.
CREATE TABLE rules (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    position        integer     NOT NULL,
    conditions      jsonb       NOT NULL,
    actions         jsonb       NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
