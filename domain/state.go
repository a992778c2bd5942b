package domain

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Workspace is the write-side state of one workspace stream: what decide functions need
// to check a command, and nothing the read models alone serve (no descriptions, no
// listings). It is a fold of the stream's events.
type Workspace struct {
	ID       uuid.UUID
	Version  int64
	Exists   bool
	Kind     string
	Name     string
	Currency string
	Language string // the language of the text the service writes (language.go)
	Deleted  bool
	Members  map[uuid.UUID]string // user id to role
	// Invitations maps the lower-case email of someone not seen yet to their role.
	Invitations map[string]string
	APIKeys     map[uuid.UUID]*APIKey

	Wallets       map[uuid.UUID]*Wallet
	DefaultWallet uuid.UUID
	Categories    map[uuid.UUID]*Category
	Tags          map[uuid.UUID]*Tag
	// Transactions holds the transactions the state has met, a nil entry for one known
	// not to exist. A state folded from the stream's start, not trimmed since, has met
	// them all; otherwise (TransactionsPartial) the Ledger loads from the stream those a
	// command or a fold needs. A snapshot holds none of them, so that a workspace of a
	// million transactions loads in the time its other records take.
	Transactions map[uuid.UUID]*Transaction `snapshot:"-"`
	// TransactionsPartial says Transactions may lack transactions that exist.
	TransactionsPartial bool `snapshot:"-"`
	// WalletsMet are the wallets whose every transaction Transactions holds although
	// it is partial: a reconciliation needs them all (MeetWallet).
	WalletsMet map[uuid.UUID]bool `snapshot:"-"`
	Budgets    map[uuid.UUID]*Budget
	Goals      map[uuid.UUID]*Goal
	Debts      map[uuid.UUID]*Debt
	Recurring  map[uuid.UUID]*Recurring
	Webhooks   map[uuid.UUID]*Webhook
	// Imports are the statement imports committed, by id.
	Imports map[uuid.UUID]*Import
	Rules   map[uuid.UUID]*Rule
	// ImportProfiles are the saved CSV import profiles, by id.
	ImportProfiles map[uuid.UUID]*ImportProfile
	// Attachments are the files attached to transactions, by id.
	Attachments map[uuid.UUID]*Attachment
	// Proposals are the writes of keys held for approval, by id (proposals.go).
	Proposals map[uuid.UUID]*Proposal
	// Spending is what the live expenses add up to per category, currency and day, so
	// that a command can tell whether it takes a budget to its alert threshold.
	Spending Spending
}

// APIKey is an API key as the write side sees it.
type APIKey struct {
	CreatedBy uuid.UUID
	Revoked   bool
}

// Wallet is a wallet as the write side sees it.
type Wallet struct {
	WalletFields
	Archived bool
	Balance  decimal.Decimal
	// Movements counts live transactions touching the wallet; a wallet with movements
	// cannot change currency.
	Movements int
	// Seq orders wallets by creation: the oldest pays a debt when nothing else is said.
	Seq int64
	// ReconciledThrough is the date of the last statement the wallet was reconciled
	// with (zero: never).
	ReconciledThrough Date
}

// Category is a category as the write side sees it.
type Category struct {
	CategoryFields
	Archived bool
	// Seq orders categories by creation: a name left out of a chat message means the
	// oldest.
	Seq int64
}

// Tag is a tag as the write side sees it.
type Tag struct {
	TagFields
	Active bool
}

// Transaction holds what is needed to move balances and budget spending when a
// transaction changes.
type Transaction struct {
	Type              TransactionType
	Amount            decimal.Decimal
	DestinationAmount *decimal.Decimal
	Currency          string
	Date              Date
	WalletID          uuid.UUID
	ToWalletID        *uuid.UUID
	CategoryID        *uuid.UUID
	TagID             *uuid.UUID
	GoalID            *uuid.UUID
	DebtID            *uuid.UUID
	// Splits are a split transaction's parts (splits.go), nil when it is not split.
	Splits  []SplitPart
	Deleted bool
	// ImportID is the import that created the transaction or, when Matched, linked a
	// statement row to it; ExternalID is that row's id at the bank.
	ImportID   *uuid.UUID
	ExternalID string
	Matched    bool
	// Reconciled: a reconciliation with a bank statement counted it (WalletReconciled).
	Reconciled bool
}

// NewWorkspace returns the empty state of a workspace stream.
func NewWorkspace(id uuid.UUID) *Workspace {
	return &Workspace{
		ID:             id,
		Members:        map[uuid.UUID]string{},
		Invitations:    map[string]string{},
		APIKeys:        map[uuid.UUID]*APIKey{},
		Wallets:        map[uuid.UUID]*Wallet{},
		Categories:     map[uuid.UUID]*Category{},
		Tags:           map[uuid.UUID]*Tag{},
		Transactions:   map[uuid.UUID]*Transaction{},
		Budgets:        map[uuid.UUID]*Budget{},
		Goals:          map[uuid.UUID]*Goal{},
		Debts:          map[uuid.UUID]*Debt{},
		Recurring:      map[uuid.UUID]*Recurring{},
		Webhooks:       map[uuid.UUID]*Webhook{},
		Imports:        map[uuid.UUID]*Import{},
		Rules:          map[uuid.UUID]*Rule{},
		ImportProfiles: map[uuid.UUID]*ImportProfile{},
		Proposals:      map[uuid.UUID]*Proposal{},
		Spending:       Spending{},
	}
}

// StreamID names the event stream of a workspace.
func StreamID(workspaceID uuid.UUID) string { return "workspace-" + workspaceID.String() }

// WorkspaceOfStream returns the workspace whose stream streamID names; ok is false for
// any other stream.
func WorkspaceOfStream(streamID string) (id uuid.UUID, ok bool) {
	rest, found := strings.CutPrefix(streamID, "workspace-")
	if !found {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(rest)
	return id, err == nil
}

// UserStreamID names the event stream of a user.
func UserStreamID(userID uuid.UUID) string { return "user-" + userID.String() }

// Apply folds one event into the state. It mutates w, so callers apply only committed
// events to shared state.
func (w *Workspace) Apply(event Event) error {
	switch e := event.(type) {
	case *WorkspaceCreated:
		w.Exists, w.Kind, w.Name, w.Currency, w.Language = true, e.Kind, e.Name, e.Currency, e.Language
		w.Members[e.OwnerID] = RoleOwner
	case *WorkspaceLanguageChanged:
		w.Language = e.After
	case *WalletCreated:
		w.Wallets[e.WalletID] = &Wallet{WalletFields: e.WalletFields, Balance: e.InitialBalance, Seq: int64(len(w.Wallets))}
		if e.IsDefault {
			w.DefaultWallet = e.WalletID
		}
	case *WalletUpdated:
		wallet, err := find(w.Wallets, e.WalletID, "wallet")
		if err != nil {
			return err
		}
		wallet.Balance = wallet.Balance.Add(e.After.InitialBalance.Sub(e.Before.InitialBalance))
		wallet.WalletFields = e.After
		switch {
		case e.After.IsDefault:
			w.DefaultWallet = e.WalletID
		case w.DefaultWallet == e.WalletID:
			w.DefaultWallet = uuid.Nil
		}
	case *WalletArchived:
		wallet, err := find(w.Wallets, e.WalletID, "wallet")
		if err != nil {
			return err
		}
		wallet.Archived = true
		wallet.IsDefault = false
		if w.DefaultWallet == e.WalletID {
			w.DefaultWallet = uuid.Nil
		}
	case *CategoryCreated:
		w.Categories[e.CategoryID] = &Category{CategoryFields: e.CategoryFields, Seq: int64(len(w.Categories))}
	case *CategoryUpdated:
		category, err := find(w.Categories, e.CategoryID, "category")
		if err != nil {
			return err
		}
		category.CategoryFields = e.After
	case *CategoryArchived:
		category, err := find(w.Categories, e.CategoryID, "category")
		if err != nil {
			return err
		}
		category.Archived = true
	case *TagCreated:
		w.Tags[e.TagID] = &Tag{TagFields: TagFields{Name: e.Name, Color: e.Color}, Active: true}
	case *TagUpdated:
		tag, err := find(w.Tags, e.TagID, "tag")
		if err != nil {
			return err
		}
		tag.TagFields = e.After
	case *TagArchived:
		tag, err := find(w.Tags, e.TagID, "tag")
		if err != nil {
			return err
		}
		tag.Active = false
	case *TransactionsImported:
		for created := range Parts(e) {
			if err := w.Apply(created); err != nil {
				return err
			}
		}
	case *TransactionCreated:
		t := transactionOf(e)
		w.Transactions[e.TransactionID] = t
		w.countMovements(t, 1)
		w.Spending.add(t, 1)
		if err := w.moveGoalsAndDebts(e.effects()); err != nil {
			return err
		}
		return w.post(e.Postings)
	case *TransactionUpdated:
		t, err := w.metTransaction(e.TransactionID)
		if err != nil {
			return err
		}
		effects := e.effects(t)
		w.countMovements(t, -1)
		w.Spending.add(t, -1)
		t.applyChanges(e.Changes)
		w.countMovements(t, 1)
		w.Spending.add(t, 1)
		if err := w.moveGoalsAndDebts(effects); err != nil {
			return err
		}
		return w.post(e.Postings)
	case *TransactionDeleted:
		t, err := w.metTransaction(e.TransactionID)
		if err != nil {
			return err
		}
		effects := e.effects(t)
		w.Spending.add(t, -1)
		t.Deleted = true
		w.countMovements(t, -1)
		if err := w.moveGoalsAndDebts(effects); err != nil {
			return err
		}
		return w.post(e.Postings)
	case *TransactionMatched:
		return w.linkTransaction(e.TransactionID, e)
	case *TransactionUnmatched:
		return w.linkTransaction(e.TransactionID, e)
	case *ImportCommitted:
		if w.Imports == nil {
			w.Imports = map[uuid.UUID]*Import{}
		}
		w.Imports[e.ImportID] = &Import{WalletID: e.WalletID, Created: e.Created, Merged: e.Merged}
	case *AttachmentAdded:
		if w.Attachments == nil {
			w.Attachments = map[uuid.UUID]*Attachment{}
		}
		w.Attachments[e.AttachmentID] = &Attachment{TransactionID: e.TransactionID}
	case *AttachmentRemoved:
		a, err := find(w.Attachments, e.AttachmentID, "attachment")
		if err != nil {
			return err
		}
		a.Removed = true
	case *RuleCreated:
		if w.Rules == nil {
			w.Rules = map[uuid.UUID]*Rule{}
		}
		w.Rules[e.RuleID] = &Rule{RuleDefinition: e.Rule}
	case *RuleUpdated:
		r, err := find(w.Rules, e.RuleID, "rule")
		if err != nil {
			return err
		}
		r.RuleDefinition = e.After
	case *RuleDeleted:
		r, err := find(w.Rules, e.RuleID, "rule")
		if err != nil {
			return err
		}
		r.Deleted = true
	case *ImportUndone:
		imp, err := find(w.Imports, e.ImportID, "import")
		if err != nil {
			return err
		}
		imp.Undone = true
	case *WalletReconciled:
		return w.applyReconciled(e)
	case *WorkspaceDeleted:
		w.Deleted = true
	case *MemberAdded:
		w.Members[e.UserID] = e.Role
		delete(w.Invitations, e.Email)
	case *MemberInvited:
		w.Invitations[e.Email] = e.Role
	case *InvitationCancelled:
		delete(w.Invitations, e.Email)
	case *MemberRoleChanged:
		w.Members[e.UserID] = e.After
	case *MemberRemoved:
		delete(w.Members, e.UserID)
		// A key ends with the membership it was made in. Removals recorded before their
		// revocations were appended with them end the member's keys here alone.
		for _, key := range w.APIKeys {
			if key.CreatedBy == e.UserID {
				key.Revoked = true
			}
		}
	case *ProposalCreated, *ProposalApproved, *ProposalRejected, *ProposalSettled:
		return w.applyProposal(e)
	case *APIKeyCreated:
		w.APIKeys[e.KeyID] = &APIKey{CreatedBy: e.CreatedBy}
	case *APIKeyRevoked:
		key, err := find(w.APIKeys, e.KeyID, "API key")
		if err != nil {
			return err
		}
		key.Revoked = true
	default:
		if handled, err := w.applyWebhook(event); handled {
			return err
		}
		if handled, err := w.applyImportProfile(event); handled {
			return err
		}
		return w.applyMoney(event)
	}
	return nil
}

func (w *Workspace) post(postings []Posting) error {
	for _, p := range postings {
		wallet, ok := w.Wallets[p.WalletID]
		if !ok {
			return fmt.Errorf("domain: posting to unknown wallet %s", p.WalletID)
		}
		wallet.Balance = wallet.Balance.Add(p.Amount)
	}
	return nil
}

func (w *Workspace) countMovements(t *Transaction, delta int) {
	if wallet, ok := w.Wallets[t.WalletID]; ok {
		wallet.Movements += delta
	}
	if t.DebtID != nil {
		if debt, ok := w.Debts[*t.DebtID]; ok {
			debt.Payments += delta
		}
	}
	if t.ToWalletID != nil {
		if wallet, ok := w.Wallets[*t.ToWalletID]; ok {
			wallet.Movements += delta
		}
	}
}

// transactionOf is the state's record of a new transaction.
func transactionOf(e *TransactionCreated) *Transaction {
	return &Transaction{
		Type: e.Type, Amount: e.Amount, DestinationAmount: e.DestinationAmount, Currency: e.Currency, Date: e.Date,
		WalletID: e.WalletID, ToWalletID: e.ToWalletID, CategoryID: e.CategoryID, TagID: e.TagID,
		GoalID: e.GoalID, DebtID: e.DebtID, ImportID: e.ImportID, ExternalID: e.ExternalID, Splits: e.Splits,
	}
}

// linkTransaction records on a met transaction a statement row's link, or its removal.
func (w *Workspace) linkTransaction(id uuid.UUID, e Event) error {
	t, err := w.metTransaction(id)
	if err != nil {
		return err
	}
	t.link(e)
	return nil
}

// link records a statement row's link to the transaction, or its removal.
func (t *Transaction) link(e Event) {
	switch e := e.(type) {
	case *TransactionMatched:
		t.ImportID, t.ExternalID, t.Matched = &e.ImportID, e.ExternalID, true
	case *TransactionUnmatched:
		t.ImportID, t.ExternalID, t.Matched = nil, "", false
	}
}

func (t *Transaction) applyChanges(c TransactionChanges) {
	if c.Amount.Set {
		t.Amount = c.Amount.Value
	}
	if c.Currency.Set {
		t.Currency = c.Currency.Value
	}
	if c.Date.Set {
		t.Date = c.Date.Value
	}
	if c.DestinationAmount.Set {
		t.DestinationAmount = c.DestinationAmount.Ptr()
	}
	if c.WalletID.Set {
		t.WalletID = c.WalletID.Value
	}
	if c.ToWalletID.Set {
		t.ToWalletID = c.ToWalletID.Ptr()
	}
	if c.CategoryID.Set {
		t.CategoryID = c.CategoryID.Ptr()
	}
	if c.TagID.Set {
		t.TagID = c.TagID.Ptr()
	}
	if c.Splits.Set {
		t.Splits = c.Splits.Value
	}
}
