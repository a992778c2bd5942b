package queries

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// A workspace's history as an auditor checks it: its chain of hashes recomputed from what
// is stored, and the export a reader checks the same way (docs/history.md).

// HistoryCheck is the answer of verifying a workspace's chain.
type HistoryCheck struct {
	Intact  bool  `json:"intact"`
	Checked int64 `json:"checked"` // events whose hash was recomputed
	// BrokenAt is the first version whose stored hash differs from the recomputed one.
	BrokenAt *int64    `json:"brokenAt"`
	Head     ChainLink `json:"head"`
	// Former is the hash the chain had at a version before the canonical text left
	// secrets out, when asked for.
	Former *ChainLink `json:"former,omitempty"`
}

// ChainLink is a version of a workspace's history with its chain hash in hex: the pair an
// auditor keeps, to find later that the history up to there is the same.
type ChainLink struct {
	Version int64  `json:"version"`
	Hash    string `json:"hash"`
}

// ErrExportNotTaken is an export its reader went away from or stopped reading.
var ErrExportNotTaken = eventstore.ErrExportNotTaken

// VerifyHistory recomputes the workspace's chain from what is stored. With formerAt it
// also answers the hash the chain had at that version before the canonical text left
// secrets out (eventstore.FormerHash), for a head kept from before then; a version the
// history does not have is an invalid formerAt.
func VerifyHistory(ctx context.Context, db DB, workspaceID uuid.UUID, formerAt *int64) (HistoryCheck, error) {
	stream := domain.StreamID(workspaceID)
	check, err := eventstore.VerifyChain(ctx, db, stream)
	if err != nil {
		return HistoryCheck{}, fmt.Errorf("queries: verify history: %w", err)
	}
	answer := HistoryCheck{
		Intact:  check.BrokenAt == 0,
		Checked: check.Checked,
		Head:    ChainLink{Version: check.Head.Version, Hash: hex.EncodeToString(check.Head.Hash[:])},
	}
	if check.BrokenAt != 0 {
		answer.BrokenAt = &check.BrokenAt
	}
	if formerAt != nil {
		hash, found, err := eventstore.FormerHash(ctx, db, stream, *formerAt)
		if err != nil {
			return HistoryCheck{}, fmt.Errorf("queries: former hash: %w", err)
		}
		if !found {
			return HistoryCheck{}, domain.InvalidField("formerAt", "must be the version of an event of the workspace's history")
		}
		answer.Former = &ChainLink{Version: *formerAt, Hash: hex.EncodeToString(hash[:])}
	}
	return answer, nil
}

// ExportHistory writes the workspace's events as JSON lines, each the event's canonical
// text and its chain hash. A failure of w is ErrExportNotTaken.
func ExportHistory(ctx context.Context, db DB, workspaceID uuid.UUID, w io.Writer) error {
	_, err := eventstore.ExportChain(ctx, db, domain.StreamID(workspaceID), w)
	return err
}
