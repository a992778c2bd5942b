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

// checkEvery is how often a leader checks that its lock's connection is alive; the
// check, and the unlock when leading ends, get as long to answer. A connection to a
// server that vanished without closing it (a cut cable, a frozen host) never answers,
// and waiting on it would keep the worker running without its lock for good.
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
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkEvery)
		defer cancel()
		if _, err := conn.Exec(unlockCtx, `SELECT pg_advisory_unlock($1)`, lockID); err != nil {
			// A connection that cannot unlock is closed, which unlocks; the pool drops
			// it on release instead of handing it out again.
			_ = conn.Conn().Close(unlockCtx)
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
			if err := ping(ctx, conn); err != nil && ctx.Err() == nil {
				err = fmt.Errorf("leader: lock connection lost: %w", err)
				cancel(err)
				<-done
				return err
			}
		}
	}
}

// ping checks the lock's connection, giving it checkEvery to answer.
func ping(ctx context.Context, conn *pgxpool.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, checkEvery)
	defer cancel()
	return conn.Ping(ctx)
}
