package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/webhooks"
	"github.com/finledger/finledger/webhooks/safehttp"
)

// WebhookOptions configure outbound webhooks.
type WebhookOptions struct {
	// Policy says which URLs a webhook may have.
	Policy safehttp.Policy
	// Wake, when set, tells the sender a delivery is due now.
	Wake func()
}

// deliveryStatuses are the states a delivery can be in.
var deliveryStatuses = []string{"pending", "succeeded", "failed"}

// webhookSecretPrefix starts every signing secret.
const webhookSecretPrefix = "whsec_"

// maxWebhookURL bounds a webhook's URL.
const maxWebhookURL = 2048

var errNoBox = errorf(http.StatusServiceUnavailable, "SECRET_KEY_NOT_CONFIGURED", "this server has no key to keep secrets with")

// webhookURL reads and checks a webhook URL: scheme, form, and, unless private
// destinations are allowed, where it resolves.
func (s *Server) webhookURL(r *http.Request, b *body) domain.Nullable[string] {
	v := webhookURLField.read(b)
	if v.Valid && !b.failed(webhookURLField.Name) {
		if err := s.webhooks.Policy.CheckURL(r.Context(), v.Value); err != nil {
			b.fail(webhookURLField.Name, "%s", err.Error())
		}
	}
	return v
}

// hookEvents reads a list of event names.
func hookEvents(b *body) []string {
	events := webhookEvents.read(b)
	for i, e := range events {
		if strings.TrimSpace(e) == "" {
			b.fail(fmt.Sprintf("events[%d]", i), "must not be empty")
		}
	}
	return events
}

// seesWebhookURLs reports a caller shown webhook URLs in full: one who may change
// webhooks (owners and admins, through a key only if it holds webhooks:write). Anyone
// else sees them masked (queries.MaskURL), in listings and in deliveries' attempts,
// since such URLs often carry credentials.
func (p *principal) seesWebhookURLs() bool { return p.allows("webhooks:write") }

func listWebhooks(s *Server, w http.ResponseWriter, r *http.Request) {
	list, err := queries.Webhooks(r.Context(), s.pool, activeWorkspace(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	if !principalFrom(r.Context()).seesWebhookURLs() {
		for i, h := range list {
			list[i] = h.Masked()
		}
	}
	respond(w, r, map[string]any{"webhooks": list})
}

func getWebhook(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	h, ok := s.webhook(w, r, id)
	if !ok {
		return
	}
	if !principalFrom(r.Context()).seesWebhookURLs() {
		h = h.Masked()
	}
	respond(w, r, map[string]any{"webhook": h})
}

// webhook reads a webhook of the active workspace, or answers that there is none.
func (s *Server) webhook(w http.ResponseWriter, r *http.Request, id uuid.UUID) (queries.Webhook, bool) {
	h, err := queries.WebhookByID(activeWorkspace(r), id).Get(r.Context(), s.pool)
	if err != nil {
		writeError(w, r, notFoundAs(err, "WEBHOOK_NOT_FOUND", "webhook not found"))
		return queries.Webhook{}, false
	}
	return h, true
}

func createWebhook(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	name := recordName.read(b)
	target := s.webhookURL(r, b)
	events := hookEvents(b)
	if events == nil && !b.failed("events") {
		events = []string{domain.HookAll}
	}
	id := newID()
	secret, sealed, err := s.newWebhookSecret(id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	cmd := domain.CreateWebhook{WebhookID: id, CreatedBy: p.User.ID, SealedSecret: sealed,
		Fields: domain.WebhookFields{Name: name.Value, URL: target.Value, Events: events, Active: true}}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("webhook", queries.WebhookByID(activeWorkspace(r), id)),
		// The secret is in this answer only: a replay of the request gets the webhook without it.
		Secret: map[string]any{"secret": secret}})
}

// newWebhookSecret makes a webhook's signing secret (the prefix and 32 random bytes in
// hex) and seals it for storage, bound to the webhook.
func (s *Server) newWebhookSecret(webhookID uuid.UUID) (secret string, sealed []byte, err error) {
	if s.box == nil {
		return "", nil, errNoBox
	}
	random := make([]byte, 32)
	if _, err := rand.Read(random); err != nil {
		return "", nil, fmt.Errorf("httpapi: webhook secret: %w", err)
	}
	secret = webhookSecretPrefix + hex.EncodeToString(random)
	return secret, s.box.Seal([]byte(secret), webhookID[:]), nil
}

// rotateWebhookSecret gives a webhook a new signing secret, in this answer only; the
// next attempt of every delivery is signed with it.
func rotateWebhookSecret(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	secret, sealed, err := s.newWebhookSecret(id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	cmd := domain.RotateWebhookSecret{WebhookID: id, SealedSecret: sealed}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("webhook", queries.WebhookByID(activeWorkspace(r), id)),
		Secret: map[string]any{"secret": secret}})
}

func updateWebhook(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.UpdateWebhook{WebhookID: id, Name: recordName.read(b), URL: s.webhookURL(r, b),
		Active: webhookActive.read(b)}
	if events := hookEvents(b); events != nil {
		cmd.Events = domain.Of(events)
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("webhook", queries.WebhookByID(activeWorkspace(r), id))})
}

func deleteWebhook(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.DeleteWebhook{WebhookID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}

// testWebhook queues a webhook.test delivery and answers with it, pending.
func testWebhook(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	ws := activeWorkspace(r)
	deliveryID, err := webhooks.EnqueueTest(r.Context(), s.pool, ws, id, s.now())
	if err != nil {
		writeError(w, r, webhookNotFound(err))
		return
	}
	s.answerDelivery(w, r, ws, id, deliveryID)
}

func redeliverWebhook(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	deliveryID, err := pathID(r, "deliveryId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	ws := activeWorkspace(r)
	if err := webhooks.Redeliver(r.Context(), s.pool, ws, id, deliveryID, s.now()); err != nil {
		if errors.Is(err, webhooks.ErrNotFound) {
			err = errorf(http.StatusNotFound, "DELIVERY_NOT_FOUND", "delivery not found")
		}
		writeError(w, r, err)
		return
	}
	s.answerDelivery(w, r, ws, id, deliveryID)
}

// answerDelivery wakes the sender and answers with a delivery as it stands.
func (s *Server) answerDelivery(w http.ResponseWriter, r *http.Request, ws, webhookID, deliveryID uuid.UUID) {
	if s.webhooks.Wake != nil {
		s.webhooks.Wake()
	}
	d, err := queries.DeliveryByID(ws, webhookID, deliveryID).Get(r.Context(), s.pool)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"delivery": d})
}

func listDeliveries(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	q := &query{values: r.URL.Query()}
	page, size := q.paging()
	status := q.values.Get("status")
	if status != "" && !slices.Contains(deliveryStatuses, status) {
		q.fail("status", "must be one of "+strings.Join(deliveryStatuses, ", "))
	}
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	hook, ok := s.webhook(w, r, id)
	if !ok {
		return
	}
	list, total, err := queries.Deliveries(r.Context(), s.pool, activeWorkspace(r), id, status, size, (page-1)*size)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if !principalFrom(r.Context()).seesWebhookURLs() {
		for i, d := range list {
			list[i] = d.Masked(hook.URL)
		}
	}
	respond(w, r, map[string]any{
		"deliveries": list,
		"pagination": pagination(size, (page-1)*size, total),
	})
}

// webhookNotFound turns the dispatcher's not-found into the API's.
func webhookNotFound(err error) error {
	if errors.Is(err, webhooks.ErrNotFound) {
		return domain.NotFound("WEBHOOK_NOT_FOUND", "webhook not found")
	}
	return err
}
