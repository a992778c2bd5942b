package pgfailover_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/testkit/pgfailover"
)

// TestKillPromoteRejoin kills the primary after a commit, finds the commit on the
// promoted standby through the formation's URL, and has the old primary follow again.
func TestKillPromoteRejoin(t *testing.T) {
	f := pgfailover.Start(t)
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, f.URL(pgfailover.Database))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE t (n int); INSERT INTO t VALUES (1)`)
	old := f.KillPrimary()
	promoted := f.WaitPromoted(old)
	if promoted == old || f.Primary() != promoted {
		t.Fatalf("primary %d after killing %d", f.Primary(), old)
	}
	exec(`DO $$ BEGIN IF (SELECT count(*) FROM t) <> 1 THEN RAISE 'lost the commit'; END IF; END $$`)
	f.Rejoin(old)
	exec(`INSERT INTO t VALUES (2)`)
}
