-- Writes held for a person's approval (domain/proposals.go): an API key whose writes are
-- proposals, and the proposals, one row each, as their events leave them. A proposal's
-- status is pending until a person approves or rejects it; one that waited past
-- expires_at reads as expired (its row keeps status pending: the moment decides).
ALTER TABLE api_keys ADD COLUMN writes text NOT NULL DEFAULT 'apply';

CREATE TABLE proposals (
    workspace_id uuid        NOT NULL,
    id           uuid        NOT NULL,
    key_id       uuid        NOT NULL,
    route        text        NOT NULL,
    path         text        NOT NULL,
    body         text        NOT NULL,
    summary      text        NOT NULL,
    status       text        NOT NULL DEFAULT 'pending',
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    decided_at   timestamptz,
    decided_by   uuid,
    settled_at   timestamptz,
    result_status integer,
    error_code   text,
    error_message text,
    created_version bigint   NOT NULL,
    PRIMARY KEY (workspace_id, id)
);
CREATE INDEX proposals_by_age ON proposals (workspace_id, created_at DESC);
