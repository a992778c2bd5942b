package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// The audit log tells an amount as it was recorded, scale included: 1264.80, not 1264.8,
// whether typed or imported from a statement.
func TestTheAuditLogKeepsAnAmountsScale(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	wallet := alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100, "isDefault": true}).
		Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	tx := alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number("1264.80"), "concept": "rent"}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	alice.With("Idempotency-Key", "fix").Patch("/api/transactions/"+tx, map[string]any{"amount": json.Number("12.50")}).Expect(t, http.StatusOK)
	alice.With("Idempotency-Key", "del").Delete("/api/transactions/"+tx).Expect(t, http.StatusOK)
	entries := alice.Get("/api/audit?entity=transaction&pageSize=10").Expect(t, http.StatusOK).List("entries")
	got := map[string]string{}
	for _, e := range entries {
		data, _ := json.Marshal(e["changes"].(map[string]any)["amount"])
		got[e["action"].(string)] = string(data)
	}
	want := map[string]string{"create": `{"after":"1264.80","before":null}`, "update": `{"after":"12.50","before":"1264.80"}`,
		"delete": `{"after":null,"before":"12.50"}`}
	for action, w := range want {
		if got[action] != w {
			t.Errorf("%s: amount %s, want %s", action, got[action], w)
		}
	}

	imp := uploadStatement(alice, wallet, "Date,Description,Amount,Reference\n2026-03-03,RENT MARCH,-950.10,R1\n").
		Expect(t, http.StatusCreated).Object("import")["id"].(string)
	alice.Post("/api/imports/"+imp+"/commit", nil).Expect(t, http.StatusOK)
	entries = alice.Get("/api/audit?entity=transaction&action=create&pageSize=1").Expect(t, http.StatusOK).List("entries")
	if data, _ := json.Marshal(entries[0]["changes"].(map[string]any)["amount"]); string(data) != `{"after":"950.10","before":null}` {
		t.Errorf("imported: amount %s, want 950.10", data)
	}
}
