-- An event's data above 2 kB (an import's part holds a thousand transactions, half a
-- megabyte) is compressed where it is stored. LZ4 compresses it in about a third of the
-- time PostgreSQL's own method takes, to about the same size, and reads it back faster:
-- an append of a statement's hundred parts spent as long compressing them as parsing
-- them. The events stored before stay as they are; a server built without LZ4 keeps
-- its own method.
DO $$
BEGIN
    ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'events keep the default compression: %', SQLERRM;
END
$$;
