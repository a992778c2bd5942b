package commands

import (
	"time"

	"github.com/google/uuid"
)

// CreateAPIKey records a key for the workspace; the caller keeps the secret.
type CreateAPIKey struct {
	KeyID       uuid.UUID
	Name        string
	Description *string
	Scopes      []string
	Prefix      string
	Hash        []byte
	ExpiresAt   *time.Time
	CreatedBy   uuid.UUID
	Now         time.Time
}

// Decide checks the scopes and the expiry.
func (c CreateAPIKey) Decide(w *Workspace) ([]NewEvent, error) {
	if _, err := w.member(c.CreatedBy); err != nil {
		return nil, err
	}
	for _, s := range c.Scopes {
		if !KnownScope(s) {
			return nil, InvalidField("scopes", "%q is not a scope", s)
		}
	}
	if c.ExpiresAt != nil && !c.ExpiresAt.After(c.Now) {
		return nil, InvalidField("expiresAt", "must be in the future")
	}
	return []NewEvent{{TypeAPIKeyCreated, &APIKeyCreated{
		KeyID: c.KeyID, Name: c.Name, Description: c.Description, Scopes: c.Scopes, Prefix: c.Prefix,
		Hash: c.Hash, ExpiresAt: c.ExpiresAt, CreatedBy: c.CreatedBy,
	}}}, nil
}

// RevokeAPIKey revokes a key: its creator, or an owner or admin, may.
type RevokeAPIKey struct {
	KeyID     uuid.UUID
	ActorID   uuid.UUID
	ActorRole string
}

// Decide checks the key is live and the actor may revoke it.
func (c RevokeAPIKey) Decide(w *Workspace) ([]NewEvent, error) {
	key, ok := w.APIKeys[c.KeyID]
	if !ok || key.Revoked {
		return nil, NotFound("API_KEY_NOT_FOUND", "API key %s not found", c.KeyID)
	}
	if key.CreatedBy != c.ActorID && c.ActorRole != RoleOwner && c.ActorRole != RoleAdmin {
		return nil, Forbidden("only the key's creator, an owner or an admin can revoke it")
	}
	return []NewEvent{{TypeAPIKeyRevoked, &APIKeyRevoked{KeyID: c.KeyID}}}, nil
}
