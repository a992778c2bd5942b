package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/eventstore"
)

// maxIdempotencyKey is the longest Idempotency-Key accepted.
const maxIdempotencyKey = 255

// command is a write request: what to decide and how to answer once it is applied.
type command struct {
	// KeyRequired makes the Idempotency-Key header mandatory.
	KeyRequired bool
	Decide      func(*commands.Workspace) ([]commands.NewEvent, error)
	Status      int
	// Render builds the answer body inside the write transaction.
	Render func(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) (any, error)
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
		Respond: func(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) (commands.Response, error) {
			v, err := c.Render(ctx, tx, events)
			if err != nil {
				return commands.Response{}, err
			}
			data, err := json.Marshal(v)
			if err != nil {
				return commands.Response{}, fmt.Errorf("httpapi: encode answer: %w", err)
			}
			return commands.Response{Status: c.Status, Body: data}, nil
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
