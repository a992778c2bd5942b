-- Long answers open on any instance: the realtime streams, which 0008 counted alone, and
-- the bulk reads (the audit export, reports, the change feed's pages), so that a person,
-- a workspace and a realtime token each have a bounded number open whichever instances
-- serve them, and so that each instance checks the access of all its streams in one
-- query. Connection state, not history, kept as 0008 keeps it: unlogged, each row naming
-- its instance, each instance holding a lease renewed every few seconds, the rows of an
-- instance whose lease ran out no longer counting. 0008's tables go with the streams
-- open at the upgrade (instances of different builds never share a database).
DROP TABLE realtime_streams;
DROP TABLE realtime_instances;

CREATE UNLOGGED TABLE answer_instances (
    instance_id uuid PRIMARY KEY,
    expires_at  timestamptz NOT NULL
);

CREATE UNLOGGED TABLE long_answers (
    workspace_id uuid  NOT NULL,
    id           uuid  NOT NULL,
    user_id      uuid  NOT NULL,
    kind         text  NOT NULL CHECK (kind IN ('realtime', 'bulk')),
    token_hash   bytea, -- a realtime stream's: SHA-256 of the sealed token that opened it
    instance_id  uuid  NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

-- Counting a person's open answers of a kind when they open another, in any workspace:
-- the limit is the person's, so this one count reads across workspaces.
CREATE INDEX long_answers_user ON long_answers (user_id, kind);
-- An instance's check of its own streams, and deleting a dead instance's answers.
CREATE INDEX long_answers_instance ON long_answers (instance_id);
