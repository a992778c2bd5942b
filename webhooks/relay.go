package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/leader"
	"github.com/finledger/finledger/webhooks/bus"
)

// relayLockID is the advisory lock held by the instance that relays.
const relayLockID int64 = 0x66696e72656c6179 // "finrelay"

// relayCheckpoint names the relay's row in relay_checkpoints.
const relayCheckpoint = "jetstream"

// Metadata keys of a relayed message; its UUID is the event id and its payload the
// event's data.
const (
	MetaType       = "type"
	MetaWorkspace  = "workspace"
	MetaVersion    = "version"
	MetaRecordedAt = "recorded_at"
)

// Relay publishes every workspace event of the global log to JetStream, in log order,
// each once: the message id is the event id, so JetStream drops a message published
// again after a crash between publishing and checkpointing. It reads below the
// visibility horizon (eventstore.ReadAll), so an event committed late is never skipped.
type Relay struct {
	Pool      *pgxpool.Pool
	Publisher message.Publisher
	Batch     int           // events per read; default 500
	Interval  time.Duration // between reads once caught up, unless woken; default 25 ms

	wake chan struct{}
	once sync.Once
}

// Wake tells the relay there may be new events to read now.
func (r *Relay) Wake() {
	r.once.Do(func() { r.wake = make(chan struct{}, 1) })
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run relays while this instance is the leader, until ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	return leader.Run(ctx, r.Pool, "webhooks relay", relayLockID, time.Second, r.relay)
}

// relay publishes from the checkpoint on until ctx ends or publishing fails.
func (r *Relay) relay(ctx context.Context) error {
	r.once.Do(func() { r.wake = make(chan struct{}, 1) })
	interval := r.Interval
	if interval <= 0 {
		interval = 25 * time.Millisecond
	}
	from, err := r.checkpoint(ctx)
	if err != nil {
		return err
	}
	sub := &eventstore.Subscription{DB: r.Pool, From: from, BatchSize: r.Batch, Interval: interval, Wake: r.wake,
		Checkpoint: r.saveCheckpoint}
	if err := sub.Run(ctx, r.publish); ctx.Err() == nil {
		return err
	}
	return nil
}

// publish sends one event of a workspace stream to JetStream.
func (r *Relay) publish(_ context.Context, e eventstore.RecordedEvent) error {
	ws, ok := commands.WorkspaceOfStream(e.StreamID)
	if !ok {
		return nil // user streams carry nothing a workspace subscribes to
	}
	msg := message.NewMessage(e.ID.String(), message.Payload(e.Data))
	msg.Metadata.Set(MetaType, e.Type)
	msg.Metadata.Set(MetaWorkspace, ws.String())
	msg.Metadata.Set(MetaVersion, strconv.FormatInt(e.Version, 10))
	msg.Metadata.Set(MetaRecordedAt, e.RecordedAt.UTC().Format(time.RFC3339Nano))
	if err := r.Publisher.Publish(bus.Subject(ws), msg); err != nil {
		return fmt.Errorf("webhooks: publish %s: %w", e.ID, err)
	}
	return nil
}

// saveCheckpoint records the position of the last event published.
func (r *Relay) saveCheckpoint(ctx context.Context, last eventstore.Position) error {
	if _, err := r.Pool.Exec(ctx, `INSERT INTO relay_checkpoints (name, tx_id, position) VALUES ($1, $2::text::xid8, $3)
		ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position`,
		relayCheckpoint, strconv.FormatUint(last.TxID, 10), last.Sequence); err != nil {
		return fmt.Errorf("webhooks: save relay checkpoint: %w", err)
	}
	return nil
}

// checkpoint returns where the relay stopped; the start of the log the first time.
func (r *Relay) checkpoint(ctx context.Context) (eventstore.Position, error) {
	var p eventstore.Position
	var tx string
	err := r.Pool.QueryRow(ctx, `SELECT tx_id::text, position FROM relay_checkpoints WHERE name = $1`, relayCheckpoint).Scan(&tx, &p.Sequence)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("webhooks: read relay checkpoint: %w", err)
	}
	if p.TxID, err = strconv.ParseUint(tx, 10, 64); err != nil {
		return p, fmt.Errorf("webhooks: relay checkpoint %q: %w", tx, err)
	}
	return p, nil
}

// storedOf reads a relayed message back into the event it carries.
func storedOf(msg *message.Message) (Stored, error) {
	id, err := uuid.Parse(msg.UUID)
	if err != nil {
		return Stored{}, fmt.Errorf("webhooks: message id %q: %w", msg.UUID, err)
	}
	ws, err := uuid.Parse(msg.Metadata.Get(MetaWorkspace))
	if err != nil {
		return Stored{}, fmt.Errorf("webhooks: message %s workspace: %w", id, err)
	}
	at, err := time.Parse(time.RFC3339Nano, msg.Metadata.Get(MetaRecordedAt))
	if err != nil {
		return Stored{}, fmt.Errorf("webhooks: message %s time: %w", id, err)
	}
	version, err := strconv.ParseInt(msg.Metadata.Get(MetaVersion), 10, 64)
	if err != nil {
		return Stored{}, fmt.Errorf("webhooks: message %s version: %w", id, err)
	}
	seq, err := strconv.ParseUint(msg.Metadata.Get(bus.MetaStreamSeq), 10, 64)
	if err != nil {
		return Stored{}, fmt.Errorf("webhooks: message %s stream position: %w", id, err)
	}
	return Stored{ID: id, Type: msg.Metadata.Get(MetaType), WorkspaceID: ws, Version: version, StreamSeq: seq, RecordedAt: at,
		Data: msg.Payload}, nil
}
