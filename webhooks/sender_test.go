package webhooks

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// Finding due webhooks reads a few index entries per webhook with pending deliveries,
// not the queue behind each: a receiver down for a day must not slow every look.
func TestDueWebhooksSkipsLongQueues(t *testing.T) {
	ctx := t.Context()
	pool := testdb.Pool(t)
	ws := uuid.New()
	slow, due, later, paused := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for i, h := range []uuid.UUID{slow, due, later, paused} {
		if _, err := pool.Exec(ctx, `INSERT INTO webhooks (workspace_id, id, name, url, events, active, sealed_secret, created_by,
			created_version, created_at, updated_at) VALUES ($1, $2, 'h', 'https://example.com', '{*}', $3, '\x00', $1, 1, $4, $4)`,
			ws, h, h != paused, now); err != nil {
			t.Fatal(err)
		}
		n, next := 1, now.Add(-time.Second)
		switch h {
		case slow:
			n = 5000 // a long queue, its head due
		case later:
			next = now.Add(time.Minute)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO webhook_deliveries (workspace_id, id, webhook_id, event, body, status, next_attempt_at, created_at)
			SELECT $1, gen_random_uuid(), $2, 'transaction.created', '{}', 'pending', $3, $3 FROM generate_series(1, $4)`,
			ws, h, next, n); err != nil {
			t.Fatal(err, i)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE webhook_deliveries`); err != nil {
		t.Fatal(err)
	}
	s := &Sender{Pool: pool, Now: func() time.Time { return now }}
	got, err := s.dueWebhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	want := []uuid.UUID{slow, due}
	slices.SortFunc(want, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	if !slices.Equal(got, want) {
		t.Fatalf("due %v, want %v", got, want)
	}

	// Deliveries beyond the dispatcher's watermark wait, however due.
	if _, err := pool.Exec(ctx, `UPDATE webhook_deliveries SET stream_seq = 7 WHERE webhook_id = $1`, due); err != nil {
		t.Fatal(err)
	}
	if got, err := s.dueWebhooks(ctx); err != nil || slices.Contains(got, due) {
		t.Fatalf("due %v (%v) with the watermark at 0", got, err)
	}
	s.watermark.Store(7)
	if got, err := s.dueWebhooks(ctx); err != nil || !slices.Contains(got, due) {
		t.Fatalf("due %v (%v) with the watermark at 7", got, err)
	}

	var plan []map[string]any
	if err := pool.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+dueSQL, now, 0).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	if read := rowsRead(plan[0]["Plan"].(map[string]any), "webhook_deliveries"); read > 50 {
		raw, _ := json.MarshalIndent(plan, "", " ")
		t.Fatalf("read %v delivery rows to find the due webhooks:\n%s", read, raw)
	}
}

// rowsRead sums the rows plan nodes returned from a table, over all their loops.
func rowsRead(node map[string]any, table string) float64 {
	total := 0.0
	if node["Relation Name"] == table {
		total += node["Actual Rows"].(float64) * node["Actual Loops"].(float64)
	}
	children, _ := node["Plans"].([]any)
	for _, c := range children {
		total += rowsRead(c.(map[string]any), table)
	}
	return total
}
