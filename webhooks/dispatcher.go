package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/leader"
	"github.com/finledger/finledger/webhooks/bus"
	"github.com/finledger/finledger/webhooks/push"
)

// dispatcherLockID is the advisory lock held by the instance that dispatches.
const dispatcherLockID int64 = 0x66696e6469737061 // "findispa"

// dispatcherConsumer is the dispatcher's durable consumer among the deployment's (see
// bus.Names.Durable).
const dispatcherConsumer = "dispatcher"

// Dispatcher consumes the relayed events from JetStream, stores their deliveries and
// runs the Sender. One instance dispatches at a time; the durable consumer keeps its
// place across restarts and failovers, and an event handled twice makes no second
// delivery.
type Dispatcher struct {
	Pool   *pgxpool.Pool
	Bus    *bus.Bus
	Sender *Sender
	Now    func() time.Time
	// AckWait is how long a message taken by a dispatcher that stops before handling
	// it waits before JetStream offers it again; deliveries of later events wait behind
	// it, so it is short. Default 5 s.
	AckWait time.Duration

	// Push, when set, notifies the members' browsers of budget alerts.
	Push *push.Sender

	hooks hookCache // used by the one goroutine that handles messages
	mark  watermark // likewise
	// pushed remembers, for a while, whether a workspace has push subscriptions.
	pushed map[uuid.UUID]pushedEntry
	notes  chan note
}

type pushedEntry struct {
	found   bool
	checked time.Time
}

// note is a notification on its way.
type note struct {
	workspaceID uuid.UUID
	n           push.Notification
}

// Notifications wait in a queue of this size; beyond it they are dropped and logged.
const (
	notesQueue   = 256
	pushedMaxAge = 30 * time.Second
)

// Run dispatches while this instance is the leader, until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	return leader.Run(ctx, d.Pool, "webhooks dispatcher", dispatcherLockID, time.Second, d.dispatch)
}

func (d *Dispatcher) dispatch(ctx context.Context) error {
	ackWait := d.AckWait
	if ackWait <= 0 {
		ackWait = 5 * time.Second
	}
	d.hooks = hookCache{} // a new leader reads afresh what another may have changed
	// Everything up to the consumer's ack floor was handled by earlier leaders.
	floor, err := d.Bus.AckFloor(ctx, dispatcherConsumer)
	if err != nil && !errors.Is(err, nats.ErrConsumerNotFound) {
		return err
	}
	d.mark = watermark{done: floor, handled: map[uint64]bool{}}
	d.Sender.watermark.Store(floor)
	sub, err := d.Bus.Subscriber(ctx, dispatcherConsumer, bus.WithAckWait(ackWait), bus.WithBatch(dispatchBatch))
	if err != nil {
		return err
	}
	defer sub.Close()
	messages, err := sub.Subscribe(ctx, d.Bus.Names().AllEvents())
	if err != nil {
		return fmt.Errorf("webhooks: subscribe: %w", err)
	}
	senderDone := make(chan struct{})
	go func() {
		defer close(senderDone)
		_ = d.Sender.Run(ctx) // ends with ctx
	}()
	defer func() { <-senderDone }()
	if d.Push != nil {
		d.pushed = map[uuid.UUID]pushedEntry{}
		d.notes = make(chan note, notesQueue)
		notifierDone := make(chan struct{})
		go func() {
			defer close(notifierDone)
			d.notify(ctx)
		}()
		defer func() { <-notifierDone }()
	}
	reconcile := time.NewTicker(time.Second)
	defer reconcile.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg, ok := <-messages:
			if !ok {
				return nil
			}
			d.handle(ctx, collect(msg, messages))
		case <-reconcile.C:
			// Messages the dispatcher never sees (terminated, or gone from the stream)
			// would leave a gap for ever: the server's ack floor passes over them.
			if floor, err := d.Bus.AckFloor(ctx, dispatcherConsumer); err == nil {
				d.advance(floor)
			} else if ctx.Err() == nil {
				slog.Error("webhooks: ack floor", "err", err)
			}
		}
	}
}

// dispatchBatch is how many messages the dispatcher may hold unacknowledged: those
// ready together are handled together, with one commit for all their deliveries.
const dispatchBatch = 100

// collect gathers the messages handed out with first, which follow it at once.
func collect(first *message.Message, messages <-chan *message.Message) []*message.Message {
	batch := []*message.Message{first}
	wait := time.NewTimer(time.Millisecond)
	defer wait.Stop()
	for len(batch) < dispatchBatch {
		select {
		case m, ok := <-messages:
			if !ok {
				return batch
			}
			batch = append(batch, m)
		case <-wait.C:
			return batch
		}
	}
	return batch
}

// watermark is the dispatcher's contiguous progress through the stream: every message
// up to done has its deliveries stored. Messages can be handled out of order (one
// nacked comes back after later ones); the sender sends nothing beyond done, so each
// webhook still gets its events in order.
type watermark struct {
	done    uint64
	handled map[uint64]bool // handled beyond done
}

// advance records messages handled up to floor (at least), and publishes the mark.
func (d *Dispatcher) advance(floor uint64, handled ...uint64) {
	m := &d.mark
	for _, seq := range handled {
		if seq > m.done {
			m.handled[seq] = true
		}
	}
	if floor > m.done {
		for seq := range m.handled {
			if seq <= floor {
				delete(m.handled, seq)
			}
		}
		m.done = floor
	}
	for m.handled[m.done+1] {
		delete(m.handled, m.done+1)
		m.done++
	}
	if d.Sender.watermark.Load() != m.done {
		d.Sender.watermark.Store(m.done)
		d.Sender.Wake()
	}
}

// handle stores the deliveries of a batch of messages in one transaction and
// acknowledges them; a batch that cannot be handled now is nacked, and JetStream
// delivers it again.
func (d *Dispatcher) handle(ctx context.Context, msgs []*message.Message) {
	b := &pgx.Batch{}
	var notes []note
	var seqs []uint64
	for _, msg := range msgs {
		e, err := storedOf(msg)
		if err != nil {
			// Not an event the relay wrote: nothing can ever be made of it.
			slog.Error("webhooks: unreadable message dropped", "uuid", msg.UUID, "err", err)
			if seq, err := strconv.ParseUint(msg.Metadata.Get(bus.MetaStreamSeq), 10, 64); err == nil {
				seqs = append(seqs, seq)
			}
			continue
		}
		if msg.Metadata.Get(MetaDataInLog) != "" {
			if err := d.Pool.QueryRow(ctx, `SELECT data FROM events WHERE stream_id = $1 AND version = $2`,
				domain.StreamID(e.WorkspaceID), e.Version).Scan(&e.Data); err != nil {
				d.nackAll(ctx, msgs, fmt.Errorf("event %s: read its data from the log: %w", e.ID, err))
				return
			}
		}
		if _, err := fanOut(ctx, d.Pool, &d.hooks, e, d.Now(), b); err != nil {
			d.nackAll(ctx, msgs, fmt.Errorf("event %s: %w", e.ID, err))
			return
		}
		seqs = append(seqs, e.StreamSeq)
		if pushed[e.Type] && d.pushWanted(ctx, e.WorkspaceID) {
			n, err := notificationOf(e.Type, e.Data)
			if err != nil {
				d.nackAll(ctx, msgs, fmt.Errorf("event %s: decode %s: %w", e.ID, e.Type, err))
				return
			}
			notes = append(notes, note{e.WorkspaceID, n})
		}
	}
	if b.Len() > 0 {
		// One batch is one implicit transaction: every delivery of the batch, or none.
		if err := d.Pool.SendBatch(ctx, b).Close(); err != nil {
			d.nackAll(ctx, msgs, fmt.Errorf("store deliveries: %w", err))
			return
		}
	}
	for _, m := range msgs {
		m.Ack()
	}
	d.advance(0, seqs...)
	for _, n := range notes {
		d.queueNote(n.workspaceID, n.n)
	}
}

// nackAll gives a batch back for later.
func (d *Dispatcher) nackAll(ctx context.Context, msgs []*message.Message, err error) {
	if ctx.Err() == nil {
		slog.Error("webhooks: fan out", "messages", len(msgs), "err", err)
	}
	for _, m := range msgs {
		m.Nack()
	}
}

// pushWanted reports whether a workspace has push subscriptions, as checked at most
// pushedMaxAge ago.
func (d *Dispatcher) pushWanted(ctx context.Context, workspaceID uuid.UUID) bool {
	if d.Push == nil {
		return false
	}
	now := time.Now()
	if e, ok := d.pushed[workspaceID]; ok && now.Sub(e.checked) < pushedMaxAge {
		return e.found
	}
	found, err := d.Push.HasSubscribers(ctx, workspaceID)
	if err != nil {
		slog.Error("webhooks: push subscribers", "workspace", workspaceID, "err", err)
		return false
	}
	if len(d.pushed) >= maxCachedWorkspaces {
		clear(d.pushed)
	}
	d.pushed[workspaceID] = pushedEntry{found: found, checked: now}
	return found
}

func (d *Dispatcher) queueNote(workspaceID uuid.UUID, n push.Notification) {
	if d.notes == nil {
		return
	}
	select {
	case d.notes <- note{workspaceID, n}:
	default:
		slog.Warn("webhooks: push notification dropped: queue full", "workspace", workspaceID, "tag", n.Tag)
	}
}

// notify sends queued notifications until ctx ends.
func (d *Dispatcher) notify(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case nt := <-d.notes:
			if _, err := d.Push.Notify(ctx, nt.workspaceID, nt.n); err != nil && ctx.Err() == nil {
				slog.Error("webhooks: push", "workspace", nt.workspaceID, "err", err)
			}
		}
	}
}

// pushed are the events members' browsers are told of: a budget alert, and a write of
// an API key waiting for a person's approval.
var pushed = map[string]bool{domain.TypeBudgetThresholdReached: true, domain.TypeProposalCreated: true}

// notificationOf is what members' browsers show of a pushed event.
func notificationOf(eventType string, data []byte) (push.Notification, error) {
	if eventType == domain.TypeProposalCreated {
		var p domain.ProposalCreated
		if err := json.Unmarshal(data, &p); err != nil {
			return push.Notification{}, err
		}
		return push.Notification{Title: "An API key asks for your approval", Body: p.Summary,
			Tag: "proposal-" + p.ProposalID.String()[:8], Data: map[string]any{"type": "proposal.created", "proposalId": p.ProposalID}}, nil
	}
	var alert domain.BudgetThresholdReached
	if err := json.Unmarshal(data, &alert); err != nil {
		return push.Notification{}, err
	}
	return alertNotification(&alert), nil
}

// alertNotification is what members' browsers show of a budget alert.
func alertNotification(a *domain.BudgetThresholdReached) push.Notification {
	b := a.Budget
	return push.Notification{
		Title: fmt.Sprintf("%s: %s%% of the budget spent", b.Name, a.Percentage.String()),
		Body: fmt.Sprintf("%s of %s %s spent from %s to %s.", a.Spent.StringFixed(2), b.Amount.StringFixed(2),
			b.Currency, a.PeriodStart, a.PeriodEnd),
		// The same budget and period collapse into one notification.
		Tag:  "budget-" + a.BudgetID.String()[:8] + "-" + strings.ReplaceAll(a.PeriodStart.String(), "-", ""),
		Data: map[string]any{"type": domain.HookBudgetThresholdReached, "budgetId": a.BudgetID, "transactionId": a.TransactionID},
	}
}
