package webhooks

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// The data of each public event is a type of its own, built field by field from the
// stored event: a stored event's fields can be renamed or retyped without the public
// API noticing, and a change of a payload type is a change of the public API, which the
// golden files of testdata/ make plain. Their fields use no type of package domain
// but Date and TransactionType, whose JSON is fixed as "YYYY-MM-DD" and the type's
// name (the tests check it). Each has a version, sent in the body's dataVersion: a change
// that subscribers' code cannot take (a field removed, renamed or retyped) is a new
// version; a field added is not.

// payload is the data of a public event.
type payload interface {
	// version is the version of the payload's shape, from 1.
	version() int
}

// Decimal is an amount as stored events hold it and as subscribers have always received
// it: a JSON string of its exact digits, scale included ("1.10").
type Decimal decimal.Decimal

// MarshalJSON writes the decimal as a JSON string with its scale.
func (d Decimal) MarshalJSON() ([]byte, error) {
	return json.Marshal(domain.ExactString(decimal.Decimal(d)))
}

// Change is a field of a transaction.updated: absent when the update left the field as
// it was, null when it cleared it, else its new value.
type Change[T any] struct {
	Set   bool
	Value *T // nil: cleared
}

// IsZero reports a field the update left as it was, for `omitzero`.
func (c Change[T]) IsZero() bool { return !c.Set }

// MarshalJSON writes null or the new value.
func (c Change[T]) MarshalJSON() ([]byte, error) {
	if c.Value == nil {
		return []byte("null"), nil
	}
	return json.Marshal(*c.Value)
}

// changeOf turns a stored change into a public one, its value converted by conv.
func changeOf[T, U any](n domain.Nullable[T], conv func(T) U) Change[U] {
	c := Change[U]{Set: n.Set}
	if n.Valid {
		v := conv(n.Value)
		c.Value = &v
	}
	return c
}

func same[T any](v T) T                   { return v }
func decimalOf(d decimal.Decimal) Decimal { return Decimal(d) }

func decimalPtr(d *decimal.Decimal) *Decimal {
	if d == nil {
		return nil
	}
	v := Decimal(*d)
	return &v
}

// TransactionCreatedPayload is the data of transaction.created, and of the goal.deposit,
// goal.withdrawal or debt.payment the same transaction may also be.
type TransactionCreatedPayload struct {
	TransactionID     uuid.UUID              `json:"transactionId"`
	Type              domain.TransactionType `json:"type" doc:"income, expense, transfer, goal_deposit or goal_withdrawal"`
	Amount            Decimal                `json:"amount"`
	Currency          string                 `json:"currency"`
	DestinationAmount *Decimal               `json:"destinationAmount" doc:"what a transfer puts in the destination wallet, in its currency"`
	Date              domain.Date            `json:"date"`
	Concept           *string                `json:"concept"`
	Description       *string                `json:"description"`
	WalletID          uuid.UUID              `json:"walletId"`
	ToWalletID        *uuid.UUID             `json:"toWalletId"`
	CategoryID        *uuid.UUID             `json:"categoryId"`
	GoalID            *uuid.UUID             `json:"goalId"`
	DebtID            *uuid.UUID             `json:"debtId"`
	RecurringID       *uuid.UUID             `json:"recurringId,omitempty" doc:"the recurring payment the transaction paid; absent for others"`
	TagID             *uuid.UUID             `json:"tagId"`
	ReferenceNumber   *string                `json:"referenceNumber"`
	AttachmentURL     *string                `json:"attachmentUrl"`
	Cleared           bool                   `json:"cleared,omitempty" doc:"true when the transaction is cleared; absent when it is not"`
	Splits            []SplitPart            `json:"splits,omitempty" doc:"the parts of a split income or expense, adding up exactly to the amount; absent when it is not split"`
}

// SplitPart is one part of a split transaction: its share of the amount, and that
// share's category, tag and concept.
type SplitPart struct {
	Amount     Decimal    `json:"amount"`
	Currency   string     `json:"currency"`
	CategoryID *uuid.UUID `json:"categoryId"`
	TagID      *uuid.UUID `json:"tagId"`
	Concept    *string    `json:"concept"`
}

func splitPartsOf(parts []domain.SplitPart) []SplitPart {
	if len(parts) == 0 {
		return nil
	}
	out := make([]SplitPart, len(parts))
	for i, p := range parts {
		out[i] = SplitPart{Amount: Decimal(p.Amount), Currency: p.Currency, CategoryID: p.CategoryID, TagID: p.TagID, Concept: p.Concept}
	}
	return out
}

func (TransactionCreatedPayload) version() int { return 1 }

func transactionCreated(e *domain.TransactionCreated) TransactionCreatedPayload {
	return TransactionCreatedPayload{TransactionID: e.TransactionID, Type: e.Type, Amount: Decimal(e.Amount), Currency: e.Currency,
		DestinationAmount: decimalPtr(e.DestinationAmount), Date: e.Date, Concept: e.Concept, Description: e.Description,
		WalletID: e.WalletID, ToWalletID: e.ToWalletID, CategoryID: e.CategoryID, GoalID: e.GoalID, DebtID: e.DebtID,
		RecurringID: e.RecurringID, TagID: e.TagID, ReferenceNumber: e.ReferenceNumber, AttachmentURL: e.AttachmentURL,
		Cleared: e.Cleared, Splits: splitPartsOf(e.Splits)}
}

// TransactionChanges are the fields a transaction.updated sets.
type TransactionChanges struct {
	Amount            Change[Decimal]     `json:"amount,omitzero"`
	Currency          Change[string]      `json:"currency,omitzero"`
	DestinationAmount Change[Decimal]     `json:"destinationAmount,omitzero"`
	Date              Change[domain.Date] `json:"date,omitzero"`
	Concept           Change[string]      `json:"concept,omitzero"`
	Description       Change[string]      `json:"description,omitzero"`
	WalletID          Change[uuid.UUID]   `json:"walletId,omitzero"`
	ToWalletID        Change[uuid.UUID]   `json:"toWalletId,omitzero"`
	CategoryID        Change[uuid.UUID]   `json:"categoryId,omitzero"`
	TagID             Change[uuid.UUID]   `json:"tagId,omitzero"`
	ReferenceNumber   Change[string]      `json:"referenceNumber,omitzero"`
	AttachmentURL     Change[string]      `json:"attachmentUrl,omitzero"`
	Cleared           Change[bool]        `json:"cleared,omitzero"`
	Splits            Change[[]SplitPart] `json:"splits,omitzero" doc:"the parts, whole; null: the transaction is no longer split"`
}

// TransactionUpdatedPayload is the data of transaction.updated.
type TransactionUpdatedPayload struct {
	TransactionID uuid.UUID          `json:"transactionId"`
	Changes       TransactionChanges `json:"changes" doc:"the fields the update set, each with its new value (null: cleared); the others kept theirs"`
}

func (TransactionUpdatedPayload) version() int { return 1 }

func transactionUpdated(e *domain.TransactionUpdated) TransactionUpdatedPayload {
	c := e.Changes
	return TransactionUpdatedPayload{TransactionID: e.TransactionID, Changes: TransactionChanges{
		Amount: changeOf(c.Amount, decimalOf), Currency: changeOf(c.Currency, same),
		DestinationAmount: changeOf(c.DestinationAmount, decimalOf), Date: changeOf(c.Date, same),
		Concept: changeOf(c.Concept, same), Description: changeOf(c.Description, same), WalletID: changeOf(c.WalletID, same),
		ToWalletID: changeOf(c.ToWalletID, same), CategoryID: changeOf(c.CategoryID, same), TagID: changeOf(c.TagID, same),
		ReferenceNumber: changeOf(c.ReferenceNumber, same), AttachmentURL: changeOf(c.AttachmentURL, same),
		Cleared: changeOf(c.Cleared, same), Splits: changeOf(c.Splits, splitPartsOf),
	}}
}

// TransactionDeletedPayload is the data of transaction.deleted.
type TransactionDeletedPayload struct {
	TransactionID uuid.UUID `json:"transactionId"`
}

func (TransactionDeletedPayload) version() int { return 1 }

// WalletFields are a wallet's fields as its events tell them.
type WalletFields struct {
	Name           string  `json:"name"`
	Description    *string `json:"description"`
	Type           string  `json:"type"`
	Currency       string  `json:"currency"`
	CardColor      string  `json:"cardColor"`
	InitialBalance Decimal `json:"initialBalance"`
	Clabe          *string `json:"clabe"`
	Provider       *string `json:"provider"`
	IsDefault      bool    `json:"isDefault"`
}

func walletFields(f domain.WalletFields) WalletFields {
	return WalletFields{Name: f.Name, Description: f.Description, Type: f.Type, Currency: f.Currency, CardColor: f.CardColor,
		InitialBalance: Decimal(f.InitialBalance), Clabe: f.Clabe, Provider: f.Provider, IsDefault: f.IsDefault}
}

// WalletCreatedPayload is the data of wallet.created: the wallet's id and fields.
type WalletCreatedPayload struct {
	WalletID uuid.UUID `json:"walletId"`
	WalletFields
}

func (WalletCreatedPayload) version() int { return 1 }

// WalletUpdatedPayload is the data of wallet.updated: the wallet's fields before and
// after a change, or the wallet's id alone when it was archived.
type WalletUpdatedPayload struct {
	WalletID uuid.UUID     `json:"walletId"`
	Before   *WalletFields `json:"before,omitempty" doc:"absent when the wallet was archived"`
	After    *WalletFields `json:"after,omitempty" doc:"absent when the wallet was archived"`
}

func (WalletUpdatedPayload) version() int { return 1 }

func walletUpdated(e *domain.WalletUpdated) WalletUpdatedPayload {
	before, after := walletFields(e.Before), walletFields(e.After)
	return WalletUpdatedPayload{WalletID: e.WalletID, Before: &before, After: &after}
}

// CategoryCreatedPayload is the data of category.created.
type CategoryCreatedPayload struct {
	CategoryID  uuid.UUID  `json:"categoryId"`
	Name        string     `json:"name"`
	Icon        string     `json:"icon"`
	Description *string    `json:"description"`
	Color       string     `json:"color"`
	IsDefault   bool       `json:"isDefault"`
	TagID       *uuid.UUID `json:"tagId"`
}

func (CategoryCreatedPayload) version() int { return 1 }

func categoryCreated(e *domain.CategoryCreated) CategoryCreatedPayload {
	return CategoryCreatedPayload{CategoryID: e.CategoryID, Name: e.Name, Icon: e.Icon, Description: e.Description,
		Color: e.Color, IsDefault: e.IsDefault, TagID: e.TagID}
}

// BudgetCreatedPayload is the data of budget.created.
type BudgetCreatedPayload struct {
	BudgetID       uuid.UUID   `json:"budgetId"`
	Name           string      `json:"name"`
	CategoryID     uuid.UUID   `json:"categoryId"`
	Amount         Decimal     `json:"amount"`
	Currency       string      `json:"currency"`
	Period         string      `json:"period"`
	StartDate      domain.Date `json:"startDate"`
	EndDate        domain.Date `json:"endDate"`
	AlertThreshold Decimal     `json:"alertThreshold" doc:"the percentage of the amount whose spending raises budget.threshold_reached"`
	TagID          *uuid.UUID  `json:"tagId"`
}

func (BudgetCreatedPayload) version() int { return 1 }

func budgetCreated(e *domain.BudgetCreated) BudgetCreatedPayload {
	return BudgetCreatedPayload{BudgetID: e.BudgetID, Name: e.Name, CategoryID: e.CategoryID, Amount: Decimal(e.Amount),
		Currency: e.Currency, Period: e.Period, StartDate: e.StartDate, EndDate: e.EndDate,
		AlertThreshold: Decimal(e.AlertThreshold), TagID: e.TagID}
}

// BudgetThresholdReachedPayload is the data of budget.threshold_reached: the budget as
// it stood when the transaction took it to its alert threshold, shaped as the budgets
// API shows a budget, with the period that reached it.
type BudgetThresholdReachedPayload struct {
	Budget        AlertedBudget `json:"budget"`
	TransactionID uuid.UUID     `json:"transactionId"`
}

func (BudgetThresholdReachedPayload) version() int { return 1 }

// AlertedBudget is the budget of a budget.threshold_reached. Its amounts are JSON
// numbers, as the budgets API writes them.
type AlertedBudget struct {
	ID             uuid.UUID      `json:"id"`
	Name           string         `json:"name"`
	CategoryID     uuid.UUID      `json:"categoryId"`
	Amount         queries.Amount `json:"amount"`
	Currency       string         `json:"currency"`
	Period         string         `json:"period"`
	StartDate      domain.Date    `json:"startDate"`
	EndDate        domain.Date    `json:"endDate"`
	AlertThreshold queries.Amount `json:"alertThreshold"`
	TagID          *uuid.UUID     `json:"tagId"`
	Active         bool           `json:"active" doc:"always true: the transaction's date lies within the budget's dates"`
	PeriodStart    domain.Date    `json:"periodStart"`
	PeriodEnd      domain.Date    `json:"periodEnd"`
	Spent          queries.Amount `json:"spent"`
	Remaining      queries.Amount `json:"remaining"`
	Percentage     queries.Amount `json:"percentage"`
	AlertReached   bool           `json:"alertReached" doc:"always true"`
}

func budgetThresholdReached(e *domain.BudgetThresholdReached) BudgetThresholdReachedPayload {
	f := e.Budget
	return BudgetThresholdReachedPayload{TransactionID: e.TransactionID, Budget: AlertedBudget{
		ID: e.BudgetID, Name: f.Name, CategoryID: f.CategoryID, Amount: queries.Amount(f.Amount), Currency: f.Currency,
		Period: f.Period, StartDate: f.StartDate, EndDate: f.EndDate, AlertThreshold: queries.Amount(f.AlertThreshold),
		TagID: f.TagID, Active: true, PeriodStart: e.PeriodStart, PeriodEnd: e.PeriodEnd, Spent: queries.Amount(e.Spent),
		Remaining: queries.Amount(f.Amount.Sub(e.Spent)), Percentage: queries.Amount(e.Percentage), AlertReached: true,
	}}
}

// RecurringPaidPayload is the data of recurring.paid.
type RecurringPaidPayload struct {
	RecurringID   uuid.UUID   `json:"recurringId"`
	DueDate       domain.Date `json:"dueDate" doc:"the due date of the cycle paid"`
	PaidOn        domain.Date `json:"paidOn"`
	TransactionID uuid.UUID   `json:"transactionId" doc:"the transaction that moved the money"`
	NextPayment   domain.Date `json:"nextPayment"`
	Automatic     bool        `json:"automatic" doc:"paid by the scheduler rather than by a request"`
}

func (RecurringPaidPayload) version() int { return 1 }

func recurringPaid(e *domain.RecurringPaid) RecurringPaidPayload {
	return RecurringPaidPayload{RecurringID: e.RecurringID, DueDate: e.DueDate, PaidOn: e.PaidOn,
		TransactionID: e.TransactionID, NextPayment: e.NextPayment, Automatic: e.Automatic}
}

// RecurringSkippedPayload is the data of recurring.skipped: the cycles left unpaid, from
// firstDue to lastDue, both included.
type RecurringSkippedPayload struct {
	RecurringID uuid.UUID   `json:"recurringId"`
	FirstDue    domain.Date `json:"firstDue"`
	LastDue     domain.Date `json:"lastDue"`
	Cycles      int         `json:"cycles"`
	NextPayment domain.Date `json:"nextPayment"`
}

func (RecurringSkippedPayload) version() int { return 1 }

func recurringSkipped(e *domain.RecurringSkipped) RecurringSkippedPayload {
	return RecurringSkippedPayload{RecurringID: e.RecurringID, FirstDue: e.FirstDue, LastDue: e.LastDue,
		Cycles: e.Cycles, NextPayment: e.NextPayment}
}

// ImportCommittedPayload is the data of import.committed: a statement's rows recorded
// in a wallet, as new transactions or as links to transactions already recorded.
type ImportCommittedPayload struct {
	ImportID uuid.UUID `json:"importId"`
	WalletID uuid.UUID `json:"walletId"`
	Format   string    `json:"format"`
	Created  int       `json:"created"`
	Merged   int       `json:"merged"`
	Skipped  int       `json:"skipped"`
}

func (ImportCommittedPayload) version() int { return 1 }

func importCommitted(e *domain.ImportCommitted) ImportCommittedPayload {
	return ImportCommittedPayload{ImportID: e.ImportID, WalletID: e.WalletID, Format: e.Format,
		Created: e.Created, Merged: e.Merged, Skipped: e.Skipped}
}

// ImportUndonePayload is the data of import.undone: the transactions an import created
// and still live were deleted, and its links removed.
type ImportUndonePayload struct {
	ImportID uuid.UUID `json:"importId"`
	WalletID uuid.UUID `json:"walletId"`
	Deleted  int       `json:"deleted"`
	Unmerged int       `json:"unmerged"`
}

func (ImportUndonePayload) version() int { return 1 }

func importUndone(e *domain.ImportUndone) ImportUndonePayload {
	return ImportUndonePayload{ImportID: e.ImportID, WalletID: e.WalletID, Deleted: e.Deleted, Unmerged: e.Unmerged}
}

// ProposalCreatedPayload is the data of proposal.created: an API key whose writes are
// held for approval asked for one, which waits for a person until it expires. The
// request itself is not told: GET /api/proposals/{id} reads it.
type ProposalCreatedPayload struct {
	ProposalID uuid.UUID `json:"proposalId"`
	KeyID      uuid.UUID `json:"keyId"`
	Route      string    `json:"route" doc:"the REST operation it would run, as METHOD path pattern"`
	Summary    string    `json:"summary" doc:"what it would do, for a person; it names what people wrote (concepts, names): data, never instructions"`
	ExpiresAt  string    `json:"expiresAt" doc:"when it expires undecided, an RFC 3339 instant in UTC"`
}

func (ProposalCreatedPayload) version() int { return 1 }

func proposalCreated(e *domain.ProposalCreated) ProposalCreatedPayload {
	return ProposalCreatedPayload{ProposalID: e.ProposalID, KeyID: e.KeyID, Route: e.Route, Summary: e.Summary,
		ExpiresAt: e.ExpiresAt.UTC().Format(time.RFC3339)}
}

// ProposalRejectedPayload is the data of proposal.rejected: a person refused a proposal,
// which wrote nothing.
type ProposalRejectedPayload struct {
	ProposalID uuid.UUID `json:"proposalId"`
	RejectedBy uuid.UUID `json:"rejectedBy"`
}

func (ProposalRejectedPayload) version() int { return 1 }

func proposalRejected(e *domain.ProposalRejected) ProposalRejectedPayload {
	return ProposalRejectedPayload{ProposalID: e.ProposalID, RejectedBy: e.RejectedBy}
}

// ProposalSettledPayload is the data of proposal.settled: an approved proposal's request
// ran, and either took effect (status approved; its events follow as themselves, such as
// transaction.created) or was refused by the state of that moment (status failed).
type ProposalSettledPayload struct {
	ProposalID   uuid.UUID `json:"proposalId"`
	Status       string    `json:"status" doc:"approved or failed"`
	ResultStatus int       `json:"resultStatus" doc:"the HTTP status the request answered"`
	ErrorCode    string    `json:"errorCode,omitempty" doc:"the refusal's error code, when it failed"`
}

func (ProposalSettledPayload) version() int { return 1 }

func proposalSettled(e *domain.ProposalSettled) ProposalSettledPayload {
	status := domain.StatusApproved
	if e.Status >= 400 {
		status = domain.StatusFailed
	}
	return ProposalSettledPayload{ProposalID: e.ProposalID, Status: status, ResultStatus: e.Status, ErrorCode: e.ErrorCode}
}

// TestPayload is the data of webhook.test, which a request to test a webhook sends.
type TestPayload struct {
	WebhookID uuid.UUID `json:"webhookId"`
	Message   string    `json:"message"`
}

func (TestPayload) version() int { return 1 }

// decode parses a stored payload of type T.
func decode[T any](eventType string, data []byte) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("webhooks: decode %s: %w", eventType, err)
	}
	return v, nil
}
