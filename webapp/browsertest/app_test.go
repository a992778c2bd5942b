package browsertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/browser"
	"github.com/finledger/finledger/webapp"
)

// devPerson is who the one-click development sign-in signs in.
var devPerson = session.Claims{Subject: "dev-user", Email: "dev@finledger.local", Name: "Dev User"}

// startApp runs the API with the web app and its one-click sign-in on a fresh database,
// with the realtime stream and the webhooks relay that feeds it, its clock at the
// present so that the browser's today is the server's.
func startApp(t *testing.T) *apitest.Env {
	t.Helper()
	env, events := apitest.StartAppEvents(t, webapp.Config{Dev: &devPerson})
	t.Cleanup(events.Run())
	env.Clock.Set(time.Now())
	return env
}

// page drives the app in one browser tab.
type page struct {
	t   *testing.T
	ctx context.Context
	url string
}

func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// eval runs a script in the page and decodes its value into out (nil: ignored).
func (p *page) eval(script string, out any) {
	p.t.Helper()
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[json.RawMessage](script, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: %v", script, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			p.t.Fatalf("%s: %v", script, err)
		}
	}
}

// waitFor polls a script until it is true, and fails with what describes it.
func (p *page) waitFor(what, script string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		// A page that is navigating (a form sent, a redirect) has no document to ask: that
		// is a page not ready yet, as long as the deadline allows.
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool]("!!("+script+")", chromedp.EvalAwaitPromise))
		if err == nil && ok {
			return
		}
		if err != nil && !strings.Contains(err.Error(), "navigated or closed") && !strings.Contains(err.Error(), "context was destroyed") {
			p.t.Fatalf("%s: %v", script, err)
		}
		if time.Now().After(deadline) {
			var text string
			p.eval(`document.querySelector('main').innerText`, &text)
			p.t.Fatalf("waited 15 s for %s; the page shows:\n%s\nits console: %v", what, text, browser.ConsoleErrors(p.t, p.ctx))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// text returns an element's visible text ("" when there is none).
func (p *page) text(selector string) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`(document.querySelector(%q) || {}).innerText || ''`, selector), &s)
	return s
}

// open goes to a page of the app and waits for its heading.
func (p *page) open(path, heading string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.url + path))
	p.waitFor("the page "+heading, fmt.Sprintf(`(document.querySelector('main h1') || {}).innerText === %q`, heading))
}

// fill sets a form's fields by name, as a person's typing would, and submits it.
func (p *page) fill(form string, fields map[string]string) {
	p.t.Helper()
	data, _ := json.Marshal(fields)
	var missing []string
	p.eval(fmt.Sprintf(`(() => {
		const form = document.querySelector(%q);
		if (!form) return ['the form itself'];
		const missing = [];
		for (const [name, value] of Object.entries(%s)) {
			const el = form.querySelector('[name="' + name + '"]');
			if (!el) { missing.push(name); continue; }
			if (el.type === 'checkbox') el.checked = value === 'true'; else el.value = value;
			el.dispatchEvent(new Event('input', { bubbles: true }));
			el.dispatchEvent(new Event('change', { bubbles: true }));
		}
		if (!missing.length) form.requestSubmit();
		return missing;
	})()`, form, data), &missing)
	if len(missing) > 0 {
		p.t.Fatalf("form %s has no fields %v", form, missing)
	}
}

// signIn signs in with one click from the sign-in page and waits for the overview.
func (p *page) signIn() {
	p.t.Helper()
	p.do(chromedp.Navigate(p.url + "/app/"))
	p.waitFor("the sign-in page", `document.querySelector('form[action="/auth/dev"] button')`)
	p.do(chromedp.Click(`form[action="/auth/dev"] button`))
	p.waitFor("the overview", `['Overview', 'Resumen'].includes((document.querySelector('main h1') || {}).innerText)`)
}

// check draws the page at both widths, keeps the screenshots and runs axe on each.
func (p *page) check(name string) {
	p.t.Helper()
	browser.Axe(p.t, p.ctx)
	browser.Screenshot(p.t, p.ctx, name+"-desktop")
	p.do(browser.Phone())
	p.waitFor("the phone layout", `innerWidth === 360`)
	browser.Axe(p.t, p.ctx)
	browser.Screenshot(p.t, p.ctx, name+"-phone")
	p.do(browser.Desktop())
}

// TestAppInABrowser is a person's first visit: sign in with one click, make a wallet,
// a category and a budget, record an expense and see the balance and the budget bar
// move, correct it, download the month's CSV, undo and then carry out a deletion,
// create an API key, and watch a transaction recorded through the API with that key,
// and one through the chat channel, appear without a reload.
func TestAppInABrowser(t *testing.T) {
	env := startApp(t)
	p := &page{t: t, ctx: browser.Start(t), url: env.URL}

	// A sign-in that came back refused says why, in words.
	p.do(chromedp.Navigate(p.url + "/app/signin?error=state_mismatch"))
	p.waitFor("the reason of the refused sign-in", `(document.querySelector('[data-reason]') || {innerText: ''}).innerText.startsWith('The sign-in was started in another browser')`)
	p.do(chromedp.Navigate(p.url + "/"))
	p.waitFor("the sign-in page", `document.querySelector('form[action="/auth/dev"] button')`)
	p.check("signin")
	p.signIn()
	var cookies struct{ Readable string }
	p.eval(`({Readable: document.cookie})`, &cookies)
	if strings.Contains(cookies.Readable, webapp.SessionCookie+"=") || !strings.Contains(cookies.Readable, webapp.CSRFCookie+"=") {
		t.Fatalf("scripts see the cookies %q: the session cookie must be HttpOnly, the CSRF one readable", cookies.Readable)
	}

	p.open("/app/wallets", "Wallets")
	p.fill(`form[aria-label="New wallet"]`, map[string]string{"name": "Cash", "balance": "1000"})
	p.waitFor("the new wallet", `document.querySelector('[data-wallet="Cash"] [data-testid=balance]')`)
	if got := p.text(`[data-wallet="Cash"] [data-testid=balance]`); got != "MX$1,000.00" {
		t.Fatalf("the new wallet's balance reads %q", got)
	}
	p.open("/app/categories", "Categories")
	p.fill(`form[aria-label="New category"]`, map[string]string{"name": "Food"})
	p.waitFor("the new category", `[...document.querySelectorAll('.chips li')].some(li => li.innerText.startsWith('Food'))`)
	p.open("/app/budgets", "Budgets")
	p.fill(`form[aria-label="New budget"]`, map[string]string{"name": "Groceries", "amount": "500"})
	p.waitFor("the new budget", `document.querySelector('[data-budget="Groceries"] [role=progressbar]')`)

	// An expense typed into the overview's quick form, key by key.
	p.open("/app/", "Overview")
	p.do(chromedp.SendKeys(`form.record [name=amount]`, "450.50"),
		chromedp.SendKeys(`form.record [name=description]`, "Market"),
		chromedp.Click(`form.record button[type=submit]`))
	p.waitFor("the balance after the expense", `(document.querySelector('[data-wallet="Cash"] [data-testid=balance]') || {}).innerText === 'MX$549.50'`)
	bar := `document.querySelector('[data-budget="Groceries"] [role=progressbar]')`
	p.waitFor("the budget bar past its alert", bar+`.getAttribute('aria-valuenow') === '90' && `+bar+`.dataset.state === 'warn'`)
	p.check("overview")

	// Corrected in the list: the balance and the bar follow.
	p.open("/app/transactions", "Transactions")
	p.waitFor("the expense in the list", `document.querySelector('main tbody tr')`)
	p.do(chromedp.Click(`main tbody tr button[aria-label^="Edit"]`))
	p.fill(`form[aria-label="Correct"]`, map[string]string{"amount": "100", "description": "Market, corrected"})
	p.waitFor("the corrected row", `(document.querySelector('main tbody tr') || {}).innerText.includes('MX$100.00')`)
	p.check("transactions")

	// The month's CSV, downloaded as a person would.
	downloads := t.TempDir()
	browser.AllowDownloads(t, p.ctx, downloads)
	p.open("/app/reports", "Reports")
	p.check("reports")
	p.do(chromedp.Click(`//button[text()="Download CSV"]`))
	csv := waitForFile(t, downloads, ".csv")
	if !strings.Contains(csv, "Market, corrected") || !strings.Contains(csv, "100") {
		t.Fatalf("the CSV does not hold the corrected expense:\n%s", csv)
	}

	// A deletion can be undone for a few seconds, then it is carried out.
	p.open("/app/transactions", "Transactions")
	p.waitFor("the expense in the list", `document.querySelector('main tbody tr')`)
	p.do(chromedp.Click(`main tbody tr button[aria-label^="Delete"]`))
	p.waitFor("the row gone and the undo offered", `!document.querySelector('main tbody tr') && document.querySelector('.toast[data-action] button')`)
	p.do(chromedp.Click(`.toast[data-action] button`))
	p.waitFor("the row back", `document.querySelector('main tbody tr')`)
	time.Sleep(6 * time.Second) // past the undo time: the undone deletion must not be sent
	if total := listedTotal(t, env); total != 1 {
		t.Fatalf("after the undo the API lists %d transactions, want 1", total)
	}
	p.do(chromedp.Click(`main tbody tr button[aria-label^="Delete"]`))
	waitUntil(t, "the deletion to reach the API", func() bool { return listedTotal(t, env) == 0 })
	p.open("/app/wallets", "Wallets")
	p.waitFor("the balance restored", `(document.querySelector('[data-wallet="Cash"] [data-testid=balance]') || {}).innerText === 'MX$1,000.00'`)

	// An API key, shown once; a transaction recorded with it appears live.
	p.open("/app/api-keys", "API keys")
	p.fill(`main form`, map[string]string{"name": "Sync", "scope:transactions:write": "true"})
	p.waitFor("the key shown once", `document.querySelector('[data-testid=secret]')`)
	key := p.text(`[data-testid=secret]`)
	if !strings.HasPrefix(key, "fl_live_") {
		t.Fatalf("the key shown is %q", key)
	}
	p.check("api-keys")
	p.open("/app/transactions", "Transactions")
	p.waitFor("the stream to be open", `document.getElementById('live').dataset.up === 'true'`)
	var walletID, categoryID string
	p.eval(`fetch('/api/wallets', {headers: {'X-CSRF-Token': document.cookie.match(/finledger_csrf=([^;]+)/)[1]}}).then(r => r.json()).then(b => b.wallets[0].id)`, &walletID)
	p.eval(`fetch('/api/categories', {headers: {'X-CSRF-Token': document.cookie.match(/finledger_csrf=([^;]+)/)[1]}}).then(r => r.json()).then(b => b.categories[0].id)`, &categoryID)
	res := env.Anonymous().With("X-Api-Key", key).Do("POST", "/api/transactions", map[string]any{
		"type": "expense", "amount": 12.25, "walletId": walletID, "categoryId": categoryID, "description": "Sent by a script"})
	if res.Status != 201 {
		t.Fatalf("recording with the key: %d %s", res.Status, res.Raw)
	}
	p.waitFor("the API's transaction, live", `(document.querySelector('main tbody') || {innerText: ''}).innerText.includes('Sent by a script')`)

	// The chat channel: the profile's link code links a phone, whose expense appears live.
	p.open("/app/profile", "Profile")
	p.do(chromedp.Click(`//button[text()="Get a link code"]`))
	p.waitFor("the link code", `document.querySelector('[data-testid=link-code]')`)
	code := p.text(`[data-testid=link-code]`)
	phone := env.Phone("+5215512345678", nil)
	if res := phone.Do("POST", "/api/whatsapp/link", map[string]any{"code": code}); res.Status != 200 {
		t.Fatalf("linking with the code %q: %d %s", code, res.Status, res.Raw)
	}
	p.check("profile")
	p.open("/app/transactions", "Transactions")
	p.waitFor("the stream to be open", `document.getElementById('live').dataset.up === 'true'`)
	if res := phone.Do("POST", "/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 80, "concept": "Tacos by chat"}); res.Status != 201 {
		t.Fatalf("recording through the channel: %d %s", res.Status, res.Raw)
	}
	p.waitFor("the channel's transaction, live", `(document.querySelector('main tbody') || {innerText: ''}).innerText.includes('Tacos by chat')`)

	browser.NoConsoleErrors(t, p.ctx)
}

// TestAppInSpanishDarkAndTeams: the profile's language and theme change the whole app
// (Mexican Spanish amounts, the dark palette, which axe checks for contrast), the
// wallets' total converts at the workspace's rates exactly, and a team made in the app
// joins the workspace switcher.
func TestAppInSpanishDarkAndTeams(t *testing.T) {
	env := startApp(t)
	p := &page{t: t, ctx: browser.Start(t), url: env.URL}
	api := env.Anonymous().With("Authorization", "Bearer "+devToken(t, env))
	for _, w := range []map[string]any{{"name": "Cash", "balance": 1000.10, "isDefault": true}, {"name": "Dollars", "balance": 10.35, "currency": "USD"}} {
		if res := api.Do("POST", "/api/wallets", w); res.Status != 200 {
			t.Fatalf("wallet: %d %s", res.Status, res.Raw)
		}
	}
	today := time.Now().In(mexicoCity).Format(time.DateOnly)
	if res := api.Do("PUT", "/api/exchange-rates", map[string]any{"date": today, "rates": []map[string]any{{"base": "USD", "quote": "MXN", "rate": 17.2345}}}); res.Status != 200 {
		t.Fatalf("rates: %d %s", res.Status, res.Raw)
	}

	p.signIn()
	p.open("/app/profile", "Profile")
	p.fill(`main form`, map[string]string{"language": "es-MX", "theme": "dark"})
	p.waitFor("the app in Spanish", `document.documentElement.lang === 'es' && document.querySelector('#nav a[href="/app/wallets"]').innerText === 'Carteras'`)
	var theme string
	p.eval(`document.documentElement.dataset.theme`, &theme)
	if theme != "dark" {
		t.Fatalf("theme %q after choosing dark", theme)
	}
	p.open("/app/wallets", "Carteras")
	// 1,000.10 MXN + 10.35 USD at 17.2345 = 1,178.477075: $1,178.48.
	p.waitFor("the workspace's total", `document.querySelector('[data-testid=workspace-total] strong')`)
	if got := p.text(`[data-testid=workspace-total] strong`); got != "$1,178.48" {
		t.Fatalf("the workspace's total reads %q, want $1,178.48", got)
	}
	if got := p.text(`[data-wallet="Dollars"] [data-testid=balance]`); got != "USD\u00a010.35" { // es-MX spells other currencies by code, with a no-break space
		t.Fatalf("the dollar wallet reads %q in Spanish", got)
	}
	p.check("wallets-dark-es")

	p.open("/app/team", "Equipo")
	p.fill(`main form`, map[string]string{"name": "Casa", "currency": "MXN"})
	p.waitFor("the team in the switcher", `[...document.querySelectorAll('#workspace option')].map(o => o.text).join(',') === 'Personal,Casa'`)
	p.waitFor("the team's page", `(document.querySelector('main h1') || {}).innerText === 'Equipo: Casa'`)
	// One's own role is shown, not offered for change: leaving is its own action.
	p.waitFor("the owner's role in Spanish", `[...document.querySelectorAll('main tbody td')].some(td => td.innerText === 'Propietario')`)
	p.check("team-dark-es")
	p.do(chromedp.SetValue(`#workspace`, mustWorkspace(t, p, "Personal")))
	p.eval(`document.getElementById('workspace').dispatchEvent(new Event('change'))`, nil)
	p.waitFor("the personal workspace again", `(document.querySelector('main h1') || {}).innerText === 'Equipo'`)
	browser.NoConsoleErrors(t, p.ctx)
}

// TestAppGoalsDebtsRecurringWebhooksAudit works the other pages: a goal's deposit, a
// debt's payment and a recurring payment paid now each move the wallet; a webhook is
// created with its secret shown once and its deliveries listed; the audit log lists what
// happened; signing out ends the session.
func TestAppGoalsDebtsRecurringWebhooksAudit(t *testing.T) {
	env := startApp(t)
	p := &page{t: t, ctx: browser.Start(t), url: env.URL}
	api := env.Anonymous().With("Authorization", "Bearer "+devToken(t, env))
	if res := api.Do("POST", "/api/wallets", map[string]any{"name": "Cash", "balance": 1000, "isDefault": true}); res.Status != 200 {
		t.Fatalf("wallet: %d %s", res.Status, res.Raw)
	}
	if res := api.Do("POST", "/api/categories", map[string]any{"name": "Home"}); res.Status != 200 {
		t.Fatalf("category: %d %s", res.Status, res.Raw)
	}
	p.signIn()
	balance := func(want string) {
		t.Helper()
		p.open("/app/wallets", "Wallets")
		p.waitFor("the balance "+want, fmt.Sprintf(`(document.querySelector('[data-wallet="Cash"] [data-testid=balance]') || {}).innerText === %q`, want))
	}

	p.open("/app/goals", "Goals")
	p.fill(`main form`, map[string]string{"name": "Trip", "targetAmount": "400"})
	p.waitFor("the goal", `document.querySelector('[data-goal="Trip"]')`)
	p.do(chromedp.Click(`//li[@data-goal="Trip"]//button[text()="Deposit"]`))
	p.fill(`dialog form`, map[string]string{"amount": "100"})
	p.waitFor("the goal at a quarter", `document.querySelector('[data-goal="Trip"] [role=progressbar]').getAttribute('aria-valuenow') === '25'`)
	p.check("goals")
	balance("MX$900.00")

	p.open("/app/debts", "Debts")
	p.fill(`main form`, map[string]string{"name": "Loan", "creditor": "Ana", "totalAmount": "300"})
	p.waitFor("the debt", `document.querySelector('main tbody tr')`)
	p.do(chromedp.Click(`main tbody tr button[aria-label="Pay Loan"]`))
	p.fill(`dialog form`, map[string]string{"amount": "50"})
	p.waitFor("the debt's pending balance", `document.querySelector('main tbody tr').innerText.includes('MX$250.00')`)
	p.check("debts")
	balance("MX$850.00")

	p.open("/app/recurring", "Recurring")
	p.fill(`main form`, map[string]string{"name": "Internet", "amount": "25.50"})
	p.waitFor("the recurring payment", `document.querySelector('main tbody tr')`)
	var next string
	p.eval(`document.querySelector('main tbody tr td:nth-child(4)').innerText`, &next)
	p.do(chromedp.Click(`main tbody tr button[aria-label="Pay now Internet"]`))
	p.waitFor("the next payment moved on", fmt.Sprintf(`document.querySelector('main tbody tr td:nth-child(4)').innerText !== %q`, next))
	p.check("recurring")
	balance("MX$824.50")

	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(receiver.Close)
	p.open("/app/webhooks", "Webhooks")
	p.fill(`main form`, map[string]string{"name": "Books", "url": receiver.URL})
	p.waitFor("the signing secret shown once", `document.querySelector('[data-testid=secret]')`)
	p.do(chromedp.Click(`//button[text()="Test"]`))
	waitUntil(t, "the test delivery", func() bool {
		hooks := api.Do("GET", "/api/webhooks/outbound", nil).JSON["webhooks"].([]any)
		id := hooks[0].(map[string]any)["id"].(string)
		return len(api.Do("GET", "/api/webhooks/outbound/"+id+"/deliveries", nil).JSON["deliveries"].([]any)) > 0
	})
	p.do(chromedp.Click(`//button[text()="Deliveries"]`))
	p.waitFor("the delivery log", `document.querySelector('dialog tbody tr') && document.querySelector('dialog').innerText.includes('webhook.test')`)
	p.check("webhooks")
	p.do(chromedp.Click(`//dialog//button[text()="Close"]`))

	// Pages, search and filters of a longer list: 30 expenses recorded through the API.
	wallets := api.Get("/api/wallets").List("wallets")
	categories := api.Get("/api/categories").List("categories")
	for i := range 30 {
		api.Do("POST", "/api/transactions", map[string]any{"type": "expense", "amount": 1, "walletId": wallets[0]["id"],
			"categoryId": categories[0]["id"], "description": fmt.Sprintf("snack %02d", i)}).Expect(t, http.StatusCreated)
	}
	p.open("/app/transactions", "Transactions")
	p.waitFor("the first page", `document.querySelectorAll('main tbody tr').length === 25 && document.querySelector('.pager span').innerText.startsWith('Page 1 of 2')`)
	p.do(chromedp.Click(`//nav[@class="pager"]//button[text()="Next"]`))
	p.waitFor("the second page", `document.querySelector('.pager span').innerText.startsWith('Page 2 of 2') && document.querySelectorAll('main tbody tr').length === 8`)
	p.fill(`form.filters`, map[string]string{"search": "snack 07"})
	p.waitFor("the search's one row", `document.querySelectorAll('main tbody tr').length === 1 && document.querySelector('main tbody tr').innerText.includes('snack 07')`)
	p.fill(`form.filters`, map[string]string{"search": "", "type": "income"})
	p.waitFor("no income", `!document.querySelector('main tbody tr') && document.querySelector('main .empty')`)

	p.open("/app/audit", "Audit log")
	p.waitFor("the audit entries", `document.querySelectorAll('main tbody tr').length >= 5`)
	p.check("audit")

	p.do(chromedp.Click(`//nav//button[text()="Sign out"]`))
	p.waitFor("the sign-in page", `document.querySelector('form[action="/auth/dev"] button')`)
	var gone int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM browser_sessions`).Scan(&gone); err != nil || gone != 0 {
		t.Fatalf("%d browser sessions after signing out (%v), want 0", gone, err)
	}
	browser.NoConsoleErrors(t, p.ctx)
}

var mexicoCity = func() *time.Location {
	loc, err := time.LoadLocation("America/Mexico_City")
	if err != nil {
		panic(err)
	}
	return loc
}()

// mustWorkspace is the switcher's value for a workspace's name.
func mustWorkspace(t *testing.T, p *page, name string) string {
	t.Helper()
	var id string
	p.eval(fmt.Sprintf(`[...document.querySelectorAll('#workspace option')].find(o => o.text === %q).value`, name), &id)
	return id
}

// listedTotal is how many transactions the API lists for the development person.
func listedTotal(t *testing.T, env *apitest.Env) int {
	t.Helper()
	res := env.Anonymous().With("Authorization", "Bearer "+devToken(t, env)).Do("GET", "/api/transactions", nil)
	if res.Status != 200 {
		t.Fatalf("listing: %d %s", res.Status, res.Raw)
	}
	total, err := res.JSON["pagination"].(map[string]any)["total"].(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return int(total)
}

// devToken is a bearer token for the person the one-click sign-in signs in.
func devToken(t *testing.T, env *apitest.Env) string {
	t.Helper()
	tok, err := session.MintHS256(apitest.Secret, devPerson, env.Clock.Now(), time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitForFile waits for a finished download with the extension and returns its text.
func waitForFile(t *testing.T, dir, ext string) string {
	t.Helper()
	var text string
	waitUntil(t, "the download", func() bool {
		matches, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
		if len(matches) == 0 {
			return false
		}
		data, err := os.ReadFile(matches[0])
		text = string(data)
		return err == nil && len(data) > 0
	})
	return text
}
