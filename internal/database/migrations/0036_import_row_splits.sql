-- A statement's row split in parts by its file (a QIF file's S, $ and E lines) is
-- proposed as a split transaction: its parts, as the commit's events will state them (a
-- JSON array, amounts as strings with their scale), NULL when it is not split.
ALTER TABLE import_rows ADD COLUMN splits jsonb;
