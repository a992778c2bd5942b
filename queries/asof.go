package queries

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// The read models as of a past moment: the views of schema finledger_asof (migrations
// 0019 and 0020) show wallets, categories, budgets, goals, debts, transactions and the daily
// totals as they stood at a version of their workspace's stream, built from the
// histories the projections keep. The queries of this package read them unchanged:
// AsOf runs them with those views first in the search path.

// Cut is a moment of a workspace's history: the moment asked for and the version of
// the stream that stood then.
type Cut struct {
	At      time.Time `json:"at"`
	Version int64     `json:"version"`
}

// ErrHistoryNotKept is returned for a moment before a workspace's history starts: its
// read models were written before the histories were kept, and no replay has rebuilt
// them since.
var ErrHistoryNotKept = errors.New("queries: the history of the read models starts later")

// CutAt finds the version of a workspace's stream that stood at moment at.
func CutAt(ctx context.Context, db DB, workspaceID uuid.UUID, at time.Time) (Cut, error) {
	v, err := eventstore.VersionAt(ctx, db, domain.StreamID(workspaceID), at)
	if err != nil {
		return Cut{}, err
	}
	var start int64
	err = db.QueryRow(ctx, `SELECT version FROM history_starts WHERE workspace_id = $1`, workspaceID).Scan(&start)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return Cut{}, fmt.Errorf("queries: history start: %w", err)
	case v < start:
		return Cut{}, ErrHistoryNotKept
	}
	return Cut{At: at, Version: v}, nil
}

// enterCut shows, for the rest of a read-only transaction, the read models as they
// stood at version $1: the views of finledger_asof go before the tables in the search
// path, and statements are planned as $2 says (plan_cache_mode). The views look up each
// record's or total's state once, so a cache of those lookups by key (Memoize), which
// the planner may put in front of them, never hits: it is left out (a tenth of a year's
// as-of sum).
const enterCut = `SELECT set_config('search_path', 'finledger_asof, public', true), set_config('finledger.as_of', $1, true),
	set_config('plan_cache_mode', $2, true), set_config('enable_memoize', 'off', true)`

// AsOf runs read on the read models as they stood at version of the stream: in a
// read-only transaction whose search path puts the views of finledger_asof before the
// tables.
func AsOf(ctx context.Context, pool *pgxpool.Pool, version int64, read func(DB) error) error {
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// A plan kept for other values, or for the tables, could suit the views badly
		// where a read sums many rows: each statement is planned for its own.
		if _, err := tx.Exec(ctx, enterCut, strconv.FormatInt(version, 10), "force_custom_plan"); err != nil {
			return fmt.Errorf("queries: read as of version %d: %w", version, err)
		}
		return read(tx)
	})
}
