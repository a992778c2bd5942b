package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// User is a user record with their profile.
type User struct {
	ID                     uuid.UUID `json:"id"`
	Email                  string    `json:"email"`
	Name                   *string   `json:"name"`
	PersonalWorkspaceID    uuid.UUID `json:"personalWorkspaceId"`
	CreatedAt              time.Time `json:"createdAt"`
	FirstName              *string   `json:"firstName"`
	LastName               *string   `json:"lastName"`
	Currency               *string   `json:"currency"`
	Language               *string   `json:"language"`
	Theme                  string    `json:"theme"`
	NotificationsEnabled   bool      `json:"notificationsEnabled"`
	HasCompletedOnboarding bool      `json:"hasCompletedOnboarding"`
}

// userFields are the scan targets of a user's columns in the order the lookups list them.
func userFields(u *User) []any {
	return []any{&u.ID, &u.Email, &u.Name, &u.PersonalWorkspaceID, &u.CreatedAt, &u.FirstName, &u.LastName,
		&u.Currency, &u.Language, &u.Theme, &u.NotificationsEnabled, &u.HasCompletedOnboarding}
}

// Workspace is a workspace as one of its members sees it.
type Workspace struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Currency  string    `json:"currency"`
	Language  string    `json:"language"` // of the text the service writes; empty is English
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"createdAt"`
}

// MarshalJSON writes the workspace with the scopes the member's role holds in it, so
// that a client offers only what the role may do.
func (w Workspace) MarshalJSON() ([]byte, error) {
	type fields Workspace
	scopes := domain.RoleScopes(w.Role)
	if scopes == nil {
		scopes = []string{}
	}
	return json.Marshal(struct {
		fields
		Scopes []string `json:"scopes"`
	}{fields(w), scopes})
}

// Session is a user and, when the user is a member of it, the requested workspace.
type Session struct {
	User        User
	UserDeleted bool
	Workspace   *Workspace // nil when the user is not a member or it is deleted
}

// SessionContext looks up the user of a subject and the workspace the request acts in:
// workspaceID, or the user's personal workspace when it is nil.
func SessionContext(subject string, workspaceID *uuid.UUID) Lookup[Session] {
	return Lookup[Session]{"user", `SELECT u.id, u.email, u.name, u.personal_workspace_id, u.created_at,
			u.first_name, u.last_name, u.currency, u.language, u.theme, u.notifications_enabled, u.has_completed_onboarding,
			u.deleted_at IS NOT NULL, w.id, w.name, w.kind, w.currency, w.language, m.role, w.created_at
		FROM users u
		LEFT JOIN workspace_members m ON m.user_id = u.id AND m.workspace_id = coalesce($2, u.personal_workspace_id)
		LEFT JOIN workspaces w ON w.id = m.workspace_id AND w.deleted_at IS NULL
		WHERE u.subject = $1`, []any{subject, workspaceID},
		func(row pgx.CollectableRow) (Session, error) {
			var s Session
			var ws nullableWorkspace
			err := row.Scan(append(userFields(&s.User), &s.UserDeleted, &ws.id, &ws.name, &ws.kind, &ws.currency, &ws.language, &ws.role, &ws.created)...)
			s.Workspace = ws.value()
			return s, err
		}}
}

// APIKeyContext is an API key with its creator and workspace.
type APIKeyContext struct {
	KeyID  uuid.UUID
	Scopes []string
	// RoleWhenMade is the creator's role when the key was made; nil if unknown.
	RoleWhenMade *string
	Hash         []byte
	ExpiresAt    *time.Time
	RevokedAt    *time.Time
	User         User
	UserDeleted  bool
	Workspace    *Workspace // nil when the creator left it or it is deleted
	// Writes is domain.KeyWritesApply, or KeyWritesPropose for writes held for approval.
	Writes string
}

// KeyContext looks up an API key by the hash of its secret.
func KeyContext(hash []byte) Lookup[APIKeyContext] {
	return Lookup[APIKeyContext]{"api key", `SELECT k.id, k.scopes, k.role, k.hash, k.expires_at, k.revoked_at,
			u.id, u.email, u.name, u.personal_workspace_id, u.created_at,
			u.first_name, u.last_name, u.currency, u.language, u.theme, u.notifications_enabled, u.has_completed_onboarding,
			u.deleted_at IS NOT NULL, w.id, w.name, w.kind, w.currency, w.language, m.role, w.created_at, k.writes
		FROM api_keys k
		JOIN users u ON u.id = k.created_by
		LEFT JOIN workspace_members m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by
		LEFT JOIN workspaces w ON w.id = m.workspace_id AND w.deleted_at IS NULL
		WHERE k.hash = $1`, []any{hash},
		func(row pgx.CollectableRow) (APIKeyContext, error) {
			var k APIKeyContext
			var ws nullableWorkspace
			err := row.Scan(append(append([]any{&k.KeyID, &k.Scopes, &k.RoleWhenMade, &k.Hash, &k.ExpiresAt, &k.RevokedAt}, userFields(&k.User)...),
				&k.UserDeleted, &ws.id, &ws.name, &ws.kind, &ws.currency, &ws.language, &ws.role, &ws.created, &k.Writes)...)
			k.Workspace = ws.value()
			return k, err
		}}
}

// QueueKeyUse records that a live key was used, at most once a minute per key.
func QueueKeyUse(b *pgx.Batch, hash []byte, now time.Time) {
	b.Queue(`INSERT INTO api_key_usage (key_id, last_used_at)
		SELECT id, $2 FROM api_keys WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)
		ON CONFLICT (key_id) DO UPDATE SET last_used_at = excluded.last_used_at
		WHERE api_key_usage.last_used_at < excluded.last_used_at - interval '1 minute'`, hash, now)
}

// InvitationsFor lists the workspaces that invited an email.
func InvitationsFor(ctx context.Context, db DB, email string) ([]uuid.UUID, error) {
	rows, err := db.Query(ctx, `SELECT i.workspace_id FROM workspace_invitations i JOIN workspaces w ON w.id = i.workspace_id
		WHERE i.email = lower($1) AND w.deleted_at IS NULL ORDER BY i.invited_at`, email)
	if err != nil {
		return nil, fmt.Errorf("queries: invitations: %w", err)
	}
	return all(rows, pgx.RowTo[uuid.UUID], "invitations")
}

type nullableWorkspace struct {
	id                                   *uuid.UUID
	name, kind, currency, language, role *string
	created                              *time.Time
}

func (n nullableWorkspace) value() *Workspace {
	if n.id == nil || n.name == nil {
		return nil
	}
	return &Workspace{ID: *n.id, Name: *n.name, Type: *n.kind, Currency: *n.currency, Language: *n.language, Role: *n.role, CreatedAt: *n.created}
}

// LinkContext is a chat-channel link with its user and the workspace it acts in.
type LinkContext struct {
	LinkID            uuid.UUID
	Status            string
	Fingerprint       string
	WorkspaceID       uuid.UUID
	LastTransactionID *uuid.UUID
	LastTransactionWS *uuid.UUID
	LastTransactionAt *time.Time
	PhoneMasked       string
	LinkedAt          time.Time
	User              User
	UserDeleted       bool
	Workspace         *Workspace // nil when the user is no longer a member
}

const linkSelect = `SELECT l.link_id, l.status, coalesce(l.fingerprint, ''), l.workspace_id, l.last_transaction_id,
		l.last_transaction_ws, l.last_transaction_at, l.phone_masked, l.linked_at,
		u.id, u.email, u.name, u.personal_workspace_id, u.created_at,
		u.first_name, u.last_name, u.currency, u.language, u.theme, u.notifications_enabled, u.has_completed_onboarding,
		u.deleted_at IS NOT NULL, w.id, w.name, w.kind, w.currency, w.language, m.role, w.created_at
	FROM whatsapp_links l
	JOIN users u ON u.id = l.user_id
	LEFT JOIN workspace_members m ON m.workspace_id = l.workspace_id AND m.user_id = l.user_id
	LEFT JOIN workspaces w ON w.id = m.workspace_id AND w.deleted_at IS NULL`

func scanLink(row pgx.CollectableRow) (LinkContext, error) {
	var l LinkContext
	var ws nullableWorkspace
	err := row.Scan(append(append([]any{&l.LinkID, &l.Status, &l.Fingerprint, &l.WorkspaceID, &l.LastTransactionID,
		&l.LastTransactionWS, &l.LastTransactionAt, &l.PhoneMasked, &l.LinkedAt}, userFields(&l.User)...),
		&l.UserDeleted, &ws.id, &ws.name, &ws.kind, &ws.currency, &ws.language, &ws.role, &ws.created)...)
	l.Workspace = ws.value()
	return l, err
}

// LinkByPhone looks up the link of a phone by its key.
func LinkByPhone(phoneKey []byte) Lookup[LinkContext] {
	return Lookup[LinkContext]{"link", linkSelect + ` WHERE l.phone_key = $1`, []any{phoneKey}, scanLink}
}

// LinkByUser looks up a user's link.
func LinkByUser(userID uuid.UUID) Lookup[LinkContext] {
	return Lookup[LinkContext]{"link", linkSelect + ` WHERE l.user_id = $1`, []any{userID}, scanLink}
}
