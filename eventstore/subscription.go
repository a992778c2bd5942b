package eventstore

import (
	"context"
	"fmt"
	"time"
)

// Subscription tails the global log from a position, handing each event to a handler
// in log order. The caller persists the position it reaches (see Position) to resume.
type Subscription struct {
	DB        DB
	From      Position
	BatchSize int           // events read per query; default 500
	Interval  time.Duration // wait between polls when caught up; default 200ms
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
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
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
		if len(events) == batch {
			timer.Reset(0)
		} else {
			timer.Reset(interval)
		}
	}
}
