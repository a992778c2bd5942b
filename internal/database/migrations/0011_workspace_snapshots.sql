-- Snapshots of workspace states (commands/snapshot.go): a workspace's folded state at a
-- version of its stream, so that the first command an instance runs on a workspace folds
-- only the events after the latest one. A cache of the fold, never the truth: a command
-- trusts it no more than a cached state, `finledger verify` compares each with the fold
-- it stands for, and one of a format this build does not know is never read. Written
-- after a command from a state of committed events; the latest two are kept.
CREATE TABLE workspace_snapshots (
    workspace_id uuid        NOT NULL,
    version      bigint      NOT NULL,
    -- The fold's revision and the fingerprint of the state's Go types.
    format       text        NOT NULL,
    state        bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, version)
);
