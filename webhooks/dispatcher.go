package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/internal/leader"
	"github.com/finledger/finledger/webhooks/bus"
)

// dispatcherLockID is the advisory lock held by the instance that dispatches.
const dispatcherLockID int64 = 0x66696e6469737061 // "findispa"

// DispatcherDurable names the JetStream consumer of the dispatcher.
const DispatcherDurable = "finledger-dispatcher"

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
	// it waits before JetStream offers it again; the stream waits behind it, so it is
	// short. Default 5 s.
	AckWait time.Duration

	hooks hookCache // used by the one goroutine that handles messages
}

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
	sub, err := d.Bus.Subscriber(ctx, DispatcherDurable, bus.WithAckWait(ackWait))
	if err != nil {
		return err
	}
	defer sub.Close()
	messages, err := sub.Subscribe(ctx, bus.AllEvents)
	if err != nil {
		return fmt.Errorf("webhooks: subscribe: %w", err)
	}
	senderDone := make(chan struct{})
	go func() {
		defer close(senderDone)
		_ = d.Sender.Run(ctx) // ends with ctx
	}()
	defer func() { <-senderDone }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg, ok := <-messages:
			if !ok {
				return nil
			}
			d.handle(ctx, msg)
		}
	}
}

// handle stores one message's deliveries and acknowledges it; a message that cannot be
// handled now is nacked, and JetStream delivers it again before any later one.
func (d *Dispatcher) handle(ctx context.Context, msg *message.Message) {
	e, err := storedOf(msg)
	if err != nil {
		// Not an event the relay wrote: nothing can ever be made of it.
		slog.Error("webhooks: unreadable message dropped", "uuid", msg.UUID, "err", err)
		msg.Ack()
		return
	}
	n, err := fanOut(ctx, d.Pool, &d.hooks, e, d.Now())
	if err != nil {
		if ctx.Err() == nil {
			slog.Error("webhooks: fan out", "event", e.ID, "err", err)
		}
		msg.Nack()
		return
	}
	msg.Ack()
	if n > 0 {
		d.Sender.Wake()
	}
}
