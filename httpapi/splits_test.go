package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// byCategory sums, independently of the service's totals, what the listed live
// expenses of March count under each category: each part of a split one under the
// part's category, the others' whole amount under theirs ("" for none).
func byCategory(t *testing.T, c *apitest.Client) map[string]decimal.Decimal {
	t.Helper()
	sums := map[string]decimal.Decimal{}
	for _, tx := range c.Get("/api/transactions?type=expense&from=2026-03-01&to=2026-03-31&pageSize=100").Expect(t, http.StatusOK).List("transactions") {
		parts := tx["splits"].([]any)
		if len(parts) == 0 {
			category, _ := tx["categoryId"].(string)
			sums[category] = sums[category].Add(decimal.RequireFromString(num(tx["amount"])))
			continue
		}
		whole := decimal.Zero
		for _, p := range parts {
			part := p.(map[string]any)
			category, _ := part["categoryId"].(string)
			amount := decimal.RequireFromString(num(part["amount"]))
			sums[category] = sums[category].Add(amount)
			whole = whole.Add(amount)
		}
		if !whole.Equal(decimal.RequireFromString(num(tx["amount"]))) {
			t.Fatalf("the parts of %v add up to %s", tx, whole)
		}
	}
	return sums
}

// A split expense over HTTP: recorded with its parts, refused when they are wrong with
// nothing written, counted by part in budgets, summaries, reports (JSON, CSV with a line
// per part) and the category filter, corrected, made one category again, seen by another
// instance, refused a recategorisation by the chat channel, and reproduced by verify.
func TestSplitTransactions(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	keys := 0
	keyed := func() *apitest.Client {
		keys++
		return f.c.With("Idempotency-Key", fmt.Sprintf("split-%d", keys))
	}
	household := f.c.Post("/api/categories", map[string]any{"name": "Household"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	tag := f.c.Post("/api/tags", map[string]any{"name": "Gift"}).Expect(t, http.StatusOK).Object("tag")["id"].(string)
	budget := f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 500, "startDate": "2026-01-01",
		"endDate": "2026-12-31"}).Expect(t, http.StatusOK).Object("budget")["id"].(string)
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 40, "categoryId": f.food, "date": "2026-03-02"}).
		Expect(t, http.StatusCreated)

	receipt := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number("130.50"), "walletId": f.cash, "date": "2026-03-05",
		"concept": "Supermercado", "splits": []map[string]any{
			{"amount": json.Number("70.25"), "categoryId": f.food, "concept": "groceries"},
			{"amount": 45, "categoryId": household},
			{"amount": json.Number("15.25"), "tagId": tag, "concept": "a gift", "currency": "MXN"},
		}}).Expect(t, http.StatusCreated).Object("transaction")
	id := receipt["id"].(string)
	parts := receipt["splits"].([]any)
	if receipt["categoryId"] != nil || len(parts) != 3 {
		t.Fatalf("recorded %v", receipt)
	}
	if p := parts[2].(map[string]any); num(p["amount"]) != "15.25" || p["currency"] != "MXN" || p["tagId"] != tag || p["categoryId"] != nil ||
		p["concept"] != "a gift" {
		t.Fatalf("part 2 = %v", p)
	}
	if f.balance(t, f.cash) != "-70.5" {
		t.Fatalf("cash after the receipt: %s", f.balance(t, f.cash))
	}

	// Wrong parts: each refused, nothing written.
	count := func() int {
		return len(f.c.Get("/api/transactions?pageSize=100").Expect(t, http.StatusOK).List("transactions"))
	}
	before := count()
	bob := env.As("bob")
	bobCategory := bob.Post("/api/categories", map[string]any{"name": "Bob's"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	split := func(parts ...map[string]any) map[string]any {
		if parts == nil {
			parts = []map[string]any{} // sent empty, not null
		}
		return map[string]any{"type": "expense", "amount": 100, "date": "2026-03-06", "splits": parts}
	}
	short := expectError(t, f.c.Post("/api/transactions", split(map[string]any{"amount": 60, "categoryId": f.food},
		map[string]any{"amount": json.Number("39.99")})), http.StatusBadRequest, "VALIDATION_ERROR")
	if !strings.Contains(string(mustJSON(t, short)), "0.01 less") {
		t.Fatalf("a sum short of the amount: %v", short)
	}
	for name, body := range map[string]map[string]any{
		"no parts":          split(),
		"one part":          split(map[string]any{"amount": 100, "categoryId": f.food}),
		"another currency":  split(map[string]any{"amount": 50, "currency": "USD"}, map[string]any{"amount": 50}),
		"a part of zero":    split(map[string]any{"amount": 0}, map[string]any{"amount": 100}),
		"no amount":         split(map[string]any{"categoryId": f.food}, map[string]any{"amount": 100}),
		"beside a category": merged(split(map[string]any{"amount": 50}, map[string]any{"amount": 50}), map[string]any{"categoryId": f.food}),
		"a transfer": merged(split(map[string]any{"amount": 50}, map[string]any{"amount": 50}), map[string]any{"type": "transfer",
			"toWalletId": f.bank}),
	} {
		if r := f.c.Post("/api/transactions", body); r.Status != http.StatusBadRequest || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	expectError(t, f.c.Post("/api/transactions", split(map[string]any{"amount": 50, "categoryId": bobCategory}, map[string]any{"amount": 50})),
		http.StatusNotFound, "CATEGORY_NOT_FOUND")
	if after := count(); after != before {
		t.Fatalf("refused splits wrote %d transactions", after-before)
	}

	// Counted by part, as summed from the parts themselves.
	check := func(c *apitest.Client, when string) {
		t.Helper()
		want := byCategory(t, c)
		if spent := num(c.Get("/api/budgets/"+budget).Expect(t, http.StatusOK).Object("budget")["spent"]); spent != want[f.food].String() {
			t.Errorf("%s: the food budget spent %s, the parts say %s", when, spent, want[f.food])
		}
		report := c.Get("/api/reports?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK)
		for _, row := range report.List("byCategory") {
			category, _ := row["categoryId"].(string)
			if got := decimal.RequireFromString(num(row["expenses"])); !got.Equal(want[category]) {
				t.Errorf("%s: the report's %s expenses %s, the parts say %s", when, row["name"], got, want[category])
			}
		}
		for category, amount := range want {
			if category == "" {
				continue
			}
			s := c.Get("/api/reports/spending-summary?from=2026-03-01&to=2026-03-31&category="+category).Expect(t, http.StatusOK)
			if got := s.List("totals"); len(got) != 1 || got[0]["total"] != amount.StringFixed(2) {
				t.Errorf("%s: the spending summary of %s: %v, the parts say %s", when, category, got, amount)
			}
		}
	}
	check(f.c, "recorded")

	// The category filter finds the split by its part, and says which.
	found := f.c.Get("/api/transactions?categoryId="+household).Expect(t, http.StatusOK)
	if list := found.List("transactions"); len(list) != 1 || list[0]["id"] != id || !sameInts(list[0]["matchingParts"], 1) ||
		found.Object("pagination")["total"] != jsonInt(1) {
		t.Fatalf("filtered by household: %s", found.Raw)
	}
	if list := f.c.Get("/api/transactions?categoryId="+f.food).Expect(t, http.StatusOK).List("transactions"); len(list) != 2 {
		t.Fatalf("filtered by food: %v", list)
	}

	// The report's CSV: a line per part, each with its amount and category.
	csv := string(f.c.Get("/api/reports?from=2026-03-05&to=2026-03-05&format=csv").Expect(t, http.StatusOK).Raw)
	lines := strings.Split(strings.TrimSpace(csv), "\r\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[0], "split_part,split_concept,transaction_amount") ||
		!strings.Contains(lines[1], ",70.25,MXN,") || !strings.Contains(lines[1], ",Food,") || !strings.HasSuffix(lines[1], ",1,groceries,130.5") ||
		!strings.Contains(lines[2], ",45,MXN,") || !strings.Contains(lines[2], ",Household,") || !strings.HasSuffix(lines[3], ",3,a gift,130.5") {
		t.Fatalf("csv:\n%s", csv)
	}
	pdf := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&format=pdf").Expect(t, http.StatusOK)
	if !strings.HasPrefix(string(pdf.Raw), "%PDF") {
		t.Fatalf("pdf: %.40s", pdf.Raw)
	}

	// Corrections: the amount alone no longer adds up; with the parts it does.
	expectError(t, keyed().Patch("/api/transactions/"+id, map[string]any{"amount": 140}), http.StatusBadRequest, "VALIDATION_ERROR")
	expectError(t, keyed().Patch("/api/transactions/"+id, map[string]any{"categoryId": f.food}), http.StatusBadRequest, "VALIDATION_ERROR")
	expectError(t, keyed().Patch("/api/transactions/"+id, map[string]any{"splits": []any{}}), http.StatusBadRequest, "VALIDATION_ERROR")
	corrected := keyed().Patch("/api/transactions/"+id, map[string]any{"amount": json.Number("140.00"), "splits": []map[string]any{
		{"amount": json.Number("100.00"), "categoryId": f.food}, {"amount": json.Number("40.00"), "categoryId": household}}}).Expect(t, http.StatusOK).Object("transaction")
	if len(corrected["splits"].([]any)) != 2 || num(corrected["amount"]) != "140" {
		t.Fatalf("corrected %v", corrected)
	}
	check(env.Instance().As("alice"), "corrected, read on another instance")
	expectError(t, f.c.Post("/api/transactions/bulk", map[string]any{"ids": []string{id}, "operation": "recategorize", "categoryId": f.rent}),
		http.StatusConflict, "TRANSACTION_SPLIT")

	// The chat channel's last transaction, split since, refuses a recategorisation and
	// takes a deletion.
	phone := linkPhone(t, env, f.c, alicePhone, nil)
	last := phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 20, "walletName": "cash"}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	keyed().Patch("/api/transactions/"+last, map[string]any{"splits": []map[string]any{{"amount": 12, "categoryId": f.food},
		{"amount": 8, "categoryId": household}}}).Expect(t, http.StatusOK)
	check(f.c, "a chat transaction split")
	expectError(t, phone.Patch("/api/whatsapp/last-transaction", map[string]any{"categoryName": "rent"}), http.StatusConflict, "TRANSACTION_SPLIT")
	phone.Post("/api/whatsapp/last-transaction/undo", nil).Expect(t, http.StatusOK)
	check(f.c, "the chat's split undone")

	// One category again.
	whole := keyed().Patch("/api/transactions/"+id, map[string]any{"splits": nil, "categoryId": household}).Expect(t, http.StatusOK).Object("transaction")
	if len(whole["splits"].([]any)) != 0 || whole["categoryId"] != household {
		t.Fatalf("unsplit %v", whole)
	}
	check(f.c, "unsplit")

	// The audit log tells the parts; replay reproduces every read model.
	var told []map[string]any
	for _, e := range f.c.Get("/api/audit?entity=transaction&pageSize=100").Expect(t, http.StatusOK).List("entries") {
		if e["entityId"] == id {
			told = append(told, e)
		}
	}
	if len(told) != 3 || !strings.Contains(string(mustJSON(t, told)), `"splits"`) {
		t.Fatalf("audit %v", told)
	}
	replayAgrees(t, env.Pool)
}

func merged(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// sameInts reports whether a JSON array holds these integers.
func sameInts(v any, want ...int) bool {
	list, _ := v.([]any)
	if len(list) != len(want) {
		return false
	}
	for i, n := range list {
		if num(n) != decimal.NewFromInt(int64(want[i])).String() {
			return false
		}
	}
	return true
}

// A rule that splits by percent: refused when its parts do not add up to 100, applied
// to a statement's row in its preview and to a recorded expense, each part cut to the
// currency's minor unit and the last taking what is left, exactly; a split transaction
// is left as it is.
func TestRulesSplitByPercent(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	rule := func(parts ...map[string]any) map[string]any {
		return map[string]any{"name": "Costco", "conditions": []map[string]any{{"field": "payee", "op": "contains", "value": "costco"}},
			"actions": map[string]any{"splits": parts}}
	}
	food := func(percent any) map[string]any {
		return map[string]any{"percent": percent, "categoryId": f.food, "concept": "groceries"}
	}
	rent := func(percent any) map[string]any { return map[string]any{"percent": percent, "categoryId": f.rent} }
	for name, bad := range map[string]map[string]any{
		"short of 100":   rule(food(70), rent(29.99)),
		"one part":       rule(food(100)),
		"no parts":       rule(),
		"three decimals": rule(food(json.Number("66.667")), rent(json.Number("33.333"))),
		"beside a category": merged(rule(food(50), rent(50)), map[string]any{"actions": map[string]any{"splits": []any{food(50), rent(50)},
			"categoryId": f.food}}),
	} {
		if r := f.c.Post("/api/rules", bad); r.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	f.c.Post("/api/rules", rule(food(json.Number("66.67")), rent(json.Number("33.33")))).Expect(t, http.StatusCreated)

	// A recorded expense of 100.00: 66.67 and 33.33; of 0.10: 0.06 and 0.04.
	big := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number("100.00"), "concept": "Costco Norte",
		"categoryId": f.food, "date": "2026-03-03"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	small := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number("0.10"), "concept": "costco bag",
		"date": "2026-03-04"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	f.c.Post("/api/rules/apply", map[string]any{"dryRun": false}).Expect(t, http.StatusOK)
	for id, want := range map[string][2]string{big: {"66.67", "33.33"}, small: {"0.06", "0.04"}} {
		tx := f.c.Get("/api/transactions/"+id).Expect(t, http.StatusOK).Object("transaction")
		parts := tx["splits"].([]any)
		if len(parts) != 2 || tx["categoryId"] != nil || num(parts[0].(map[string]any)["amount"]) != want[0] ||
			num(parts[1].(map[string]any)["amount"]) != want[1] || parts[1].(map[string]any)["categoryId"] != f.rent {
			t.Fatalf("%s split by the rule: %v", id, tx)
		}
	}
	if again := f.c.Post("/api/rules/apply", map[string]any{"dryRun": false}).Expect(t, http.StatusOK).JSON; again["applied"] != jsonInt(0) {
		t.Fatalf("a second apply = %v", again)
	}

	// A statement's row in its preview, committed as a split transaction.
	csv := "date,amount,description\n2026-03-10,-45.50,COSTCO SUR\n"
	preview := uploadStatement(f.c, f.cash, csv).Expect(t, http.StatusCreated)
	row := importRows(t, preview)[0]
	if parts := row["splits"].([]any); len(parts) != 2 || num(parts[0].(map[string]any)["amount"]) != "30.33" ||
		num(parts[1].(map[string]any)["amount"]) != "15.17" {
		t.Fatalf("the row = %v", row)
	}
	f.c.Post("/api/imports/"+preview.Object("import")["id"].(string)+"/commit", nil).Expect(t, http.StatusOK)
	if got := byCategory(t, f.c); got[f.food].String() != "97.06" || got[f.rent].String() != "48.54" {
		t.Fatalf("by category: %v", got)
	}
}
