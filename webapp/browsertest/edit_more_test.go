package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Goals, debts and recurring payments are corrected and deleted in the app: each edit
// reaches the API, each deletion asks first (a cancelled one sends nothing), and a
// recurring payment is paused and resumed.
func TestGoalsDebtsAndRecurringAreEditable(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		s.api.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 1000, "isDefault": true}).Expect(t, http.StatusOK)
		s.api.Post("/api/categories", map[string]any{"name": "Home"}).Expect(t, http.StatusOK)
		s.api.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 400}).Expect(t, http.StatusOK)
		s.api.Post("/api/debts", map[string]any{"name": "Loan", "totalAmount": 300}).Expect(t, http.StatusOK)
		s.api.Post("/api/recurrent", map[string]any{"name": "Internet", "amount": 25.5, "kind": "expense", "periodicity": "monthly",
			"nextPayment": "2030-01-15"}).Expect(t, http.StatusOK)
	}, func(t *testing.T, s *scene) {
		edit, del := s.view.say("Edit", "Editar"), s.view.say("Delete", "Eliminar")

		s.open("/app/goals", s.view.say("Goals", "Metas"))
		s.press(edit, "Trip")
		s.fill(`dialog form`, map[string]string{"name": "Trip to Oaxaca", "targetAmount": "512.50", "deadline": "2030-06-30"})
		s.waitFor("the edited goal", `document.querySelector('[data-goal="Trip to Oaxaca"]')`)
		g := s.api.Get("/api/goals").List("goals")[0]
		if fmt.Sprint(g["targetAmount"]) != "512.5" || g["deadline"] != "2030-06-30" {
			t.Fatalf("the edited goal %v", g)
		}
		s.answerConfirmation(del, "Trip to Oaxaca", false)
		if count(s, "/api/goals", "goals") != 1 {
			t.Fatal("a cancelled deletion deleted the goal")
		}
		s.press(del, "Trip to Oaxaca")
		s.waitFor("the confirmation", `document.querySelector('dialog[open] [data-confirm]')`)
		s.axe("goal-delete-confirmation")
		s.do(chromedp.Click(`dialog[open] [data-confirm]`))
		s.waitFor("the goal gone", `!document.querySelector('[data-goal]') && document.querySelector('main .empty')`)
		if count(s, "/api/goals", "goals") != 0 {
			t.Fatal("the confirmed deletion left the goal")
		}

		s.open("/app/debts", s.view.say("Debts", "Deudas"))
		s.press(edit, "Loan")
		s.fill(`dialog form`, map[string]string{"name": "Car loan", "creditor": "Bank", "totalAmount": "350"})
		s.waitFor("the edited debt", `document.querySelector('main tbody tr').innerText.includes('Car loan')`)
		if d := s.api.Get("/api/debts").List("debts")[0]; fmt.Sprint(d["totalAmount"]) != "350" || d["creditor"] != "Bank" {
			t.Fatalf("the edited debt %v", d)
		}
		s.axe("debts-editable")
		s.deleteAskingFirst(del, "Car loan", "/api/debts", "debts", `!document.querySelector('main tbody tr')`)

		s.open("/app/recurring", s.view.say("Recurring", "Recurrentes"))
		recurring := func() map[string]any { return s.api.Get("/api/recurrent").List("recurrent")[0] }
		s.press(s.view.say("Pause", "Pausar"), "Internet")
		s.waitFor("the payment paused", fmt.Sprintf(`document.querySelector('main tbody tr').innerText.includes(%q)`, s.view.say("Paused", "En pausa")))
		if r := recurring(); r["active"] != false {
			t.Fatalf("paused, the API has %v", r)
		}
		s.press(s.view.say("Resume", "Reanudar"), "Internet")
		s.waitFor("the payment resumed", fmt.Sprintf(`document.querySelector('button[aria-label=%q]')`, s.view.say("Pause", "Pausar")+" Internet"))
		if r := recurring(); r["active"] != true {
			t.Fatalf("resumed, the API has %v", r)
		}
		s.press(edit, "Internet")
		s.fill(`dialog form`, map[string]string{"name": "Fibre", "amount": "30", "periodicity": "weekly", "nextPayment": "2030-02-01"})
		s.waitFor("the edited payment", `document.querySelector('main tbody tr').innerText.includes('Fibre')`)
		if r := recurring(); fmt.Sprint(r["amount"]) != "30" || r["periodicity"] != "weekly" || r["nextPayment"] != "2030-02-01" {
			t.Fatalf("the edited payment %v", r)
		}
		s.axe("recurring-editable")
		s.deleteAskingFirst(del, "Fibre", "/api/recurrent", "recurrent", `!document.querySelector('main tbody tr')`)
	})
}

// A team is managed in the app: roles changed, a member removed and an invitation
// withdrawn after a confirmation, the workspace deleted after one that names it; as an
// admin of someone else's team the person sees no owner's action, and as a collaborator
// no webhook's change.
func TestTeamIsManagedByRole(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		bob := s.env.As("bob")
		bob.Get("/api/me").Expect(t, http.StatusOK)
		casa := s.api.Post("/api/workspaces", map[string]any{"name": "Casa"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
		s.api.Post("/api/workspaces/"+casa+"/members", map[string]any{"email": "bob@example.com", "role": "collaborator"}).Expect(t, http.StatusOK)
		s.api.Post("/api/workspaces/"+casa+"/members", map[string]any{"email": "carol@example.com", "role": "reader"}).Expect(t, http.StatusOK)
		alice := s.env.As("alice")
		obra := alice.Post("/api/workspaces", map[string]any{"name": "Obra"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
		alice.Post("/api/workspaces/"+obra+"/members", map[string]any{"email": devPerson.Email, "role": "admin"}).Expect(t, http.StatusOK)
		taller := alice.Post("/api/workspaces", map[string]any{"name": "Taller"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
		alice.Post("/api/workspaces/"+taller+"/members", map[string]any{"email": devPerson.Email, "role": "collaborator"}).Expect(t, http.StatusOK)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		t.Cleanup(receiver.Close)
		alice.With("X-Workspace-Id", taller).Post("/api/webhooks/outbound", map[string]any{"name": "Books", "url": receiver.URL}).Expect(t, http.StatusOK)
	}, func(t *testing.T, s *scene) {
		team := s.view.say("Team", "Equipo")
		switchTo := func(name, heading string) {
			s.do(chromedp.Navigate(s.url + "/app/team"))
			s.waitFor("the team page", fmt.Sprintf(`((document.querySelector('main h1') || {}).innerText || '').startsWith(%q)`, team))
			s.do(chromedp.SetValue(`#workspace`, mustWorkspace(t, s.page, name)))
			s.eval(`document.getElementById('workspace').dispatchEvent(new Event('change'))`, nil)
			s.waitFor("the workspace "+name, fmt.Sprintf(`(document.querySelector('main h1') || {}).innerText === %q`, heading))
		}
		casa := func() []map[string]any {
			var id string
			for _, w := range s.api.Get("/api/workspaces").List("workspaces") {
				if w["name"] == "Casa" {
					id = w["id"].(string)
				}
			}
			return s.api.Get("/api/workspaces/" + id + "/members").List("members")
		}
		role := func(email string) any {
			for _, m := range casa() {
				if m["email"] == email {
					return m["role"]
				}
			}
			return nil
		}
		switchTo("Casa", team+": Casa")
		s.waitFor("the members", `document.querySelectorAll('main tbody tr').length === 3`)
		s.axe("team-owner")
		roleBox := fmt.Sprintf(`select[aria-label=%q]`, s.view.say("Role", "Rol")+" bob@example.com")
		s.do(chromedp.SetValue(roleBox, "admin"))
		s.eval(`document.querySelector('`+roleBox+`').dispatchEvent(new Event('change'))`, nil)
		waitUntil(t, "bob made an admin", func() bool { return role("bob@example.com") == "admin" })

		cancel := s.view.say("Cancel invitation", "Cancelar invitación")
		s.answerConfirmation(cancel, "carol@example.com", false)
		if role("carol@example.com") != "reader" {
			t.Fatal("a cancelled withdrawal withdrew the invitation")
		}
		s.answerConfirmation(cancel, "carol@example.com", true)
		s.waitFor("the invitation gone", `document.querySelectorAll('main tbody tr').length === 2`)
		if role("carol@example.com") != nil {
			t.Fatal("the invitation is still open")
		}
		remove := s.view.say("Remove", "Quitar")
		s.answerConfirmation(remove, "bob@example.com", false)
		if role("bob@example.com") == nil {
			t.Fatal("a cancelled removal removed bob")
		}
		s.answerConfirmation(remove, "bob@example.com", true)
		s.waitFor("bob gone", `document.querySelectorAll('main tbody tr').length === 1`)
		if len(casa()) != 1 {
			t.Fatal("bob is still a member")
		}
		// One's own row offers neither a role nor a removal: leaving is its own action.
		if got := s.text(`main tbody tr`); s.text(`main tbody select`) != "" || got == "" {
			t.Fatalf("the owner's own row: %q", got)
		}

		// An admin of alice's team: no owner's role to give, no owner to remove, no deletion.
		switchTo("Obra", team+": Obra")
		s.waitFor("the members", `document.querySelectorAll('main tbody tr').length === 2`)
		var seen struct{ Owner, Delete, Remove, Leave bool }
		s.eval(fmt.Sprintf(`({Owner: !!document.querySelector('main select option[value=owner]'),
			Delete: !!document.querySelector('button[aria-label=%q]'), Remove: !!document.querySelector('button[aria-label$="alice@example.com"]'),
			Leave: !!document.querySelector('button[aria-label=%q]')})`,
			s.view.say("Delete workspace", "Eliminar espacio")+" Obra", s.view.say("Leave", "Salir")+" Obra"), &seen)
		if seen.Owner || seen.Delete || seen.Remove || !seen.Leave {
			t.Fatalf("an admin sees owner's actions or cannot leave: %+v", seen)
		}
		s.axe("team-admin")

		// A collaborator: neither the team's management nor a webhook's change.
		switchTo("Taller", team+": Taller")
		var forms, buttons int
		s.eval(`document.querySelectorAll('main form').length`, &forms)
		s.eval(`document.querySelectorAll('main button').length`, &buttons)
		if s.text(`main table`) != "" || forms != 1 || buttons != 1 { // the new team's form alone
			t.Fatalf("a collaborator sees the team's management: %q", s.text(`main`))
		}
		s.open("/app/webhooks", "Webhooks")
		s.waitFor("the webhook", `document.querySelector('main tbody tr')`)
		var shown []string
		s.eval(`[...document.querySelectorAll('main button')].map(b => b.innerText)`, &shown)
		if len(shown) != 1 || s.text(`main form`) != "" {
			t.Fatalf("a collaborator sees the webhook's buttons %v and form %q", shown, s.text(`main form`))
		}

		// The owner deletes Casa after a confirmation that names it.
		switchTo("Casa", team+": Casa")
		s.answerConfirmation(s.view.say("Delete workspace", "Eliminar espacio"), "Casa", true)
		s.waitFor("the personal workspace", fmt.Sprintf(`(document.querySelector('main h1') || {}).innerText === %q`, team))
		if n := count(s, "/api/workspaces", "workspaces"); n != 3 {
			t.Fatalf("%d workspaces after deleting Casa, want 3", n)
		}
	})
}

// A webhook is edited, its secret rotated (shown once, after a confirmation) and it is
// deleted; an API key is revoked after a confirmation.
func TestWebhooksAndKeysAreEditable(t *testing.T) {
	var secret string
	inEachView(t, func(t *testing.T, s *scene) {
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		t.Cleanup(receiver.Close)
		secret = string(s.api.Post("/api/webhooks/outbound", map[string]any{"name": "Books", "url": receiver.URL}).Expect(t, http.StatusOK).Raw)
		s.api.Post("/api/api-keys", map[string]any{"name": "Sync", "scopes": []string{"wallets:read"}}).Expect(t, http.StatusOK)
	}, func(t *testing.T, s *scene) {
		hook := func() map[string]any { return s.api.Get("/api/webhooks/outbound").List("webhooks")[0] }
		s.open("/app/webhooks", "Webhooks")
		s.press(s.view.say("Edit", "Editar"), "Books")
		s.fill(`dialog form`, map[string]string{"name": "Ledger", "events": "transaction.created, wallet.created", "active": "false"})
		s.waitFor("the edited webhook", `document.querySelector('main tbody tr').innerText.includes('Ledger')`)
		if h := hook(); h["active"] != false || fmt.Sprint(h["events"]) != "[transaction.created wallet.created]" {
			t.Fatalf("the edited webhook %v", h)
		}
		rotate := s.view.say("Rotate secret", "Cambiar secreto")
		s.answerConfirmation(rotate, "Ledger", false)
		if s.text(`[data-testid=secret]`) != "" {
			t.Fatal("a cancelled rotation shows a secret")
		}
		s.answerConfirmation(rotate, "Ledger", true)
		s.waitFor("the new secret shown once", `document.querySelector('[data-testid=secret]')`)
		if got := s.text(`[data-testid=secret]`); got == "" || len(got) < 16 || strings.Contains(secret, got) {
			t.Fatalf("the rotated secret %q (before: %s)", got, secret)
		}
		s.axe("webhook-rotated")
		del := s.view.say("Delete", "Eliminar")
		s.deleteAskingFirst(del, "Ledger", "/api/webhooks/outbound", "webhooks", `!document.querySelector('main tbody tr')`)

		s.open("/app/api-keys", s.view.say("API keys", "Claves de API"))
		revoke := s.view.say("Revoke", "Revocar")
		s.answerConfirmation(revoke, "Sync", false)
		if k := s.api.Get("/api/api-keys").List("apiKeys")[0]; k["revokedAt"] != nil {
			t.Fatal("a cancelled revocation revoked the key")
		}
		s.answerConfirmation(revoke, "Sync", true)
		s.waitFor("the key revoked", fmt.Sprintf(`!document.querySelector('button[aria-label=%q]')`, revoke+" Sync"))
		if k := s.api.Get("/api/api-keys").List("apiKeys")[0]; k["revokedAt"] == nil {
			t.Fatalf("the revoked key %v", k)
		}
		s.axe("api-key-revoked")
	})
}

// What a key did since a moment is undone from the keys page: the transaction it
// recorded is gone.
func TestAKeysWorkIsUndoneFromTheKeysPage(t *testing.T) {
	var recorded string
	inEachView(t, func(t *testing.T, s *scene) {
		wallet := s.create("/api/wallets", "wallet", map[string]any{"name": "Cash", "balance": 10})
		plaintext := s.api.Post("/api/api-keys", map[string]any{"name": "Agent", "scopes": []string{"*"}}).Expect(t, http.StatusOK).JSON["plaintext"].(string)
		recorded = s.api.With("Authorization", "Bearer "+plaintext).Post("/api/transactions", map[string]any{"type": "expense", "amount": 3, "walletId": wallet}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}, func(t *testing.T, s *scene) {
		s.open("/app/api-keys", s.view.say("API keys", "Claves de API"))
		s.press(s.view.say("Undo since…", "Deshacer desde…"), "Agent")
		s.setField("dialog[open] form", "since", "2026-03-10T00:00")
		s.axe("api-key-undo")
		s.submit("dialog[open] form")
		s.waitFor("the undo done", `!document.querySelector('dialog[open]')`)
		s.api.Get("/api/transactions/"+recorded).Expect(t, http.StatusNotFound)
	})
}
