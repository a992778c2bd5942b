// Package commands owns the write side: events, the workspace state folded from them,
// pure decide functions for every command, and the Ledger that loads state, decides,
// appends, projects and records idempotency in one database transaction.
package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/eventstore"
)

// Projector updates read models from events inside the append transaction.
type Projector func(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error

// Metadata travels with every event: who caused it and through which request.
type Metadata struct {
	ActorType string    `json:"actorType"` // user, api_key, channel or system
	ActorID   string    `json:"actorId"`
	UserID    uuid.UUID `json:"userId,omitzero"`
	UserAgent string    `json:"userAgent,omitempty"`
	RequestID string    `json:"requestId,omitempty"`
}

// Idempotency identifies a request made with an Idempotency-Key.
type Idempotency struct {
	Credential  string // who made the request: keys of different callers never collide
	Key         string
	RequestHash []byte // method, path and body; the same key with another request is refused
}

// Response is what a command's caller answers, stored for idempotent replays.
type Response struct {
	Status int
	Body   []byte
}

// Call is one command against a workspace.
type Call struct {
	WorkspaceID uuid.UUID
	Metadata    Metadata
	Idempotency *Idempotency
	// Decide returns the events of the command, or a domain error. It must not change
	// the state it is given.
	Decide func(*Workspace) ([]NewEvent, error)
	// Respond renders the answer inside the transaction, after projection, so that it
	// reads the caller's own writes and can be stored with the idempotency record.
	Respond func(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) (Response, error)
}

// ErrIdempotencyKeyReused is returned when a key comes back with a different request.
var ErrIdempotencyKeyReused = &Error{
	Kind: KindUnprocessable, Code: "IDEMPOTENCY_KEY_REUSED",
	Message: "this Idempotency-Key was already used with a different request",
}

// Ledger runs commands. Commands of one workspace run one at a time: in this process
// through the state cache's per-workspace lock (so waiting requests hold no database
// connection), and across processes through the row lock on the stream's head.
type Ledger struct {
	pool    *pgxpool.Pool
	project Projector
	now     func() time.Time
	states  *stateCache
}

// NewLedger returns a Ledger that keeps up to cacheSize workspace states in memory.
func NewLedger(pool *pgxpool.Pool, project Projector, now func() time.Time, cacheSize int) *Ledger {
	return &Ledger{pool: pool, project: project, now: now, states: newStateCache(cacheSize)}
}

// maxAttempts bounds retries after a version conflict, which only the creation of a
// stream can cause since writers hold the head's row lock.
const maxAttempts = 3

// Execute runs a command and returns its response; replayed reports an answer served
// from an earlier request with the same Idempotency-Key.
func (l *Ledger) Execute(ctx context.Context, c Call) (res Response, replayed bool, err error) {
	entry, err := l.states.acquire(ctx, c.WorkspaceID)
	if err != nil {
		return Response{}, false, err
	}
	defer l.states.release(entry)

	for attempt := 1; ; attempt++ {
		var committed []eventstore.RecordedEvent
		var decided []NewEvent
		err = pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
			committed, decided, res, replayed = nil, nil, Response{}, false
			stream := StreamID(c.WorkspaceID)
			version, err := eventstore.Version(ctx, tx, stream, true)
			if err != nil {
				return err
			}
			if c.Idempotency != nil {
				stored, found, err := lookupIdempotency(ctx, tx, c.WorkspaceID, c.Idempotency)
				if err != nil || found {
					res, replayed = stored, found
					return err
				}
			}
			state, err := l.stateAt(ctx, tx, entry, version)
			if err != nil {
				return err
			}
			decided, err = c.Decide(state)
			if err != nil {
				return err
			}
			if len(decided) > 0 {
				events, err := l.encode(decided, c.Metadata)
				if err != nil {
					return err
				}
				appended, err := eventstore.Append(ctx, tx, stream, version, events, l.now())
				if err != nil {
					return err
				}
				committed = appended.Events
				if err := l.project(ctx, tx, committed); err != nil {
					return fmt.Errorf("commands: project: %w", err)
				}
			}
			res, err = c.Respond(ctx, tx, committed)
			if err != nil {
				return err
			}
			if c.Idempotency != nil {
				return storeIdempotency(ctx, tx, c.WorkspaceID, c.Idempotency, res, l.now())
			}
			return nil
		})
		if errors.Is(err, eventstore.ErrVersionConflict) && attempt < maxAttempts {
			entry.state = nil
			continue
		}
		if err != nil {
			return Response{}, false, err
		}
		if len(decided) > 0 {
			l.applyCommitted(entry, decided, committed)
		}
		return res, replayed, nil
	}
}

// stateAt returns the entry's state brought up to version, reading only the events the
// cached state has not seen.
func (l *Ledger) stateAt(ctx context.Context, tx pgx.Tx, entry *cacheEntry, version int64) (*Workspace, error) {
	if entry.state == nil || entry.state.Version > version {
		entry.state = NewWorkspace(entry.id)
	}
	state := entry.state
	for state.Version < version {
		events, err := eventstore.ReadStream(ctx, tx, StreamID(entry.id), state.Version, 1000)
		if err != nil {
			return nil, err
		}
		if len(events) == 0 {
			return nil, fmt.Errorf("commands: stream %s ends at %d, head says %d", StreamID(entry.id), state.Version, version)
		}
		for _, e := range events {
			data, err := DecodeEvent(e.Type, e.Data)
			if err == nil {
				err = state.Apply(data)
			}
			if err != nil {
				entry.state = nil
				return nil, fmt.Errorf("commands: fold %s@%d: %w", e.StreamID, e.Version, err)
			}
			state.Version = e.Version
		}
	}
	return state, nil
}

// applyCommitted folds the events of a committed command into the cached state.
func (l *Ledger) applyCommitted(entry *cacheEntry, decided []NewEvent, committed []eventstore.RecordedEvent) {
	if entry.state == nil {
		return
	}
	for i, e := range decided {
		if err := entry.state.Apply(e.Data); err != nil {
			// The events are stored; the next command rebuilds the state from them.
			entry.state = nil
			return
		}
		entry.state.Version = committed[i].Version
	}
}

func (l *Ledger) encode(decided []NewEvent, meta Metadata) ([]eventstore.Event, error) {
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("commands: encode metadata: %w", err)
	}
	out := make([]eventstore.Event, len(decided))
	for i, e := range decided {
		data, err := json.Marshal(e.Data)
		if err != nil {
			return nil, fmt.Errorf("commands: encode %s: %w", e.Type, err)
		}
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("commands: event id: %w", err)
		}
		out[i] = eventstore.Event{ID: id, Type: e.Type, Data: data, Metadata: metaJSON}
	}
	return out, nil
}

func lookupIdempotency(ctx context.Context, tx pgx.Tx, workspaceID uuid.UUID, k *Idempotency) (Response, bool, error) {
	var hash []byte
	var res Response
	err := tx.QueryRow(ctx, `SELECT request_hash, status, body FROM idempotency_keys
		WHERE workspace_id = $1 AND credential = $2 AND key = $3`, workspaceID, k.Credential, k.Key).
		Scan(&hash, &res.Status, &res.Body)
	if errors.Is(err, pgx.ErrNoRows) {
		return Response{}, false, nil
	}
	if err != nil {
		return Response{}, false, fmt.Errorf("commands: read idempotency key: %w", err)
	}
	if !bytes.Equal(hash, k.RequestHash) {
		return Response{}, false, ErrIdempotencyKeyReused
	}
	return res, true, nil
}

func storeIdempotency(ctx context.Context, tx pgx.Tx, workspaceID uuid.UUID, k *Idempotency, res Response, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (workspace_id, credential, key, request_hash, status, body, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, workspaceID, k.Credential, k.Key, k.RequestHash, res.Status, res.Body, now)
	if err != nil {
		return fmt.Errorf("commands: store idempotency key: %w", err)
	}
	return nil
}
