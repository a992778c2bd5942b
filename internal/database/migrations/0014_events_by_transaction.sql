-- A workspace's state no longer holds every transaction: a command or a fold that
-- corrects or deletes one the state has not met reads that transaction's own events.
-- This index finds them without reading the rest of the stream. Only events that name
-- a transaction are in it.
CREATE INDEX events_by_transaction ON events (stream_id, (data->>'transactionId'), version)
    WHERE data ? 'transactionId';
