package webhooks

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/internal/metrics"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/webhooks/bus"
	"github.com/finledger/finledger/webhooks/push"
)

// Config is what the webhooks service needs.
type Config struct {
	Pool     *pgxpool.Pool
	Bus      *bus.Bus
	Box      *sealbox.Box
	Client   *http.Client    // for deliveries; see Sender
	Schedule []time.Duration // retries; nil: DefaultSchedule
	Now      func() time.Time
	Interval time.Duration    // how often the relay and the sender look for work when idle; 0: their defaults
	AckWait  time.Duration    // see Dispatcher
	Push     *push.Sender     // nil: no Web Push notifications
	Metrics  *metrics.Metrics // nil: the attempts' outcomes are not counted
}

// Service is the relay and the dispatcher of one instance.
type Service struct {
	Relay      *Relay
	Dispatcher *Dispatcher
}

// New wires a relay and a dispatcher over one bus.
func New(c Config) (*Service, error) {
	publisher, err := c.Bus.Publisher()
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	sender := &Sender{Pool: c.Pool, Box: c.Box, Client: c.Client, Schedule: c.Schedule, Now: c.Now, Interval: c.Interval, Metrics: c.Metrics}
	return &Service{
		Relay:      &Relay{Pool: c.Pool, Bus: c.Bus, Publisher: publisher, Interval: c.Interval},
		Dispatcher: &Dispatcher{Pool: c.Pool, Bus: c.Bus, Sender: sender, Now: c.Now, AckWait: c.AckWait, Push: c.Push},
	}, nil
}

// Committed tells this instance's relay that events were just stored; wire it to
// ledger.Ledger.OnCommit. Where another instance relays, it finds them by polling.
func (s *Service) Committed() { s.Relay.Wake() }

// Wake tells this instance's sender that a delivery is due now; it does nothing
// where another instance dispatches, whose sender finds it within its interval.
func (s *Service) Wake() { s.Dispatcher.Sender.Wake() }

// Run relays and dispatches, each while this instance leads it, until ctx ends.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = s.Relay.Run(ctx) }()
	go func() { defer wg.Done(); _ = s.Dispatcher.Run(ctx) }()
	wg.Wait()
}

// Backlog returns how many events are still on their way to the dispatcher: in the
// log beyond the relay's checkpoint, or in the stream not yet handled.
func (s *Service) Backlog(ctx context.Context) (int64, error) {
	unrelayed, err := Unrelayed(ctx, s.Relay.Pool)
	if err != nil {
		return 0, err
	}
	pending, err := s.Dispatcher.Bus.Pending(ctx, dispatcherConsumer)
	if err != nil {
		return 0, err
	}
	return unrelayed + int64(pending), nil
}

// Lag reads how far the relay and the dispatcher trail the log, for the metrics.
func (s *Service) Lag(ctx context.Context) (metrics.Lag, error) {
	var lag metrics.Lag
	var oldest *time.Time
	var err error
	if lag.UnrelayedEvents, oldest, err = unrelayed(ctx, s.Relay.Pool); err != nil {
		return lag, err
	}
	if oldest != nil {
		lag.OldestUnrelayed = max(time.Since(*oldest), 0)
	}
	if lag.UndispatchedMsgs, err = s.Dispatcher.Bus.Pending(ctx, dispatcherConsumer); err != nil {
		return lag, err
	}
	if err := s.Relay.Pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&lag.PendingDelivery); err != nil {
		return lag, fmt.Errorf("webhooks: pending deliveries: %w", err)
	}
	return lag, nil
}

// Unrelayed counts the events of the log beyond the relay's checkpoint: those not yet
// published, by whichever instance leads the relay.
func Unrelayed(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	n, _, err := unrelayed(ctx, pool)
	return n, err
}

// unrelayed counts the events beyond the relay's checkpoint and tells when the oldest
// of them was recorded (nil when there is none).
func unrelayed(ctx context.Context, pool *pgxpool.Pool) (int64, *time.Time, error) {
	from, _, err := (&Relay{Pool: pool}).checkpoint(ctx)
	if err != nil {
		return 0, nil, err
	}
	var n int64
	var oldest *time.Time
	if err := pool.QueryRow(ctx, `SELECT count(*), min(recorded_at) FROM events WHERE (tx_id, position) > ($1::text::xid8, $2)`,
		strconv.FormatUint(from.TxID, 10), from.Sequence).Scan(&n, &oldest); err != nil {
		return 0, nil, fmt.Errorf("webhooks: relay backlog: %w", err)
	}
	return n, oldest, nil
}
