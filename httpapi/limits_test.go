package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// GET /api/limits serves the limits the API validates with: a field takes exactly the
// length served, one character more is refused; an amount takes the served number of
// integer digits and decimal places, one more of either is refused.
func TestTheServedLimitsAreTheAPIs(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	served := alice.Get("/api/limits").Expect(t, http.StatusOK)
	var limits struct {
		Amount  struct{ MaxIntegerDigits, MaxDecimalPlaces int }
		Lengths map[string]int
	}
	if err := json.Unmarshal(served.Raw, &limits); err != nil {
		t.Fatal(err)
	}
	if limits.Lengths["wallet.name"] != 50 || limits.Amount.MaxIntegerDigits != 15 || limits.Amount.MaxDecimalPlaces != 4 {
		t.Fatalf("limits served: %s", served.Raw)
	}

	cases := []struct{ key, path, field string }{
		{"wallet.name", "/api/wallets", "name"},
		{"category.name", "/api/categories", "name"},
		{"tag.name", "/api/tags", "name"},
		{"goal.name", "/api/goals", "name"},
		{"debt.name", "/api/debts", "name"},
		{"debt.creditor", "/api/debts", "creditor"},
		{"workspace.name", "/api/workspaces", "name"},
	}
	body := func(path, field, value string) map[string]any {
		b := map[string]any{"name": "n" + fmt.Sprint(len(value)) + field, field: value}
		switch path {
		case "/api/goals":
			b["targetAmount"] = 1
		case "/api/debts":
			b["totalAmount"] = 1
		}
		return b
	}
	for _, c := range cases {
		n := limits.Lengths[c.key]
		if n == 0 {
			t.Fatalf("no length served for %s", c.key)
		}
		alice.Post(c.path, body(c.path, c.field, strings.Repeat("é", n))).Expect(t, http.StatusOK)
		res := alice.Post(c.path, body(c.path, c.field, strings.Repeat("é", n+1))).Expect(t, http.StatusBadRequest)
		if !strings.Contains(string(res.Raw), fmt.Sprint(n)) {
			t.Errorf("%s of %d characters: %s", c.key, n+1, res.Raw)
		}
	}

	digits := strings.Repeat("9", limits.Amount.MaxIntegerDigits)
	places := strings.Repeat("1", limits.Amount.MaxDecimalPlaces)
	for amount, status := range map[string]int{
		digits + "." + places: http.StatusOK,
		"9" + digits:          http.StatusBadRequest,
		"1." + places + "1":   http.StatusBadRequest,
	} {
		res := alice.Post("/api/wallets", `{"name":"w`+amount+`","balance":`+amount+`}`)
		if res.Status != status {
			t.Errorf("a balance of %s: %d %s, want %d", amount, res.Status, res.Raw, status)
		}
	}
}
