package queries

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

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
	cases := []struct {
		name, sql, scan string
		args            []any
	}{
		{"transaction by id", transactionByIDSQL, "Index Scan using transactions_pkey", []any{uuid.New(), uuid.New()}},
		{"transaction listing", `SELECT id FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL AND date <= $2
			ORDER BY date DESC, created_version DESC LIMIT $3 OFFSET $4`, "Index Only Scan using transactions_listing", []any{uuid.New(), "2026-01-01", 25, 0}},
		{"transaction listing of a category", `SELECT id FROM transactions WHERE workspace_id = $1 AND category_id = $2 AND deleted_at IS NULL
			AND date >= $3 AND date <= $4 ORDER BY date DESC, created_version DESC LIMIT $5 OFFSET $6`,
			"Index Only Scan using transactions_listing_by_category", []any{uuid.New(), uuid.New(), "2025-01-01", "2026-01-01", 25, 0}},
		{"transaction page", `SELECT ` + transactionColumns + ` FROM transactions WHERE workspace_id = $1 AND id IN (
			SELECT id FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL AND date <= $2
			ORDER BY date DESC, created_version DESC LIMIT $3 OFFSET $4)`, "Index Scan using transactions_pkey", []any{uuid.New(), "2026-01-01", 25, 0}},
		{"transaction counts", `SELECT day, sum(count) FROM transaction_counts WHERE workspace_id = $1 AND day >= $2 GROUP BY day`,
			"Index Scan using transaction_counts_pkey", []any{uuid.New(), "2026-01-01"}},
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
				literals[i] = fmt.Sprintf("'%v'", a)
			}
			rows, err := conn.Query(ctx, `EXPLAIN EXECUTE `+name+`(`+strings.Join(literals, ",")+`)`)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			plan := strings.Join(lines, "\n")
			if !strings.Contains(plan, c.scan) || strings.Contains(plan, "Filter: (id =") {
				t.Fatalf("plan has no %s:\n%s", c.scan, plan)
			}
		})
	}
}
