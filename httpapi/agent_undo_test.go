package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// auditOf is the audit entries of one record, oldest first.
func auditOf(t *testing.T, c *apitest.Client, entity, id string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range c.Get("/api/audit?entity="+entity+"&pageSize=100").Expect(t, http.StatusOK).List("entries") {
		if e["entityId"] == id {
			out = append([]map[string]any{e}, out...)
		}
	}
	return out
}

// A write through /mcp keeps the key as its actor and the MCP client's name and version
// as its user agent; a REST write with the same key keeps the request's User-Agent.
func TestAgentUndoMCPWritesNameTheClient(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	cash := alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	key, keyID := newKey(t, alice, "transactions:write", "transactions:read")
	session := connectMCP(t, env, key)

	res, got := callTool(t, session, "create_transaction", map[string]any{"type": "expense", "amount": 4, "walletId": cash})
	if res.IsError {
		t.Fatalf("create_transaction: %v", got)
	}
	viaMCP := got["transaction"].(map[string]any)["id"].(string)
	viaREST := key.With("User-Agent", "books-sync/2").Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "walletId": cash}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	for id, want := range map[string]string{viaMCP: "mcp; client=finledger-test 1", viaREST: "books-sync/2"} {
		entries := auditOf(t, alice, "transaction", id)
		if len(entries) != 1 || entries[0]["actorType"] != "api_key" || entries[0]["actorId"] != keyID || entries[0]["userAgent"] != want {
			t.Errorf("audit of %s: %v, want the key %s and the user agent %q", id, entries, keyID, want)
		}
	}
}
