package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// Rules say what a statement's rows are in its preview, a correction offers one, they
// apply to recorded transactions after a dry run, and history suggests them.
func TestRules(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")

	coffee := f.c.Post("/api/rules", map[string]any{"name": "Coffee shops", "conditions": []map[string]any{
		{"field": "payee", "op": "contains", "value": "oxxo"}},
		"actions": map[string]any{"categoryId": f.food, "concept": "Coffee"}}).Expect(t, http.StatusCreated).Object("rule")
	salary := f.c.Post("/api/rules", map[string]any{"name": "Salary", "conditions": []map[string]any{
		{"field": "amount", "op": "between", "value": "1000", "valueTo": "2000"}, {"field": "type", "op": "equals", "value": "income"}},
		"actions": map[string]any{"categoryId": f.rent}}).Expect(t, http.StatusCreated).Object("rule")
	formula := f.c.Post("/api/rules", map[string]any{"name": "Odd payees", "conditions": []map[string]any{
		{"field": "payee", "op": "matches", "value": "^=hyper"}}, "actions": map[string]any{"skip": true}}).Expect(t, http.StatusCreated).Object("rule")
	if coffee["position"] != jsonInt(1) || salary["position"] != jsonInt(2) || formula["position"] != jsonInt(3) {
		t.Fatalf("positions: %v %v %v", coffee["position"], salary["position"], formula["position"])
	}
	for _, bad := range []map[string]any{
		{"name": "x", "conditions": []map[string]any{{"field": "payee", "op": "matches", "value": "(["}}, "actions": map[string]any{"skip": true}},
		{"name": "x", "conditions": []map[string]any{{"field": "amount", "op": "contains", "value": "1"}}, "actions": map[string]any{"skip": true}},
		{"name": "x", "conditions": []map[string]any{{"field": "payee", "op": "equals", "value": "a"}}, "actions": map[string]any{}},
		{"name": "x", "conditions": []map[string]any{}, "actions": map[string]any{"skip": true}},
	} {
		expectError(t, f.c.Post("/api/rules", bad), http.StatusBadRequest, "VALIDATION_ERROR")
	}
	expectError(t, f.c.Post("/api/rules", map[string]any{"name": "x", "conditions": []map[string]any{{"field": "payee", "op": "equals", "value": "a"}},
		"actions": map[string]any{"categoryId": "0195f3a2-0000-7000-8000-000000000001"}}), http.StatusNotFound, "CATEGORY_NOT_FOUND")

	// In a preview.
	rows := importRows(t, uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated))
	if rows[0]["ruleId"] != salary["id"] || rows[0]["categoryId"] != f.rent || rows[1]["ruleId"] != coffee["id"] ||
		rows[1]["concept"] != "Coffee" || rows[1]["categoryId"] != f.food || rows[2]["ruleId"] != formula["id"] || rows[2]["decision"] != "skip" {
		t.Fatalf("rows = %v", rows)
	}

	// A correction of a row's category offers a rule.
	id := uploadStatement(f.c, f.bank, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	offered := f.c.Patch("/api/imports/"+id+"/rows/0", map[string]any{"categoryId": f.food}).Expect(t, http.StatusOK).Object("suggestedRule")
	if offered["name"] != "Salary ACME" || offered["actions"].(map[string]any)["categoryId"] != f.food {
		t.Fatalf("offered rule = %v", offered)
	}

	// On recorded transactions: a dry run, then one command.
	var recorded []string
	for range 3 {
		recorded = append(recorded, f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 3, "walletId": f.cash,
			"concept": "OXXO Reforma"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string))
	}
	dry := f.c.Post("/api/rules/apply", map[string]any{}).Expect(t, http.StatusOK).JSON
	if dry["dryRun"] != true || len(dry["changes"].([]any)) != 3 || dry["applied"] != jsonInt(0) {
		t.Fatalf("dry run = %v", dry)
	}
	if got := f.c.Get("/api/transactions/"+recorded[0]).Expect(t, http.StatusOK).Object("transaction"); got["categoryId"] != nil {
		t.Fatalf("a dry run changed %v", got)
	}
	applied := f.c.Post("/api/rules/apply", map[string]any{"dryRun": false, "ruleIds": []string{coffee["id"].(string)}}).Expect(t, http.StatusOK).JSON
	if applied["applied"] != jsonInt(3) {
		t.Fatalf("apply = %v", applied)
	}
	for _, id := range recorded {
		if got := f.c.Get("/api/transactions/"+id).Expect(t, http.StatusOK).Object("transaction"); got["categoryId"] != f.food || got["concept"] != "Coffee" {
			t.Fatalf("applied to %v", got)
		}
	}
	if again := f.c.Post("/api/rules/apply", map[string]any{"dryRun": false}).Expect(t, http.StatusOK).JSON; again["applied"] != jsonInt(0) {
		t.Fatalf("a second apply = %v", again)
	}

	// Suggestions from history: a concept seen three times with one category.
	for range 3 {
		f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 9, "concept": "Netflix", "categoryId": f.rent}).Expect(t, http.StatusCreated)
	}
	suggested := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, s := range f.c.Get("/api/rules/suggestions").Expect(t, http.StatusOK).List("suggestions") {
			out[s["name"].(string)] = s
		}
		return out
	}
	// The coffees the rule recategorised are no rule's payee ("Coffee"): they are suggested too.
	if got := suggested(); len(got) != 2 || got["Netflix"]["transactions"] != jsonInt(3) || got["Coffee"] == nil {
		t.Fatalf("suggestions = %v", got)
	}
	netflix := suggested()["Netflix"]
	f.c.Post("/api/rules", map[string]any{"name": "Netflix", "conditions": netflix["conditions"], "actions": netflix["actions"]}).Expect(t, http.StatusCreated)
	if got := suggested(); len(got) != 1 || got["Netflix"] != nil {
		t.Fatalf("suggestions once a rule covers Netflix = %v", got)
	}

	// Changed, reordered and deleted.
	expectError(t, f.c.Patch("/api/rules/"+formula["id"].(string), map[string]any{"position": 0.5}), http.StatusBadRequest, "VALIDATION_ERROR")
	first := f.c.Patch("/api/rules/"+formula["id"].(string), map[string]any{"position": 1, "name": "Formulas"}).Expect(t, http.StatusOK).Object("rule")
	if first["name"] != "Formulas" || first["position"] != jsonInt(1) || len(first["conditions"].([]any)) != 1 {
		t.Fatalf("changed rule = %v", first)
	}
	f.c.Delete("/api/rules/"+salary["id"].(string)).Expect(t, http.StatusOK)
	expectError(t, f.c.Delete("/api/rules/"+salary["id"].(string)), http.StatusNotFound, "RULE_NOT_FOUND")
	if list := f.c.Get("/api/rules").Expect(t, http.StatusOK).List("rules"); len(list) != 3 || list[0]["name"] != "Formulas" {
		t.Fatalf("rules = %v", list)
	}
}
