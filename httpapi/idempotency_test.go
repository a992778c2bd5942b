package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/ledger"
)

// Every write honours Idempotency-Key: the same request replays the first answer with
// no second effect, another request under the key is refused, and keys belong to one
// credential in one workspace.
func TestIdempotencyKeysOnEveryWrite(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	team := alice.Post("/api/workspaces", map[string]any{"name": "Acme"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	countEvents := func() int {
		var n int
		if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	cases := []struct {
		name, method, path string
		body, other        map[string]any
	}{
		{"wallet", "POST", "/api/wallets", map[string]any{"name": "Cash"}, map[string]any{"name": "Bank"}},
		{"category", "POST", "/api/categories", map[string]any{"name": "Food"}, map[string]any{"name": "Rent"}},
		{"tag", "POST", "/api/tags", map[string]any{"name": "Trip"}, map[string]any{"name": "Home"}},
		{"workspace", "POST", "/api/workspaces", map[string]any{"name": "Side"}, map[string]any{"name": "Other"}},
		{"profile", "PATCH", "/api/me", map[string]any{"theme": "dark"}, map[string]any{"theme": "light"}},
		{"member", "POST", "/api/workspaces/" + team + "/members", map[string]any{"email": "x@example.com", "role": "reader"},
			map[string]any{"email": "y@example.com", "role": "reader"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := alice.With("Idempotency-Key", "k-"+c.name)
			first := k.Do(c.method, c.path, c.body).Expect(t, http.StatusOK)
			events := countEvents()
			again := k.Do(c.method, c.path, c.body).Expect(t, http.StatusOK)
			if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Raw) != string(first.Raw) || first.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("replay:\n%s\n%s", first.Raw, again.Raw)
			}
			if countEvents() != events {
				t.Fatal("the replay appended events")
			}
			expectError(t, k.Do(c.method, c.path, c.other), http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
		})
	}

	// The same key is another key for another credential or workspace.
	key, _ := newKey(t, alice, "*")
	key.With("Idempotency-Key", "k-wallet").Post("/api/wallets", map[string]any{"name": "Keyed"}).Expect(t, http.StatusOK)
	r := alice.With("Idempotency-Key", "k-wallet").With("X-Workspace-Id", team).Post("/api/wallets", map[string]any{"name": "Cash"}).Expect(t, http.StatusOK)
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("a key of the personal workspace replayed in the team workspace")
	}
	if n := len(alice.Get("/api/wallets").List("wallets")); n != 2 {
		t.Fatalf("%d wallets in the personal workspace, want Cash and Keyed", n)
	}

	// A failed request stores nothing: the key can be used again once it is fixed.
	k := alice.With("Idempotency-Key", "retry-me")
	fieldErrors(t, k.Post("/api/categories", map[string]any{"name": ""}))
	k.Post("/api/categories", map[string]any{"name": "Fixed"}).Expect(t, http.StatusOK)

	fieldErrors(t, alice.With("Idempotency-Key", strings.Repeat("k", 256)).Post("/api/tags", map[string]any{"name": "x"}))
	fieldErrors(t, alice.With("Idempotency-Key", "tab\there").Post("/api/tags", map[string]any{"name": "x"}))
}

func TestPurges(t *testing.T) {
	env := apitest.StartWith(t, httpapi.Options{RateLimitPerMinute: 600, RateLimitBurst: 10})
	alice := env.As("alice")
	alice.With("Idempotency-Key", "old").Post("/api/tags", map[string]any{"name": "x"}).Expect(t, http.StatusOK)
	ctx := context.Background()
	n, err := ledger.PurgeIdempotencyKeys(ctx, env.Pool, env.Clock.Now().Add(-time.Hour))
	if err != nil || n != 0 {
		t.Fatalf("purged %d fresh keys, %v", n, err)
	}
	if n, err = ledger.PurgeIdempotencyKeys(ctx, env.Pool, env.Clock.Now().Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("purged %d old keys, %v", n, err)
	}
	// Forgotten, the key takes effect again.
	alice.With("Idempotency-Key", "old").Post("/api/tags", map[string]any{"name": "y"}).Expect(t, http.StatusOK)
	if n, err = httpapi.PurgeRateLimits(ctx, env.Pool, env.Clock.Now().Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("purged %d buckets, %v", n, err)
	}
}
