package pgbackup_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/pgbackup"
)

// A restore never writes over data: into a folder that holds a data directory,
// pgBackRest refuses, and the error says why.
func TestRestoreRefusesAFolderThatHoldsData(t *testing.T) {
	ctx := context.Background()
	repo, err := pgbackup.NewRepository()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = repo.Remove() })
	cluster, err := repo.StartArchived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	if err := repo.Backup(ctx); err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(repo.Dir, "occupied")
	if err := os.MkdirAll(filepath.Join(into, "pgdata"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(into, "pgdata", "PG_VERSION"), []byte("15\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = repo.Restore(ctx, into, time.Now().Add(2*time.Second))
	if err == nil || !strings.Contains(err.Error(), "contains files") {
		t.Fatalf("restore into a folder that holds data: %v", err)
	}
	t.Log(err)
}
