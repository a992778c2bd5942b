package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"rsc.io/pdf"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

func reportFixture(t *testing.T) (*apitest.Env, ledgerFixture) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 25, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	for _, e := range []map[string]any{
		{"type": "income", "amount": 2500, "date": "2026-03-01", "walletId": f.bank, "concept": "Salary"},
		{"type": "expense", "amount": 120.5, "date": "2026-03-02", "walletId": f.cash, "categoryId": f.food, "concept": "Café, \"the good one\""},
		{"type": "expense", "amount": 900, "date": "2026-03-03", "walletId": f.bank, "categoryId": f.rent, "concept": "Rent"},
		{"type": "expense", "amount": 15.25, "date": "2026-03-04", "walletId": f.dollar, "categoryId": f.food, "concept": "Lunch in Austin"},
		{"type": "transfer", "amount": 100, "date": "2026-03-05", "walletId": f.bank, "toWalletId": f.cash},
		{"type": "expense", "amount": 9, "date": "2026-02-27", "walletId": f.cash, "categoryId": f.food, "concept": "February"},
	} {
		f.c.Post("/api/transactions", e).Expect(t, http.StatusCreated)
	}
	return env, f
}

func TestReportJSONAndCSV(t *testing.T) {
	_, f := reportFixture(t)
	rep := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK).Object("report")
	if n := len(rep["transactions"].([]any)); n != 5 {
		t.Fatalf("%d transactions", n)
	}
	var totals []string
	for _, x := range rep["totals"].([]any) {
		m := x.(map[string]any)
		totals = append(totals, m["currency"].(string)+" "+num(m["income"])+" "+num(m["expenses"])+" "+num(m["net"]))
	}
	if strings.Join(totals, "; ") != "MXN 2500 1020.5 1479.5; USD 0 15.25 -15.25" {
		t.Fatalf("totals %v", totals)
	}
	first := rep["byCategory"].([]any)[0].(map[string]any)
	if first["name"] != "Rent" || num(first["expenses"]) != "900" {
		t.Fatalf("by category %v", rep["byCategory"])
	}
	filtered := f.c.Get("/api/reports?from=2026-02-01&to=2026-03-31&categoryId=" + f.food).Object("report")
	if n := len(filtered["transactions"].([]any)); n != 3 {
		t.Fatalf("food transactions %d", n)
	}
	if n := len(f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&walletId=" + f.cash).Object("report")["transactions"].([]any)); n != 2 {
		t.Fatalf("cash transactions %d (the transfer into it counts)", n)
	}

	r := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&format=csv").Expect(t, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" || !strings.Contains(r.Header.Get("Content-Disposition"), ".csv") {
		t.Fatalf("headers %v", r.Header)
	}
	if !bytes.Contains(r.Raw, []byte("\r\n")) {
		t.Fatal("CSV lines do not end in CRLF")
	}
	records, err := csv.NewReader(bytes.NewReader(r.Raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 6 || records[0][0] != "date" || records[0][2] != "amount" {
		t.Fatalf("csv %v", records)
	}
	if records[2][5] != `Café, "the good one"` || records[2][2] != "120.5" || records[2][8] != "Food" {
		t.Fatalf("quoted row %v", records[2])
	}
	// Each line says what the JSON report says of its transaction.
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10.5, "date": "2026-03-06", "walletId": f.cash,
		"description": "Snacks", "referenceNumber": "R-7"}).Expect(t, http.StatusCreated)
	lines := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK).Object("report")["transactions"].([]any)
	records, err = csv.NewReader(bytes.NewReader(f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&format=csv").Expect(t, http.StatusOK).Raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	field := func(v any) string {
		switch v := v.(type) {
		case nil:
			return ""
		case string:
			return v
		}
		return num(v)
	}
	for i, line := range lines {
		l := line.(map[string]any)
		want := []string{field(l["date"]), field(l["type"]), field(l["amount"]), field(l["currency"]), field(l["destinationAmount"]),
			field(l["concept"]), field(l["description"]), field(l["walletName"]), field(l["categoryName"]), field(l["toWalletId"]),
			field(l["referenceNumber"]), field(l["id"]), "", "", ""} // not split: no part
		if !slices.Equal(records[i+1], want) {
			t.Errorf("line %d: %q, the JSON report says %q", i+1, records[i+1], want)
		}
	}
	if len(records) != len(lines)+1 || records[len(lines)][6] != "Snacks" || records[len(lines)][2] != "10.5" {
		t.Fatalf("csv %q", records)
	}
	fieldErrors(t, f.c.Get("/api/reports?format=xlsx&from=2026-02-01&to=2026-01-01&walletId=x"))
}

func TestReportPDF(t *testing.T) {
	_, f := reportFixture(t)
	r := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&format=pdf").Expect(t, http.StatusOK)
	if r.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(r.Raw, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", r.Raw[:min(20, len(r.Raw))])
	}
	doc, err := pdf.NewReader(bytes.NewReader(r.Raw), int64(len(r.Raw)))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rects := 0
	for i := 1; i <= doc.NumPage(); i++ {
		content := doc.Page(i).Content()
		for _, t := range content.Text {
			text.WriteString(t.S)
		}
		rects += len(content.Rect)
	}
	// The PDF places words, not the spaces between them: compare without spaces.
	got := strings.ReplaceAll(text.String(), " ", "")
	for _, want := range []string{"Finledger report", "2026-03-01", "Totals", "Expenses, March 2026", "Rent", "900.00 MXN",
		"1020.50", "15.25 USD", "Lunch in Austin", "Transactions"} {
		if !strings.Contains(got, strings.ReplaceAll(want, " ", "")) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
	if rects < 3 {
		t.Errorf("the bar chart has %d bars", rects)
	}
}

func TestAgentContext(t *testing.T) {
	_, f := reportFixture(t)
	g := f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 500}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	done := f.c.Post("/api/goals", map[string]any{"name": "Done", "targetAmount": 1}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	f.c.Post("/api/goals/"+done+"/deposit", map[string]any{"amount": 1, "walletId": f.cash}).Expect(t, http.StatusOK)
	f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 1000, "startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK)
	f.c.Post("/api/budgets", map[string]any{"name": "Old", "categoryId": f.food, "amount": 1000, "startDate": "2025-01-01", "endDate": "2025-12-31"}).Expect(t, http.StatusOK)
	r := f.c.Get("/api/agent/context").Expect(t, http.StatusOK)
	if r.Header.Get("Cache-Control") != "private, max-age=300" {
		t.Fatalf("cache control %q", r.Header.Get("Cache-Control"))
	}
	c := r.JSON
	if len(c["wallets"].([]any)) != 3 || len(c["categories"].([]any)) != 2 {
		t.Fatalf("wallets and categories %v", c)
	}
	goals := c["goals"].([]any)
	if len(goals) != 1 || goals[0].(map[string]any)["id"] != g {
		t.Fatalf("active goals %v", goals)
	}
	budgets := c["budgets"].([]any)
	if len(budgets) != 1 || num(budgets[0].(map[string]any)["spent"]) != "120.5" {
		t.Fatalf("active budgets %v", budgets)
	}
	stats := c["recentStats"].(map[string]any)
	if num(stats["count"]) != "5" || stats["from"] != "2026-02-24" || stats["to"] != "2026-03-25" {
		t.Fatalf("recent stats %v", stats)
	}
	cur := c["currency"].(map[string]any)
	if cur["workspace"] != "MXN" || len(cur["wallets"].([]any)) != 2 {
		t.Fatalf("currency %v", cur)
	}
	key, _ := newKey(t, f.c, "agent:context")
	key.Get("/api/agent/context").Expect(t, http.StatusOK)
	noScope, _ := newKey(t, f.c, "wallets:read")
	expectError(t, noScope.Get("/api/agent/context"), http.StatusForbidden, "FORBIDDEN")
}
