package browsertest_test

import (
	"fmt"
	"net/http"
	"testing"
)

// The tests of correcting what a person made: wallets, categories,
// budgets and tags edited, archived or deleted from their pages, with a confirmation
// that a cancel leaves alone; transactions changed together; and a reader offered
// none of it.

// names are the names of a listing of the API.
func (s *scene) names(path, key string) []string {
	s.t.Helper()
	var out []string
	for _, r := range s.api.Get(path).Expect(s.t, http.StatusOK).List(key) {
		out = append(out, fmt.Sprint(r["name"]))
	}
	return out
}

func (s *scene) create(path, key string, body map[string]any) string {
	s.t.Helper()
	return s.api.Post(path, body).Expect(s.t, http.StatusOK).Object(key)["id"].(string)
}

func TestWalletsAreEditedAndArchived(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		s.create("/api/wallets", "wallet", map[string]any{"name": "Cash", "balance": 100, "isDefault": true})
		s.create("/api/wallets", "wallet", map[string]any{"name": "Bank"})
	}, func(t *testing.T, s *scene) {
		s.open("/app/wallets", s.view.say("Wallets", "Carteras"))
		edit, archive := s.view.say("Edit", "Editar"), s.view.say("Archive", "Archivar")
		s.pushButton(edit + " Cash")
		s.waitFor("the wallet's form", `document.querySelector('dialog[open] form [name=cardColor]')`)
		s.axe("wallet-edit")
		s.fill(`dialog[open] form`, map[string]string{"name": "Pocket", "cardColor": "#aa0000", "balance": "250.50"})
		s.waitFor("the renamed wallet", `document.querySelector('[data-wallet="Pocket"]')`)
		w := s.api.Get("/api/wallets").List("wallets")[0]
		if w["name"] != "Pocket" || w["cardColor"] != "#aa0000" || fmt.Sprint(w["initialBalance"]) != "250.5" || w["isDefault"] != true {
			t.Fatalf("the edited wallet %v", w)
		}

		s.pushButton(archive + " Pocket")
		s.axe("wallet-archive")
		s.answer(false)
		if got := s.names("/api/wallets", "wallets"); len(got) != 2 {
			t.Fatalf("a cancelled archive archived: %v", got)
		}
		s.answerConfirmation(archive, "Pocket", true)
		s.waitFor("the archived wallet gone", `!document.querySelector('[data-wallet="Pocket"]') && document.querySelector('[data-wallet="Bank"]')`)
		if got := s.names("/api/wallets", "wallets"); fmt.Sprint(got) != "[Bank]" {
			t.Fatalf("wallets after the archive: %v", got)
		}
	})
}

func TestCategoriesAreEditedAndArchived(t *testing.T) {
	var tag string
	inEachView(t, func(t *testing.T, s *scene) {
		s.create("/api/categories", "category", map[string]any{"name": "Food"})
		s.create("/api/categories", "category", map[string]any{"name": "Rent"})
		tag = s.create("/api/tags", "tag", map[string]any{"name": "Home"})
	}, func(t *testing.T, s *scene) {
		s.open("/app/categories", s.view.say("Categories", "Categorías"))
		s.pushButton(s.view.say("Edit", "Editar") + " Food")
		s.waitFor("the category's form", `document.querySelector('dialog[open] form [name=tagId]')`)
		s.axe("category-edit")
		s.fill(`dialog[open] form`, map[string]string{"name": "Groceries", "description": "the week's market", "tagId": tag})
		s.waitFor("the renamed category", `document.querySelector('[data-category="Groceries"]')`)
		c := s.api.Get("/api/categories").List("categories")[0]
		if c["name"] != "Groceries" || c["description"] != "the week's market" || c["tagId"] != tag {
			t.Fatalf("the edited category %v", c)
		}

		archive := s.view.say("Archive", "Archivar")
		s.answerConfirmation(archive, "Rent", false)
		if got := s.names("/api/categories", "categories"); len(got) != 2 {
			t.Fatalf("a cancelled archive archived: %v", got)
		}
		s.answerConfirmation(archive, "Rent", true)
		s.waitFor("the archived category gone", `!document.querySelector('[data-category="Rent"]')`)
		if got := s.names("/api/categories", "categories"); fmt.Sprint(got) != "[Groceries]" {
			t.Fatalf("categories after the archive: %v", got)
		}
	})
}

func TestBudgetsAreEditedAndDeleted(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		food := s.create("/api/categories", "category", map[string]any{"name": "Food"})
		s.create("/api/budgets", "budget", map[string]any{"name": "Groceries", "categoryId": food, "amount": 500,
			"startDate": "2026-01-01", "endDate": "2027-01-01"})
	}, func(t *testing.T, s *scene) {
		s.open("/app/budgets", s.view.say("Budgets", "Presupuestos"))
		s.pushButton(s.view.say("Edit", "Editar") + " Groceries")
		s.waitFor("the budget's form", `document.querySelector('dialog[open] form [name=alertThreshold]')`)
		s.axe("budget-edit")
		s.fill(`dialog[open] form`, map[string]string{"name": "Market", "amount": "650.25", "alertThreshold": "90"})
		s.waitFor("the edited budget", `document.querySelector('[data-budget="Market"]')`)
		b := s.api.Get("/api/budgets").List("budgets")[0]
		if b["name"] != "Market" || fmt.Sprint(b["amount"]) != "650.25" || fmt.Sprint(b["alertThreshold"]) != "90" {
			t.Fatalf("the edited budget %v", b)
		}

		s.deleteAskingFirst(s.view.say("Delete", "Eliminar"), "Market", "/api/budgets", "budgets", `!document.querySelector('[data-budget="Market"]')`)
	})
}

func TestTagsPage(t *testing.T) {
	inEachView(t, nil, func(t *testing.T, s *scene) {
		s.open("/app/", s.view.say("Overview", "Resumen"))
		s.eval(`document.querySelector('#nav a[href="/app/tags"]').click()`, nil)
		s.waitFor("the tags page", fmt.Sprintf(`(document.querySelector('main h1') || {}).innerText === %q`, s.view.say("Tags", "Etiquetas")))
		s.fill(fmt.Sprintf(`form[aria-label=%q]`, s.view.say("New tag", "Nueva etiqueta")), map[string]string{"name": "Trips", "color": "#00aa00"})
		s.waitFor("the new tag", `document.querySelector('[data-tag="Trips"]')`)
		s.axe("tags")
		s.pushButton(s.view.say("Edit", "Editar") + " Trips")
		s.fill(`dialog[open] form`, map[string]string{"name": "Travel"})
		s.waitFor("the renamed tag", `document.querySelector('[data-tag="Travel"]')`)
		tags := s.api.Get("/api/tags").List("tags")
		if len(tags) != 1 || tags[0]["name"] != "Travel" || tags[0]["color"] != "#00aa00" {
			t.Fatalf("tags %v", tags)
		}

		s.deleteAskingFirst(s.view.say("Delete", "Eliminar"), "Travel", "/api/tags", "tags", `!document.querySelector('[data-tag="Travel"]')`)
	})
}

func TestTransactionsAreChangedTogether(t *testing.T) {
	var other string
	inEachView(t, func(t *testing.T, s *scene) {
		wallet := s.create("/api/wallets", "wallet", map[string]any{"name": "Cash", "balance": 1000})
		food := s.create("/api/categories", "category", map[string]any{"name": "Food"})
		other = s.create("/api/categories", "category", map[string]any{"name": "Other"})
		for i, d := range []string{"Alpha", "Bravo", "Charlie"} {
			s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10 * (i + 1), "walletId": wallet,
				"categoryId": food, "description": d}).Expect(t, http.StatusCreated)
		}
	}, func(t *testing.T, s *scene) {
		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		tick := func(description string) {
			sel := fmt.Sprintf(`document.querySelector('[data-select][aria-label^=%q]')`, s.view.say("Select", "Seleccionar")+" "+description+" ")
			s.waitFor("the row of "+description, sel)
			s.eval(sel+`.click()`, nil)
		}
		tick("Alpha")
		tick("Bravo")
		s.axe("transactions-selected")
		s.eval(fmt.Sprintf(`(() => { const sel = document.querySelector('.bulk [name=bulkCategory]'); sel.value = %q; })()`, other), nil)
		s.pushButtonText(s.view.say("Recategorize", "Cambiar categoría"))
		moved := func() int {
			n := 0
			for _, tx := range s.api.Get("/api/transactions").List("transactions") {
				if tx["categoryId"] == other {
					n++
				}
			}
			return n
		}
		waitUntil(t, "two transactions recategorized", func() bool { return moved() == 2 })

		s.waitFor("the list drawn again", `!document.querySelector('[data-select]:checked')`)
		s.eval(`document.getElementById('select-all').click()`, nil)
		s.waitFor("every row ticked", `document.querySelectorAll('[data-select]:checked').length === 3`)
		deleteSelected := s.view.say("Delete selected", "Eliminar seleccionados")
		s.pushButtonText(deleteSelected)
		s.answer(false)
		if n := len(s.api.Get("/api/transactions").List("transactions")); n != 3 {
			t.Fatalf("a cancelled deletion deleted: %d left", n)
		}
		s.pushButtonText(deleteSelected)
		s.answer(true)
		s.waitFor("the empty list", `!document.querySelector('main tbody tr')`)
		if n := len(s.api.Get("/api/transactions").List("transactions")); n != 0 {
			t.Fatalf("%d transactions left", n)
		}
		if w := s.api.Get("/api/wallets").List("wallets")[0]; fmt.Sprint(w["balance"]) != "1000" {
			t.Fatalf("the balance after the deletions: %v", w["balance"])
		}
	})
}

// pushButtonText clicks the button of main whose text is text.
func (s *scene) pushButtonText(text string) {
	s.t.Helper()
	sel := fmt.Sprintf(`[...document.querySelectorAll('main button')].find((b) => b.innerText === %q && !b.disabled)`, text)
	s.waitFor("the button "+text, sel)
	s.eval(`(`+sel+`).click()`, nil)
}

// A reader sees the team's records but no way to change them.
func TestAReaderIsOfferedNoChanges(t *testing.T) {
	var team string
	inEachView(t, func(t *testing.T, s *scene) {
		alice := s.env.As("alice")
		team = alice.Post("/api/workspaces", map[string]any{"name": "Acme"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
		alice.Post("/api/workspaces/"+team+"/members", map[string]any{"email": devPerson.Email, "role": "reader"}).Expect(t, http.StatusOK)
		in := alice.With("X-Workspace-Id", team)
		wallet := in.Post("/api/wallets", map[string]any{"name": "Ops"}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
		food := in.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
		in.Post("/api/tags", map[string]any{"name": "Trips"}).Expect(t, http.StatusOK)
		in.Post("/api/budgets", map[string]any{"name": "Lunch", "categoryId": food, "amount": 10, "startDate": "2026-01-01", "endDate": "2027-01-01"}).Expect(t, http.StatusOK)
		in.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5, "walletId": wallet, "categoryId": food, "description": "Tea"}).Expect(t, http.StatusCreated)
	}, func(t *testing.T, s *scene) {
		s.eval(fmt.Sprintf(`(() => { const sel = document.getElementById('workspace'); sel.value = %q; sel.dispatchEvent(new Event('change')); })()`, team), nil)
		for _, p := range []struct{ path, en, es, shown string }{
			{"/app/", "Overview", "Resumen", `[data-wallet="Ops"]`},
			{"/app/wallets", "Wallets", "Carteras", `[data-wallet="Ops"]`},
			{"/app/categories", "Categories", "Categorías", `[data-category="Food"]`},
			{"/app/budgets", "Budgets", "Presupuestos", `[data-budget="Lunch"]`},
			{"/app/tags", "Tags", "Etiquetas", `[data-tag="Trips"]`},
			{"/app/transactions", "Transactions", "Movimientos", `main tbody tr`},
		} {
			s.open(p.path, s.view.say(p.en, p.es))
			s.waitFor("the team's records on "+p.path, fmt.Sprintf(`document.querySelector(%q)`, p.shown))
			var offered []string
			s.eval(`[...document.querySelectorAll('main .row-actions button, main form:not(.filters), main [data-select], main details, .bulk')].map((e) => e.outerHTML.slice(0, 80))`, &offered)
			if len(offered) > 0 {
				t.Fatalf("a reader is offered on %s: %v", p.path, offered)
			}
		}
	})
}

// The rows a person ticked stay ticked when a live update redraws the list.
func TestATickedRowOutlivesALiveUpdate(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		wallet := s.create("/api/wallets", "wallet", map[string]any{"name": "Cash", "balance": 100})
		category := s.create("/api/categories", "category", map[string]any{"name": "Food"})
		s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5, "walletId": wallet, "categoryId": category,
			"description": "Alpha"}).Expect(t, http.StatusCreated)
	}, func(t *testing.T, s *scene) {
		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		s.waitFor("the stream to be open", `document.getElementById('live').dataset.up === 'true'`)
		s.eval(`document.querySelector('[data-select]').click()`, nil)
		wallet := s.api.Get("/api/wallets").List("wallets")[0]["id"]
		s.api.Post("/api/transactions", map[string]any{"type": "income", "amount": 7, "walletId": wallet, "description": "Bravo"}).
			Expect(t, http.StatusCreated)
		s.waitFor("the list drawn again, Alpha still ticked", `document.querySelectorAll('[data-select]').length === 2 &&
			document.querySelectorAll('[data-select]:checked').length === 1 &&
			document.querySelector('[data-select]:checked').closest('tr').innerText.includes('Alpha')`)
	})
}
