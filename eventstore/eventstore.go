// Package eventstore owns the append-only event log: streams with gap-free versions,
// optimistic concurrency on append, idempotent appends by event id, reads of one stream,
// and a global log that subscribers can tail without ever skipping a committed event.
package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Event is an event to append: a stable, versioned type name and its JSON payloads.
type Event struct {
	ID       uuid.UUID
	Type     string
	Data     json.RawMessage
	Metadata json.RawMessage
}

// RecordedEvent is an event as stored in a stream.
type RecordedEvent struct {
	Event
	StreamID   string
	Version    int64
	Position   Position
	RecordedAt time.Time
	// Hash is the event's link in its stream's chain as stored (see chain.go); nil on
	// an event not read back from the store.
	Hash []byte
}

// Position is a place in the global log. Events are ordered by their transaction key
// (the id of the database transaction that wrote them, raised to keep each stream in
// version order: see Append), then by their sequence number; see ReadAll.
type Position struct {
	TxID     uint64
	Sequence int64
}

// Less reports whether p comes before q in the global log.
func (p Position) Less(q Position) bool {
	if p.TxID != q.TxID {
		return p.TxID < q.TxID
	}
	return p.Sequence < q.Sequence
}

// NoStream is the expected version of a stream that must not exist yet.
const NoStream int64 = 0

// ErrVersionConflict is returned when a stream's version differs from the expected one.
var ErrVersionConflict = errors.New("eventstore: stream version conflict")

// conflictCode is the SQLSTATE of eventstore_expect.
const conflictCode = "FLV01"

// ErrPartialDuplicate is returned when some, but not all, of the events of an append
// were already stored: the caller is replaying a different batch under reused ids.
var ErrPartialDuplicate = errors.New("eventstore: some events of the batch are already stored")

// DB is what the store needs from a connection, a pool or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Reader is what a read of one stream needs of a connection, a pool or a transaction.
type Reader interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// AppendResult says what an append did.
type AppendResult struct {
	// Events are the stored events with their versions and positions.
	Events []RecordedEvent
	// Duplicate is true when every event id was already in the stream, so nothing was
	// appended and Events are the earlier copies.
	Duplicate bool
}

// Version returns the stream's current version, 0 when it does not exist. Inside a
// transaction with lock set, it also takes the stream's row lock, so that writers of one
// stream queue instead of failing on a version conflict.
func Version(ctx context.Context, db Reader, streamID string, lock bool) (int64, error) {
	q := `SELECT version FROM streams WHERE stream_id = $1`
	if lock {
		q += ` FOR UPDATE`
	}
	var v int64
	err := db.QueryRow(ctx, q, streamID).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("eventstore: read version of %s: %w", streamID, err)
	}
	return v, nil
}

// An append moves the stream's head (creating it at version k, or advancing it by k
// from the expected version) and inserts the events, in one statement that fails with
// SQLSTATE FLV01 when the head was not at the expected version.
//
// The events' tx_id orders the global log (see ReadAll). It is the writing
// transaction's id raised to the tx_id of the stream's previous event, which the head
// carries, and to that of the transaction's own earlier appends (a transaction-local
// setting): a transaction may have taken its id before a younger one appended to the
// same stream and committed, and with its own id its later version would come first.
// Never below the writer's id, the raised value still keeps the event behind the
// visibility horizon until its writer has ended; never decreasing along the stream or
// along one transaction's appends, it lets every reader of the global log see each
// stream in version order and each transaction's events in the order it appended them.
//
// The head's key is raised, and the setting recorded, once per append: the head row
// is the one row the statement updates, and every event of the append carries its key.
const (
	appendFloor = `greatest(pg_current_xact_id(), nullif(current_setting('finledger.append_tx_id', true), '')::xid8)`
	// headKey returns the head's new key, recorded as the transaction's last.
	headKey        = `set_config('finledger.append_tx_id', tx_id::text, true)::xid8 AS tx_id`
	createHeadCTE  = `WITH head AS (INSERT INTO streams (stream_id, version, tx_id) VALUES ($1, $2::bigint + $8::bigint, ` + appendFloor + `) ON CONFLICT (stream_id) DO NOTHING RETURNING version, ` + headKey + `) `
	advanceHeadCTE = `WITH head AS (UPDATE streams SET version = version + $8::bigint, tx_id = greatest(tx_id, ` + appendFloor + `) WHERE stream_id = $1 AND version = $2 RETURNING version, ` + headKey + `) `
	insertEvents   = `INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, tx_id)
		SELECT $1, $2::bigint + e.ord, e.id, e.type, e.data, e.meta, $7, (SELECT tx_id FROM head)
		FROM unnest($3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS e(id, type, data, meta, ord)
		WHERE (SELECT eventstore_expect(count(*) > 0, $1, $2) FROM head)
		ORDER BY e.ord
		RETURNING position, tx_id::text::bigint`
)

// Append adds events to a stream whose current version must equal expected. It runs in
// the caller's transaction so that projections and idempotency records commit with it.
// When every event id is already stored, it appends nothing and reports a duplicate.
func Append(ctx context.Context, db DB, streamID string, expected int64, events []Event, recordedAt time.Time) (AppendResult, error) {
	ids := make([]uuid.UUID, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	stored, err := readByIDs(ctx, db, streamID, ids)
	if err != nil {
		return AppendResult{}, err
	}
	switch {
	case len(events) > 0 && len(stored) == len(events):
		return AppendResult{Events: stored, Duplicate: true}, nil
	case len(stored) > 0:
		return AppendResult{}, fmt.Errorf("append to %s: %w", streamID, ErrPartialDuplicate)
	}
	b := &pgx.Batch{}
	pending := QueueAppend(b, streamID, expected, events, recordedAt)
	if err := db.SendBatch(ctx, b).Close(); err != nil && pending.err == nil {
		return AppendResult{}, fmt.Errorf("eventstore: append to %s: %w", streamID, err)
	}
	if pending.err != nil {
		return AppendResult{}, pending.err
	}
	return AppendResult{Events: pending.Events()}, nil
}

// PendingAppend is an append queued on a batch, so that statements which depend on it
// (projections) travel in the same round trip. Its outcome is known once the batch has
// been sent and closed.
type PendingAppend struct {
	streamID   string
	expected   int64
	events     []Event
	recordedAt time.Time
	positions  []int64
	txID       int64
	err        error
}

// QueueAppend queues an append of new events on b. Statements queued after it run even
// when the append fails, so the caller must roll the transaction back unless Err is nil.
// Unlike Append it does not look for earlier copies of the events: an event id stored
// before fails the batch.
func QueueAppend(b *pgx.Batch, streamID string, expected int64, events []Event, recordedAt time.Time) *PendingAppend {
	p := &PendingAppend{streamID: streamID, expected: expected, events: slices.Clone(events), recordedAt: recordedAt.UTC().Truncate(time.Microsecond)}
	if len(events) == 0 {
		p.err = fmt.Errorf("eventstore: append to %s: no events", streamID)
		return p
	}
	if expected < 0 {
		p.err = fmt.Errorf("eventstore: append to %s: negative expected version %d", streamID, expected)
		return p
	}
	ids := make([]uuid.UUID, len(events))
	types := make([]string, len(events))
	data := make([]string, len(events))
	meta := make([]string, len(events))
	for i, e := range events {
		if e.ID == uuid.Nil || e.Type == "" {
			p.err = fmt.Errorf("eventstore: append to %s: event %d lacks an id or a type", streamID, i)
			return p
		}
		if len(e.Metadata) == 0 {
			p.events[i].Metadata = json.RawMessage("{}")
		}
		ids[i], types[i], data[i], meta[i] = e.ID, e.Type, string(e.Data), string(p.events[i].Metadata)
	}
	sql := advanceHeadCTE + insertEvents
	if expected == NoStream {
		sql = createHeadCTE + insertEvents
	}
	b.Queue(sql, streamID, expected, ids, types, data, meta, p.recordedAt, int64(len(events))).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var position int64
			if err := rows.Scan(&position, &p.txID); err != nil {
				return err
			}
			p.positions = append(p.positions, position)
		}
		var pgErr *pgconn.PgError
		switch err := rows.Err(); {
		case errors.As(err, &pgErr) && pgErr.Code == conflictCode:
			p.err = fmt.Errorf("append to %s at version %d: %w", streamID, expected, ErrVersionConflict)
		case err != nil:
			p.err = fmt.Errorf("eventstore: append to %s: %w", streamID, err)
		}
		return p.err
	})
	return p
}

// Err reports why the append failed, once the batch is closed.
func (p *PendingAppend) Err() error { return p.err }

// Events returns the events as they will be stored: their versions and time are known
// before the batch is sent, their positions only after.
func (p *PendingAppend) Events() []RecordedEvent {
	out := make([]RecordedEvent, len(p.events))
	for i, e := range p.events {
		out[i] = RecordedEvent{Event: e, StreamID: p.streamID, Version: p.expected + int64(i) + 1, RecordedAt: p.recordedAt}
		if i < len(p.positions) {
			out[i].Position = Position{TxID: uint64(p.txID), Sequence: p.positions[i]}
		}
	}
	return out
}

// eventColumns are an event's columns as scanEvents takes them. The key is named apart
// from the column tx_id, so that an ORDER BY tx_id means the indexed column.
const eventColumns = `stream_id, version, position, tx_id::text::bigint AS tx_key, event_id, type, data, metadata, recorded_at, hash`

// selectEvents reads events as scanEvents takes them.
const selectEvents = `SELECT ` + eventColumns + ` FROM events`

func scanEvents(rows pgx.Rows) ([]RecordedEvent, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (RecordedEvent, error) {
		var e RecordedEvent
		var txID int64
		// As plain bytes: scanned as json.RawMessage, pgx would run them through
		// json.Unmarshal, which checks what PostgreSQL checked when it stored them.
		err := row.Scan(&e.StreamID, &e.Version, &e.Position.Sequence, &txID, &e.ID, &e.Type,
			(*[]byte)(&e.Data), (*[]byte)(&e.Metadata), &e.RecordedAt, &e.Hash)
		e.Position.TxID = uint64(txID)
		return e, err
	})
}

func readByIDs(ctx context.Context, db DB, streamID string, ids []uuid.UUID) ([]RecordedEvent, error) {
	rows, err := db.Query(ctx, selectEvents+` WHERE stream_id = $1 AND event_id = ANY($2) ORDER BY version`, streamID, ids)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read %s by ids: %w", streamID, err)
	}
	events, err := scanEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read %s by ids: %w", streamID, err)
	}
	return events, nil
}

// ReadStream returns up to limit events of a stream with versions above after (and up to
// maxReadBytes of their data), in version order: fewer than limit is no sign of the
// stream's end, only none is.
func ReadStream(ctx context.Context, db Reader, streamID string, after int64, limit int) ([]RecordedEvent, error) {
	rows, err := db.Query(ctx, bounded(`SELECT * FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3`, "version", "$4"),
		streamID, after, limit, maxReadBytes)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read stream %s: %w", streamID, err)
	}
	events, err := scanEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read stream %s: %w", streamID, err)
	}
	return events, nil
}

// LockAppends takes a lock that waits for every append in flight to commit and holds
// off new ones until tx ends, for readers that must see the whole log at once.
func LockAppends(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `LOCK TABLE streams IN EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("eventstore: lock appends: %w", err)
	}
	return nil
}

// ReadAllLocked is ReadAll for a transaction holding LockAppends: with no append in
// flight, it need not wait for the visibility horizon, which unrelated transactions
// (even in other databases of the cluster) can hold back.
func ReadAllLocked(ctx context.Context, tx pgx.Tx, from Position, limit int) ([]RecordedEvent, error) {
	return readAll(ctx, tx, from, limit, "")
}

// ReadAll returns up to limit events of the global log after position from (and up to
// maxReadBytes of their data), in log order, and only events whose tx_id is below every
// transaction still running. A transaction that began earlier but commits later than
// another would otherwise surface behind a reader's checkpoint and be skipped for ever. An event's tx_id is at
// least its writer's id, so it stays hidden while its writer runs; and it is an id that
// was handed out before the event was written, so once the horizon has passed a value,
// no event can still come with a lower one. Each stream comes in version order, because
// tx_id never decreases along a stream (see Append).
func ReadAll(ctx context.Context, db DB, from Position, limit int) ([]RecordedEvent, error) {
	return readAll(ctx, db, from, limit, `AND tx_id < pg_snapshot_xmin(pg_current_snapshot())`)
}

// maxReadBytes bounds the data one read of the global log returns, as PostgreSQL stores
// it: the read ends before the event that would take it past, and returns one event at
// least. An event's data is a few hundred bytes, but a statement import's part holds a
// thousand transactions, and the relay's batch of 500 such parts would be a quarter of a
// gigabyte of JSON in one instance.
const maxReadBytes = 4 << 20

// readAllSQL reads the global log after a position ($1, $2), up to $3 events and $4
// bytes of their data as stored (compressed, and read without being decompressed). It
// orders by the table's columns, so that the index events_global_order gives the order
// and a read costs the events it returns: ordered by an output expression, every read
// would read and sort the whole log.
func readAllSQL(horizon string) string {
	return bounded(`SELECT * FROM events WHERE (tx_id, position) > ($1::text::xid8, $2) `+horizon+`
		ORDER BY events.tx_id, events.position LIMIT $3`, "tx_id, position", "$4")
}

// bounded is a read of the events a query of whole rows selects, in the order it gives
// them, that ends before the event that would take their data past budget bytes as
// stored (a running sum of pg_column_size, which decompresses nothing), and gives one
// event at least. Its rows are as scanEvents takes them.
func bounded(query, order, budget string) string {
	return `SELECT ` + eventColumns + `
		FROM (SELECT *, sum(pg_column_size(data)) OVER (ORDER BY ` + order + ` ROWS UNBOUNDED PRECEDING) AS through
			FROM (` + query + `) e) r
		WHERE through - pg_column_size(data) < ` + budget + `
		ORDER BY ` + order
}

func readAll(ctx context.Context, db DB, from Position, limit int, horizon string) ([]RecordedEvent, error) {
	rows, err := db.Query(ctx, readAllSQL(horizon), fmt.Sprint(from.TxID), from.Sequence, limit, maxReadBytes)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read all from %v: %w", from, err)
	}
	events, err := scanEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read all from %v: %w", from, err)
	}
	return events, nil
}

// VersionAt returns the version a stream stood at, at moment t: that of the event
// recorded last at or before t (of those recorded at the same moment, the latest), 0
// when none was. Events carry the time of the instance that appended them; while the
// instances' clocks agree, a stream's times rise with its versions.
func VersionAt(ctx context.Context, db Reader, streamID string, t time.Time) (int64, error) {
	var v int64
	err := db.QueryRow(ctx, `SELECT version FROM events WHERE stream_id = $1 AND recorded_at <= $2
		ORDER BY recorded_at DESC, version DESC LIMIT 1`, streamID, t).Scan(&v)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("eventstore: version of %s at %s: %w", streamID, t.Format(time.RFC3339Nano), err)
	}
	return v, nil
}
