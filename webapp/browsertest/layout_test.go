package browsertest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/browser"
)

// longest is a value of n characters in the widest letter, with no place to break a
// line: what a layout must still hold.
func longest(n int) string { return strings.Repeat("W", n) }

// fillToTheBrim gives every page its longest values: every record's names and texts at
// the lengths GET /api/limits gives, and amounts with as many digits as it allows.
func fillToTheBrim(t *testing.T, api *apitest.Client) {
	t.Helper()
	var limits struct {
		Amount  struct{ MaxIntegerDigits int }
		Lengths map[string]int
	}
	if err := json.Unmarshal(api.Do("GET", "/api/limits", nil).Expect(t, http.StatusOK).Raw, &limits); err != nil {
		t.Fatal(err)
	}
	text := func(field string) string {
		n := limits.Lengths[field]
		if n == 0 {
			t.Fatalf("GET /api/limits gives no length for %s", field)
		}
		return longest(n)
	}
	most := json.Number(strings.Repeat("9", limits.Amount.MaxIntegerDigits) + ".99")
	today := time.Now().In(mexicoCity).Format(time.DateOnly)
	wallet := api.Do("POST", "/api/wallets", map[string]any{"name": text("wallet.name"), "balance": most, "isDefault": true}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/wallets", map[string]any{"name": text("wallet.name")[1:], "balance": most, "currency": "USD"}).Expect(t, http.StatusOK)
	api.Do("PUT", "/api/exchange-rates", map[string]any{"date": today, "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": 17.5}}}).Expect(t, http.StatusOK)
	category := api.Do("POST", "/api/categories", map[string]any{"name": text("category.name")}).Expect(t, http.StatusOK)
	walletID, categoryID := wallet.Object("wallet")["id"], category.Object("category")["id"]
	for i := range 3 {
		api.Do("POST", "/api/transactions", map[string]any{"type": "expense", "amount": json.Number("1234567890.12"), "walletId": walletID,
			"categoryId": categoryID, "description": text("transaction.description")[1:] + fmt.Sprint(i), "date": today}).Expect(t, http.StatusCreated)
	}
	api.Do("POST", "/api/budgets", map[string]any{"name": text("budget.name"), "amount": most, "categoryId": categoryID,
		"startDate": today[:8] + "01", "endDate": "2099-12-31"}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/goals", map[string]any{"name": text("goal.name"), "targetAmount": most}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/debts", map[string]any{"name": text("debt.name"), "creditor": text("debt.creditor"), "totalAmount": most}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/recurrent", map[string]any{"name": text("recurring.name"), "amount": most, "kind": "expense",
		"periodicity": "monthly", "nextPayment": today, "walletId": walletID, "categoryId": categoryID}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/webhooks/outbound", map[string]any{"name": text("webhook.name"), "url": "https://" + longest(60) + ".example.com/" + longest(150),
		"events": []string{"transaction.created"}}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/api-keys", map[string]any{"name": text("apiKey.name"), "scopes": []string{"transactions:read"}}).Expect(t, http.StatusOK)
	api.Do("PATCH", "/api/me", map[string]any{"firstName": text("me.firstName"), "lastName": text("me.firstName")}).Expect(t, http.StatusOK)
}

// sidewaysScroll lists what scrolls sideways on the page as drawn: the page itself, or
// any element whose content is wider than its box and may be scrolled.
const sidewaysScroll = `((width) => {
	const out = [];
	const root = document.scrollingElement;
	if (root.scrollWidth > width) out.push('the page: ' + root.scrollWidth + ' px wide in ' + width);
	for (const el of document.querySelectorAll('main *, header *')) {
		const x = getComputedStyle(el).overflowX;
		if ((x === 'auto' || x === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
			out.push(el.tagName.toLowerCase() + '.' + el.className + ': ' + el.scrollWidth + ' px in ' + el.clientWidth);
		}
	}
	return out;
})`

// Every page of the app, with the longest values the API accepts, fits its width: at
// 360 px and at 1280 px nothing scrolls sideways, and the long text is all there to read.
func TestNoPageScrollsSideways(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) { fillToTheBrim(t, s.api) }, func(t *testing.T, s *scene) {
		var links []string
		s.eval(`[...document.querySelectorAll('#nav a[href^="/app/"]')].map(a => a.getAttribute('href'))`, &links)
		if len(links) < 10 {
			t.Fatalf("the navigation lists %d pages: %v", len(links), links)
		}
		for _, link := range links {
			s.do(chromedp.Navigate(s.url + link))
			s.waitFor("the page "+link, `document.querySelector('main h1') && !document.querySelector('main .loading')`)
			s.waitFor("the page's records drawn", `document.readyState === 'complete'`)
			time.Sleep(300 * time.Millisecond) // the page's reads land
			width := browser.DesktopWidth
			if s.view.Phone {
				width = browser.PhoneWidth
			}
			var wide []string
			s.eval(fmt.Sprintf("%s(%d)", sidewaysScroll, width), &wide)
			if len(wide) > 0 {
				s.axe("sideways" + strings.ReplaceAll(link, "/", "-"))
				t.Errorf("%s scrolls sideways at %s: %v", link, s.view.Name, wide)
			}
		}
		// The long description is there to read in full, not cut.
		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		s.waitFor("the long description, whole", `document.querySelector('main tbody').innerText.includes('WWWWWWWW0')`)
	})
}
