package attachments

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The rows of attachment_contents are every store's index of the contents it holds,
// whether the bytes are in attachment_chunks (Postgres) or in a bucket (S3): a content
// is stored when its row is, and the purge, verify and the export find contents there.

// querier runs a statement on the pool or in a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// saveRow writes the upload's row, and reports whether it is new. A content stored
// already has its created_at set to now, as a new one has: the purge takes only
// contents saved over a day ago that nothing names, so a content saved again for an
// attachment about to name it is not purged under it. The row stays locked until tx
// ends: a save of the same content elsewhere waits for it.
func saveRow(ctx context.Context, tx pgx.Tx, workspaceID uuid.UUID, u *Upload) (inserted bool, err error) {
	err = tx.QueryRow(ctx, `INSERT INTO attachment_contents (workspace_id, sha256, size, kind)
		VALUES ($1, $2, $3, $4) ON CONFLICT (workspace_id, sha256) DO UPDATE SET created_at = now()
		RETURNING xmax = 0`,
		workspaceID, u.SHA256, u.Size, string(u.Kind)).Scan(&inserted)
	if err != nil {
		return false, fmt.Errorf("write the content's row: %w", err)
	}
	return inserted, nil
}

// storedRow reads a content's size and kind, or ErrNotFound.
func storedRow(ctx context.Context, q querier, workspaceID uuid.UUID, sha256Hex string) (int64, Kind, error) {
	var size int64
	var kind string
	err := q.QueryRow(ctx, `SELECT size, kind FROM attachment_contents WHERE workspace_id = $1 AND sha256 = $2`,
		workspaceID, sha256Hex).Scan(&size, &kind)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", fmt.Errorf("attachments: content %s of workspace %s: %w", sha256Hex, workspaceID, ErrNotFound)
	}
	if err != nil {
		return 0, "", fmt.Errorf("attachments: read the row of content %s: %w", sha256Hex, err)
	}
	return size, Kind(kind), nil
}

// deleteRow deletes a content's row, and with it its chunks (their foreign key
// cascades); one absent is no error.
func deleteRow(ctx context.Context, q querier, workspaceID uuid.UUID, sha256Hex string) error {
	if _, err := q.Exec(ctx, `DELETE FROM attachment_contents WHERE workspace_id = $1 AND sha256 = $2`,
		workspaceID, sha256Hex); err != nil {
		return fmt.Errorf("delete the content's row: %w", err)
	}
	return nil
}
