package eventstore

import (
	"context"
	"fmt"
	"time"
)

// Subscription tails the global log from a position, handing each event to a handler
// in log order. The caller persists the position it reaches (see Position, and
// Checkpoint) to resume.
type Subscription struct {
	DB        DB
	From      Position
	BatchSize int           // events read per query; default 500
	Interval  time.Duration // wait between polls when caught up; default 200ms
	// Wake, when set, cuts a wait between polls short: a writer sends on it when it
	// has stored events.
	Wake <-chan struct{}
	// Checkpoint, when set, is called after each batch of events with the position
	// reached, for the caller to persist; an error stops the subscription there.
	Checkpoint func(context.Context, Position) error
}

// Run delivers events until ctx ends or the handler fails. A handler error stops the
// subscription without advancing past the failed event, so nothing is skipped.
func (s *Subscription) Run(ctx context.Context, handle func(context.Context, RecordedEvent) error) error {
	batch := s.BatchSize
	if batch <= 0 {
		batch = 500
	}
	interval := s.Interval
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	wait := time.NewTimer(interval)
	defer wait.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		events, err := ReadAll(ctx, s.DB, s.From, batch)
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := handle(ctx, e); err != nil {
				return fmt.Errorf("eventstore: subscription handler at %v: %w", e.Position, err)
			}
			s.From = e.Position
		}
		if len(events) > 0 && s.Checkpoint != nil {
			if err := s.Checkpoint(ctx, s.From); err != nil {
				return fmt.Errorf("eventstore: subscription checkpoint at %v: %w", s.From, err)
			}
		}
		if len(events) > 0 {
			continue // more may be waiting: a read ends at batch events or at maxReadBytes
		}
		wait.Reset(interval)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.Wake:
		case <-wait.C:
		}
	}
}
