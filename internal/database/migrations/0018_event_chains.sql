-- Tamper-evident history: every event carries a SHA-256 over its stream's previous
-- event's hash (32 zero bytes before the first) and the event's canonical text, written
-- by the insert that appends it. Changing, removing or reordering a stored event breaks
-- the chain from there on; `finledger verify` and GET /api/audit/verify recompute it.
--
-- The canonical text is one line of JSON with the keys in this order and no spaces:
-- {"stream":S,"version":V,"id":"UUID","type":T,"recordedAt":"YYYY-MM-DDTHH:MM:SS.ffffffZ","data":D,"metadata":M}
-- where D and M are the event's data and metadata as PostgreSQL prints jsonb. It is what
-- the export (GET /api/audit/export) carries as each line's "event", so a third party
-- hashes exactly the bytes it reads.
CREATE FUNCTION eventstore_canonical(stream_id text, version bigint, event_id uuid, type text, recorded_at timestamptz,
                                     data jsonb, metadata jsonb) RETURNS text
LANGUAGE sql STABLE STRICT AS $$
    SELECT '{"stream":' || to_json(stream_id)::text || ',"version":' || version::text || ',"id":"' || event_id::text ||
           '","type":' || to_json(type)::text ||
           ',"recordedAt":"' || to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') ||
           '","data":' || data::text || ',"metadata":' || metadata::text || '}'
$$;

-- eventstore_link is an event's hash given its predecessor's.
CREATE FUNCTION eventstore_link(prev bytea, canonical text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT sha256(prev || convert_to(canonical, 'UTF8')) $$;

ALTER TABLE events ADD COLUMN hash bytea;

-- The chains of the history already stored, stream by stream in version order.
DO $$
DECLARE
    e record;
    prev bytea;
    stream text := NULL;
BEGIN
    FOR e IN SELECT stream_id, version, event_id, type, recorded_at, data, metadata FROM events ORDER BY stream_id, version LOOP
        IF stream IS DISTINCT FROM e.stream_id THEN
            stream := e.stream_id;
            prev := decode(repeat('00', 32), 'hex');
        END IF;
        prev := eventstore_link(prev, eventstore_canonical(e.stream_id, e.version, e.event_id, e.type, e.recorded_at, e.data, e.metadata));
        UPDATE events SET hash = prev WHERE stream_id = e.stream_id AND version = e.version;
    END LOOP;
END
$$;

ALTER TABLE events ALTER COLUMN hash SET NOT NULL;

-- Each appended event is chained to the one before it in its stream: an append inserts
-- its events in version order, and a row trigger sees the rows its statement inserted
-- before.
CREATE FUNCTION eventstore_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    prev bytea;
BEGIN
    IF NEW.version = 1 THEN
        prev := decode(repeat('00', 32), 'hex');
    ELSE
        SELECT hash INTO prev FROM events WHERE stream_id = NEW.stream_id AND version = NEW.version - 1;
        IF prev IS NULL THEN
            RAISE EXCEPTION 'event % of stream % has no event before it to chain to', NEW.version, NEW.stream_id;
        END IF;
    END IF;
    NEW.hash := eventstore_link(prev, eventstore_canonical(NEW.stream_id, NEW.version, NEW.event_id, NEW.type,
                                                           NEW.recorded_at, NEW.data, NEW.metadata));
    RETURN NEW;
END
$$;

CREATE TRIGGER events_chain BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION eventstore_chain();
