-- The identity of this database's deployment: the owner its stream on NATS records,
-- and what the deployment's default name is derived from (see webhooks.Deployment).
-- Random and made once, so it outlives a rename of the database, a failover and a
-- server upgrade; database_oid says which database it was made for, so that a copy
-- under another oid (CREATE DATABASE ... TEMPLATE, a restore into a new database) is
-- given an identity of its own at start instead of sharing its original's. One row.
CREATE TABLE deployment (
    only_row     boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    id           uuid        NOT NULL,
    database_oid oid         NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

INSERT INTO deployment (id, database_oid)
SELECT gen_random_uuid(), oid FROM pg_database WHERE datname = current_database();

-- The stream the relay's checkpoint is a place in. Rows written before streams were
-- named per deployment are of the one stream of those versions, FINLEDGER_EVENTS; so is
-- a row an instance of such a version writes during an upgrade. On another stream
-- than its deployment's, the relay takes over what was left there (Relay.takeOver).
ALTER TABLE relay_checkpoints ADD COLUMN stream text NOT NULL DEFAULT 'FINLEDGER_EVENTS';
