-- Realtime streams open on any instance, so that a token opens a bounded number of
-- streams whichever instances serve them, and so that each instance checks the access
-- of all its streams in one query. This is connection state, not history: the API
-- writes it directly and a replay leaves it alone.
--
-- Each instance holds a lease in realtime_instances while it has streams open, renewed
-- every few seconds. Streams of an instance whose lease ran out (killed, or cut off from
-- the database) stop counting at once and are deleted by the next instance that renews
-- its own. Unlogged, like rate_limits: no renewal pays for a WAL flush, and after a crash
-- of the database the tables come back empty, which ends every stream (their rows are
-- gone) and lets the browsers reconnect.
CREATE UNLOGGED TABLE realtime_instances (
    instance_id uuid PRIMARY KEY,
    expires_at  timestamptz NOT NULL
);

CREATE UNLOGGED TABLE realtime_streams (
    workspace_id uuid  NOT NULL,
    id           uuid  NOT NULL,
    user_id      uuid  NOT NULL,
    token_hash   bytea NOT NULL, -- SHA-256 of the sealed token that opened the stream
    instance_id  uuid  NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

-- Counting a token's open streams when it opens another.
CREATE INDEX realtime_streams_token ON realtime_streams (workspace_id, token_hash);
-- An instance's check of its own streams, and deleting a dead instance's.
CREATE INDEX realtime_streams_instance ON realtime_streams (instance_id);
