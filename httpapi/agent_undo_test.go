package httpapi_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// auditOf is the audit entries of one record, oldest first.
func auditOf(t *testing.T, c *apitest.Client, entity, id string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range c.Get("/api/audit?entity="+entity+"&pageSize=100").Expect(t, http.StatusOK).List("entries") {
		if e["entityId"] == id {
			out = append([]map[string]any{e}, out...)
		}
	}
	return out
}

// A write through /mcp keeps the key as its actor and the MCP client's name and version
// as its user agent; a REST write with the same key keeps the request's User-Agent.
func TestAgentUndoMCPWritesNameTheClient(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	cash := alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	key, keyID := newKey(t, alice, "transactions:write", "transactions:read")
	session := connectMCP(t, env, key)

	res, got := callTool(t, session, "create_transaction", map[string]any{"type": "expense", "amount": 4, "walletId": cash})
	if res.IsError {
		t.Fatalf("create_transaction: %v", got)
	}
	viaMCP := got["transaction"].(map[string]any)["id"].(string)
	viaREST := key.With("User-Agent", "books-sync/2").Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "walletId": cash}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	for id, want := range map[string]string{viaMCP: "mcp; client=finledger-test 1", viaREST: "books-sync/2"} {
		entries := auditOf(t, alice, "transaction", id)
		if len(entries) != 1 || entries[0]["actorType"] != "api_key" || entries[0]["actorId"] != keyID || entries[0]["userAgent"] != want {
			t.Errorf("audit of %s: %v, want the key %s and the user agent %q", id, entries, keyID, want)
		}
	}
}

// agentUndoWorld is a workspace where an agent's key did some work since a moment, and
// a person corrected one of its transactions after it.
type agentUndoWorld struct {
	env                 *apitest.Env
	alice, agent, other *apitest.Client
	agentID, cash       string
	since               time.Time
	before              any
	// created, restored and budget are what the undo reverses; corrected is the key's
	// transaction a person corrected since; mine is alice's transaction the key corrected;
	// others is the other key's transaction.
	created              []string
	mine, corrected      string
	budget, othersRecord string
}

func newAgentUndoWorld(t *testing.T) *agentUndoWorld {
	t.Helper()
	env := apitest.Start(t)
	start := env.Clock.Now()
	x := &agentUndoWorld{env: env, alice: env.As("alice")}
	x.cash = x.alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	food := x.alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	expense := func(c *apitest.Client, amount float64) string {
		t.Helper()
		return c.Post("/api/transactions", map[string]any{"type": "expense", "amount": amount, "walletId": x.cash, "concept": "Lunch"}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}
	x.mine = expense(x.alice, 5)
	x.agent, x.agentID = newKey(t, x.alice, "*")
	x.other, _ = newKey(t, x.alice, "*")
	x.before = balanceOf(t, x.alice, x.cash)

	x.since = start.Add(10 * time.Minute)
	env.Clock.Set(x.since)
	x.created = append(x.created, expense(x.agent, 10))
	res, got := callTool(t, connectMCP(t, env, x.agent), "create_transaction", map[string]any{"type": "expense", "amount": 4, "walletId": x.cash})
	if res.IsError {
		t.Fatalf("create_transaction: %v", got)
	}
	x.created = append(x.created, got["transaction"].(map[string]any)["id"].(string))
	correct(x.agent, "/api/transactions/"+x.mine, map[string]any{"amount": 7, "concept": "Dinner"}).Expect(t, http.StatusOK)
	correct(x.agent, "/api/transactions/"+x.mine, map[string]any{"categoryId": food}).Expect(t, http.StatusOK)
	x.budget = x.agent.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": food, "amount": 100,
		"startDate": "2026-03-01", "endDate": "2026-03-31"}).Expect(t, http.StatusOK).Object("budget")["id"].(string)
	x.corrected = expense(x.agent, 3)
	x.othersRecord = expense(x.other, 2)

	env.Clock.Set(x.since.Add(10 * time.Minute))
	correct(x.alice, "/api/transactions/"+x.corrected, map[string]any{"concept": "Mine now"}).Expect(t, http.StatusOK)
	env.Clock.Set(x.since.Add(20 * time.Minute))
	return x
}

// correct corrects a transaction, as a client of PATCH does: with an Idempotency-Key.
func correct(c *apitest.Client, path string, body map[string]any) *apitest.Response {
	return c.With("Idempotency-Key", uuid.NewString()).Patch(path, body)
}

// undo asks for the undo of the agent's work since the world's moment.
func (x *agentUndoWorld) undo(c *apitest.Client) *apitest.Response {
	return c.Post("/api/agents/"+x.agentID+"/undo", map[string]any{"since": x.since.Format(time.RFC3339)})
}

// kindsAndIDs lists an undo's entries as "kind id action-or-reason", sorted.
func kindsAndIDs(entries []map[string]any, last string) []string {
	var out []string
	for _, e := range entries {
		out = append(out, fmt.Sprint(e["kind"], " ", e["id"], " ", e[last]))
	}
	slices.Sort(out)
	return out
}

// The undo reverses the key's work but the transaction a person corrected since, which
// it lists; balances are back where they were but for it; the audit log shows the undo;
// an undo again reverses nothing; another key's work stays.
func TestAgentUndoReversesAKeysWork(t *testing.T) {
	x := newAgentUndoWorld(t)
	r := x.undo(x.alice.With("Idempotency-Key", "undo-1")).Expect(t, http.StatusOK)
	want := []string{"budget " + x.budget + " deleted", "transaction " + x.mine + " restored"}
	for _, id := range x.created {
		want = append(want, "transaction "+id+" deleted")
	}
	slices.Sort(want)
	if got := kindsAndIDs(r.List("reversed"), "action"); !slices.Equal(got, want) {
		t.Errorf("reversed %v, want %v", got, want)
	}
	if got := kindsAndIDs(r.List("skipped"), "reason"); !slices.Equal(got, []string{"transaction " + x.corrected + " CHANGED_SINCE"}) {
		t.Errorf("skipped %v", got)
	}
	if replay := x.undo(x.alice.With("Idempotency-Key", "undo-1")).Expect(t, http.StatusOK); replay.Header.Get("Idempotent-Replayed") != "true" ||
		!reflect.DeepEqual(replay.JSON, r.JSON) {
		t.Errorf("the retry answered %v (%v), want the first answer", replay.JSON, replay.Header)
	}

	// What stays: the person's correction (3) and the other key's transaction (2).
	before, _ := decimal.NewFromString(fmt.Sprint(x.before))
	if got := balanceOf(t, x.alice, x.cash); fmt.Sprint(got) != before.Sub(decimal.NewFromInt(5)).String() {
		t.Errorf("cash %v after the undo, want %v less 5", got, x.before)
	}
	mine := x.alice.Get("/api/transactions/"+x.mine).Expect(t, http.StatusOK).Object("transaction")
	if fmt.Sprint(mine["amount"]) != "5" || mine["concept"] != "Lunch" || mine["categoryId"] != nil {
		t.Errorf("restored %v, want 5, Lunch and no category", mine)
	}
	for _, id := range x.created {
		x.alice.Get("/api/transactions/"+id).Expect(t, http.StatusNotFound)
	}
	x.alice.Get("/api/budgets/"+x.budget).Expect(t, http.StatusNotFound)
	x.alice.Get("/api/transactions/"+x.othersRecord).Expect(t, http.StatusOK)
	x.alice.Get("/api/transactions/"+x.corrected).Expect(t, http.StatusOK)

	for id, action := range map[string]string{x.created[0]: "delete", x.mine: "update", x.budget: "delete"} {
		entity := "transaction"
		if id == x.budget {
			entity = "budget"
		}
		entries := auditOf(t, x.alice, entity, id)
		if last := entries[len(entries)-1]; last["action"] != action || last["actorType"] != "user" {
			t.Errorf("the audit log of %s ends with %v, want the undo's %s by alice", id, last, action)
		}
	}

	again := x.undo(x.alice).Expect(t, http.StatusOK)
	if len(again.List("reversed")) != 0 {
		t.Errorf("an undo again reversed %v", again.List("reversed"))
	}
	undone := []string{"budget " + x.budget + " UNDONE_ALREADY", "transaction " + x.corrected + " CHANGED_SINCE", "transaction " + x.mine + " UNDONE_ALREADY"}
	for _, id := range x.created {
		undone = append(undone, "transaction "+id+" UNDONE_ALREADY")
	}
	slices.Sort(undone)
	if got := kindsAndIDs(again.List("skipped"), "reason"); !slices.Equal(got, undone) {
		t.Errorf("an undo again skipped %v, want %v", got, undone)
	}
	if got := balanceOf(t, x.alice, x.cash); fmt.Sprint(got) != before.Sub(decimal.NewFromInt(5)).String() {
		t.Errorf("cash %v after an undo again", got)
	}

	// The key corrects the restored transaction again: the next undo reverses that alone.
	correct(x.agent, "/api/transactions/"+x.mine, map[string]any{"concept": "Brunch"}).Expect(t, http.StatusOK)
	third := x.undo(x.alice).Expect(t, http.StatusOK)
	if got := kindsAndIDs(third.List("reversed"), "action"); !slices.Equal(got, []string{"transaction " + x.mine + " restored"}) {
		t.Errorf("an undo of the key's later correction reversed %v", got)
	}
	if mine := x.alice.Get("/api/transactions/"+x.mine).Expect(t, http.StatusOK).Object("transaction"); fmt.Sprint(mine["amount"]) != "5" ||
		mine["concept"] != "Lunch" {
		t.Errorf("after the third undo %v, want 5 and Lunch", mine)
	}
}

// An undo names a key of the caller's workspace by a moment past: another workspace's key
// is 404, a moment to come or malformed is 400, and a key's own credential may not undo.
func TestAgentUndoRefuses(t *testing.T) {
	x := newAgentUndoWorld(t)
	bob := x.env.As("bob")
	_, bobsKey := newKey(t, bob, "*")
	if r := x.alice.Post("/api/agents/"+bobsKey+"/undo", map[string]any{"since": x.since.Format(time.RFC3339)}); r.Status != http.StatusNotFound {
		t.Errorf("another workspace's key: %d %v", r.Status, r.JSON)
	}
	for _, since := range []any{x.env.Clock.Now().Add(time.Minute).Format(time.RFC3339), "yesterday", 12, nil} {
		if r := x.alice.Post("/api/agents/"+x.agentID+"/undo", map[string]any{"since": since}); r.Status != http.StatusBadRequest {
			t.Errorf("since %v: %d %v", since, r.Status, r.JSON)
		}
	}
	if r := x.undo(x.agent); r.Status != http.StatusForbidden && r.Status != http.StatusUnauthorized {
		t.Errorf("the key undoing its own work: %d %v", r.Status, r.JSON)
	}
	x.alice.Get("/api/transactions/"+x.created[0]).Expect(t, http.StatusOK)
}

// Two instances running the same undo at once have one effect: each reversal is
// reported once, and the balance moves once.
func TestAgentUndoRacedOnTwoInstances(t *testing.T) {
	x := newAgentUndoWorld(t)
	second := x.env.Instance()
	answers := make([]*apitest.Response, 2)
	var wg sync.WaitGroup
	for i, c := range []*apitest.Client{x.alice, x.alice.On(second)} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = x.undo(c)
		}()
	}
	wg.Wait()
	var reversed []string
	for _, r := range answers {
		if r.Status != http.StatusOK {
			t.Fatalf("undo: %d %v", r.Status, r.JSON)
		}
		reversed = append(reversed, kindsAndIDs(r.List("reversed"), "action")...)
	}
	if len(reversed) != len(x.created)+2 {
		t.Errorf("reversed between the two: %v", reversed)
	}
	before, _ := decimal.NewFromString(fmt.Sprint(x.before))
	if got := balanceOf(t, x.alice, x.cash); fmt.Sprint(got) != before.Sub(decimal.NewFromInt(5)).String() {
		t.Errorf("cash %v after two undos at once, want %v less 5", got, x.before)
	}
}
