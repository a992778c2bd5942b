package queries

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// Hot-path lookups must use their index under the generic plans that prepared
// statements settle on, whatever the size of the workspace.
func TestHotQueriesUseTheirIndexesUnderGenericPlans(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	from, to := domain.DateOf(2025, time.December, 15), domain.DateOf(2026, time.March, 3)
	start, startArgs := TransactionFilter{}.listingStart(uuid.New(), 500000)
	startCut, startCutArgs := TransactionFilter{Type: "expense", From: &from, To: &to}.listingStart(uuid.New(), 500000)
	cases := []struct {
		name, sql, scan string
		args            []any
	}{
		{"transaction by id", transactionByIDSQL, "Index Scan using transactions_pkey", []any{uuid.New(), uuid.New()}},
		{"transaction listing", `SELECT id FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL AND date <= $2
			ORDER BY date DESC, created_version DESC, id DESC LIMIT $3 OFFSET $4`, "Index Only Scan using transactions_listing", []any{uuid.New(), "2026-01-01", 25, 0}},
		{"transaction listing of a category", `SELECT id FROM transactions WHERE workspace_id = $1 AND category_id = $2 AND deleted_at IS NULL
			AND date >= $3 AND date <= $4 ORDER BY date DESC, created_version DESC, id DESC LIMIT $5 OFFSET $6`,
			"Index Only Scan using transactions_listing_by_category", []any{uuid.New(), uuid.New(), "2025-01-01", "2026-01-01", 25, 0}},
		{"transaction page", `SELECT ` + transactionColumns + ` FROM transactions WHERE workspace_id = $1 AND id IN (
			SELECT id FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL AND date <= $2
			ORDER BY date DESC, created_version DESC, id DESC LIMIT $3 OFFSET $4)`, "Index Scan using transactions_pkey", []any{uuid.New(), "2026-01-01", 25, 0}},
		{"transaction counts", `SELECT day, sum(count) FROM transaction_counts WHERE workspace_id = $1 AND day >= $2 GROUP BY day`,
			"Index Scan using transaction_counts_pkey", []any{uuid.New(), "2026-01-01"}},
		{"listing start", start, "transaction_month_counts_pkey", startArgs},
		{"listing start within dates", startCut, "transaction_month_counts_pkey", startCutArgs},
		{"listing start then its days", start, "Index Scan using transaction_counts_pkey", startArgs},
		{"wallet by id", `SELECT ` + walletColumns + ` FROM wallets WHERE workspace_id = $1 AND id = $2`, "Index Scan using wallets_pkey", []any{uuid.New(), uuid.New()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := strings.ReplaceAll(c.name, " ", "_")
			if _, err := conn.Exec(ctx, `PREPARE `+name+` AS `+c.sql); err != nil {
				t.Fatal(err)
			}
			literals := make([]string, len(c.args))
			for i, a := range c.args {
				if d, ok := a.(time.Time); ok {
					a = d.Format(time.DateOnly)
				}
				literals[i] = fmt.Sprintf("'%v'", a)
			}
			plan := testdb.Explain(t, conn, `EXPLAIN EXECUTE `+name+`(`+strings.Join(literals, ",")+`)`)
			if !strings.Contains(plan, c.scan) || strings.Contains(plan, "Filter: (id =") || strings.Contains(plan, "Seq Scan") {
				t.Fatalf("plan has no %s:\n%s", c.scan, plan)
			}
		})
	}
}

// A search in a workspace of many transactions, in a database of many small workspaces,
// is planned for its own values: a plan made once for any workspace assumes each holds
// an even share of the rows and walks the big one's whole index, where the trigram
// indexes find the few matches at once.
func TestSearchesArePlannedForTheirOwnValues(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	big := uuid.New()
	if _, err := pool.Exec(ctx, `INSERT INTO transactions (workspace_id, id, type, amount, currency, date, concept,
			created_at, updated_at, created_version)
		SELECT CASE WHEN g <= 30000 THEN $1 ELSE gen_random_uuid() END, gen_random_uuid(), 'expense', 1, 'MXN',
			date '2025-01-01' + g % 365, CASE WHEN g % 10000 = 0 THEN 'LÚNCH at noon' END, now(), now(), g
		FROM generate_series(1, 33000) g`, big); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE transactions`); err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for range 8 { // past the five runs after which PostgreSQL may settle on a generic plan
		page, err := Transactions(ctx, conn, big, TransactionFilter{Search: "lunch", Limit: 25})
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 3 || len(page.Transactions) != 3 {
			t.Fatalf("search found %d (%d on the page), want 3", page.Total, len(page.Transactions))
		}
	}
	var cached []string
	rows, err := conn.Query(ctx, `SELECT statement FROM pg_prepared_statements
		WHERE statement LIKE '%finledger_fold%' AND statement NOT LIKE '%pg_prepared%'`)
	if err == nil {
		cached, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(cached) != 0 {
		t.Fatalf("search statements kept prepared, so planned once for any values: %q", cached)
	}
	plan := testdb.Explain(t, conn, `EXPLAIN SELECT count(*) FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL
		AND (finledger_fold(concept) LIKE '%lunch%' OR finledger_fold(description) LIKE '%lunch%')`, ownPlan, big)
	if !strings.Contains(plan, "transactions_concept_folded") || strings.Contains(plan, "transactions_pkey") {
		t.Fatalf("a search planned for its values does not go by the trigram indexes alone:\n%s", plan)
	}
}
