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
		name, sql, index string
		args             []any
	}{
		{"transaction by id", transactionByIDSQL, "transactions_pkey", []any{uuid.New(), uuid.New()}},
		{"transaction listing", `SELECT ` + transactionColumns + ` FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL
			ORDER BY date DESC, created_version DESC LIMIT $2 OFFSET $3`, "transactions_listing", []any{uuid.New(), 25, 0}},
		{"wallet by id", `SELECT ` + walletColumns + ` FROM wallets WHERE workspace_id = $1 AND id = $2`, "wallets_pkey", []any{uuid.New(), uuid.New()}},
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
			if !strings.Contains(plan, "Index Scan using "+c.index) || strings.Contains(plan, "Filter: (id =") {
				t.Fatalf("plan does not look the row up by %s:\n%s", c.index, plan)
			}
		})
	}
}
