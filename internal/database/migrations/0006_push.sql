-- Web Push subscriptions: the browser's endpoint and keys for each device of a user in
-- a workspace. This is device data, not money: the API writes it directly, not as
-- events, and a replay leaves it alone. One row per endpoint per user and workspace, so
-- subscribing again replaces the keys; the primary key leads with workspace_id like
-- every other table.
CREATE TABLE push_subscriptions (
    workspace_id    uuid        NOT NULL,
    user_id         uuid        NOT NULL,
    id              uuid        NOT NULL,
    endpoint        text        NOT NULL,
    p256dh          text        NOT NULL, -- base64url of the 65-byte uncompressed P-256 key
    auth            text        NOT NULL, -- base64url of the 16-byte authentication secret
    expiration_time timestamptz,
    user_agent      text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, user_id, id),
    UNIQUE (workspace_id, user_id, endpoint)
);
