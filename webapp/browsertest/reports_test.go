package browsertest_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/internal/testkit/browser"
)

// reportMonth is the first day of the business month months away from today's.
func reportMonth(months int) time.Time {
	zone, _ := time.LoadLocation("America/Mexico_City")
	now := time.Now().In(zone)
	return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, months, 0)
}

var spanishMonths = []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
	"noviembre", "diciembre"}

// monthLabel is a month as the view names it.
func (v view) monthLabel(m time.Time) string {
	return v.say(m.Format("January 2006"), fmt.Sprintf("%s de %d", spanishMonths[m.Month()-1], m.Year()))
}

// record posts transactions through the API: each {type, amount, date, wallet, category}.
func (s *scene) record(wallet string, lines ...[4]string) {
	s.t.Helper()
	for _, l := range lines {
		body := map[string]any{"type": l[0], "amount": json.Number(l[1]), "date": l[2], "walletId": wallet}
		if l[3] != "" {
			body["categoryId"] = l[3]
		}
		if r := s.api.Post("/api/transactions", body); r.Status != 201 {
			s.t.Fatalf("recording %v: %d %s", l, r.Status, r.Raw)
		}
	}
}

// id creates a record through the API and returns its id.
func (s *scene) id(path, key string, body map[string]any) string {
	s.t.Helper()
	r := s.api.Post(path, body)
	if r.Status != 200 {
		s.t.Fatalf("POST %s: %d %s", path, r.Status, r.Raw)
	}
	return r.Object(key)["id"].(string)
}

// Eight categories in the month: all of them shown, the smallest as "Other" naming what
// it holds, on one scale (the dollars, without a rate, beside the chart and not drawn),
// under labels that name the month, in text legible at 360 px; and income and expenses
// of the twelve months.
func TestReportsChartEveryCategoryLegibly(t *testing.T) {
	this, back, first := reportMonth(0), reportMonth(-2), reportMonth(-11)
	day := func(m time.Time, d int) string { return m.AddDate(0, 0, d-1).Format(time.DateOnly) }
	inEachView(t, func(t *testing.T, s *scene) {
		pesos := s.id("/api/wallets", "wallet", map[string]any{"name": "Bank", "balance": 0, "isDefault": true})
		dollars := s.id("/api/wallets", "wallet", map[string]any{"name": "Dollars", "currency": "USD"})
		for i, amount := range []string{"8500", "700", "600", "500", "400.10", "30.05", "20", "10.5"} {
			c := s.id("/api/categories", "category", map[string]any{"name": fmt.Sprintf("Cat %c", 'A'+i)})
			s.record(pesos, [4]string{"expense", amount, day(this, 1), c})
			if i == 0 { // two months back, where the Overview's summaries do not look, for want of a rate
				s.record(dollars, [4]string{"expense", "57.98", day(back, 1), c})
			}
		}
		s.record(pesos, [4]string{"income", "3000", day(first, 15), ""}, [4]string{"expense", "99.99", day(first, 16), ""},
			[4]string{"income", "2500", day(this, 1), ""})
	}, func(t *testing.T, s *scene) {
		s.open("/app/reports", s.view.say("Reports", "Reportes"))
		s.waitFor("the chart", `document.querySelectorAll('main .bars').length === 2`)
		var rows []string
		s.eval(`[...document.querySelectorAll('main .bars')[0].children].map((li) => li.innerText.replace(/\s+/g, ' '))`, &rows)
		if len(rows) != 6 || !strings.HasPrefix(rows[0], "Cat A") || !strings.HasPrefix(rows[5], s.view.say("Other: ", "Otras: ")) {
			t.Fatalf("the chart's rows: %q", rows)
		}
		for _, name := range []string{"Cat E", "Cat F", "Cat G", "Cat H"} {
			if !strings.Contains(rows[4]+rows[5], name) {
				t.Errorf("the chart does not show %s: %q", name, rows)
			}
		}
		// One scale: the widths of the bars go as the amounts, the dollars not drawn.
		var widths []float64
		s.eval(`[...document.querySelectorAll('main .bars')[0].querySelectorAll('.bar')].map((b) => b.getBoundingClientRect().width)`, &widths)
		if ratio := widths[1] / widths[0]; ratio < 0.07 || ratio > 0.095 { // 700 / 8,500
			t.Errorf("bar widths %v", widths)
		}
		label := s.view.monthLabel(this)
		if h := s.text("#h-summary"); h != label {
			t.Errorf("the report is headed %q, not %q", h, label)
		}
		if h := s.text("main section h3"); h != s.view.say("Expenses by category, ", "Gastos por categoría, ")+label {
			t.Errorf("the chart is headed %q", h)
		}
		if stat := s.text("main .stat"); !strings.HasPrefix(stat, s.view.say("Income, ", "Ingreso, ")+label) || strings.Contains(stat, "this month") {
			t.Errorf("the income is labelled %q", stat)
		}

		// Twelve months, the oldest first, with their amounts.
		s.eval(`[...document.querySelectorAll('main .bars')[1].children].map((li) => li.innerText.replace(/\s+/g, ' '))`, &rows)
		if len(rows) != 12 || !strings.HasPrefix(rows[0], s.view.monthLabel(first)) || !strings.HasPrefix(rows[11], label) {
			t.Fatalf("the months: %q", rows)
		}
		if !strings.Contains(rows[0], "+"+s.view.say("MX$3,000.00", "$3,000.00")) || !strings.Contains(rows[0], "−"+s.view.say("MX$99.99", "$99.99")) ||
			!strings.Contains(rows[11], "+"+s.view.say("MX$2,500.00", "$2,500.00")) || !strings.Contains(rows[11], "−"+s.view.say("MX$10,760.65", "$10,760.65")) {
			t.Errorf("the months' amounts: %q", rows)
		}
		if note := s.text("main section:nth-of-type(2) p.muted"); !strings.Contains(note, "MXN") || !strings.Contains(note, "57.98") {
			t.Errorf("the dollars without a rate are not listed beside the months: %q", note)
		}
		// The range names its year once when both ends share it ("January – December 2026").
		from := s.view.monthLabel(first)
		if first.Year() == this.Year() {
			from = s.view.say(first.Format("January"), spanishMonths[first.Month()-1])
		}
		if h := s.text("#h-months"); !strings.HasSuffix(h, from+" – "+label) && !strings.HasSuffix(h, from+"–"+label) {
			t.Errorf("the months are headed %q, not from %q to %q", h, from, label)
		}

		// Legible on a phone: no text of the charts under 12 px, no sideways scroll.
		var smallest float64
		s.eval(`Math.min(...[...document.querySelectorAll('main .bars span, main h3')].filter((e) => e.innerText)
			.map((e) => parseFloat(getComputedStyle(e).fontSize)))`, &smallest)
		if smallest < 12 {
			t.Errorf("the charts' smallest text is %.1f px", smallest)
		}
		var wide bool
		s.eval(`document.documentElement.scrollWidth > innerWidth`, &wide)
		if wide {
			t.Error("the report scrolls sideways")
		}
		s.axe("reports-chart")

		// The dollars' month: listed beside the chart, not drawn on a scale of their own.
		s.open("/app/reports?from="+day(back, 1)+"&to="+back.AddDate(0, 1, -1).Format(time.DateOnly), s.view.say("Reports", "Reportes"))
		s.waitFor("the dollars' month", fmt.Sprintf(`document.querySelector('#h-summary').innerText === %q`, s.view.monthLabel(back)))
		if n := s.text("main section:first-of-type .bars"); n != "" {
			t.Errorf("the dollars are drawn: %q", n)
		}
		if note := s.text("main section p.muted"); !strings.Contains(note, "MXN") || !strings.Contains(note, "57.98") {
			t.Errorf("the dollars without a rate are not listed beside the chart: %q", note)
		}
	})
}

// A range picked, by a preset or by dates, names its period, shows its totals, and is
// what the CSV and PDF downloads cover.
func TestReportsOverAChosenRange(t *testing.T) {
	last := reportMonth(-1)
	day := func(d int) string { return last.AddDate(0, 0, d-1).Format(time.DateOnly) }
	inEachView(t, func(t *testing.T, s *scene) {
		w := s.id("/api/wallets", "wallet", map[string]any{"name": "Bank", "balance": 0, "isDefault": true})
		c := s.id("/api/categories", "category", map[string]any{"name": "Rent"})
		s.record(w, [4]string{"expense", "1200.50", day(2), c}, [4]string{"expense", "300", day(20), c})
	}, func(t *testing.T, s *scene) {
		s.open("/app/reports", s.view.say("Reports", "Reportes"))
		s.do(chromedp.Click(fmt.Sprintf(`//button[text()=%q]`, s.view.say("Last month", "Mes pasado"))))
		label := s.view.monthLabel(last)
		s.waitFor("last month's report", fmt.Sprintf(`document.querySelector('#h-summary').innerText === %q`, label))
		if stat := s.text("main .stat:nth-child(2)"); !strings.Contains(stat, s.view.say("Expenses, ", "Gastos, ")+label) ||
			!strings.Contains(stat, s.view.say("MX$1,500.50", "$1,500.50")) {
			t.Errorf("last month's expenses: %q", stat)
		}
		var pressed string
		s.eval(`document.querySelector('[aria-pressed="true"]').innerText`, &pressed)
		if pressed != s.view.say("Last month", "Mes pasado") {
			t.Errorf("the preset shown as chosen is %q", pressed)
		}

		// Days 1 to 15 of last month: the first expense only.
		s.fill(`main form[aria-label]`, map[string]string{"from": day(1), "to": day(15)})
		s.waitFor("the range's report", `location.search.includes('to=`+day(15)+`') && document.querySelector('#h-summary')`)
		s.waitFor("the range's totals", fmt.Sprintf(`document.querySelector('main .stat:nth-child(2)').innerText.includes(%q)`,
			s.view.say("MX$1,200.50", "$1,200.50")))
		if h := s.text("#h-summary"); h == label || !strings.Contains(h, "15") || !strings.Contains(h, last.Format("2006")) {
			t.Errorf("the range is named %q", h)
		}
		s.axe("reports-range")

		// A range that ends before it starts is refused on the form.
		s.fill(`main form[aria-label]`, map[string]string{"from": day(15), "to": day(1)})
		s.waitFor("the error", `document.querySelector('[data-field="to"] .field-error').innerText !== ''`)

		// The downloads cover the range shown.
		dir := t.TempDir()
		browser.AllowDownloads(t, s.ctx, dir)
		s.do(chromedp.Click(fmt.Sprintf(`//button[text()=%q]`, s.view.say("Download CSV", "Descargar CSV"))))
		csv := waitForFile(t, dir, ".csv")
		if !strings.Contains(csv, "1200.5") || strings.Contains(csv, day(20)) {
			t.Errorf("the CSV does not cover days 1 to 15:\n%s", csv)
		}
		if named, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("finledger-%s-%s.csv", day(1), day(15)))); len(named) != 1 {
			t.Error("the CSV is not named after the range")
		}
	})
}
