package browsertest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// twoCurrencies gives the person a peso wallet and a dollar wallet, a category, and
// this month an income in pesos and an expense in dollars, with no exchange rate.
func twoCurrencies(t *testing.T, s *scene) {
	today := time.Now().In(mexicoCity).Format(time.DateOnly)
	ids := map[string]string{}
	for _, w := range []map[string]any{{"name": "Pesos", "balance": 0, "isDefault": true}, {"name": "Dollars", "balance": 0, "currency": "USD"}} {
		ids[w["name"].(string)] = s.api.Post("/api/wallets", w).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	}
	food := s.api.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	s.api.Post("/api/transactions", map[string]any{"type": "income", "amount": 100, "date": today, "walletId": ids["Pesos"]}).Expect(t, http.StatusCreated)
	s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10, "date": today, "walletId": ids["Dollars"], "categoryId": food}).
		Expect(t, http.StatusCreated)
}

// amountIs waits for a stat of the page to read an amount.
func (s *scene) amountIs(id, want string) {
	s.t.Helper()
	s.waitFor(id+" reading "+want, fmt.Sprintf(`(document.querySelector('[data-testid=%q] strong') || {}).innerText === %q`, id, want))
}

// A dollar wallet in a peso workspace with no rate never blanks the overview: each
// currency's amounts show, the quick form records, and a notice links to the rates
// page, where the person enters a rate; the overview then shows the converted totals.
func TestOverviewWithoutARate(t *testing.T) {
	inEachView(t, twoCurrencies, func(t *testing.T, s *scene) {
		s.waitFor("the notice of the missing rate", `document.querySelector('[data-testid=rate-notice]')`)
		if got := s.text(`[data-testid=rate-notice] li`); got != "USD → MXN: "+s.view.say("no exchange rate in force.", "sin tipo de cambio vigente.") {
			t.Fatalf("the notice reads %q", got)
		}
		s.amountIs("income-MXN", s.view.say("MX$100.00", "$100.00"))
		s.amountIs("expenses-USD", s.view.say("$10.00", "USD\u00a010.00"))
		s.axe("overview-without-a-rate")
		s.fill(`form.record`, map[string]string{"amount": "5", "description": "Tacos"})
		s.amountIs("expenses-MXN", s.view.say("MX$5.00", "$5.00"))
		if n := len(s.api.Get("/api/transactions?search=Tacos").Expect(t, http.StatusOK).List("transactions")); n != 1 {
			t.Fatalf("the quick form recorded %d transactions", n)
		}

		// Clicked in the page in one step: a live redraw of the overview (the quick form's
		// event arriving) may replace the notice between finding it and clicking it.
		s.eval(`document.querySelector('[data-testid=rate-notice] a').click()`, nil)
		s.waitFor("the rates page", fmt.Sprintf(`document.querySelector('main h1').innerText === %q && document.querySelector('[data-testid=rate-notice]')`,
			s.view.say("Exchange rates", "Tipos de cambio")))
		s.axe("rates-page")
		s.fill(fmt.Sprintf(`form[aria-label=%q]`, s.view.say("Enter a rate", "Fijar un tipo")), map[string]string{"rates[0].base": "usd", "rates[0].quote": "MXN", "rates[0].rate": "17.5"})
		s.waitFor("the rate in force", `!document.querySelector('[data-testid=rate-notice]') && [...document.querySelectorAll('main td')].some((td) => td.innerText === '17.5')`)

		s.open("/app/", s.view.say("Overview", "Resumen"))
		// 10 USD at 17.5 and 5 MXN.
		s.amountIs("expenses-total", s.view.say("MX$180.00", "$180.00"))
		s.amountIs("income-total", s.view.say("MX$100.00", "$100.00"))
		if s.text(`[data-testid=rate-notice]`) != "" {
			t.Fatal("the notice stays with the rate in force")
		}
		s.axe("overview-with-the-rate")
	})
}

// Reports show each currency and the notice without a rate, and the converted totals
// with one.
func TestReportsWithoutARate(t *testing.T) {
	inEachView(t, twoCurrencies, func(t *testing.T, s *scene) {
		s.open("/app/reports", s.view.say("Reports", "Reportes"))
		s.waitFor("the notice of the missing rate", `document.querySelector('[data-testid=rate-notice] a[href="/app/rates"]')`)
		s.amountIs("expenses-USD", s.view.say("$10.00", "USD\u00a010.00"))
		s.amountIs("income-MXN", s.view.say("MX$100.00", "$100.00"))
		if s.text(`[data-testid=expenses-total]`) != "" {
			t.Fatal("a converted total without a rate")
		}
		s.axe("reports-without-a-rate")
		today := time.Now().In(mexicoCity).Format(time.DateOnly)
		s.api.Do("PUT", "/api/exchange-rates", map[string]any{"date": today, "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": 17.5}}}).
			Expect(t, http.StatusOK)
		s.open("/app/reports", s.view.say("Reports", "Reportes"))
		s.amountIs("expenses-total", s.view.say("MX$175.00", "$175.00"))
		if s.text(`[data-testid=rate-notice]`) != "" {
			t.Fatal("the notice stays with the rate in force")
		}
	})
}

// The ECB's rates are imported from the rates page: a dollar wallet with no rate learns
// the last one the ECB published (the feed the tests serve is of 2026-03-09, too old to be
// in force today), which the notice then gives.
func TestTheECBsRatesAreImported(t *testing.T) {
	inEachView(t, twoCurrencies, func(t *testing.T, s *scene) {
		s.open("/app/rates", s.view.say("Exchange rates", "Tipos de cambio"))
		s.waitFor("the notice without a rate known", `document.querySelector('[data-testid=rate-notice] li')`)
		before := s.text(`[data-testid=rate-notice] li`)
		s.do(chromedp.Click(fmt.Sprintf(`form[aria-label=%q] button[type=submit]`, s.view.say("ECB", "BCE"))))
		s.waitFor("the notice with the ECB's last rate", fmt.Sprintf(`(document.querySelector('[data-testid=rate-notice] li') || {}).innerText !== %q`, before))
		// 18.4765 MXN and 1.0831 USD to the euro: 17.058904994918 MXN to the dollar.
		want := before + s.view.say(" Last known: 17.058904994918 (Mar 9, 2026).", " Último: 17.058904994918 (9 mar 2026).")
		if got := s.text(`[data-testid=rate-notice] li`); got != want {
			t.Fatalf("after the import the notice reads %q, want %q", got, want)
		}
		rates := s.api.Get("/api/exchange-rates?date=2026-03-09").Expect(t, http.StatusOK).List("rates")
		if len(rates) != 2 || rates[0]["source"] != "ecb" {
			t.Fatalf("the ECB's rates of 2026-03-09 as the API lists them: %v", rates)
		}
		s.axe("rates-imported")
	})
}
