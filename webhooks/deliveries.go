package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// Headers of a delivery.
const (
	HeaderEvent     = "X-Service-Event"
	HeaderDelivery  = "X-Service-Delivery"
	HeaderSignature = "X-Service-Signature"
)

// DefaultSchedule is how long each retry waits after a failed attempt, before jitter:
// the first retry comes within 10 seconds and the last, with jitter, about 24 hours
// after the first attempt; after it the delivery is marked failed.
var DefaultSchedule = []time.Duration{
	10 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 18 * time.Hour,
}

// backoff returns the wait before retry n (0-based) of schedule, with jitter: between
// four fifths of the scheduled wait and all of it, so receivers that failed together
// are not retried together.
func backoff(schedule []time.Duration, n int) time.Duration {
	d := schedule[n]
	return d - rand.N(d/5+1)
}

// Sign returns the X-Service-Signature value of body sent at t: the Unix time and the
// lowercase hex HMAC-SHA256, keyed with the secret, of "<t>.<body>".
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// envelope is the JSON body of every delivery, and of every event of the realtime
// stream. DataVersion is the version of data's shape (see payload): it travels in the
// signed body, stored with the delivery, so a redelivery says what it carries.
type envelope struct {
	ID          uuid.UUID       `json:"id" doc:"the delivery's id, as in its X-Service-Delivery header (on the realtime stream: the event's id)"`
	Type        string          `json:"type" doc:"the event's name"`
	DataVersion int             `json:"dataVersion" doc:"the version of data's shape: a change subscribers' code cannot take comes as a new version"`
	WorkspaceID uuid.UUID       `json:"workspaceId"`
	OccurredAt  time.Time       `json:"occurredAt"`
	Data        json.RawMessage `json:"data"`
}

// Body returns the JSON body of a delivery of p: {id, type, dataVersion, workspaceId,
// occurredAt, data}.
func Body(id uuid.UUID, p Public, workspaceID uuid.UUID, occurredAt time.Time) ([]byte, error) {
	body, err := json.Marshal(envelope{ID: id, Type: p.Name, DataVersion: p.Version, WorkspaceID: workspaceID,
		OccurredAt: occurredAt.UTC(), Data: p.Data})
	if err != nil {
		return nil, fmt.Errorf("webhooks: encode delivery: %w", err)
	}
	return body, nil
}

// deliveryIDs derives delivery ids from the webhook, the event and the public name.
var deliveryIDs = uuid.MustParse("8d4f2a8e-1b7c-4e59-a3d2-6f0e9c5b7a14")

// deliveryID names the delivery of one public event of one stored event to one webhook.
func deliveryID(webhookID, eventID uuid.UUID, name string) uuid.UUID {
	return uuid.NewSHA1(deliveryIDs, append(append(webhookID[:], eventID[:]...), name...))
}

// delivery is a delivery to be stored.
type delivery struct {
	ID          uuid.UUID
	WorkspaceID uuid.UUID
	WebhookID   uuid.UUID
	EventID     *uuid.UUID
	StreamSeq   uint64 // the event's position in the stream; 0 for test deliveries
	OccurredAt  time.Time
	Event       Public
}

// queue adds to b the insert of d, due at once; a delivery already stored is left as
// it is, so handling an event twice changes nothing.
func (d delivery) queue(b *pgx.Batch, now time.Time) error {
	body, err := Body(d.ID, d.Event, d.WorkspaceID, d.OccurredAt)
	if err != nil {
		return err
	}
	b.Queue(`INSERT INTO webhook_deliveries (workspace_id, id, webhook_id, stream_seq, event_id, event, body, status, next_attempt_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7::text::json, 'pending', $8, $8)
		ON CONFLICT (workspace_id, id) DO NOTHING`,
		d.WorkspaceID, d.ID, d.WebhookID, int64(d.StreamSeq), d.EventID, d.Event.Name, string(body), now)
	return nil
}

// ErrNotFound is returned for a webhook or delivery the workspace does not have.
var ErrNotFound = errors.New("webhooks: not found")

// EnqueueTest stores a webhook.test delivery for a live webhook and returns its id.
func EnqueueTest(ctx context.Context, db eventstore.DB, workspaceID, webhookID uuid.UUID, now time.Time) (uuid.UUID, error) {
	var live bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhooks WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL)`,
		workspaceID, webhookID).Scan(&live); err != nil {
		return uuid.Nil, fmt.Errorf("webhooks: look up webhook: %w", err)
	}
	if !live {
		return uuid.Nil, ErrNotFound
	}
	id := uuid.New()
	test, err := publicEvent(domain.HookTest, TestPayload{WebhookID: webhookID, Message: "This is a test delivery."})
	if err != nil {
		return uuid.Nil, fmt.Errorf("webhooks: %w", err)
	}
	b := &pgx.Batch{}
	d := delivery{ID: id, WorkspaceID: workspaceID, WebhookID: webhookID, OccurredAt: now, Event: test}
	if err := d.queue(b, now); err != nil {
		return uuid.Nil, err
	}
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return uuid.Nil, fmt.Errorf("webhooks: store test delivery: %w", err)
	}
	return id, nil
}

// Redeliver makes a delivery due again at once, whatever its state, keeping its id and
// body; its attempts go on being counted, and it gets a fresh schedule. An attempt on its
// way meanwhile is recorded without undoing this (see Sender.attempt).
func Redeliver(ctx context.Context, db eventstore.DB, workspaceID, webhookID, deliveryID uuid.UUID, now time.Time) error {
	tag, err := db.Exec(ctx, `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = $4, completed_at = NULL,
			schedule_from = d.attempts, redeliveries = d.redeliveries + 1
		FROM webhooks h
		WHERE d.workspace_id = $1 AND d.webhook_id = $2 AND d.id = $3
			AND h.workspace_id = d.workspace_id AND h.id = d.webhook_id AND h.deleted_at IS NULL`,
		workspaceID, webhookID, deliveryID, now)
	if err != nil {
		return fmt.Errorf("webhooks: redeliver: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// DeliveryRetention is how long finished deliveries, with their attempts, are kept.
const DeliveryRetention = 30 * 24 * time.Hour

// PurgeDeliveries forgets the deliveries finished before before, and every delivery of
// a webhook deleted before it, with their attempts, and returns how many deliveries
// went. Pending deliveries of live webhooks are never purged.
func PurgeDeliveries(ctx context.Context, db eventstore.DB, before time.Time) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `WITH gone AS (
			DELETE FROM webhook_deliveries d
			WHERE d.completed_at < $1
				OR EXISTS (SELECT 1 FROM webhooks h WHERE h.workspace_id = d.workspace_id AND h.id = d.webhook_id AND h.deleted_at < $1)
			RETURNING d.workspace_id, d.id),
		attempts AS (
			DELETE FROM webhook_attempts a USING gone WHERE a.workspace_id = gone.workspace_id AND a.delivery_id = gone.id)
		SELECT count(*) FROM gone`, before).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("webhooks: purge deliveries: %w", err)
	}
	return n, nil
}
