-- Outbound webhook subscriptions, projected from their events. The signing secret is
-- sealed with the service's key (it must be recovered to sign, so it cannot be hashed).
CREATE TABLE webhooks (
    workspace_id  uuid        NOT NULL,
    id            uuid        NOT NULL,
    name          text        NOT NULL,
    url           text        NOT NULL,
    events        text[]      NOT NULL,
    active        boolean     NOT NULL,
    sealed_secret bytea       NOT NULL,
    created_by    uuid        NOT NULL,
    -- the version of the workspace's stream that created it: it is sent later events only
    created_version bigint    NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    deleted_at    timestamptz,
    PRIMARY KEY (workspace_id, id)
);

-- Where the relay has published the global log up to: the position of the last event
-- published (see eventstore.Position).
CREATE TABLE relay_checkpoints (
    name     text   PRIMARY KEY,
    tx_id    xid8   NOT NULL,
    position bigint NOT NULL
);

-- Deliveries are operational state, not history: written by the dispatcher, not by
-- events, and not rebuilt by a replay. A delivery's id derives from its webhook and its
-- event, so handling an event twice never makes a second delivery. stream_seq is the
-- event's position in the JetStream stream (0 for test deliveries): a webhook's
-- deliveries go out in (stream_seq, seq) order, which is event order however the
-- dispatcher received them; body is the exact JSON text every attempt sends.
CREATE TABLE webhook_deliveries (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    webhook_id      uuid        NOT NULL,
    seq             bigint      GENERATED ALWAYS AS IDENTITY,
    stream_seq      bigint      NOT NULL DEFAULT 0,
    event_id        uuid,
    event           text        NOT NULL,
    body            json        NOT NULL,
    status          text        NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        integer     NOT NULL DEFAULT 0,
    -- attempts made before the last manual redelivery: the retry schedule counts from it
    schedule_from   integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    created_at      timestamptz NOT NULL,
    completed_at    timestamptz,
    PRIMARY KEY (workspace_id, id)
);

CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, stream_seq, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_listing ON webhook_deliveries (workspace_id, webhook_id, seq DESC);

-- Every attempt of every delivery.
CREATE TABLE webhook_attempts (
    workspace_id  uuid        NOT NULL,
    delivery_id   uuid        NOT NULL,
    attempt       integer     NOT NULL,
    started_at    timestamptz NOT NULL,
    duration_ms   integer     NOT NULL,
    status_code   integer,
    error         text,
    response_body text        NOT NULL,
    succeeded     boolean     NOT NULL,
    PRIMARY KEY (workspace_id, delivery_id, attempt)
);

-- Budgets whose alert threshold was reached, once per budget and period.
CREATE TABLE budget_alerts (
    workspace_id uuid        NOT NULL,
    budget_id    uuid        NOT NULL,
    period_start date        NOT NULL,
    event_id     uuid        NOT NULL,
    reached_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, budget_id, period_start)
);
