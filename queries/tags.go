package queries

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Tag is a tag record.
type Tag struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Color     string    `json:"color"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

const tagColumns = `id, name, color, active, created_at, updated_at`

func scanTag(row pgx.CollectableRow) (Tag, error) {
	var t Tag
	err := row.Scan(&t.ID, &t.Name, &t.Color, &t.Active, &t.CreatedAt, &t.UpdatedAt)
	return t, err
}

// Tags lists the active tags of a workspace, oldest first.
func Tags(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Tag, error) {
	rows, err := db.Query(ctx, `SELECT `+tagColumns+` FROM tags WHERE workspace_id = $1 AND active ORDER BY created_version`, workspaceID)
	if err != nil {
		return nil, err
	}
	return all(rows, scanTag, "tags")
}

// TagByID looks up one tag.
func TagByID(workspaceID, id uuid.UUID) Lookup[Tag] {
	return Lookup[Tag]{"tag", `SELECT ` + tagColumns + ` FROM tags WHERE workspace_id = $1 AND id = $2`,
		[]any{workspaceID, id}, scanTag}
}
