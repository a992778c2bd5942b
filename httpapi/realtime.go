package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/webhooks"
)

// Realtime stream settings.
const (
	realtimePath          = "/api/realtime/events"
	realtimeTokenLifetime = 5 * time.Minute // to open the stream; an open stream lives on
	realtimeStreamLimit   = time.Hour       // then the browser reconnects with a fresh token
	realtimeKeepAlive     = 25 * time.Second
	realtimeBuffer        = 256    // live events held while the stream catches up
	realtimeMaxResume     = 10_000 // events a reconnecting client may have missed; beyond, it reloads
)

// realtimeOwner binds sealed realtime tokens, so no other sealed value passes for one.
var realtimeOwner = []byte("realtime-token")

// realtimeClaims are what a realtime token carries, sealed: it is opaque to its holder.
type realtimeClaims struct {
	UserID      uuid.UUID `json:"u"`
	WorkspaceID uuid.UUID `json:"w"`
	Expires     int64     `json:"e"`
	// key names the token among open streams, not sealed in it: a hash of its sealed
	// bytes, the same however its base64 is spelt.
	key [sha256.Size]byte
}

var errRealtimeToken = errorf(http.StatusUnauthorized, "UNAUTHORIZED", "the realtime token is missing, invalid or expired")

// realtimeToken answers POST /api/realtime/token: a short-lived token for the active
// workspace's event stream, for clients (browsers' EventSource) that cannot send headers.
func realtimeToken(s *Server, w http.ResponseWriter, r *http.Request) {
	if s.box == nil {
		writeError(w, r, errNoBox)
		return
	}
	p := principalFrom(r.Context())
	if err := p.authorize(scopeTransactionsRead); err != nil {
		writeError(w, r, err)
		return
	}
	expires := s.now().Add(realtimeTokenLifetime).Truncate(time.Second)
	raw, err := json.Marshal(realtimeClaims{UserID: p.User.ID, WorkspaceID: p.Workspace.ID, Expires: expires.Unix()})
	if err != nil {
		writeError(w, r, err)
		return
	}
	token := base64.RawURLEncoding.EncodeToString(s.box.Seal(raw, realtimeOwner))
	respond(w, r, map[string]any{"token": token, "expiresAt": expires.UTC(),
		"url": realtimePath + "?token=" + token})
}

// openRealtimeToken checks a token and returns its claims.
func (s *Server) openRealtimeToken(token string) (realtimeClaims, error) {
	var c realtimeClaims
	if s.box == nil || token == "" || len(token) > 512 {
		return c, errRealtimeToken
	}
	sealed, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return c, errRealtimeToken
	}
	raw, err := s.box.Open(sealed, realtimeOwner)
	if err != nil || json.Unmarshal(raw, &c) != nil || !s.now().Before(time.Unix(c.Expires, 0)) {
		return c, errRealtimeToken
	}
	c.key = sha256.Sum256(sealed)
	return c, nil
}

// realtimeStreamDescription is what the OpenAPI document says of the stream beyond its
// summary.
var realtimeStreamDescription = "Besides the workspace's events: `reset` ({lastEventId}) when a reconnecting client is too far behind, and " +
	"`revoked` ({reason}: member_removed, role_changed, account_deleted or workspace_deleted) when the user loses " +
	"access to the workspace, after which the stream ends; a client should close its EventSource then. " +
	"401: the token is missing, invalid or expired; 403: the token's user may no longer read the workspace " +
	"(details.reason, as in the revoked event); " + fmt.Sprintf("429 TOO_MANY_STREAMS: the token already has %d streams open, "+
	"its person %d or the workspace %d (details.limit says which); a client that stops reading for %s is cut off.",
	realtimeStreamsPerToken, defaultStreamsPerUser, defaultStreamsPerWorkspace, defaultWriteDeadline)

// realtimeEvents serves GET /api/realtime/events?token=...: Server-Sent Events of the
// workspace's public events, live from NATS. Each event's id is its version in the
// workspace's stream; a client that reconnects with Last-Event-ID (or ?lastEventId=)
// first gets what it missed, from the event store, then the live feed. One that missed
// more than realtimeMaxResume events gets a "reset" event instead: reload, then follow.
//
// A token, its user and the workspace each have a bounded number of streams open at
// once, across instances (429 TOO_MANY_STREAMS), and a token opens one only while its
// user may read the workspace (403 FORBIDDEN). An open stream whose user loses access
// (removed, role changed, account or workspace deleted, through any instance) gets a
// "revoked" event with the reason, then ends. Each write has the long answers' write
// deadline (answerWriter): a client that stops reading is cut off.
func (s *Server) realtimeEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	claims, err := s.openRealtimeToken(r.URL.Query().Get("token"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	if s.events == nil {
		writeError(w, r, errorf(http.StatusServiceUnavailable, "REALTIME_NOT_CONFIGURED", "the realtime stream is not available on this server"))
		return
	}
	last, resume, err := lastEventID(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	admitted, err := s.answers.admitStream(ctx, claims)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer s.answers.release(ctx, admitted)
	live := make(chan *nats.Msg, realtimeBuffer)
	sub, err := s.events.Conn.ChanSubscribe(s.events.Names().Subject(claims.WorkspaceID), live)
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: realtime subscribe: %w", err))
		return
	}
	defer func() { _ = sub.Unsubscribe() }()
	// Subscribed first, so nothing committed from here on is missed.
	head, err := queries.StreamHead(ctx, s.pool, claims.WorkspaceID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	// A client too far behind (or ahead: an id of another stream) is told to reload
	// rather than sent the workspace's whole history.
	reset := resume && (head-last > realtimeMaxResume || last > head)
	if !resume || reset {
		last = head
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	startAnswer(w, r)
	answer := s.answers.writer(w)
	defer answer.finish()
	out := &sseWriter{out: answer, workspaceID: claims.WorkspaceID}
	if err := out.comment("retry: 3000\n\n"); err != nil {
		return
	}
	if reset {
		if err := out.comment(fmt.Sprintf("id: %d\nevent: reset\ndata: {\"lastEventId\":%d}\n\n", head, head)); err != nil {
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, realtimeStreamLimit)
	defer cancel()
	keepAlive := time.NewTicker(realtimeKeepAlive)
	defer keepAlive.Stop()
	// What the store holds after last comes first; live events it covered are skipped.
	if last, err = s.catchUp(ctx, out, claims.WorkspaceID, last, -1); err != nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-keepAlive.C:
			if out.comment(": keep-alive\n\n") != nil {
				return
			}
		case reason := <-admitted.end:
			if reason != "" {
				_ = out.comment(fmt.Sprintf("event: revoked\ndata: {\"reason\":%q}\n\n", reason))
			}
			return
		case msg := <-live:
			if realtimeAccessEvents[msg.Header.Get(webhooks.MetaType)] {
				s.answers.nudge()
			}
			version, err := strconv.ParseInt(msg.Header.Get(webhooks.MetaVersion), 10, 64)
			if err != nil || version <= last {
				continue
			}
			// The relay can run behind the store, never ahead of it: a gap is read from
			// the store, up to and including this event.
			if last, err = s.catchUp(ctx, out, claims.WorkspaceID, last, version); err != nil {
				return
			}
		}
	}
}

// lastEventID reads where a reconnecting client stopped.
func lastEventID(r *http.Request) (int64, bool, error) {
	raw := r.Header.Get("Last-Event-ID")
	if raw == "" {
		raw = r.URL.Query().Get("lastEventId")
	}
	if raw == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return 0, false, domain.InvalidField("Last-Event-ID", "must be the id of an event this stream sent")
	}
	return n, true, nil
}

// catchUp sends the workspace stream's events after last from the store, up to until
// (or to its end when until is negative), and returns the last version sent.
func (s *Server) catchUp(ctx context.Context, out *sseWriter, workspaceID uuid.UUID, last, until int64) (int64, error) {
	for {
		events, err := queries.StreamEvents(ctx, s.pool, workspaceID, last, 500)
		if err != nil {
			return last, err
		}
		for _, e := range events {
			if until >= 0 && e.Version > until {
				return last, nil
			}
			if err := out.event(e); err != nil {
				return last, err
			}
			last = e.Version
		}
		if len(events) == 0 { // a read may end before 500, at its bytes (eventstore.ReadStream)
			return last, nil
		}
	}
}

// sseWriter writes Server-Sent Events and sends each at once.
type sseWriter struct {
	out         *answerWriter
	workspaceID uuid.UUID
}

func (o *sseWriter) comment(text string) error {
	if _, err := io.WriteString(o.out, text); err != nil {
		return err
	}
	return o.out.FlushError()
}

// event writes the public events one stored event stands for, each with the body a
// webhook delivery of it would carry (its id is the public event's, Public.ID).
func (o *sseWriter) event(e queries.StreamEvent) error {
	publics, err := webhooks.PublicEvents(e.Type, e.Data)
	if err != nil {
		return err
	}
	for _, p := range publics {
		body, err := webhooks.Body(p.ID(e.ID), p, o.workspaceID, e.RecordedAt)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(o.out, "id: %d\nevent: %s\ndata: %s\n\n", e.Version, p.Name, body); err != nil {
			return err
		}
	}
	if len(publics) == 0 {
		return nil
	}
	if err := o.out.FlushError(); err != nil {
		return errors.Join(errors.New("httpapi: realtime flush"), err)
	}
	return nil
}
