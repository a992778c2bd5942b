package domain

import (
	"cmp"
	"slices"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// TypeWalletReconciled names WalletReconciled in history.
const TypeWalletReconciled = "wallet.reconciled.v1"

// AdjustmentConcept is the concept of the transaction a reconciliation books for the
// difference between the statement and the ledger.
const AdjustmentConcept = "Statement reconciliation"

// WalletReconciled records that a wallet's statement balance on Date was checked
// against the ledger: the live transactions of the wallet dated on or before Date that
// were not reconciled yet are from now on (TransactionIDs), and refuse changes unless
// a change says it means it.
type WalletReconciled struct {
	WalletID         uuid.UUID       `json:"walletId"`
	Date             Date            `json:"date"`
	StatementBalance decimal.Decimal `json:"statementBalance"`
	// LedgerBalance is the wallet's balance on Date from its initial balance and its
	// live transactions, the adjustment booked with the reconciliation included.
	LedgerBalance  decimal.Decimal `json:"ledgerBalance"`
	TransactionIDs []uuid.UUID     `json:"transactionIds"`
}

// EventType names WalletReconciled in history.
func (WalletReconciled) EventType() string { return TypeWalletReconciled }

func (WalletReconciled) sealed() {}

// ReconcileWallet checks a wallet against its bank statement: the statement's balance
// on Date beside the ledger's, the balance of the wallet's initial balance and its live
// transactions dated on or before Date (transfers on both wallets, goal movements too,
// each by the postings it makes). The transactions counted that were not reconciled
// yet become reconciled. With Adjust, a difference is booked first as one cleared
// transaction of that date (AdjustmentID): income when the statement is higher, an
// expense when it is lower.
//
// Defaults: Date empty is Today.
//
// Errors: VALIDATION_ERROR (a balance of more than four decimals or too large);
// WALLET_NOT_FOUND (unknown or archived wallet).
type ReconcileWallet struct {
	WalletID     uuid.UUID
	Date         Date
	Balance      decimal.Decimal
	Adjust       bool
	AdjustmentID uuid.UUID
	Today        Date
}

// Decide computes the ledger's balance on the date and returns the reconciliation,
// after the adjustment when one is booked.
func (c ReconcileWallet) Decide(w *Workspace) ([]Event, error) {
	wallet, err := w.liveWallet(c.WalletID)
	if err != nil {
		return nil, err
	}
	if problem := checkAmountDigits(c.Balance); problem != "" {
		return nil, InvalidField("balance", "%s", problem)
	}
	date, err := dateOrToday(c.Date, c.Today)
	if err != nil {
		return nil, err
	}
	if w.TransactionsPartial && !w.WalletsMet[c.WalletID] {
		return nil, &unmetTransactions{Wallets: []uuid.UUID{c.WalletID}}
	}
	ledger, pending := w.walletThrough(c.WalletID, wallet, date)
	var events []Event
	if difference := c.Balance.Sub(ledger); c.Adjust && !difference.IsZero() {
		typ := TxIncome
		if difference.IsNegative() {
			typ = TxExpense
		}
		concept := AdjustmentConcept
		adjustment, err := CreateTransaction{TransactionID: c.AdjustmentID, Type: typ, Amount: difference.Abs(), Date: date,
			Concept: &concept, WalletID: &c.WalletID, Cleared: true}.Decide(w)
		if err != nil {
			return nil, err
		}
		events = append(events, adjustment...)
		ledger = c.Balance
		pending = append(pending, c.AdjustmentID)
	}
	return append(events, &WalletReconciled{WalletID: c.WalletID, Date: date, StatementBalance: c.Balance,
		LedgerBalance: ledger, TransactionIDs: pending}), nil
}

// walletThrough returns the wallet's balance at the end of date, from its initial
// balance and the postings of its live transactions dated on or before it, and those of
// them not reconciled yet, by date and then id. The state must have met all of the
// wallet's transactions.
func (w *Workspace) walletThrough(id uuid.UUID, wallet *Wallet, date Date) (decimal.Decimal, []uuid.UUID) {
	balance := wallet.InitialBalance
	type dated struct {
		id   uuid.UUID
		date Date
	}
	var pending []dated
	for tid, t := range w.Transactions {
		if t == nil || t.Deleted || t.Date.After(date) || !t.touches(id) {
			continue
		}
		for _, p := range t.effect() {
			if p.WalletID == id {
				balance = balance.Add(p.Amount)
			}
		}
		if !t.Reconciled {
			pending = append(pending, dated{tid, t.Date})
		}
	}
	slices.SortFunc(pending, func(a, b dated) int {
		return cmp.Or(a.date.Compare(b.date), cmp.Compare(a.id.String(), b.id.String()))
	})
	ids := make([]uuid.UUID, len(pending))
	for i, p := range pending {
		ids[i] = p.id
	}
	return balance, ids
}

// touches says whether the transaction moves the wallet's balance, as source or
// destination.
func (t *Transaction) touches(wallet uuid.UUID) bool {
	return t.WalletID == wallet || t.ToWalletID != nil && *t.ToWalletID == wallet
}

// applyReconciled marks the transactions the state has met that the reconciliation
// names; those it has not met are marked when they are loaded (MeetTransactions).
func (w *Workspace) applyReconciled(e *WalletReconciled) error {
	wallet, err := find(w.Wallets, e.WalletID, "wallet")
	if err != nil {
		return err
	}
	wallet.ReconciledThrough = e.Date
	for _, id := range e.TransactionIDs {
		if t := w.Transactions[id]; t != nil {
			t.Reconciled = true
		}
	}
	return nil
}

// refuseReconciled refuses a change of a reconciled transaction that does not say it
// means it.
func refuseReconciled(id uuid.UUID, t *Transaction, allowed bool) error {
	if !t.Reconciled || allowed {
		return nil
	}
	return Conflict("TRANSACTION_RECONCILED", "transaction %s is reconciled with a bank statement: to change it anyway, "+
		"send allowReconciled=true (a query parameter of PATCH and DELETE /api/transactions/{id}, a body field of "+
		"POST /api/transactions/bulk)", id)
}

// MeetWallet records that the state now holds every transaction of the wallet: the
// Ledger has loaded those it had not met (Unmet's wallets).
func (w *Workspace) MeetWallet(id uuid.UUID) {
	if w.WalletsMet == nil {
		w.WalletsMet = map[uuid.UUID]bool{}
	}
	w.WalletsMet[id] = true
}

// ForgetTransaction drops one transaction the state has met, as ForgetTransactions drops
// them all: a command or a fold that needs it again loads it.
func (w *Workspace) ForgetTransaction(id uuid.UUID) {
	if _, ok := w.Transactions[id]; ok {
		delete(w.Transactions, id)
		w.TransactionsPartial, w.WalletsMet = true, nil
	}
}

// ForgetTransactions drops the transactions the state has met: from now on it loads
// those a command or a fold needs (TransactionsPartial).
func (w *Workspace) ForgetTransactions() {
	w.Transactions, w.TransactionsPartial, w.WalletsMet = map[uuid.UUID]*Transaction{}, true, nil
}
