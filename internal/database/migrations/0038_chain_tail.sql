-- An append's trigger (0018) looked up each event's predecessor's hash in the events'
-- index, once per row: a statement's import appends a hundred thousand events in one
-- transaction, each right after the one before. The trigger now keeps the hash it
-- wrote last, with its stream and version, in a setting local to the transaction
-- (finledger.chain_tail, "STREAM VERSION HEX"), and reads the predecessor from there
-- when it is the event just written; any other event (the first of an append, another
-- stream's) is looked up as before. The setting is the transaction's own: it is gone
-- at its end, and a statement or savepoint that fails takes its setting back with it,
-- so a kept hash is always that of a stored row. The chain's definition is unchanged.
CREATE OR REPLACE FUNCTION eventstore_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    prev bytea;
    tail text;
BEGIN
    IF NEW.version = 1 THEN
        prev := decode(repeat('00', 32), 'hex');
    ELSE
        tail := current_setting('finledger.chain_tail', true);
        IF left(tail, -65) = NEW.stream_id || ' ' || (NEW.version - 1)::text THEN
            prev := decode(right(tail, 64), 'hex');
        ELSE
            SELECT hash INTO prev FROM events WHERE stream_id = NEW.stream_id AND version = NEW.version - 1;
        END IF;
        IF prev IS NULL THEN
            RAISE EXCEPTION 'event % of stream % has no event before it to chain to', NEW.version, NEW.stream_id;
        END IF;
    END IF;
    NEW.hash := eventstore_link(prev, eventstore_canonical(NEW.stream_id, NEW.version, NEW.event_id, NEW.type,
                                                           NEW.recorded_at, NEW.data, NEW.metadata));
    PERFORM set_config('finledger.chain_tail', NEW.stream_id || ' ' || NEW.version::text || ' ' || encode(NEW.hash, 'hex'), true);
    RETURN NEW;
END
$$;
