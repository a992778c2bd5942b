package webapp_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/browser"
)

// furnish gives the development person a month a person would recognise: two wallets in
// two currencies with today's rate, categories, a budget, a dozen incomes and expenses,
// a goal, a debt, a recurring payment, a webhook and a key.
func furnish(t *testing.T, api *apitest.Client) {
	t.Helper()
	now := time.Now().In(mexicoCity)
	today := now.Format(time.DateOnly)
	cash := api.Do("POST", "/api/wallets", map[string]any{"name": "Cash", "balance": json.Number("2500.00"), "isDefault": true}).Expect(t, http.StatusOK).Object("wallet")["id"]
	api.Do("POST", "/api/wallets", map[string]any{"name": "Dollars", "balance": json.Number("340.25"), "currency": "USD"}).Expect(t, http.StatusOK)
	api.Do("PUT", "/api/exchange-rates", map[string]any{"date": today, "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": json.Number("17.2345")}}}).Expect(t, http.StatusOK)
	categories := map[string]any{}
	for _, name := range []string{"Groceries", "Rent", "Transport", "Salary", "Eating out"} {
		categories[name] = api.Do("POST", "/api/categories", map[string]any{"name": name}).Expect(t, http.StatusOK).Object("category")["id"]
	}
	for i, tx := range []struct{ kind, category, description, amount string }{
		{"income", "Salary", "November salary", "18500.00"}, {"expense", "Rent", "Flat", "7800.00"},
		{"expense", "Groceries", "Súper", "1234.50"}, {"expense", "Transport", "Metro card", "150.00"},
		{"expense", "Eating out", "Tacos al pastor", "185.00"}, {"expense", "Groceries", "Market", "412.80"},
		{"expense", "Transport", "Taxi home", "96.00"}, {"expense", "Eating out", "Coffee", "58.00"},
		{"income", "Salary", "Freelance invoice", "3200.00"}, {"expense", "Groceries", "Bakery", "74.50"},
		{"expense", "Eating out", "Dinner with Ana", "640.00"}, {"expense", "Transport", "Bike repair", "320.00"},
	} {
		day := now.AddDate(0, 0, -i).Format(time.DateOnly)
		api.Do("POST", "/api/transactions", map[string]any{"type": tx.kind, "amount": json.Number(tx.amount), "walletId": cash,
			"categoryId": categories[tx.category], "description": tx.description, "date": day}).Expect(t, http.StatusCreated)
	}
	api.Do("POST", "/api/budgets", map[string]any{"name": "Food", "amount": json.Number("3000.00"), "categoryId": categories["Groceries"],
		"startDate": today[:8] + "01", "endDate": "2099-12-31"}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/goals", map[string]any{"name": "Trip to Oaxaca", "targetAmount": json.Number("12000.00")}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/debts", map[string]any{"name": "Laptop", "creditor": "Store card", "totalAmount": json.Number("9600.00")}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/recurrent", map[string]any{"name": "Internet", "amount": json.Number("499.00"), "kind": "expense",
		"periodicity": "monthly", "nextPayment": now.AddDate(0, 0, 5).Format(time.DateOnly), "walletId": cash, "categoryId": categories["Rent"]}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/webhooks/outbound", map[string]any{"name": "Bookkeeping", "url": "https://books.example.com/hooks/finledger",
		"events": []string{"transaction.created"}}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/api-keys", map[string]any{"name": "Phone shortcut", "scopes": []string{"transactions:write"}}).Expect(t, http.StatusOK)
}

// screenshotsDir is where the tour keeps its pictures for the docs, when set:
// FINLEDGER_DOCS_SCREENSHOTS=docs/screenshots (relative to the repository).
const screenshotsDir = "FINLEDGER_DOCS_SCREENSHOTS"

// TestTourOfEveryPage visits every page of the navigation with a month of records, in
// English at 1280 px and in Spanish at 360 px: each draws without an error, with its
// records, and axe finds nothing. With FINLEDGER_DOCS_SCREENSHOTS set it keeps a
// screenshot of each page there, for the docs (docs/screenshots).
func TestTourOfEveryPage(t *testing.T) {
	docs := os.Getenv(screenshotsDir)
	if docs != "" && !filepath.IsAbs(docs) {
		docs = filepath.Join("..", docs)
	}
	inEachView(t, func(t *testing.T, s *scene) { furnish(t, s.api) }, func(t *testing.T, s *scene) {
		var links []string
		s.eval(`[...document.querySelectorAll('#nav a[href^="/app/"]')].map(a => a.getAttribute('href'))`, &links)
		for _, link := range links {
			s.do(chromedp.Navigate(s.url + link))
			s.waitFor("the page "+link, `document.querySelector('main h1') && !document.querySelector('main .loading')`)
			time.Sleep(300 * time.Millisecond) // the page's reads land
			var shown string
			s.eval(`document.querySelector('main').innerText`, &shown)
			if strings.Contains(shown, "undefined") || strings.Contains(shown, "NaN") || strings.Contains(shown, "[object") {
				t.Errorf("%s shows a value that is not one:\n%s", link, shown)
			}
			browser.Axe(t, s.ctx)
			if docs == "" {
				continue
			}
			name := strings.TrimPrefix(strings.TrimSuffix(link, "/"), "/app")
			if name == "" {
				name = "/overview"
			}
			picture, err := chromedp.Run(s.ctx, chromedp.FullScreenshot(80))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(docs, strings.TrimPrefix(name, "/")+"-"+s.view.Name+".jpg")
			if err := os.WriteFile(file, picture, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}
