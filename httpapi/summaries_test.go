package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

func TestExchangeRatesAndMonthlySummary(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 25, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice") // MXN workspace; Cash and Bank in MXN, Dollars in USD
	exp := func(amount float64, date, wallet, category string) {
		body := map[string]any{"type": "expense", "amount": amount, "date": date, "walletId": wallet}
		if category != "" {
			body["categoryId"] = category
		}
		f.c.Post("/api/transactions", body).Expect(t, http.StatusCreated)
	}
	f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 20, "date": "2026-03-02", "walletId": f.dollar}).Expect(t, http.StatusCreated)
	f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 1000, "date": "2026-03-02", "walletId": f.bank}).Expect(t, http.StatusCreated)
	exp(300, "2026-03-03", f.bank, f.rent)
	exp(120.5, "2026-03-04", f.cash, f.food)
	exp(10, "2026-03-05", f.dollar, f.food)
	exp(30, "2026-03-06", f.cash, "") // uncategorized: not a top category
	exp(200, "2026-02-10", f.bank, f.food)

	// Without a USD rate the summary never guesses: amounts per currency, no totals.
	if s := f.c.Get("/api/reports/monthly-summary?month=2026-03").Expect(t, http.StatusOK).JSON; s["totalIncome"] != nil || s["totalExpenses"] != nil {
		t.Fatalf("a total without a rate: %v", s)
	}
	set := f.c.Put("/api/exchange-rates", map[string]any{"date": "2026-03-24", "rates": []map[string]any{{"base": "usd", "quote": "MXN", "rate": 17.5}}}).
		Expect(t, http.StatusOK)
	if rates := set.List("rates"); len(rates) != 1 || rates[0]["base"] != "USD" || num(rates[0]["rate"]) != "17.5" || rates[0]["source"] != "manual" {
		t.Fatalf("rates %s", set.Raw)
	}
	got := fieldErrors(t, f.c.Put("/api/exchange-rates", map[string]any{"rates": []map[string]any{{"base": "USD", "quote": "USD", "rate": 1},
		{"base": "EUR", "quote": "MXN", "rate": -2}}}))
	if strings.Join(got, ",") != "rates[0].quote,rates[1].rate" {
		t.Fatalf("rate fields %v", got)
	}
	got = fieldErrors(t, f.c.Put("/api/exchange-rates", map[string]any{"rates": []map[string]any{{"base": "dollars", "rate": 1}}}))
	if strings.Join(got, ",") != "rates[0].base,rates[0].quote" {
		t.Fatalf("rate fields %v", got)
	}
	fieldErrors(t, f.c.Put("/api/exchange-rates", map[string]any{"date": "soon"}))
	if list := f.c.Get("/api/exchange-rates?date=2026-03-25").List("rates"); len(list) != 1 {
		t.Fatalf("rates in force %v", list)
	}
	if list := f.c.Get("/api/exchange-rates?date=2026-04-05").List("rates"); len(list) != 0 {
		t.Fatalf("a rate older than a week is still in force: %v", list)
	}

	s := f.c.Get("/api/reports/monthly-summary?month=2026-03").Expect(t, http.StatusOK).JSON
	// Income 1000 MXN + 20 USD × 17.5; expenses 300 + 120.5 + 30 MXN + 10 USD × 17.5.
	if s["currency"] != "MXN" || num(s["totalIncome"]) != "1350" || num(s["totalExpenses"]) != "625.5" || s["month"] != "2026-03" {
		t.Fatalf("summary %v", s)
	}
	top := s["topCategories"].([]any)
	var order []string
	for _, c := range top {
		m := c.(map[string]any)
		order = append(order, m["name"].(string)+":"+m["currency"].(string)+":"+num(m["total"]))
	}
	if strings.Join(order, ",") != "Rent:MXN:300,Food:MXN:120.5,Food:USD:10" {
		t.Fatalf("top categories %v", order)
	}
	cmp := s["comparison"].(map[string]any)
	if num(cmp["previousExpenses"]) != "200" || num(cmp["percentageChange"]) != "212.75" || num(cmp["previousIncome"]) != "0" {
		t.Fatalf("comparison %v", cmp)
	}
	feb := f.c.Get("/api/reports/monthly-summary?month=2026-01").Expect(t, http.StatusOK).JSON
	if feb["comparison"].(map[string]any)["percentageChange"] != nil || num(feb["totalExpenses"]) != "0" {
		t.Fatalf("empty month %v", feb)
	}
	fieldErrors(t, f.c.Get("/api/reports/monthly-summary?month=March"))
}

func TestSpendingSummary(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 26, 18, 0, 0, 0, time.UTC)) // Thursday 26 March in Mexico City
	f := newLedger(t, env, "alice")
	for _, e := range []struct {
		amount         float64
		date, wallet   string
		category, kind string
	}{
		{10.1, "2026-03-26", f.cash, f.food, "expense"}, // today
		{5, "2026-03-25", f.cash, f.rent, "expense"},    // yesterday
		{7, "2026-03-23", f.dollar, f.food, "expense"},  // Monday: this week
		{100, "2026-03-22", f.bank, f.food, "expense"},  // Sunday: last week
		{1, "2026-03-16", f.bank, f.food, "expense"},    // Monday of last week
		{50, "2026-02-27", f.bank, f.food, "expense"},   // last month
		{999, "2026-03-24", f.bank, f.food, "income"},   // income
	} {
		f.c.Post("/api/transactions", map[string]any{"type": e.kind, "amount": e.amount, "date": e.date, "walletId": e.wallet,
			"categoryId": e.category}).Expect(t, http.StatusCreated)
	}
	gone := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1000, "date": "2026-03-26"}).Expect(t, http.StatusCreated).
		Object("transaction")["id"].(string)
	f.c.With("Idempotency-Key", "g").Delete("/api/transactions/"+gone).Expect(t, http.StatusOK)

	totals := func(query string) (map[string]any, string) {
		r := f.c.Get("/api/reports/spending-summary"+query).Expect(t, http.StatusOK)
		var parts []string
		for _, tt := range r.JSON["totals"].([]any) {
			m := tt.(map[string]any)
			parts = append(parts, m["currency"].(string)+" "+m["total"].(string))
		}
		return r.JSON, strings.Join(parts, ", ")
	}
	cases := map[string]string{
		"":                                     "MXN 15.10, USD 7.00",
		"?period=today":                        "MXN 10.10",
		"?period=yesterday":                    "MXN 5.00",
		"?period=last_week":                    "MXN 101.00",
		"?period=this_month":                   "MXN 116.10, USD 7.00",
		"?period=last_month":                   "MXN 50.00",
		"?period=last_7_days":                  "MXN 115.10, USD 7.00",
		"?period=last_30_days":                 "MXN 166.10, USD 7.00",
		"?from=2026-03-16&to=2026-03-16":       "MXN 1.00",
		"?period=this_week&category=" + f.rent: "MXN 5.00",
		"?period=this_week&category=FOOD":      "MXN 10.10, USD 7.00",
		"?period=this_week&type=income":        "MXN 999.00",
		"?from=2025-01-01&to=2025-12-31":       "",
	}
	for query, want := range cases {
		if _, got := totals(query); got != want {
			t.Errorf("%q: %q, want %q", query, got, want)
		}
	}
	s, _ := totals("")
	if s["period"] != "this_week" || s["from"] != "2026-03-23" || s["to"] != "2026-03-26" || s["type"] != "expense" {
		t.Fatalf("default %v", s)
	}
	for _, bad := range []string{"?period=fortnight", "?from=2026-01-01", "?from=2025-01-01&to=2026-01-03", "?type=transfer",
		"?period=today&from=2026-01-01&to=2026-01-02", "?from=2026-03-02&to=2026-03-01"} {
		fieldErrors(t, f.c.Get("/api/reports/spending-summary"+bad))
	}
	e := expectError(t, f.c.Get("/api/reports/spending-summary?category=Fod"), http.StatusNotFound, "CATEGORY_NOT_FOUND")
	if s := e["details"].(map[string]any)["suggestions"].([]any); len(s) == 0 || s[0] != "Food" {
		t.Fatalf("suggestions %v", s)
	}
}

// A range is summed from the months wholly within it and the days at its ends, each
// transaction once, wherever in its month it falls and wherever a correction moved it.
func TestSpendingSummaryOverMonthsAndDays(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 26, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	expense := func(amount float64, date string) string {
		return f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": amount, "date": date, "walletId": f.cash,
			"categoryId": f.food}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}
	for date, amount := range map[string]float64{"2025-12-31": 0.01, "2026-01-01": 0.1, "2026-01-15": 1, "2026-01-31": 10,
		"2026-02-01": 100, "2026-02-28": 1000, "2026-03-01": 10000} {
		expense(amount, date)
	}
	gone := expense(5, "2026-02-10")
	f.c.With("Idempotency-Key", "gone").Delete("/api/transactions/"+gone).Expect(t, http.StatusOK)
	moved := expense(200, "2026-01-20")
	f.c.With("Idempotency-Key", "moved").Patch("/api/transactions/"+moved, map[string]any{"date": "2026-03-01"}).Expect(t, http.StatusOK)

	for query, want := range map[string]string{
		"?from=2026-01-01&to=2026-12-31": "11311.10", // whole months
		"?from=2026-01-15&to=2026-03-01": "11311.00", // days, a month, a day
		"?from=2026-01-02&to=2026-02-28": "1111.00",  // days, then a month
		"?from=2026-02-01&to=2026-02-28": "1100.00",  // a month
		"?from=2026-01-31&to=2026-02-01": "110.00",   // a day of each
		"?from=2025-12-31&to=2026-01-01": "0.11",     // across the year
		"?from=2025-12-01&to=2026-01-31": "11.11",    // two months
		"?from=2026-01-20&to=2026-01-20": "",         // the day a correction moved away from
		"?from=2026-02-02&to=2026-02-27": "",         // the days around a deletion
	} {
		r := f.c.Get("/api/reports/spending-summary"+query).Expect(t, http.StatusOK)
		var got []string
		for _, tt := range r.JSON["totals"].([]any) {
			got = append(got, tt.(map[string]any)["total"].(string))
		}
		if strings.Join(got, ", ") != want {
			t.Errorf("%s: %v, want %s", query, got, want)
		}
	}
}
