-- The files of receipts attached to transactions (package attachments).
--
-- A content is named by its SHA-256, in lowercase hex: the event that attaches a file
-- carries the hash, so the history's hash chain covers the file as it covers the event,
-- and a file attached twice is stored once. Contents are kept per workspace, never shared
-- between workspaces even when two hold the same file, so that a workspace's deletion or
-- a person's export reads and removes that workspace's rows alone and never touches
-- another's files. A content's bytes are held in chunks of a fixed size (the last one
-- shorter), numbered from 0, so that neither a save nor a download holds a whole file in
-- memory: each writes or reads one chunk at a time.
CREATE TABLE attachment_contents (
    workspace_id uuid        NOT NULL,
    sha256       text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size         bigint      NOT NULL CHECK (size > 0),
    kind         text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, sha256)
);

-- A content's chunks go with it: deleting the content deletes them.
CREATE TABLE attachment_chunks (
    workspace_id uuid    NOT NULL,
    sha256       text    NOT NULL,
    n            integer NOT NULL CHECK (n >= 0),
    data         bytea   NOT NULL,
    PRIMARY KEY (workspace_id, sha256, n),
    FOREIGN KEY (workspace_id, sha256) REFERENCES attachment_contents ON DELETE CASCADE
);
-- Receipts are JPEG, PNG, WebP, HEIC and PDF files, compressed already: kept out of line
-- without another compression, which would cost time on every save and gain nothing.
ALTER TABLE attachment_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
