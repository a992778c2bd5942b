package attachments

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Retention is how long a file stays stored once no attachment shows it: taken off its
// transaction, or its transaction deleted. Until then the history's reads and verify
// find it; after it, Purge forgets it.
const Retention = 30 * 24 * time.Hour

// unnamedFor is how long a content saved stays stored while no attachment names it: an
// upload whose command was refused, or is still on its way.
const unnamedFor = 24 * time.Hour

// purge deletes the contents no attachment keeps: those saved over a day before now that
// no attachment names, or that only attachments hidden for longer than Retention name.
// It returns how many it deleted. It is the one home of the rule, whichever store holds
// the bytes: remove, unless nil, removes a content's bytes held outside the database,
// while its row is locked, before the row is deleted; should it fail, the contents
// removed so far are deleted and the rest wait for the next purge.
//
// Every instance may run it: the rows are taken locked, passing over those another
// purge or a save holds; such a save sets the content's saving time to now, so that the
// next purge passes over it too, and a save that comes while the purge holds a row waits
// for the purge's end.
func purge(ctx context.Context, pool *pgxpool.Pool, now time.Time, remove func(context.Context, uuid.UUID, string) error) (int64, error) {
	var deleted int64
	var removeErr error
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT c.workspace_id, c.sha256 FROM attachment_contents c
			WHERE c.created_at < $1 AND NOT EXISTS (
				SELECT 1 FROM attachments a JOIN transactions t ON t.workspace_id = a.workspace_id AND t.id = a.transaction_id
				WHERE a.workspace_id = c.workspace_id AND a.sha256 = c.sha256
					AND (least(a.removed_at, t.deleted_at) IS NULL OR least(a.removed_at, t.deleted_at) > $2))
			FOR UPDATE OF c SKIP LOCKED`,
			now.Add(-unnamedFor), now.Add(-Retention))
		if err != nil {
			return err
		}
		type content struct {
			Workspace uuid.UUID
			SHA256    string
		}
		contents, err := pgx.CollectRows(rows, pgx.RowToStructByPos[content])
		if err != nil {
			return err
		}
		workspaces, hashes := make([]uuid.UUID, 0, len(contents)), make([]string, 0, len(contents))
		for _, c := range contents {
			if remove != nil {
				if removeErr = remove(ctx, c.Workspace, c.SHA256); removeErr != nil {
					break
				}
			}
			workspaces, hashes = append(workspaces, c.Workspace), append(hashes, c.SHA256)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM attachment_contents
			WHERE (workspace_id, sha256) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`, workspaces, hashes)
		deleted = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("attachments: purge: %w", err)
	}
	if removeErr != nil {
		return deleted, fmt.Errorf("attachments: purge: %w", removeErr)
	}
	return deleted, nil
}
