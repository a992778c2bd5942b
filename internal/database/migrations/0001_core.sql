-- Event store. A stream's version is gap-free; streams holds the head version so that
-- writers of one stream serialise on a single row lock. tx_id records the writing
-- transaction so that global readers can stay below the visibility horizon.
CREATE TABLE streams (
    stream_id text PRIMARY KEY,
    version   bigint NOT NULL CHECK (version > 0)
);

CREATE TABLE events (
    stream_id   text        NOT NULL,
    version     bigint      NOT NULL,
    position    bigint      GENERATED ALWAYS AS IDENTITY,
    event_id    uuid        NOT NULL,
    type        text        NOT NULL,
    data        jsonb       NOT NULL,
    metadata    jsonb       NOT NULL,
    recorded_at timestamptz NOT NULL,
    tx_id       xid8        NOT NULL DEFAULT pg_current_xact_id(),
    PRIMARY KEY (stream_id, version),
    UNIQUE (stream_id, event_id)
);

CREATE INDEX events_global_order ON events (tx_id, position);

-- eventstore_expect fails an append whose stream head did not move from the expected
-- version. An error, not an empty result, so that the statements sent with the append
-- (projections) roll back with it even in an implicit transaction.
CREATE FUNCTION eventstore_expect(moved boolean, stream text, expected bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT moved THEN
        RAISE EXCEPTION 'stream % is not at version %', stream, expected USING ERRCODE = 'FLV01';
    END IF;
    RETURN true;
END
$$;

-- Write-side record of requests made with an Idempotency-Key, written in the same
-- transaction as the events they caused.
CREATE TABLE idempotency_keys (
    workspace_id uuid        NOT NULL,
    credential   text        NOT NULL,
    key          text        NOT NULL,
    request_hash bytea       NOT NULL,
    status       integer     NOT NULL,
    body         bytea       NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, credential, key)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Read models, rebuilt from the events by `finledger replay`.
CREATE TABLE users (
    id                    uuid PRIMARY KEY,
    subject               text        NOT NULL UNIQUE,
    email                 text        NOT NULL,
    name                  text,
    personal_workspace_id uuid        NOT NULL,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL
);

CREATE TABLE workspaces (
    id         uuid PRIMARY KEY,
    kind       text        NOT NULL,
    name       text        NOT NULL,
    currency   text        NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE workspace_members (
    workspace_id uuid        NOT NULL,
    user_id      uuid        NOT NULL,
    role         text        NOT NULL,
    joined_at    timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
);

CREATE INDEX workspace_members_user ON workspace_members (user_id);

CREATE TABLE wallets (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    description     text,
    type            text        NOT NULL,
    currency        text        NOT NULL,
    card_color      text        NOT NULL,
    initial_balance numeric     NOT NULL,
    balance         numeric     NOT NULL,
    clabe           text,
    provider        text,
    is_default      boolean     NOT NULL,
    archived        boolean     NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    created_version bigint     NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE categories (
    workspace_id     uuid        NOT NULL,
    id               uuid        NOT NULL,
    name             text        NOT NULL,
    icon             text        NOT NULL,
    description      text,
    color            text        NOT NULL,
    is_default       boolean     NOT NULL,
    tag_id           uuid,
    archived         boolean     NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE tags (
    workspace_id     uuid        NOT NULL,
    id               uuid        NOT NULL,
    name             text        NOT NULL,
    color            text        NOT NULL,
    active           boolean     NOT NULL DEFAULT true,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE transactions (
    workspace_id       uuid        NOT NULL,
    id                 uuid        NOT NULL,
    type               text        NOT NULL,
    amount             numeric     NOT NULL,
    currency           text        NOT NULL,
    destination_amount numeric,
    date               date        NOT NULL,
    concept            text,
    description        text,
    wallet_id          uuid,
    to_wallet_id       uuid,
    category_id        uuid,
    goal_id            uuid,
    debt_id            uuid,
    tag_id             uuid,
    reference_number   text,
    attachment_url     text,
    deleted_at         timestamptz,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    created_version   bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

-- The listing's order (newest date first, then newest recorded first) served by one index.
CREATE INDEX transactions_listing ON transactions (workspace_id, date DESC, created_version DESC)
    WHERE deleted_at IS NULL;
