package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

func TestIncomingWebhook(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	cash := cashWallet(t, alice)
	bank := alice.Post("/api/wallets", map[string]any{"name": "Bank"}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	food := alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	plaintext := alice.Post("/api/api-keys", map[string]any{"name": "shop", "scopes": []string{"transactions:write"}}).
		Expect(t, http.StatusOK).JSON["plaintext"].(string)
	byQuery := env.Anonymous()
	byHeader := env.Anonymous().With("x-api-key", plaintext)
	path := "/api/webhooks/incoming?key=" + url.QueryEscape(plaintext)

	// The key as ?key=, the amount as a string, wallet and category by name.
	tx := byQuery.Post(path, map[string]any{"amount": "12.50", "concept": "Payout", "type": "income", "walletName": "bank",
		"categoryName": "FOOD", "description": "from the shop", "date": "2026-03-01"}).Expect(t, http.StatusOK).Object("transaction")
	if fmt.Sprint(tx["amount"]) != "12.5" || tx["type"] != "income" || tx["walletId"] != bank || tx["categoryId"] != food ||
		tx["date"] != "2026-03-01" || tx["concept"] != "Payout" || tx["description"] != "from the shop" {
		t.Fatalf("transaction %v", tx)
	}
	// The key in the header, the amount as a number, the default wallet and type.
	tx = byHeader.Post("/api/webhooks/incoming", map[string]any{"amount": 3.1, "concept": "Coffee", "categoryId": food}).
		Expect(t, http.StatusOK).Object("transaction")
	if fmt.Sprint(tx["amount"]) != "3.1" || tx["type"] != "expense" || tx["walletId"] != cash || tx["date"] != "2026-03-10" {
		t.Fatalf("transaction %v", tx)
	}
	// A transfer names its destination.
	tx = byHeader.Post("/api/webhooks/incoming", map[string]any{"amount": "5", "concept": "Move", "type": "transfer", "walletId": cash,
		"toWalletId": bank}).Expect(t, http.StatusOK).Object("transaction")
	if tx["toWalletId"] != bank {
		t.Fatalf("transfer %v", tx)
	}

	// Idempotency-Key: a retry gets the same transaction, not a second one.
	retry := byHeader.With("Idempotency-Key", "order-77")
	first := retry.Post("/api/webhooks/incoming", map[string]any{"amount": 9, "concept": "Order 77"}).Expect(t, http.StatusOK)
	again := retry.Post("/api/webhooks/incoming", map[string]any{"amount": 9, "concept": "Order 77"}).Expect(t, http.StatusOK)
	if again.Object("transaction")["id"] != first.Object("transaction")["id"] || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %s", again.Raw)
	}
	if n := len(alice.Get("/api/transactions?search=Order").List("transactions")); n != 1 {
		t.Fatalf("%d transactions for one order", n)
	}

	// Bad bodies name their fields; nothing is written.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"amount": "12,50", "concept": "x"}, "amount"},
		{map[string]any{"amount": "1e3", "concept": "x"}, "amount"},
		{map[string]any{"amount": -4, "concept": "x"}, "amount"},
		{map[string]any{"amount": "0", "concept": "x"}, "amount"},
		{map[string]any{"amount": true, "concept": "x"}, "amount"},
		{map[string]any{"concept": "x"}, "amount"},
		{map[string]any{"amount": 1}, "concept"},
		{map[string]any{"amount": 1, "concept": ""}, "concept"},
		{map[string]any{"amount": 1, "concept": "x", "type": "goal_deposit"}, "type"},
		{map[string]any{"amount": 1, "concept": "x", "type": "transfer"}, "toWalletId"},
		{map[string]any{"amount": 1, "concept": "x", "walletId": cash, "walletName": "Cash"}, "walletName"},
		{map[string]any{"amount": 1, "concept": "x", "walletId": "not-a-uuid"}, "walletId"},
		{map[string]any{"amount": 1, "concept": "x", "date": "10/03/2026"}, "date"},
		{map[string]any{"amount": 1, "concept": "x", "surprise": 1}, "surprise"},
	} {
		if got := fieldErrors(t, byHeader.Post("/api/webhooks/incoming", c.body)); fmt.Sprint(got) != "["+c.field+"]" {
			t.Errorf("%v: fields %v, want %s", c.body, got, c.field)
		}
	}
	expectError(t, byHeader.Post("/api/webhooks/incoming", map[string]any{"amount": 1, "concept": "x", "walletName": "Vault"}),
		http.StatusNotFound, "WALLET_NOT_FOUND")
	expectError(t, byHeader.Post("/api/webhooks/incoming", map[string]any{"amount": 1, "concept": "x", "categoryName": "Toys"}),
		http.StatusNotFound, "CATEGORY_NOT_FOUND")
	if n := len(alice.Get("/api/transactions").List("transactions")); n != 4 {
		t.Fatalf("%d transactions after the refusals, want 4", n)
	}

	// Credentials: none, a key without the scope, a session token in the URL, a key
	// in the URL of another path.
	expectError(t, env.Anonymous().Post("/api/webhooks/incoming", map[string]any{"amount": 1, "concept": "x"}), http.StatusUnauthorized, "UNAUTHORIZED")
	reader := alice.Post("/api/api-keys", map[string]any{"name": "r", "scopes": []string{"transactions:read"}}).JSON["plaintext"].(string)
	expectError(t, byQuery.Post("/api/webhooks/incoming?key="+reader, map[string]any{"amount": 1, "concept": "x"}), http.StatusForbidden, "FORBIDDEN")
	expectError(t, byQuery.Post("/api/webhooks/incoming?key="+env.Token("alice", "alice@example.com"), map[string]any{"amount": 1, "concept": "x"}),
		http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, byQuery.Post("/api/transactions?key="+plaintext, map[string]any{"type": "expense", "amount": 1}), http.StatusUnauthorized, "UNAUTHORIZED")
}
