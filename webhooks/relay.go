package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/finledger/finledger/domain"
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
	// MetaDataInLog marks a message sent without its event's data (maxRelayedData),
	// which its reader reads from the log.
	MetaDataInLog = "data_in_log"
)

// maxRelayedData is the most data a message carries. NATS refuses a message over its
// server's max_payload (1 MiB unless configured otherwise), and an event may be larger:
// an import's part holds a thousand transactions, a reconciliation lists every
// transaction it marked. Such an event goes without its data, which the dispatcher
// reads from the log by its stream and version.
const maxRelayedData = 512 << 10

// Relay publishes every workspace event of the global log to JetStream, in log order,
// each once: the message id is the event id, so JetStream drops a message published
// again after a crash between publishing and checkpointing. It reads below the
// visibility horizon (eventstore.ReadAll), so an event committed late is never skipped.
type Relay struct {
	Pool      *pgxpool.Pool
	Bus       *bus.Bus          // the deployment's names; also reads the stream published to before
	Publisher message.Publisher // to the Bus's stream
	Batch     int               // events per read; default 500
	Interval  time.Duration     // between reads once caught up, unless woken; default 25 ms

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
	from, stream, err := r.checkpoint(ctx)
	if err != nil {
		return err
	}
	if stream != "" && stream != r.Bus.Names().Stream {
		if from, err = r.takeOver(ctx, stream, from); err != nil {
			return err
		}
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
	ws, ok := domain.WorkspaceOfStream(e.StreamID)
	if !ok {
		return nil // user streams carry nothing a workspace subscribes to
	}
	if err := r.Publisher.Publish(r.Bus.Names().Subject(ws), relayMessage(e, ws)); err != nil {
		return fmt.Errorf("webhooks: publish %s: %w", e.ID, err)
	}
	return nil
}

// relayMessage is the message carrying an event of workspace ws: its UUID is the event
// id, its payload the event's data (none above maxRelayedData), and the rest is in its
// metadata (see storedOf).
func relayMessage(e eventstore.RecordedEvent, ws uuid.UUID) *message.Message {
	payload := message.Payload(e.Data)
	if len(e.Data) > maxRelayedData {
		payload = nil
	}
	msg := message.NewMessage(e.ID.String(), payload)
	if payload == nil {
		msg.Metadata.Set(MetaDataInLog, "true")
	}
	msg.Metadata.Set(MetaType, e.Type)
	msg.Metadata.Set(MetaWorkspace, ws.String())
	msg.Metadata.Set(MetaVersion, strconv.FormatInt(e.Version, 10))
	msg.Metadata.Set(MetaRecordedAt, e.RecordedAt.UTC().Format(time.RFC3339Nano))
	return msg
}

// saveCheckpoint records the position of the last event published, and the stream it
// went to.
func (r *Relay) saveCheckpoint(ctx context.Context, last eventstore.Position) error {
	if _, err := r.Pool.Exec(ctx, `INSERT INTO relay_checkpoints (name, tx_id, position, stream) VALUES ($1, $2::text::xid8, $3, $4)
		ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, stream = excluded.stream`,
		relayCheckpoint, strconv.FormatUint(last.TxID, 10), last.Sequence, r.Bus.Names().Stream); err != nil {
		return fmt.Errorf("webhooks: save relay checkpoint: %w", err)
	}
	return nil
}

// checkpoint returns where the relay stopped, and the stream it published to; the
// start of the log and no stream the first time.
func (r *Relay) checkpoint(ctx context.Context) (eventstore.Position, string, error) {
	var p eventstore.Position
	var tx, stream string
	err := r.Pool.QueryRow(ctx, `SELECT tx_id::text, position, stream FROM relay_checkpoints WHERE name = $1`, relayCheckpoint).
		Scan(&tx, &p.Sequence, &stream)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, "", nil
	}
	if err != nil {
		return p, "", fmt.Errorf("webhooks: read relay checkpoint: %w", err)
	}
	if p.TxID, err = strconv.ParseUint(tx, 10, 64); err != nil {
		return p, "", fmt.Errorf("webhooks: relay checkpoint %q: %w", tx, err)
	}
	return p, stream, nil
}

// takeOver moves the relay onto the deployment's stream from the stream it published
// to before: the one stream of earlier versions, or the stream of the deployment's
// previous name. Its checkpoint is past every event published there, but the messages
// the previous stream's dispatcher had not acknowledged would be lost with it: the
// relay goes back to just before the earliest of this database's events among them and
// publishes from there again. The dispatcher makes nothing twice of an event it has
// handled (deliveries and budget alerts are keyed by event, and deliveries are kept
// longer than a stream keeps an event). The new place is recorded at once, so a
// restart does not go back again.
func (r *Relay) takeOver(ctx context.Context, previous string, from eventstore.Position) (eventstore.Position, error) {
	err := r.Bus.Unacknowledged(ctx, previous, func(msgs []*message.Message) error {
		p, ok, err := before(ctx, r.Pool, msgs)
		if ok && p.Less(from) {
			from = p
		}
		return err
	})
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		slog.Warn("webhooks: the relay's previous stream is not on this NATS server: what its dispatcher had not handled is not recovered",
			"previous", previous, "stream", r.Bus.Names().Stream)
	case err != nil:
		return from, fmt.Errorf("webhooks: take over from stream %s: %w", previous, err)
	}
	if err := r.saveCheckpoint(ctx, from); err != nil {
		return from, err
	}
	slog.Info("webhooks: relay moved to the deployment's stream", "previous", previous, "stream", r.Bus.Names().Stream,
		"from_tx", from.TxID, "from_position", from.Sequence)
	return from, nil
}

// before returns the place in the global log just before the earliest of this
// database's events among relayed messages; false when none of them is one.
func before(ctx context.Context, pool *pgxpool.Pool, msgs []*message.Message) (eventstore.Position, bool, error) {
	var streams []string
	var ids []uuid.UUID
	for _, msg := range msgs {
		e, err := storedOf(msg)
		if err != nil {
			continue // not a relayed event: nothing of ours
		}
		streams = append(streams, domain.StreamID(e.WorkspaceID))
		ids = append(ids, e.ID)
	}
	var p eventstore.Position
	var tx string
	err := pool.QueryRow(ctx, `SELECT e.tx_id::text, e.position FROM unnest($1::text[], $2::uuid[]) AS m (stream_id, event_id)
		JOIN events e ON e.stream_id = m.stream_id AND e.event_id = m.event_id ORDER BY e.tx_id, e.position LIMIT 1`,
		streams, ids).Scan(&tx, &p.Sequence)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("webhooks: find relayed events: %w", err)
	}
	if p.TxID, err = strconv.ParseUint(tx, 10, 64); err != nil {
		return p, false, fmt.Errorf("webhooks: event transaction %q: %w", tx, err)
	}
	// Positions are exclusive: publishing starts after this one.
	p.Sequence--
	return p, true, nil
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
