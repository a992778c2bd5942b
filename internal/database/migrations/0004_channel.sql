-- Identity token ids of the chat channel, each usable once across every instance; kept
-- until the token could no longer be accepted anyway.
CREATE TABLE channel_jtis (
    jti        uuid PRIMARY KEY,
    expires_at timestamptz NOT NULL
);

CREATE INDEX channel_jtis_expiry ON channel_jtis (expires_at);

-- One-time link codes, by hash: a code is a secret until it is used.
CREATE TABLE whatsapp_link_codes (
    code_hash    text PRIMARY KEY,
    user_id      uuid        NOT NULL,
    workspace_id uuid        NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz,
    used_by      bytea
);

CREATE INDEX whatsapp_link_codes_user ON whatsapp_link_codes (user_id);

-- Failed link attempts per phone, for the lock after five.
CREATE TABLE whatsapp_link_failures (
    phone_key    bytea PRIMARY KEY,
    failures     integer     NOT NULL,
    locked_until timestamptz,
    updated_at   timestamptz NOT NULL
);

-- The read model of links: one per user, one per phone. The phone is kept as an HMAC
-- and a masked form, never in clear.
CREATE TABLE whatsapp_links (
    user_id                 uuid PRIMARY KEY,
    link_id                 uuid        NOT NULL UNIQUE,
    phone_key               bytea       NOT NULL UNIQUE,
    phone_masked            text        NOT NULL,
    workspace_id            uuid        NOT NULL,
    fingerprint             text,
    status                  text        NOT NULL,
    linked_at               timestamptz NOT NULL,
    updated_at              timestamptz NOT NULL,
    last_transaction_id     uuid,
    last_transaction_ws     uuid,
    last_transaction_at     timestamptz
);
