package webapp_test

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

// longest is a value of the greatest length the API accepts for a field, in the widest
// letter and with no place to break a line: what a layout must still hold.
func longest(n int) string { return strings.Repeat("W", n) }

// fillToTheBrim gives every page its longest values: names of every record at the
// API's limits, a description of 255 characters, amounts of thirteen digits.
func fillToTheBrim(t *testing.T, api *apitest.Client) {
	t.Helper()
	today := time.Now().In(mexicoCity).Format(time.DateOnly)
	wallet := api.Do("POST", "/api/wallets", map[string]any{"name": longest(50), "balance": json.Number("9999999999999.99"), "isDefault": true}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/wallets", map[string]any{"name": longest(49), "balance": json.Number("1234567890123.45"), "currency": "USD"}).Expect(t, http.StatusOK)
	api.Do("PUT", "/api/exchange-rates", map[string]any{"date": today, "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": 17.5}}}).Expect(t, http.StatusOK)
	category := api.Do("POST", "/api/categories", map[string]any{"name": longest(100)}).Expect(t, http.StatusOK)
	walletID, categoryID := wallet.Object("wallet")["id"], category.Object("category")["id"]
	for i := range 3 {
		api.Do("POST", "/api/transactions", map[string]any{"type": "expense", "amount": json.Number("1234567890.12"), "walletId": walletID,
			"categoryId": categoryID, "description": longest(254) + fmt.Sprint(i), "date": today}).Expect(t, http.StatusCreated)
	}
	api.Do("POST", "/api/budgets", map[string]any{"name": longest(100), "amount": json.Number("9999999999999.99"), "categoryId": categoryID,
		"startDate": today[:8] + "01", "endDate": "2099-12-31"}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/goals", map[string]any{"name": longest(100), "targetAmount": json.Number("9999999999999.99")}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/debts", map[string]any{"name": longest(100), "creditor": longest(100), "totalAmount": json.Number("9999999999999.99")}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/recurrent", map[string]any{"name": longest(100), "amount": json.Number("9999999999999.99"), "kind": "expense",
		"periodicity": "monthly", "nextPayment": today, "walletId": walletID, "categoryId": categoryID}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/webhooks/outbound", map[string]any{"name": longest(100), "url": "https://" + longest(60) + ".example.com/" + longest(150),
		"events": []string{"transaction.created"}}).Expect(t, http.StatusOK)
	api.Do("POST", "/api/api-keys", map[string]any{"name": longest(80), "scopes": []string{"transactions:read"}}).Expect(t, http.StatusOK)
	api.Do("PATCH", "/api/me", map[string]any{"firstName": longest(100), "lastName": longest(100)}).Expect(t, http.StatusOK)
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
		s.waitFor("the long description, whole", fmt.Sprintf(`document.querySelector('main tbody').innerText.includes(%q)`, longest(254)+"0"))
	})
}
