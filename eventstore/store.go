package eventstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is an event store as its guarantees define it, whatever holds the log (the
// PostgreSQL tables now, another store later). Every implementation passes the
// conformance suite in eventstore/storetest, which checks that:
//   - an append succeeds only when the stream is at the expected version (NoStream for a
//     stream that must not exist yet), and fails with ErrVersionConflict otherwise,
//     changing nothing;
//   - an append whose event ids are all stored in the stream already appends nothing and
//     reports a Duplicate with the earlier copies; one where only some are fails with
//     ErrPartialDuplicate;
//   - a stream's versions run from 1 without gaps, however many writers race for it;
//   - every reader, the global log's included, sees each stream in version order, and a
//     unit of work's events in the order it appended them;
//   - a reader tailing the global log with ReadAll never skips an event whose unit of
//     work began before another and committed after it, and never sees an aborted one.
//
// The write side does not go through Store: the Ledger queues its append with
// QueueAppend on the pipelined batch that also carries the projections, the audit entry
// and the read of its answer, so that a command costs one round trip and all of it
// commits or aborts together (docs/architecture.md, decisions 1 and 4). An interface over a
// store held elsewhere could not offer that; Postgres serves the suite and any caller
// that needs only what Store promises.
type Store interface {
	// Begin starts a unit of work whose appends commit or abort together.
	Begin(ctx context.Context) (Tx, error)
	// ReadStream returns up to limit events of a stream with versions above after, in
	// version order.
	ReadStream(ctx context.Context, streamID string, after int64, limit int) ([]RecordedEvent, error)
	// ReadAll returns up to limit events of the global log after from, in log order, as
	// a subscriber tailing the log reads them: never past an event that may still commit.
	ReadAll(ctx context.Context, from Position, limit int) ([]RecordedEvent, error)
}

// Tx is a unit of work of a Store.
type Tx interface {
	// Version returns the stream's current version, 0 when it does not exist.
	Version(ctx context.Context, streamID string) (int64, error)
	// Append adds events to a stream whose current version must equal expected, as
	// part of the unit of work.
	Append(ctx context.Context, streamID string, expected int64, events []Event) (AppendResult, error)
	// Commit makes the unit of work's appends visible to readers.
	Commit(ctx context.Context) error
	// Rollback drops the unit of work's appends. After Commit it changes nothing, so it
	// can be deferred.
	Rollback(ctx context.Context) error
}

// Postgres is the Store of the PostgreSQL tables, over the package's functions: a unit
// of work is a database transaction, and an append records the time it runs.
type Postgres struct{ pool *pgxpool.Pool }

var _ Store = (*Postgres)(nil)

// NewPostgres returns the Store of the event log in pool's database.
func NewPostgres(pool *pgxpool.Pool) *Postgres { return &Postgres{pool: pool} }

// Begin starts a database transaction.
func (s *Postgres) Begin(ctx context.Context) (Tx, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("eventstore: begin: %w", err)
	}
	return postgresTx{tx}, nil
}

// ReadStream is ReadStream on the pool.
func (s *Postgres) ReadStream(ctx context.Context, streamID string, after int64, limit int) ([]RecordedEvent, error) {
	return ReadStream(ctx, s.pool, streamID, after, limit)
}

// ReadAll is ReadAll on the pool.
func (s *Postgres) ReadAll(ctx context.Context, from Position, limit int) ([]RecordedEvent, error) {
	return ReadAll(ctx, s.pool, from, limit)
}

// postgresTx is a unit of work of Postgres: one database transaction.
type postgresTx struct{ tx pgx.Tx }

func (t postgresTx) Version(ctx context.Context, streamID string) (int64, error) {
	return Version(ctx, t.tx, streamID, false)
}

func (t postgresTx) Append(ctx context.Context, streamID string, expected int64, events []Event) (AppendResult, error) {
	return Append(ctx, t.tx, streamID, expected, events, time.Now())
}

func (t postgresTx) Commit(ctx context.Context) error {
	if err := t.tx.Commit(ctx); err != nil {
		return fmt.Errorf("eventstore: commit: %w", err)
	}
	return nil
}

func (t postgresTx) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }
