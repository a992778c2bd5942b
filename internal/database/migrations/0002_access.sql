-- Users: profile fields and logical deletion.
ALTER TABLE users
    ADD COLUMN first_name text,
    ADD COLUMN last_name text,
    ADD COLUMN currency text,
    ADD COLUMN language text,
    ADD COLUMN theme text NOT NULL DEFAULT 'system',
    ADD COLUMN notifications_enabled boolean NOT NULL DEFAULT true,
    ADD COLUMN has_completed_onboarding boolean NOT NULL DEFAULT false,
    ADD COLUMN deleted_at timestamptz;

CREATE INDEX users_email ON users (lower(email)) WHERE deleted_at IS NULL;

ALTER TABLE workspaces
    ADD COLUMN owner_id uuid,
    ADD COLUMN deleted_at timestamptz;

-- Invitations of people not seen yet; they join at their first sign-in.
CREATE TABLE workspace_invitations (
    workspace_id uuid        NOT NULL,
    email        text        NOT NULL, -- lower case
    role         text        NOT NULL,
    invited_by   uuid        NOT NULL,
    invited_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, email)
);

CREATE INDEX workspace_invitations_email ON workspace_invitations (email);

-- API keys: only a SHA-256 hash of the key is kept.
CREATE TABLE api_keys (
    workspace_id uuid        NOT NULL,
    id           uuid        NOT NULL,
    name         text        NOT NULL,
    description  text,
    scopes       text[]      NOT NULL,
    prefix       text        NOT NULL,
    hash         bytea       NOT NULL,
    created_by   uuid        NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    PRIMARY KEY (workspace_id, id)
);

CREATE UNIQUE INDEX api_keys_hash ON api_keys (hash);
CREATE INDEX api_keys_created_by ON api_keys (created_by);

-- When a key was last used: operational data, not history, so not rebuilt by replay
-- and written at most once a minute per key.
CREATE TABLE api_key_usage (
    key_id       uuid PRIMARY KEY,
    last_used_at timestamptz NOT NULL
);

-- The audit log: one entry per create, update or delete, projected from the events
-- (event_id names the entry). Append-only and written on every command, so it carries
-- the one index its listing needs and no other.
CREATE TABLE audit_log (
    workspace_id uuid        NOT NULL,
    event_id     uuid        NOT NULL,
    version      bigint      NOT NULL,
    entity       text        NOT NULL,
    entity_id    text        NOT NULL,
    action       text        NOT NULL,
    actor_type   text        NOT NULL,
    actor_id     text        NOT NULL,
    user_agent   text,
    request_id   text,
    occurred_at  timestamptz NOT NULL,
    changes      jsonb       NOT NULL
);

CREATE INDEX audit_log_listing ON audit_log (workspace_id, occurred_at DESC, version DESC);

-- Token buckets of the rate limiter, shared by every instance. Unlogged: a crash may
-- forget the last seconds of counting, and no request pays for a WAL flush. "allowed"
-- says whether the last request took a token, so one upsert both decides and answers.
CREATE UNLOGGED TABLE rate_limits (
    key        text PRIMARY KEY,
    tokens     double precision NOT NULL,
    updated_at timestamptz      NOT NULL,
    allowed    boolean          NOT NULL
);
