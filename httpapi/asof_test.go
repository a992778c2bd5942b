package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/projections"
)

// replayCut starts a server on a database of its own that holds the history of
// workspace ws up to version (and every other stream whole), replayed into its read
// models, with its clock at the moment at: the read models as they stood then, made the
// long way.
func replayCut(t *testing.T, env *apitest.Env, ws string, version int64, at time.Time) *apitest.Env {
	t.Helper()
	ctx := context.Background()
	pool := testdb.Pool(t)
	copyHistory(t, env.Pool, pool, "workspace-"+ws, version)
	if _, err := projections.Rebuild(ctx, pool); err != nil {
		t.Fatal(err)
	}
	cut := apitest.StartOn(t, pool, apitest.Options())
	cut.Clock.Set(at)
	return cut
}

// copyHistory copies the events of every stream in the log's order, those of stream
// cut only up to version upTo, and sets the streams' heads.
func copyHistory(t *testing.T, from, to *pgxpool.Pool, cut string, upTo int64) {
	t.Helper()
	ctx := context.Background()
	rows, err := from.Query(ctx, `SELECT stream_id, version, event_id, type, data::text, metadata::text, recorded_at FROM events
		WHERE stream_id <> $1 OR version <= $2 ORDER BY tx_id, position`, cut, upTo)
	if err != nil {
		t.Fatal(err)
	}
	type event struct {
		stream, kind, data, meta string
		version                  int64
		id                       [16]byte
		at                       time.Time
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (e event, err error) {
		return e, row.Scan(&e.stream, &e.version, &e.id, &e.kind, &e.data, &e.meta, &e.at)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, to, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, e := range events {
			b.Queue(`INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, tx_id)
				VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, pg_current_xact_id())`, e.stream, e.version, e.id, e.kind, e.data, e.meta, e.at)
		}
		b.Queue(`INSERT INTO streams (stream_id, version, tx_id) SELECT stream_id, max(version), pg_current_xact_id() FROM events GROUP BY stream_id`)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// totalsHistoryDerivesAsWritten checks that the totals' histories migrations 0020 (the
// days') and 0022 (the months') derive from the transactions' history, for databases
// written before them, are the ones the projections wrote, and so are the monthly totals
// 0022 sums from the daily ones: it derives each again in their place and compares.
func totalsHistoryDerivesAsWritten(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	migrations, err := database.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		migration int
		table     string
		key       string // the columns that order the rows, before the version if any
	}{
		{20, "daily_total_versions", "workspace_id, category_id, type, currency, day, version"},
		{22, "monthly_total_versions", "workspace_id, category_id, type, currency, month, version"},
		{22, "monthly_totals", "workspace_id, category_id, type, currency, month"},
	} {
		var derive string
		for _, m := range migrations {
			for _, statement := range strings.Split(m.SQL, ";\n") {
				if i := strings.Index(statement, "INSERT INTO "+h.table+" "); m.Version == h.migration && i >= 0 {
					derive = statement[i:]
				}
			}
		}
		if derive == "" {
			t.Fatalf("migration %04d derives no %s", h.migration, h.table)
		}
		read := `SELECT ` + h.key + `, trim_scale(amount)::text, count FROM ` + h.table + ` ORDER BY ` + h.key
		written := rowsOf(t, pool, read)
		if len(written) < 5 {
			t.Fatalf("%s holds %d totals' states: too few to tell", h.table, len(written))
		}
		if _, err := pool.Exec(context.Background(), `DELETE FROM `+h.table); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(context.Background(), derive); err != nil {
			t.Fatal(err)
		}
		if derived := rowsOf(t, pool, read); !slices.Equal(derived, written) {
			t.Fatalf("%s derived:\n%s\nwritten:\n%s", h.table, strings.Join(derived, "\n"), strings.Join(written, "\n"))
		}
	}
}

// rowsOf reads the rows of a query, each printed.
func rowsOf(t *testing.T, pool *pgxpool.Pool, query string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		v, err := row.Values()
		return fmt.Sprint(v), err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withAsOf adds asOf=at to a path.
func withAsOf(path string, at time.Time) string {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + "asOf=" + url.QueryEscape(at.Format(time.RFC3339Nano))
}

// sameJSON reports whether two answers hold the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// The reads that take asOf, each as a path.
var asOfReads = []string{"/api/wallets", "/api/budgets", "/api/goals", "/api/debts",
	"/api/reports?from=2026-01-01&to=2026-12-31", "/api/reports?from=2026-03-01&to=2026-03-31&format=csv",
	"/api/reports/monthly-summary", "/api/reports/monthly-summary?month=2026-02",
	"/api/reports/spending-summary?period=this_month", "/api/reports/spending-summary?from=2026-01-01&to=2026-12-31&type=income",
	"/api/reports/spending-summary?from=2026-02-05&to=2026-04-30", "/api/reports/spending-summary?from=2026-01-15&to=2026-03-01"}

// Every read that takes asOf answers, for moments across a history of corrections,
// deletions, bulk operations, renamed and archived records, goal and debt movements,
// exactly what the same read answers on the log cut at that moment and replayed.
func TestAsOfAnswersAsTheLogCutThenAndReplayed(t *testing.T) {
	ctx := context.Background()
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	ws := f.c.Get("/api/me").Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	done, keyed := steps(t, env, f, "asof-")
	done(f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 300, "startDate": "2026-01-01", "endDate": "2026-12-31"}), http.StatusOK)
	var spent []string
	for i, amount := range []float64{12.5, 80, 0.1, 45.25} {
		tx := done(f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": amount, "categoryId": f.food,
			"date": "2026-03-0" + string(rune('1'+i))}), http.StatusCreated).Object("transaction")
		spent = append(spent, tx["id"].(string))
	}
	done(f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 1500, "walletId": f.bank, "date": "2026-02-27"}), http.StatusCreated)
	for i, amount := range []float64{7.5, 2.25} { // a month of several days' totals
		done(f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": amount, "categoryId": f.food,
			"date": fmt.Sprintf("2026-03-2%d", i)}), http.StatusCreated)
	}
	done(keyed().Patch("/api/transactions/"+spent[0], map[string]any{"amount": 20.75, "date": "2026-02-05", "categoryId": f.rent}), http.StatusOK)
	done(keyed().Delete("/api/transactions/"+spent[1]), http.StatusOK)
	done(keyed().Post("/api/transactions/bulk", map[string]any{"ids": []string{spent[2], spent[3]}, "operation": "recategorize", "categoryId": f.rent}),
		http.StatusOK)
	done(f.c.Patch("/api/categories/"+f.rent, map[string]any{"name": "Housing"}), http.StatusOK)
	done(f.c.Patch("/api/wallets/"+f.cash, map[string]any{"balance": 500, "name": "Pocket"}), http.StatusOK)
	done(f.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": 50, "walletId": f.bank, "toWalletId": f.cash}), http.StatusCreated)
	done(f.c.Patch("/api/budgets/"+list(t, f, "budgets")[0], map[string]any{"amount": 120}), http.StatusOK)
	goalAndDebtHistory(t, f, env)
	// A reconciliation marks transactions and a wallet, and books an adjustment.
	done(f.c.Post("/api/wallets/"+f.cash+"/reconcile", map[string]any{"balance": "42.42", "date": "2026-03-05", "adjust": true}), http.StatusOK)
	done(f.c.Delete("/api/wallets/"+f.dollar), http.StatusOK)
	done(keyed().Post("/api/transactions/bulk", map[string]any{"ids": []string{spent[2]}, "operation": "delete", "allowReconciled": true}),
		http.StatusOK)
	totalsHistoryDerivesAsWritten(t, env.Pool)
	// A split expense, then its parts corrected: each part counts where it stood then.
	receipt := done(f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number("55.00"), "date": "2026-03-12",
		"splits": []map[string]any{{"amount": json.Number("30.10"), "categoryId": f.food}, {"amount": json.Number("19.90"), "categoryId": f.rent},
			{"amount": 5}}}), http.StatusCreated).Object("transaction")["id"].(string)
	done(keyed().Patch("/api/transactions/"+receipt, map[string]any{"splits": []map[string]any{{"amount": 50, "categoryId": f.food},
		{"amount": 5, "categoryId": f.rent}}}), http.StatusOK)

	// The moments: events' moments across the history, one between two, and now.
	rows, err := env.Pool.Query(ctx, `SELECT recorded_at, version FROM events WHERE stream_id = $1 ORDER BY version`, "workspace-"+ws)
	if err != nil {
		t.Fatal(err)
	}
	type moment struct {
		at      time.Time
		version int64
	}
	all, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (m moment, err error) { return m, row.Scan(&m.at, &m.version) })
	if err != nil {
		t.Fatal(err)
	}
	// Of the events recorded together, the last stands at their moment.
	var moments []moment
	for i, m := range all {
		if i+1 < len(all) && all[i+1].at.Equal(m.at) {
			continue
		}
		moments = append(moments, m)
	}
	var picked []moment
	for _, i := range []int{1, 3, 5, 7, 8, 9, 10, 11, 12, 13, 17, 22, 27, 30} {
		if i < len(moments) {
			picked = append(picked, moments[i])
		}
	}
	last := moments[len(moments)-1]
	picked = append(picked, moment{moments[6].at.Add(30 * time.Second), moments[6].version}, moments[len(moments)-2], last)
	slices.SortFunc(picked, func(a, b moment) int { return a.at.Compare(b.at) })

	differed := 0
	cuts := make([]*apitest.Env, len(picked))
	for i, m := range picked {
		cut := replayCut(t, env, ws, m.version, m.at)
		cuts[i] = cut
		for _, path := range asOfReads {
			got := f.c.Get(withAsOf(path, m.at)).Expect(t, http.StatusOK)
			want := f.c.On(cut).Get(path).Expect(t, http.StatusOK)
			if strings.Contains(path, "format=csv") {
				if string(got.Raw) != string(want.Raw) {
					t.Errorf("%s as of %s (version %d):\n got %s\nwant %s", path, m.at, m.version, got.Raw, want.Raw)
				}
				continue
			}
			if !sameJSON(t, got.Raw, want.Raw) {
				t.Errorf("%s as of %s (version %d):\n got %s\nwant %s", path, m.at, m.version, got.Raw, want.Raw)
			}
			if now := f.c.Get(path).Expect(t, http.StatusOK); !sameJSON(t, got.Raw, now.Raw) {
				differed++
			}
		}
	}
	if differed < len(picked)*3 {
		t.Fatalf("only %d answers as of the past differ from now's: the moments show too little history", differed)
	}

	// The differences between two moments are the records whose state differs between
	// the two replayed cuts, each with its states there.
	refs := everyRecord(t, f.c)
	pairs := [][2]int{{0, len(picked) - 1}}
	for i := 1; i < len(picked); i++ {
		pairs = append(pairs, [2]int{i - 1, i})
	}
	for _, pair := range pairs {
		a, b := picked[pair[0]], picked[pair[1]]
		want := map[string][2]any{}
		for _, ref := range refs {
			before, after := stateAt(t, f.c.On(cuts[pair[0]]), ref), stateAt(t, f.c.On(cuts[pair[1]]), ref)
			if !reflect.DeepEqual(before, after) {
				want[ref[0]+":"+ref[1]] = [2]any{before, after}
			}
		}
		got := map[string][2]any{}
		cursor := ""
		for {
			path := "/api/changes/diff?limit=4&from=" + url.QueryEscape(a.at.Format(time.RFC3339Nano)) + "&to=" + url.QueryEscape(b.at.Format(time.RFC3339Nano))
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			page := f.c.Get(path).Expect(t, http.StatusOK)
			if v := num(page.Object("from")["version"]); v != strconv.FormatInt(a.version, 10) {
				t.Fatalf("diff from version %s, want %d", v, a.version)
			}
			for _, d := range page.List("differences") {
				got[d["kind"].(string)+":"+d["id"].(string)] = [2]any{withoutSpending(d["kind"], d["before"]), withoutSpending(d["kind"], d["after"])}
			}
			if page.JSON["more"] != true {
				break
			}
			cursor = page.JSON["cursor"].(string)
		}
		if len(want) == 0 && pair[0] != pair[1] && a.version != b.version {
			t.Fatalf("versions %d and %d show no difference: the check would pass empty", a.version, b.version)
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("differences from version %d to %d:\n got %s\nwant %s", a.version, b.version, g, w)
		}
	}
}

// everyRecord names every record the change feed has ever carried, as (kind, id).
func everyRecord(t *testing.T, c *apitest.Client) [][2]string {
	t.Helper()
	seen := map[[2]string]bool{}
	var out [][2]string
	cursor := ""
	for {
		path := "/api/changes?limit=1000"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		page := c.Get(path).Expect(t, http.StatusOK)
		for _, ch := range page.List("changes") {
			ref := [2]string{ch["kind"].(string), ch["id"].(string)}
			if !seen[ref] {
				seen[ref] = true
				out = append(out, ref)
			}
		}
		cursor = page.JSON["cursor"].(string)
		if page.JSON["more"] != true {
			return out
		}
	}
}

// plurals are the paths of the kinds of record the change feed carries.
var plurals = map[string]string{"wallet": "wallets", "category": "categories", "transaction": "transactions", "budget": "budgets",
	"goal": "goals", "debt": "debts"}

// stateAt reads a record from a server by its own operation: nil when it is not there
// or deleted, and a budget without its spending, as the change feed shows it.
func stateAt(t *testing.T, c *apitest.Client, ref [2]string) any {
	t.Helper()
	r := c.Get("/api/" + plurals[ref[0]] + "/" + ref[1])
	if r.Status == http.StatusNotFound {
		return nil
	}
	return withoutSpending(ref[0], r.Expect(t, http.StatusOK).Object(ref[0]))
}

// withoutSpending drops a budget's spending, which the change feed leaves to GET
// /api/budgets.
func withoutSpending(kind, record any) any {
	m, ok := record.(map[string]any)
	if !ok || kind != "budget" {
		return record
	}
	for _, k := range []string{"active", "periodStart", "periodEnd", "spent", "remaining", "percentage", "alertReached"} {
		delete(m, k)
	}
	return m
}

// list returns the ids of a listing.
func list(t *testing.T, f ledgerFixture, plural string) []string {
	t.Helper()
	var ids []string
	for _, r := range f.c.Get("/api/"+plural).Expect(t, http.StatusOK).List(plural) {
		ids = append(ids, r["id"].(string))
	}
	return ids
}

// asOf is checked: a moment to come, a date-time that is none, and a moment before the
// workspace's history starts on a database written before histories were kept.
func TestAsOfRefusesWhatItCannotAnswer(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	ws := f.c.Get("/api/me").Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	if code := f.c.Get(withAsOf("/api/wallets", env.Clock.Now().Add(time.Minute))).Expect(t, http.StatusBadRequest).ErrorCode(); code != "VALIDATION_ERROR" {
		t.Fatalf("future asOf: %s", code)
	}
	if code := f.c.Get("/api/goals?asOf=yesterday").Expect(t, http.StatusBadRequest).ErrorCode(); code != "VALIDATION_ERROR" {
		t.Fatalf("asOf=yesterday: %s", code)
	}
	before := env.Clock.Now().Add(-time.Hour)
	if got := f.c.Get(withAsOf("/api/wallets", before)).Expect(t, http.StatusOK).List("wallets"); len(got) != 0 {
		t.Fatalf("wallets before the workspace was made: %v", got)
	}
	env.Clock.Set(env.Clock.Now().Add(time.Minute))
	f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5}).Expect(t, http.StatusCreated)
	if _, err := env.Pool.Exec(context.Background(), `INSERT INTO history_starts (workspace_id, version)
		SELECT $1::uuid, version FROM streams WHERE stream_id = 'workspace-' || $1`, ws); err != nil {
		t.Fatal(err)
	}
	if code := f.c.Get(withAsOf("/api/debts", env.Clock.Now().Add(-30*time.Second))).Expect(t, http.StatusUnprocessableEntity).ErrorCode(); code != "HISTORY_NOT_KEPT" {
		t.Fatalf("asOf before the history starts: %s", code)
	}
	f.c.Get(withAsOf("/api/debts", env.Clock.Now())).Expect(t, http.StatusOK)
}
