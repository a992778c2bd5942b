-- An append links its events' chain in its own statement (eventstore's insertEvents):
-- the hash of the event it follows is looked up once, and each event's hash is the link
-- of the one before it in the statement, as a running aggregate over the events in
-- version order. The trigger looked up each event's predecessor again, row by row,
-- which was a fifth of the time of appending a thousand events at once. The links are
-- the same functions' (eventstore_link of eventstore_canonical, migrations 0018 and
-- 0023), of the very values the rows store.

-- eventstore_chain_step is the chain's hash after one more event: state is the hash so
-- far (null before the first event of the statement), head the hash of the event the
-- statement's first follows. In PL/pgSQL, not SQL: an aggregate calls its step through
-- the function manager, where a SQL function runs as a query of its own each time, and
-- made the append slower than the trigger; PL/pgSQL evaluates the expression directly
-- (eventstore_link inlined into it).
CREATE FUNCTION eventstore_chain_step(state bytea, head bytea, canonical text) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN eventstore_link(coalesce(state, head), canonical);
END
$$;

-- eventstore_chained(head, canonical) OVER (ORDER BY version ROWS UNBOUNDED PRECEDING)
-- is each event's hash.
CREATE AGGREGATE eventstore_chained(bytea, text) (SFUNC = eventstore_chain_step, STYPE = bytea);

-- The trigger links only what comes without a hash: an insert of another writer (a
-- repair, a test's own rows). A hash the insert brings is kept as given; one that is not
-- the link of its event shows as a break wherever the chain is verified.
CREATE OR REPLACE FUNCTION eventstore_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    prev bytea;
BEGIN
    IF NEW.hash IS NOT NULL THEN
        RETURN NEW;
    END IF;
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
