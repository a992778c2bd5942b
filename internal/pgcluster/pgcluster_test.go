package pgcluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

var fast = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}

func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgcluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// query runs sql on url and returns the first column of its row, or "" for a
// statement without rows.
func query(t *testing.T, url, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out string
	if err := conn.QueryRow(ctx, sql).Scan(&out); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	return out
}

func TestStartRestartKeepsData(t *testing.T) {
	dir := tempDir(t)
	ctx := context.Background()
	c, err := Start(ctx, Options{Dir: dir, Settings: fast})
	if err != nil {
		t.Fatal(err)
	}
	query(t, c.URL("postgres"), `CREATE TABLE kept AS SELECT 'hello'::text AS v`)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	c, err = Start(ctx, Options{Dir: dir, Settings: fast})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if got := query(t, c.URL("postgres"), `SELECT v FROM kept`); got != "hello" {
		t.Fatalf("after restart: %q", got)
	}
	if _, err := Start(ctx, Options{Dir: dir, Settings: fast}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second server on a running cluster: %v", err)
	}
}

func TestStalePidFileAndTwoClusters(t *testing.T) {
	ctx := context.Background()
	a, b := tempDir(t), tempDir(t)
	ca, err := Start(ctx, Options{Dir: a, Settings: fast})
	if err != nil {
		t.Fatal(err)
	}
	if err := ca.Stop(); err != nil {
		t.Fatal(err)
	}
	// A crashed server leaves its pid file behind; the pid is long gone.
	if err := os.WriteFile(filepath.Join(a, "pgdata", "postmaster.pid"), []byte("999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca, err = Start(ctx, Options{Dir: a, Settings: fast})
	if err != nil {
		t.Fatalf("start over a stale pid file: %v", err)
	}
	defer ca.Stop()
	cb, err := Start(ctx, Options{Dir: b, Settings: fast})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Stop()
	if ca.Port() == cb.Port() {
		t.Fatal("two clusters share a port")
	}
	if query(t, ca.URL("postgres"), `SELECT current_user::text`) != Superuser || query(t, cb.URL("postgres"), `SELECT 'b'`) != "b" {
		t.Fatal("clusters do not answer")
	}
}

func TestBinDir(t *testing.T) {
	dir, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	if !hasServer(dir) {
		t.Fatalf("BinDir %s lacks the server", dir)
	}
	t.Setenv("FINLEDGER_PG_BINDIR", t.TempDir())
	if _, err := BinDir(); err == nil {
		t.Fatal("an empty FINLEDGER_PG_BINDIR was accepted")
	}
}
