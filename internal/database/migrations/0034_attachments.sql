-- The files attached to transactions (attachment.added and attachment.removed), as the
-- API lists them. Each names its content by SHA-256 (attachment_contents, 0033): the
-- same receipt attached twice is stored once. A removed attachment keeps its row, with
-- removed_at, so that the check of the stored contents against the history (`finledger
-- verify`) still finds it; the listing leaves it out, and so leaves out the files of a
-- deleted transaction.
CREATE TABLE attachments (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    transaction_id uuid NOT NULL,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    content_type text NOT NULL,
    file_name text,
    created_at timestamptz NOT NULL,
    created_version bigint NOT NULL,
    removed_at timestamptz,
    PRIMARY KEY (workspace_id, id)
);
CREATE INDEX attachments_of_transaction ON attachments (workspace_id, transaction_id, created_version);
CREATE INDEX attachments_by_content ON attachments (workspace_id, sha256);
