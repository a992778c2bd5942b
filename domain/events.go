package domain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Event type names are explicit, versioned strings: stored history must never depend on
// Go type names. A payload change that old readers cannot take gets a new version.
const (
	TypeUserRegistered      = "user.registered.v1"
	TypeUserIdentityChanged = "user.identity_changed.v1"
	TypeWorkspaceCreated    = "workspace.created.v1"
	TypeWalletCreated       = "wallet.created.v1"
	TypeWalletUpdated       = "wallet.updated.v1"
	TypeWalletArchived      = "wallet.archived.v1"
	TypeCategoryCreated     = "category.created.v1"
	TypeCategoryUpdated     = "category.updated.v1"
	TypeCategoryArchived    = "category.archived.v1"
	TypeTagCreated          = "tag.created.v1"
	TypeTagUpdated          = "tag.updated.v1"
	TypeTagArchived         = "tag.archived.v1"
	TypeTransactionCreated  = "transaction.created.v1"
	TypeTransactionUpdated  = "transaction.updated.v1"
	TypeTransactionDeleted  = "transaction.deleted.v1"
	TypeUserProfileUpdated  = "user.profile_updated.v1"
	TypeUserDeleted         = "user.deleted.v1"
	TypeWorkspaceDeleted    = "workspace.deleted.v1"
	TypeMemberAdded         = "member.added.v1"
	TypeMemberInvited       = "member.invited.v1"
	TypeMemberRoleChanged   = "member.role_changed.v1"
	TypeMemberRemoved       = "member.removed.v1"
	// TypeInvitationCancelled withdraws an invitation nobody has taken up yet.
	TypeInvitationCancelled = "member.invitation_cancelled.v1"
	TypeAPIKeyCreated       = "api_key.created.v1"
	TypeAPIKeyRevoked       = "api_key.revoked.v1"
)

// UserRegistered: a person signed in for the first time.
type UserRegistered struct {
	UserID              uuid.UUID `json:"userId"`
	Subject             string    `json:"subject"`
	Email               string    `json:"email"`
	Name                string    `json:"name,omitempty"`
	PersonalWorkspaceID uuid.UUID `json:"personalWorkspaceId"`
}

// UserIdentityChanged: the identity provider now reports another email or name.
type UserIdentityChanged struct {
	UserID uuid.UUID `json:"userId"`
	Email  string    `json:"email"`
	Name   string    `json:"name,omitempty"`
}

// WorkspaceCreated opens a workspace stream; the owner becomes its first member.
type WorkspaceCreated struct {
	WorkspaceID uuid.UUID `json:"workspaceId"`
	Kind        string    `json:"kind"`
	Name        string    `json:"name"`
	Currency    string    `json:"currency"`
	OwnerID     uuid.UUID `json:"ownerId"`
	// Language is the workspace's language (language.go); empty is English.
	Language string `json:"language,omitempty"`
}

// WalletFields are a wallet's editable fields.
type WalletFields struct {
	Name           string          `json:"name"`
	Description    *string         `json:"description"`
	Type           string          `json:"type"`
	Currency       string          `json:"currency"`
	CardColor      string          `json:"cardColor"`
	InitialBalance decimal.Decimal `json:"initialBalance"`
	Clabe          *string         `json:"clabe"`
	Provider       *string         `json:"provider"`
	IsDefault      bool            `json:"isDefault"`
}

// WalletCreated adds a wallet whose balance starts at its initial balance.
type WalletCreated struct {
	WalletID uuid.UUID `json:"walletId"`
	WalletFields
}

// WalletUpdated replaces a wallet's fields. A changed initial balance moves the balance
// by the same difference.
type WalletUpdated struct {
	WalletID uuid.UUID    `json:"walletId"`
	Before   WalletFields `json:"before"`
	After    WalletFields `json:"after"`
}

// WalletArchived hides a wallet from listings and from new transactions.
type WalletArchived struct {
	WalletID uuid.UUID `json:"walletId"`
}

// CategoryFields are a category's editable fields.
type CategoryFields struct {
	Name        string     `json:"name"`
	Icon        string     `json:"icon"`
	Description *string    `json:"description"`
	Color       string     `json:"color"`
	IsDefault   bool       `json:"isDefault"`
	TagID       *uuid.UUID `json:"tagId"`
}

// CategoryCreated adds a category.
type CategoryCreated struct {
	CategoryID uuid.UUID `json:"categoryId"`
	CategoryFields
}

// CategoryUpdated replaces a category's fields.
type CategoryUpdated struct {
	CategoryID uuid.UUID      `json:"categoryId"`
	Before     CategoryFields `json:"before"`
	After      CategoryFields `json:"after"`
}

// CategoryArchived hides a category; its transactions keep it.
type CategoryArchived struct {
	CategoryID uuid.UUID `json:"categoryId"`
}

// TagCreated adds a tag.
type TagCreated struct {
	TagID uuid.UUID `json:"tagId"`
	Name  string    `json:"name"`
	Color string    `json:"color"`
}

// TagFields are a tag's editable fields.
type TagFields struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// TagUpdated replaces a tag's fields.
type TagUpdated struct {
	TagID  uuid.UUID `json:"tagId"`
	Before TagFields `json:"before"`
	After  TagFields `json:"after"`
}

// TagArchived retires a tag; what carries it keeps it.
type TagArchived struct {
	TagID uuid.UUID `json:"tagId"`
}

// Posting is one wallet balance movement caused by a transaction event. Decide computes
// them so that projectors and replays apply balances without re-deriving rules.
type Posting struct {
	WalletID uuid.UUID       `json:"walletId"`
	Amount   decimal.Decimal `json:"amount"`
}

// TransactionCreated records a money movement.
type TransactionCreated struct {
	TransactionID     uuid.UUID        `json:"transactionId"`
	Type              string           `json:"type"`
	Amount            decimal.Decimal  `json:"amount"`
	Currency          string           `json:"currency"`
	DestinationAmount *decimal.Decimal `json:"destinationAmount"`
	Date              string           `json:"date"`
	Concept           *string          `json:"concept"`
	Description       *string          `json:"description"`
	WalletID          uuid.UUID        `json:"walletId"`
	ToWalletID        *uuid.UUID       `json:"toWalletId"`
	CategoryID        *uuid.UUID       `json:"categoryId"`
	GoalID            *uuid.UUID       `json:"goalId"`
	DebtID            *uuid.UUID       `json:"debtId"`
	RecurringID       *uuid.UUID       `json:"recurringId,omitempty"`
	TagID             *uuid.UUID       `json:"tagId"`
	ReferenceNumber   *string          `json:"referenceNumber"`
	AttachmentURL     *string          `json:"attachmentUrl"`
	// Cleared is left out while false, so that events recorded before it existed read
	// as they were written.
	Cleared  bool      `json:"cleared,omitempty"`
	Postings []Posting `json:"postings"`
	Effects  *Effects  `json:"effects,omitempty"`
}

// TransactionChanges lists the fields an update sets; absent fields keep their value.
type TransactionChanges struct {
	Amount            Nullable[decimal.Decimal] `json:"amount,omitzero"`
	Currency          Nullable[string]          `json:"currency,omitzero"`
	DestinationAmount Nullable[decimal.Decimal] `json:"destinationAmount,omitzero"`
	Date              Nullable[string]          `json:"date,omitzero"`
	Concept           Nullable[string]          `json:"concept,omitzero"`
	Description       Nullable[string]          `json:"description,omitzero"`
	WalletID          Nullable[uuid.UUID]       `json:"walletId,omitzero"`
	ToWalletID        Nullable[uuid.UUID]       `json:"toWalletId,omitzero"`
	CategoryID        Nullable[uuid.UUID]       `json:"categoryId,omitzero"`
	TagID             Nullable[uuid.UUID]       `json:"tagId,omitzero"`
	ReferenceNumber   Nullable[string]          `json:"referenceNumber,omitzero"`
	AttachmentURL     Nullable[string]          `json:"attachmentUrl,omitzero"`
	Cleared           Nullable[bool]            `json:"cleared,omitzero"`
}

// TransactionUpdated changes a transaction; Postings move balances, and Effects goals
// and debts, from the old effect to the new one.
type TransactionUpdated struct {
	TransactionID uuid.UUID          `json:"transactionId"`
	Changes       TransactionChanges `json:"changes"`
	Postings      []Posting          `json:"postings"`
	Effects       *Effects           `json:"effects,omitempty"`
}

// TransactionDeleted soft-deletes a transaction; Postings and Effects revert its effect.
type TransactionDeleted struct {
	TransactionID uuid.UUID `json:"transactionId"`
	Postings      []Posting `json:"postings"`
	Effects       *Effects  `json:"effects,omitempty"`
}

// Profile is a user's editable profile (spec 2.8).
type Profile struct {
	FirstName              *string `json:"firstName"`
	LastName               *string `json:"lastName"`
	Currency               *string `json:"currency"`
	Language               *string `json:"language"`
	Theme                  string  `json:"theme"`
	NotificationsEnabled   bool    `json:"notificationsEnabled"`
	HasCompletedOnboarding bool    `json:"hasCompletedOnboarding"`
}

// UserProfileUpdated replaces a user's profile.
type UserProfileUpdated struct {
	UserID uuid.UUID `json:"userId"`
	Before Profile   `json:"before"`
	After  Profile   `json:"after"`
}

// UserDeleted closes an account: its sessions and API keys stop working.
type UserDeleted struct {
	UserID uuid.UUID `json:"userId"`
}

// WorkspaceDeleted closes a workspace: nobody can act in it any more.
type WorkspaceDeleted struct {
	WorkspaceID uuid.UUID `json:"workspaceId"`
}

// MemberAdded gives a user a role in the workspace; Email names the invitation it
// fulfils, if any.
type MemberAdded struct {
	UserID uuid.UUID `json:"userId"`
	Role   string    `json:"role"`
	Email  string    `json:"email,omitempty"`
}

// MemberInvited records an invitation for someone not seen yet, who joins at first
// sign-in.
type MemberInvited struct {
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	InvitedBy uuid.UUID `json:"invitedBy"`
}

// InvitationCancelled withdraws an open invitation: the email no longer joins at
// first sign-in.
type InvitationCancelled struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

// MemberRoleChanged changes a member's role.
type MemberRoleChanged struct {
	UserID uuid.UUID `json:"userId"`
	Before string    `json:"before"`
	After  string    `json:"after"`
}

// MemberRemoved takes a member out of the workspace.
type MemberRemoved struct {
	UserID uuid.UUID `json:"userId"`
	Role   string    `json:"role"`
}

// APIKeyCreated records a key by the SHA-256 hash of its secret; the secret itself is
// never stored. A field tagged secret is left out of the history's export: the chain
// hashes a commitment to it (eventstore.SecretFields).
type APIKeyCreated struct {
	KeyID       uuid.UUID  `json:"keyId"`
	Name        string     `json:"name"`
	Description *string    `json:"description"`
	Scopes      []string   `json:"scopes"`
	Prefix      string     `json:"prefix"`
	Hash        []byte     `json:"hash" secret:"true"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	CreatedBy   uuid.UUID  `json:"createdBy"`
	// Role is the creator's role when the key was made: the key never holds a scope that
	// role did not grant (KeyScopes), whatever the creator's role becomes. Events stored
	// before it was recorded lack it; Upcaster gives them the role the creator held then.
	Role string `json:"role,omitempty"`
}

// APIKeyRevoked makes a key unusable.
type APIKeyRevoked struct {
	KeyID uuid.UUID `json:"keyId"`
	// Reason says why a key was revoked by no request to revoke it: its creator left the
	// workspace, the workspace or the creator's account was deleted. Empty for a key
	// revoked by name.
	Reason string `json:"reason,omitempty"`
}

// The reasons of a revocation that ends a key with what it stood on (APIKeyRevoked.Reason).
const (
	KeyRevokedMemberRemoved    = "member_removed"
	KeyRevokedWorkspaceDeleted = "workspace_deleted"
	KeyRevokedAccountDeleted   = "account_deleted"
)

// NewEvent is an event decided by a command, before it is stored.
type NewEvent struct {
	Type string
	Data any
}

// eventTypes is the one registry of event types: each stored type name and the payload
// it decodes into. A name is written into history for good, so a payload's shape
// changes under a new name (a new version), never under an old one.
var eventTypes = map[string]func() any{
	TypeUserRegistered:              payload[UserRegistered],
	TypeUserIdentityChanged:         payload[UserIdentityChanged],
	TypeUserProfileUpdated:          payload[UserProfileUpdated],
	TypeUserDeleted:                 payload[UserDeleted],
	TypeWorkspaceCreated:            payload[WorkspaceCreated],
	TypeWorkspaceDeleted:            payload[WorkspaceDeleted],
	TypeWorkspaceLanguageChanged:    payload[WorkspaceLanguageChanged],
	TypeMemberAdded:                 payload[MemberAdded],
	TypeMemberInvited:               payload[MemberInvited],
	TypeMemberRoleChanged:           payload[MemberRoleChanged],
	TypeMemberRemoved:               payload[MemberRemoved],
	TypeInvitationCancelled:         payload[InvitationCancelled],
	TypeAPIKeyCreated:               payload[APIKeyCreated],
	TypeAPIKeyRevoked:               payload[APIKeyRevoked],
	TypeWalletCreated:               payload[WalletCreated],
	TypeWalletUpdated:               payload[WalletUpdated],
	TypeWalletArchived:              payload[WalletArchived],
	TypeCategoryCreated:             payload[CategoryCreated],
	TypeCategoryUpdated:             payload[CategoryUpdated],
	TypeCategoryArchived:            payload[CategoryArchived],
	TypeTagCreated:                  payload[TagCreated],
	TypeTagUpdated:                  payload[TagUpdated],
	TypeTagArchived:                 payload[TagArchived],
	TypeTransactionCreated:          payload[TransactionCreated],
	TypeTransactionUpdated:          payload[TransactionUpdated],
	TypeTransactionDeleted:          payload[TransactionDeleted],
	TypeBudgetCreated:               payload[BudgetCreated],
	TypeBudgetUpdated:               payload[BudgetUpdated],
	TypeBudgetDeleted:               payload[BudgetDeleted],
	TypeBudgetThresholdReached:      payload[BudgetThresholdReached],
	TypeGoalCreated:                 payload[GoalCreated],
	TypeGoalUpdated:                 payload[GoalUpdated],
	TypeGoalDeleted:                 payload[GoalDeleted],
	TypeDebtCreated:                 payload[DebtCreated],
	TypeDebtUpdated:                 payload[DebtUpdated],
	TypeDebtDeleted:                 payload[DebtDeleted],
	TypeRecurringCreated:            payload[RecurringCreated],
	TypeRecurringUpdated:            payload[RecurringUpdated],
	TypeRecurringDeleted:            payload[RecurringDeleted],
	TypeRecurringPaid:               payload[RecurringPaid],
	TypeRecurringSkipped:            payload[RecurringSkipped],
	TypeExchangeRatesSet:            payload[ExchangeRatesSet],
	TypeWebhookCreated:              payload[WebhookCreated],
	TypeWebhookUpdated:              payload[WebhookUpdated],
	TypeWebhookDeleted:              payload[WebhookDeleted],
	TypeWebhookSecretRotated:        payload[WebhookSecretRotated],
	TypeWhatsAppLinked:              payload[WhatsAppLinked],
	TypeWhatsAppUnlinked:            payload[WhatsAppUnlinked],
	TypeWhatsAppSuspended:           payload[WhatsAppSuspended],
	TypeWhatsAppFingerprintRecorded: payload[WhatsAppFingerprintRecorded],
	TypeWhatsAppWorkspaceChanged:    payload[WhatsAppWorkspaceChanged],
}

// payload makes an empty payload of type T to decode into.
func payload[T any]() any { return new(T) }

// DecodeEvent parses a stored payload into its typed struct (a pointer).
func DecodeEvent(eventType string, data []byte) (any, error) {
	factory, ok := eventTypes[eventType]
	if !ok {
		return nil, fmt.Errorf("domain: unknown event type %q", eventType)
	}
	v := factory()
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("domain: decode %s: %w", eventType, err)
	}
	return v, nil
}

// EventTypes lists every event type name, sorted: for the tests that push each through
// every consumer of the log (projections, audit, webhooks).
func EventTypes() []string {
	return slices.Sorted(maps.Keys(eventTypes))
}
