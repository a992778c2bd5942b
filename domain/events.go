package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"reflect"
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
	TypeImportCommitted     = "import.committed.v1"
	TypeImportUndone        = "import.undone.v1"
	// TypeTransactionMatched links a statement row to a transaction already recorded.
	TypeTransactionMatched   = "transaction.matched.v1"
	TypeTransactionUnmatched = "transaction.unmatched.v1"
	// TypeTransactionsImported records, at once, a part of the transactions a statement
	// import creates.
	TypeTransactionsImported = "transactions.imported.v1"
)

// UserRegistered: a person signed in for the first time.
type UserRegistered struct {
	UserID              uuid.UUID `json:"userId"`
	Subject             string    `json:"subject"`
	Email               string    `json:"email"`
	Name                string    `json:"name,omitempty"`
	PersonalWorkspaceID uuid.UUID `json:"personalWorkspaceId"`
}

// EventType names UserRegistered in history.
func (UserRegistered) EventType() string { return TypeUserRegistered }

func (UserRegistered) sealed() {}

// UserIdentityChanged: the identity provider now reports another email or name.
type UserIdentityChanged struct {
	UserID uuid.UUID `json:"userId"`
	Email  string    `json:"email"`
	Name   string    `json:"name,omitempty"`
}

// EventType names UserIdentityChanged in history.
func (UserIdentityChanged) EventType() string { return TypeUserIdentityChanged }

func (UserIdentityChanged) sealed() {}

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

// EventType names WorkspaceCreated in history.
func (WorkspaceCreated) EventType() string { return TypeWorkspaceCreated }

func (WorkspaceCreated) sealed() {}

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

// EventType names WalletCreated in history.
func (WalletCreated) EventType() string { return TypeWalletCreated }

func (WalletCreated) sealed() {}

// WalletUpdated replaces a wallet's fields. A changed initial balance moves the balance
// by the same difference.
type WalletUpdated struct {
	WalletID uuid.UUID    `json:"walletId"`
	Before   WalletFields `json:"before"`
	After    WalletFields `json:"after"`
}

// EventType names WalletUpdated in history.
func (WalletUpdated) EventType() string { return TypeWalletUpdated }

func (WalletUpdated) sealed() {}

// WalletArchived hides a wallet from listings and from new transactions.
type WalletArchived struct {
	WalletID uuid.UUID `json:"walletId"`
}

// EventType names WalletArchived in history.
func (WalletArchived) EventType() string { return TypeWalletArchived }

func (WalletArchived) sealed() {}

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

// EventType names CategoryCreated in history.
func (CategoryCreated) EventType() string { return TypeCategoryCreated }

func (CategoryCreated) sealed() {}

// CategoryUpdated replaces a category's fields.
type CategoryUpdated struct {
	CategoryID uuid.UUID      `json:"categoryId"`
	Before     CategoryFields `json:"before"`
	After      CategoryFields `json:"after"`
}

// EventType names CategoryUpdated in history.
func (CategoryUpdated) EventType() string { return TypeCategoryUpdated }

func (CategoryUpdated) sealed() {}

// CategoryArchived hides a category; its transactions keep it.
type CategoryArchived struct {
	CategoryID uuid.UUID `json:"categoryId"`
}

// EventType names CategoryArchived in history.
func (CategoryArchived) EventType() string { return TypeCategoryArchived }

func (CategoryArchived) sealed() {}

// TagCreated adds a tag.
type TagCreated struct {
	TagID uuid.UUID `json:"tagId"`
	Name  string    `json:"name"`
	Color string    `json:"color"`
}

// EventType names TagCreated in history.
func (TagCreated) EventType() string { return TypeTagCreated }

func (TagCreated) sealed() {}

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

// EventType names TagUpdated in history.
func (TagUpdated) EventType() string { return TypeTagUpdated }

func (TagUpdated) sealed() {}

// TagArchived retires a tag; what carries it keeps it.
type TagArchived struct {
	TagID uuid.UUID `json:"tagId"`
}

// EventType names TagArchived in history.
func (TagArchived) EventType() string { return TypeTagArchived }

func (TagArchived) sealed() {}

// Posting is one wallet balance movement caused by a transaction event. Decide computes
// them so that projectors and replays apply balances without re-deriving rules.
type Posting struct {
	WalletID uuid.UUID       `json:"walletId"`
	Amount   decimal.Decimal `json:"amount"`
}

// TransactionCreated records a money movement.
type TransactionCreated struct {
	TransactionID     uuid.UUID        `json:"transactionId"`
	Type              TransactionType  `json:"type"`
	Amount            decimal.Decimal  `json:"amount"`
	Currency          string           `json:"currency"`
	DestinationAmount *decimal.Decimal `json:"destinationAmount"`
	Date              Date             `json:"date"`
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
	Cleared bool `json:"cleared,omitempty"`
	// ImportID is the statement import that recorded the transaction, and ExternalID the
	// bank's id of its statement row; both are left out when it was not imported.
	ImportID   *uuid.UUID `json:"importId,omitempty"`
	ExternalID string     `json:"externalId,omitempty"`
	// Splits are the parts of a split transaction, left out when it is not split.
	Splits   []SplitPart `json:"splits,omitempty"`
	Postings []Posting   `json:"postings"`
	Effects  *Effects    `json:"effects,omitempty"`
}

// EventType names TransactionCreated in history.
func (TransactionCreated) EventType() string { return TypeTransactionCreated }

func (TransactionCreated) sealed() {}

// TransactionChanges lists the fields an update sets; absent fields keep their value.
type TransactionChanges struct {
	Amount            Nullable[decimal.Decimal] `json:"amount,omitzero"`
	Currency          Nullable[string]          `json:"currency,omitzero"`
	DestinationAmount Nullable[decimal.Decimal] `json:"destinationAmount,omitzero"`
	Date              Nullable[Date]            `json:"date,omitzero"`
	Concept           Nullable[string]          `json:"concept,omitzero"`
	Description       Nullable[string]          `json:"description,omitzero"`
	WalletID          Nullable[uuid.UUID]       `json:"walletId,omitzero"`
	ToWalletID        Nullable[uuid.UUID]       `json:"toWalletId,omitzero"`
	CategoryID        Nullable[uuid.UUID]       `json:"categoryId,omitzero"`
	TagID             Nullable[uuid.UUID]       `json:"tagId,omitzero"`
	ReferenceNumber   Nullable[string]          `json:"referenceNumber,omitzero"`
	AttachmentURL     Nullable[string]          `json:"attachmentUrl,omitzero"`
	Cleared           Nullable[bool]            `json:"cleared,omitzero"`
	// Splits replaces the parts of a split transaction whole; null makes it a
	// transaction of one category again.
	Splits Nullable[[]SplitPart] `json:"splits,omitzero"`
}

// TransactionUpdated changes a transaction; Postings move balances, and Effects goals
// and debts, from the old effect to the new one.
type TransactionUpdated struct {
	TransactionID uuid.UUID          `json:"transactionId"`
	Changes       TransactionChanges `json:"changes"`
	Postings      []Posting          `json:"postings"`
	Effects       *Effects           `json:"effects,omitempty"`
}

// EventType names TransactionUpdated in history.
func (TransactionUpdated) EventType() string { return TypeTransactionUpdated }

func (TransactionUpdated) sealed() {}

// TransactionDeleted soft-deletes a transaction; Postings and Effects revert its effect.
type TransactionDeleted struct {
	TransactionID uuid.UUID `json:"transactionId"`
	// ImportID is the import whose undo deletes the transaction; left out otherwise.
	ImportID *uuid.UUID `json:"importId,omitempty"`
	Postings []Posting  `json:"postings"`
	Effects  *Effects   `json:"effects,omitempty"`
}

// TransactionMatched links a row of an imported statement to a transaction already
// recorded: the row is that transaction, seen by the bank. No money moves.
type TransactionMatched struct {
	TransactionID uuid.UUID `json:"transactionId"`
	ImportID      uuid.UUID `json:"importId"`
	ExternalID    string    `json:"externalId"`
}

// EventType names TransactionMatched in history.
func (TransactionMatched) EventType() string { return TypeTransactionMatched }

func (TransactionMatched) sealed() {}

// TransactionUnmatched removes the link an import's undo takes back.
type TransactionUnmatched struct {
	TransactionID uuid.UUID `json:"transactionId"`
	ImportID      uuid.UUID `json:"importId"`
}

// EventType names TransactionUnmatched in history.
func (TransactionUnmatched) EventType() string { return TypeTransactionUnmatched }

func (TransactionUnmatched) sealed() {}

// ImportCommitted opens the events of a statement import: the transactions it creates
// and the links it makes follow it in the same append, each carrying its id.
type ImportCommitted struct {
	ImportID uuid.UUID `json:"importId"`
	WalletID uuid.UUID `json:"walletId"`
	Format   string    `json:"format"`
	Created  int       `json:"created"`
	Merged   int       `json:"merged"`
	Skipped  int       `json:"skipped"`
}

// EventType names ImportCommitted in history.
func (ImportCommitted) EventType() string { return TypeImportCommitted }

func (ImportCommitted) sealed() {}

// ImportUndone opens the undo of an import: the deletions and unlinkings follow it.
type ImportUndone struct {
	ImportID uuid.UUID `json:"importId"`
	WalletID uuid.UUID `json:"walletId"`
	Deleted  int       `json:"deleted"`
	Unmerged int       `json:"unmerged"`
}

// TransactionsImported records up to ImportPart of the transactions a statement import
// creates, in the statement's order, each as its own TransactionCreated would (its
// ImportID and ExternalID set). A statement's hundred thousand rows are a hundred events,
// not a hundred thousand: the history, its chain, and the kept states of the balances and
// the totals grow by one entry per part. TransactionIDs lists the transactions again, in
// the same order, for the index that finds the events naming a transaction (migration
// 0030). Readers take its transactions one by one with Parts.
type TransactionsImported struct {
	ImportID       uuid.UUID            `json:"importId"`
	TransactionIDs []uuid.UUID          `json:"transactionIds"`
	Transactions   []TransactionCreated `json:"transactions"`
}

// EventType names TransactionsImported in history.
func (TransactionsImported) EventType() string { return TypeTransactionsImported }

func (TransactionsImported) sealed() {}

// Parts yields the events an event stands for, one by one: each transaction a
// TransactionsImported records, as its TransactionCreated, or else the event itself.
// Every reader that follows transactions reads events through it.
func Parts(e Event) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		imported, ok := e.(*TransactionsImported)
		if !ok {
			yield(e)
			return
		}
		for i := range imported.Transactions {
			if !yield(&imported.Transactions[i]) {
				return
			}
		}
	}
}

// partIDs is the namespace of the ids PartID derives.
var partIDs = uuid.MustParse("5b0c7e3a-9d41-4f6e-8a2b-c17d3e9f0a58")

// PartID names one transaction's creation in an import's part wherever a reader gives
// each creation an id of its own (an audit entry, a webhook's event): a name-based UUID
// of the part's event id and the transaction's.
func PartID(eventID, transactionID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(partIDs, append(eventID[:], transactionID[:]...))
}

// EventType names ImportUndone in history.
func (ImportUndone) EventType() string { return TypeImportUndone }

func (ImportUndone) sealed() {}

// EventType names TransactionDeleted in history.
func (TransactionDeleted) EventType() string { return TypeTransactionDeleted }

func (TransactionDeleted) sealed() {}

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

// EventType names UserProfileUpdated in history.
func (UserProfileUpdated) EventType() string { return TypeUserProfileUpdated }

func (UserProfileUpdated) sealed() {}

// UserDeleted closes an account: its sessions and API keys stop working.
type UserDeleted struct {
	UserID uuid.UUID `json:"userId"`
}

// EventType names UserDeleted in history.
func (UserDeleted) EventType() string { return TypeUserDeleted }

func (UserDeleted) sealed() {}

// WorkspaceDeleted closes a workspace: nobody can act in it any more.
type WorkspaceDeleted struct {
	WorkspaceID uuid.UUID `json:"workspaceId"`
}

// EventType names WorkspaceDeleted in history.
func (WorkspaceDeleted) EventType() string { return TypeWorkspaceDeleted }

func (WorkspaceDeleted) sealed() {}

// MemberAdded gives a user a role in the workspace; Email names the invitation it
// fulfils, if any.
type MemberAdded struct {
	UserID uuid.UUID `json:"userId"`
	Role   string    `json:"role"`
	Email  string    `json:"email,omitempty"`
}

// EventType names MemberAdded in history.
func (MemberAdded) EventType() string { return TypeMemberAdded }

func (MemberAdded) sealed() {}

// MemberInvited records an invitation for someone not seen yet, who joins at first
// sign-in.
type MemberInvited struct {
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	InvitedBy uuid.UUID `json:"invitedBy"`
}

// EventType names MemberInvited in history.
func (MemberInvited) EventType() string { return TypeMemberInvited }

func (MemberInvited) sealed() {}

// InvitationCancelled withdraws an open invitation: the email no longer joins at
// first sign-in.
type InvitationCancelled struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

// EventType names InvitationCancelled in history.
func (InvitationCancelled) EventType() string { return TypeInvitationCancelled }

func (InvitationCancelled) sealed() {}

// MemberRoleChanged changes a member's role.
type MemberRoleChanged struct {
	UserID uuid.UUID `json:"userId"`
	Before string    `json:"before"`
	After  string    `json:"after"`
}

// EventType names MemberRoleChanged in history.
func (MemberRoleChanged) EventType() string { return TypeMemberRoleChanged }

func (MemberRoleChanged) sealed() {}

// MemberRemoved takes a member out of the workspace.
type MemberRemoved struct {
	UserID uuid.UUID `json:"userId"`
	Role   string    `json:"role"`
}

// EventType names MemberRemoved in history.
func (MemberRemoved) EventType() string { return TypeMemberRemoved }

func (MemberRemoved) sealed() {}

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
	// Writes is KeyWritesPropose for a key whose writes are proposals (proposals.go);
	// left out for one whose writes take effect.
	Writes string `json:"writes,omitempty"`
}

// EventType names APIKeyCreated in history.
func (APIKeyCreated) EventType() string { return TypeAPIKeyCreated }

func (APIKeyCreated) sealed() {}

// APIKeyRevoked makes a key unusable.
type APIKeyRevoked struct {
	KeyID uuid.UUID `json:"keyId"`
	// Reason says why a key was revoked by no request to revoke it: its creator left the
	// workspace, the workspace or the creator's account was deleted. Empty for a key
	// revoked by name.
	Reason string `json:"reason,omitempty"`
}

// EventType names APIKeyRevoked in history.
func (APIKeyRevoked) EventType() string { return TypeAPIKeyRevoked }

func (APIKeyRevoked) sealed() {}

// The reasons of a revocation that ends a key with what it stood on (APIKeyRevoked.Reason).
const (
	KeyRevokedMemberRemoved    = "member_removed"
	KeyRevokedWorkspaceDeleted = "workspace_deleted"
	KeyRevokedAccountDeleted   = "account_deleted"
)

// Event is an event: decided by a command, or read back from history. The payload
// types of this package are its only implementations, each naming itself in history
// (EventType); an Event is always a pointer to one (*TransactionCreated), as decided
// and as DecodeEvent returns it, so that every switch on events has one case per type.
type Event interface {
	// EventType is the name the event is stored under.
	EventType() string
	sealed()
}

// eventTypes is the one registry of event types: each payload type, under the name it
// gives itself. A name is written into history for good, so a payload's shape changes
// under a new name (a new version), never under an old one.
var eventTypes = registry(
	&UserRegistered{},
	&UserIdentityChanged{},
	&UserProfileUpdated{},
	&UserDeleted{},
	&WorkspaceCreated{},
	&WorkspaceDeleted{},
	&WorkspaceLanguageChanged{},
	&MemberAdded{},
	&MemberInvited{},
	&MemberRoleChanged{},
	&MemberRemoved{},
	&InvitationCancelled{},
	&APIKeyCreated{},
	&ProposalCreated{}, &ProposalApproved{}, &ProposalRejected{}, &ProposalSettled{},
	&APIKeyRevoked{},
	&WalletCreated{},
	&WalletUpdated{},
	&WalletArchived{},
	&WalletReconciled{},
	&CategoryCreated{},
	&CategoryUpdated{},
	&CategoryArchived{},
	&TagCreated{},
	&TagUpdated{},
	&TagArchived{},
	&TransactionCreated{},
	&TransactionUpdated{},
	&TransactionDeleted{},
	&TransactionMatched{},
	&TransactionUnmatched{},
	&ImportCommitted{},
	&ImportUndone{},
	&TransactionsImported{},
	&RuleCreated{},
	&RuleUpdated{},
	&RuleDeleted{},
	&AttachmentAdded{},
	&AttachmentRemoved{},
	&BudgetCreated{},
	&BudgetUpdated{},
	&BudgetDeleted{},
	&BudgetThresholdReached{},
	&GoalCreated{},
	&GoalUpdated{},
	&GoalDeleted{},
	&DebtCreated{},
	&DebtUpdated{},
	&DebtDeleted{},
	&RecurringCreated{},
	&RecurringUpdated{},
	&RecurringDeleted{},
	&RecurringPaid{},
	&RecurringSkipped{},
	&ExchangeRatesSet{},
	&WebhookCreated{},
	&WebhookUpdated{},
	&WebhookDeleted{},
	&WebhookSecretRotated{},
	&WhatsAppLinked{},
	&WhatsAppUnlinked{},
	&WhatsAppSuspended{},
	&WhatsAppFingerprintRecorded{},
	&WhatsAppWorkspaceChanged{},
	&ImportProfileSaved{},
	&ImportProfileDeleted{},
)

// registry maps the stored name of each event to what makes an empty one of its type
// to decode into.
func registry(events ...Event) map[string]func() Event {
	out := make(map[string]func() Event, len(events))
	for _, e := range events {
		if _, twice := out[e.EventType()]; twice {
			panic(fmt.Sprintf("domain: event type %q registered twice", e.EventType()))
		}
		t := reflect.TypeOf(e).Elem()
		out[e.EventType()] = func() Event { return reflect.New(t).Interface().(Event) }
	}
	return out
}

// ErrUnknownEvent is what each consumer of the log (the states' Apply, the projections,
// the audit log, the webhooks' publicOf) returns for an event type its switch does not
// name, so that a type left out is told apart from one a consumer deliberately does
// nothing with; internal/eventcontract runs every type through each of them.
var ErrUnknownEvent = errors.New("unknown event type")

// DecodeEvent parses a stored payload into its typed struct (a pointer).
func DecodeEvent(eventType string, data []byte) (Event, error) {
	factory, ok := eventTypes[eventType]
	if !ok {
		return nil, fmt.Errorf("domain: %w %q", ErrUnknownEvent, eventType)
	}
	v := factory()
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("domain: decode %s: %w", eventType, err)
	}
	return v, nil
}

// EventTypes lists every event type name, sorted: for the test that pushes each through
// every consumer of the log (internal/eventcontract).
func EventTypes() []string {
	return slices.Sorted(maps.Keys(eventTypes))
}
