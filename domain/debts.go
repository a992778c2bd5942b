package domain

import (
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// CreateDebt adds a debt.
//
// Defaults: PendingBalance nil is TotalAmount (nothing paid yet); Currency nil is the
// workspace's currency.
//
// Errors: VALIDATION_ERROR.
type CreateDebt struct {
	DebtID         uuid.UUID
	Name           string
	Creditor       *string
	TotalAmount    decimal.Decimal
	PendingBalance *decimal.Decimal
	Currency       *string
	DueDate        *Date
}

// Decide fills the defaults and checks the amounts.
func (c CreateDebt) Decide(w *Workspace) ([]Event, error) {
	fields := DebtFields{Name: c.Name, Creditor: c.Creditor, TotalAmount: c.TotalAmount,
		PendingBalance: valueOr(c.PendingBalance, c.TotalAmount), Currency: valueOr(c.Currency, w.Currency), DueDate: c.DueDate}
	if err := checkDebt(fields); err != nil {
		return nil, err
	}
	return []Event{&DebtCreated{DebtID: c.DebtID, DebtFields: fields}}, nil
}

// checkDebt checks a debt's amounts.
func checkDebt(c DebtFields) error {
	if problem := CheckAmount(c.TotalAmount, true); problem != "" {
		return InvalidField("totalAmount", "%s", problem)
	}
	if problem := CheckAmount(c.PendingBalance, false); problem != "" {
		return InvalidField("pendingBalance", "%s", problem)
	}
	if c.PendingBalance.GreaterThan(c.TotalAmount) {
		return InvalidField("pendingBalance", "must not exceed totalAmount")
	}
	return nil
}

// UpdateDebt changes some of a debt's fields.
//
// Errors: DEBT_NOT_FOUND, VALIDATION_ERROR, CONFLICT (a new currency for a debt with
// payments).
type UpdateDebt struct {
	DebtID         uuid.UUID
	Name           Nullable[string]
	Creditor       Nullable[string]
	TotalAmount    Nullable[decimal.Decimal]
	PendingBalance Nullable[decimal.Decimal]
	Currency       Nullable[string]
	DueDate        Nullable[Date]
}

// Decide applies the changes; a debt with payments keeps its currency.
func (c UpdateDebt) Decide(w *Workspace) ([]Event, error) {
	d, err := w.liveDebt(c.DebtID)
	if err != nil {
		return nil, err
	}
	after := d.DebtFields
	setValue(&after.Name, c.Name)
	setPtr(&after.Creditor, c.Creditor)
	setValue(&after.TotalAmount, c.TotalAmount)
	setValue(&after.PendingBalance, c.PendingBalance)
	setValue(&after.Currency, c.Currency)
	setPtr(&after.DueDate, c.DueDate)
	if err := checkDebt(after); err != nil {
		return nil, err
	}
	if after.Currency != d.Currency && d.Payments > 0 {
		return nil, Conflict("CONFLICT", "the debt's currency cannot change once payments are recorded")
	}
	return []Event{&DebtUpdated{DebtID: c.DebtID, Before: d.DebtFields, After: after}}, nil
}

// DeleteDebt removes a debt; its payments stay as expenses.
//
// Errors: DEBT_NOT_FOUND.
type DeleteDebt struct {
	DebtID uuid.UUID
}

// Decide removes a live debt.
func (c DeleteDebt) Decide(w *Workspace) ([]Event, error) {
	if _, err := w.liveDebt(c.DebtID); err != nil {
		return nil, err
	}
	return []Event{&DebtDeleted{DebtID: c.DebtID}}, nil
}

// PayDebt records a payment: an expense from a wallet that lowers the debt's pending
// balance.
//
// Defaults: WalletID nil is the default wallet, else the oldest live one (spec 4.B
// rule 6); Date empty is the business day of Today.
//
// Errors: DEBT_NOT_FOUND, WALLET_NOT_FOUND, VALIDATION_ERROR (among them an amount
// above what is owed).
type PayDebt struct {
	DebtID        uuid.UUID
	TransactionID uuid.UUID
	Amount        decimal.Decimal
	WalletID      *uuid.UUID
	Date          Date
	// Today is the business day the payment was issued.
	Today Date
	Note  *string
}

// Decide checks the amount against what is owed and picks the wallet.
func (c PayDebt) Decide(w *Workspace) ([]Event, error) {
	d, err := w.liveDebt(c.DebtID)
	if err != nil {
		return nil, err
	}
	walletID, err := w.paymentWallet(c.WalletID)
	if err != nil {
		return nil, err
	}
	concept := w.says("Payment: ", "Pago: ") + d.Name
	return (CreateTransaction{TransactionID: c.TransactionID, Type: TxExpense, Amount: c.Amount, Date: c.Date, Today: c.Today,
		Concept: &concept, Description: c.Note, WalletID: &walletID, DebtID: &c.DebtID}).Decide(w)
}

// checkDebtPayment checks an expense that names a debt.
func (w *Workspace) checkDebtPayment(t *Transaction) error {
	d, err := w.liveDebt(*t.DebtID)
	if err != nil {
		return err
	}
	if t.Type != TxExpense {
		return InvalidField("debtId", "goes with expenses only: a debt is paid with an expense")
	}
	if t.Currency != d.Currency {
		return InvalidField("walletId", "holds %s but the debt is in %s", t.Currency, d.Currency)
	}
	if t.Amount.GreaterThan(d.PendingBalance) {
		return InvalidField("amount", "is more than the %s %s still owed", d.PendingBalance, d.Currency)
	}
	return nil
}

// paymentWallet picks the wallet of a payment: the one given, else the default one,
// else the oldest live one.
func (w *Workspace) paymentWallet(given *uuid.UUID) (uuid.UUID, error) {
	if given != nil {
		if _, err := w.liveWallet(*given); err != nil {
			return uuid.Nil, err
		}
		return *given, nil
	}
	if w.DefaultWallet != uuid.Nil {
		return w.DefaultWallet, nil
	}
	oldest, seq := uuid.Nil, int64(-1)
	for id, wallet := range w.Wallets {
		if !wallet.Archived && (seq < 0 || wallet.Seq < seq) {
			oldest, seq = id, wallet.Seq
		}
	}
	if oldest == uuid.Nil {
		return uuid.Nil, NotFound("WALLET_NOT_FOUND", "the workspace has no wallet to pay from")
	}
	return oldest, nil
}

func (w *Workspace) liveDebt(id uuid.UUID) (*Debt, error) {
	d, ok := w.Debts[id]
	if !ok || d.Deleted {
		return nil, NotFound("DEBT_NOT_FOUND", "debt %s not found", id)
	}
	return d, nil
}
