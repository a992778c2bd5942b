package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

type ledgerFixture struct {
	c                  *apitest.Client
	cash, bank, dollar string
	food, rent         string
}

func newLedger(t *testing.T, env *apitest.Env, sub string) ledgerFixture {
	t.Helper()
	c := env.As(sub)
	f := ledgerFixture{c: c}
	f.cash = c.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100, "isDefault": true}).Expect(t, 200).Object("wallet")["id"].(string)
	f.bank = c.Post("/api/wallets", map[string]any{"name": "Bank", "balance": 1000}).Expect(t, 200).Object("wallet")["id"].(string)
	f.dollar = c.Post("/api/wallets", map[string]any{"name": "Dollars", "currency": "USD"}).Expect(t, 200).Object("wallet")["id"].(string)
	f.food = c.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, 200).Object("category")["id"].(string)
	f.rent = c.Post("/api/categories", map[string]any{"name": "Rent"}).Expect(t, 200).Object("category")["id"].(string)
	return f
}

func (f ledgerFixture) balance(t *testing.T, wallet string) string {
	t.Helper()
	return num(f.c.Get("/api/wallets/"+wallet).Expect(t, http.StatusOK).Object("wallet")["balance"])
}

func TestCreateTransactionBothBodyShapes(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")

	// Reference-page shape: destinationWalletId and description.
	tr := f.c.Post("/api/transactions", map[string]any{"amount": 250.75, "type": "transfer", "walletId": f.bank,
		"destinationWalletId": f.cash, "description": "to pocket", "date": "2026-03-01"}).Expect(t, http.StatusCreated).Object("transaction")
	if tr["toWalletId"] != f.cash || tr["destinationWalletId"] != f.cash || tr["description"] != "to pocket" ||
		tr["date"] != "2026-03-01" || num(tr["amount"]) != "250.75" || tr["currency"] != "MXN" {
		t.Fatalf("transfer = %v", tr)
	}
	if f.balance(t, f.bank) != "749.25" || f.balance(t, f.cash) != "350.75" {
		t.Fatalf("after transfer: bank %s cash %s", f.balance(t, f.bank), f.balance(t, f.cash))
	}

	// Machine-readable shape: toWalletId, concept, reference number, attachment.
	tr = f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 0.1, "date": "2026-03-02", "concept": "coffee",
		"description": nil, "categoryId": f.food, "walletId": f.cash, "toWalletId": nil, "goalId": nil, "debtId": nil, "tagId": nil,
		"referenceNumber": "R-1", "attachmentUrl": "https://files.example.com/r1.pdf"}).Expect(t, http.StatusCreated).Object("transaction")
	if tr["concept"] != "coffee" || tr["description"] != "coffee" || tr["referenceNumber"] != "R-1" || tr["categoryId"] != f.food {
		t.Fatalf("expense = %v", tr)
	}
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 0.2, "walletId": f.cash}).Expect(t, http.StatusCreated)
	// Exact decimals: 350.75 - 0.1 - 0.2 is 350.45, not 350.45000000000005.
	if got := f.balance(t, f.cash); got != "350.45" {
		t.Fatalf("cash %s", got)
	}

	// Aliases must agree.
	got := fieldErrors(t, f.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": 1, "toWalletId": f.bank, "destinationWalletId": f.dollar}))
	if !reflect.DeepEqual(got, []string{"destinationWalletId"}) {
		t.Fatalf("alias conflict fields %v", got)
	}
}

func TestCreateTransactionRules(t *testing.T) {
	env := apitest.Start(t)
	// Without a date the transaction takes today's date in Mexico City: at 03:00 UTC on
	// 11 March it is still 10 March there.
	env.Clock.Set(time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	tr := f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 5}).Expect(t, http.StatusCreated).Object("transaction")
	if tr["date"] != "2026-03-10" || tr["walletId"] != f.cash || tr["categoryId"] != nil {
		t.Fatalf("defaults: %v", tr)
	}

	cases := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"zero amount", map[string]any{"type": "expense", "amount": 0}, []string{"amount"}},
		{"negative amount", map[string]any{"type": "expense", "amount": -5}, []string{"amount"}},
		{"amount as a string", map[string]any{"type": "expense", "amount": "5"}, []string{"amount"}},
		{"missing type and amount", map[string]any{}, []string{"amount", "type"}},
		{"unknown type", map[string]any{"type": "gift", "amount": 1}, []string{"type"}},
		{"bad date", map[string]any{"type": "expense", "amount": 1, "date": "2026-02-30"}, []string{"date"}},
		{"date with time", map[string]any{"type": "expense", "amount": 1, "date": "2026-03-01T10:00:00Z"}, []string{"date"}},
		{"long concept", map[string]any{"type": "expense", "amount": 1, "concept": strings.Repeat("c", 256)}, []string{"concept"}},
		{"long description", map[string]any{"type": "expense", "amount": 1, "description": strings.Repeat("d", 2001)}, []string{"description"}},
		{"bad ids", map[string]any{"type": "expense", "amount": 1, "walletId": "w", "categoryId": 3}, []string{"categoryId", "walletId"}},
		{"bad url", map[string]any{"type": "expense", "amount": 1, "attachmentUrl": "javascript:alert(1)"}, []string{"attachmentUrl"}},
		{"unknown field", map[string]any{"type": "expense", "ammount": 1, "amount": 1}, []string{"ammount"}},
		{"transfer between currencies without destination amount", map[string]any{"type": "transfer", "amount": 1, "walletId": f.bank, "toWalletId": f.dollar}, []string{"destinationAmount"}},
		{"transfer without destination", map[string]any{"type": "transfer", "amount": 1}, []string{"destinationWalletId"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := fieldErrors(t, f.c.Post("/api/transactions", c.body))
			sort.Strings(got)
			if !reflect.DeepEqual(got, c.fields) {
				t.Fatalf("fields %v, want %v", got, c.fields)
			}
		})
	}
	expectError(t, f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "categoryId": "00000000-0000-0000-0000-000000000009"}),
		http.StatusNotFound, "CATEGORY_NOT_FOUND")

	// Between currencies, the destination amount says what arrives.
	f.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": 200, "destinationAmount": 11.5,
		"walletId": f.bank, "toWalletId": f.dollar}).Expect(t, http.StatusCreated)
	if f.balance(t, f.bank) != "800" || f.balance(t, f.dollar) != "11.5" {
		t.Fatalf("bank %s dollars %s", f.balance(t, f.bank), f.balance(t, f.dollar))
	}

	// A workspace without a default wallet needs walletId.
	bob := env.As("bob")
	bob.Post("/api/wallets", map[string]any{"name": "Only"}).Expect(t, http.StatusOK)
	if got := fieldErrors(t, bob.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1})); !reflect.DeepEqual(got, []string{"walletId"}) {
		t.Fatalf("no default wallet: %v", got)
	}
	// No balance moved through any failed request.
	if f.balance(t, f.cash) != "105" {
		t.Fatalf("cash %s", f.balance(t, f.cash))
	}
}

func TestUpdateAndDeleteTransactions(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	id := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 40, "walletId": f.cash, "categoryId": f.food,
		"concept": "lunch", "date": "2026-03-05"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	path := "/api/transactions/" + id

	expectError(t, f.c.Patch(path, map[string]any{"amount": 50}), http.StatusBadRequest, "IDEMPOTENCY_KEY_REQUIRED")
	expectError(t, f.c.Delete(path), http.StatusBadRequest, "IDEMPOTENCY_KEY_REQUIRED")
	if f.balance(t, f.cash) != "60" {
		t.Fatal("refused requests moved money")
	}

	k1 := f.c.With("Idempotency-Key", "fix-1")
	upd := k1.Patch(path, map[string]any{"amount": 55, "walletId": f.bank, "categoryId": nil, "concept": "team lunch", "date": "2026-03-04"}).
		Expect(t, http.StatusOK).Object("transaction")
	if num(upd["amount"]) != "55" || upd["walletId"] != f.bank || upd["categoryId"] != nil || upd["concept"] != "team lunch" || upd["date"] != "2026-03-04" {
		t.Fatalf("updated = %v", upd)
	}
	if f.balance(t, f.cash) != "100" || f.balance(t, f.bank) != "945" {
		t.Fatalf("after update: cash %s bank %s", f.balance(t, f.cash), f.balance(t, f.bank))
	}

	// The same key and body replay the answer without a second effect.
	again := k1.Patch(path, map[string]any{"amount": 55, "walletId": f.bank, "categoryId": nil, "concept": "team lunch", "date": "2026-03-04"}).
		Expect(t, http.StatusOK)
	if again.Header.Get("Idempotent-Replayed") != "true" || num(again.Object("transaction")["amount"]) != "55" {
		t.Fatalf("replay: %v %s", again.Header, again.Raw)
	}
	// The same key with another body is refused.
	expectError(t, k1.Patch(path, map[string]any{"amount": 56}), http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
	// Keys belong to their caller: bob's identical key is his own (and finds nothing).
	expectError(t, env.As("bob").With("Idempotency-Key", "fix-1").Patch(path, map[string]any{"amount": 56}), http.StatusNotFound, "TRANSACTION_NOT_FOUND")

	fieldErrors(t, f.c.With("Idempotency-Key", "fix-2").Patch(path, map[string]any{"amount": nil}))
	fieldErrors(t, f.c.With("Idempotency-Key", "fix-2").Patch(path, map[string]any{"type": "income"}))
	fieldErrors(t, f.c.With("Idempotency-Key", strings.Repeat("k", 256)).Patch(path, map[string]any{"amount": 1}))

	del := f.c.With("Idempotency-Key", "del-1")
	if ok := del.Delete(path).Expect(t, http.StatusOK).JSON["ok"]; ok != true {
		t.Fatalf("delete answer %v", ok)
	}
	if f.balance(t, f.bank) != "1000" {
		t.Fatalf("delete did not revert: bank %s", f.balance(t, f.bank))
	}
	if r := del.Delete(path).Expect(t, http.StatusOK); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("retried delete was not a replay")
	}
	expectError(t, f.c.With("Idempotency-Key", "del-2").Delete(path), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	expectError(t, f.c.Get(path), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	expectError(t, f.c.With("Idempotency-Key", "fix-3").Patch(path, map[string]any{"amount": 1}), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	if total := f.c.Get("/api/transactions").JSON["pagination"].(map[string]any)["total"]; num(total) != "0" {
		t.Fatalf("deleted transaction listed: total %v", total)
	}
}

func TestBulkTransactions(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	var ids []string
	for i := 0; i < 4; i++ {
		ids = append(ids, f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10, "categoryId": f.food}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string))
	}
	missing := "00000000-0000-0000-0000-00000000dead"
	r := f.c.Post("/api/transactions/bulk", map[string]any{"ids": []string{ids[0], missing}, "operation": "delete"})
	e := expectError(t, r, http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	if fmt.Sprint(e["details"]) != fmt.Sprint(map[string]any{"missing": []any{missing}}) {
		t.Fatalf("details %v", e["details"])
	}
	if f.balance(t, f.cash) != "60" {
		t.Fatal("a failed bulk request changed balances")
	}
	res := f.c.Post("/api/transactions/bulk", map[string]any{"ids": ids[:2], "operation": "delete"}).Expect(t, http.StatusOK)
	if num(res.JSON["affected"]) != "2" || f.balance(t, f.cash) != "80" {
		t.Fatalf("bulk delete: %s, cash %s", res.Raw, f.balance(t, f.cash))
	}
	f.c.Post("/api/transactions/bulk", map[string]any{"ids": ids[2:], "operation": "recategorize", "categoryId": f.rent}).Expect(t, http.StatusOK)
	if list := f.c.Get("/api/transactions?categoryId=" + f.rent).List("transactions"); len(list) != 2 {
		t.Fatalf("recategorized: %v", list)
	}
	cases := []map[string]any{
		{"ids": []string{}, "operation": "delete"},
		{"ids": []string{ids[2], ids[2]}, "operation": "delete"},
		{"ids": ids[2:], "operation": "archive"},
		{"ids": ids[2:], "operation": "recategorize"},
		{"operation": "delete"},
	}
	for _, body := range cases {
		fieldErrors(t, f.c.Post("/api/transactions/bulk", body))
	}
}

func TestListTransactions(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	post := func(body map[string]any) string {
		return f.c.Post("/api/transactions", body).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}
	march1 := post(map[string]any{"type": "income", "amount": 1000, "date": "2026-03-01", "walletId": f.bank, "concept": "Salary"})
	march3a := post(map[string]any{"type": "expense", "amount": 12, "date": "2026-03-03", "categoryId": f.food, "concept": "Tacos al pastor"})
	march3b := post(map[string]any{"type": "expense", "amount": 300, "date": "2026-03-03", "categoryId": f.rent, "description": "100% rent_share"})
	march2 := post(map[string]any{"type": "transfer", "amount": 50, "date": "2026-03-02", "walletId": f.bank, "toWalletId": f.cash})
	for i := 0; i < 14; i++ {
		post(map[string]any{"type": "expense", "amount": 1, "date": "2026-02-01", "concept": fmt.Sprintf("taco %d", i)})
	}

	ids := func(path string) []string {
		var out []string
		for _, tr := range f.c.Get(path).Expect(t, http.StatusOK).List("transactions") {
			out = append(out, tr["id"].(string))
		}
		return out
	}
	page := f.c.Get("/api/transactions?pageSize=3").Expect(t, http.StatusOK)
	pg := page.Object("pagination")
	if num(pg["limit"]) != "3" || num(pg["offset"]) != "0" || num(pg["total"]) != "18" {
		t.Fatalf("pagination %v", pg)
	}
	// Newest date first; within a date, the most recently recorded first.
	if got := ids("/api/transactions?pageSize=4"); !reflect.DeepEqual(got, []string{march3b, march3a, march2, march1}) {
		t.Fatalf("order %v", got)
	}
	if got := ids("/api/transactions?pageSize=2&page=2"); !reflect.DeepEqual(got, []string{march2, march1}) {
		t.Fatalf("page 2 %v", got)
	}
	if got := ids("/api/transactions?type=expense&categoryId=" + f.food); !reflect.DeepEqual(got, []string{march3a}) {
		t.Fatalf("type+category %v", got)
	}
	if got := ids("/api/transactions?walletId=" + f.bank); !reflect.DeepEqual(got, []string{march2, march1}) {
		t.Fatalf("wallet (source or destination) %v", got)
	}
	if got := ids("/api/transactions?from=2026-03-02&to=2026-03-02"); !reflect.DeepEqual(got, []string{march2}) {
		t.Fatalf("date range %v", got)
	}
	if got := ids("/api/transactions?search=TACOS"); !reflect.DeepEqual(got, []string{march3a}) {
		t.Fatalf("search %v", got)
	}
	// LIKE wildcards in the search are literal characters.
	if got := ids("/api/transactions?search=100%25%20rent_"); !reflect.DeepEqual(got, []string{march3b}) {
		t.Fatalf("search with wildcards %v", got)
	}
	if got := ids("/api/transactions?search=_"); !reflect.DeepEqual(got, []string{march3b}) {
		t.Fatalf("underscore search %v", got)
	}
	quick := f.c.Get("/api/transactions?q=taco").Expect(t, http.StatusOK)
	if n := len(quick.List("transactions")); n != 10 || num(quick.Object("pagination")["total"]) != "15" {
		t.Fatalf("quick search gave %d of %v", n, quick.Object("pagination"))
	}
	bad := fieldErrors(t, f.c.Get("/api/transactions?page=0&pageSize=101&type=gift&walletId=x&from=2026-13-01&search="+strings.Repeat("s", 201)))
	sort.Strings(bad)
	if !reflect.DeepEqual(bad, []string{"from", "page", "pageSize", "search", "type", "walletId"}) {
		t.Fatalf("fields %v", bad)
	}
	fieldErrors(t, f.c.Get("/api/transactions?q="+strings.Repeat("q", 101)))
	fieldErrors(t, f.c.Get("/api/transactions?from=2026-03-02&to=2026-03-01"))

	got := f.c.Get("/api/transactions/"+march2).Expect(t, http.StatusOK).Object("transaction")
	if got["type"] != "transfer" || got["toWalletId"] != f.cash {
		t.Fatalf("get = %v", got)
	}
	expectError(t, env.As("bob").Get("/api/transactions/"+march2), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
}

// Parallel requests with one Idempotency-Key, on two instances: exactly one effect, and
// every caller gets the first answer.
func TestConcurrentRequestsWithOneIdempotencyKey(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	second := env.Instance()
	id := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10, "walletId": f.cash}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	const callers = 12
	answers := make([]*apitest.Response, callers)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := f.c.With("Idempotency-Key", "same-key")
			if i%2 == 1 {
				c = c.On(second)
			}
			answers[i] = c.Delete("/api/transactions/" + id)
		}()
	}
	wg.Wait()
	fresh := 0
	for _, a := range answers {
		a.Expect(t, http.StatusOK)
		if a.Header.Get("Idempotent-Replayed") != "true" {
			fresh++
		}
		if string(a.Raw) != string(answers[0].Raw) {
			t.Fatalf("answers differ: %s vs %s", a.Raw, answers[0].Raw)
		}
	}
	if fresh != 1 {
		t.Fatalf("%d requests took effect, want 1", fresh)
	}
	if got := f.balance(t, f.cash); got != "100" {
		t.Fatalf("cash %s after one delete of a 10 expense from 100", got)
	}
	var events int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = 'transaction.deleted.v1'`).Scan(&events); err != nil || events != 1 {
		t.Fatalf("%d deletion events, %v", events, err)
	}
}
