package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/finledger/finledger/domain"
)

// BindImportCommit returns what makes a call commit the previewed import c: first, in
// the call's transaction, it locks the preview's row (so that a change of a row waits
// for the commit, and then finds it committed), reads the rows into c with readRows,
// and reads which of their external ids the wallet already holds; then it decides with
// c. The rows are read under the lock, so the commit takes every change made before
// it. Two previews of one file committed at once are told apart by the wallet's unique
// external ids (ImportConflict).
func BindImportCommit(c *domain.CommitImport, readRows func(ctx context.Context, tx pgx.Tx) error) func(Call) Call {
	return func(call Call) Call {
		// Decided on c as the claim leaves it: a method value c.Decide would copy c here,
		// before the claim has read the rows into it. Once decided, the rows live on in
		// the events, and are let go for the write, which lets each part of the events go
		// in turn (streamed): a hundred thousand rows and their events would otherwise be
		// held to the end. The Ledger decides once per attempt, after the claim; a second
		// decision would find no rows, and fails rather than commit an import of none.
		decided := false
		call.Decide = func(w *domain.Workspace) ([]domain.Event, error) {
			if decided {
				return nil, fmt.Errorf("ledger: import %s decided twice in one attempt", c.ImportID)
			}
			events, err := c.Decide(w)
			if err != nil {
				return nil, err
			}
			decided, c.Rows = true, nil
			return events, nil
		}
		call.streamed = true
		call.translate = importConflict
		call.claim = func(ctx context.Context, tx pgx.Tx) error {
			c.AlreadyImported, decided = nil, false
			var status string
			err := tx.QueryRow(ctx, `SELECT status FROM imports WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
				call.WorkspaceID, c.ImportID).Scan(&status)
			if err != nil {
				return fmt.Errorf("ledger: lock import %s: %w", c.ImportID, err)
			}
			if status != "preview" {
				// Committed already: the domain refuses it, or its Idempotency-Key replays it.
				return nil
			}
			if err := readRows(ctx, tx); err != nil {
				return err
			}
			ids := make([]string, 0, len(c.Rows))
			for _, r := range c.Rows {
				ids = append(ids, r.ExternalID)
			}
			rows, err := tx.Query(ctx, `SELECT external_id FROM transactions
				WHERE workspace_id = $1 AND wallet_id = $2 AND deleted_at IS NULL AND external_id = ANY($3)
				ORDER BY external_id`, call.WorkspaceID, c.WalletID, ids)
			if err != nil {
				return fmt.Errorf("ledger: read the wallet's imported rows: %w", err)
			}
			c.AlreadyImported, err = pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return fmt.Errorf("ledger: read the wallet's imported rows: %w", err)
			}
			return nil
		}
		return call
	}
}

// BindImportUndo returns what makes a call undo an import with c: it locks the import's
// row first, in the order a commit takes its locks.
func BindImportUndo(c *domain.UndoImport) func(Call) Call {
	return func(call Call) Call {
		call.Decide = c.Decide
		call.streamed = true
		call.claim = func(ctx context.Context, tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT 1 FROM imports WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
				call.WorkspaceID, c.ImportID); err != nil {
				return fmt.Errorf("ledger: lock import %s: %w", c.ImportID, err)
			}
			return nil
		}
		return call
	}
}

// importConflict is the domain's refusal of a commit that met the wallet's unique
// external ids, a statement row another import committed at the same moment; any other
// error is returned as it is.
func importConflict(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation && pgErr.ConstraintName == "transactions_external_id" {
		return domain.Conflict("IMPORT_ROWS_ALREADY_IMPORTED",
			"rows of this statement were imported into the wallet at the same moment by another import: upload the file again for a new preview")
	}
	return err
}
