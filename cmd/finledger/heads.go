package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// Heads are every workspace's chain head at a moment, kept outside the database (next
// to a backup, say) so that a database restored to that moment can be shown to hold
// the very history that stood then (docs/operating.md, "Backups and restore to a
// moment").
type Heads struct {
	// At is the database's clock just after the snapshot the heads were read in.
	At time.Time `json:"at"`
	// Target is At as a restore names it: PostgreSQL's recovery_target_time, pgBackRest's
	// --target.
	Target string          `json:"target"`
	Heads  []WorkspaceHead `json:"heads"`
}

// WorkspaceHead is a workspace's chain head: its last version and that event's hash.
type WorkspaceHead struct {
	Workspace uuid.UUID `json:"workspace"`
	queries.ChainLink
}

// errHeadsDiffer is heads --check's finding that the database does not hold a recorded
// head.
var errHeadsDiffer = errors.New("the database does not hold every recorded head")

// headsFlags declares the heads command: print every workspace's chain head with the
// moment, or check the database against heads printed before.
func headsFlags(fs *flag.FlagSet) runner {
	check := fs.String("check", "", "a file `heads` wrote: check that the database holds each of its heads")
	return func(ctx context.Context, cfg config, out io.Writer) error {
		var recorded *Heads
		if *check != "" {
			data, err := os.ReadFile(*check)
			if err != nil {
				return usageError{fmt.Errorf("--check: %w", err)}
			}
			recorded = &Heads{}
			if err := json.Unmarshal(data, recorded); err != nil {
				return usageError{fmt.Errorf("--check: %s is not what `finledger heads` writes: %w", *check, err)}
			}
		}
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
			now, err := readHeads(ctx, pool)
			if err != nil {
				return err
			}
			if recorded == nil {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(now)
			}
			return compareHeads(ctx, pool, *recorded, now, out)
		})
	}
}

// readHeads recomputes every workspace's chain, all in one snapshot, and returns their
// heads with the database's clock at that snapshot. A chain that breaks is an error: its
// head would vouch for nothing.
func readHeads(ctx context.Context, pool *pgxpool.Pool) (Heads, error) {
	var heads Heads
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// The snapshot is taken by this first statement, so the moment is its moment.
		if err := tx.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&heads.At); err != nil {
			return fmt.Errorf("heads: read the clock: %w", err)
		}
		ids, err := workspaceStreams(ctx, tx)
		if err != nil {
			return err
		}
		heads.Heads = make([]WorkspaceHead, 0, len(ids))
		for _, id := range ids {
			check, err := queries.VerifyHistory(ctx, tx, id, nil)
			if err != nil {
				return err
			}
			if !check.Intact {
				return fmt.Errorf("heads: the chain of workspace %s breaks at version %d (`finledger verify` tells more): %w", id, *check.BrokenAt, errHeadsDiffer)
			}
			heads.Heads = append(heads.Heads, WorkspaceHead{Workspace: id, ChainLink: check.Head})
		}
		return nil
	})
	heads.At = heads.At.UTC()
	heads.Target = heads.At.Format("2006-01-02 15:04:05.000000") + "+00"
	return heads, err
}

// workspaceStreams lists the workspaces that have a history.
func workspaceStreams(ctx context.Context, db queries.DB) ([]uuid.UUID, error) {
	prefix := domain.StreamID(uuid.Nil)
	prefix = prefix[:len(prefix)-len(uuid.Nil.String())]
	rows, err := db.Query(ctx, `SELECT stream_id FROM streams WHERE starts_with(stream_id, $1) ORDER BY stream_id`, prefix)
	if err != nil {
		return nil, fmt.Errorf("heads: list the workspaces: %w", err)
	}
	streams, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("heads: list the workspaces: %w", err)
	}
	ids := make([]uuid.UUID, 0, len(streams))
	for _, s := range streams {
		id, err := uuid.Parse(strings.TrimPrefix(s, prefix))
		if err != nil {
			return nil, fmt.Errorf("heads: stream %s: %w", s, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// compareHeads prints, for each recorded head, whether the database holds it: the same
// head; the recorded one within a history that goes on (the database is of a later
// moment); or not at all, which is a difference. A workspace the record does not know is
// only named.
func compareHeads(ctx context.Context, pool *pgxpool.Pool, recorded, now Heads, out io.Writer) error {
	current := make(map[uuid.UUID]queries.ChainLink, len(now.Heads))
	for _, h := range now.Heads {
		current[h.Workspace] = h.ChainLink
	}
	fmt.Fprintf(out, "heads recorded at %s, compared with the database at %s\n", recorded.At.Format(time.RFC3339Nano), now.At.Format(time.RFC3339Nano))
	same, later, bad := 0, 0, 0
	seen := make(map[uuid.UUID]bool, len(recorded.Heads))
	for _, r := range recorded.Heads {
		c, ok := current[r.Workspace]
		seen[r.Workspace] = true
		switch {
		case !ok:
			bad++
			fmt.Fprintf(out, "workspace %s: MISSING (recorded at version %d)\n", r.Workspace, r.Version)
		case c == r.ChainLink:
			same++
			fmt.Fprintf(out, "workspace %s: same head, version %d\n", r.Workspace, r.Version)
		case c.Version > r.Version:
			hash, err := storedHash(ctx, pool, r.Workspace, r.Version)
			if err != nil {
				return err
			}
			if hash == r.Hash {
				later++
				fmt.Fprintf(out, "workspace %s: holds version %d as recorded, and goes on to version %d\n", r.Workspace, r.Version, c.Version)
				continue
			}
			bad++
			fmt.Fprintf(out, "workspace %s: DIFFERS at version %d (recorded %s, found %s)\n", r.Workspace, r.Version, r.Hash, hash)
		case c.Version < r.Version:
			bad++
			fmt.Fprintf(out, "workspace %s: SHORTER, at version %d of the %d recorded\n", r.Workspace, c.Version, r.Version)
		default:
			bad++
			fmt.Fprintf(out, "workspace %s: DIFFERS at version %d (recorded %s, found %s)\n", r.Workspace, r.Version, r.Hash, c.Hash)
		}
	}
	for _, h := range now.Heads {
		if !seen[h.Workspace] {
			fmt.Fprintf(out, "workspace %s: not recorded (now at version %d)\n", h.Workspace, h.Version)
		}
	}
	fmt.Fprintf(out, "heads: %d same, %d held within a longer history, %d missing or different\n", same, later, bad)
	if bad > 0 {
		return fmt.Errorf("%d head(s): %w", bad, errHeadsDiffer)
	}
	return nil
}

// storedHash is the hash stored with a workspace's event at a version, in hex; the
// chain it belongs to was recomputed whole by readHeads just before.
func storedHash(ctx context.Context, pool *pgxpool.Pool, workspace uuid.UUID, version int64) (string, error) {
	var hash []byte
	err := pool.QueryRow(ctx, `SELECT hash FROM events WHERE stream_id = $1 AND version = $2`, domain.StreamID(workspace), version).Scan(&hash)
	if err != nil {
		return "", fmt.Errorf("heads: hash of workspace %s at version %d: %w", workspace, version, err)
	}
	return hex.EncodeToString(hash), nil
}
