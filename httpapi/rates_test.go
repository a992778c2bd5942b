package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

// missingOf reads an answer's missing conversions as "FROM>TO@rate/date" ("-" when
// none was ever known).
func missingOf(t *testing.T, list any) []string {
	t.Helper()
	var out []string
	for _, item := range list.([]any) {
		m := item.(map[string]any)
		last := "-"
		if k, ok := m["lastKnown"].(map[string]any); ok {
			last = num(k["rate"]) + "/" + k["date"].(string)
		}
		out = append(out, m["from"].(string)+">"+m["to"].(string)+"@"+last)
	}
	return out
}

// A missing or stale rate never fails a summary or a report: amounts per currency, the
// converted total only where every rate exists, and each missing conversion listed
// with the last rate known for it.
func TestSummariesWithoutRates(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 25, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice") // MXN workspace; Cash and Bank in MXN, Dollars in USD
	f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 20, "date": "2026-03-02", "walletId": f.dollar}).Expect(t, http.StatusCreated)
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 120.5, "date": "2026-03-04", "walletId": f.cash, "categoryId": f.food}).Expect(t, http.StatusCreated)
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 200, "date": "2026-02-10", "walletId": f.bank, "categoryId": f.food}).Expect(t, http.StatusCreated)

	check := func(want string, lastKnown string) {
		t.Helper()
		s := f.c.Get("/api/reports/monthly-summary?month=2026-03").Expect(t, http.StatusOK).JSON
		byCurrency := ""
		for _, c := range s["byCurrency"].([]any) {
			m := c.(map[string]any)
			byCurrency += m["currency"].(string) + ":" + num(m["income"]) + "/" + num(m["expenses"]) + " "
		}
		if byCurrency != "MXN:0/120.5 USD:20/0 " {
			t.Fatalf("per currency %q", byCurrency)
		}
		total := "null"
		if s["totalIncome"] != nil {
			total = num(s["totalIncome"]) + "/" + num(s["totalExpenses"])
		}
		missing := missingOf(t, s["missingRates"])
		if total != want || (lastKnown == "" && len(missing) != 0) || (lastKnown != "" && (len(missing) != 1 || missing[0] != lastKnown)) {
			t.Fatalf("totals %s, missing %v; want %s, %s", total, missing, want, lastKnown)
		}
		cmp := s["comparison"].(map[string]any)
		// February was in pesos alone: its totals need no rate, the change needs March's.
		if num(cmp["previousExpenses"]) != "200" || (want == "null") != (cmp["percentageChange"] == nil) {
			t.Fatalf("comparison %v", cmp)
		}
		rep := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK).Object("report")
		if got := missingOf(t, rep["missingRates"]); len(got) != len(missing) || (want == "null") != (rep["converted"] == nil) {
			t.Fatalf("report: converted %v, missing %v", rep["converted"], got)
		}
		rates := f.c.Get("/api/exchange-rates").Expect(t, http.StatusOK).JSON
		if got := missingOf(t, rates["missing"]); len(got) != len(missing) {
			t.Fatalf("rates page: missing %v", got)
		}
	}
	check("null", "USD>MXN@-")
	// A rate older than a week is stale: still missing, but shown with its date.
	f.c.Put("/api/exchange-rates", map[string]any{"date": "2026-03-10", "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": 17.5}}}).Expect(t, http.StatusOK)
	check("null", "USD>MXN@17.5/2026-03-10")
	f.c.Put("/api/exchange-rates", map[string]any{"date": "2026-03-24", "rates": []map[string]any{{"base": "MXN", "quote": "USD", "rate": 0.05}}}).Expect(t, http.StatusOK)
	check("400/120.5", "")
	rep := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK).Object("report")
	if c := rep["converted"].(map[string]any); c["currency"] != "MXN" || num(c["income"]) != "400" || num(c["net"]) != "279.5" {
		t.Fatalf("converted %v", c)
	}
}

// The ECB import fetches the configured feed, stores its rates for every workspace,
// and lets one server fetch at most once every ten minutes.
func TestImportECBRates(t *testing.T) {
	feed, err := os.ReadFile("../internal/fx/testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	var fetches atomic.Int32
	ecb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		_, _ = w.Write(feed)
	}))
	defer ecb.Close()
	opts := apitest.Options()
	opts.ECBURL = ecb.URL
	env := apitest.StartWith(t, opts) // 2026-03-10: the file's rates, of 2026-03-09, are in force
	f := newLedger(t, env, "alice")
	if got := missingOf(t, f.c.Get("/api/exchange-rates").Expect(t, http.StatusOK).JSON["missing"]); len(got) != 1 || got[0] != "USD>MXN@-" {
		t.Fatalf("missing before the import %v", got)
	}
	res := f.c.Post("/api/exchange-rates/ecb", nil).Expect(t, http.StatusOK)
	if len(res.List("rates")) != 29 || len(res.List("missing")) != 0 || res.List("rates")[0]["source"] != "ecb" {
		t.Fatalf("import answered %s", res.Raw)
	}
	s := f.c.Get("/api/reports/monthly-summary").Expect(t, http.StatusOK).JSON
	if s["totalIncome"] == nil || len(s["missingRates"].([]any)) != 0 {
		t.Fatalf("summary after the import %v", s)
	}
	// Another person, minutes later and on another instance, is told to wait; the feed is
	// not asked again.
	env.Clock.Set(env.Clock.Now().Add(5 * time.Minute))
	other := env.InstanceWith(func(o *httpapi.Options) { o.ECBURL = ecb.URL })
	r := expectError(t, other.As("bob").Post("/api/exchange-rates/ecb", nil), http.StatusTooManyRequests, "RATE_LIMITED")
	if r == nil || fetches.Load() != 1 {
		t.Fatalf("fetches %d", fetches.Load())
	}
	env.Clock.Set(env.Clock.Now().Add(6 * time.Minute))
	ecb.Close()
	expectError(t, f.c.Post("/api/exchange-rates/ecb", nil), http.StatusBadGateway, "ECB_UNAVAILABLE")
}
