package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// newProposingKey is a key of every scope whose writes are held for approval.
func newProposingKey(t *testing.T, c *apitest.Client) (*apitest.Client, string) {
	t.Helper()
	r := c.Post("/api/api-keys", map[string]any{"name": "assistant", "scopes": []string{"*"}, "writes": "propose"}).Expect(t, http.StatusOK)
	if r.Object("apiKey")["writes"] != "propose" {
		t.Fatalf("key %s", r.Raw)
	}
	return c.With("Authorization", "Bearer "+r.JSON["plaintext"].(string)), r.Object("apiKey")["id"].(string)
}

// A key whose writes are held for approval: its write is decided and recorded as a
// proposal that says what it would do, and nothing else changes; a person approves it
// (two instances at once: it runs once), rejects another, one expires, and one whose
// category was archived since fails cleanly when approved. Such a key writes nothing
// that takes no proposal, approves nothing, and proposes nothing that would be refused.
func TestProposalsHoldAKeysWrites(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	key, keyID := newProposingKey(t, f.c)
	before := f.balance(t, f.cash)

	expense := map[string]any{"type": "expense", "amount": 250, "categoryId": f.food, "walletId": f.cash, "concept": "Super",
		"date": "2026-03-04"}
	r := key.Post("/api/transactions", expense).Expect(t, http.StatusAccepted)
	proposal := r.Object("proposal")
	id := proposal["id"].(string)
	summary, _ := proposal["summary"].(string)
	if proposal["status"] != "pending" || proposal["keyId"] != keyID || proposal["route"] != "POST /api/transactions" ||
		!strings.Contains(summary, "expense 250 MXN") || !strings.Contains(summary, "Food") || !strings.Contains(summary, "from Cash") {
		t.Fatalf("proposal %v", proposal)
	}
	if n := len(f.c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions")); n != 0 || f.balance(t, f.cash) != before {
		t.Fatalf("a proposal wrote: %d transactions, balance %s", n, f.balance(t, f.cash))
	}
	// What would be refused is refused now; what takes no proposal, and approving, are not the key's.
	expectError(t, key.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "categoryId": keyID}),
		http.StatusNotFound, "CATEGORY_NOT_FOUND")
	expectError(t, key.Post("/api/wallets", map[string]any{"name": "Side"}), http.StatusForbidden, "FORBIDDEN")
	expectError(t, key.Post("/api/proposals/"+id+"/approve", nil), http.StatusForbidden, "FORBIDDEN")
	if list := f.c.Get("/api/proposals?status=pending").Expect(t, http.StatusOK).List("proposals"); len(list) != 1 || list[0]["id"] != id {
		t.Fatalf("pending %v", list)
	}

	// Approved on two instances at once: it runs once.
	other := env.Instance().As("alice")
	var wg sync.WaitGroup
	answers := make([]*apitest.Response, 2)
	for i, c := range []*apitest.Client{f.c, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = c.Post("/api/proposals/"+id+"/approve", nil)
		}()
	}
	wg.Wait()
	approved := 0
	for _, a := range answers {
		switch {
		case a.Status == http.StatusOK && a.Object("proposal")["status"] == "approved" && a.Object("proposal")["resultStatus"] == jsonInt(201):
			approved++
		case a.Status == http.StatusConflict && a.ErrorCode() == "PROPOSAL_DECIDED":
		default:
			t.Fatalf("approval answered %d %s", a.Status, a.Raw)
		}
	}
	listed := f.c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions")
	if approved == 0 || len(listed) != 1 || num(listed[0]["amount"]) != "250" || f.balance(t, f.cash) != "-150" {
		t.Fatalf("after the approvals: %d approved, %v, balance %s", approved, listed, f.balance(t, f.cash))
	}
	expectError(t, f.c.Post("/api/proposals/"+id+"/reject", nil), http.StatusConflict, "PROPOSAL_DECIDED")

	// Rejected: nothing happens.
	rejected := key.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 300, "startDate": "2026-01-01",
		"endDate": "2026-12-31"}).Expect(t, http.StatusAccepted).Object("proposal")["id"].(string)
	if got := f.c.Post("/api/proposals/"+rejected+"/reject", nil).Expect(t, http.StatusOK).Object("proposal"); got["status"] != "rejected" {
		t.Fatalf("rejected %v", got)
	}
	expectError(t, f.c.Post("/api/proposals/"+rejected+"/approve", nil), http.StatusConflict, "PROPOSAL_DECIDED")
	if n := len(f.c.Get("/api/budgets").Expect(t, http.StatusOK).List("budgets")); n != 0 {
		t.Fatalf("a rejected proposal wrote %d budgets", n)
	}

	// Approved after its category was archived: it fails, and says why.
	failing := key.Post("/api/transactions", map[string]any{"type": "expense", "amount": 9, "categoryId": f.rent}).
		Expect(t, http.StatusAccepted).Object("proposal")["id"].(string)
	f.c.Delete("/api/categories/"+f.rent).Expect(t, http.StatusOK)
	failed := f.c.Post("/api/proposals/"+failing+"/approve", nil).Expect(t, http.StatusOK)
	if p := failed.Object("proposal"); p["status"] != "failed" || p["errorCode"] != "CATEGORY_NOT_FOUND" || p["resultStatus"] != jsonInt(404) {
		t.Fatalf("failed %s", failed.Raw)
	}
	if n := len(f.c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions")); n != 1 {
		t.Fatalf("a failed proposal wrote: %d transactions", n)
	}

	// A week later, one nobody decided has expired.
	late := key.With("Idempotency-Key", "late-1").Delete("/api/transactions/"+listed[0]["id"].(string)).Expect(t, http.StatusAccepted).Object("proposal")["id"].(string)
	env.Clock.Set(env.Clock.Now().Add(7*24*time.Hour + time.Minute))
	if got := f.c.Get("/api/proposals/"+late).Expect(t, http.StatusOK).Object("proposal"); got["status"] != "expired" {
		t.Fatalf("a week on: %v", got)
	}
	expectError(t, f.c.Post("/api/proposals/"+late+"/approve", nil), http.StatusConflict, "PROPOSAL_EXPIRED")
	if list := f.c.Get("/api/proposals?status=expired").Expect(t, http.StatusOK).List("proposals"); len(list) != 1 || list[0]["id"] != late {
		t.Fatalf("expired %v", list)
	}
}

// Through the MCP server, a key whose writes are held for approval sees the write tools
// that take proposals, each answering the proposal, and none of the others.
func TestMCPWritesOfAProposingKeyAreProposals(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	key, _ := newProposingKey(t, f.c)
	session := connectMCP(t, env, key)
	_, answer := callTool(t, session, "create_transaction", map[string]any{"type": "expense", "amount": 12.5, "walletId": f.cash})
	proposal := asObject(t, answer["proposal"])
	if proposal["status"] != "pending" || !strings.Contains(proposal["summary"].(string), "expense 12.5 MXN") {
		t.Fatalf("the tool's answer %v", answer)
	}
	if n := len(f.c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions")); n != 0 {
		t.Fatalf("the tool wrote %d transactions", n)
	}
	f.c.Post("/api/proposals/"+proposal["id"].(string)+"/approve", nil).Expect(t, http.StatusOK)
	if n := len(f.c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions")); n != 1 {
		t.Fatalf("approved, %d transactions", n)
	}
}

// Subscribers (and the realtime stream, which tells the same events) hear of a proposal
// when it is made, when it is rejected, and when an approved one has run: its own
// events first, then proposal.settled saying how it ended. The request's body is not
// told.
func TestProposalWebhooks(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	ev.Run()
	f := newLedger(t, env, "alice")
	key, keyID := newProposingKey(t, f.c)
	rc := newReceiver(t)
	rc.subscribe(f.c, "proposal.created", "proposal.rejected", "proposal.settled", "transaction.created")

	approved := key.Post("/api/transactions", map[string]any{"type": "expense", "amount": 250, "categoryId": f.food, "walletId": f.cash}).
		Expect(t, http.StatusAccepted).Object("proposal")
	f.c.Post("/api/proposals/"+approved["id"].(string)+"/approve", nil).Expect(t, http.StatusOK)
	rejected := key.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "walletId": f.cash}).
		Expect(t, http.StatusAccepted).Object("proposal")["id"].(string)
	f.c.Post("/api/proposals/"+rejected+"/reject", nil).Expect(t, http.StatusOK)
	waitFor(t, "proposal.rejected", 10*time.Second, func() bool { return len(firstOf(t, rc.receipts(), "proposal.rejected")) == 1 })

	created, settled := firstOf(t, rc.receipts(), "proposal.created"), firstOf(t, rc.receipts(), "proposal.settled")
	if len(created) != 2 || len(settled) != 1 || len(firstOf(t, rc.receipts(), "transaction.created")) != 1 {
		t.Fatalf("receipts: %v", rc.receipts())
	}
	told := created[0].Body["data"].(map[string]any)
	if told["proposalId"] != approved["id"] || told["keyId"] != keyID || told["route"] != "POST /api/transactions" ||
		told["summary"] != approved["summary"] || told["expiresAt"] != approved["expiresAt"] || told["body"] != nil || told["path"] != nil {
		t.Fatalf("proposal.created %v; the proposal %v", told, approved)
	}
	if got := settled[0].Body["data"].(map[string]any); got["proposalId"] != approved["id"] || got["status"] != "approved" ||
		fmt.Sprint(got["resultStatus"]) != "201" {
		t.Fatalf("proposal.settled %v", got)
	}
	if got := firstOf(t, rc.receipts(), "proposal.rejected")[0].Body["data"].(map[string]any); got["proposalId"] != rejected {
		t.Fatalf("proposal.rejected %v", got)
	}
	var order []string
	for _, r := range rc.receipts() {
		if r.Event == "transaction.created" || r.Event == "proposal.settled" {
			order = append(order, r.Event)
		}
	}
	if order[0] != "transaction.created" {
		t.Fatalf("an approved proposal's own event came after proposal.settled: %v", order)
	}
}
