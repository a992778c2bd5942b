// Package push sends Web Push notifications (RFC 8030, encrypted per RFC 8291, signed
// with VAPID per RFC 8292) to the browsers the members of a workspace subscribed.
// Notifications are best effort, as push services themselves are: a notification
// that cannot be sent is logged, and a subscription the push service says is gone is
// forgotten.
package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Keys are the service's VAPID identity: a P-256 key pair, each half base64url
// encoded as browsers and webpush libraries exchange them, and a contact (a mailto:
// or https: URL) push services may use to reach the operator.
type Keys struct {
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
	Subject    string `json:"subject"`
}

// GenerateKeys makes a new VAPID key pair with the given contact.
func GenerateKeys(subject string) (Keys, error) {
	private, public, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		return Keys{}, fmt.Errorf("push: generate VAPID keys: %w", err)
	}
	return Keys{PublicKey: public, PrivateKey: private, Subject: subject}, nil
}

// Notification is what a browser's service worker receives, as JSON.
type Notification struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	// Tag collapses notifications about the same thing, at the push service (as its
	// Topic, at most 32 URL-safe characters) and in the browser.
	Tag  string `json:"tag"`
	Data any    `json:"data,omitempty"`
}

// Sender sends notifications; it is safe for concurrent use.
type Sender struct {
	Pool   *pgxpool.Pool
	Keys   Keys
	Client *http.Client // push services are public: use a client that refuses private addresses
	TTL    time.Duration
}

// subscriber is one stored subscription.
type subscriber struct {
	workspaceID, userID, id uuid.UUID
	sub                     webpush.Subscription
}

// Notify sends n to every subscription of the workspace's current members, and
// returns how many push services accepted it.
func (s *Sender) Notify(ctx context.Context, workspaceID uuid.UUID, n Notification) (int, error) {
	rows, err := s.Pool.Query(ctx, `SELECT p.workspace_id, p.user_id, p.id, p.endpoint, p.p256dh, p.auth
		FROM push_subscriptions p
		JOIN workspace_members m ON m.workspace_id = p.workspace_id AND m.user_id = p.user_id
		WHERE p.workspace_id = $1 AND (p.expiration_time IS NULL OR p.expiration_time > now())`, workspaceID)
	if err != nil {
		return 0, fmt.Errorf("push: subscriptions: %w", err)
	}
	subs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (subscriber, error) {
		var s subscriber
		err := row.Scan(&s.workspaceID, &s.userID, &s.id, &s.sub.Endpoint, &s.sub.Keys.P256dh, &s.sub.Keys.Auth)
		return s, err
	})
	if err != nil || len(subs) == 0 {
		return 0, err
	}
	payload, err := json.Marshal(n)
	if err != nil {
		return 0, fmt.Errorf("push: encode: %w", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := 0
	for _, sub := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.send(ctx, sub, payload, n.Tag)
			if err != nil {
				slog.Warn("push: not sent", "subscription", sub.id, "err", err)
			}
			if ok {
				mu.Lock()
				sent++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return sent, nil
}

// errGone marks a subscription the push service no longer knows.
var errGone = errors.New("push: the subscription is gone")

func (s *Sender) send(ctx context.Context, sub subscriber, payload []byte, topic string) (bool, error) {
	ttl := s.TTL
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := webpush.SendNotificationWithContext(ctx, payload, &sub.sub, &webpush.Options{
		HTTPClient: s.Client, Subscriber: s.Keys.Subject, VAPIDPublicKey: s.Keys.PublicKey, VAPIDPrivateKey: s.Keys.PrivateKey,
		TTL: int(ttl.Seconds()), Topic: topic, Urgency: webpush.UrgencyNormal,
	})
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return true, nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		if _, err := s.Pool.Exec(context.WithoutCancel(ctx), `DELETE FROM push_subscriptions WHERE workspace_id = $1 AND user_id = $2 AND id = $3`,
			sub.workspaceID, sub.userID, sub.id); err != nil {
			return false, fmt.Errorf("push: forget subscription: %w", err)
		}
		return false, errGone
	default:
		return false, fmt.Errorf("push: the push service answered %d", resp.StatusCode)
	}
}

// HasSubscribers reports whether any member of the workspace has a subscription.
func (s *Sender) HasSubscribers(ctx context.Context, workspaceID uuid.UUID) (bool, error) {
	var found bool
	err := s.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM push_subscriptions WHERE workspace_id = $1)`, workspaceID).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("push: subscribers: %w", err)
	}
	return found, nil
}
