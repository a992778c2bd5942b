-- The record of a request made with an Idempotency-Key keeps what the command did
-- rather than an HTTP answer: the workspace stream's version after it, the type and
-- version of each event it appended, and the answer its caller read after the write,
-- byte for byte. The HTTP status follows from the operation. Records made before hold
-- version 0 and no events; they are forgotten within the retention of seven days.
ALTER TABLE idempotency_keys DROP COLUMN status;
ALTER TABLE idempotency_keys RENAME COLUMN body TO answer;
ALTER TABLE idempotency_keys ALTER COLUMN answer DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN version bigint NOT NULL DEFAULT 0;
ALTER TABLE idempotency_keys ADD COLUMN events jsonb NOT NULL DEFAULT '[]';
ALTER TABLE idempotency_keys ALTER COLUMN version DROP DEFAULT;
ALTER TABLE idempotency_keys ALTER COLUMN events DROP DEFAULT;
