// Package testdb gives each test its own migrated PostgreSQL database on a real server:
// the one named by FINLEDGER_TEST_DATABASE_URL, or else a throwaway server for the test
// binary's lifetime, in a container when a Docker engine answers (package containers)
// and otherwise a cluster started from the installed PostgreSQL binaries.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/pgcluster"
	"github.com/finledger/finledger/internal/testkit/containers"
)

var (
	setupOnce sync.Once
	setupErr  error
	adminURL  string
	template  string
	cluster   *pgcluster.Cluster
	tempDir   string
)

// Main runs the package's tests and then removes the template database and any
// cluster it started. Use it from TestMain: os.Exit(testdb.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if template != "" && cluster == nil {
		if conn, err := pgx.Connect(ctx, adminURL); err == nil {
			_, _ = conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{template}.Sanitize()+` WITH (FORCE)`)
			_ = conn.Close(ctx)
		}
	}
	if cluster != nil {
		_ = cluster.Stop()
		_ = os.RemoveAll(tempDir)
	}
	containers.StopAll()
	return code
}

// startServer starts the test binary's own PostgreSQL server, in a container when the
// tests' servers run in containers, else from the installed binaries, and returns the
// URL of its postgres database.
func startServer(ctx context.Context) (string, error) {
	settings := map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
	inContainer, err := containers.Use()
	if err != nil {
		return "", fmt.Errorf("testdb: %w", err)
	}
	if inContainer {
		pg, err := containers.StartPostgres(ctx, settings)
		if err != nil {
			return "", fmt.Errorf("testdb: %w", err)
		}
		return pg.URL("postgres"), nil
	}
	dir, err := os.MkdirTemp("", "finledger-test-pg-")
	if err != nil {
		return "", fmt.Errorf("testdb: temp dir: %w", err)
	}
	tempDir = dir
	cluster, err = pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Settings: settings})
	if err != nil {
		return "", fmt.Errorf("testdb: start cluster: %w", err)
	}
	return cluster.URL("postgres"), nil
}

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adminURL = os.Getenv("FINLEDGER_TEST_DATABASE_URL")
	if adminURL == "" {
		var err error
		if adminURL, err = startServer(ctx); err != nil {
			return err
		}
	}
	template = "finledger_tpl_" + randomSuffix()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("testdb: connect %s: %w", redact(adminURL), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{template}.Sanitize()); err != nil {
		return fmt.Errorf("testdb: create template: %w", err)
	}
	pool, err := database.Open(ctx, withDatabase(adminURL, template), 2)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := database.Migrate(ctx, pool); err != nil {
		return err
	}
	return nil
}

// URL creates a fresh migrated database for t, dropped when t ends, and returns its URL.
func URL(t testing.TB) string {
	t.Helper()
	return create(t, true)
}

// EmptyURL creates a fresh database without any schema for t, dropped when t ends.
func EmptyURL(t testing.TB) string {
	t.Helper()
	return create(t, false)
}

func create(t testing.TB, migrated bool) string {
	t.Helper()
	setupOnce.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	ctx := context.Background()
	name := "finledger_t_" + randomSuffix()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatalf("testdb: connect: %v", err)
	}
	defer conn.Close(ctx)
	sql := `CREATE DATABASE ` + pgx.Identifier{name}.Sanitize()
	if migrated {
		sql += ` TEMPLATE ` + pgx.Identifier{template}.Sanitize()
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("testdb: create database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			t.Errorf("testdb: connect for cleanup: %v", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
			t.Errorf("testdb: drop database: %v", err)
		}
	})
	return withDatabase(adminURL, name)
}

// Pool creates a fresh migrated database for t and returns a pool on it, closed when
// t ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return OpenPool(t, URL(t), 40)
}

// OpenPool opens a pool of at most maxConns connections on url, a database of a
// server the test runs itself (one it stops, fails over or restores), closed when t
// ends.
func OpenPool(t testing.TB, url string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	pool, err := database.Open(context.Background(), url, maxConns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// MigratedPool is OpenPool on a database it first migrates.
func MigratedPool(t testing.TB, url string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	pool := OpenPool(t, url, maxConns)
	if _, err := database.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// connectTimeout is how long a test's connection may take to start, unless
// FINLEDGER_TEST_DATABASE_URL sets connect_timeout: on two cores busy with the whole
// suite a new backend has taken over the service's default of 5 s to start, which the
// service answers as a database out of reach (503), failing tests about something else.
const connectTimeout = "30"

// withDatabase is raw naming the database name, with connectTimeout.
func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(fmt.Sprintf("testdb: FINLEDGER_TEST_DATABASE_URL must be a postgres:// URL: %v", err))
	}
	u.Path = "/" + name
	if q := u.Query(); q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", connectTimeout)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable url)"
	}
	return u.Redacted()
}

func randomSuffix() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// Explain runs explain (an EXPLAIN statement) on db and returns the plan's lines joined;
// the test fails if it cannot.
func Explain(t testing.TB, db interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}, explain string, args ...any) string {
	t.Helper()
	rows, err := db.Query(context.Background(), explain, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
