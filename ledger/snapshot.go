package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// A snapshot is a workspace's state at a version of its stream, stored so that loading
// the workspace folds only the events after it. Like the state cache it is a hint, never
// the truth: a state loaded from a snapshot is the fold of the stream up to the
// snapshot's version, and the Ledger checks it as it checks a cached state. A snapshot is
// written from a cached state after a command, so it is of committed events only.

// snapshotRevision names what Apply does and how snapshots are laid out. Raise it
// whenever Apply folds an event differently from before (a new rule, a fix) without the
// Workspace's types changing, or the encoding changes: snapshots of another revision are
// ignored, and the next command that loads such a workspace folds its whole stream. A
// change of the types changes the format by itself (snapshotShape).
// TestSnapshotOfTheFixture fails when the fixture's snapshot changes, as a reminder.
const snapshotRevision = 2

// snapshotFormat names the snapshots this build reads and writes.
var snapshotFormat = sync.OnceValues(func() (string, error) {
	shape, err := snapshotShape()
	if err != nil {
		return "", err
	}
	return strconv.Itoa(snapshotRevision) + "." + shape, nil
})

// DefaultSnapshotEvery is how many events a workspace's stream grows by, at least,
// between two snapshots. A snapshot holds no transaction, so its size follows the
// workspace's other records, not its history: writing one every thousand events costs
// little, and a cold load folds fewer than a thousand events after it.
const DefaultSnapshotEvery = 1000

// SnapshotEvery sets how many events, at least, a workspace's stream grows by between
// two snapshots (DefaultSnapshotEvery unless set); 0 turns snapshots off, reading as
// well as writing. Set it before the first command.
func (l *Ledger) SnapshotEvery(n int64) { l.snapshotEvery = n }

// startingState returns the state a load of the workspace starts from: its newest
// snapshot of this build's format at or below head (any version when head is unknown,
// -1), or else the empty state. A snapshot that does not decode is skipped with a
// warning: it is only a cache of the fold.
func (l *Ledger) startingState(ctx context.Context, db eventstore.DB, id uuid.UUID, head int64) (*domain.Workspace, error) {
	if l.snapshotEvery <= 0 {
		return domain.NewWorkspace(id), nil
	}
	format, err := snapshotFormat()
	if err != nil {
		// The encoding cannot hold the state (a test fails so): fold the stream; storing a
		// snapshot logs why it cannot.
		return domain.NewWorkspace(id), nil
	}
	var version int64
	var data []byte
	// Never above the head, even unlocked: a snapshot beyond it is of a state that never
	// was (verify reports it), and a state ahead of its stream would be trusted.
	err = db.QueryRow(ctx, `SELECT version, state FROM workspace_snapshots
		WHERE workspace_id = $1 AND format = $2 AND ($3 < 0 OR version <= $3)
		AND version <= (SELECT version FROM streams WHERE stream_id = $4)
		ORDER BY version DESC LIMIT 1`, id, format, head, domain.StreamID(id)).Scan(&version, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.NewWorkspace(id), nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: read snapshot of %s: %w", domain.StreamID(id), err)
	}
	state, err := decodeSnapshot(id, version, data)
	if err != nil {
		slog.WarnContext(ctx, "workspace snapshot skipped", "workspace", id, "version", version, "err", err)
		return domain.NewWorkspace(id), nil
	}
	return state, nil
}

// decodeSnapshot decodes the snapshot of workspace id at version.
func decodeSnapshot(id uuid.UUID, version int64, data []byte) (*domain.Workspace, error) {
	state, err := decodeWorkspace(data)
	if err != nil {
		return nil, err
	}
	if state.ID != id || state.Version != version {
		return nil, fmt.Errorf("%w: it holds %s at %d", errSnapshotCorrupt, state.ID, state.Version)
	}
	state.ForgetTransactions()
	return state, nil
}

// foldStream folds the workspace's events after state.Version into state, up to version
// until, or to the end of the stream when until is -1.
func foldStream(ctx context.Context, db eventstore.DB, state *domain.Workspace, until int64) error {
	stream := domain.StreamID(state.ID)
	for until < 0 || state.Version < until {
		limit := foldBatch
		if until >= 0 {
			limit = int(min(int64(foldBatch), until-state.Version))
		}
		events, err := eventstore.ReadStream(ctx, db, stream, state.Version, limit)
		if err != nil {
			return err
		}
		decoded := make([]domain.Event, len(events))
		for i, e := range events {
			if decoded[i], err = domain.DecodeEvent(e.Type, e.Data); err != nil {
				return fmt.Errorf("ledger: fold %s@%d: %w", e.StreamID, e.Version, err)
			}
		}
		if err := meetTransactionsOf(ctx, db, state, decoded); err != nil {
			return err
		}
		for i, e := range events {
			if err := state.Apply(decoded[i]); err != nil {
				return fmt.Errorf("ledger: fold %s@%d: %w", e.StreamID, e.Version, err)
			}
			state.Version = e.Version
		}
		if len(events) == 0 { // a read may end early, at its bytes (eventstore.ReadStream)
			if until >= 0 {
				return fmt.Errorf("ledger: stream %s ends at %d, not %d", stream, state.Version, until)
			}
			break
		}
	}
	return nil
}

// SnapshotInterval is how many events a stream grows by before the Ledger takes its
// next snapshot.
func (l *Ledger) SnapshotInterval() int64 { return l.snapshotEvery }

// snapshotDue reports whether the entry's state is far enough past the last snapshot
// this instance knows of to store a new one.
func (l *Ledger) snapshotDue(entry *cacheEntry) bool {
	if l.snapshotEvery <= 0 || entry.state == nil {
		return false
	}
	return entry.state.Version-entry.snapshotAt >= l.snapshotEvery
}

// keepSnapshot stores the entry's state as a snapshot when one is due. It runs after a
// command, under the workspace's lock, on a state of committed events. Instances share
// the snapshots but not what they know of them: when one seems due, the latest stored
// is read first, since another instance may have taken it meanwhile; it counts as this
// instance's own. A failure is logged and not retried before the next interval: the
// command has succeeded, and a missing snapshot only makes the next cold load longer.
func (l *Ledger) keepSnapshot(ctx context.Context, entry *cacheEntry) {
	if !l.snapshotDue(entry) {
		return
	}
	latest, err := latestSnapshot(ctx, l.pool, entry.id)
	if err == nil {
		entry.snapshotAt = max(entry.snapshotAt, latest)
		if !l.snapshotDue(entry) {
			return
		}
		err = storeSnapshot(ctx, l.pool, entry.state, entry.snapshotAt)
	}
	if err != nil {
		slog.WarnContext(ctx, "workspace snapshot not stored", "workspace", entry.id, "version", entry.state.Version, "err", err)
	}
	entry.snapshotAt = entry.state.Version
}

// latestSnapshot returns the version of the workspace's newest snapshot of this build's
// format, or 0 when it has none.
func latestSnapshot(ctx context.Context, db eventstore.DB, id uuid.UUID) (int64, error) {
	format, err := snapshotFormat()
	if err != nil {
		return 0, err
	}
	var version int64
	if err := db.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM workspace_snapshots WHERE workspace_id = $1 AND format = $2`,
		id, format).Scan(&version); err != nil {
		return 0, fmt.Errorf("ledger: read latest snapshot of %s: %w", domain.StreamID(id), err)
	}
	return version, nil
}

// storeSnapshot stores state as its workspace's snapshot and drops the snapshots older
// than the one at version previous, so that the latest two remain. A snapshot at the same
// version is the same state: the first one stays.
func storeSnapshot(ctx context.Context, db eventstore.DB, state *domain.Workspace, previous int64) error {
	format, err := snapshotFormat()
	if err != nil {
		return err
	}
	data, err := encodeWorkspace(state)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO workspace_snapshots (workspace_id, version, format, state) VALUES ($1, $2, $3, $4)
		ON CONFLICT (workspace_id, version) DO NOTHING`, state.ID, state.Version, format, data)
	b.Queue(`DELETE FROM workspace_snapshots WHERE workspace_id = $1 AND version < $2`, state.ID, previous)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("ledger: store snapshot of %s at %d: %w", domain.StreamID(state.ID), state.Version, err)
	}
	return nil
}

// SnapshotCheck is what CheckSnapshots found.
type SnapshotCheck struct {
	// Checked counts the snapshots of this build's format, each compared with the fold
	// of its stream up to its version.
	Checked int64
	// Differing lists the snapshots that are not that fold: they differ, do not decode,
	// or are of a version the stream never reached.
	Differing []SnapshotID
	// OtherFormats counts the snapshots no command of this build reads.
	OtherFormats int64
}

// SnapshotID names a snapshot: its workspace and the stream version it stands for.
type SnapshotID struct {
	WorkspaceID uuid.UUID
	Version     int64
}

// CheckSnapshots compares every snapshot of this build's format with the fold of its
// workspace's stream up to the snapshot's version, folding each stream once, one
// workspace at a time. It is verify's proof that snapshots stand for the history. It
// needs no lock on appends (events and snapshots are never changed), only one view of
// the snapshots: run it in a repeatable-read transaction.
func CheckSnapshots(ctx context.Context, db eventstore.DB) (SnapshotCheck, error) {
	var out SnapshotCheck
	format, err := snapshotFormat()
	if err != nil {
		return out, err
	}
	if err := db.QueryRow(ctx, `SELECT count(*) FROM workspace_snapshots WHERE format <> $1`, format).Scan(&out.OtherFormats); err != nil {
		return out, fmt.Errorf("ledger: count snapshots: %w", err)
	}
	rows, err := db.Query(ctx, `SELECT workspace_id, version FROM workspace_snapshots WHERE format = $1
		ORDER BY workspace_id, version`, format)
	if err != nil {
		return out, fmt.Errorf("ledger: list snapshots: %w", err)
	}
	snapshots, err := pgx.CollectRows(rows, pgx.RowToStructByPos[SnapshotID])
	if err != nil {
		return out, fmt.Errorf("ledger: list snapshots: %w", err)
	}
	var state *domain.Workspace
	var head int64
	for _, s := range snapshots {
		if state == nil || state.ID != s.WorkspaceID {
			state = domain.NewWorkspace(s.WorkspaceID)
			if head, err = eventstore.Version(ctx, db, domain.StreamID(s.WorkspaceID), false); err != nil {
				return out, err
			}
		}
		out.Checked++
		same, err := snapshotIsFold(ctx, db, state, head, s.Version)
		if err != nil {
			return out, err
		}
		if !same {
			out.Differing = append(out.Differing, s)
		}
	}
	return out, nil
}

// snapshotIsFold folds state (of a stream whose head is head) up to version and reports
// whether the workspace's snapshot at version decodes to it.
func snapshotIsFold(ctx context.Context, db eventstore.DB, state *domain.Workspace, head, version int64) (bool, error) {
	if version > head {
		return false, nil
	}
	if err := foldStream(ctx, db, state, version); err != nil {
		return false, err
	}
	var data []byte
	if err := db.QueryRow(ctx, `SELECT state FROM workspace_snapshots WHERE workspace_id = $1 AND version = $2`,
		state.ID, version).Scan(&data); err != nil {
		return false, fmt.Errorf("ledger: read snapshot of %s at %d: %w", domain.StreamID(state.ID), version, err)
	}
	stored, err := decodeSnapshot(state.ID, version, data)
	if errors.Is(err, errSnapshotCorrupt) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Encodings are equal exactly when states are (see snapshot_codec.go).
	want, err := encodeWorkspace(state)
	if err != nil {
		return false, err
	}
	got, err := encodeWorkspace(stored)
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, want), nil
}
