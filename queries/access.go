package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// APIKey is an API key as listings show it: never the secret, never its hash.
type APIKey struct {
	ID          uuid.UUID  `json:"id"`
	Name        string     `json:"name"`
	Description *string    `json:"description"`
	Scopes      []string   `json:"scopes"`
	Prefix      string     `json:"prefix"`
	CreatedBy   uuid.UUID  `json:"createdBy"`
	CreatedAt   time.Time  `json:"createdAt"`
	LastUsedAt  *time.Time `json:"lastUsedAt"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	RevokedAt   *time.Time `json:"revokedAt"`
	// Writes is apply, or propose for a key whose writes are held for approval.
	Writes string `json:"writes"`
}

const apiKeySelect = `SELECT k.id, k.name, k.description, k.scopes, k.prefix, k.created_by, k.created_at, u.last_used_at,
	k.expires_at, k.revoked_at, k.writes FROM api_keys k LEFT JOIN api_key_usage u ON u.key_id = k.id`

func scanAPIKey(row pgx.CollectableRow) (APIKey, error) {
	var k APIKey
	err := row.Scan(&k.ID, &k.Name, &k.Description, &k.Scopes, &k.Prefix, &k.CreatedBy, &k.CreatedAt, &k.LastUsedAt, &k.ExpiresAt, &k.RevokedAt, &k.Writes)
	return k, err
}

// APIKeys lists a workspace's keys, newest first, revoked ones included.
func APIKeys(ctx context.Context, db DB, workspaceID uuid.UUID) ([]APIKey, error) {
	rows, err := db.Query(ctx, apiKeySelect+` WHERE k.workspace_id = $1 ORDER BY k.created_at DESC, k.id DESC`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: api keys: %w", err)
	}
	return all(rows, scanAPIKey, "api keys")
}

// APIKeyByID looks up one key of a workspace.
func APIKeyByID(workspaceID, id uuid.UUID) Lookup[APIKey] {
	return Lookup[APIKey]{"api key", apiKeySelect + ` WHERE k.workspace_id = $1 AND k.id = $2`, []any{workspaceID, id}, scanAPIKey}
}

// Workspaces lists the live workspaces a user belongs to, personal first.
func Workspaces(ctx context.Context, db DB, userID uuid.UUID) ([]Workspace, error) {
	rows, err := db.Query(ctx, `SELECT w.id, w.name, w.kind, w.currency, w.language, m.role, w.created_at
		FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
		WHERE m.user_id = $1 AND w.deleted_at IS NULL
		ORDER BY w.kind = 'personal' DESC, w.created_at, w.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("queries: workspaces: %w", err)
	}
	return all(rows, scanWorkspace, "workspaces")
}

func scanWorkspace(row pgx.CollectableRow) (Workspace, error) {
	var w Workspace
	err := row.Scan(&w.ID, &w.Name, &w.Type, &w.Currency, &w.Language, &w.Role, &w.CreatedAt)
	return w, err
}

// MemberWorkspace looks up a live workspace with a member's role in it.
func MemberWorkspace(userID, workspaceID uuid.UUID) Lookup[Workspace] {
	return Lookup[Workspace]{"workspace", `SELECT w.id, w.name, w.kind, w.currency, w.language, m.role, w.created_at
		FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
		WHERE m.workspace_id = $1 AND m.user_id = $2 AND w.deleted_at IS NULL`, []any{workspaceID, userID}, scanWorkspace}
}

// Member is a member of a workspace, or an invitation (UserID nil) waiting for
// someone's first sign-in.
type Member struct {
	UserID *uuid.UUID `json:"userId"`
	// InvitationID names an open invitation (status invited), to withdraw it by.
	InvitationID *uuid.UUID `json:"invitationId"`
	Email        string     `json:"email"`
	Name         *string    `json:"name"`
	Role         string     `json:"role"`
	Status       string     `json:"status"` // active or invited
	JoinedAt     time.Time  `json:"joinedAt"`
}

const memberSelect = `SELECT u.id, u.email, u.name, m.role, 'active', m.joined_at
	FROM workspace_members m JOIN users u ON u.id = m.user_id`

func scanMember(row pgx.CollectableRow) (Member, error) {
	var m Member
	err := row.Scan(&m.UserID, &m.Email, &m.Name, &m.Role, &m.Status, &m.JoinedAt)
	if m.UserID == nil {
		id := domain.InvitationID(m.Email)
		m.InvitationID = &id
	}
	return m, err
}

// membersSQL lists the members of workspace $1 and its open invitations.
const membersSQL = memberSelect + ` WHERE m.workspace_id = $1
	UNION ALL
	SELECT NULL, i.email, NULL, i.role, 'invited', i.invited_at FROM workspace_invitations i WHERE i.workspace_id = $1
	ORDER BY 6, 2`

// Members lists a workspace's members and its open invitations.
func Members(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Member, error) {
	rows, err := db.Query(ctx, membersSQL, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: members: %w", err)
	}
	return all(rows, scanMember, "members")
}

// MemberByID looks up one member of a workspace.
func MemberByID(workspaceID, userID uuid.UUID) Lookup[Member] {
	return Lookup[Member]{"member", memberSelect + ` WHERE m.workspace_id = $1 AND m.user_id = $2`, []any{workspaceID, userID}, scanMember}
}

// InvitationByEmail looks up an open invitation.
func InvitationByEmail(workspaceID uuid.UUID, email string) Lookup[Member] {
	return Lookup[Member]{"invitation", `SELECT NULL::uuid, i.email, NULL::text, i.role, 'invited', i.invited_at
		FROM workspace_invitations i WHERE i.workspace_id = $1 AND i.email = lower($2)`, []any{workspaceID, email}, scanMember}
}

// UserIDByEmail returns the live user with an email, ignoring case.
func UserIDByEmail(ctx context.Context, db DB, email string) (uuid.UUID, error) {
	rows, err := db.Query(ctx, `SELECT id FROM users WHERE lower(email) = lower($1) AND deleted_at IS NULL ORDER BY created_at LIMIT 1`, email)
	if err != nil {
		return uuid.Nil, fmt.Errorf("queries: user by email: %w", err)
	}
	return one(rows, pgx.RowTo[uuid.UUID], "user")
}

// UserByID looks up a user with their profile.
func UserByID(id uuid.UUID) Lookup[User] {
	return Lookup[User]{"user", `SELECT u.id, u.email, u.name, u.personal_workspace_id, u.created_at,
			u.first_name, u.last_name, u.currency, u.language, u.theme, u.notifications_enabled, u.has_completed_onboarding
		FROM users u WHERE u.id = $1`, []any{id}, func(row pgx.CollectableRow) (User, error) {
		var u User
		err := row.Scan(userFields(&u)...)
		return u, err
	}}
}

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	ID         uuid.UUID       `json:"id"`
	Entity     string          `json:"entity"`
	EntityID   string          `json:"entityId"`
	Action     string          `json:"action"`
	ActorType  string          `json:"actorType"`
	ActorID    string          `json:"actorId"`
	UserAgent  *string         `json:"userAgent"`
	RequestID  *string         `json:"requestId"`
	OccurredAt time.Time       `json:"occurredAt"`
	Changes    json.RawMessage `json:"changes"`
}

// AuditFilter selects audit entries.
type AuditFilter struct {
	Entity   string
	Action   string
	From, To *time.Time
	Limit    int
	Offset   int
}

// Audit lists a workspace's audit entries, newest first, with the count of all matches.
func Audit(ctx context.Context, db DB, workspaceID uuid.UUID, f AuditFilter) ([]AuditEntry, int, error) {
	where := []string{"workspace_id = $1"}
	args := []any{workspaceID}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.Entity != "" {
		add("entity = $%d", f.Entity)
	}
	if f.Action != "" {
		add("action = $%d", f.Action)
	}
	if f.From != nil {
		add("occurred_at >= $%d", *f.From)
	}
	if f.To != nil {
		add("occurred_at <= $%d", *f.To)
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("queries: count audit: %w", err)
	}
	args = append(args, f.Limit, f.Offset)
	rows, err := db.Query(ctx, fmt.Sprintf(`SELECT event_id, entity, entity_id, action, actor_type, actor_id, user_agent,
			request_id, occurred_at, changes FROM audit_log WHERE %s
		ORDER BY occurred_at DESC, version DESC, event_id DESC LIMIT $%d OFFSET $%d`, cond, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("queries: audit: %w", err)
	}
	entries, err := all(rows, func(row pgx.CollectableRow) (AuditEntry, error) {
		var e AuditEntry
		err := row.Scan(&e.ID, &e.Entity, &e.EntityID, &e.Action, &e.ActorType, &e.ActorID, &e.UserAgent, &e.RequestID, &e.OccurredAt, &e.Changes)
		return e, err
	}, "audit")
	return entries, total, err
}
