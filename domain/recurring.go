package domain

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// RecurringKind says what a recurring payment's cycles are: only income and expense
// items move money, as transactions of their type.
type RecurringKind string

// Recurring payment kinds.
const (
	RecurringIncome                = RecurringKind(TxIncome)
	RecurringExpense               = RecurringKind(TxExpense)
	RecurringOther   RecurringKind = "other"
)

// RecurringKinds lists the recurring payment kinds.
var RecurringKinds = []RecurringKind{RecurringIncome, RecurringExpense, RecurringOther}

// TransactionType returns the type of the transactions that pay an item of kind k, and
// false for a kind that moves no money.
func (k RecurringKind) TransactionType() (TransactionType, bool) {
	switch k {
	case RecurringIncome, RecurringExpense:
		return TransactionType(k), true
	}
	return "", false
}

// CreateRecurring adds a recurring payment; its cycles count from its first due date.
// Dated further back than MaxOwedCycles cycles, it skips the oldest at once
// (RecurringSkipped), as the scheduler would.
//
// Defaults: Active nil is true.
//
// Errors: VALIDATION_ERROR, WALLET_NOT_FOUND, CATEGORY_NOT_FOUND.
type CreateRecurring struct {
	RecurringID uuid.UUID
	Name        string
	Amount      decimal.Decimal
	Kind        RecurringKind
	Periodicity string
	NextPayment Date
	Active      *bool
	WalletID    *uuid.UUID
	CategoryID  *uuid.UUID
	// Today is the business day the command was issued: it decides the cycles owed.
	Today Date
}

// Decide fills the default and checks the amount and the wallet and category it names.
func (c CreateRecurring) Decide(w *Workspace) ([]Event, error) {
	fields := RecurringFields{Name: c.Name, Amount: c.Amount, Kind: c.Kind, Periodicity: c.Periodicity, NextPayment: c.NextPayment,
		Anchor: c.NextPayment, Active: valueOr(c.Active, true), WalletID: c.WalletID, CategoryID: c.CategoryID}
	if err := checkRecurring(w, fields); err != nil {
		return nil, err
	}
	return appendSkip([]Event{&RecurringCreated{RecurringID: c.RecurringID, RecurringFields: fields}},
		c.RecurringID, fields, c.Today)
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
// periodicity starts the cycles again from the new due date. An item left owing more
// than MaxOwedCycles cycles (dated far back, or active again after a long pause) skips
// the oldest at once (RecurringSkipped).
//
// Errors: RECURRING_NOT_FOUND, and those of CreateRecurring.
type UpdateRecurring struct {
	RecurringID uuid.UUID
	Name        Nullable[string]
	Amount      Nullable[decimal.Decimal]
	Kind        Nullable[RecurringKind]
	Periodicity Nullable[string]
	NextPayment Nullable[Date]
	Active      Nullable[bool]
	WalletID    Nullable[uuid.UUID]
	CategoryID  Nullable[uuid.UUID]
	// Today is the business day the command was issued: it decides the cycles owed.
	Today Date
}

// Decide applies the changes.
func (c UpdateRecurring) Decide(w *Workspace) ([]Event, error) {
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
	return appendSkip([]Event{&RecurringUpdated{RecurringID: c.RecurringID, Before: r.RecurringFields, After: after}},
		c.RecurringID, after, c.Today)
}

// DeleteRecurring removes a recurring payment; what it paid stays.
//
// Errors: RECURRING_NOT_FOUND.
type DeleteRecurring struct {
	RecurringID uuid.UUID
}

// Decide removes a live item.
func (c DeleteRecurring) Decide(w *Workspace) ([]Event, error) {
	if _, err := w.liveRecurring(c.RecurringID); err != nil {
		return nil, err
	}
	return []Event{&RecurringDeleted{RecurringID: c.RecurringID}}, nil
}

// PayRecurring pays the cycle due on the item's next payment date: it records the
// income or expense and moves the item to its next cycle (spec 4.B rule 7). An item
// owing more than MaxOwedCycles cycles first skips the oldest (RecurringSkipped) and
// pays the oldest of those left.
//
// Defaults: PaidOn zero is Today, or for the scheduler (DueDate set) the due date of the
// cycle paid; the item's wallet, when it has none, is the workspace's default wallet.
//
// Errors: RECURRING_NOT_FOUND, CONFLICT (a paused item, or one that moves no money),
// RECURRING_ALREADY_PAID, VALIDATION_ERROR, and those of CreateTransaction.
type PayRecurring struct {
	RecurringID   uuid.UUID
	TransactionID uuid.UUID
	// PaidOn is the date of the movement.
	PaidOn Date
	// Today decides which cycle is the current one.
	Today Date
	// DueDate, set by the scheduler, is the cycle it means to pay: when the item has
	// moved on (another instance, a restart, a person paid it), nothing happens.
	DueDate *Date
}

// Decide pays the cycle, or refuses when the current one is paid already.
func (c PayRecurring) Decide(w *Workspace) ([]Event, error) {
	r, err := w.liveRecurring(c.RecurringID)
	if err != nil {
		return nil, err
	}
	due, anchor, err := r.cycleDates()
	if err != nil {
		return nil, err
	}
	if c.DueDate != nil && (*c.DueDate != due || !r.Active || r.Kind == RecurringOther) {
		return nil, nil
	}
	typ, moves := r.Kind.TransactionType()
	switch {
	case !r.Active:
		return nil, Conflict("CONFLICT", "the recurring payment is paused; activate it first")
	case !moves:
		return nil, Conflict("CONFLICT", "only income and expense items can be paid")
	}
	var events []Event
	skip, err := skipOwed(c.RecurringID, r.RecurringFields, c.Today)
	if err != nil {
		return nil, err
	}
	if skip != nil {
		events = append(events, skip)
		due = skip.NextPayment
	}
	// The current cycle is the one due on the next payment date once that has come,
	// else the one before it; paid ahead, the next cycle counts as paid from its due date.
	current, hasCurrent := due, !due.After(c.Today)
	if !hasCurrent && due.After(anchor) {
		current, _, _ = PeriodAt(r.Periodicity, anchor, due.AddDays(-1))
		hasCurrent = true
	}
	if hasCurrent && r.LastPayment != nil {
		if last := *r.LastPayment; !last.IsZero() && !last.Before(current) {
			return nil, Conflict("RECURRING_ALREADY_PAID", "the cycle due %s is already paid; the next one is due %s",
				current, due)
		}
	}
	walletID := w.DefaultWallet
	if r.WalletID != nil {
		walletID = *r.WalletID
	}
	if walletID == uuid.Nil {
		return nil, InvalidField("walletId", "is required: give the item a wallet or the workspace a default wallet")
	}
	switch {
	case !c.PaidOn.IsZero():
	case c.DueDate != nil:
		c.PaidOn = due
	default:
		c.PaidOn = c.Today
	}
	concept := r.Name
	payment, err := CreateTransaction{TransactionID: c.TransactionID, Type: typ, Amount: r.Amount, Date: c.PaidOn,
		Concept: &concept, WalletID: &walletID, CategoryID: r.CategoryID, RecurringID: &c.RecurringID}.Decide(w)
	if err != nil {
		return nil, err
	}
	next := NextPeriodStart(r.Periodicity, anchor, due)
	if next.After(LastDay) {
		return nil, Conflict("CONFLICT", "paying would move the next payment past %s, the last day of the ledger's calendar",
			LastDay)
	}
	events = append(events, payment...)
	return append(events, &RecurringPaid{
		RecurringID: c.RecurringID, DueDate: due, PaidOn: c.PaidOn, TransactionID: c.TransactionID,
		NextPayment: next, Automatic: c.DueDate != nil,
	}), nil
}

// MaxOwedCycles is the most cycles a recurring payment pays late. An item the scheduler
// pays (active, income or expense) that has more cycles due on or before today skips
// the oldest, unpaid and recorded (RecurringSkipped), and pays the latest MaxOwedCycles:
// an item dated years back, or active again after a long pause, catches up on a year of
// monthly cycles, never on a burst of every one.
const MaxOwedCycles = 12

// appendSkip appends to events the skip of the cycles item id owes on today beyond the
// latest MaxOwedCycles, when it owes more.
func appendSkip(events []Event, id uuid.UUID, r RecurringFields, today Date) ([]Event, error) {
	skip, err := skipOwed(id, r, today)
	if err != nil || skip == nil {
		return events, err
	}
	return append(events, skip), nil
}

// skipOwed returns the skip of the cycles item id owes on today beyond the latest
// MaxOwedCycles, or nil when it owes no more than those.
func skipOwed(id uuid.UUID, r RecurringFields, today Date) (*RecurringSkipped, error) {
	if _, moves := r.Kind.TransactionType(); !r.Active || !moves {
		return nil, nil
	}
	if today.IsZero() {
		return nil, errors.New("domain: the cycles a recurring payment owes need the day the command was issued")
	}
	due, anchor, err := r.cycleDates()
	if err != nil {
		return nil, err
	}
	// The due dates of the latest cycles, in a ring: once the walk is done, the oldest
	// of the MaxOwedCycles kept is the next payment, and the one before it the last
	// cycle skipped.
	var latest [MaxOwedCycles + 1]Date
	owed := 0
	for d := due; !d.After(today); {
		latest[owed%len(latest)] = d
		owed++
		next := NextPeriodStart(r.Periodicity, anchor, d)
		if !next.After(d) {
			return nil, fmt.Errorf("domain: recurring payment %s: no %s cycle follows %s", id, r.Periodicity, d)
		}
		d = next
	}
	if owed <= MaxOwedCycles {
		return nil, nil
	}
	skipped := owed - MaxOwedCycles
	return &RecurringSkipped{RecurringID: id, FirstDue: r.NextPayment, LastDue: latest[(skipped-1)%len(latest)],
		Cycles: skipped, NextPayment: latest[skipped%len(latest)]}, nil
}

// cycleDates returns the due date of the item's oldest unpaid cycle and the date its
// cycles count from.
func (r RecurringFields) cycleDates() (due, anchor Date, err error) {
	if r.NextPayment.IsZero() || r.Anchor.IsZero() {
		return Date{}, Date{}, errors.New("domain: a recurring payment without a next payment date or an anchor")
	}
	return r.NextPayment, r.Anchor, nil
}

func (w *Workspace) liveRecurring(id uuid.UUID) (*Recurring, error) {
	r, ok := w.Recurring[id]
	if !ok || r.Deleted {
		return nil, NotFound("RECURRING_NOT_FOUND", "recurring payment %s not found", id)
	}
	return r, nil
}
