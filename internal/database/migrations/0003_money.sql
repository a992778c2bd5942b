-- Income and expenses summed per day, type, currency and category: budgets' spending,
-- summaries and agent context read these few rows instead of every transaction.
-- Uncategorized movements use the nil uuid.
CREATE TABLE daily_totals (
    workspace_id uuid    NOT NULL,
    day          date    NOT NULL,
    type         text    NOT NULL,
    currency     text    NOT NULL,
    category_id  uuid    NOT NULL,
    amount       numeric NOT NULL,
    count        bigint  NOT NULL,
    PRIMARY KEY (workspace_id, category_id, type, currency, day)
);

CREATE INDEX daily_totals_by_day ON daily_totals (workspace_id, day);

ALTER TABLE transactions ADD COLUMN recurring_id uuid;

CREATE TABLE budgets (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    category_id     uuid        NOT NULL,
    amount          numeric     NOT NULL,
    currency        text        NOT NULL,
    period          text        NOT NULL,
    start_date      date        NOT NULL,
    end_date        date        NOT NULL,
    alert_threshold numeric     NOT NULL,
    tag_id          uuid,
    deleted         boolean     NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE goals (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    target_amount   numeric     NOT NULL,
    currency        text        NOT NULL,
    deadline        date,
    saved_amount    numeric     NOT NULL DEFAULT 0,
    deleted         boolean     NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

-- What each wallet still has in a goal.
CREATE TABLE goal_funding (
    workspace_id uuid    NOT NULL,
    goal_id      uuid    NOT NULL,
    wallet_id    uuid    NOT NULL,
    amount       numeric NOT NULL,
    PRIMARY KEY (workspace_id, goal_id, wallet_id)
);

CREATE TABLE debts (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    creditor        text,
    total_amount    numeric     NOT NULL,
    pending_balance numeric     NOT NULL,
    currency        text        NOT NULL,
    due_date        date,
    deleted         boolean     NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE recurring_payments (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    amount          numeric     NOT NULL,
    kind            text        NOT NULL,
    periodicity     text        NOT NULL,
    next_payment    date        NOT NULL,
    anchor          date        NOT NULL,
    last_payment    date,
    active          boolean     NOT NULL,
    wallet_id       uuid,
    category_id     uuid,
    deleted         boolean     NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

-- The scheduler's scan for due items, across workspaces.
CREATE INDEX recurring_payments_due ON recurring_payments (next_payment)
    WHERE active AND NOT deleted AND kind IN ('income', 'expense');

-- Exchange rates: 1 base = rate quote on a date. A workspace's own rates come first;
-- the nil workspace holds reference rates from a feed such as the ECB's.
CREATE TABLE exchange_rates (
    workspace_id uuid        NOT NULL,
    base         text        NOT NULL,
    quote        text        NOT NULL,
    date         date        NOT NULL,
    rate         numeric     NOT NULL CHECK (rate > 0),
    source       text        NOT NULL,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, base, quote, date)
);
