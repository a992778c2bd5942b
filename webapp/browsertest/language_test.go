package browsertest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// furnish gives the person's personal workspace something on every page: a wallet with
// its colour, a category, a budget spent past its amount, a goal with a deposit, a debt
// with a payment, a recurring payment, a webhook and an API key; and a team. Names are
// no dictionary words, so that a name is never taken for an untranslated word.
func furnish(t *testing.T, s *scene) (ids map[string]string) {
	t.Helper()
	ids = map[string]string{}
	now := time.Now().In(mexicoCity)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	create := func(key, path, object string, body map[string]any) {
		t.Helper()
		res := s.api.Do("POST", path, body)
		if res.Status != http.StatusOK && res.Status != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", path, res.Status, res.Raw)
		}
		if key != "" {
			ids[key], _ = res.Object(object)["id"].(string)
		}
	}
	create("wallet", "/api/wallets", "wallet", map[string]any{"name": "Banorte", "balance": 5000, "cardColor": "#1a1a1a", "isDefault": true})
	create("category", "/api/categories", "category", map[string]any{"name": "Súper"})
	create("budget", "/api/budgets", "budget", map[string]any{"name": "Despensa", "categoryId": ids["category"], "amount": 500,
		"period": "monthly", "alertThreshold": 80, "startDate": month.Format(time.DateOnly), "endDate": month.AddDate(1, 0, 0).Format(time.DateOnly)})
	create("", "/api/transactions", "", map[string]any{"type": "expense", "amount": json.Number("1702.75"), "walletId": ids["wallet"],
		"categoryId": ids["category"], "description": "Mercado"})
	create("goal", "/api/goals", "goal", map[string]any{"name": "Oaxaca", "targetAmount": 400, "currency": "MXN"})
	create("", "/api/goals/"+ids["goal"]+"/deposit", "", map[string]any{"amount": 100, "walletId": ids["wallet"]})
	create("debt", "/api/debts", "debt", map[string]any{"name": "Préstamo", "creditor": "Ana", "totalAmount": 300, "currency": "MXN"})
	create("", "/api/debts/"+ids["debt"]+"/payments", "", map[string]any{"amount": 50, "walletId": ids["wallet"]})
	create("", "/api/recurrent", "", map[string]any{"name": "Internet", "amount": 25.5, "kind": "expense", "periodicity": "monthly",
		"walletId": ids["wallet"], "categoryId": ids["category"], "nextPayment": now.Format(time.DateOnly)})
	create("", "/api/webhooks/outbound", "", map[string]any{"name": "Libros", "url": "https://example.com/hook", "events": []string{"transaction.created"}})
	create("", "/api/api-keys", "", map[string]any{"name": "Respaldo", "scopes": []string{"transactions:read"}})
	create("team", "/api/workspaces", "workspace", map[string]any{"name": "Casa", "currency": "MXN"})
	return ids
}

// words reads the app's dictionary from i18n.js, and the words the modules fetched when
// opened bring (import.js, receipts.js, splits.js, proposals.js): each English phrase or term and its Spanish,
// where the two differ.
func words(t *testing.T) map[string]string {
	t.Helper()
	var src []byte
	for _, file := range []string{"../assets/js/i18n.js", "../assets/js/import.js", "../assets/js/receipts.js", "../assets/js/splits.js", "../assets/js/proposals.js"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, data...)
	}
	out := map[string]string{}
	quoted := `'((?:[^'\\]|\\.)*)'`
	for _, m := range regexp.MustCompile(quoted+`:\s*`+quoted).FindAllStringSubmatch(string(src), -1) {
		out[m[1]] = m[2]
	}
	for _, m := range regexp.MustCompile(`\[`+quoted+`,\s*`+quoted+`\]`).FindAllStringSubmatch(string(src), -1) {
		out[m[1]] = m[2]
	}
	for en, es := range out {
		if en == es {
			delete(out, en)
		}
	}
	if len(out) < 100 {
		t.Fatalf("read %d words from i18n.js", len(out))
	}
	return out
}

// untranslated lists what the page shows that no person should read: in Spanish an
// English phrase of the dictionary, and in any language "null", "undefined", "NaN",
// "[object", or an API code (snake_case, a dotted event name) outside code elements,
// which hold what a person types to the API (a URL, an event name, a key's prefix).
func (s *scene) untranslated(english map[string]string) []string {
	s.t.Helper()
	if s.view.Language == "en" {
		english = map[string]string{}
	}
	var found []string
	s.eval(fmt.Sprintf(`(() => {
		const english = %s, found = [];
		const raw = /\b(null|undefined|NaN)\b|\[object|\b[a-z]+_[a-z_]+\b|\b(transaction|wallet|category|budget|goal|debt|recurring|webhook|member|user|workspace|api_key|tag)\.[a-z_]+/;
		const check = (text, where) => {
			text = text.trim();
			if (!text) return;
			if (english[text] || raw.test(text) && !where.closest('code')) found.push(text);
		};
		const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n; (n = walk.nextNode());) if (!n.parentElement.closest('script,style,[hidden]')) check(n.data, n.parentElement);
		for (const el of document.querySelectorAll('[aria-label],[title],[placeholder],[data-label]')) {
			for (const a of ['aria-label', 'title', 'placeholder', 'data-label']) if (el.hasAttribute(a)) check(el.getAttribute(a), el);
		}
		return found;
	})()`, mustJSON(english)), &found)
	return found
}

// TestEveryPageSpeaksThePersonsLanguage walks every page of the menu with something on
// each, the link code asked for, and the team's page in the team: nothing English in
// Spanish, nothing raw in either language; the concepts the service wrote into a goal's
// deposit and a debt's payment in the workspace's language.
func TestEveryPageSpeaksThePersonsLanguage(t *testing.T) {
	english := words(t)
	var ids map[string]string
	inEachView(t, func(t *testing.T, s *scene) { ids = furnish(t, s) }, func(t *testing.T, s *scene) {
		var nav [][2]string
		s.eval(`[...document.querySelectorAll('#nav a')].map(a => [a.getAttribute('href'), a.textContent])`, &nav)
		if len(nav) < 14 {
			t.Fatalf("the menu has %d pages", len(nav))
		}
		look := func(name string) {
			t.Helper()
			if bad := s.untranslated(english); len(bad) > 0 {
				t.Errorf("%s shows %q", name, bad)
			}
		}
		for _, item := range nav {
			s.open(item[0], item[1])
			s.waitFor("the page drawn", `!document.querySelector('main .loading')`)
			if item[0] == "/app/transactions" {
				// The service's own words in records follow the workspace's language,
				// the personal workspace's its owner's.
				for _, want := range []string{s.view.say("Deposit to Oaxaca", "Depósito a Oaxaca"), s.view.say("Payment: Préstamo", "Pago: Préstamo")} {
					s.waitFor(want, fmt.Sprintf(`document.querySelector('main tbody').innerText.includes(%q)`, want))
				}
			}
			if item[0] == "/app/profile" {
				s.do(chromedp.Click(fmt.Sprintf(`//button[text()=%q]`, s.view.say("Get a link code", "Obtener un código de enlace"))))
				s.waitFor("the link code", `document.querySelector('[data-testid=link-code]')`)
			}
			look(item[0])
		}
		s.do(chromedp.SetValue(`#workspace`, ids["team"]))
		s.eval(`document.getElementById('workspace').dispatchEvent(new Event('change'))`, nil)
		s.open("/app/team", s.view.say("Team", "Equipo")+": Casa")
		s.waitFor("the members", `document.querySelector('main tbody tr')`)
		look("the team's page")
		s.axe("team-" + s.view.Name)
	})
}

// mustJSON writes a value as JSON for a script.
func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// TestTheAuditLogSaysWhatChanged: an expense recorded and then corrected reads, in the
// audit log, as a creation named by its description and a change of its amount from
// what it was to what it is, in the person's words and money.
func TestTheAuditLogSaysWhatChanged(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		wallet := s.api.Post("/api/wallets", map[string]any{"name": "Banorte", "balance": 1000, "isDefault": true}).Expect(t, http.StatusOK).Object("wallet")
		category := s.api.Post("/api/categories", map[string]any{"name": "Súper"}).Expect(t, http.StatusOK).Object("category")
		tx := s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 100, "walletId": wallet["id"],
			"categoryId": category["id"], "description": "Market"}).Expect(t, http.StatusCreated).Object("transaction")
		s.api.With("Idempotency-Key", "correct-market").Patch("/api/transactions/"+tx["id"].(string), map[string]any{"amount": 120}).Expect(t, http.StatusOK)
	}, func(t *testing.T, s *scene) {
		s.open("/app/audit", s.view.say("Audit log", "Bitácora"))
		rows := `[...document.querySelectorAll('main tbody tr')].map(r => r.innerText)`
		for _, want := range []string{
			s.view.say("Changed transaction", "Cambio de movimiento"),
			s.view.say("Amount: MX$100.00 → MX$120.00", "Monto: $100.00 → $120.00"),
			s.view.say("Created transaction ‘Market’", "Creación de movimiento ‘Market’"),
			s.view.say("Wallet: Banorte", "Cartera: Banorte"),
			s.view.say("Created wallet ‘Banorte’", "Creación de cartera ‘Banorte’"),
		} {
			s.waitFor(want, fmt.Sprintf(`%s.some(r => r.includes(%q))`, rows, want))
		}
		s.axe("audit-" + s.view.Name)
	})
}

// TestSmallWordsSayWhatHappened: a budget spent past its amount says by how much, its bar
// marked over; a search that matches nothing says so with the search; the webhook's Test
// button tells how the delivery went; and in the dark theme a wallet's colour chip keeps
// an edge, even in a colour as dark as the card.
func TestSmallWordsSayWhatHappened(t *testing.T) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(receiver.Close)
	inEachView(t, func(t *testing.T, s *scene) {
		furnish(t, s)
		s.api.Patch("/api/me", map[string]any{"theme": "dark"}).Expect(t, http.StatusOK)
		s.api.Post("/api/webhooks/outbound", map[string]any{"name": "Recibos", "url": receiver.URL, "events": []string{"*"}}).Expect(t, http.StatusOK)
	}, func(t *testing.T, s *scene) {
		s.open("/app/budgets", s.view.say("Budgets", "Presupuestos"))
		budget := `document.querySelector('[data-budget="Despensa"]')`
		s.waitFor("the budget", budget)
		if got, want := s.text(`[data-budget="Despensa"] p`), s.view.say("MX$1,702.75 spent of MX$500.00 · Over by MX$1,202.75",
			"$1,702.75 gastado de $500.00 · Excedido por $1,202.75"); got != want {
			t.Errorf("the budget over its amount reads %q, want %q", got, want)
		}
		s.waitFor("the bar marked over", budget+`.querySelector('[role=progressbar]').dataset.state === 'over'`)

		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		s.fill(`form.filters`, map[string]string{"search": "nada de esto"})
		want := s.view.say("No transaction matches “nada de esto”.", "Ningún movimiento coincide con “nada de esto”.")
		s.waitFor("the empty search: "+want, fmt.Sprintf(`(document.querySelector('main .empty') || {}).innerText === %q`, want))

		s.open("/app/webhooks", "Webhooks")
		s.do(chromedp.Click(`//tr[td[text()="Recibos"]]//button[text()="` + s.view.say("Test", "Probar") + `"]`))
		want = s.view.say("Test sent: Delivered (HTTP 200)", "Prueba enviada: Entregado (HTTP 200)")
		s.waitFor("the test's outcome: "+want, fmt.Sprintf(`[...document.querySelectorAll('.toast span')].some(t => t.innerText === %q)`, want))

		s.open("/app/wallets", s.view.say("Wallets", "Carteras"))
		var chip struct {
			Theme, Border, Card string
			Width               float64
		}
		s.eval(`(() => { const c = getComputedStyle(document.querySelector('[data-wallet="Banorte"] .chip'));
			return { Theme: document.documentElement.dataset.theme, Border: c.borderTopColor, Width: parseFloat(c.borderTopWidth),
				Card: getComputedStyle(document.querySelector('[data-wallet="Banorte"]')).backgroundColor }; })()`, &chip)
		if chip.Theme != "dark" || chip.Width < 1 || chip.Border == chip.Card {
			t.Errorf("the wallet's chip in the %s theme has a %g px border in %s on a card of %s", chip.Theme, chip.Width, chip.Border, chip.Card)
		}
		s.axe("wallets-dark-" + s.view.Name)
	})
}
