package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

func TestBudgets(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 20, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	b := f.c.Post("/api/budgets", map[string]any{"name": "Groceries", "categoryId": f.food, "amount": 1000,
		"startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK).Object("budget")
	if b["period"] != "monthly" || b["currency"] != "MXN" || num(b["alertThreshold"]) != "80" || b["periodStart"] != "2026-03-01" ||
		b["periodEnd"] != "2026-03-31" || num(b["spent"]) != "0" || b["active"] != true {
		t.Fatalf("budget %v", b)
	}
	id := b["id"].(string)
	spend := func(amount float64, date, category string) string {
		return f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": amount, "date": date, "categoryId": category}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}
	spend(300, "2026-03-02", f.food)
	big := spend(550.5, "2026-03-19", f.food)
	spend(99, "2026-02-28", f.food) // last period
	spend(77, "2026-03-05", f.rent) // another category
	f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 5000, "date": "2026-03-03", "categoryId": f.food}).Expect(t, http.StatusCreated)
	get := func() map[string]any { return f.c.Get("/api/budgets/"+id).Expect(t, http.StatusOK).Object("budget") }
	if b := get(); num(b["spent"]) != "850.5" || num(b["remaining"]) != "149.5" || num(b["percentage"]) != "85.05" || b["alertReached"] != true {
		t.Fatalf("after spending: %v", b)
	}
	// Updates and deletions correct the spending.
	f.c.With("Idempotency-Key", "move").Patch("/api/transactions/"+big, map[string]any{"date": "2026-04-01"}).Expect(t, http.StatusOK)
	if b := get(); num(b["spent"]) != "300" || b["alertReached"] != false {
		t.Fatalf("after moving an expense to April: %v", b)
	}
	f.c.With("Idempotency-Key", "del").Delete("/api/transactions/"+big).Expect(t, http.StatusOK)
	env.Clock.Set(time.Date(2026, 4, 2, 18, 0, 0, 0, time.UTC))
	if b := get(); num(b["spent"]) != "0" || b["periodStart"] != "2026-04-01" {
		t.Fatalf("April after deleting its expense: %v", b)
	}
	weekly := f.c.Patch("/api/budgets/"+id, map[string]any{"period": "weekly", "alertThreshold": 50, "startDate": "2026-03-30"}).
		Expect(t, http.StatusOK).Object("budget")
	if weekly["periodStart"] != "2026-03-30" || weekly["periodEnd"] != "2026-04-05" {
		t.Fatalf("weekly %v", weekly)
	}
	if list := f.c.Get("/api/budgets").Expect(t, http.StatusOK).List("budgets"); len(list) != 1 {
		t.Fatalf("budgets %v", list)
	}
	bad := fieldErrors(t, f.c.Post("/api/budgets", map[string]any{"name": "", "categoryId": "x", "amount": -1, "period": "daily",
		"startDate": "2026-13-01", "alertThreshold": "high"}))
	if len(bad) != 7 {
		t.Fatalf("fields %v", bad)
	}
	fieldErrors(t, f.c.Post("/api/budgets", map[string]any{"name": "x", "categoryId": f.food, "amount": 1, "startDate": "2026-02-01", "endDate": "2026-01-01"}))
	fieldErrors(t, f.c.Post("/api/budgets", map[string]any{"name": "x", "categoryId": f.food, "amount": 1, "startDate": "2026-01-01", "endDate": "2026-02-01", "alertThreshold": 101}))
	expectError(t, f.c.Post("/api/budgets", map[string]any{"name": "x", "categoryId": "00000000-0000-0000-0000-000000000001", "amount": 1,
		"startDate": "2026-01-01", "endDate": "2026-02-01"}), http.StatusNotFound, "CATEGORY_NOT_FOUND")
	f.c.Delete("/api/budgets/"+id).Expect(t, http.StatusOK)
	expectError(t, f.c.Get("/api/budgets/"+id), http.StatusNotFound, "BUDGET_NOT_FOUND")
	expectError(t, f.c.Delete("/api/budgets/"+id), http.StatusNotFound, "BUDGET_NOT_FOUND")
}

func TestGoals(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	g := f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 900, "deadline": "2026-12-01"}).Expect(t, http.StatusOK).Object("goal")
	id := g["id"].(string)
	if g["currency"] != "MXN" || num(g["savedAmount"]) != "0" || num(g["progress"]) != "0" {
		t.Fatalf("goal %v", g)
	}
	dep := f.c.Post("/api/goals/"+id+"/deposit", map[string]any{"amount": 100, "walletId": f.cash, "note": "first"}).Expect(t, http.StatusOK)
	if num(dep.Object("goal")["savedAmount"]) != "100" || len(dep.List("transactions")) != 1 || dep.List("transactions")[0]["type"] != "goal_deposit" {
		t.Fatalf("deposit %s", dep.Raw)
	}
	f.c.Post("/api/goals/"+id+"/deposit", map[string]any{"amount": 200, "walletId": f.bank}).Expect(t, http.StatusOK)
	// The generic transactions endpoint records goal movements too.
	f.c.Post("/api/transactions", map[string]any{"type": "goal_deposit", "amount": 0.01, "walletId": f.bank, "goalId": id}).Expect(t, http.StatusCreated)
	if f.balance(t, f.cash) != "0" || f.balance(t, f.bank) != "799.99" {
		t.Fatalf("wallets after deposits: cash %s bank %s", f.balance(t, f.cash), f.balance(t, f.bank))
	}
	got := f.c.Get("/api/goals/"+id).Expect(t, http.StatusOK).Object("goal")
	if num(got["savedAmount"]) != "300.01" || num(got["progress"]) != "33.33" {
		t.Fatalf("goal %v", got)
	}
	// Without a wallet, a withdrawal goes back where the money came from, in proportion:
	// cash funded 100 of 300.01, the bank 200.01.
	w := f.c.Post("/api/goals/"+id+"/withdraw", map[string]any{"amount": 100}).Expect(t, http.StatusOK)
	shares := map[string]string{}
	for _, tr := range w.List("transactions") {
		shares[tr["walletId"].(string)] = num(tr["amount"])
	}
	if shares[f.cash] != "33.33" || shares[f.bank] != "66.67" || num(w.Object("goal")["savedAmount"]) != "200.01" {
		t.Fatalf("split %v, goal %v", shares, w.Object("goal"))
	}
	if f.balance(t, f.cash) != "33.33" || f.balance(t, f.bank) != "866.66" {
		t.Fatalf("wallets after withdrawal: cash %s bank %s", f.balance(t, f.cash), f.balance(t, f.bank))
	}
	fieldErrors(t, f.c.Post("/api/goals/"+id+"/withdraw", map[string]any{"amount": 500}))
	fieldErrors(t, f.c.Post("/api/goals/"+id+"/deposit", map[string]any{"amount": 5}))
	fieldErrors(t, f.c.Post("/api/goals/"+id+"/deposit", map[string]any{"amount": 5, "walletId": f.dollar}))
	fieldErrors(t, f.c.Post("/api/goals", map[string]any{"name": "x", "targetAmount": 0}))
	expectError(t, f.c.Post("/api/goals/00000000-0000-0000-0000-000000000001/deposit", map[string]any{"amount": 5, "walletId": f.cash}),
		http.StatusNotFound, "GOAL_NOT_FOUND")
	expectError(t, f.c.Delete("/api/goals/"+id), http.StatusConflict, "CONFLICT")
	f.c.Post("/api/goals/"+id+"/withdraw", map[string]any{"amount": 200.01, "walletId": f.bank}).Expect(t, http.StatusOK)
	f.c.Patch("/api/goals/"+id, map[string]any{"name": "Big trip", "currency": "USD"}).Expect(t, http.StatusOK)
	if list := f.c.Get("/api/goals").List("goals"); len(list) != 1 || list[0]["name"] != "Big trip" {
		t.Fatalf("goals %v", list)
	}
	f.c.Delete("/api/goals/"+id).Expect(t, http.StatusOK)
	if list := f.c.Get("/api/goals").List("goals"); len(list) != 0 {
		t.Fatalf("deleted goal listed: %v", list)
	}
	if n := len(f.c.Get("/api/transactions?goalId=" + id).List("transactions")); n != 6 {
		t.Fatalf("%d goal movements listed, want 6", n)
	}
}

func TestDebts(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	d := f.c.Post("/api/debts", map[string]any{"name": "Car", "creditor": "Bank", "totalAmount": 1000, "dueDate": "2027-01-01"}).
		Expect(t, http.StatusOK).Object("debt")
	id := d["id"].(string)
	if num(d["pendingBalance"]) != "1000" || num(d["paidAmount"]) != "0" {
		t.Fatalf("debt %v", d)
	}
	// Default wallet pays when none is given.
	p := f.c.Post("/api/debts/"+id+"/payments", map[string]any{"amount": 40, "note": "march"}).Expect(t, http.StatusOK)
	tr := p.List("transactions")[0]
	if num(p.Object("debt")["pendingBalance"]) != "960" || tr["walletId"] != f.cash || tr["type"] != "expense" || tr["debtId"] != id {
		t.Fatalf("payment %s", p.Raw)
	}
	f.c.Post("/api/debts/"+id+"/payments", map[string]any{"amount": 60, "walletId": f.bank}).Expect(t, http.StatusOK)
	if f.balance(t, f.cash) != "60" || f.balance(t, f.bank) != "940" {
		t.Fatal("payments did not lower the wallets")
	}
	fieldErrors(t, f.c.Post("/api/debts/"+id+"/payments", map[string]any{"amount": 901}))
	fieldErrors(t, f.c.Post("/api/debts/"+id+"/payments", map[string]any{"amount": 1, "walletId": f.dollar}))
	fieldErrors(t, f.c.Post("/api/debts", map[string]any{"name": "x", "totalAmount": 10, "pendingBalance": 11}))
	// Correcting and deleting a payment corrects the debt.
	f.c.With("Idempotency-Key", "fix").Patch("/api/transactions/"+tr["id"].(string), map[string]any{"amount": 50}).Expect(t, http.StatusOK)
	if got := num(f.c.Get("/api/debts/" + id).Object("debt")["pendingBalance"]); got != "890" {
		t.Fatalf("pending after correcting a payment: %s", got)
	}
	f.c.With("Idempotency-Key", "del").Delete("/api/transactions/"+tr["id"].(string)).Expect(t, http.StatusOK)
	if got := num(f.c.Get("/api/debts/" + id).Object("debt")["pendingBalance"]); got != "940" {
		t.Fatalf("pending after deleting a payment: %s", got)
	}
	f.c.Patch("/api/debts/"+id, map[string]any{"name": "Car loan", "pendingBalance": 900}).Expect(t, http.StatusOK)
	if list := f.c.Get("/api/debts").List("debts"); len(list) != 1 || num(list[0]["pendingBalance"]) != "900" {
		t.Fatalf("debts %v", list)
	}

	// No wallet at all: 404 and the debt unchanged (spec 4.B rule 6); else the oldest wallet.
	bob := env.As("bob")
	bd := bob.Post("/api/debts", map[string]any{"name": "Loan", "totalAmount": 100}).Expect(t, http.StatusOK).Object("debt")["id"].(string)
	expectError(t, bob.Post("/api/debts/"+bd+"/payments", map[string]any{"amount": 10}), http.StatusNotFound, "WALLET_NOT_FOUND")
	if got := num(bob.Get("/api/debts/" + bd).Object("debt")["pendingBalance"]); got != "100" {
		t.Fatalf("debt changed by a failed payment: %s", got)
	}
	oldest := bob.Post("/api/wallets", map[string]any{"name": "Old", "balance": 50}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	bob.Post("/api/wallets", map[string]any{"name": "New", "balance": 50}).Expect(t, http.StatusOK)
	if w := bob.Post("/api/debts/"+bd+"/payments", map[string]any{"amount": 10}).Expect(t, http.StatusOK).List("transactions")[0]["walletId"]; w != oldest {
		t.Fatalf("paid from %v, want the oldest wallet", w)
	}
	bob.Delete("/api/debts/"+bd).Expect(t, http.StatusOK)
	expectError(t, bob.Post("/api/debts/"+bd+"/payments", map[string]any{"amount": 10}), http.StatusNotFound, "DEBT_NOT_FOUND")
}

func TestRecurringPayments(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	r := f.c.Post("/api/recurrent", map[string]any{"name": "Rent", "amount": 50, "kind": "expense", "periodicity": "monthly",
		"nextPayment": "2026-03-31", "walletId": f.bank, "categoryId": f.rent}).Expect(t, http.StatusOK).Object("recurring")
	id := r["id"].(string)
	if r["active"] != true || r["lastPayment"] != nil {
		t.Fatalf("recurring %v", r)
	}
	// Paying ahead of the due date is allowed once; the cycle is then paid.
	paid := f.c.Post("/api/recurrent/"+id+"/pay", nil).Expect(t, http.StatusOK)
	rec := paid.Object("recurring")
	if rec["nextPayment"] != "2026-04-30" || rec["lastPayment"] != "2026-03-31" || paid.List("transactions")[0]["date"] != "2026-03-10" {
		t.Fatalf("paid %s", paid.Raw)
	}
	expectError(t, f.c.Post("/api/recurrent/"+id+"/pay", nil), http.StatusConflict, "RECURRING_ALREADY_PAID")
	if f.balance(t, f.bank) != "950" {
		t.Fatalf("bank %s", f.balance(t, f.bank))
	}
	// Month ends stay month ends.
	env.Clock.Set(time.Date(2026, 4, 30, 18, 0, 0, 0, time.UTC))
	next := f.c.Post("/api/recurrent/"+id+"/pay", nil).Expect(t, http.StatusOK).Object("recurring")["nextPayment"]
	if next != "2026-05-31" {
		t.Fatalf("after April: %v", next)
	}
	f.c.Patch("/api/recurrent/"+id, map[string]any{"active": false}).Expect(t, http.StatusOK)
	expectError(t, f.c.Post("/api/recurrent/"+id+"/pay", nil), http.StatusConflict, "CONFLICT")
	other := f.c.Post("/api/recurrent", map[string]any{"name": "Note", "amount": 1, "kind": "other", "periodicity": "weekly",
		"nextPayment": "2026-05-01"}).Expect(t, http.StatusOK).Object("recurring")["id"].(string)
	expectError(t, f.c.Post("/api/recurrent/"+other+"/pay", nil), http.StatusConflict, "CONFLICT")
	bad := fieldErrors(t, f.c.Post("/api/recurrent", map[string]any{"name": "", "amount": 0, "kind": "gift", "periodicity": "daily", "nextPayment": "soon"}))
	if len(bad) != 5 {
		t.Fatalf("fields %v", bad)
	}
	if list := f.c.Get("/api/recurrent").List("recurrent"); len(list) != 2 || list[0]["id"] != other {
		t.Fatalf("recurrent %v", list)
	}
	f.c.Delete("/api/recurrent/"+other).Expect(t, http.StatusOK)
	expectError(t, f.c.Get("/api/recurrent/"+other), http.StatusNotFound, "RECURRING_NOT_FOUND")
	if n := len(f.c.Get("/api/transactions?categoryId=" + f.rent).List("transactions")); n != 2 {
		t.Fatalf("%d rent payments", n)
	}
}

// A recurring payment created or resumed owing more than 12 due cycles does not make a
// burst of payments: it skips the oldest at once, and its answer, the audit log and a
// replay say so.
func TestRecurringDatedFarBackSkipsAtOnce(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	r := f.c.Post("/api/recurrent", map[string]any{"name": "Gym", "amount": 25, "kind": "expense", "periodicity": "weekly",
		"nextPayment": "2024-03-12", "walletId": f.bank}).Expect(t, http.StatusOK).Object("recurring")
	skip, _ := r["lastSkip"].(map[string]any)
	if r["nextPayment"] != "2025-12-23" || skip == nil || num(skip["cycles"]) != "93" || skip["firstDue"] != "2024-03-12" || skip["lastDue"] != "2025-12-16" {
		t.Fatalf("created two years back: %v", r)
	}
	if n := len(f.c.Get("/api/transactions?walletId=" + f.bank).List("transactions")); n != 0 {
		t.Fatalf("creating the item paid %d cycles", n)
	}
	entries := f.c.Get("/api/audit?entity=recurring&action=update").List("entries")
	if len(entries) != 1 || entries[0]["actorType"] != "user" || entries[0]["changes"].(map[string]any)["lastSkip"] == nil {
		t.Fatalf("audit %v", entries)
	}
	recent := f.c.Post("/api/recurrent", map[string]any{"name": "Rent", "amount": 500, "kind": "expense", "periodicity": "monthly",
		"nextPayment": "2025-04-10", "walletId": f.bank}).Expect(t, http.StatusOK).Object("recurring")
	if recent["nextPayment"] != "2025-04-10" || recent["lastSkip"] != nil {
		t.Fatalf("twelve cycles due are all kept: %v", recent)
	}

	// Paused, then active again a year on: the update skips what it owes beyond 12.
	id := recent["id"].(string)
	f.c.Patch("/api/recurrent/"+id, map[string]any{"active": false}).Expect(t, http.StatusOK)
	env.Clock.Set(time.Date(2027, 3, 10, 18, 0, 0, 0, time.UTC))
	f.c = env.As("alice")
	resumed := f.c.Patch("/api/recurrent/"+id, map[string]any{"active": true}).Expect(t, http.StatusOK).Object("recurring")
	skip, _ = resumed["lastSkip"].(map[string]any)
	if resumed["nextPayment"] != "2026-04-10" || skip == nil || num(skip["cycles"]) != "12" || skip["lastDue"] != "2026-03-10" {
		t.Fatalf("resumed a year on: %v", resumed)
	}
	replayReproduces(t, env)
}

// Budgets' spending, goals' savings, debts' balances and the daily totals are read
// models: a replay of the log must give them back exactly.
func TestMoneyReadModelsEqualReplay(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	g := f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 900}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	f.c.Post("/api/goals/"+g+"/deposit", map[string]any{"amount": 100, "walletId": f.cash}).Expect(t, http.StatusOK)
	f.c.Post("/api/goals/"+g+"/deposit", map[string]any{"amount": 150, "walletId": f.bank}).Expect(t, http.StatusOK)
	f.c.Post("/api/goals/"+g+"/withdraw", map[string]any{"amount": 99.99}).Expect(t, http.StatusOK)
	d := f.c.Post("/api/debts", map[string]any{"name": "Car", "totalAmount": 1000}).Expect(t, http.StatusOK).Object("debt")["id"].(string)
	pay := f.c.Post("/api/debts/"+d+"/payments", map[string]any{"amount": 40}).Expect(t, http.StatusOK).List("transactions")[0]["id"].(string)
	f.c.With("Idempotency-Key", "x").Patch("/api/transactions/"+pay, map[string]any{"amount": 45, "categoryId": f.food}).Expect(t, http.StatusOK)
	f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 100, "startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK)
	r := f.c.Post("/api/recurrent", map[string]any{"name": "Rent", "amount": 50, "kind": "expense", "periodicity": "weekly", "nextPayment": "2026-03-12"}).
		Expect(t, http.StatusOK).Object("recurring")["id"].(string)
	f.c.Post("/api/recurrent/"+r+"/pay", nil).Expect(t, http.StatusOK)
	before := f.c.Get("/api/budgets").Raw
	replayAgrees(t, env.Pool)
	if _, err := projections.Rebuild(context.Background(), env.Pool); err != nil {
		t.Fatal(err)
	}
	if after := f.c.Get("/api/budgets").Raw; string(after) != string(before) {
		t.Fatalf("budgets before replay %s\nafter %s", before, after)
	}
}
