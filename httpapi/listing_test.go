package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

// The listing reads its totals, and where a deep page starts, from the transaction
// counts: through creates, corrections, deletions, bulk operations and a replay, every
// total stays the exact number of matches and every page the same slice of them.
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
	var ids []string
	for i := range 24 {
		body := map[string]any{"type": "expense", "amount": i + 1, "date": fmt.Sprintf("2026-03-%02d", 1+i%5), "concept": fmt.Sprintf("taco %d", i)}
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
		"to=2026-03-01", "from=2027-01-01", "walletId=" + f.bank, "goalId=" + goal, "search=TACO%201"}
	check := func(step string) {
		t.Helper()
		for _, filter := range filters {
			all := f.c.Get("/api/transactions?pageSize=100&"+filter).Expect(t, http.StatusOK)
			var want []string
			for _, tr := range all.List("transactions") {
				want = append(want, tr["id"].(string))
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
		var live int
		if err := env.Pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE deleted_at IS NULL AND workspace_id =
			(SELECT personal_workspace_id FROM users WHERE subject = 'alice')`).Scan(&live); err != nil {
			t.Fatal(err)
		}
		if total := num(f.c.Get("/api/transactions").Object("pagination")["total"]); total != strconv.Itoa(live) {
			t.Fatalf("%s: total %s, %d live transactions", step, total, live)
		}
		// The counts are the live transactions grouped, as the migration that made them
		// counted them: no group of none is left behind.
		var differ int
		if err := env.Pool.QueryRow(ctx, `SELECT count(*) FROM (
				(SELECT workspace_id, day, type, category_id, count FROM transaction_counts
				EXCEPT ALL SELECT workspace_id, date, type, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), count(*)
					FROM transactions WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4)
				UNION ALL
				(SELECT workspace_id, date, type, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), count(*)
					FROM transactions WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4
				EXCEPT ALL SELECT workspace_id, day, type, category_id, count FROM transaction_counts)) d`).Scan(&differ); err != nil {
			t.Fatal(err)
		}
		if differ > 0 {
			t.Fatalf("%s: %d rows of the transaction counts differ from the live transactions", step, differ)
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
		rows, err := env.Pool.Query(ctx, `SELECT to_jsonb(c)::text FROM transaction_counts c ORDER BY 1`)
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
