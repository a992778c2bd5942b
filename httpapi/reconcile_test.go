package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// reconcile posts a reconciliation of a wallet and returns its answer.
func reconcile(t *testing.T, c *apitest.Client, wallet string, body map[string]any) map[string]any {
	t.Helper()
	return c.Post("/api/wallets/"+wallet+"/reconcile", body).Expect(t, http.StatusOK).Object("reconciliation")
}

// A statement reconciled: the difference exact, the transactions up to its date marked
// and those after it not; a marked transaction refuses corrections and deletions, one by
// one and in bulk, with nothing changed, unless the request says allowReconciled; the
// cleared mark alone is taken. An adjustment books the difference; the same date again
// marks nothing. The read models replay to the same rows.
func TestReconcileWallet(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	create := func(body map[string]any) string {
		t.Helper()
		return f.c.Post("/api/transactions", body).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}
	income := create(map[string]any{"type": "income", "amount": 0.05, "walletId": f.cash, "date": "2026-03-01"})
	transfer := create(map[string]any{"type": "transfer", "amount": 10, "walletId": f.bank, "toWalletId": f.cash, "date": "2026-03-02"})
	after := create(map[string]any{"type": "expense", "amount": 3, "walletId": f.cash, "date": "2026-03-20"})
	other := create(map[string]any{"type": "expense", "amount": 4, "walletId": f.bank, "date": "2026-03-03"})

	// Cash through the 10th: 100 + 0.05 + 10.
	r := reconcile(t, f.c, f.cash, map[string]any{"balance": "110.10", "date": "2026-03-10"})
	if r["walletId"] != f.cash || r["date"] != "2026-03-10" || r["statementBalance"] != "110.10" || r["ledgerBalance"] != "110.05" ||
		r["difference"] != "0.05" || num(r["reconciled"]) != "2" || r["adjustment"] != nil {
		t.Fatalf("reconciliation = %v", r)
	}
	reconciled := func(id string) bool {
		t.Helper()
		return f.c.Get("/api/transactions/"+id).Expect(t, http.StatusOK).Object("transaction")["reconciled"] == true
	}
	if !reconciled(income) || !reconciled(transfer) || reconciled(after) || reconciled(other) {
		t.Fatal("the marks are not those of the wallet's transactions up to the date")
	}
	wallet := f.c.Get("/api/wallets/"+f.cash).Expect(t, http.StatusOK).Object("wallet")
	if wallet["reconciledThrough"] != "2026-03-10" || num(wallet["reconciledBalance"]) != "110.1" {
		t.Fatalf("wallet = %v", wallet)
	}
	if bank := f.c.Get("/api/wallets/"+f.bank).Expect(t, http.StatusOK).Object("wallet"); bank["reconciledThrough"] != nil || bank["reconciledBalance"] != nil {
		t.Fatalf("a wallet never reconciled: %v", bank)
	}

	// Refused, and nothing changed.
	before := f.c.Get("/api/transactions/"+income).Expect(t, http.StatusOK).Raw
	e := expectError(t, f.c.With("Idempotency-Key", "fix").Patch("/api/transactions/"+income, map[string]any{"amount": 0.06}),
		http.StatusConflict, "TRANSACTION_RECONCILED")
	if msg := e["message"].(string); !strings.Contains(msg, "reconciled") || !strings.Contains(msg, "allowReconciled=true") {
		t.Errorf("message %q says neither what nor how to override", msg)
	}
	expectError(t, f.c.With("Idempotency-Key", "drop").Delete("/api/transactions/"+transfer), http.StatusConflict, "TRANSACTION_RECONCILED")
	e = expectError(t, f.c.Post("/api/transactions/bulk", map[string]any{"ids": []string{after, income}, "operation": "delete"}),
		http.StatusConflict, "TRANSACTION_RECONCILED")
	if got, _ := e["details"].(map[string]any)["reconciled"].([]any); len(got) != 1 || got[0] != income {
		t.Errorf("details %v, want the reconciled id", e["details"])
	}
	expectError(t, f.c.Post("/api/transactions/bulk", map[string]any{"ids": []string{income}, "operation": "recategorize", "categoryId": f.food}),
		http.StatusConflict, "TRANSACTION_RECONCILED")
	if now := f.c.Get("/api/transactions/"+income).Expect(t, http.StatusOK).Raw; string(now) != string(before) {
		t.Fatalf("a refused change changed the transaction:\n%s\n%s", before, now)
	}
	f.c.Get("/api/transactions/"+after).Expect(t, http.StatusOK) // the bulk deletion deleted nothing
	if f.balance(t, f.cash) != "107.05" || f.balance(t, f.bank) != "986" {
		t.Fatalf("balances cash %s, bank %s after refused changes", f.balance(t, f.cash), f.balance(t, f.bank))
	}
	expectError(t, f.c.With("Idempotency-Key", "bad").Patch("/api/transactions/"+income+"?allowReconciled=yes", map[string]any{"amount": 0.06}),
		http.StatusBadRequest, "VALIDATION_ERROR")

	// The cleared mark alone needs no override; a change that says so is made and keeps
	// the mark.
	f.c.With("Idempotency-Key", "clear").Patch("/api/transactions/"+income, map[string]any{"cleared": true}).Expect(t, http.StatusOK)
	fixed := f.c.With("Idempotency-Key", "fix-anyway").Patch("/api/transactions/"+income+"?allowReconciled=true", map[string]any{"amount": 0.06}).
		Expect(t, http.StatusOK).Object("transaction")
	if num(fixed["amount"]) != "0.06" || fixed["reconciled"] != true || fixed["cleared"] != true {
		t.Fatalf("corrected anyway: %v", fixed)
	}
	gone := create(map[string]any{"type": "expense", "amount": 1, "walletId": f.cash, "date": "2026-03-05"})
	reconcile(t, f.c, f.cash, map[string]any{"balance": "109.06", "date": "2026-03-05"})
	f.c.With("Idempotency-Key", "drop-anyway").Delete("/api/transactions/"+gone+"?allowReconciled=true").Expect(t, http.StatusOK)
	f.c.Post("/api/transactions/bulk", map[string]any{"ids": []string{income}, "operation": "recategorize", "categoryId": f.food,
		"allowReconciled": true}).Expect(t, http.StatusOK)

	// Cash through the 10th is now 110.06: the adjustment books 0.04 of income.
	r = reconcile(t, f.c, f.cash, map[string]any{"balance": "110.10", "date": "2026-03-10", "adjust": true})
	adj, _ := r["adjustment"].(map[string]any)
	if r["ledgerBalance"] != "110.10" || r["difference"] != "0.00" || num(r["reconciled"]) != "1" || adj == nil ||
		adj["type"] != "income" || num(adj["amount"]) != "0.04" || adj["date"] != "2026-03-10" || adj["concept"] != "Statement reconciliation" ||
		adj["cleared"] != true || adj["reconciled"] != true || adj["walletId"] != f.cash {
		t.Fatalf("adjusted reconciliation = %v", r)
	}
	if shown := f.c.Get("/api/transactions/"+adj["id"].(string)).Expect(t, http.StatusOK).Object("transaction"); !sameJSON(t, mustJSON(t, shown), mustJSON(t, adj)) {
		t.Errorf("the adjustment answered %v, shown %v", adj, shown)
	}
	r = reconcile(t, f.c, f.cash, map[string]any{"balance": "110.10", "date": "2026-03-10", "adjust": true})
	if num(r["reconciled"]) != "0" || r["ledgerBalance"] != "110.10" || r["difference"] != "0.00" || r["adjustment"] != nil {
		t.Fatalf("the same date again: %v", r)
	}
	// A negative statement, sent as a number, and one lower than the ledger.
	r = reconcile(t, f.c, f.dollar, map[string]any{"balance": -12.5, "date": "2026-03-10"})
	if r["statementBalance"] != "-12.5" || r["ledgerBalance"] != "0" || r["difference"] != "-12.5" || num(r["reconciled"]) != "0" {
		t.Fatalf("negative statement: %v", r)
	}

	// The audit log shows the reconciliation and the change made anyway.
	entries := f.c.Get("/api/audit?entity=wallet&action=update").Expect(t, http.StatusOK).List("entries")
	if !slices.ContainsFunc(entries, func(e map[string]any) bool {
		c, _ := e["changes"].(map[string]any)
		return e["entityId"] == f.cash && c["reconciledThrough"] != nil
	}) {
		t.Errorf("no audit entry of the reconciliation: %v", entries)
	}

	// Bad input.
	for _, body := range []map[string]any{{"balance": "1"}, {"date": "2026-03-10"}, {"balance": "1.2.3", "date": "2026-03-10"},
		{"balance": "1.00001", "date": "2026-03-10"}, {"balance": "1", "date": "10/03/2026"}, {"balance": "1", "date": "2026-03-10", "adjust": "yes"}} {
		if fields := fieldErrors(t, f.c.Post("/api/wallets/"+f.cash+"/reconcile", body)); len(fields) != 1 {
			t.Errorf("%v: fields %v", body, fields)
		}
	}
	expectError(t, f.c.Post("/api/wallets/"+f.food+"/reconcile", map[string]any{"balance": "1", "date": "2026-03-10"}), http.StatusNotFound, "WALLET_NOT_FOUND")
	f.c.Delete("/api/wallets/"+f.dollar).Expect(t, http.StatusOK)
	expectError(t, f.c.Post("/api/wallets/"+f.dollar+"/reconcile", map[string]any{"balance": "1", "date": "2026-03-10"}), http.StatusNotFound, "WALLET_NOT_FOUND")

	replayReproduces(t, env)
}

// A transaction reconciled through one instance is refused on another that cached the
// workspace before.
func TestReconciledTransactionIsRefusedOnAnotherInstance(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	onB := f.c.On(env.Instance())
	tx := onB.Post("/api/transactions", map[string]any{"type": "expense", "amount": 2.5, "walletId": f.cash, "date": "2026-03-01"}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	r := reconcile(t, f.c, f.cash, map[string]any{"balance": "97.50", "date": "2026-03-31"})
	if num(r["reconciled"]) != "1" || r["difference"] != "0.00" {
		t.Fatalf("reconciliation = %v", r)
	}
	expectError(t, onB.With("Idempotency-Key", "b-fix").Patch("/api/transactions/"+tx, map[string]any{"amount": 3}),
		http.StatusConflict, "TRANSACTION_RECONCILED")
	expectError(t, onB.With("Idempotency-Key", "b-drop").Delete("/api/transactions/"+tx), http.StatusConflict, "TRANSACTION_RECONCILED")
	if got := onB.Get("/api/wallets/"+f.cash).Expect(t, http.StatusOK).Object("wallet"); num(got["balance"]) != "97.5" {
		t.Fatalf("cash = %v", got)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
