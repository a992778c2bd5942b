// Package database owns the connection pool settings and the embedded, numbered SQL
// migrations shared by the event store and the read models.
package database

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockID is the advisory lock key that serialises migrations across instances
// starting at once ("finledgr" in ASCII).
const migrationLockID int64 = 0x66696e6c65646772

// defaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout.
const defaultConnectTimeout = 5 * time.Second

// Open connects a pool to url and checks the connection.
func Open(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: parse url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// Without a bound, connecting to a server whose host stopped answering waits for
		// the operating system's TCP timeout (minutes), and every request waits with it;
		// bounded, the request fails fast and is answered 503.
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	// Dates written as text by the server are YYYY-MM-DD whatever the server's own
	// setting (a report's CSV takes them as they come).
	cfg.ConnConfig.RuntimeParams["DateStyle"] = "ISO, YMD"
	cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
		pgxdecimal.Register(conn.TypeMap())
		registerDecimalPointer(conn.TypeMap())
		registerUUID(conn.TypeMap())
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("database: ping: %w", err)
	}
	return pool, nil
}

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("database: list migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		if !ok {
			return nil, fmt.Errorf("database: migration %q lacks a number prefix", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("database: migration %q: %w", name, err)
		}
		body, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, fmt.Errorf("database: read migration %q: %w", name, err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("database: two migrations numbered %d", out[i].Version)
		}
	}
	return out, nil
}

// Migrate applies the pending migrations, each in its own transaction, while holding a
// session advisory lock so that several instances starting together apply them once.
// It returns the versions it applied.
func Migrate(ctx context.Context, pool *pgxpool.Pool) ([]int, error) {
	return MigrateTelling(ctx, pool, nil)
}

// MigrateTelling migrates as Migrate does and tells applying, if not nil, of each
// migration before it applies it (some take time in proportion to the data).
func MigrateTelling(ctx context.Context, pool *pgxpool.Pool, applying func(Migration)) ([]int, error) {
	migrations, err := Migrations()
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("database: acquire: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLockID); err != nil {
		return nil, fmt.Errorf("database: migration lock: %w", err)
	}
	defer func() {
		// A failed unlock leaves the lock to be freed when the connection closes, so drop
		// the connection rather than return it to the pool holding the lock.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLockID); err != nil {
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY,
		name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("database: create schema_migrations: %w", err)
	}
	applied := map[int]bool{}
	rows, err := conn.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("database: read schema_migrations: %w", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fmt.Errorf("database: read schema_migrations: %w", err)
	}
	for _, v := range versions {
		applied[v] = true
	}
	var done []int
	for _, m := range migrations {
		if applied[m.Version] {
			continue
		}
		if applying != nil {
			applying(m)
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("database: apply %s: %w", m.Name, err)
		}
		done = append(done, m.Version)
	}
	return done, nil
}
