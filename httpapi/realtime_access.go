package httpapi

import (
	"context"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// Reasons a stream's user lost access, sent in the revoked event and in the 403 of a
// stream refused for them.
const (
	revokedAccountDeleted   = "account_deleted"
	revokedWorkspaceDeleted = "workspace_deleted"
	revokedMemberRemoved    = "member_removed"
	revokedRoleChanged      = "role_changed"
)

// realtimeAccessEvents change who may read a workspace: a stream that sees one on its
// workspace's subject has its instance check access at once instead of at the next tick.
var realtimeAccessEvents = map[string]bool{
	domain.TypeMemberRemoved:     true,
	domain.TypeMemberRoleChanged: true,
	domain.TypeWorkspaceDeleted:  true,
}

// realtimeAccessSQL reads, for each row r carrying user_id and workspace_id, what
// decides whether that user may read that workspace's stream (see realtimeAccess).
const (
	realtimeAccessColumns = `u.id IS NULL OR u.deleted_at IS NOT NULL, w.id IS NULL OR w.deleted_at IS NOT NULL, m.role`
	realtimeAccessJoins   = ` LEFT JOIN users u ON u.id = r.user_id
		LEFT JOIN workspaces w ON w.id = r.workspace_id
		LEFT JOIN workspace_members m ON m.workspace_id = r.workspace_id AND m.user_id = r.user_id`
)

// realtimeAccess is what decides whether a user may read a workspace's stream.
type realtimeAccess struct {
	accountDeleted, workspaceDeleted bool
	role                             *string // nil: not a member
}

// lost returns why the user may not read the stream, or "" if they may: a member of a
// live workspace, with a live account, whose role grants what the token needed.
func (a realtimeAccess) lost() string {
	switch {
	case a.accountDeleted:
		return revokedAccountDeleted
	case a.workspaceDeleted:
		return revokedWorkspaceDeleted
	case a.role == nil:
		return revokedMemberRemoved
	case !domain.Grants(domain.RoleScopes(*a.role), scopeTransactionsRead):
		return revokedRoleChanged
	}
	return ""
}

// admitStream checks that a realtime token's user may still read its workspace and
// that the token, its user and the workspace each have a stream left (see longAnswers),
// and records a new stream open on this instance. Errors: 403 FORBIDDEN
// (details.reason says why access was lost), 429 TOO_MANY_STREAMS.
func (h *longAnswers) admitStream(ctx context.Context, c realtimeClaims) (*longAnswer, error) {
	return h.admit(ctx, answerClaim{kind: kindRealtime, user: c.UserID, workspace: c.WorkspaceID, token: c.key[:]}, func(b *pgx.Batch) func() error {
		var access realtimeAccess
		b.Queue(`SELECT `+realtimeAccessColumns+` FROM (VALUES ($1::uuid, $2::uuid)) r (user_id, workspace_id)`+realtimeAccessJoins,
			c.UserID, c.WorkspaceID).QueryRow(func(row pgx.Row) error {
			return row.Scan(&access.accountDeleted, &access.workspaceDeleted, &access.role)
		})
		return func() error {
			if reason := access.lost(); reason != "" {
				return &apiError{Status: http.StatusForbidden, Code: "FORBIDDEN",
					Message: "the token's user may no longer read this workspace's events", Details: map[string]string{"reason": reason}}
			}
			return nil
		}
	})
}
