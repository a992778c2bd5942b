package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// replica is a client's copy of a workspace, kept by the change feed: records by kind
// and id, and the cursor it has reached.
type replica struct {
	records map[string]map[string]map[string]any
	cursor  string
	pages   int
}

func newReplica() *replica { return &replica{records: map[string]map[string]map[string]any{}} }

// sync reads the feed from the replica's cursor to its end, limit changes a page.
func (r *replica) sync(t *testing.T, c *apitest.Client, limit int) {
	t.Helper()
	for {
		path := "/api/changes?limit=" + strconv.Itoa(limit)
		if r.cursor != "" {
			path += "&cursor=" + url.QueryEscape(r.cursor)
		}
		page := c.Get(path).Expect(t, http.StatusOK)
		r.pages++
		changes := page.List("changes")
		if len(changes) > limit {
			// A page may go past limit only to finish the version it ends at.
			last := changes[len(changes)-1]["version"]
			for _, ch := range changes[limit-1:] {
				if ch["version"] != last {
					t.Fatalf("page of %d changes for a limit of %d ends at several versions: %s", len(changes), limit, page.Raw)
				}
			}
		}
		r.apply(t, changes)
		next := page.JSON["cursor"].(string)
		if next == r.cursor && page.JSON["more"] == true {
			t.Fatalf("the feed does not move past %s", next)
		}
		r.cursor = next
		if page.JSON["more"] != true {
			return
		}
	}
}

// apply applies a page's changes to the copy.
func (r *replica) apply(t *testing.T, changes []map[string]any) {
	t.Helper()
	for _, ch := range changes {
		kind, id := ch["kind"].(string), ch["id"].(string)
		if r.records[kind] == nil {
			r.records[kind] = map[string]map[string]any{}
		}
		if ch["deleted"] == true {
			if ch["record"] != nil {
				t.Fatalf("a deletion carries a record: %v", ch)
			}
			delete(r.records[kind], id)
			continue
		}
		r.records[kind][id] = ch["record"].(map[string]any)
	}
}

// clone copies the replica as it stands.
func (r *replica) clone() *replica {
	out := newReplica()
	out.cursor = r.cursor
	for kind, recs := range r.records {
		out.records[kind] = map[string]map[string]any{}
		for id, rec := range recs {
			out.records[kind][id] = rec
		}
	}
	return out
}

// matches checks the replica against the workspace's listings: every live record,
// wallets and categories not archived (archived ones stay in the copy, marked so).
func (r *replica) matches(t *testing.T, c *apitest.Client) {
	t.Helper()
	listings := map[string]string{"wallet": "wallets", "category": "categories", "budget": "budgets", "goal": "goals", "debt": "debts"}
	for kind, plural := range listings {
		r.compare(t, kind, c.Get("/api/"+plural).Expect(t, http.StatusOK).List(plural))
	}
	r.compare(t, "transaction", c.Get("/api/transactions?pageSize=100").Expect(t, http.StatusOK).List("transactions"))
}

func (r *replica) compare(t *testing.T, kind string, listed []map[string]any) {
	t.Helper()
	want := map[string]map[string]any{}
	for _, rec := range listed {
		if kind == "budget" {
			// The feed carries a budget's own fields; its spending is the listing's.
			for _, k := range []string{"active", "periodStart", "periodEnd", "spent", "remaining", "percentage", "alertReached"} {
				delete(rec, k)
			}
		}
		want[rec["id"].(string)] = rec
	}
	got := map[string]map[string]any{}
	for id, rec := range r.records[kind] {
		if rec["archived"] != true {
			got[id] = rec
		}
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("the copy's %ss differ from the listing:\n copy %s\n list %s", kind, g, w)
	}
}

// A client keeps a copy of a workspace by the change feed, in small pages, through
// creates, corrections, deletions, bulk operations, goal and debt movements and
// archived records, written through two instances; after each round the copy equals
// the listings. A second client reading the whole feed from the start reaches the same
// copy, and so does one that resumes from a cursor of long ago.
func TestTheChangeFeedKeepsACopyInSync(t *testing.T) {
	env := apitest.Start(t)
	other := env.Instance()
	f := newLedger(t, env, "alice")
	on := f.c.On(other)
	copy := newReplica()
	round := func() {
		t.Helper()
		copy.sync(t, f.c, 3)
		copy.matches(t, f.c)
	}
	keys := 0
	keyed := func(c *apitest.Client) *apitest.Client {
		keys++
		return c.With("Idempotency-Key", "feed-"+strconv.Itoa(keys))
	}
	f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 300, "startDate": "2026-01-01", "endDate": "2026-12-31"}).
		Expect(t, http.StatusOK)
	var ids []string
	for i := range 8 {
		c := f.c
		if i%2 == 1 {
			c = on
		}
		tx := c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10 + i, "categoryId": f.food, "date": "2026-03-0" + strconv.Itoa(1+i%5)}).
			Expect(t, http.StatusCreated).Object("transaction")
		ids = append(ids, tx["id"].(string))
	}
	round()
	early := copy.clone()

	keyed(on).Patch("/api/transactions/"+ids[0], map[string]any{"amount": 99.99, "categoryId": f.rent, "date": "2026-03-09"}).Expect(t, http.StatusOK)
	keyed(f.c).Delete("/api/transactions/"+ids[1]).Expect(t, http.StatusOK)
	f.c.Patch("/api/wallets/"+f.cash, map[string]any{"name": "Pocket", "balance": 250}).Expect(t, http.StatusOK)
	on.Patch("/api/categories/"+f.rent, map[string]any{"name": "Housing"}).Expect(t, http.StatusOK)
	round()

	keyed(f.c).Post("/api/transactions/bulk", map[string]any{"ids": []string{ids[2], ids[3], ids[4]}, "operation": "recategorize", "categoryId": f.rent}).
		Expect(t, http.StatusOK)
	keyed(on).Post("/api/transactions/bulk", map[string]any{"ids": []string{ids[5], ids[6]}, "operation": "delete"}).Expect(t, http.StatusOK)
	round()

	env.Clock.Set(env.Clock.Now().Add(time.Minute))
	goalAndDebtHistory(t, f, env)
	f.c.Delete("/api/wallets/"+f.dollar).Expect(t, http.StatusOK)
	f.c.Delete("/api/categories/"+f.food).Expect(t, http.StatusOK)
	round()
	if len(copy.records["transaction"]) < 8 || len(copy.records["goal"]) == 0 || len(copy.records["debt"]) == 0 ||
		len(copy.records["budget"]) == 0 || len(copy.records["wallet"]) != 3 || len(copy.records["category"]) != 2 {
		t.Fatalf("the copy holds too little: %v", copy.records)
	}

	// Nothing new: the feed answers an empty last page at the same cursor.
	last := f.c.Get("/api/changes?cursor="+copy.cursor).Expect(t, http.StatusOK)
	if len(last.List("changes")) != 0 || last.JSON["cursor"] != copy.cursor || last.JSON["more"] != false {
		t.Fatalf("at the end: %s", last.Raw)
	}

	fresh := newReplica()
	fresh.sync(t, on, 50)
	if !reflect.DeepEqual(fresh.records, copy.records) || fresh.cursor != copy.cursor {
		t.Fatalf("a copy read in one go differs from the one kept along")
	}
	early.sync(t, f.c, 7)
	if !reflect.DeepEqual(early.records, copy.records) {
		t.Fatalf("a copy resumed from an early cursor differs")
	}
}

// The feed carries only the kinds of record the caller may read, and the diff too; a
// cursor that is none is refused.
func TestTheChangeFeedIsScopedLikeItsRecords(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5, "categoryId": f.food}).Expect(t, http.StatusCreated)
	f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 900}).Expect(t, http.StatusOK)
	kinds := func(c *apitest.Client, path string, list string) map[string]int {
		t.Helper()
		out := map[string]int{}
		for _, ch := range c.Get(path).Expect(t, http.StatusOK).List(list) {
			out[ch["kind"].(string)]++
		}
		return out
	}
	all := kinds(f.c, "/api/changes", "changes")
	if !reflect.DeepEqual(all, map[string]int{"wallet": 3, "category": 2, "transaction": 1, "goal": 1}) {
		t.Fatalf("a session's feed: %v", all)
	}
	onlyTransactions, _ := newKey(t, f.c, "transactions:read")
	if got := kinds(onlyTransactions, "/api/changes", "changes"); !reflect.DeepEqual(got, map[string]int{"transaction": 1}) {
		t.Fatalf("a transactions:read key's feed: %v", got)
	}
	withWallets, _ := newKey(t, f.c, "transactions:read", "wallets:read")
	if got := kinds(withWallets, "/api/changes", "changes"); !reflect.DeepEqual(got, map[string]int{"transaction": 1, "wallet": 3}) {
		t.Fatalf("a transactions:read and wallets:read key's feed: %v", got)
	}
	from := url.QueryEscape(env.Clock.Now().Add(-time.Hour).Format(time.RFC3339))
	if got := kinds(onlyTransactions, "/api/changes/diff?from="+from, "differences"); !reflect.DeepEqual(got, map[string]int{"transaction": 1}) {
		t.Fatalf("a transactions:read key's diff: %v", got)
	}
	walletsOnly, _ := newKey(t, f.c, "wallets:read")
	expectError(t, walletsOnly.Get("/api/changes"), http.StatusForbidden, "FORBIDDEN")
	for _, bad := range []string{"/api/changes?cursor=-1", "/api/changes?limit=0", "/api/changes/diff", "/api/changes/diff?from=" + from + "&cursor=wallet"} {
		if r := f.c.Get(bad); r.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, r.Status, r.Raw)
		}
	}
}
