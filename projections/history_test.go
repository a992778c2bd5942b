package projections

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/testkit/testdb"
)

// A history table is its version column and then its table's columns, in their order:
// the projections fill it with SELECT version, t.*, so a column added to the table must
// be added to its history too.
func TestHistoryTablesFollowTheirTables(t *testing.T) {
	pool := testdb.Pool(t)
	columns := func(table string) []string {
		t.Helper()
		rows, err := pool.Query(context.Background(), `SELECT column_name::text FROM information_schema.columns
			WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`, table)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	histories := map[string][2]string{"transactions": {"transaction_versions", "replaced_version"},
		"daily_totals": {"daily_total_versions", "version"}, "monthly_totals": {"monthly_total_versions", "version"}}
	for table, history := range historyOf {
		histories[table] = [2]string{history, "version"}
	}
	if len(histories) != len(historyTables) {
		t.Fatalf("%d histories named, %d history tables", len(histories), len(historyTables))
	}
	for table, h := range histories {
		want := append([]string{h[1]}, columns(table)...)
		if got := columns(h[0]); !slices.Equal(got, want) {
			t.Errorf("%s has columns %v, want %v", h[0], got, want)
		}
	}
}
