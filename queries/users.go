package queries

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// User is a user record.
type User struct {
	ID                  uuid.UUID `json:"id"`
	Email               string    `json:"email"`
	Name                *string   `json:"name"`
	PersonalWorkspaceID uuid.UUID `json:"personalWorkspaceId"`
	CreatedAt           time.Time `json:"createdAt"`
}

// Workspace is a workspace as one of its members sees it.
type Workspace struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Currency  string    `json:"currency"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"createdAt"`
}

// Session is a user and, when the user is a member of it, the requested workspace.
type Session struct {
	User      User
	Workspace *Workspace // nil when the user is not a member
}

// SessionContext loads, in one round trip, the user of a subject and the workspace the
// request acts in: workspaceID, or the user's personal workspace when it is nil.
func SessionContext(ctx context.Context, db DB, subject string, workspaceID *uuid.UUID) (Session, error) {
	rows, err := db.Query(ctx, `SELECT u.id, u.email, u.name, u.personal_workspace_id, u.created_at,
			w.id, w.name, w.kind, w.currency, m.role, w.created_at
		FROM users u
		LEFT JOIN workspace_members m ON m.user_id = u.id AND m.workspace_id = coalesce($2, u.personal_workspace_id)
		LEFT JOIN workspaces w ON w.id = m.workspace_id
		WHERE u.subject = $1`, subject, workspaceID)
	if err != nil {
		return Session{}, err
	}
	return one(rows, func(row pgx.CollectableRow) (Session, error) {
		var s Session
		var wsID *uuid.UUID
		var name, kind, currency, role *string
		var created *time.Time
		err := row.Scan(&s.User.ID, &s.User.Email, &s.User.Name, &s.User.PersonalWorkspaceID, &s.User.CreatedAt,
			&wsID, &name, &kind, &currency, &role, &created)
		if wsID != nil {
			s.Workspace = &Workspace{ID: *wsID, Name: *name, Type: *kind, Currency: *currency, Role: *role, CreatedAt: *created}
		}
		return s, err
	}, "user")
}
