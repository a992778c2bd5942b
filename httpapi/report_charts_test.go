package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"rsc.io/pdf"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// chartFixture is March 2026 with expenses in eight categories (seven in MXN, Food also
// 57.98 USD), one uncategorized, and income and expenses over the months before.
func chartFixture(t *testing.T) ledgerFixture {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 25, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	post := func(kind string, amount string, date, wallet, category string) {
		body := map[string]any{"type": kind, "amount": json.Number(amount), "date": date, "walletId": wallet}
		if category != "" {
			body["categoryId"] = category
		}
		f.c.Post("/api/transactions", body).Expect(t, http.StatusCreated)
	}
	post("expense", "8500", "2026-03-02", f.bank, f.rent)
	post("expense", "57.98", "2026-03-03", f.dollar, f.food)
	for i, amount := range []string{"700", "600", "500", "400.10", "30.05", "20"} {
		id := f.c.Post("/api/categories", map[string]any{"name": fmt.Sprintf("Cat %c", 'A'+i)}).Expect(t, 200).Object("category")["id"].(string)
		post("expense", amount, "2026-03-04", f.cash, id)
	}
	post("expense", "10.5", "2026-03-05", f.cash, "")
	post("income", "2500", "2026-03-01", f.bank, "")
	post("income", "3000", "2025-04-15", f.bank, "")
	post("expense", "99.99", "2025-04-16", f.bank, f.rent)
	post("income", "100", "2025-11-30", f.dollar, "")
	post("expense", "1", "2025-03-31", f.bank, f.rent) // thirteen months back: outside the series
	f.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": 50, "date": "2026-03-06", "walletId": f.bank,
		"toWalletId": f.cash}).Expect(t, http.StatusCreated) // neither income nor expense
	return f
}

func bars(chart map[string]any) string {
	var out []string
	for _, x := range chart["bars"].([]any) {
		b := x.(map[string]any)
		s := fmt.Sprintf("%v:%s", b["name"], num(b["amount"]))
		for _, y := range b["holds"].([]any) {
			h := y.(map[string]any)
			s += fmt.Sprintf("[%v:%s]", h["name"], num(h["amount"]))
		}
		out = append(out, s)
	}
	for _, x := range chart["unconverted"].([]any) {
		u := x.(map[string]any)
		out = append(out, fmt.Sprintf("not drawn %v %s", u["currency"], num(u["amount"])))
	}
	return strings.Join(out, ", ")
}

func TestReportSummaryChartsEveryCategoryOnOneScale(t *testing.T) {
	f := chartFixture(t)
	s := f.c.Get("/api/reports/summary?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK).JSON
	if s["from"] != "2026-03-01" || s["to"] != "2026-03-31" || s["currency"] != "MXN" {
		t.Fatalf("summary %v", s)
	}
	var totals []string
	for _, x := range s["totals"].([]any) {
		m := x.(map[string]any)
		totals = append(totals, m["currency"].(string)+" "+num(m["income"])+" "+num(m["expenses"])+" "+num(m["net"]))
	}
	if got := strings.Join(totals, "; "); got != "MXN 2500 10760.65 -8260.65; USD 0 57.98 -57.98" {
		t.Fatalf("totals %s", got)
	}
	// Without a rate, the dollars are listed beside the chart, not drawn on a scale of their own.
	want := "Rent:8500, Cat A:700, Cat B:600, Cat C:500, Cat D:400.1, Other:60.55[Cat E:30.05][Cat F:20][Uncategorized:10.5], not drawn USD 57.98"
	if got := bars(s["expenses"].(map[string]any)); got != want {
		t.Fatalf("chart\n got %s\nwant %s", got, want)
	}
	months := s["months"].(map[string]any)
	var series []string
	for _, x := range months["months"].([]any) {
		m := x.(map[string]any)
		if num(m["income"]) != "0" || num(m["expenses"]) != "0" {
			series = append(series, fmt.Sprintf("%v %s/%s", m["month"], num(m["income"]), num(m["expenses"])))
		}
	}
	first, last := months["months"].([]any)[0].(map[string]any)["month"], months["months"].([]any)[11].(map[string]any)["month"]
	if got := strings.Join(series, ", "); first != "2025-04" || last != "2026-03" || got != "2025-04 3000/99.99, 2026-03 2500/10760.65" {
		t.Fatalf("series %v..%v: %s", first, last, got)
	}
	u := months["unconverted"].([]any)
	if len(u) != 1 || u[0].(map[string]any)["currency"] != "USD" || num(u[0].(map[string]any)["income"]) != "100" || num(u[0].(map[string]any)["expenses"]) != "57.98" {
		t.Fatalf("series not converted %v", u)
	}

	// With a rate, Food's dollars join its bar in pesos: 57.98 × 17.5 = 1014.65.
	f.c.Put("/api/exchange-rates", map[string]any{"date": "2026-03-24", "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": 17.5}}}).
		Expect(t, http.StatusOK)
	s = f.c.Get("/api/reports/summary?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK).JSON
	want = "Rent:8500, Food:1014.65, Cat A:700, Cat B:600, Cat C:500, Other:460.65[Cat D:400.1][Cat E:30.05][Cat F:20][Uncategorized:10.5]"
	if got := bars(s["expenses"].(map[string]any)); got != want {
		t.Fatalf("chart with a rate\n got %s\nwant %s", got, want)
	}
	nov := s["months"].(map[string]any)["months"].([]any)[7].(map[string]any)
	if nov["month"] != "2025-11" || num(nov["income"]) != "1750" {
		t.Fatalf("November with a rate %v", nov)
	}

	// A range that is not a month: its days only.
	s = f.c.Get("/api/reports/summary?from=2026-03-02&to=2026-03-03").Expect(t, http.StatusOK).JSON
	if got := bars(s["expenses"].(map[string]any)); got != "Rent:8500, Food:1014.65" {
		t.Fatalf("two days %s", got)
	}
	if got := fieldErrors(t, f.c.Get("/api/reports/summary?from=2026-03-02&to=2026-03-01")); strings.Join(got, ",") != "to" {
		t.Fatalf("fields %v", got)
	}
	fieldErrors(t, f.c.Get("/api/reports/summary?from=March"))
}

// pdfOf reads a report's PDF: its text without spaces, and the widths of its bars.
func pdfOf(t *testing.T, r *apitest.Response) (string, []float64) {
	t.Helper()
	doc, err := pdf.NewReader(bytes.NewReader(r.Raw), int64(len(r.Raw)))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var widths []float64
	for i := 1; i <= doc.NumPage(); i++ {
		content := doc.Page(i).Content()
		for _, t := range content.Text {
			text.WriteString(t.S)
		}
		for _, r := range content.Rect {
			if h := math.Abs(r.Max.Y - r.Min.Y); math.Abs(h-4*72/25.4) < 0.01 { // a bar is 4 mm high; a table's cells, 6
				widths = append(widths, math.Abs(r.Max.X-r.Min.X))
			}
		}
	}
	return strings.ReplaceAll(text.String(), " ", ""), widths
}

func TestReportPDFBarsShareOneScale(t *testing.T) {
	f := chartFixture(t)
	text, widths := pdfOf(t, f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&format=pdf").Expect(t, http.StatusOK))
	// Six bars: 57.98 USD, with no rate, is not drawn beside 8,500 MXN as if as long.
	if len(widths) != 6 || math.Abs(widths[1]/widths[0]-700.0/8500) > 0.001 {
		t.Fatalf("bars %v", widths)
	}
	for _, want := range []string{"Expenses, March 2026", "Rent", "Cat A", "Cat D", "Other", "Cat E 30.05", "Cat F 20.00", "Uncategorized 10.50",
		"Not drawn, no rate to MXN: 57.98 USD"} {
		if !strings.Contains(text, strings.ReplaceAll(want, " ", "")) {
			t.Errorf("the PDF lacks %q", want)
		}
	}

	f.c.Put("/api/exchange-rates", map[string]any{"date": "2026-03-24", "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": 17.5}}}).
		Expect(t, http.StatusOK)
	text, widths = pdfOf(t, f.c.Get("/api/reports?from=2026-03-01&to=2026-03-15&format=pdf").Expect(t, http.StatusOK))
	if len(widths) != 6 || math.Abs(widths[1]/widths[0]-1014.65/8500) > 0.001 {
		t.Fatalf("bars with a rate %v", widths)
	}
	for _, want := range []string{"Expenses, 1 Mar - 15 Mar 2026", "Food", "1014.65 MXN", "Cat D 400.10"} {
		if !strings.Contains(text, strings.ReplaceAll(want, " ", "")) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
	if strings.Contains(text, "Notdrawn") {
		t.Error("the PDF says dollars were not drawn though a rate exists")
	}
}
