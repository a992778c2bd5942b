-- The global log is read in (tx_id, position) order. A transaction that got its id
-- early (by an earlier write) but appended to a stream after a younger transaction had
-- appended to it would put its later version first. So an event's tx_id is now its
-- writer's id raised to the tx_id of the stream's previous event: never lower than the
-- real writer's id (the visibility horizon still holds the event back until its writer
-- has ended), and never decreasing along a stream's versions (every reader of the
-- global log sees each stream in version order). streams.tx_id carries the head's
-- value so an append needs no extra read; see eventstore.Append.
ALTER TABLE streams ADD COLUMN tx_id xid8;

-- History already stored: raise each event's tx_id to the greatest of its stream's
-- up to its version. Raising only moves events later in the global log, so a reader's
-- checkpoint can only see an event again, never miss one. (xid8 has no max aggregate
-- before PostgreSQL 16, hence the detour through numeric.)
UPDATE events e SET tx_id = raised.tx_id
FROM (
    SELECT stream_id, version,
           (max(tx_id::text::numeric) OVER (PARTITION BY stream_id ORDER BY version))::text::xid8 AS tx_id
    FROM events
) raised
WHERE e.stream_id = raised.stream_id AND e.version = raised.version AND e.tx_id <> raised.tx_id;

UPDATE streams s SET tx_id = e.tx_id
FROM events e
WHERE e.stream_id = s.stream_id AND e.version = s.version;

ALTER TABLE streams ALTER COLUMN tx_id SET NOT NULL;

-- Every append says which tx_id its events carry.
ALTER TABLE events ALTER COLUMN tx_id DROP DEFAULT;
