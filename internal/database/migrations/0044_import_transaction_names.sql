-- A statement's commit names the transactions it creates from the import and the row
-- (imports.CreatedTransaction). Named by a hash alone, a hundred thousand of them fell
-- all over the transactions' primary key and the index of the parts' ids, and each
-- insert read and dirtied a page of its own. They are now named by the import's time
-- first, as a transaction made through the API is under its time-ordered id, so that
-- one import's lie together. The commit records here how it named them; imports
-- committed before named them by the hash alone (1), and keep that name.
ALTER TABLE imports ADD COLUMN transaction_names smallint NOT NULL DEFAULT 1;
