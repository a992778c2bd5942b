package httpapi_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// An instance that cached a workspace before another instance wrote to it must act on
// the current stream at the first try: records created elsewhere are found, a key
// revoked through it stops working, a genuine miss is still a miss, and a change that
// looks like nothing on the stale state is still made.
func TestStaleInstanceActsOnTheCurrentStream(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice") // instance A's cache now holds alice's workspace
	other := env.Instance()
	onB := f.c.On(other)

	wallet := onB.Post("/api/wallets", map[string]any{"name": "Savings"}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	tx := onB.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10, "walletId": f.cash}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	tag := onB.Post("/api/tags", map[string]any{"name": "trip"}).Expect(t, http.StatusOK).Object("tag")["id"].(string)
	key := onB.Post("/api/api-keys", map[string]any{"name": "leaked", "scopes": []string{"*"}}).Expect(t, http.StatusOK)
	keyID, plaintext := key.Object("apiKey")["id"].(string), key.JSON["plaintext"].(string)

	if got := f.c.Patch("/api/wallets/"+wallet, map[string]any{"name": "Rainy day"}).Expect(t, http.StatusOK).Object("wallet")["name"]; got != "Rainy day" {
		t.Fatalf("renamed wallet answers name %v", got)
	}
	f.c.With("Idempotency-Key", "fix").Patch("/api/transactions/"+tx, map[string]any{"amount": 12, "tagId": tag}).Expect(t, http.StatusOK)
	f.c.With("Idempotency-Key", "drop").Delete("/api/transactions/"+tx).Expect(t, http.StatusOK)
	env.Anonymous().With("x-api-key", plaintext).Get("/api/wallets").Expect(t, http.StatusOK)
	f.c.Delete("/api/api-keys/"+keyID).Expect(t, http.StatusOK)
	expectError(t, env.Anonymous().With("x-api-key", plaintext).Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")

	// A miss the stream agrees with is still answered.
	expectError(t, f.c.Patch("/api/wallets/"+uuid.NewString(), map[string]any{"name": "x"}), http.StatusNotFound, "WALLET_NOT_FOUND")
	expectError(t, f.c.Delete("/api/api-keys/"+keyID), http.StatusNotFound, "API_KEY_NOT_FOUND")

	// B renames the wallet; A, which last saw it named "Rainy day", is asked for that
	// name: on its stale state that changes nothing, on the stream it renames.
	onB.Patch("/api/wallets/"+wallet, map[string]any{"name": "Holidays"}).Expect(t, http.StatusOK)
	f.c.Patch("/api/wallets/"+wallet, map[string]any{"name": "Rainy day"}).Expect(t, http.StatusOK)
	if got := onB.Get("/api/wallets/"+wallet).Expect(t, http.StatusOK).Object("wallet")["name"]; got != "Rainy day" {
		t.Fatalf("wallet is named %v after the rename through the stale instance", got)
	}
	if f.balance(t, f.cash) != "100" {
		t.Fatalf("cash balance %s after the expense was deleted, want 100", f.balance(t, f.cash))
	}
}

// The same Idempotency-Key on a write that changes nothing, sent to several instances
// at once: one answer for all, never a 5xx, and the write is recorded once.
func TestConcurrentDuplicatesOfANoOpOnSeveralInstances(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	instances := []*apitest.Env{env, env.Instance(), env.Instance()}
	for round := range 5 {
		key := fmt.Sprintf("same-%d", round)
		answers := make([]*apitest.Response, 12)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Go(func() {
				answers[i] = f.c.On(instances[i%len(instances)]).With("Idempotency-Key", key).
					Patch("/api/wallets/"+f.cash, map[string]any{"name": "Cash"})
			})
		}
		wg.Wait()
		for i, r := range answers {
			if r.Status != http.StatusOK || string(r.Raw) != string(answers[0].Raw) {
				t.Fatalf("round %d, request %d: %d %s; first answer %s", round, i, r.Status, r.Raw, answers[0].Raw)
			}
		}
	}
	var records int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM idempotency_keys WHERE key LIKE 'same-%'`).Scan(&records); err != nil || records != 5 {
		t.Fatalf("%d idempotency records, %v; want 5", records, err)
	}
}
