package eventstore

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/testkit/testdb"
)

// The global read takes its order from the index, whatever the log's size: a plan that
// sorts reads the whole log on every call of the relay and of replay.
func TestReadAllFollowsTheIndex(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	for _, horizon := range []string{"", `AND tx_id < pg_snapshot_xmin(pg_current_snapshot())`} {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			// Sorting and scanning whole are made as dear as can be: a plan that still
			// sorts has no other way to give the order.
			if _, err := tx.Exec(ctx, `SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
			plan := testdb.Explain(t, tx, `EXPLAIN `+readAllSQL(horizon), "0", int64(0), 100, 1<<20)
			if strings.Contains(plan, "Sort") || !strings.Contains(plan, "events_global_order") {
				t.Errorf("the global read (horizon %q) does not follow the index:\n%s", horizon, plan)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
