package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

// The listing reads its totals, and where a deep page starts, from the transaction
// counts per month and per day: through creates, corrections, deletions, bulk operations
// and a replay, every total stays the exact number of matches and every page the same
// slice of them, for dates that cut months anywhere and pages that start in any month.
func TestListingTotalsAndPagesStayExact(t *testing.T) {
	ctx := context.Background()
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	newLedger(t, env, "bob").c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "date": "2026-03-01"}).
		Expect(t, http.StatusCreated)
	keys := 0
	keyed := func() *apitest.Client {
		keys++
		return f.c.With("Idempotency-Key", "listing-"+strconv.Itoa(keys))
	}
	// Three transactions a day on eight days over six months, on the first and last days
	// of months and between them.
	days := []string{"2025-11-30", "2025-12-01", "2025-12-31", "2026-01-15", "2026-02-28", "2026-03-01", "2026-03-05", "2026-04-01"}
	var ids []string
	for i := range 24 {
		body := map[string]any{"type": "expense", "amount": i + 1, "date": days[i%len(days)], "concept": fmt.Sprintf("taco %d", i)}
		switch i % 4 {
		case 0:
			body["categoryId"] = f.food
		case 1:
			body["categoryId"], body["type"] = f.rent, "income"
		case 2:
			body["type"], body["walletId"], body["toWalletId"] = "transfer", f.bank, f.cash
		}
		ids = append(ids, f.c.Post("/api/transactions", body).Expect(t, http.StatusCreated).Object("transaction")["id"].(string))
	}
	goal := f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 900}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 10, "walletId": f.cash}).Expect(t, http.StatusOK)

	filters := []string{"", "type=expense", "type=transfer", "type=goal_deposit", "categoryId=" + f.food, "categoryId=" + f.rent,
		"categoryId=00000000-0000-0000-0000-000000000000", "from=2026-03-02&to=2026-03-04", "type=expense&categoryId=" + f.food + "&from=2026-03-03",
		"to=2026-03-01", "from=2027-01-01", "walletId=" + f.bank, "goalId=" + goal, "search=TACO%201",
		// Dates that cut months in the middle, at their edges and within one month.
		"from=2025-12-15&to=2026-03-03", "from=2025-12-01&to=2026-02-28", "from=2025-12-31&to=2026-03-01", "from=2026-01-10&to=2026-01-20",
		"from=2026-03-01&to=2026-03-01", "from=2025-12-02", "to=2026-02-27", "from=2025-11-30&to=2025-12-01",
		"type=expense&from=2025-12-02&to=2026-03-31", "type=income&to=2026-03-04", "categoryId=" + f.food + "&from=2025-11-30&to=2026-03-02",
		"type=transfer&from=2026-01-01&to=2026-03-31"}
	check := func(step string) {
		t.Helper()
		live := liveTransactions(t, env, "alice")
		for _, filter := range filters {
			var want []string
			values, err := url.ParseQuery(filter)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range live {
				if tr.matches(values) {
					want = append(want, tr.id)
				}
			}
			all := f.c.Get("/api/transactions?pageSize=100&"+filter).Expect(t, http.StatusOK)
			var listed []string
			for _, tr := range all.List("transactions") {
				listed = append(listed, tr["id"].(string))
			}
			if !reflect.DeepEqual(listed, want) {
				t.Fatalf("%s, %q: listed %v, the live transactions that match are %v", step, filter, listed, want)
			}
			if total := num(all.Object("pagination")["total"]); total != strconv.Itoa(len(want)) {
				t.Fatalf("%s, %q: total %s of %d listed", step, filter, total, len(want))
			}
			for page := 1; page <= len(want)/3+2; page++ {
				var got []string
				res := f.c.Get(fmt.Sprintf("/api/transactions?pageSize=3&page=%d&%s", page, filter)).Expect(t, http.StatusOK)
				for _, tr := range res.List("transactions") {
					got = append(got, tr["id"].(string))
				}
				if end := min(page*3, len(want)); (page-1)*3 < end && !reflect.DeepEqual(got, want[(page-1)*3:end]) ||
					(page-1)*3 >= len(want) && len(got) > 0 {
					t.Fatalf("%s, %q: page %d is %v of %v", step, filter, page, got, want)
				}
				if total := num(res.Object("pagination")["total"]); total != strconv.Itoa(len(want)) {
					t.Fatalf("%s, %q: page %d total %s, listing %d", step, filter, page, total, len(want))
				}
			}
		}
		// The counts are the live transactions grouped, as the migrations that made them
		// counted them: no group of none is left behind.
		for table, period := range map[string]string{"transaction_counts": "date", "transaction_month_counts": "date_trunc('month', date)::date"} {
			grouped := `SELECT workspace_id, ` + period + `, type, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), count(*)
				FROM transactions WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4`
			counted := `SELECT * FROM ` + table
			var differ, rows int
			if err := env.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM ((`+counted+` EXCEPT ALL `+grouped+`) UNION ALL
				(`+grouped+` EXCEPT ALL `+counted+`)) d), (SELECT count(*) FROM `+table+`)`).Scan(&differ, &rows); err != nil {
				t.Fatal(err)
			}
			if differ > 0 || rows == 0 {
				t.Fatalf("%s: %d rows of %s (of %d) differ from the live transactions", step, differ, table, rows)
			}
		}
	}
	check("created")

	keyed().Patch("/api/transactions/"+ids[0], map[string]any{"date": "2026-02-27", "categoryId": f.rent}).Expect(t, http.StatusOK)
	keyed().Patch("/api/transactions/"+ids[3], map[string]any{"categoryId": f.food, "concept": "burrito"}).Expect(t, http.StatusOK)
	keyed().Patch("/api/transactions/"+ids[4], map[string]any{"amount": 99}).Expect(t, http.StatusOK)
	check("corrected")

	keyed().Delete("/api/transactions/"+ids[5]).Expect(t, http.StatusOK)
	keyed().Delete("/api/transactions/"+ids[0]).Expect(t, http.StatusOK) // the last of its group
	check("deleted")

	f.c.Post("/api/transactions/bulk", map[string]any{"ids": ids[6:9], "operation": "delete"}).Expect(t, http.StatusOK)
	f.c.Post("/api/transactions/bulk", map[string]any{"ids": ids[9:16], "operation": "recategorize", "categoryId": f.food}).Expect(t, http.StatusOK)
	check("bulk")

	counts := func() []string {
		rows, err := env.Pool.Query(ctx, `SELECT 'day ' || to_jsonb(c)::text FROM transaction_counts c
			UNION ALL SELECT 'month ' || to_jsonb(c)::text FROM transaction_month_counts c ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := counts()
	if _, err := projections.Rebuild(ctx, env.Pool); err != nil {
		t.Fatal(err)
	}
	if after := counts(); !reflect.DeepEqual(after, before) {
		t.Fatalf("replay made other counts:\n%v\nlive:\n%v", after, before)
	}
	check("replayed")
}

// listedTransaction is a live transaction as the listing filters it.
type listedTransaction struct {
	id, typ, date, category, wallet, toWallet, goal, text string
}

// liveTransactions reads the live transactions of a user's personal workspace in the
// listing's order, from the table rather than through the listing.
func liveTransactions(t *testing.T, env *apitest.Env, subject string) []listedTransaction {
	t.Helper()
	rows, err := env.Pool.Query(context.Background(), `SELECT id::text, type, date::text,
			coalesce(category_id::text, ''), wallet_id::text,
			coalesce(to_wallet_id::text, ''), coalesce(goal_id::text, ''), lower(coalesce(concept, '') || ' | ' || coalesce(description, ''))
		FROM transactions WHERE deleted_at IS NULL AND workspace_id = (SELECT personal_workspace_id FROM users WHERE subject = $1)
		ORDER BY date DESC, created_version DESC, id DESC`, subject)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (listedTransaction, error) {
		var tr listedTransaction
		return tr, row.Scan(&tr.id, &tr.typ, &tr.date, &tr.category, &tr.wallet, &tr.toWallet, &tr.goal, &tr.text)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// matches tells whether the listing's query parameters select the transaction.
func (tr listedTransaction) matches(q url.Values) bool {
	has := func(name, v string) bool { return !q.Has(name) || q.Get(name) == v }
	return has("type", tr.typ) && has("categoryId", tr.category) && has("goalId", tr.goal) &&
		(!q.Has("walletId") || q.Get("walletId") == tr.wallet || q.Get("walletId") == tr.toWallet) &&
		(!q.Has("from") || tr.date >= q.Get("from")) && (!q.Has("to") || tr.date <= q.Get("to")) &&
		strings.Contains(tr.text, strings.ToLower(q.Get("search")))
}
