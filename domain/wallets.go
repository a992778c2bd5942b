package domain

import (
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Wallet types.
var WalletTypes = []string{"cash", "card", "bank_account", "digital_wallet"}

// Wallet field defaults (spec 2.1).
const (
	DefaultWalletType = "cash"
	DefaultCardColor  = "#111827"
)

// CreateWallet adds a wallet.
//
// Defaults: Type empty is DefaultWalletType ("cash"); Currency empty is DefaultCurrency;
// CardColor empty is DefaultCardColor; InitialBalance left out is zero and IsDefault
// left out is false. An empty string is never a valid type, currency or colour, so
// the zero value stands for a field the client left out.
//
// Errors: VALIDATION_ERROR, CONFLICT (a live wallet already has the name).
type CreateWallet struct {
	WalletID uuid.UUID
	WalletFields
}

// Decide fills the defaults, checks the wallet against the workspace and returns its
// events.
func (c CreateWallet) Decide(w *Workspace) ([]Event, error) {
	c.Type = stringOr(c.Type, DefaultWalletType)
	c.Currency = stringOr(c.Currency, DefaultCurrency)
	c.CardColor = stringOr(c.CardColor, DefaultCardColor)
	if err := c.check(w, uuid.Nil); err != nil {
		return nil, err
	}
	events := w.clearDefaultWallet(c.IsDefault, c.WalletID)
	return append(events, &WalletCreated{WalletID: c.WalletID, WalletFields: c.WalletFields}), nil
}

// UpdateWallet changes some of a wallet's fields. InitialBalance is the balance the
// wallet was opened with: changing it moves the current balance by the difference.
type UpdateWallet struct {
	WalletID       uuid.UUID
	Name           Nullable[string]
	Description    Nullable[string]
	Type           Nullable[string]
	Currency       Nullable[string]
	CardColor      Nullable[string]
	InitialBalance Nullable[decimal.Decimal]
	Clabe          Nullable[string]
	Provider       Nullable[string]
	IsDefault      Nullable[bool]
}

// Decide applies the changes to the wallet's fields.
func (c UpdateWallet) Decide(w *Workspace) ([]Event, error) {
	wallet, err := w.liveWallet(c.WalletID)
	if err != nil {
		return nil, err
	}
	after := wallet.WalletFields
	setValue(&after.Name, c.Name)
	setPtr(&after.Description, c.Description)
	setValue(&after.Type, c.Type)
	setValue(&after.Currency, c.Currency)
	setValue(&after.CardColor, c.CardColor)
	setValue(&after.InitialBalance, c.InitialBalance)
	setPtr(&after.Clabe, c.Clabe)
	setPtr(&after.Provider, c.Provider)
	setValue(&after.IsDefault, c.IsDefault)
	if after.Currency != wallet.Currency && wallet.Movements > 0 {
		return nil, Conflict("CONFLICT", "the wallet's currency cannot change while transactions use it")
	}
	if err := (CreateWallet{WalletID: c.WalletID, WalletFields: after}).check(w, c.WalletID); err != nil {
		return nil, err
	}
	if walletFieldsEqual(after, wallet.WalletFields) {
		return nil, nil
	}
	events := w.clearDefaultWallet(after.IsDefault && !wallet.IsDefault, c.WalletID)
	return append(events, &WalletUpdated{WalletID: c.WalletID, Before: wallet.WalletFields, After: after}), nil
}

// ArchiveWallet hides a wallet; its transactions and balance stay on record.
type ArchiveWallet struct {
	WalletID uuid.UUID
}

// Decide archives a live wallet.
func (c ArchiveWallet) Decide(w *Workspace) ([]Event, error) {
	if _, err := w.liveWallet(c.WalletID); err != nil {
		return nil, err
	}
	return []Event{&WalletArchived{WalletID: c.WalletID}}, nil
}

func (c CreateWallet) check(w *Workspace, self uuid.UUID) error {
	if problem := CheckAmount(c.InitialBalance, false); problem != "" {
		return InvalidField("balance", "%s", problem)
	}
	folded := FoldName(c.Name)
	for id, other := range w.Wallets {
		if id != self && !other.Archived && FoldName(other.Name) == folded {
			return Conflict("CONFLICT", "a wallet named %q already exists", other.Name)
		}
	}
	return nil
}

// clearDefaultWallet returns the event that takes the default flag off the current
// default wallet when another one takes it.
func (w *Workspace) clearDefaultWallet(takesDefault bool, newDefault uuid.UUID) []Event {
	old := w.DefaultWallet
	if !takesDefault || old == uuid.Nil || old == newDefault {
		return nil
	}
	before := w.Wallets[old].WalletFields
	after := before
	after.IsDefault = false
	return []Event{&WalletUpdated{WalletID: old, Before: before, After: after}}
}

func (w *Workspace) liveWallet(id uuid.UUID) (*Wallet, error) {
	wallet, ok := w.Wallets[id]
	if !ok || wallet.Archived {
		return nil, NotFound("WALLET_NOT_FOUND", "wallet %s not found", id)
	}
	return wallet, nil
}

func walletFieldsEqual(a, b WalletFields) bool {
	return a.Name == b.Name && eqPtr(a.Description, b.Description) && a.Type == b.Type &&
		a.Currency == b.Currency && a.CardColor == b.CardColor && a.InitialBalance.Equal(b.InitialBalance) &&
		eqPtr(a.Clabe, b.Clabe) && eqPtr(a.Provider, b.Provider) && a.IsDefault == b.IsDefault
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// setValue applies a change to a field that cannot be null.
func setValue[T any](dst *T, n Nullable[T]) {
	if n.Valid {
		*dst = n.Value
	}
}

// setPtr applies a change to a nullable field.
func setPtr[T any](dst **T, n Nullable[T]) {
	if n.Set {
		*dst = n.Ptr()
	}
}
