package httpapi_test

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

// goalAndDebtHistory records goal and debt movements of every kind: deposits, a split
// withdrawal, a deleted deposit and goal, payments corrected in amount and wallet or
// only in their concept and category, a deleted payment, a payment of a deleted debt
// corrected and deleted. The clock moves between them, so that each record's
// updated_at tells which event touched it last. It returns the goal and the debt left
// steps returns done, which expects a response's status and moves the clock on a
// minute, so that each step of a history has its own moment, and keyed, which gives
// the fixture's client an Idempotency-Key of its own, named after prefix.
func steps(t *testing.T, env *apitest.Env, f ledgerFixture, prefix string) (done func(*apitest.Response, int) *apitest.Response, keyed func() *apitest.Client) {
	keys := 0
	return func(r *apitest.Response, status int) *apitest.Response {
			t.Helper()
			r.Expect(t, status)
			env.Clock.Set(env.Clock.Now().Add(time.Minute))
			return r
		}, func() *apitest.Client {
			keys++
			return f.c.With("Idempotency-Key", prefix+strconv.Itoa(keys))
		}
}

// open, and when the debt's last payment was recategorized.
func goalAndDebtHistory(t *testing.T, f ledgerFixture, env *apitest.Env) (goal, debt string, recategorized time.Time) {
	t.Helper()
	done, keyed := steps(t, env, f, "history-")
	id := func(r *apitest.Response, object string) string { return r.Object(object)["id"].(string) }
	first := func(r *apitest.Response) string { return r.List("transactions")[0]["id"].(string) }

	goal = id(done(f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 900}), http.StatusOK), "goal")
	done(f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 100, "walletId": f.cash}), http.StatusOK)
	done(f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 200, "walletId": f.bank}), http.StatusOK)
	done(f.c.Post("/api/transactions", map[string]any{"type": "goal_deposit", "amount": 0.01, "walletId": f.bank, "goalId": goal}), http.StatusCreated)
	done(f.c.Post("/api/goals/"+goal+"/withdraw", map[string]any{"amount": 100}), http.StatusOK)
	car := id(done(f.c.Post("/api/goals", map[string]any{"name": "Car fund", "targetAmount": 50}), http.StatusOK), "goal")
	dep := first(done(f.c.Post("/api/goals/"+car+"/deposit", map[string]any{"amount": 50, "walletId": f.cash}), http.StatusOK))
	done(keyed().Delete("/api/transactions/"+dep), http.StatusOK)
	done(f.c.Delete("/api/goals/"+car), http.StatusOK)

	debt = id(done(f.c.Post("/api/debts", map[string]any{"name": "Car", "totalAmount": 1000}), http.StatusOK), "debt")
	p1 := first(done(f.c.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 40}), http.StatusOK))
	p2 := first(done(f.c.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 60, "walletId": f.bank}), http.StatusOK))
	done(keyed().Patch("/api/transactions/"+p1, map[string]any{"amount": 50.5, "walletId": f.bank}), http.StatusOK)
	done(keyed().Delete("/api/transactions/"+p1), http.StatusOK)
	done(keyed().Patch("/api/transactions/"+p2, map[string]any{"concept": "fixed"}), http.StatusOK)
	recategorized = env.Clock.Now()
	done(keyed().Post("/api/transactions/bulk", map[string]any{"ids": []string{p2}, "operation": "recategorize", "categoryId": f.food}), http.StatusOK)
	loan := id(done(f.c.Post("/api/debts", map[string]any{"name": "Loan", "totalAmount": 100}), http.StatusOK), "debt")
	p3 := first(done(f.c.Post("/api/debts/"+loan+"/payments", map[string]any{"amount": 10}), http.StatusOK))
	done(f.c.Delete("/api/debts/"+loan), http.StatusOK)
	done(keyed().Patch("/api/transactions/"+p3, map[string]any{"amount": 5}), http.StatusOK)
	done(keyed().Post("/api/transactions/bulk", map[string]any{"ids": []string{p3}, "operation": "delete"}), http.StatusOK)
	done(f.c.Post("/api/goals/"+goal+"/withdraw", map[string]any{"amount": 50, "walletId": f.cash}), http.StatusOK)
	return goal, debt, recategorized
}

// History stored before goal and debt effects travelled in transaction events (no
// "effects" in them) replays to the read models the same history makes today, and a
// workspace folded from it decides as before.
func TestOldShapedGoalAndDebtHistoryReplays(t *testing.T) {
	ctx := context.Background()
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	goal, debt, recategorized := goalAndDebtHistory(t, f, env)
	// Recategorizing a payment changes nothing owed, yet marks the debt updated, as it
	// did when the read model derived the effects itself.
	updated, err := time.Parse(time.RFC3339Nano, f.c.Get("/api/debts/"+debt).Expect(t, http.StatusOK).Object("debt")["updatedAt"].(string))
	if err != nil || !updated.Equal(recategorized) {
		t.Fatalf("debt updated at %v (%v), want %v", updated, err, recategorized)
	}
	before := snapshot(t, env)
	for _, row := range before["audit_log"] {
		if strings.Contains(row, `"effects"`) {
			t.Fatalf("the audit log shows effects: %s", row)
		}
	}

	// Rewrite the log into its old shape, as if every event had been stored before
	// effects travelled in events.
	tag, err := env.Pool.Exec(ctx, `UPDATE events SET data = data - 'effects' WHERE type LIKE 'transaction.%' AND data ? 'effects'`)
	if err != nil {
		t.Fatal(err)
	}
	if n := tag.RowsAffected(); n != 17 {
		t.Fatalf("%d transaction events carried effects, want 17", n)
	}
	replayAgrees(t, env.Pool)
	if _, err := projections.Rebuild(ctx, env.Pool); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, env)
	for _, table := range projections.Tables {
		if !reflect.DeepEqual(before[table], after[table]) {
			t.Errorf("%s differs after replaying the old-shaped log:\nbefore %v\nafter  %v", table, before[table], after[table])
		}
	}

	// Another instance folds the old-shaped stream: a withdrawal without a wallet goes
	// back to what each wallet still has in the goal (bank 133.34, cash 16.67), and a
	// payment is checked against what is still owed (940).
	other := f.c.On(env.Instance())
	shares := map[string]string{}
	for _, tr := range other.Post("/api/goals/"+goal+"/withdraw", map[string]any{"amount": 150.01}).Expect(t, http.StatusOK).List("transactions") {
		shares[tr["walletId"].(string)] = num(tr["amount"])
	}
	if len(shares) != 2 || shares[f.bank] != "133.34" || shares[f.cash] != "16.67" {
		t.Fatalf("withdrawal split %v", shares)
	}
	fieldErrors(t, other.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 940.01}))
	if got := num(other.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 940}).Expect(t, http.StatusOK).Object("debt")["pendingBalance"]); got != "0" {
		t.Fatalf("pending after paying off: %s", got)
	}
	replayAgrees(t, env.Pool)
}
