package domain

import "github.com/google/uuid"

// Themes a profile may choose.
var Themes = []string{"light", "dark", "system"}

// UpdateProfile changes some fields of the caller's profile.
type UpdateProfile struct {
	FirstName              Nullable[string]
	LastName               Nullable[string]
	Currency               Nullable[string]
	Language               Nullable[string]
	Theme                  Nullable[string]
	NotificationsEnabled   Nullable[bool]
	HasCompletedOnboarding Nullable[bool]
}

// Decide returns the profile update, or nothing when nothing changes.
func (c UpdateProfile) Decide(u *User) ([]Event, error) {
	after := u.Profile
	setPtr(&after.FirstName, c.FirstName)
	setPtr(&after.LastName, c.LastName)
	setPtr(&after.Currency, c.Currency)
	setPtr(&after.Language, c.Language)
	setValue(&after.Theme, c.Theme)
	setValue(&after.NotificationsEnabled, c.NotificationsEnabled)
	setValue(&after.HasCompletedOnboarding, c.HasCompletedOnboarding)
	before := u.Profile
	if eqPtr(after.FirstName, before.FirstName) && eqPtr(after.LastName, before.LastName) && eqPtr(after.Currency, before.Currency) &&
		eqPtr(after.Language, before.Language) && after.Theme == before.Theme &&
		after.NotificationsEnabled == before.NotificationsEnabled && after.HasCompletedOnboarding == before.HasCompletedOnboarding {
		return nil, nil
	}
	return []Event{&UserProfileUpdated{UserID: u.ID, Before: before, After: after}}, nil
}

// DeleteUser closes the caller's account and, in the same transaction, their personal
// workspace with its API keys. The projection of the account's deletion revokes the
// keys they made in other workspaces too.
type DeleteUser struct{}

// DecideUser closes the account.
func (DeleteUser) DecideUser(u *User) ([]Event, error) {
	return []Event{&UserDeleted{UserID: u.ID}}, nil
}

// Decide closes the personal workspace the command runs in, revoking its keys.
func (DeleteUser) Decide(w *Workspace) ([]Event, error) {
	if w.Kind != WorkspacePersonal {
		return nil, InvalidField("X-Workspace-Id", "the account is deleted from its personal workspace")
	}
	return w.deleted(KeyRevokedAccountDeleted), nil
}

// CreateWorkspace opens a team workspace owned by OwnerID. A new stream has no state
// to decide against, so the command gives the event that opens it.
//
// Defaults: Currency empty is DefaultCurrency; Language empty is English.
type CreateWorkspace struct {
	WorkspaceID uuid.UUID
	Name        string
	Currency    string
	OwnerID     uuid.UUID
	Language    string
}

// Opened fills the defaults and returns the event that opens the workspace.
func (c CreateWorkspace) Opened() *WorkspaceCreated {
	return &WorkspaceCreated{WorkspaceID: c.WorkspaceID, Kind: WorkspaceTeam, Name: c.Name,
		Currency: stringOr(c.Currency, DefaultCurrency), OwnerID: c.OwnerID, Language: c.Language}
}

// DeleteWorkspace closes a team workspace, revoking its keys; only an owner may.
type DeleteWorkspace struct {
	ActorID uuid.UUID
}

// Decide checks the workspace is a team one and the actor owns it.
func (c DeleteWorkspace) Decide(w *Workspace) ([]Event, error) {
	if w.Kind != WorkspaceTeam {
		return nil, Conflict("CONFLICT", "a personal workspace is deleted with the account (DELETE /api/me)")
	}
	if w.Members[c.ActorID] != RoleOwner {
		return nil, Forbidden("only an owner can delete the workspace")
	}
	return w.deleted(KeyRevokedWorkspaceDeleted), nil
}

// deleted closes the workspace and revokes every key still live in it, for reason.
func (w *Workspace) deleted(reason string) []Event {
	closed := []Event{&WorkspaceDeleted{WorkspaceID: w.ID}}
	return append(closed, w.keyRevocations(reason, nil)...)
}
