package database_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// Instances starting together apply each migration once; a second run applies none.
func TestMigrateConcurrentlyAndTwice(t *testing.T) {
	ctx := context.Background()
	pool, err := database.Open(ctx, testdb.EmptyURL(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	all, err := database.Migrations()
	if err != nil || len(all) == 0 {
		t.Fatalf("migrations %v, %v", all, err)
	}
	var wg sync.WaitGroup
	applied := make([][]int, 4)
	errs := make([]error, 4)
	for i := range applied {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = database.Migrate(ctx, pool)
		}()
	}
	wg.Wait()
	total := 0
	for i := range applied {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		total += len(applied[i])
	}
	if total != len(all) {
		t.Fatalf("%d migrations applied across instances, want %d", total, len(all))
	}
	again, err := database.Migrate(ctx, pool)
	if err != nil || len(again) != 0 {
		t.Fatalf("second run applied %v, %v", again, err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(all) {
		t.Fatalf("schema_migrations has %d rows, %v", n, err)
	}
	if _, err := pool.Exec(ctx, `SELECT 1 FROM events LIMIT 1`); err != nil {
		t.Fatalf("events table missing: %v", err)
	}
}
