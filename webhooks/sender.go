package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/internal/metrics"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/webhooks/safehttp"
)

// Limits of one attempt.
const (
	attemptTimeout   = 10 * time.Second
	recordedBodySize = 1 << 10
)

// Sender makes the attempts of pending deliveries: per webhook, the oldest pending
// delivery first, and a later one only once it has succeeded or failed for good, so
// each webhook receives its events in order. Webhooks are served concurrently.
type Sender struct {
	Pool        *pgxpool.Pool
	Box         *sealbox.Box
	Client      *http.Client    // nil: safehttp.Policy{}.Client(10 s)
	Schedule    []time.Duration // nil: DefaultSchedule
	Now         func() time.Time
	Concurrency int              // webhooks served at once; default 8
	Interval    time.Duration    // between looks for due deliveries; default 250 ms
	Metrics     *metrics.Metrics // counts the attempts' outcomes; nil: not counted

	wake chan struct{}
	once sync.Once
	// watermark is the dispatcher's contiguous progress through the stream: deliveries
	// of later events wait, so that each webhook gets its events in order.
	watermark atomic.Uint64
}

// Wake asks the sender to look for due deliveries now.
func (s *Sender) Wake() {
	s.init()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Sender) init() {
	s.once.Do(func() {
		s.wake = make(chan struct{}, 1)
		if s.Client == nil {
			s.Client = safehttp.Policy{}.Client(attemptTimeout)
		}
		if s.Schedule == nil {
			s.Schedule = DefaultSchedule
		}
		if s.Now == nil {
			s.Now = time.Now
		}
		if s.Concurrency <= 0 {
			s.Concurrency = 8
		}
		if s.Interval <= 0 {
			s.Interval = 250 * time.Millisecond
		}
	})
}

// Run serves due deliveries until ctx ends.
func (s *Sender) Run(ctx context.Context) error {
	s.init()
	var mu sync.Mutex
	busy := map[uuid.UUID]bool{}
	slots := make(chan struct{}, s.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(s.Interval)
	defer tick.Stop()
	for {
		due, err := s.dueWebhooks(ctx)
		if err != nil && ctx.Err() == nil {
			slog.Error("webhooks: find due deliveries", "err", err)
		}
		for _, id := range due {
			mu.Lock()
			skip := busy[id]
			busy[id] = true
			mu.Unlock()
			if skip {
				continue
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.drain(ctx, id); err != nil && ctx.Err() == nil {
					slog.Error("webhooks: deliver", "webhook", id, "err", err)
				}
				mu.Lock()
				delete(busy, id)
				mu.Unlock()
				<-slots
				// A delivery stored while this webhook was busy was skipped: look again.
				s.Wake()
			}()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		case <-s.wake:
		}
	}
}

// dueSQL finds the webhooks whose first pending delivery is due at $1 and within the
// watermark $2.
const dueSQL = `WITH RECURSIVE waiting AS (
		(SELECT webhook_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY webhook_id LIMIT 1)
		UNION ALL
		SELECT (SELECT d.webhook_id FROM webhook_deliveries d
			WHERE d.status = 'pending' AND d.webhook_id > waiting.webhook_id ORDER BY d.webhook_id LIMIT 1)
		FROM waiting WHERE waiting.webhook_id IS NOT NULL)
	SELECT w.webhook_id FROM waiting w
	CROSS JOIN LATERAL (SELECT d.workspace_id, d.next_attempt_at, d.stream_seq FROM webhook_deliveries d
		WHERE d.webhook_id = w.webhook_id AND d.status = 'pending' ORDER BY d.stream_seq, d.seq LIMIT 1) head
	JOIN webhooks h ON h.workspace_id = head.workspace_id AND h.id = w.webhook_id
	WHERE h.deleted_at IS NULL AND h.active AND head.next_attempt_at <= $1 AND head.stream_seq <= $2`

// dueWebhooks lists the live, active webhooks whose oldest pending delivery is due. It
// walks the pending index once per webhook that has pending deliveries (a loose index
// scan), so a long queue behind a receiver that is down costs no more than a short one.
func (s *Sender) dueWebhooks(ctx context.Context) ([]uuid.UUID, error) {
	rows, err := s.Pool.Query(ctx, dueSQL, s.Now(), int64(s.watermark.Load()))
	if err != nil {
		return nil, fmt.Errorf("webhooks: due deliveries: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
}

// pending is the oldest pending delivery of a webhook, with what sending it needs.
type pending struct {
	workspaceID, id, webhookID uuid.UUID
	event, url                 string
	body                       []byte
	sealed                     []byte
	attempts, scheduleFrom     int
	redeliveries               int // as read before the attempt
	due                        time.Time
}

// drain sends a webhook's deliveries in order until one is not due yet.
func (s *Sender) drain(ctx context.Context, webhookID uuid.UUID) error {
	for ctx.Err() == nil {
		var p pending
		var body string
		var streamSeq int64
		err := s.Pool.QueryRow(ctx, `SELECT d.workspace_id, d.id, d.webhook_id, d.event, d.body::text, d.attempts, d.schedule_from,
				d.redeliveries, d.next_attempt_at, d.stream_seq, h.url, h.sealed_secret
			FROM webhook_deliveries d JOIN webhooks h ON h.workspace_id = d.workspace_id AND h.id = d.webhook_id
			WHERE d.webhook_id = $1 AND d.status = 'pending' AND h.deleted_at IS NULL AND h.active
			ORDER BY d.stream_seq, d.seq LIMIT 1`, webhookID).Scan(&p.workspaceID, &p.id, &p.webhookID, &p.event, &body, &p.attempts,
			&p.scheduleFrom, &p.redeliveries, &p.due, &streamSeq, &p.url, &p.sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("webhooks: next delivery: %w", err)
		}
		if p.due.After(s.Now()) || uint64(streamSeq) > s.watermark.Load() {
			return nil // not yet: its time, or the events before it, are still to come
		}
		p.body = []byte(body)
		ok, err := s.attempt(ctx, p)
		if err != nil || !ok {
			return err
		}
	}
	return ctx.Err()
}

// attempt makes one attempt at a delivery and records it, and reports whether it
// succeeded.
func (s *Sender) attempt(ctx context.Context, p pending) (bool, error) {
	started := s.Now()
	code, answer, sendErr := s.send(ctx, p, started)
	elapsed := s.Now().Sub(started)
	if ctx.Err() != nil && sendErr != nil {
		return false, ctx.Err() // cut short by shutdown: not the receiver's failure, so not recorded
	}
	ok := sendErr == nil && code >= 200 && code < 300
	var errText *string
	if sendErr != nil {
		msg := sendErr.Error()
		errText = &msg
	}
	var status *int
	if code != 0 {
		status = &code
	}
	n := p.attempts + 1
	state, next, completed := "pending", (*time.Time)(nil), (*time.Time)(nil)
	retry := n - p.scheduleFrom - 1 // retries already spent after this attempt
	switch {
	case ok:
		state, completed = "succeeded", &started
	case retry >= len(s.Schedule):
		state, completed = "failed", &started
	default:
		at := started.Add(backoff(s.Schedule, retry))
		next = &at
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO webhook_attempts (workspace_id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, succeeded)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		p.workspaceID, p.id, n, started, elapsed.Milliseconds(), status, errText, answer, ok)
	b.Queue(recordAttemptSQL, p.workspaceID, p.id, n, state, next, completed, p.redeliveries)
	// One batch is one implicit transaction: the attempt and the delivery's new state
	// are written together, even when ctx ends now, since the attempt was made.
	if err := s.Pool.SendBatch(context.WithoutCancel(ctx), b).Close(); err != nil {
		return false, fmt.Errorf("webhooks: record attempt: %w", err)
	}
	outcome := state
	if state == "pending" {
		outcome = "retrying"
	}
	s.Metrics.Attempted(outcome)
	return ok, nil
}

// recordAttemptSQL counts attempt $3 of delivery $2 and gives the delivery the state the
// attempt left ($4-$6). If the delivery was redelivered while the attempt was on its way
// (its redeliveries are no longer $7), the redelivery's state stands, and its fresh
// schedule counts from this attempt.
const recordAttemptSQL = `UPDATE webhook_deliveries SET attempts = $3,
		status = CASE WHEN redeliveries = $7 THEN $4 ELSE status END,
		next_attempt_at = CASE WHEN redeliveries = $7 THEN coalesce($5, next_attempt_at) ELSE next_attempt_at END,
		completed_at = CASE WHEN redeliveries = $7 THEN $6 ELSE completed_at END,
		schedule_from = CASE WHEN redeliveries = $7 THEN schedule_from ELSE $3 END
	WHERE workspace_id = $1 AND id = $2`

// send POSTs a delivery and returns the status code and the start of the answer.
func (s *Sender) send(ctx context.Context, p pending, at time.Time) (int, string, error) {
	secret, err := s.Box.Open(p.sealed, p.webhookID[:])
	if err != nil {
		return 0, "", fmt.Errorf("the webhook's secret cannot be opened with this service's key")
	}
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(p.body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Finledger-Webhooks/1")
	req.Header.Set(HeaderEvent, p.event)
	req.Header.Set(HeaderDelivery, p.id.String())
	req.Header.Set(HeaderSignature, Sign(secret, at, p.body))
	resp, err := s.Client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	prefix, err := safehttp.ReadPrefix(resp.Body, recordedBodySize)
	return resp.StatusCode, validText(prefix), err
}

// validText keeps the recorded answer storable as text: a prefix cut inside a UTF-8
// sequence, or a binary answer, loses its invalid bytes.
func validText(b []byte) string {
	return string(bytes.ReplaceAll(bytes.ToValidUTF8(b, nil), []byte{0}, nil))
}
