package browsertest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// aWalletAndCategories gives the person a default wallet and two categories, Food and
// Home, and returns Home's id.
func aWalletAndCategories(t *testing.T, s *scene) string {
	t.Helper()
	s.api.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 1000, "isDefault": true}).Expect(t, http.StatusOK)
	s.api.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK)
	return s.api.Post("/api/categories", map[string]any{"name": "Home"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
}

// A live update (a transaction recorded on another device) redraws the list and the
// balance around the quick form, and leaves what the person was typing as it was: the
// values, the chosen category, the focus and the caret. After Record, focus is back on
// the amount for the next one, the toast says so, and toasts never pile up: two at most,
// each dismissible, clear of the form.
func TestLiveUpdatesKeepWhatIsTyped(t *testing.T) {
	var home string
	inEachView(t, func(t *testing.T, s *scene) { home = aWalletAndCategories(t, s) }, func(t *testing.T, s *scene) {
		s.waitFor("the quick form, live", `document.querySelector('form.record [name=amount]') && document.querySelector('#live[data-up=true]')`)
		s.do(chromedp.SendKeys(`form.record [name=amount]`, "12.5"),
			chromedp.SendKeys(`form.record [name=description]`, "Tacos al pastor"))
		s.eval(fmt.Sprintf(`(() => {
			const c = document.querySelector('form.record [name=categoryId]');
			c.value = %q;
			c.dispatchEvent(new Event('input', { bubbles: true }));
			const d = document.querySelector('form.record [name=description]');
			d.focus();
			d.setSelectionRange(5, 7);
		})()`, home), nil)

		s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 100, "description": "From the phone"}).Expect(t, http.StatusCreated)
		s.waitFor("the other device's expense in the list", `document.querySelector('main').innerText.includes('From the phone')`)
		s.waitFor("the balance after it", `document.querySelector('[data-wallet="Cash"] [data-testid=balance]').innerText.includes('900.00')`)
		var typed struct {
			Amount, Description, Category, Focus string
			Start, End                           int
		}
		s.eval(`(() => {
			const f = document.querySelector('form.record'), a = document.activeElement;
			return { Amount: f.amount.value, Description: f.description.value, Category: f.categoryId.value,
				Focus: a.name || a.tagName, Start: a.selectionStart, End: a.selectionEnd };
		})()`, &typed)
		if typed.Amount != "12.5" || typed.Description != "Tacos al pastor" || typed.Category != home ||
			typed.Focus != "description" || typed.Start != 5 || typed.End != 7 {
			t.Fatalf("after a live update the quick form holds %+v; want what was typed, with focus and caret in the description", typed)
		}

		// Recorded with the button: the next one can be typed at once.
		s.do(chromedp.Click(`form.record button[type=submit]`))
		s.waitFor("the expense in the list", `document.querySelector('main').innerText.includes('Tacos al pastor')`)
		recorded := s.view.say("Recorded.", "Registrado.")
		s.waitFor("the toast", fmt.Sprintf(`document.getElementById('toasts').innerText.includes(%q)`, recorded))
		s.waitFor("the focus on the amount", `document.activeElement === document.querySelector('form.record [name=amount]')`)
		if v := s.text(`form.record [name=amount]`); v != "" {
			t.Fatalf("the amount still holds %q", v)
		}

		// Three more in a row: two toasts at most, newest last, clear of the amount.
		for _, amount := range []string{"1", "2", "3"} {
			s.waitFor("the focus on the amount", `document.activeElement === document.querySelector('form.record [name=amount]')`)
			s.do(chromedp.KeyEvent(amount + "\r"))
			s.waitFor("the amount emptied", `document.querySelector('form.record [name=amount]').value === ''`)
		}
		s.waitFor("the last expense's balance", `document.querySelector('[data-wallet="Cash"] [data-testid=balance]').innerText.includes('881.50')`)
		var toasts struct {
			Count   int
			Covered bool
		}
		s.eval(`(() => {
			const all = [...document.querySelectorAll('#toasts .toast')];
			const f = document.activeElement.getBoundingClientRect();
			const covered = all.some((el) => { const r = el.getBoundingClientRect();
				return r.left < f.right && r.right > f.left && r.top < f.bottom && r.bottom > f.top; });
			return { Count: all.length, Covered: covered };
		})()`, &toasts)
		if toasts.Count < 1 || toasts.Count > 2 || toasts.Covered {
			t.Fatalf("%d toasts shown, covering the amount: %t; want one or two, clear of it", toasts.Count, toasts.Covered)
		}
		s.axe("toasts")
		close := fmt.Sprintf(`#toasts .toast:last-child button[aria-label=%q]`, s.view.say("Close", "Cerrar"))
		s.do(chromedp.Click(close))
		s.waitFor("a toast dismissed", fmt.Sprintf(`document.querySelectorAll('#toasts .toast').length === %d`, toasts.Count-1))
	})
}

// A row being corrected outlives a live update that redraws the list around it.
func TestLiveUpdatesKeepARowBeingCorrected(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		aWalletAndCategories(t, s)
		s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5, "description": "Coffee"}).Expect(t, http.StatusCreated)
	}, func(t *testing.T, s *scene) {
		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		s.waitFor("the live updates", `document.querySelector('#live[data-up=true]')`)
		s.waitFor("the row", `document.querySelector('main tbody tr button[aria-label^="`+s.view.say("Edit", "Editar")+`"]')`)
		s.do(chromedp.Click(`main tbody tr button[aria-label^="`+s.view.say("Edit", "Editar")+`"]`),
			chromedp.SendKeys(`form.inline [name=description]`, ", with milk"))
		s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 7, "description": "Bread"}).Expect(t, http.StatusCreated)
		s.waitFor("the other device's expense in the list", `document.querySelector('main tbody').innerText.includes('Bread')`)
		var kept struct{ Description, Focus string }
		s.eval(`({ Description: (document.querySelector('form.inline [name=description]') || {}).value,
			Focus: document.activeElement.name || document.activeElement.tagName })`, &kept)
		if kept.Description != "Coffee, with milk" || kept.Focus != "description" {
			t.Fatalf("after a live update the correction holds %+v", kept)
		}
	})
}

// Signed out on a deep page, a person signs in and lands on that page; a `next` that
// names another site, or anything outside the app, lands on the Overview of this one.
func TestSignInReturnsToThePage(t *testing.T) {
	inEachView(t, nil, func(t *testing.T, s *scene) {
		s.eval(`document.querySelector('#nav li:last-child button').click()`, nil)
		s.waitFor("the sign-in page", `document.querySelector('form[action="/auth/dev"] button')`)
		s.do(chromedp.Navigate(s.url + "/app/budgets?from=signin"))
		s.waitFor("the sign-in page", `location.pathname === '/app/signin' && document.querySelector('form[action="/auth/dev"] button')`)
		s.axe("signin")
		s.do(chromedp.Click(`form[action="/auth/dev"] button`))
		s.waitFor("the budgets", fmt.Sprintf(`(document.querySelector('main h1') || {}).innerText === %q`, s.view.say("Budgets", "Presupuestos")))
		var at string
		s.eval(`location.pathname + location.search`, &at)
		if at != "/app/budgets?from=signin" {
			t.Fatalf("signed in at %s", at)
		}

		s.eval(`document.querySelector('#nav li:last-child button').click()`, nil)
		s.waitFor("the sign-in page", `document.querySelector('form[action="/auth/dev"] button')`)
		s.do(chromedp.Navigate(s.url + "/app/signin?next=" + url.QueryEscape("//evil.example/app/")))
		s.waitFor("the sign-in page", `document.querySelector('form[action="/auth/dev"] button')`)
		s.do(chromedp.Click(`form[action="/auth/dev"] button`))
		s.waitFor("the overview", fmt.Sprintf(`(document.querySelector('main h1') || {}).innerText === %q`, s.view.say("Overview", "Resumen")))
		s.eval(`location.href`, &at)
		if at != s.url+"/app/" {
			t.Fatalf("a hostile next sent the person to %s", at)
		}
	})
}

// The one-click sign-in sends the person back only to a page of the app on this origin.
func TestSignInReturnsOnlyToTheApp(t *testing.T) {
	env := startApp(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for next, want := range map[string]string{
		"/app/budgets":              "/app/budgets",
		"/app/transactions?page=2":  "/app/transactions?page=2",
		"":                          "/app/",
		"//evil.example/app/":       "/app/",
		"https://evil.example/app/": "/app/",
		"/\\evil.example/app/":      "/app/",
		"/app/../auth/logout":       "/app/",
		"/app/%2e%2e/auth/logout":   "/app/",
		"/app/signin?next=/app/":    "/app/",
		"/app/\r\nSet-Cookie: x=1":  "/app/",
		"javascript:alert(1)":       "/app/",
		"/other":                    "/app/",
	} {
		req, _ := http.NewRequest(http.MethodPost, env.URL+"/auth/dev", strings.NewReader(url.Values{"next": {next}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("signed in with next %q: %d to %q; want %q", next, res.StatusCode, res.Header.Get("Location"), want)
		}
	}
}

// The keys: "?" opens the list of shortcuts in a dialog, "/" goes to the search, "j" and
// "k" turn the list's pages, "n" goes to the quick form's amount (the page's own, or the
// Overview's). None fires while typing
// in a field or with a modifier.
func TestKeyboardShortcuts(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		aWalletAndCategories(t, s)
		for i := range 30 {
			s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": i + 1}).Expect(t, http.StatusCreated)
		}
	}, func(t *testing.T, s *scene) {
		s.eval(`document.activeElement.blur()`, nil)
		s.do(chromedp.KeyEvent("?"))
		heading := s.view.say("Keyboard shortcuts", "Atajos de teclado")
		s.waitFor("the shortcuts", fmt.Sprintf(`(document.querySelector('dialog[open] h2') || {}).innerText === %q`, heading))
		if got := s.text(`dialog[open] dl`); !strings.Contains(got, s.view.say("Next page", "Página siguiente")) {
			t.Fatalf("the shortcuts list %q", got)
		}
		s.axe("shortcuts")
		s.do(chromedp.KeyEvent("\x1b"))
		s.waitFor("the dialog closed", `!document.querySelector('dialog')`)

		s.do(chromedp.KeyEvent("/"))
		s.waitFor("the search", `document.activeElement === document.querySelector('main [name=search]')`)
		// The DevTools protocol sends a key's character apart from its keydown, so it may land
		// in the field the keydown focused, which a browser's own keyboard never does once
		// the keydown is prevented: the field starts empty for what follows.
		s.eval(`document.querySelector('main [name=search]').value = ''`, nil)
		pageOne := s.view.say("Page 1 of 2", "Página 1 de 2")
		pageTwo := s.view.say("Page 2 of 2", "Página 2 de 2")
		s.waitFor("the first page", fmt.Sprintf(`document.querySelector('.pager').innerText.includes(%q)`, pageOne))
		s.do(chromedp.KeyEvent("j"))
		var state struct {
			Search string
			Pager  string
		}
		s.eval(`({ Search: document.querySelector('[name=search]').value, Pager: document.querySelector('.pager').innerText })`, &state)
		if state.Search != "j" || !strings.Contains(state.Pager, pageOne) {
			t.Fatalf("j typed in the search: %+v; want it in the field and the page unturned", state)
		}
		s.eval(`(() => { const f = document.querySelector('[name=search]'); f.value = ''; f.blur(); })()`, nil)
		s.do(chromedp.KeyEvent("j"))
		s.waitFor("the second page", fmt.Sprintf(`document.querySelector('.pager').innerText.includes(%q)`, pageTwo))
		s.do(chromedp.KeyEvent("k"))
		s.waitFor("the first page again", fmt.Sprintf(`document.querySelector('.pager').innerText.includes(%q)`, pageOne))

		// With a modifier, the browser's own: nothing happens here.
		s.eval(`document.dispatchEvent(new KeyboardEvent('keydown', { key: 'n', ctrlKey: true, bubbles: true, cancelable: true }))`, nil)
		var path string
		s.eval(`location.pathname`, &path)
		if path != "/app/transactions" {
			t.Fatalf("ctrl+n went to %s", path)
		}
		// n: the quick form of this page, opened, or the Overview's.
		s.do(chromedp.KeyEvent("n"))
		s.waitFor("the quick form's amount here", `document.activeElement === document.querySelector('details[open] form.record [name=amount]')`)
		s.open("/app/budgets", s.view.say("Budgets", "Presupuestos"))
		s.do(chromedp.KeyEvent("n"))
		s.waitFor("the overview's amount", `location.pathname === '/app/' && document.activeElement === document.querySelector('form.record [name=amount]')`)
	})
}
