package httpapi

import (
	"crypto/ecdh"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// Web Push subscriptions are device data, not money: the handlers here write the
// push_subscriptions table directly rather than through events, and every statement is
// scoped to the caller's user and active workspace.

// Limits of a browser's PushSubscription.
const (
	maxPushEndpoint = 2048
	pushKeyLength   = 65 // an uncompressed P-256 point: 0x04, X, Y
	pushAuthLength  = 16
)

// maxPushExpiration is the last millisecond of year 9999, the latest expirationTime
// accepted: later ones cannot be stored or written back as a timestamp.
var maxPushExpiration = float64(time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC).UnixMilli())

// pushSubscription is a stored subscription as the API shows it: never its keys.
type pushSubscription struct {
	ID uuid.UUID `json:"id"`
	// Endpoint is the push service's URL for the device.
	Endpoint string `json:"endpoint"`
	// ExpirationTime is in milliseconds since the epoch, as the browser gives it.
	ExpirationTime *int64    `json:"expirationTime"`
	UserAgent      *string   `json:"userAgent"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

const pushColumns = `id, endpoint, expiration_time, user_agent, created_at, updated_at`

func scanPushSubscription(row pgx.Row) (pushSubscription, error) {
	var p pushSubscription
	var expires *time.Time
	if err := row.Scan(&p.ID, &p.Endpoint, &expires, &p.UserAgent, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return p, err
	}
	if expires != nil {
		ms := expires.UnixMilli()
		p.ExpirationTime = &ms
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return p, nil
}

// pushInput is a validated PushSubscription body.
type pushInput struct {
	Endpoint       string
	P256dh, Auth   string
	ExpirationTime *time.Time
}

// pushSubscriptionInput reads the browser's PushSubscription JSON:
// {endpoint, keys: {p256dh, auth}, expirationTime}.
func pushSubscriptionInput(b *body) pushInput {
	var in pushInput
	endpoint := pushEndpoint(b)
	var p256dh, auth domain.Nullable[string]
	pushKeys.read(b, func(k *body) {
		p256dh = pushKeysP256dh.read(k)
		auth = pushKeysAuth.read(k)
		if key, ok := base64URL(k, "p256dh", p256dh, pushKeyLength); ok {
			if key[0] != 0x04 {
				k.fail("p256dh", "must be an uncompressed P-256 public key (first byte 0x04)")
			} else if _, err := ecdh.P256().NewPublicKey(key); err != nil {
				k.fail("p256dh", "is not a point on the P-256 curve")
			}
		}
		base64URL(k, "auth", auth, pushAuthLength)
	})
	// A timestamp, not money, so float64 is exact enough. Fractions of a millisecond
	// are dropped.
	if ms := pushExpiration.readFloat(b); ms.Valid {
		t := time.UnixMilli(int64(ms.Value)).UTC()
		in.ExpirationTime = &t
	}
	in.Endpoint, in.P256dh, in.Auth = endpoint.Value, p256dh.Value, auth.Value
	return in
}

// pushEndpoint reads the endpoint field: an absolute https URL, since push services
// are only reached over TLS.
func pushEndpoint(b *body) domain.Nullable[string] {
	v := pushEndpointField.read(b)
	if v.Valid && !b.failed("endpoint") {
		u, err := url.Parse(v.Value)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			b.fail("endpoint", "must be an absolute https URL without credentials")
		}
	}
	return v
}

// base64URL decodes a present string field written in base64url (unpadded, as
// browsers write it, or padded) and checks it decodes to size bytes.
func base64URL(b *body, name string, v domain.Nullable[string], size int) ([]byte, bool) {
	if !v.Valid || b.failed(name) {
		return nil, false
	}
	enc := base64.RawURLEncoding.Strict()
	if strings.HasSuffix(v.Value, "=") {
		enc = base64.URLEncoding.Strict()
	}
	data, err := enc.DecodeString(v.Value)
	switch {
	case err != nil:
		b.fail(name, "must be base64url")
		return nil, false
	case len(data) != size:
		b.fail(name, "must decode to %d bytes, not %d", size, len(data))
		return nil, false
	}
	return data, true
}

// subscribePush answers POST /api/push/subscribe with the stored subscription. Sending
// the same endpoint again replaces its keys and expiration in place.
func subscribePush(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := pushSubscriptionInput(b)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	now := s.now()
	sub, err := scanPushSubscription(s.pool.QueryRow(r.Context(), `INSERT INTO push_subscriptions AS p
			(workspace_id, user_id, id, endpoint, p256dh, auth, expiration_time, user_agent, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
		ON CONFLICT (workspace_id, user_id, endpoint) DO UPDATE SET
			p256dh = excluded.p256dh, auth = excluded.auth, expiration_time = excluded.expiration_time,
			user_agent = excluded.user_agent, updated_at = excluded.updated_at
		RETURNING `+pushColumns,
		p.Workspace.ID, p.User.ID, newID(), in.Endpoint, in.P256dh, in.Auth, in.ExpirationTime, nilIfEmpty(userAgent(r)), now))
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: store push subscription: %w", err))
		return
	}
	respond(w, r, map[string]any{"subscription": sub})
}

// unsubscribePush answers POST /api/push/unsubscribe {endpoint}: whether the caller
// had that subscription in the active workspace. Removing it twice is harmless.
func unsubscribePush(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	endpoint := pushEndpoint(b)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	tag, err := s.pool.Exec(r.Context(), `DELETE FROM push_subscriptions WHERE workspace_id = $1 AND user_id = $2 AND endpoint = $3`,
		p.Workspace.ID, p.User.ID, endpoint.Value)
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: remove push subscription: %w", err))
		return
	}
	respond(w, r, map[string]bool{"removed": tag.RowsAffected() > 0})
}

// listPushSubscriptions answers GET /api/push/subscriptions: the caller's own
// subscriptions in the active workspace, newest first.
func listPushSubscriptions(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	rows, err := s.pool.Query(r.Context(), `SELECT `+pushColumns+` FROM push_subscriptions
		WHERE workspace_id = $1 AND user_id = $2 ORDER BY created_at DESC, id DESC`, p.Workspace.ID, p.User.ID)
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: list push subscriptions: %w", err))
		return
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (pushSubscription, error) { return scanPushSubscription(row) })
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: list push subscriptions: %w", err))
		return
	}
	if list == nil {
		list = []pushSubscription{}
	}
	respond(w, r, map[string]any{"subscriptions": list})
}

// pushPublicKey answers GET /api/push/vapid-public-key: the key a browser passes to
// pushManager.subscribe as applicationServerKey.
func pushPublicKey(s *Server, w http.ResponseWriter, r *http.Request) {
	if s.pushKey == "" {
		writeError(w, r, errorf(http.StatusServiceUnavailable, "PUSH_NOT_CONFIGURED", "Web Push notifications are not configured on this server"))
		return
	}
	respond(w, r, map[string]string{"publicKey": s.pushKey})
}
