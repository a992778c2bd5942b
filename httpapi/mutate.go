package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// maxIdempotencyKey is the longest Idempotency-Key accepted.
const maxIdempotencyKey = 255

// command is a write request: what to decide and how to answer once it is applied; the
// answer's status and whether the Idempotency-Key header is mandatory are the route's.
type command struct {
	Decide func(*domain.Workspace) ([]domain.Event, error)
	// UserID and DecideUser decide events for a user's own stream (spec 2.8 profile).
	UserID     uuid.UUID
	DecideUser func(*domain.User) ([]domain.Event, error)
	// Open creates a new workspace's stream.
	Open *domain.WorkspaceCreated
	// WorkspaceID overrides the active workspace as the command's workspace.
	WorkspaceID uuid.UUID
	// Answer reads the answer's body once the command has run, in its round trip.
	Answer ledger.Answer
	// Secret holds fields added to the answer for this caller only, never stored for
	// idempotent replays: a key shown once.
	Secret map[string]any
	// Bind, when set, completes the call instead of Decide: a command that also takes
	// or counts something in the call's transaction (ledger.BindAPIKey).
	Bind func(ledger.Call) ledger.Call
}

// handler is the shape of every operation in the route table.
type handler = func(s *Server, w http.ResponseWriter, r *http.Request)

// readRequest reads what a write needs before deciding: the path's id when withID is
// set, and the body. On failure it answers the error itself and reports false.
func readRequest(w http.ResponseWriter, r *http.Request, withID bool) (uuid.UUID, *body, bool) {
	var id uuid.UUID
	var err error
	if withID {
		if id, err = pathID(r, "id"); err != nil {
			writeError(w, r, err)
			return id, nil, false
		}
	}
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return id, nil, false
	}
	return id, b, true
}

// getRecord answers GET of one record of the active workspace by the path's id.
func getRecord[T any](name, notFoundCode string, lookup func(workspaceID, id uuid.UUID) queries.Lookup[T]) handler {
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			writeError(w, r, err)
			return
		}
		v, err := lookup(activeWorkspace(r), id).Get(r.Context(), s.pool)
		if err != nil {
			writeError(w, r, notFoundAs(err, notFoundCode, name+" not found"))
			return
		}
		respond(w, r, map[string]any{name: v})
	}
}

// listRecords answers GET of every active record of a kind under its plural name.
func listRecords[T any](plural string, list func(context.Context, queries.DB, uuid.UUID) ([]T, error)) handler {
	return listing(plural, list, false)
}

// listRecordsAsOf answers as listRecords does, or, given asOf=, with the records as
// they stood then: for kinds whose history the read models keep.
func listRecordsAsOf[T any](plural string, list func(context.Context, queries.DB, uuid.UUID) ([]T, error)) handler {
	return listing(plural, list, true)
}

func listing[T any](plural string, list func(context.Context, queries.DB, uuid.UUID) ([]T, error), past bool) handler {
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		var at *time.Time
		if past {
			q := &query{values: r.URL.Query()}
			if at = s.asOf(q); q.err() != nil {
				writeError(w, r, q.err())
				return
			}
		}
		var v []T
		err := s.readAt(r.Context(), activeWorkspace(r), at, func(db queries.DB, _ domain.Date) (err error) {
			v, err = list(r.Context(), db, activeWorkspace(r))
			return err
		})
		if err != nil {
			writeError(w, r, err)
			return
		}
		respond(w, r, map[string]any{plural: v})
	}
}

// run checks the body's fields, executes a command for the caller and writes its
// answer with the route's status. With an Idempotency-Key the answer is stored with the
// events, and a retry of the same request gets it back with Idempotent-Replayed: true
// instead of a second effect.
func (s *Server) run(w http.ResponseWriter, r *http.Request, b *body, c command) {
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	rt := routeFrom(r.Context())
	p := principalFrom(r.Context())
	idem, err := idempotencyOf(r, p, b)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if idem == nil && rt.Replay == replayKeyRequired {
		writeError(w, r, errorf(http.StatusBadRequest, "IDEMPOTENCY_KEY_REQUIRED", "this operation requires an Idempotency-Key header"))
		return
	}
	status := rt.Status
	if p.Proposes {
		if c, err = s.proposed(r, rt, p, b, c); err != nil {
			writeError(w, r, err)
			return
		}
		status = http.StatusAccepted
	}
	workspaceID := p.Workspace.ID
	if c.WorkspaceID != uuid.Nil {
		workspaceID = c.WorkspaceID
	}
	call := ledger.Call{
		WorkspaceID:   workspaceID,
		Metadata:      p.Metadata,
		Idempotency:   idem,
		Decide:        c.Decide,
		UserID:        c.UserID,
		DecideUser:    c.DecideUser,
		OpenWorkspace: c.Open,
		Answer:        c.Answer,
	}
	if c.Bind != nil {
		call = c.Bind(call)
	}
	res, err := s.ledger.Execute(r.Context(), call)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
		writeRaw(w, status, res.Answer)
		return
	}
	if c.Secret != nil {
		answer, err := withSecret(res.Answer, c.Secret)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeJSON(w, status, answer)
		return
	}
	writeRaw(w, status, res.Answer)
}

// withSecret adds the secret's fields to an answer, an object.
func withSecret(answer []byte, secret map[string]any) (map[string]any, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(answer, &fields); err != nil {
		return nil, fmt.Errorf("httpapi: an answer with a secret must be an object: %w", err)
	}
	out := make(map[string]any, len(fields)+len(secret))
	for k, v := range fields {
		out[k] = v
	}
	for k, v := range secret {
		out[k] = v
	}
	return out, nil
}

// idempotencyOf reads the Idempotency-Key header; nil when there is none.
func idempotencyOf(r *http.Request, p *principal, b *body) (*ledger.Idempotency, error) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		return nil, nil
	}
	if len(key) > maxIdempotencyKey {
		return nil, domain.InvalidField("Idempotency-Key", "must be at most %d characters long", maxIdempotencyKey)
	}
	for _, c := range key {
		if c < 0x20 || c > 0x7e {
			return nil, domain.InvalidField("Idempotency-Key", "must be printable ASCII")
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.Path, r.URL.RawQuery)
	h.Write(b.raw)
	return &ledger.Idempotency{Credential: p.Credential, Key: key, RequestHash: h.Sum(nil)}, nil
}

// activeWorkspace is the id of the workspace the request acts in.
func activeWorkspace(r *http.Request) uuid.UUID { return principalFrom(r.Context()).Workspace.ID }
