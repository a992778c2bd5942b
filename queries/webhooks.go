package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Webhook is an outbound webhook subscription as listings show it: never its secret.
type Webhook struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	Active    bool      `json:"active"`
	CreatedBy uuid.UUID `json:"createdBy"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

const webhookSelect = `SELECT id, name, url, events, active, created_by, created_at, updated_at FROM webhooks`

func scanWebhook(row pgx.CollectableRow) (Webhook, error) {
	var h Webhook
	err := row.Scan(&h.ID, &h.Name, &h.URL, &h.Events, &h.Active, &h.CreatedBy, &h.CreatedAt, &h.UpdatedAt)
	return h, err
}

// Webhooks lists a workspace's live subscriptions, oldest first.
func Webhooks(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Webhook, error) {
	rows, err := db.Query(ctx, webhookSelect+` WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: webhooks: %w", err)
	}
	return all(rows, scanWebhook, "webhooks")
}

// WebhookByID looks up one live subscription of a workspace.
func WebhookByID(workspaceID, id uuid.UUID) Lookup[Webhook] {
	return Lookup[Webhook]{"webhook", webhookSelect + ` WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`,
		[]any{workspaceID, id}, scanWebhook}
}

// Webhook URLs often carry credentials: a token in the query, a user and password, or
// a secret path (Slack's and Discord's incoming webhooks). Callers who may not change
// webhooks see them masked: the scheme and host, "***" for the rest.

// masked stands for the hidden parts of a URL.
const masked = "***"

// MaskURL returns a URL with its user-info and everything after its host masked:
// "https://***@hooks.example.com/***". A URL it cannot read is masked whole.
func MaskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return masked
	}
	out := u.Scheme + "://"
	if u.User != nil {
		out += masked + "@"
	}
	out += u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		out += "/" + masked
	}
	return out
}

// Masked is the webhook as a caller who may not change webhooks sees it: its URL masked.
func (h Webhook) Masked() Webhook {
	h.URL = MaskURL(h.URL)
	return h
}

// urlInText finds the URLs a text names, such as the one an attempt's error quotes.
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)

// Masked is the delivery as a caller who may not change webhooks sees it: in its
// attempts' errors and answers, every URL is masked, and so is every part of its
// webhook's URL that MaskURL hides (a receiver's answer may echo the path it was sent
// to).
func (d Delivery) Masked(webhookURL string) Delivery {
	var secrets []string
	if u, err := url.Parse(webhookURL); err == nil {
		secrets = append(secrets, u.User.String(), u.RawQuery, u.Fragment, u.EscapedPath(), u.Path)
	}
	hide := func(text string) string {
		text = urlInText.ReplaceAllStringFunc(text, MaskURL)
		for _, s := range secrets {
			if len(s) > 1 {
				text = strings.ReplaceAll(text, s, masked)
			}
		}
		return text
	}
	history := make([]Attempt, len(d.History))
	for i, a := range d.History {
		if a.Error != nil {
			e := hide(*a.Error)
			a.Error = &e
		}
		a.ResponseBody = hide(a.ResponseBody)
		history[i] = a
	}
	d.History = history
	return d
}

// Delivery is one event sent, or to be sent, to one webhook, with its attempts.
type Delivery struct {
	ID            uuid.UUID       `json:"id"`
	WebhookID     uuid.UUID       `json:"webhookId"`
	Event         string          `json:"event"`
	EventID       *uuid.UUID      `json:"eventId"`
	Status        string          `json:"status"`
	Attempts      int             `json:"attempts"`
	NextAttemptAt *time.Time      `json:"nextAttemptAt"`
	CreatedAt     time.Time       `json:"createdAt"`
	CompletedAt   *time.Time      `json:"completedAt"`
	Payload       json.RawMessage `json:"payload"`
	History       []Attempt       `json:"history"`
}

// Attempt is one try at a delivery.
type Attempt struct {
	Attempt      int       `json:"attempt"`
	StartedAt    time.Time `json:"startedAt"`
	DurationMs   int       `json:"durationMs"`
	StatusCode   *int      `json:"statusCode"`
	Error        *string   `json:"error"`
	ResponseBody string    `json:"responseBody"`
	Succeeded    bool      `json:"succeeded"`
}

const deliverySelect = `SELECT d.id, d.webhook_id, d.event, d.event_id, d.status, d.attempts, d.next_attempt_at,
	d.created_at, d.completed_at, d.body::text,
	coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'startedAt', a.started_at, 'durationMs', a.duration_ms,
		'statusCode', a.status_code, 'error', a.error, 'responseBody', a.response_body, 'succeeded', a.succeeded) ORDER BY a.attempt)
		FROM webhook_attempts a WHERE a.workspace_id = d.workspace_id AND a.delivery_id = d.id), '[]')
	FROM webhook_deliveries d`

func scanDelivery(row pgx.CollectableRow) (Delivery, error) {
	var d Delivery
	var body string
	var history []byte
	err := row.Scan(&d.ID, &d.WebhookID, &d.Event, &d.EventID, &d.Status, &d.Attempts, &d.NextAttemptAt,
		&d.CreatedAt, &d.CompletedAt, &body, &history)
	if err != nil {
		return d, err
	}
	d.Payload = json.RawMessage(body)
	if err := json.Unmarshal(history, &d.History); err != nil {
		return d, fmt.Errorf("delivery attempts: %w", err)
	}
	return d, nil
}

// Deliveries lists a webhook's deliveries, newest first, a page at a time; status, when
// not empty, keeps those in that state.
func Deliveries(ctx context.Context, db DB, workspaceID, webhookID uuid.UUID, status string, limit, offset int) ([]Delivery, int, error) {
	const where = ` WHERE d.workspace_id = $1 AND d.webhook_id = $2 AND ($3 = '' OR d.status = $3)`
	var total int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries d`+where, workspaceID, webhookID, status).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("queries: count deliveries: %w", err)
	}
	rows, err := db.Query(ctx, deliverySelect+where+` ORDER BY d.seq DESC LIMIT $4 OFFSET $5`, workspaceID, webhookID, status, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("queries: deliveries: %w", err)
	}
	list, err := all(rows, scanDelivery, "deliveries")
	return list, total, err
}

// DeliveryByID looks up one delivery of a webhook.
func DeliveryByID(workspaceID, webhookID, id uuid.UUID) Lookup[Delivery] {
	return Lookup[Delivery]{"delivery", deliverySelect + ` WHERE d.workspace_id = $1 AND d.webhook_id = $2 AND d.id = $3`,
		[]any{workspaceID, webhookID, id}, scanDelivery}
}
