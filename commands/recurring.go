package commands

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Recurring payment kinds: only income and expense items move money.
var RecurringKinds = []string{TxIncome, TxExpense, "other"}

// CreateRecurring adds a recurring payment; its cycles count from its first due date.
//
// Defaults: Active nil is true.
//
// Errors: VALIDATION_ERROR, WALLET_NOT_FOUND, CATEGORY_NOT_FOUND.
type CreateRecurring struct {
	RecurringID uuid.UUID
	Name        string
	Amount      decimal.Decimal
	Kind        string
	Periodicity string
	NextPayment string
	Active      *bool
	WalletID    *uuid.UUID
	CategoryID  *uuid.UUID
}

// Decide fills the default and checks the amount and the wallet and category it names.
func (c CreateRecurring) Decide(w *Workspace) ([]NewEvent, error) {
	fields := RecurringFields{Name: c.Name, Amount: c.Amount, Kind: c.Kind, Periodicity: c.Periodicity, NextPayment: c.NextPayment,
		Anchor: c.NextPayment, Active: valueOr(c.Active, true), WalletID: c.WalletID, CategoryID: c.CategoryID}
	if err := checkRecurring(w, fields); err != nil {
		return nil, err
	}
	return []NewEvent{{TypeRecurringCreated, &RecurringCreated{RecurringID: c.RecurringID, RecurringFields: fields}}}, nil
}

// checkRecurring checks a recurring payment's amount and the wallet and category it
// names.
func checkRecurring(w *Workspace, c RecurringFields) error {
	if problem := CheckAmount(c.Amount, true); problem != "" {
		return InvalidField("amount", "%s", problem)
	}
	if c.WalletID != nil {
		if _, err := w.liveWallet(*c.WalletID); err != nil {
			return err
		}
	}
	if c.CategoryID != nil {
		if _, err := w.liveCategory(*c.CategoryID); err != nil {
			return err
		}
	}
	return nil
}

// UpdateRecurring changes some of a recurring payment's fields. A new due date or
// periodicity starts the cycles again from the new due date.
//
// Errors: RECURRING_NOT_FOUND, and those of CreateRecurring.
type UpdateRecurring struct {
	RecurringID uuid.UUID
	Name        Nullable[string]
	Amount      Nullable[decimal.Decimal]
	Kind        Nullable[string]
	Periodicity Nullable[string]
	NextPayment Nullable[string]
	Active      Nullable[bool]
	WalletID    Nullable[uuid.UUID]
	CategoryID  Nullable[uuid.UUID]
}

// Decide applies the changes.
func (c UpdateRecurring) Decide(w *Workspace) ([]NewEvent, error) {
	r, err := w.liveRecurring(c.RecurringID)
	if err != nil {
		return nil, err
	}
	after := r.RecurringFields
	setValue(&after.Name, c.Name)
	setValue(&after.Amount, c.Amount)
	setValue(&after.Kind, c.Kind)
	setValue(&after.Periodicity, c.Periodicity)
	setValue(&after.NextPayment, c.NextPayment)
	setValue(&after.Active, c.Active)
	setPtr(&after.WalletID, c.WalletID)
	setPtr(&after.CategoryID, c.CategoryID)
	if after.NextPayment != r.NextPayment || after.Periodicity != r.Periodicity {
		after.Anchor = after.NextPayment
	}
	if err := checkRecurring(w, after); err != nil {
		return nil, err
	}
	return []NewEvent{{TypeRecurringUpdated, &RecurringUpdated{RecurringID: c.RecurringID, Before: r.RecurringFields, After: after}}}, nil
}

// DeleteRecurring removes a recurring payment; what it paid stays.
//
// Errors: RECURRING_NOT_FOUND.
type DeleteRecurring struct {
	RecurringID uuid.UUID
}

// Decide removes a live item.
func (c DeleteRecurring) Decide(w *Workspace) ([]NewEvent, error) {
	if _, err := w.liveRecurring(c.RecurringID); err != nil {
		return nil, err
	}
	return []NewEvent{{TypeRecurringDeleted, &RecurringDeleted{RecurringID: c.RecurringID}}}, nil
}

// PayRecurring pays the cycle due on the item's next payment date: it records the
// income or expense and moves the item to its next cycle (spec 4.B rule 7).
//
// Defaults: PaidOn zero is Today; the item's wallet, when it has none, is the
// workspace's default wallet.
//
// Errors: RECURRING_NOT_FOUND, CONFLICT (a paused item, or one that moves no money),
// RECURRING_ALREADY_PAID, VALIDATION_ERROR, and those of CreateTransaction.
type PayRecurring struct {
	RecurringID   uuid.UUID
	TransactionID uuid.UUID
	// PaidOn is the date of the movement; the scheduler pays on the due date.
	PaidOn Date
	// Today decides which cycle is the current one.
	Today Date
	// DueDate, set by the scheduler, is the cycle it means to pay: when the item has
	// moved on (another instance, a restart, a person paid it), nothing happens.
	DueDate *Date
}

// Decide pays the cycle, or refuses when the current one is paid already.
func (c PayRecurring) Decide(w *Workspace) ([]NewEvent, error) {
	r, err := w.liveRecurring(c.RecurringID)
	if err != nil {
		return nil, err
	}
	due, err := ParseDate(r.NextPayment)
	if err != nil {
		return nil, err
	}
	anchor, err := ParseDate(r.Anchor)
	if err != nil {
		return nil, err
	}
	if c.DueDate != nil && (!c.DueDate.Equal(due) || !r.Active || r.Kind == "other") {
		return nil, nil
	}
	switch {
	case !r.Active:
		return nil, Conflict("CONFLICT", "the recurring payment is paused; activate it first")
	case r.Kind != TxIncome && r.Kind != TxExpense:
		return nil, Conflict("CONFLICT", "only income and expense items can be paid")
	}
	// The current cycle is the one due on the next payment date once that has come,
	// else the one before it; paid ahead, the next cycle counts as paid from its due date.
	current, hasCurrent := due, !due.After(c.Today)
	if !hasCurrent && due.After(anchor) {
		current, _, _ = PeriodAt(r.Periodicity, anchor, due.AddDate(0, 0, -1))
		hasCurrent = true
	}
	if hasCurrent && r.LastPayment != nil {
		if last, err := ParseDate(*r.LastPayment); err == nil && !last.Before(current) {
			return nil, Conflict("RECURRING_ALREADY_PAID", "the cycle due %s is already paid; the next one is due %s",
				current.Format(time.DateOnly), r.NextPayment)
		}
	}
	walletID := w.DefaultWallet
	if r.WalletID != nil {
		walletID = *r.WalletID
	}
	if walletID == uuid.Nil {
		return nil, InvalidField("walletId", "is required: give the item a wallet or the workspace a default wallet")
	}
	if c.PaidOn.IsZero() {
		c.PaidOn = c.Today
	}
	paidOn := c.PaidOn.Format(time.DateOnly)
	concept := r.Name
	events, err := CreateTransaction{TransactionID: c.TransactionID, Type: r.Kind, Amount: r.Amount, Date: paidOn,
		Concept: &concept, WalletID: &walletID, CategoryID: r.CategoryID, RecurringID: &c.RecurringID}.Decide(w)
	if err != nil {
		return nil, err
	}
	next := NextPeriodStart(r.Periodicity, anchor, due)
	if next.After(LastDay) {
		return nil, Conflict("CONFLICT", "paying would move the next payment past %s, the last day of the ledger's calendar",
			LastDay.Format(time.DateOnly))
	}
	return append(events, NewEvent{TypeRecurringPaid, &RecurringPaid{
		RecurringID: c.RecurringID, DueDate: r.NextPayment, PaidOn: paidOn, TransactionID: c.TransactionID,
		NextPayment: next.Format(time.DateOnly), Automatic: c.DueDate != nil,
	}}), nil
}

func (w *Workspace) liveRecurring(id uuid.UUID) (*Recurring, error) {
	r, ok := w.Recurring[id]
	if !ok || r.Deleted {
		return nil, NotFound("RECURRING_NOT_FOUND", "recurring payment %s not found", id)
	}
	return r, nil
}
