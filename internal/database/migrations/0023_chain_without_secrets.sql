-- The chain's canonical text leaves secrets out. The export (GET /api/audit/export)
-- carries each event's canonical text, the very bytes its hash covers, so that a third
-- party can check the chain from the export alone; the text of migration 0018 held the
-- whole data, and with it each API key's hash and each webhook's sealed signing secret.
-- Now each such value is replaced, in the text that is hashed and exported, by a
-- commitment to it: the string "sha256:" followed by the hexadecimal SHA-256 of the
-- value as ->> reads it (a JSON string's characters, UTF-8; base64 for our byte fields).
-- The chain still binds the secret (changing it changes the commitment), the export
-- shows none, and an event without secrets has the same text, and hash, as before.
--
-- The fields left out, per event type (eventstore.secretFields holds the same list):
--   api_key.created.v1         hash          the SHA-256 of the key's secret
--   webhook.created.v1         sealedSecret  the signing secret, sealed with the service's key
--   webhook.secret_rotated.v1  sealedSecret
--   whatsapp.linked.v1         phoneKey      the phone number's HMAC under the channel secret

-- The canonical text of migration 0018 is kept, under another name, so that a head taken
-- before this migration can still be compared with the stored history
-- (eventstore_former_hash); the trigger and the readers call the text defined below.
ALTER FUNCTION eventstore_canonical(text, bigint, uuid, text, timestamptz, jsonb, jsonb) RENAME TO eventstore_former_canonical;

-- These functions are not STRICT, though the chain's columns are never null, so that
-- PostgreSQL inlines them into the trigger's expression: it inlines no STRICT function
-- whose body calls one that is not (a CASE is not), and each call of a function it does
-- not inline plans its body again for every append, which made an append of one event
-- take a third longer. Null in, null out holds all the same.

-- eventstore_commitment replaces a field of an object by its commitment; a field absent
-- or null, or data that is no object, is left as it is.
CREATE FUNCTION eventstore_commitment(data jsonb, field text) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(data) = 'object' AND jsonb_typeof(data -> field) <> 'null'
                THEN jsonb_set(data, ARRAY[field], to_jsonb('sha256:' || encode(sha256(convert_to(data ->> field, 'UTF8')), 'hex')))
                ELSE data END
$$;

-- eventstore_redacted is an event's data as its canonical text holds it.
CREATE FUNCTION eventstore_redacted(type text, data jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE type
        WHEN 'api_key.created.v1' THEN eventstore_commitment(data, 'hash')
        WHEN 'webhook.created.v1' THEN eventstore_commitment(data, 'sealedSecret')
        WHEN 'webhook.secret_rotated.v1' THEN eventstore_commitment(data, 'sealedSecret')
        WHEN 'whatsapp.linked.v1' THEN eventstore_commitment(data, 'phoneKey')
        ELSE data END
$$;

-- The canonical text: migration 0018's, of the redacted data.
CREATE FUNCTION eventstore_canonical(stream_id text, version bigint, event_id uuid, type text, recorded_at timestamptz,
                                     data jsonb, metadata jsonb) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT eventstore_former_canonical(stream_id, version, event_id, type, recorded_at, eventstore_redacted(type, data), metadata)
$$;

-- eventstore_former_hash is the hash a stream's event at a version has under the former
-- canonical text, recomputed from the events stored now: a head (version, hash) kept
-- before this migration still holds when this gives its hash at its version.
CREATE FUNCTION eventstore_former_hash(stream text, upto bigint) RETURNS bytea
LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE
    e record;
    prev bytea := decode(repeat('00', 32), 'hex');
BEGIN
    FOR e IN SELECT stream_id, version, event_id, type, recorded_at, data, metadata FROM events
             WHERE stream_id = stream AND version <= upto ORDER BY version LOOP
        prev := eventstore_link(prev, eventstore_former_canonical(e.stream_id, e.version, e.event_id, e.type, e.recorded_at,
                                                                  e.data, e.metadata));
    END LOOP;
    RETURN prev;
END
$$;

-- The chains of the history stored before, stream by stream in version order, under the
-- new text. A chain is recomputed only as far as it held under the former text: from
-- its first event whose stored hash is not the former link (a changed event, a gap), the
-- stored hashes stay, so that the break shows where it was and is not made good. Events
-- before a stream's first secret keep their hashes, as their text is unchanged.
DO $$
DECLARE
    e record;
    stream text := NULL;
    former bytea;
    redacted bytea;
    last bigint;
    holds boolean;
BEGIN
    FOR e IN SELECT stream_id, version, event_id, type, recorded_at, data, metadata, hash FROM events
             ORDER BY stream_id, version LOOP
        IF stream IS DISTINCT FROM e.stream_id THEN
            stream := e.stream_id;
            former := decode(repeat('00', 32), 'hex');
            redacted := former;
            last := 0;
            holds := true;
        END IF;
        IF holds THEN
            former := eventstore_link(former, eventstore_former_canonical(e.stream_id, e.version, e.event_id, e.type,
                                                                          e.recorded_at, e.data, e.metadata));
            holds := e.version = last + 1 AND former = e.hash;
            last := e.version;
        END IF;
        IF holds THEN
            redacted := eventstore_link(redacted, eventstore_canonical(e.stream_id, e.version, e.event_id, e.type,
                                                                       e.recorded_at, e.data, e.metadata));
            IF redacted <> e.hash THEN
                UPDATE events SET hash = redacted WHERE stream_id = e.stream_id AND version = e.version;
            END IF;
        END IF;
    END LOOP;
END
$$;
