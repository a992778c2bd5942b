package domain

import (
	"strings"

	"github.com/google/uuid"
)

// AddMember gives a known user a role in a team workspace.
type AddMember struct {
	UserID    uuid.UUID
	Role      string
	ActorRole string
}

// Decide checks the workspace takes members and the actor may grant the role.
func (c AddMember) Decide(w *Workspace) ([]Event, error) {
	if err := checkGrant(w, c.ActorRole, c.Role); err != nil {
		return nil, err
	}
	if _, ok := w.Members[c.UserID]; ok {
		return nil, Conflict("CONFLICT", "the user is already a member")
	}
	return []Event{&MemberAdded{UserID: c.UserID, Role: c.Role}}, nil
}

// InviteMember records an invitation for an email nobody has signed in with yet.
type InviteMember struct {
	Email     string
	Role      string
	InvitedBy uuid.UUID
	ActorRole string
}

// Decide checks the invitation like a membership and that it is new.
func (c InviteMember) Decide(w *Workspace) ([]Event, error) {
	if err := checkGrant(w, c.ActorRole, c.Role); err != nil {
		return nil, err
	}
	email := strings.ToLower(c.Email)
	if _, ok := w.Invitations[email]; ok {
		return nil, Conflict("CONFLICT", "%s is already invited", email)
	}
	return []Event{&MemberInvited{Email: email, Role: c.Role, InvitedBy: c.InvitedBy}}, nil
}

// InvitationID names an invitation by its email, in the audit log and in the API: the
// same email invited again is the same invitation.
func InvitationID(email string) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(strings.ToLower(email)))
}

// CancelInvitation withdraws an open invitation before anyone takes it up.
type CancelInvitation struct {
	InvitationID uuid.UUID
	ActorRole    string
}

// Decide checks the invitation is open, and that the actor could have made it: only an
// owner withdraws an invitation to be an owner.
//
// Errors: INVITATION_NOT_FOUND, FORBIDDEN.
func (c CancelInvitation) Decide(w *Workspace) ([]Event, error) {
	for email, role := range w.Invitations {
		if InvitationID(email) != c.InvitationID {
			continue
		}
		if role == RoleOwner && c.ActorRole != RoleOwner {
			return nil, Forbidden("only an owner can withdraw an invitation to be an owner")
		}
		return []Event{&InvitationCancelled{Email: email, Role: role}}, nil
	}
	return nil, NotFound("INVITATION_NOT_FOUND", "invitation %s is not open in this workspace", c.InvitationID)
}

// JoinByInvitation makes a user who just signed in a member, if their email was invited.
type JoinByInvitation struct {
	UserID uuid.UUID
	Email  string
}

// Decide returns the membership, or nothing when there is no invitation.
func (c JoinByInvitation) Decide(w *Workspace) ([]Event, error) {
	email := strings.ToLower(c.Email)
	role, ok := w.Invitations[email]
	if _, member := w.Members[c.UserID]; !ok || member {
		return nil, nil
	}
	return []Event{&MemberAdded{UserID: c.UserID, Role: role, Email: email}}, nil
}

// ChangeMemberRole changes a member's role.
type ChangeMemberRole struct {
	UserID    uuid.UUID
	Role      string
	ActorRole string
}

// Decide applies the owner rules: only owners make or unmake owners, and a workspace
// keeps at least one.
func (c ChangeMemberRole) Decide(w *Workspace) ([]Event, error) {
	current, err := w.member(c.UserID)
	if err != nil {
		return nil, err
	}
	if err := checkGrant(w, c.ActorRole, c.Role); err != nil {
		return nil, err
	}
	if err := w.checkOwnerLeaves(c.ActorRole, current); err != nil && c.Role != RoleOwner {
		return nil, err
	}
	if current == c.Role {
		return nil, nil
	}
	return []Event{&MemberRoleChanged{UserID: c.UserID, Before: current, After: c.Role}}, nil
}

// RemoveMember takes a member out of a workspace, and revokes the API keys they made
// in it: a key lasts no longer than the membership it was made in.
type RemoveMember struct {
	UserID    uuid.UUID
	ActorRole string
}

// Decide applies the owner rules.
func (c RemoveMember) Decide(w *Workspace) ([]Event, error) {
	current, err := w.member(c.UserID)
	if err != nil {
		return nil, err
	}
	if err := w.checkOwnerLeaves(c.ActorRole, current); err != nil {
		return nil, err
	}
	removed := []Event{&MemberRemoved{UserID: c.UserID, Role: current}}
	return append(removed, w.keyRevocations(KeyRevokedMemberRemoved, &c.UserID)...), nil
}

// checkGrant checks that the workspace takes members and the actor may give the role.
func checkGrant(w *Workspace, actorRole, role string) error {
	if w.Kind != WorkspaceTeam {
		return Conflict("CONFLICT", "a personal workspace has no other members; create a team workspace")
	}
	if role == RoleOwner && actorRole != RoleOwner {
		return Forbidden("only an owner can make owners")
	}
	return nil
}

// checkOwnerLeaves guards a member losing their role: an owner's only by an owner, and
// never the last owner's.
func (w *Workspace) checkOwnerLeaves(actorRole, current string) error {
	if current != RoleOwner {
		return nil
	}
	if actorRole != RoleOwner {
		return Forbidden("only an owner can change or remove an owner")
	}
	owners := 0
	for _, role := range w.Members {
		if role == RoleOwner {
			owners++
		}
	}
	if owners <= 1 {
		return Conflict("CONFLICT", "a workspace keeps at least one owner")
	}
	return nil
}

func (w *Workspace) member(id uuid.UUID) (string, error) {
	role, ok := w.Members[id]
	if !ok {
		return "", NotFound("MEMBER_NOT_FOUND", "user %s is not a member of this workspace", id)
	}
	return role, nil
}
