package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

func TestAuditLog(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice").With("User-Agent", "finledger-web/1.0")
	wallet := alice.With("X-Request-Id", "req-wallet").Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100, "isDefault": true}).
		Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	alice.Patch("/api/wallets/"+wallet, map[string]any{"name": "Pocket"}).Expect(t, http.StatusOK)
	env.Clock.Set(env.Clock.Now().Add(time.Minute))
	key, keyID := newKey(t, alice, "transactions:write", "transactions:read")
	tx := key.With("User-Agent", "books-sync/2").Post("/api/transactions", map[string]any{"type": "expense", "amount": 10.5, "concept": "lunch"}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	env.Clock.Set(env.Clock.Now().Add(time.Minute))
	alice.With("Idempotency-Key", "fix").Patch("/api/transactions/"+tx, map[string]any{"amount": 12, "concept": "team lunch"}).Expect(t, http.StatusOK)
	alice.With("Idempotency-Key", "del").Delete("/api/transactions/"+tx).Expect(t, http.StatusOK)

	page := alice.Get("/api/audit?pageSize=100").Expect(t, http.StatusOK)
	entries := page.List("entries")
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, e["entity"].(string)+"."+e["action"].(string))
	}
	// The user and their personal workspace are created in one transaction, in either order.
	want := "transaction.delete,transaction.update,transaction.create,api_key.create,wallet.update,wallet.create"
	if got := strings.Join(kinds, ","); !strings.HasPrefix(got, want) || len(kinds) != 8 ||
		!strings.Contains(got, "workspace.create") || !strings.Contains(got, "user.create") {
		t.Fatalf("entries newest first:\n got %s\nwant %s", strings.Join(kinds, ","), want)
	}
	byKind := map[string]map[string]any{}
	for i, e := range entries {
		byKind[kinds[i]] = e
	}
	created := byKind["transaction.create"]
	if created["actorType"] != "api_key" || created["actorId"] != keyID || created["userAgent"] != "books-sync/2" || created["entityId"] != tx {
		t.Fatalf("create entry %v", created)
	}
	if byKind["wallet.create"]["requestId"] != "req-wallet" || byKind["wallet.create"]["userAgent"] != "finledger-web/1.0" {
		t.Fatalf("wallet entry %v", byKind["wallet.create"])
	}
	changes := func(kind string) string {
		data, _ := json.Marshal(byKind[kind]["changes"])
		return string(data)
	}
	if c := changes("transaction.update"); c != `{"amount":{"after":"12","before":"10.5"},"concept":{"after":"team lunch","before":"lunch"}}` {
		t.Fatalf("update changes %s", c)
	}
	if c := changes("wallet.update"); c != `{"name":{"after":"Pocket","before":"Cash"}}` {
		t.Fatalf("wallet update changes %s", c)
	}
	if c := changes("transaction.delete"); !strings.Contains(c, `"amount":{"after":null,"before":"12"}`) {
		t.Fatalf("delete changes %s", c)
	}
	if c := changes("api_key.create"); strings.Contains(c, "hash") || !strings.Contains(c, "fl_live_") {
		t.Fatalf("key changes %s", c)
	}

	// Filters and pages.
	count := func(query string) int {
		r := alice.Get("/api/audit?"+query).Expect(t, http.StatusOK)
		return len(r.List("entries"))
	}
	if n := count("entity=transaction"); n != 3 {
		t.Fatalf("entity filter gave %d", n)
	}
	if n := count("entity=wallet&action=update"); n != 1 {
		t.Fatalf("entity+action filter gave %d", n)
	}
	from := env.Clock.Now().Add(-time.Minute).Format(time.RFC3339)
	if n := count("from=" + from); n != 4 {
		t.Fatalf("from filter gave %d", n)
	}
	to := env.Clock.Now().Add(-2 * time.Minute).Format(time.RFC3339)
	if n := count("to=" + to); n != 4 {
		t.Fatalf("to filter gave %d", n)
	}
	p := alice.Get("/api/audit?pageSize=3&page=2").Expect(t, http.StatusOK)
	if len(p.List("entries")) != 3 || num(p.Object("pagination")["total"]) != "8" || num(p.Object("pagination")["offset"]) != "3" {
		t.Fatalf("page 2: %s", p.Raw)
	}
	bad := fieldErrors(t, alice.Get("/api/audit?action=erase&from=yesterday&pageSize=0&entity="+strings.Repeat("e", 65)))
	if len(bad) != 4 {
		t.Fatalf("fields %v", bad)
	}
	expectError(t, key.Get("/api/audit"), http.StatusForbidden, "FORBIDDEN")
}
