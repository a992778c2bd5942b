package browsertest_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/internal/testkit/browser"
)

// recordScene gives the person a wallet of 1,000.00 and a bank, a category, and
// transactions the scenarios look for; it returns the wallets' ids.
func recordScene(t *testing.T, s *scene) (cash, bank string) {
	t.Helper()
	cash = s.api.Post("/api/wallets", map[string]any{"name": "Cash", "balance": json.Number("1000.00"), "isDefault": true}).
		Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	bank = s.api.Post("/api/wallets", map[string]any{"name": "Bank", "balance": 1000}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	food := s.api.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	for _, tr := range []map[string]any{
		{"type": "expense", "amount": json.Number("45.10"), "description": "Súper del barrio", "date": "2026-03-01", "categoryId": food},
		{"type": "expense", "amount": json.Number("120.00"), "description": "Rent", "date": "2026-03-02", "categoryId": food},
		{"type": "income", "amount": json.Number("10.25"), "description": "Refund", "date": "2026-03-03"},
		{"type": "transfer", "amount": json.Number("50"), "description": "From the bank", "date": "2026-03-04", "walletId": bank, "toWalletId": cash},
		{"type": "transfer", "amount": json.Number("20.50"), "description": "To the bank", "date": "2026-03-05", "walletId": cash, "toWalletId": bank},
	} {
		s.api.Post("/api/transactions", tr).Expect(t, http.StatusCreated)
	}
	return cash, bank
}

// rowsText is the descriptions the transactions page lists, found by their column's
// header.
func rowsText(s *scene) string {
	return fmt.Sprintf(`[...document.querySelectorAll('main tbody td[data-label=%q]')].map((td) => td.innerText)`,
		s.view.say("Description", "Descripción"))
}

// Searching ignores accents and case ("super" finds "Súper") and finds amounts ("120"
// finds the 120.00 rent).
func TestSearchFindsAccentedWordsAndAmounts(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) { recordScene(t, s) }, func(t *testing.T, s *scene) {
		heading := s.view.say("Transactions", "Movimientos")
		for search, want := range map[string]string{"super": "Súper del barrio", "120": "Rent"} {
			s.open("/app/transactions?search="+search, heading)
			s.waitFor(fmt.Sprintf("%q found by %q alone", want, search), fmt.Sprintf(`JSON.stringify(%s) === %q`, rowsText(s), `["`+want+`"]`))
		}
		s.axe("search")
	})
}

// Each wallet card leads to the wallet's page: its transactions with the balance after
// each, as the API counts it, and a cleared mark that sticks.
func TestWalletPageShowsRunningBalancesAndClearedMarks(t *testing.T) {
	var cash string
	inEachView(t, func(t *testing.T, s *scene) { cash, _ = recordScene(t, s) }, func(t *testing.T, s *scene) {
		s.open("/app/wallets", s.view.say("Wallets", "Carteras"))
		s.eval(`document.querySelector('[data-wallet="Cash"] a').click()`, nil)
		s.waitFor("the wallet's page", `(document.querySelector('main h1') || {}).innerText === 'Cash' && document.querySelector('[data-running]')`)
		if !strings.HasSuffix(s.text("main h1"), "Cash") {
			t.Fatal("no wallet page")
		}
		listed := s.api.Get("/api/transactions?pageSize=25&walletId="+cash).Expect(t, http.StatusOK).List("transactions")
		digits := regexp.MustCompile(`[^0-9]`)
		var shown, want []string
		for _, tr := range listed {
			id := tr["id"].(string)
			shown = append(shown, digits.ReplaceAllString(s.text(`[data-running="`+id+`"]`), ""))
			want = append(want, digits.ReplaceAllString(fmt.Sprintf("%.2f", mustFloat(t, tr["runningBalance"])), ""))
		}
		// 1,000.00 - 45.10 - 120.00 + 10.25 + 50 - 20.50, newest first.
		if !slices.Equal(shown, want) || !slices.Equal(want, []string{"87465", "89515", "84515", "83490", "95490"}) {
			t.Fatalf("running balances shown %v, the API's %v", shown, want)
		}
		s.axe("wallet")

		rent := listed[3]["id"].(string)
		s.eval(`document.querySelector('[data-cleared="`+rent+`"]').click()`, nil)
		waitUntil(t, "the cleared mark recorded", func() bool {
			return s.api.Get("/api/transactions/"+rent).Expect(t, http.StatusOK).Object("transaction")["cleared"] == true
		})
		s.do(chromedp.Reload())
		s.waitFor("the mark after a reload", `document.querySelector('[data-cleared="`+rent+`"]') && document.querySelector('[data-cleared="`+rent+`"]').checked`)
	})
}

func mustFloat(t *testing.T, v any) float64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("not a number: %v", v)
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The profile offers the workspace's records as a zip: a CSV per resource and one JSON.
func TestExportDownloadsAZipOfEveryRecord(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) { recordScene(t, s) }, func(t *testing.T, s *scene) {
		downloads := t.TempDir()
		browser.AllowDownloads(t, s.ctx, downloads)
		s.open("/app/profile", s.view.say("Profile", "Perfil"))
		s.axe("export")
		label := s.view.say("Export all data", "Exportar todos los datos")
		s.eval(fmt.Sprintf(`[...document.querySelectorAll('main button')].find((b) => b.innerText === %q).click()`, label), nil)
		data := waitForFile(t, downloads, ".zip")
		z, err := zip.NewReader(strings.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range z.File {
			names = append(names, f.Name)
		}
		want := []string{"wallets.csv", "categories.csv", "tags.csv", "transactions.csv", "budgets.csv", "goals.csv", "debts.csv",
			"recurring-payments.csv", "members.csv", "attachments.csv", "finledger.json"}
		if !slices.Equal(names, want) {
			t.Fatalf("the zip holds %v, want %v", names, want)
		}
		r, err := z.Open("transactions.csv")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		csv, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(csv), "Súper del barrio") || !strings.Contains(string(csv), ",120.00,") {
			t.Fatalf("transactions.csv:\n%s", csv)
		}
	})
}
