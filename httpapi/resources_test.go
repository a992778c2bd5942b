package httpapi_test

import (
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

func TestWallets(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")

	created := alice.Post("/api/wallets", map[string]any{"name": "Cash"}).Expect(t, http.StatusOK).Object("wallet")
	want := map[string]any{"name": "Cash", "type": "cash", "currency": "MXN", "cardColor": "#111827", "isDefault": false,
		"clabe": nil, "provider": nil, "description": nil, "archived": false}
	for k, v := range want {
		if created[k] != v {
			t.Errorf("default %s = %v, want %v", k, created[k], v)
		}
	}
	if created["balance"].(interface{ String() string }).String() != "0" {
		t.Errorf("balance %v", created["balance"])
	}
	id := created["id"].(string)

	bank := alice.Post("/api/wallets", map[string]any{"name": "Bank", "type": "bank_account", "currency": "usd",
		"cardColor": "#AABBCC", "balance": 1234.5678, "clabe": "012345678901234567", "provider": "BBVA", "isDefault": true,
		"description": "payroll"}).Expect(t, http.StatusOK).Object("wallet")
	if bank["currency"] != "USD" || num(bank["balance"]) != "1234.5678" || bank["isDefault"] != true {
		t.Fatalf("bank = %v", bank)
	}

	// Every bad field is reported at once.
	bad := alice.Post("/api/wallets", map[string]any{"name": strings.Repeat("n", 51), "type": "piggy", "currency": "pesos",
		"cardColor": "red", "balance": -1, "clabe": strings.Repeat("1", 41), "provider": 7, "isDefault": "yes", "color": "x"})
	got := fieldErrors(t, bad)
	sort.Strings(got)
	wantFields := []string{"balance", "cardColor", "clabe", "color", "currency", "isDefault", "name", "provider", "type"}
	if !reflect.DeepEqual(got, wantFields) {
		t.Fatalf("fields %v, want %v", got, wantFields)
	}
	if got := fieldErrors(t, alice.Post("/api/wallets", map[string]any{})); !reflect.DeepEqual(got, []string{"name"}) {
		t.Fatalf("missing name: %v", got)
	}
	if got := fieldErrors(t, alice.Post("/api/wallets", map[string]any{"name": "X", "balance": 0.00001})); !reflect.DeepEqual(got, []string{"balance"}) {
		t.Fatalf("too many decimals: %v", got)
	}
	expectError(t, alice.Post("/api/wallets", map[string]any{"name": "cash"}), http.StatusConflict, "CONFLICT")

	list := alice.Get("/api/wallets").Expect(t, http.StatusOK).List("wallets")
	if len(list) != 2 || list[0]["name"] != "Cash" || list[1]["name"] != "Bank" {
		t.Fatalf("list = %v", list)
	}
	if alice.Get("/api/wallets/"+id).Expect(t, http.StatusOK).Object("wallet")["name"] != "Cash" {
		t.Fatal("get by id")
	}
	expectError(t, alice.Get("/api/wallets/00000000-0000-0000-0000-000000000000"), http.StatusNotFound, "WALLET_NOT_FOUND")
	fieldErrors(t, alice.Get("/api/wallets/123"))

	// Patch: rename, take the default flag, raise the initial balance.
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 30, "walletId": id}).Expect(t, http.StatusCreated)
	patched := alice.Patch("/api/wallets/"+id, map[string]any{"name": "Pocket", "isDefault": true, "balance": 100, "description": nil}).
		Expect(t, http.StatusOK).Object("wallet")
	if patched["name"] != "Pocket" || patched["isDefault"] != true || num(patched["initialBalance"]) != "100" || num(patched["balance"]) != "70" {
		t.Fatalf("patched = %v", patched)
	}
	if alice.Get("/api/wallets/" + bank["id"].(string)).Object("wallet")["isDefault"] != false {
		t.Fatal("old default kept its flag")
	}
	if got := fieldErrors(t, alice.Patch("/api/wallets/"+id, map[string]any{"name": nil, "type": nil})); len(got) != 2 {
		t.Fatalf("null name and type: %v", got)
	}
	expectError(t, alice.Patch("/api/wallets/"+id, map[string]any{"currency": "EUR"}), http.StatusConflict, "CONFLICT")

	// Delete archives: gone from the listing, still readable, no new transactions.
	alice.Delete("/api/wallets/"+id).Expect(t, http.StatusOK)
	if list := alice.Get("/api/wallets").List("wallets"); len(list) != 1 || list[0]["name"] != "Bank" {
		t.Fatalf("after archive: %v", list)
	}
	if w := alice.Get("/api/wallets/" + id).Object("wallet"); w["archived"] != true || w["isDefault"] != false {
		t.Fatalf("archived wallet = %v", w)
	}
	expectError(t, alice.Delete("/api/wallets/"+id), http.StatusNotFound, "WALLET_NOT_FOUND")
	expectError(t, alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "walletId": id}), http.StatusNotFound, "WALLET_NOT_FOUND")

	// Another user sees none of it.
	bob := env.As("bob")
	if list := bob.Get("/api/wallets").List("wallets"); len(list) != 0 {
		t.Fatalf("bob sees %v", list)
	}
	expectError(t, bob.Get("/api/wallets/"+id), http.StatusNotFound, "WALLET_NOT_FOUND")
}

func TestCategories(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	tag := alice.Post("/api/tags", map[string]any{"name": "Home"}).Expect(t, http.StatusOK).Object("tag")
	if tag["color"] != "#6b7280" || tag["active"] != true {
		t.Fatalf("tag = %v", tag)
	}
	c := alice.Post("/api/categories", map[string]any{"name": "Food", "tagId": tag["id"]}).Expect(t, http.StatusOK).Object("category")
	if c["icon"] != "tag" || c["color"] != "#6366f1" || c["isDefault"] != false || c["tagId"] != tag["id"] {
		t.Fatalf("category = %v", c)
	}
	id := c["id"].(string)
	got := fieldErrors(t, alice.Post("/api/categories", map[string]any{"name": "", "icon": strings.Repeat("i", 51), "color": "#12345", "tagId": "x"}))
	sort.Strings(got)
	if !reflect.DeepEqual(got, []string{"color", "icon", "name", "tagId"}) {
		t.Fatalf("fields %v", got)
	}
	expectError(t, alice.Post("/api/categories", map[string]any{"name": "Bills", "tagId": "00000000-0000-0000-0000-000000000001"}), http.StatusNotFound, "TAG_NOT_FOUND")
	expectError(t, alice.Post("/api/categories", map[string]any{"name": "FOOD"}), http.StatusConflict, "CONFLICT")

	p := alice.Patch("/api/categories/"+id, map[string]any{"name": "Groceries", "tagId": nil, "color": "#000000"}).Expect(t, http.StatusOK).Object("category")
	if p["name"] != "Groceries" || p["tagId"] != nil || p["color"] != "#000000" {
		t.Fatalf("patched = %v", p)
	}
	alice.Get("/api/categories/"+id).Expect(t, http.StatusOK)
	alice.Delete("/api/categories/"+id).Expect(t, http.StatusOK)
	if list := alice.Get("/api/categories").List("categories"); len(list) != 0 {
		t.Fatalf("archived category listed: %v", list)
	}
	expectError(t, alice.Patch("/api/categories/"+id, map[string]any{"name": "x"}), http.StatusNotFound, "CATEGORY_NOT_FOUND")
	// The name of an archived category is free again.
	alice.Post("/api/categories", map[string]any{"name": "Groceries"}).Expect(t, http.StatusOK)

	if got := fieldErrors(t, alice.Post("/api/tags", map[string]any{"name": strings.Repeat("t", 51)})); !reflect.DeepEqual(got, []string{"name"}) {
		t.Fatalf("tag fields %v", got)
	}
	expectError(t, alice.Post("/api/tags", map[string]any{"name": "home"}), http.StatusConflict, "CONFLICT")
	if list := alice.Get("/api/tags").Expect(t, http.StatusOK).List("tags"); len(list) != 1 || list[0]["name"] != "Home" {
		t.Fatalf("tags = %v", list)
	}
}

// num returns a JSON number's exact digits.
func num(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return "<not a number>"
}
