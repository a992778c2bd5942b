package httpapi_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// A workspace's language is the language of the text the service writes into records:
// the personal workspace follows its owner's profile, a team takes its creator's unless
// the request names another, and a goal's deposit and withdrawal and a debt's payment
// read in it. Workspaces list their language; the audit log records each change of it.
func TestWorkspaceLanguage(t *testing.T) {
	env := apitest.Start(t)
	ana := env.As("ana")
	// concepts records a goal's deposit and withdrawal and a debt's payment, in a
	// wallet of its own, and reads their concepts back, newest first.
	concepts := func(c *apitest.Client, wallet string) []string {
		t.Helper()
		walletID := c.Post("/api/wallets", map[string]any{"name": wallet, "balance": 1000}).Expect(t, http.StatusOK).Object("wallet")["id"]
		goal := c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 400}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
		c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 100, "walletId": walletID}).Expect(t, http.StatusOK)
		c.Post("/api/goals/"+goal+"/withdraw", map[string]any{"amount": 40, "walletId": walletID}).Expect(t, http.StatusOK)
		debt := c.Post("/api/debts", map[string]any{"name": "Loan", "totalAmount": 300}).Expect(t, http.StatusOK).Object("debt")["id"].(string)
		c.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 50, "walletId": walletID}).Expect(t, http.StatusOK)
		var out []string
		for _, tx := range c.Get("/api/transactions?pageSize=3&walletId="+walletID.(string)).Expect(t, http.StatusOK).List("transactions") {
			out = append(out, tx["concept"].(string))
		}
		return out
	}
	languages := func() map[string]string {
		out := map[string]string{}
		for _, w := range ana.Get("/api/workspaces").Expect(t, http.StatusOK).List("workspaces") {
			out[w["name"].(string)] = w["language"].(string)
		}
		return out
	}
	if got := languages()["Personal"]; got != "" {
		t.Fatalf("a new personal workspace's language is %q, want empty (English)", got)
	}
	want := []string{"Payment: Loan", "Withdrawal from Trip", "Deposit to Trip"}
	if got := concepts(ana, "Cash"); !slices.Equal(got, want) {
		t.Fatalf("in English the concepts read %q, want %q", got, want)
	}

	ana.Patch("/api/me", map[string]any{"language": "es-MX"}).Expect(t, http.StatusOK)
	team := ana.Post("/api/workspaces", map[string]any{"name": "Casa"}).Expect(t, http.StatusOK).Object("workspace")
	english := ana.Post("/api/workspaces", map[string]any{"name": "Office", "language": "en"}).Expect(t, http.StatusOK).Object("workspace")
	if got := languages(); got["Personal"] != "es-MX" || got["Casa"] != "es-MX" || got["Office"] != "en" {
		t.Fatalf("the workspaces' languages are %v", got)
	}
	want = []string{"Pago: Loan", "Retiro de Trip", "Depósito a Trip"}
	if got := concepts(ana.With("X-Workspace-Id", team["id"].(string)), "Cash"); !slices.Equal(got, want) {
		t.Fatalf("in a Spanish team the concepts read %q, want %q", got, want)
	}
	if got := concepts(ana.With("X-Workspace-Id", english["id"].(string)), "Cash")[0]; got != "Payment: Loan" {
		t.Fatalf("in a team made in English a payment reads %q", got)
	}
	if got := concepts(ana, "Bank")[0]; got != "Pago: Loan" {
		t.Fatalf("in the personal workspace after the profile turned Spanish a payment reads %q", got)
	}
	var logged bool
	for _, e := range ana.Get("/api/audit?entity=workspace").Expect(t, http.StatusOK).List("entries") {
		c, _ := e["changes"].(map[string]any)["language"].(map[string]any)
		logged = logged || (e["action"] == "update" && c["before"] == "" && c["after"] == "es-MX")
	}
	if !logged {
		t.Fatal("the audit log has no change of the personal workspace's language")
	}
	expectError(t, ana.Post("/api/workspaces", map[string]any{"name": "Long", "language": "es-MX-extra-long"}), http.StatusBadRequest, "VALIDATION_ERROR")
}
