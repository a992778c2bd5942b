-- CSV import profiles: a bank CSV's column mapping, saved to be used again, for a
-- wallet or for any. The read model of import_profile.saved.v1 and .deleted.v1; a
-- deleted profile's row goes. No history table: a profile is a setting of the import,
-- not a record of money, so neither as-of reads nor the change feed show it (as tags
-- and webhooks, which keep none either).
CREATE TABLE import_profiles (
    workspace_id    uuid        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    -- the wallet the profile is for; NULL for any
    wallet_id       uuid,
    -- the mapping as the API shows it (domain.ImportMapping)
    mapping         jsonb       NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    created_version bigint      NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

-- The listing, optionally of one wallet's profiles, in the order they were made.
CREATE INDEX import_profiles_listing ON import_profiles (workspace_id, created_version);
