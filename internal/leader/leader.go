// Package leader elects one instance among many to run a background worker, through a
// PostgreSQL session advisory lock: the lock lives exactly as long as the connection
// that took it, so a crashed or cut-off leader frees it and another instance takes over.
package leader

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// checkEvery is how often a leader checks that its lock's connection is alive.
const checkEvery = 5 * time.Second

// Run calls work whenever this instance holds the lock lockID, trying for it every
// retry until ctx ends. work gets a context that ends when ctx does or when the lock's
// connection is lost; a work that returns gives the lock up, and Run tries again after
// retry. name labels the log lines.
func Run(ctx context.Context, pool *pgxpool.Pool, name string, lockID int64, retry time.Duration, work func(context.Context) error) error {
	for {
		if err := lead(ctx, pool, lockID, work); err != nil && ctx.Err() == nil {
			slog.Error(name, "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retry):
		}
	}
}

// lead runs work once if the lock is free.
func lead(ctx context.Context, pool *pgxpool.Pool, lockID int64, work func(context.Context) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("leader: acquire: %w", err)
	}
	defer conn.Release()
	var held bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, lockID).Scan(&held); err != nil || !held {
		return err
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockID); err != nil {
			// A connection that cannot unlock is closed, which unlocks.
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	workCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan error, 1)
	go func() { done <- work(workCtx) }()
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			if err := conn.Ping(ctx); err != nil && ctx.Err() == nil {
				err = fmt.Errorf("leader: lock connection lost: %w", err)
				cancel(err)
				<-done
				return err
			}
		}
	}
}
