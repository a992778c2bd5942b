package queries

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Category is a category record.
type Category struct {
	ID          uuid.UUID  `json:"id"`
	Name        string     `json:"name"`
	Icon        string     `json:"icon"`
	Description *string    `json:"description"`
	Color       string     `json:"color"`
	IsDefault   bool       `json:"isDefault"`
	TagID       *uuid.UUID `json:"tagId"`
	Archived    bool       `json:"archived"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

const categoryColumns = `id, name, icon, description, color, is_default, tag_id, archived, created_at, updated_at`

func scanCategory(row pgx.CollectableRow) (Category, error) {
	var c Category
	err := row.Scan(&c.ID, &c.Name, &c.Icon, &c.Description, &c.Color, &c.IsDefault, &c.TagID, &c.Archived, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

// Categories lists the active categories of a workspace, oldest first.
func Categories(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Category, error) {
	rows, err := db.Query(ctx, `SELECT `+categoryColumns+` FROM categories
		WHERE workspace_id = $1 AND NOT archived ORDER BY created_version`, workspaceID)
	if err != nil {
		return nil, err
	}
	return all(rows, scanCategory, "categories")
}

// CategoryByID looks up one category, archived or not.
func CategoryByID(workspaceID, id uuid.UUID) Lookup[Category] {
	return Lookup[Category]{"category", `SELECT ` + categoryColumns + ` FROM categories WHERE workspace_id = $1 AND id = $2`,
		[]any{workspaceID, id}, scanCategory}
}
