package httpapi_test

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// A cursor beyond the end of the workspace's history is no cursor a page gave: it is
// refused, on every instance, rather than answered as if the copy were up to date. The
// end is the database's, so a cursor one instance gave is good on another.
func TestTheChangeFeedRefusesACursorBeyondTheHistory(t *testing.T) {
	env := apitest.Start(t)
	other := env.Instance()
	f := newLedger(t, env, "alice")
	end := f.c.Get("/api/changes").Expect(t, http.StatusOK).JSON["cursor"].(string)
	head, err := strconv.ParseInt(end, 10, 64)
	if err != nil || head == 0 {
		t.Fatalf("cursor %q", end)
	}
	last := f.c.On(other).Get("/api/changes?cursor="+end).Expect(t, http.StatusOK)
	if len(last.List("changes")) != 0 || last.JSON["cursor"] != end || last.JSON["more"] != false {
		t.Fatalf("the end of the feed: %s", last.Raw)
	}
	for _, c := range []*apitest.Client{f.c, f.c.On(other)} {
		for _, ahead := range []int64{head + 1, head + 1000, 1<<63 - 1} {
			r := c.Get("/api/changes?cursor=" + strconv.FormatInt(ahead, 10))
			if fields := fieldErrors(t, r); !slices.Equal(fields, []string{"cursor"}) {
				t.Fatalf("cursor %d: fields %q", ahead, fields)
			}
		}
	}
	// Once the history has grown past it, the same number is a cursor like any other.
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5, "categoryId": f.food}).Expect(t, http.StatusCreated)
	page := f.c.On(other).Get("/api/changes?cursor="+strconv.FormatInt(head, 10)).Expect(t, http.StatusOK)
	if len(page.List("changes")) == 0 {
		t.Fatalf("the feed after a write: %s", page.Raw)
	}
	f.c.Get("/api/changes?cursor="+strconv.FormatInt(head+1, 10)).Expect(t, http.StatusOK)
}
