package domain

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// MaxLiveAPIKeys is how many live keys (neither revoked nor expired, in workspaces not
// deleted) a person may hold across all their workspaces: enough for every integration
// of a household or a team, and a bound on what one account can mint.
const MaxLiveAPIKeys = 50

// CreateAPIKey records a key for the workspace; the caller keeps the secret. It runs
// through ledger.BindAPIKey, which counts the creator's live keys first.
type CreateAPIKey struct {
	KeyID       uuid.UUID
	Name        string
	Description *string
	Scopes      []string
	Prefix      string
	Hash        []byte
	ExpiresAt   *time.Time
	CreatedBy   uuid.UUID
	// Writes is KeyWritesApply (or empty) or KeyWritesPropose.
	Writes string
	Now    time.Time
	// LiveKeys is how many live keys the creator holds in every workspace, counted by
	// ledger.BindAPIKey, in the call's transaction, before each decision.
	LiveKeys int
}

// Decide checks the scopes, the expiry and the creator's count of keys, and records the
// creator's role with the key, which bounds its scopes for good.
//
// Errors: MEMBER_NOT_FOUND, VALIDATION_ERROR (scopes, expiresAt), API_KEY_LIMIT_REACHED
// (409: the creator holds MaxLiveAPIKeys live keys already).
func (c *CreateAPIKey) Decide(w *Workspace) ([]Event, error) {
	role, err := w.member(c.CreatedBy)
	if err != nil {
		return nil, err
	}
	for _, s := range c.Scopes {
		if !KnownScope(s) {
			return nil, InvalidField("scopes", "%q is not a scope", s)
		}
	}
	if c.Writes != "" && !slices.Contains(KeyWrites, c.Writes) {
		return nil, InvalidField("writes", "must be one of %v", KeyWrites)
	}
	if c.Writes == KeyWritesApply {
		c.Writes = ""
	}
	if c.ExpiresAt != nil && !c.ExpiresAt.After(c.Now) {
		return nil, InvalidField("expiresAt", "must be in the future")
	}
	if c.LiveKeys >= MaxLiveAPIKeys {
		err := Conflict("API_KEY_LIMIT_REACHED", "you hold %d live API keys, the most a person may; revoke one you no longer use", c.LiveKeys)
		err.Details = map[string]int{"limit": MaxLiveAPIKeys}
		return nil, err
	}
	return []Event{&APIKeyCreated{
		KeyID: c.KeyID, Name: c.Name, Description: c.Description, Scopes: c.Scopes, Prefix: c.Prefix,
		Hash: c.Hash, ExpiresAt: c.ExpiresAt, CreatedBy: c.CreatedBy, Role: role, Writes: c.Writes,
	}}, nil
}

// RevokeAPIKey revokes a key: its creator, or an owner or admin, may.
type RevokeAPIKey struct {
	KeyID     uuid.UUID
	ActorID   uuid.UUID
	ActorRole string
}

// Decide checks the key is live and the actor may revoke it.
func (c RevokeAPIKey) Decide(w *Workspace) ([]Event, error) {
	key, ok := w.APIKeys[c.KeyID]
	if !ok || key.Revoked {
		return nil, NotFound("API_KEY_NOT_FOUND", "API key %s not found", c.KeyID)
	}
	if key.CreatedBy != c.ActorID && c.ActorRole != RoleOwner && c.ActorRole != RoleAdmin {
		return nil, Forbidden("only the key's creator, an owner or an admin can revoke it")
	}
	return []Event{&APIKeyRevoked{KeyID: c.KeyID}}, nil
}

// keyRevocations revokes, for reason, the live keys of the workspace that creator made,
// or every live key when creator is nil, in the order of their ids. A command that ends
// what a key stands on (a membership, the workspace, an account) appends them with its
// own events, so that the audit log tells of each key and why it went.
func (w *Workspace) keyRevocations(reason string, creator *uuid.UUID) []Event {
	var ids []uuid.UUID
	for id, key := range w.APIKeys {
		if !key.Revoked && (creator == nil || key.CreatedBy == *creator) {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	out := make([]Event, len(ids))
	for i, id := range ids {
		out[i] = &APIKeyRevoked{KeyID: id, Reason: reason}
	}
	return out
}
