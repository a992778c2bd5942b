package domain

import (
	"strings"

	"github.com/google/uuid"
)

// A workspace's language is the language of the text the service itself writes into
// its records: the concept of a goal's deposit or withdrawal, of a debt's payment. It is
// a profile language code ("en", "es-MX"); empty, as in workspaces created before it
// existed, is English. A team takes its creator's profile language unless the request
// names one; a personal workspace follows its owner's profile (docs/api.md, "A workspace's
// language").

// TypeWorkspaceLanguageChanged: the workspace's language changed.
const TypeWorkspaceLanguageChanged = "workspace.language_changed.v1"

// WorkspaceLanguageChanged changes the language of the text the service writes.
type WorkspaceLanguageChanged struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// EventType names WorkspaceLanguageChanged in history.
func (WorkspaceLanguageChanged) EventType() string { return TypeWorkspaceLanguageChanged }

func (WorkspaceLanguageChanged) sealed() {}

// SetWorkspaceLanguage changes a workspace's language; nothing when it is the same.
//
// Errors: FORBIDDEN for anyone but an owner.
type SetWorkspaceLanguage struct {
	ActorID  uuid.UUID
	Language string
}

// Decide checks the actor owns the workspace.
func (c SetWorkspaceLanguage) Decide(w *Workspace) ([]Event, error) {
	if w.Members[c.ActorID] != RoleOwner {
		return nil, Forbidden("only an owner can change the workspace's language")
	}
	if c.Language == w.Language {
		return nil, nil
	}
	return []Event{&WorkspaceLanguageChanged{Before: w.Language, After: c.Language}}, nil
}

// says is the words in the workspace's language: es in Spanish, en otherwise.
func (w *Workspace) says(en, es string) string {
	if strings.HasPrefix(strings.ToLower(w.Language), "es") {
		return es
	}
	return en
}
