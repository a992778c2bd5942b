package browsertest_test

import (
	"fmt"
	"net/http"
	"testing"
)

// The writes of a key that proposes wait on the Proposals page: an expense it proposed
// listed by its summary, approved (the toast says done, and the transaction exists), and
// another rejected, its status then shown in words among the decided ones; a third,
// whose category was archived since, approved and failing, the toast and its row saying
// why; nothing untranslated in Spanish, and the page passes axe in both views. One
// proposed while the person is elsewhere in the app is told at once by a toast whose
// Review leads to it.
func TestProposalsAreApprovedAndRejectedFromTheirPage(t *testing.T) {
	english := words(t)
	var approved, rejected, rejectedID, failing, wallet, plaintext string
	inEachView(t, func(t *testing.T, s *scene) {
		wallet = s.create("/api/wallets", "wallet", map[string]any{"name": "Cash", "balance": 100, "isDefault": true})
		plaintext = s.api.Post("/api/api-keys", map[string]any{"name": "Agent", "scopes": []string{"*"}, "writes": "propose"}).
			Expect(t, http.StatusOK).JSON["plaintext"].(string)
		agent := s.api.With("Authorization", "Bearer "+plaintext)
		propose := func(amount int, more ...string) map[string]any {
			body := map[string]any{"type": "expense", "amount": amount, "walletId": wallet}
			if len(more) > 0 {
				body["categoryId"] = more[0]
			}
			return agent.Post("/api/transactions", body).
				Expect(t, http.StatusAccepted).Object("proposal")
		}
		approved = propose(42)["summary"].(string)
		p := propose(17)
		rejected, rejectedID = p["summary"].(string), p["id"].(string)
		// A third, approved once its category is archived, fails and says why.
		category := s.create("/api/categories", "category", map[string]any{"name": "Renta"})
		failing = propose(9, category)["summary"].(string)
		s.api.Delete("/api/categories/"+category).Expect(t, http.StatusOK)
	}, func(t *testing.T, s *scene) {
		if n := len(s.api.Get("/api/transactions").List("transactions")); n != 0 {
			t.Fatalf("%d transactions before any approval", n)
		}
		s.waitFor("the live stream", `document.querySelector('#live[data-up=true]')`)
		told := s.api.With("Authorization", "Bearer "+plaintext).Post("/api/transactions",
			map[string]any{"type": "expense", "amount": 3, "walletId": wallet}).Expect(t, http.StatusAccepted).Object("proposal")["summary"].(string)
		s.waitFor("the new proposal's toast", fmt.Sprintf(`document.getElementById('toasts').innerText.includes(%q)`, told))
		s.eval(fmt.Sprintf(`document.querySelector('#toasts [data-action] button').innerText === %q && document.querySelector('#toasts [data-action] button').click()`,
			s.view.say("Review", "Revisar")), nil)
		s.waitFor("the proposal on its page", fmt.Sprintf(`location.pathname === '/app/proposals' && document.querySelector('main tbody')?.innerText.includes(%q)`, told))

		s.open("/app/proposals", s.view.say("Proposals", "Propuestas"))
		s.waitFor("the pending proposals", fmt.Sprintf(`document.querySelector('main tbody').innerText.includes(%q) && document.querySelector('main tbody').innerText.includes(%q)`, approved, rejected))
		s.axe("proposals-" + s.view.Name)
		if found := s.untranslated(english); len(found) > 0 {
			t.Errorf("untranslated: %q", found)
		}

		s.press(s.view.say("Approve", "Aprobar"), approved)
		done := s.view.say("Done.", "Hecho.")
		s.waitFor("the approval's toast", fmt.Sprintf(`[...document.querySelectorAll('.toast span')].some(t => t.innerText === %q)`, done))
		txs := s.api.Get("/api/transactions").List("transactions")
		if len(txs) != 1 || fmt.Sprint(txs[0]["amount"]) != "42" {
			t.Fatalf("transactions after the approval: %v", txs)
		}

		s.press(s.view.say("Reject", "Rechazar"), rejected)
		status := s.view.say("Rejected", "Rechazada")
		s.waitFor("the rejection shown", fmt.Sprintf(`[...document.querySelectorAll('main section tbody tr')].some(r => r.innerText.includes(%q) && r.innerText.includes(%q))`, rejected, status))
		if got := s.api.Get("/api/proposals/" + rejectedID).Object("proposal")["status"]; got != "rejected" {
			t.Fatalf("the rejected proposal's status: %v", got)
		}
		if n := len(s.api.Get("/api/transactions").List("transactions")); n != 1 {
			t.Fatalf("%d transactions after the rejection", n)
		}
		s.press(s.view.say("Approve", "Aprobar"), failing)
		why := s.view.say("Failed: That category does not exist any more.", "Fallida: Esa categoría ya no existe.")
		s.waitFor("the failure's toast", fmt.Sprintf(`[...document.querySelectorAll('.toast span')].some(t => t.innerText === %q)`, why))
		s.waitFor("the failure shown", fmt.Sprintf(`[...document.querySelectorAll('main section tbody tr')].some(r => r.innerText.includes(%q) && r.innerText.includes(%q))`, failing, why))
		if n := len(s.api.Get("/api/transactions").List("transactions")); n != 1 {
			t.Fatalf("%d transactions after the failed approval", n)
		}
		s.press(s.view.say("Reject", "Rechazar"), told)
		s.waitFor("the told one rejected", fmt.Sprintf(`[...document.querySelectorAll('main section tbody tr')].some(r => r.innerText.includes(%q) && r.innerText.includes(%q))`, told, status))
		s.waitFor("no button left", `!document.querySelector('main tbody button')`)
		s.axe("proposals-decided-" + s.view.Name)
		if found := s.untranslated(english); len(found) > 0 {
			t.Errorf("untranslated: %q", found)
		}
	})
}
