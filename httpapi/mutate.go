package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/queries"
)

// maxIdempotencyKey is the longest Idempotency-Key accepted.
const maxIdempotencyKey = 255

// command is a write request: what to decide and how to answer once it is applied.
type command struct {
	// KeyRequired makes the Idempotency-Key header mandatory.
	KeyRequired bool
	Decide      func(*commands.Workspace) ([]commands.NewEvent, error)
	Status      int
	// Render queues the reads of the answer in the write's batch and returns what builds
	// the answer body once the batch has run.
	Render render
}

// render queues the reads of an answer on a batch and returns what builds the answer.
type render func(ctx context.Context, b *pgx.Batch, events []eventstore.RecordedEvent) func() (any, error)

// renderOne answers with one record under a name, read by a lookup riding in the batch.
func renderOne[T any](name string, lookup func(workspaceID uuid.UUID) queries.Lookup[T]) render {
	return func(ctx context.Context, b *pgx.Batch, _ []eventstore.RecordedEvent) func() (any, error) {
		result := lookup(principalFrom(ctx).Workspace.ID).Queue(b)
		return func() (any, error) {
			v, err := result()
			if err != nil {
				return nil, err
			}
			return map[string]any{name: v}, nil
		}
	}
}

// renderValue answers with a value that needs no read.
func renderValue(v any) render {
	return func(context.Context, *pgx.Batch, []eventstore.RecordedEvent) func() (any, error) {
		return func() (any, error) { return v, nil }
	}
}

// run executes a command for the caller and writes its answer. With an Idempotency-Key
// the answer is stored with the events, and a retry of the same request gets it back
// with Idempotent-Replayed: true instead of a second effect.
func (s *Server) run(w http.ResponseWriter, r *http.Request, b *body, c command) {
	p := principalFrom(r.Context())
	idem, err := idempotencyOf(r, p, b)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if idem == nil && c.KeyRequired {
		writeError(w, r, errorf(http.StatusBadRequest, "IDEMPOTENCY_KEY_REQUIRED", "this operation requires an Idempotency-Key header"))
		return
	}
	res, replayed, err := s.ledger.Execute(r.Context(), commands.Call{
		WorkspaceID: p.Workspace.ID,
		Metadata:    p.Metadata,
		Idempotency: idem,
		Decide:      c.Decide,
		Respond: func(ctx context.Context, b *pgx.Batch, events []eventstore.RecordedEvent) func() (commands.Response, error) {
			body := c.Render(ctx, b, events)
			return func() (commands.Response, error) {
				v, err := body()
				if err != nil {
					return commands.Response{}, err
				}
				data, err := json.Marshal(v)
				if err != nil {
					return commands.Response{}, fmt.Errorf("httpapi: encode answer: %w", err)
				}
				return commands.Response{Status: c.Status, Body: data}, nil
			}
		},
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeRaw(w, res.Status, res.Body)
}

// idempotencyOf reads the Idempotency-Key header; nil when there is none.
func idempotencyOf(r *http.Request, p *principal, b *body) (*commands.Idempotency, error) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		return nil, nil
	}
	if len(key) > maxIdempotencyKey {
		return nil, commands.InvalidField("Idempotency-Key", "must be at most %d characters long", maxIdempotencyKey)
	}
	for _, c := range key {
		if c < 0x20 || c > 0x7e {
			return nil, commands.InvalidField("Idempotency-Key", "must be printable ASCII")
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.Path, r.URL.RawQuery)
	h.Write(b.raw)
	return &commands.Idempotency{Credential: p.Credential, Key: key, RequestHash: h.Sum(nil)}, nil
}
