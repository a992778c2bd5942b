package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

// snapshot reads every read-model table as JSON rows in a stable order.
func snapshot(t *testing.T, env *apitest.Env) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range projections.Tables {
		id := pgx.Identifier{table}.Sanitize()
		rows, err := env.Pool.Query(context.Background(), `SELECT to_jsonb(t)::text FROM `+id+` t ORDER BY to_jsonb(t)::text`)
		if err != nil {
			t.Fatal(err)
		}
		out[table], err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// replayReproduces replays the log into the read models and verifies them: the rows
// after the replay must be those before it, and verify must find no row on one side
// only. It returns the rows as they were, the events replayed and verify's differences.
func replayReproduces(t *testing.T, env *apitest.Env) (map[string][]string, int, []projections.Difference) {
	t.Helper()
	before := snapshot(t, env)
	n, err := projections.Rebuild(context.Background(), env.Pool)
	if err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, env)
	for _, table := range projections.Tables {
		if !reflect.DeepEqual(before[table], after[table]) {
			t.Errorf("%s differs after replay:\nbefore %v\nafter  %v", table, before[table], after[table])
		}
	}
	return before, n, replayAgrees(t, env.Pool)
}

func TestReplayReproducesTheReadModels(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	newLedger(t, env, "bob")
	tag := f.c.Post("/api/tags", map[string]any{"name": "Trip"}).Expect(t, http.StatusOK).Object("tag")["id"].(string)
	id := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 12.34, "categoryId": f.food, "tagId": tag}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	f.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": 100, "destinationAmount": 5.5, "walletId": f.bank, "toWalletId": f.dollar}).
		Expect(t, http.StatusCreated)
	f.c.With("Idempotency-Key", "a").Patch("/api/transactions/"+id, map[string]any{"amount": 20, "walletId": f.bank, "concept": "fixed"}).Expect(t, http.StatusOK)
	gone := f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 7}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	f.c.With("Idempotency-Key", "b").Delete("/api/transactions/"+gone).Expect(t, http.StatusOK)
	f.c.Patch("/api/wallets/"+f.cash, map[string]any{"balance": 250, "name": "Wallet"}).Expect(t, http.StatusOK)
	f.c.Patch("/api/categories/"+f.rent, map[string]any{"tagId": tag}).Expect(t, http.StatusOK)
	f.c.Delete("/api/categories/"+f.food).Expect(t, http.StatusOK)
	f.c.Delete("/api/wallets/"+f.dollar).Expect(t, http.StatusOK)

	// Access records: a team with a member and an invitation, a revoked key, a profile.
	team := f.c.Post("/api/workspaces", map[string]any{"name": "Acme"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	f.c.Post("/api/workspaces/"+team+"/members", map[string]any{"email": "bob@example.com", "role": "reader"}).Expect(t, http.StatusOK)
	f.c.Post("/api/workspaces/"+team+"/members", map[string]any{"email": "zed@example.com", "role": "admin"}).Expect(t, http.StatusOK)
	keyID := f.c.Post("/api/api-keys", map[string]any{"name": "k", "scopes": []string{"*"}}).Expect(t, http.StatusOK).Object("apiKey")["id"].(string)
	f.c.Delete("/api/api-keys/"+keyID).Expect(t, http.StatusOK)
	f.c.Patch("/api/me", map[string]any{"firstName": "Alice", "theme": "dark"}).Expect(t, http.StatusOK)
	// Webhooks: one changed, one deleted, one left as made.
	hook := f.c.Post("/api/webhooks/outbound", map[string]any{"name": "a", "url": "https://a.example.com/h"}).Expect(t, http.StatusOK).Object("webhook")["id"].(string)
	f.c.Patch("/api/webhooks/outbound/"+hook, map[string]any{"events": []string{"transaction.created"}, "active": false}).Expect(t, http.StatusOK)
	f.c.Post("/api/webhooks/outbound/"+hook+"/rotate-secret", nil).Expect(t, http.StatusOK)
	goneHook := f.c.Post("/api/webhooks/outbound", map[string]any{"name": "b", "url": "https://b.example.com/h"}).Expect(t, http.StatusOK).Object("webhook")["id"].(string)
	f.c.Delete("/api/webhooks/outbound/"+goneHook).Expect(t, http.StatusOK)
	f.c.Post("/api/webhooks/outbound", map[string]any{"name": "c", "url": "https://c.example.com/h", "events": []string{"*"}}).Expect(t, http.StatusOK)
	// Import profiles: one replaced, one deleted, one left as made.
	profile := f.c.Post("/api/import-profiles", map[string]any{"name": "Banco", "walletId": f.bank,
		"mapping": map[string]any{"date": 1, "amount": 2, "delimiter": ";"}}).Expect(t, http.StatusCreated).Object("profile")["id"].(string)
	f.c.Put("/api/import-profiles/"+profile, map[string]any{"name": "Banco", "mapping": map[string]any{"date": 1, "debit": 2, "credit": 3}}).Expect(t, http.StatusOK)
	goneProfile := f.c.Post("/api/import-profiles", map[string]any{"name": "Old", "mapping": map[string]any{"date": 1, "amount": 2}}).
		Expect(t, http.StatusCreated).Object("profile")["id"].(string)
	f.c.Delete("/api/import-profiles/"+goneProfile).Expect(t, http.StatusOK)
	f.c.Post("/api/import-profiles", map[string]any{"name": "Card", "walletId": f.cash, "mapping": map[string]any{"date": 2, "amount": 1}}).Expect(t, http.StatusCreated)
	// Rules, and statements: one committed with a merge and undone, then committed again.
	rule := f.c.Post("/api/rules", map[string]any{"name": "Acme", "conditions": []map[string]any{{"field": "payee", "op": "contains", "value": "acme"}},
		"actions": map[string]any{"categoryId": f.rent}}).Expect(t, http.StatusCreated).Object("rule")["id"].(string)
	f.c.Patch("/api/rules/"+rule, map[string]any{"name": "Salary"}).Expect(t, http.StatusOK)
	goneRule := f.c.Post("/api/rules", map[string]any{"name": "Odd", "position": 1, "conditions": []map[string]any{{"field": "memo", "op": "equals", "value": "x"}},
		"actions": map[string]any{"skip": true}}).Expect(t, http.StatusCreated).Object("rule")["id"].(string)
	f.c.Delete("/api/rules/"+goneRule).Expect(t, http.StatusOK)
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 45.5, "walletId": f.cash, "concept": "Oxxo coffee", "date": "2026-03-02"}).
		Expect(t, http.StatusCreated)
	for round := range 2 {
		imp := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
		f.c.Post("/api/imports/"+imp+"/commit", nil).Expect(t, http.StatusOK)
		if round == 0 {
			f.c.Post("/api/imports/"+imp+"/undo", nil).Expect(t, http.StatusOK)
		}
	}
	// The chat channel: a link, a fingerprint, a transaction recorded through it.
	phone := linkPhone(t, env, f.c, "+5215512345678", func(c map[string]any) { c["identityKeyHash"] = "fp" })
	phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 3}).Expect(t, http.StatusCreated)

	before, n, diffs := replayReproduces(t, env)
	if len(before["transactions"]) != 9 || len(before["rules"]) != 1 || len(before["wallets"]) != 6 || len(before["users"]) != 2 || len(before["api_keys"]) != 1 ||
		len(before["workspace_invitations"]) != 1 || len(before["audit_log"]) < 20 || len(before["whatsapp_links"]) != 1 || len(before["import_profiles"]) != 2 ||
		!strings.Contains(before["whatsapp_links"][0], `"last_transaction_id": "`) {
		t.Fatalf("unexpected fixture size: %d transactions, %d wallets", len(before["transactions"]), len(before["wallets"]))
	}
	if n == 0 {
		t.Fatal("replayed no events")
	}
	for _, d := range diffs {
		if d.LiveRows != int64(len(before[d.Table])) {
			t.Errorf("verify counted %d live rows of %s, want %d", d.LiveRows, d.Table, len(before[d.Table]))
		}
	}
	// Verify notices a read model that drifted from the log.
	if _, err := env.Pool.Exec(context.Background(), `UPDATE wallets SET balance = balance + 1 WHERE id = $1`, f.bank); err != nil {
		t.Fatal(err)
	}
	diffs, err := projections.Verify(context.Background(), env.Pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		if d.Table == "wallets" && (d.LiveOnly != 1 || d.ReplayOnly != 1) {
			t.Errorf("tampered wallet not reported: %+v", d)
		}
	}
}

// A replay gathers the new rows of a batch of the log into one insert per table, and
// the daily totals and wallet balances of the whole log into one write per row. Its
// read models must still be exactly those the commands wrote one at a time: events of
// two workspaces interleaved; amounts of one day and category added up; corrections,
// deletions and bulk operations reading rows gathered before them; wallets changed
// between their postings; goal and debt effects.
func TestReplayOfInterleavedWorkspacesEqualsTheCommands(t *testing.T) {
	env := apitest.Start(t)
	alice, bob := newLedger(t, env, "alice"), newLedger(t, env, "bob")
	keys := 0
	keyed := func(f ledgerFixture) *apitest.Client {
		keys++
		return f.c.With("Idempotency-Key", "interleaved-"+strconv.Itoa(keys))
	}
	done := func(r *apitest.Response, status int) *apitest.Response {
		t.Helper()
		r.Expect(t, status)
		env.Clock.Set(env.Clock.Now().Add(time.Minute))
		return r
	}
	created := map[string][]string{}
	for i := range 6 {
		for _, f := range []ledgerFixture{alice, bob} {
			tx := done(f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": []float64{12.5, 7, 0.1, 3.25}[i%4],
				"categoryId": f.food, "date": "2026-03-0" + strconv.Itoa(1+i%2)}), http.StatusCreated).Object("transaction")
			created[f.cash] = append(created[f.cash], tx["id"].(string))
			done(f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 100, "walletId": f.bank, "date": "2026-03-01"}),
				http.StatusCreated)
		}
	}
	a, b := created[alice.cash], created[bob.cash]
	done(keyed(alice).Patch("/api/transactions/"+a[0], map[string]any{"amount": 20.75, "date": "2026-03-05", "categoryId": alice.rent}), http.StatusOK)
	done(keyed(bob).Delete("/api/transactions/"+b[1]), http.StatusOK)
	done(keyed(alice).Post("/api/transactions/bulk", map[string]any{"ids": []string{a[2], a[3]}, "operation": "recategorize", "categoryId": alice.rent}),
		http.StatusOK)
	done(keyed(bob).Post("/api/transactions/bulk", map[string]any{"ids": []string{b[4], b[5]}, "operation": "delete"}), http.StatusOK)
	done(alice.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": 50, "walletId": alice.bank, "toWalletId": alice.cash}),
		http.StatusCreated)
	done(alice.c.Patch("/api/wallets/"+alice.cash, map[string]any{"balance": 500, "name": "Pocket"}), http.StatusOK)
	done(bob.c.Patch("/api/wallets/"+bob.cash, map[string]any{"name": "Pocket"}), http.StatusOK)
	for _, f := range []ledgerFixture{alice, bob} {
		done(f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "categoryId": f.food, "date": "2026-03-01"}),
			http.StatusCreated)
	}
	goalAndDebtHistory(t, alice, env)
	goalAndDebtHistory(t, bob, env)

	replayReproduces(t, env)
}

// Amounts keep the scale they were sent with, in the events as in the read models: a
// replay writes 1.10 where the command wrote 1.10, not 1.1, in every record that holds
// an amount, and verify, which compares the rows as written, tells a scale apart.
func TestReplayKeepsEveryAmountAsWritten(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	n := func(s string) json.Number { return json.Number(s) }
	id := func(r *apitest.Response, object string) string {
		return r.Expect(t, http.StatusOK).Object(object)["id"].(string)
	}
	cash := id(f.c.Post("/api/wallets", map[string]any{"name": "Coins", "balance": n("100.00")}), "wallet")
	f.c.Patch("/api/wallets/"+f.bank, map[string]any{"balance": n("250.50")}).Expect(t, http.StatusOK)
	tx := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": n("1.10"), "walletId": cash, "categoryId": f.food}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": n("0.50"), "walletId": cash}).Expect(t, http.StatusCreated)
	f.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": n("10.00"), "destinationAmount": n("0.50"),
		"walletId": f.bank, "toWalletId": f.dollar}).Expect(t, http.StatusCreated)
	f.c.With("Idempotency-Key", "scale").Patch("/api/transactions/"+tx, map[string]any{"amount": n("2.20")}).Expect(t, http.StatusOK)
	f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": n("100.00"), "alertThreshold": n("1.0"),
		"startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK)
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": n("0.50"), "walletId": cash, "categoryId": f.food}).
		Expect(t, http.StatusCreated)
	goal := id(f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": n("100.00")}), "goal")
	f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": n("0.50"), "walletId": cash}).Expect(t, http.StatusOK)
	f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": n("1.10"), "walletId": f.bank}).Expect(t, http.StatusOK)
	f.c.Post("/api/goals/"+goal+"/withdraw", map[string]any{"amount": n("1.00")}).Expect(t, http.StatusOK)
	debt := id(f.c.Post("/api/debts", map[string]any{"name": "Car", "totalAmount": n("100.00")}), "debt")
	f.c.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": n("1.10")}).Expect(t, http.StatusOK)
	rent := id(f.c.Post("/api/recurrent", map[string]any{"name": "Gym", "amount": n("0.50"), "kind": "expense", "periodicity": "monthly",
		"nextPayment": "2026-03-10"}), "recurring")
	f.c.Post("/api/recurrent/"+rent+"/pay", nil).Expect(t, http.StatusOK)
	f.c.Put("/api/exchange-rates", map[string]any{"rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": n("17.50")}}}).
		Expect(t, http.StatusOK)

	before, _, _ := replayReproduces(t, env)
	for _, held := range [][2]string{{"wallets", `"initial_balance": 100.00`}, {"transactions", `"amount": 2.20`},
		{"transactions", `"destination_amount": 0.50`}, {"budgets", `"alert_threshold": 1.0`}, {"goals", `"target_amount": 100.00`},
		{"goals", `"saved_amount": 0.60`}, {"debts", `"pending_balance": 98.90`}, {"recurring_payments", `"amount": 0.50`},
		{"exchange_rates", `"rate": 17.50`}, {"daily_totals", `"amount": 2.70`}} {
		if !strings.Contains(strings.Join(before[held[0]], "\n"), held[1]) {
			t.Errorf("%s holds no %s:\n%v", held[0], held[1], before[held[0]])
		}
	}

	// A read model holding a number as a history recorded before events kept the
	// scale left it: verify tells it apart, and says how.
	if _, err := env.Pool.Exec(context.Background(), `UPDATE transactions SET amount = trim_scale(amount) WHERE id = $1`, tx); err != nil {
		t.Fatal(err)
	}
	diffs, err := projections.Verify(context.Background(), env.Pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		if d.Table == "transactions" && (d.LiveOnly != 1 || d.ReplayOnly != 1 || !strings.Contains(d.Detail, "1 row(s) differ only in how a value is written")) ||
			d.Table != "transactions" && (d.LiveOnly != 0 || d.ReplayOnly != 0) {
			t.Errorf("verify after the scale changed: %+v", d)
		}
	}
}

// replayAgrees fails the test unless the read models replayed from the log are those the
// commands wrote (projections.Verify), and returns what the verification compared.
func replayAgrees(t *testing.T, pool *pgxpool.Pool) []projections.Difference {
	t.Helper()
	diffs, err := projections.Verify(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		if d.LiveOnly != 0 || d.ReplayOnly != 0 {
			t.Errorf("verify %+v", d)
		}
	}
	return diffs
}
