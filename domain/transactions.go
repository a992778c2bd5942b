package domain

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// TransactionType says what a transaction does: its events, the state and the read
// models carry it as its name.
type TransactionType string

// Transaction types.
const (
	TxIncome         TransactionType = "income"
	TxExpense        TransactionType = "expense"
	TxTransfer       TransactionType = "transfer"
	TxGoalDeposit    TransactionType = "goal_deposit"
	TxGoalWithdrawal TransactionType = "goal_withdrawal"
)

// The rules of a transaction's texts.
var (
	ConceptText     = Text{Max: 255}
	DescriptionText = Text{Max: 2000, Multiline: true}
)

// TransactionTypes lists every transaction type.
var TransactionTypes = []TransactionType{TxIncome, TxExpense, TxTransfer, TxGoalDeposit, TxGoalWithdrawal}

// CreateTransaction records income, an expense, a transfer or a goal movement.
//
// Defaults: Type empty is TxExpense; Date empty is the business day of Today; WalletID nil is the wallet named
// WalletName when that is set, else the workspace's default wallet; CategoryID nil is
// the category named CategoryName when that is set, else none.
//
// Lookups: WalletName and CategoryName are resolved against the workspace's live
// wallets and categories, ignoring accents and case.
//
// Errors: VALIDATION_ERROR; WALLET_NOT_FOUND and CATEGORY_NOT_FOUND (for a name, with
// the closest names as suggestions); TAG_NOT_FOUND, GOAL_NOT_FOUND, DEBT_NOT_FOUND.
type CreateTransaction struct {
	TransactionID     uuid.UUID
	Type              TransactionType
	Amount            decimal.Decimal
	DestinationAmount *decimal.Decimal
	Date              Date
	// Today is the business day the command was issued, the date of a transaction
	// given none.
	Today           Date
	Concept         *string
	Description     *string
	WalletID        *uuid.UUID
	WalletName      *string
	ToWalletID      *uuid.UUID
	CategoryID      *uuid.UUID
	CategoryName    *string
	GoalID          *uuid.UUID
	DebtID          *uuid.UUID
	RecurringID     *uuid.UUID
	TagID           *uuid.UUID
	ReferenceNumber *string
	AttachmentURL   *string
	// Cleared marks the transaction as seen on the wallet's statement.
	Cleared bool
	// Splits, when not nil, share the amount among parts (splits.go).
	Splits []SplitPart
}

// Decide checks the transaction against the workspace and computes its postings.
func (c CreateTransaction) Decide(w *Workspace) ([]Event, error) {
	if c.WalletID == nil && c.WalletName != nil {
		id, _, err := w.walletNamed(*c.WalletName)
		if err != nil {
			return nil, err
		}
		c.WalletID = &id
	}
	if c.CategoryID == nil && c.CategoryName != nil {
		id, _, err := w.categoryNamed(*c.CategoryName)
		if err != nil {
			return nil, err
		}
		c.CategoryID = id
	}
	date, err := dateOrToday(c.Date, c.Today)
	if err != nil {
		return nil, err
	}
	c.Date = date
	c.Type = stringOr(c.Type, TxExpense)
	switch c.Type {
	case TxIncome, TxExpense, TxTransfer:
	case TxGoalDeposit, TxGoalWithdrawal:
		if c.GoalID == nil {
			return nil, InvalidField("goalId", "is required for a %s", c.Type)
		}
		first, id := true, c.TransactionID // the closure takes a copy: taking c would put every c on the heap
		note := c.Description
		if note == nil {
			note = c.Concept
		}
		return GoalMovement{GoalID: *c.GoalID, Type: c.Type, Amount: c.Amount, WalletID: c.WalletID, Date: c.Date, Note: note,
			NewID: func() uuid.UUID {
				if first {
					first = false
					return id
				}
				return uuid.Must(uuid.NewV7())
			}}.Decide(w)
	default:
		return nil, InvalidField("type", "must be one of %v", TransactionTypes)
	}
	walletID := w.DefaultWallet
	if c.WalletID != nil {
		walletID = *c.WalletID
	} else if walletID == uuid.Nil {
		return nil, InvalidField("walletId", "is required: the workspace has no default wallet")
	}
	t := Transaction{
		Type: c.Type, Amount: c.Amount, DestinationAmount: c.DestinationAmount,
		WalletID: walletID, ToWalletID: c.ToWalletID, CategoryID: c.CategoryID, TagID: c.TagID, DebtID: c.DebtID,
	}
	if err := w.checkTransaction(&t, true); err != nil {
		return nil, err
	}
	if c.Splits != nil {
		if t.Splits, err = w.checkSplits(&t, c.Splits); err != nil {
			return nil, err
		}
	}
	if c.GoalID != nil {
		return nil, InvalidField("goalId", "goes with goal_deposit and goal_withdrawal only")
	}
	if c.DebtID != nil {
		if err := w.checkDebtPayment(&t); err != nil {
			return nil, err
		}
	}
	return []Event{&TransactionCreated{
		TransactionID: c.TransactionID, Type: t.Type, Amount: t.Amount, Currency: t.Currency,
		DestinationAmount: t.DestinationAmount, Date: c.Date, Concept: c.Concept, Description: c.Description,
		WalletID: t.WalletID, ToWalletID: t.ToWalletID, CategoryID: t.CategoryID, GoalID: c.GoalID,
		DebtID: c.DebtID, RecurringID: c.RecurringID, TagID: t.TagID, ReferenceNumber: c.ReferenceNumber,
		AttachmentURL: c.AttachmentURL, Cleared: c.Cleared, Splits: t.Splits, Postings: netPostings(t.effect()),
		Effects: t.createdEffects(),
	}}, nil
}

// UpdateTransaction corrects a live transaction; balances move from its old effect to
// its new one.
//
// Errors: VALIDATION_ERROR; TRANSACTION_NOT_FOUND; TRANSACTION_RECONCILED (a reconciled
// transaction, unless AllowReconciled; the cleared mark alone is always taken); CONFLICT
// (a goal movement); those of the wallets, category and tag it names.
type UpdateTransaction struct {
	TransactionID     uuid.UUID
	Amount            Nullable[decimal.Decimal]
	DestinationAmount Nullable[decimal.Decimal]
	Date              Nullable[Date]
	Concept           Nullable[string]
	Description       Nullable[string]
	WalletID          Nullable[uuid.UUID]
	ToWalletID        Nullable[uuid.UUID]
	CategoryID        Nullable[uuid.UUID]
	TagID             Nullable[uuid.UUID]
	ReferenceNumber   Nullable[string]
	AttachmentURL     Nullable[string]
	Cleared           Nullable[bool]
	// Splits replaces the parts whole, or null makes the transaction one category again
	// (splits.go).
	Splits Nullable[[]SplitPart]
	// AllowReconciled changes a reconciled transaction, which keeps its mark.
	AllowReconciled bool
}

// Decide checks the corrected transaction and returns the update with its postings.
func (c UpdateTransaction) Decide(w *Workspace) ([]Event, error) {
	old, err := w.liveTransaction(c.TransactionID)
	if err != nil {
		return nil, err
	}
	changes := TransactionChanges{
		Amount: c.Amount, DestinationAmount: c.DestinationAmount, Date: c.Date, Concept: c.Concept,
		Description: c.Description, WalletID: c.WalletID, ToWalletID: c.ToWalletID, CategoryID: c.CategoryID,
		TagID: c.TagID, ReferenceNumber: c.ReferenceNumber, AttachmentURL: c.AttachmentURL,
	}
	if c.Cleared.Set && !c.Cleared.Valid {
		return nil, InvalidField("cleared", "cannot be null")
	}
	if c.Splits.Valid && !changes.CategoryID.Set && old.CategoryID != nil {
		// Split, a transaction's category gives way to its parts'.
		changes.CategoryID = Null[uuid.UUID]()
	}
	if reflect.ValueOf(changes).IsZero() && !c.Splits.Set {
		// The cleared mark alone, or nothing: no money moves, goal movements included.
		if !c.Cleared.Set {
			return nil, nil
		}
		changes.Cleared = c.Cleared
		return []Event{&TransactionUpdated{TransactionID: c.TransactionID,
			Changes: changes, Effects: old.correctedEffects(changes)}}, nil
	}
	if err := refuseReconciled(c.TransactionID, old, c.AllowReconciled); err != nil {
		return nil, err
	}
	if old.GoalID != nil {
		return nil, Conflict("CONFLICT", "a goal movement cannot be changed, only marked cleared: delete it and record it again")
	}
	if changes.Amount.Set && !changes.Amount.Valid {
		return nil, InvalidField("amount", "cannot be null")
	}
	if changes.WalletID.Set && !changes.WalletID.Valid {
		return nil, InvalidField("walletId", "cannot be null")
	}
	next := *old
	next.applyChanges(changes)
	// A transfer moved between wallets of one currency carries no destination amount.
	if next.Type == TxTransfer && !changes.DestinationAmount.Set && (changes.WalletID.Set || changes.ToWalletID.Set || changes.Amount.Set) {
		if from, to := w.Wallets[next.WalletID], w.walletOf(next.ToWalletID); from != nil && to != nil && from.Currency == to.Currency {
			next.DestinationAmount = nil
		}
	}
	if err := w.checkTransaction(&next, changes.WalletID.Set || changes.ToWalletID.Set); err != nil {
		return nil, err
	}
	if next.DebtID != nil {
		// The payment is checked against what was owed before it.
		if d, ok := w.Debts[*next.DebtID]; ok && !d.Deleted {
			owed := d.PendingBalance.Add(old.Amount)
			if next.Amount.GreaterThan(owed) {
				return nil, InvalidField("amount", "is more than the %s %s owed before this payment", owed, d.Currency)
			}
			if next.Currency != d.Currency {
				return nil, InvalidField("walletId", "holds %s but the debt is in %s", next.Currency, d.Currency)
			}
		}
	}
	if changes.Splits, err = w.correctedSplits(old, &next, c.Splits); err != nil {
		return nil, err
	}
	if next.Currency != old.Currency {
		changes.Currency = Of(next.Currency)
	}
	if !eqDecimalPtr(next.DestinationAmount, old.DestinationAmount) {
		changes.DestinationAmount = Nullable[decimal.Decimal]{Set: true, Valid: next.DestinationAmount != nil}
		if next.DestinationAmount != nil {
			changes.DestinationAmount.Value = *next.DestinationAmount
		}
	}
	changes.Cleared = c.Cleared
	return []Event{&TransactionUpdated{
		TransactionID: c.TransactionID,
		Changes:       changes,
		Postings:      netPostings(negate(old.effect()), next.effect()),
		Effects:       old.correctedEffects(changes),
	}}, nil
}

// DeleteTransaction soft-deletes a live transaction and reverts its effect on balances.
//
// Errors: TRANSACTION_NOT_FOUND; TRANSACTION_RECONCILED (a reconciled transaction,
// unless AllowReconciled); CONFLICT (a goal deposit already withdrawn).
type DeleteTransaction struct {
	TransactionID uuid.UUID
	// AllowReconciled deletes a reconciled transaction.
	AllowReconciled bool
}

// Decide returns the deletion with the postings that revert the transaction.
func (c DeleteTransaction) Decide(w *Workspace) ([]Event, error) {
	t, err := w.liveTransaction(c.TransactionID)
	if err != nil {
		return nil, err
	}
	if err := refuseReconciled(c.TransactionID, t, c.AllowReconciled); err != nil {
		return nil, err
	}
	if t.GoalID != nil && t.Type == TxGoalDeposit {
		if g, ok := w.Goals[*t.GoalID]; ok && (t.Amount.GreaterThan(g.Saved) || t.Amount.GreaterThan(g.Funded[t.WalletID])) {
			return nil, Conflict("CONFLICT", "the goal no longer holds this deposit: it was withdrawn")
		}
	}
	return []Event{&TransactionDeleted{
		TransactionID: c.TransactionID, Postings: netPostings(negate(t.effect())), Effects: t.deletedEffects(),
	}}, nil
}

// Bulk operations.
const (
	BulkDelete       = "delete"
	BulkRecategorize = "recategorize"
)

// BulkTransactions deletes or recategorizes several transactions at once: all of them
// or, when any is missing or refuses the change, none.
//
// Errors: VALIDATION_ERROR; TRANSACTION_NOT_FOUND (with the missing ids);
// TRANSACTION_RECONCILED (with the reconciled ids, unless AllowReconciled); CONFLICT (a
// goal movement); CATEGORY_NOT_FOUND.
type BulkTransactions struct {
	IDs        []uuid.UUID
	Operation  string
	CategoryID *uuid.UUID
	// AllowReconciled changes reconciled transactions too, which keep their mark.
	AllowReconciled bool
}

// Decide returns one event per transaction that changes.
func (c BulkTransactions) Decide(w *Workspace) ([]Event, error) {
	// Decide sees the state before the batch, so a repeated id would be reverted twice.
	seen := make(map[uuid.UUID]bool, len(c.IDs))
	ids := c.IDs[:0:0]
	for _, id := range c.IDs {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	c.IDs = ids
	var missing, reconciled []string
	unmet := &unmetTransactions{}
	for _, id := range c.IDs {
		t, err := w.liveTransaction(id)
		if more := Unmet(err); more != nil {
			unmet.IDs = append(unmet.IDs, more...)
			continue
		}
		if err != nil {
			missing = append(missing, id.String())
			continue
		}
		if t.Reconciled && !c.AllowReconciled {
			reconciled = append(reconciled, id.String())
		}
		if t.GoalID != nil {
			// Each deletion of a goal movement is checked against what the goal holds
			// after the ones before it: that takes one request each.
			return nil, Conflict("CONFLICT", "transaction %s is a goal movement: delete goal movements one at a time", id)
		}
	}
	if len(unmet.IDs) > 0 {
		return nil, unmet
	}
	if len(missing) > 0 {
		err := NotFound("TRANSACTION_NOT_FOUND", "%d of the transactions were not found; nothing was changed", len(missing))
		err.Details = map[string]any{"missing": missing}
		return nil, err
	}
	if len(reconciled) > 0 {
		err := Conflict("TRANSACTION_RECONCILED", "%d of the transactions are reconciled with a bank statement; nothing was "+
			"changed: to change them anyway, send allowReconciled: true", len(reconciled))
		err.Details = map[string]any{"reconciled": reconciled}
		return nil, err
	}
	var events []Event
	switch c.Operation {
	case BulkDelete:
		for _, id := range c.IDs {
			e, err := DeleteTransaction{TransactionID: id, AllowReconciled: c.AllowReconciled}.Decide(w)
			if err != nil {
				return nil, err
			}
			events = append(events, e...)
		}
	case BulkRecategorize:
		if c.CategoryID == nil {
			return nil, InvalidField("categoryId", "is required to recategorize")
		}
		if _, err := w.liveCategory(*c.CategoryID); err != nil {
			return nil, err
		}
		for _, id := range c.IDs {
			t := w.Transactions[id]
			if len(t.Splits) > 0 {
				err := Conflict("TRANSACTION_SPLIT", "transaction %s is split: each part has its own category, changed by "+
					"correcting its parts (splits); nothing was changed", id)
				err.Details = map[string]any{"split": []string{id.String()}}
				return nil, err
			}
			if eqPtr(t.CategoryID, c.CategoryID) {
				continue
			}
			changes := TransactionChanges{CategoryID: Of(*c.CategoryID)}
			events = append(events, &TransactionUpdated{
				TransactionID: id, Changes: changes, Effects: t.correctedEffects(changes),
			})
		}
	default:
		return nil, InvalidField("operation", "must be delete or recategorize")
	}
	return events, nil
}

// checkTransaction validates t against the workspace and fills in its currency. Wallets
// must be live only when the transaction is being pointed at them.
func (w *Workspace) checkTransaction(t *Transaction, walletsChanged bool) error {
	if problem := CheckAmount(t.Amount, true); problem != "" {
		return InvalidField("amount", "%s", problem)
	}
	from, ok := w.Wallets[t.WalletID]
	if !ok || (walletsChanged && from.Archived) {
		return NotFound("WALLET_NOT_FOUND", "wallet %s not found", t.WalletID)
	}
	t.Currency = from.Currency
	if t.Type == TxTransfer {
		if t.ToWalletID == nil {
			return InvalidField("destinationWalletId", "is required for a transfer")
		}
		to, ok := w.Wallets[*t.ToWalletID]
		if !ok || (walletsChanged && to.Archived) {
			return NotFound("WALLET_NOT_FOUND", "wallet %s not found", *t.ToWalletID)
		}
		if *t.ToWalletID == t.WalletID {
			return InvalidField("destinationWalletId", "must differ from walletId")
		}
		switch {
		case to.Currency != from.Currency && t.DestinationAmount == nil:
			return InvalidField("destinationAmount", "is required for a transfer from %s to %s", from.Currency, to.Currency)
		case to.Currency == from.Currency && t.DestinationAmount != nil && !t.DestinationAmount.Equal(t.Amount):
			return InvalidField("destinationAmount", "must equal amount for a transfer within one currency")
		case to.Currency == from.Currency:
			t.DestinationAmount = nil
		}
		if t.DestinationAmount != nil {
			if problem := CheckAmount(*t.DestinationAmount, true); problem != "" {
				return InvalidField("destinationAmount", "%s", problem)
			}
		}
	} else {
		if t.ToWalletID != nil {
			return InvalidField("destinationWalletId", "is only allowed for a transfer")
		}
		if t.DestinationAmount != nil {
			return InvalidField("destinationAmount", "is only allowed for a transfer")
		}
	}
	if t.CategoryID != nil {
		if c, ok := w.Categories[*t.CategoryID]; !ok || c.Archived {
			return NotFound("CATEGORY_NOT_FOUND", "category %s not found", *t.CategoryID)
		}
	}
	if t.TagID != nil {
		if _, err := w.liveTag(*t.TagID); err != nil {
			return err
		}
	}
	return nil
}

// liveTransaction returns a transaction that exists and is not deleted.
func (w *Workspace) liveTransaction(id uuid.UUID) (*Transaction, error) {
	t, err := w.metTransaction(id)
	if Unmet(err) != nil {
		return nil, err
	}
	if err != nil || t.Deleted {
		return nil, NotFound("TRANSACTION_NOT_FOUND", "transaction %s not found", id)
	}
	return t, nil
}

// metTransaction returns a transaction the state has met, or *unmetTransactions when
// the state may lack it, or an error when it does not exist.
func (w *Workspace) metTransaction(id uuid.UUID) (*Transaction, error) {
	t, ok := w.Transactions[id]
	switch {
	case !ok && w.TransactionsPartial:
		return nil, &unmetTransactions{IDs: []uuid.UUID{id}}
	case t == nil:
		return nil, fmt.Errorf("domain: transaction %s not found", id)
	}
	return t, nil
}

// unmetTransactions reports transactions a decision or a fold needs that the state has
// not met: the Ledger loads them from the stream and runs it again.
type unmetTransactions struct {
	IDs []uuid.UUID
	// Wallets are wallets whose every transaction the decision needs (MeetWallet).
	Wallets []uuid.UUID
}

func (e *unmetTransactions) Error() string {
	return fmt.Sprintf("domain: %d transactions and the transactions of %d wallets not loaded", len(e.IDs), len(e.Wallets))
}

// Unmet returns the transactions err reports the state has not met, nil for any other
// error: the Ledger loads them (MeetTransactions) and decides again.
func Unmet(err error) []uuid.UUID {
	var unmet *unmetTransactions
	if errors.As(err, &unmet) {
		return unmet.IDs
	}
	return nil
}

// UnmetWallets returns the wallets err reports the state has not met every transaction
// of, nil for any other error: the Ledger loads them, records them met (MeetWallet) and
// decides again.
func UnmetWallets(err error) []uuid.UUID {
	var unmet *unmetTransactions
	if errors.As(err, &unmet) {
		return unmet.Wallets
	}
	return nil
}

// MeetTransactions records in the state the transactions named by ids from history,
// the events of the stream that name them (and the imports' parts and the
// reconciliations that list them), in version order: those history does not create are
// recorded as known not to exist.
func (w *Workspace) MeetTransactions(ids []uuid.UUID, history []Event) {
	met := make(map[uuid.UUID]*Transaction, len(ids))
	for _, stored := range history {
		for event := range Parts(stored) {
			switch e := event.(type) {
			case *TransactionCreated:
				met[e.TransactionID] = transactionOf(e)
			case *TransactionUpdated:
				if t := met[e.TransactionID]; t != nil {
					t.applyChanges(e.Changes)
				}
			case *TransactionDeleted:
				if t := met[e.TransactionID]; t != nil {
					t.Deleted = true
				}
			case *TransactionMatched:
				if t := met[e.TransactionID]; t != nil {
					t.link(e)
				}
			case *TransactionUnmatched:
				if t := met[e.TransactionID]; t != nil {
					t.link(e)
				}
			case *WalletReconciled:
				for _, id := range e.TransactionIDs {
					if t := met[id]; t != nil {
						t.Reconciled = true
					}
				}
			}
		}
	}
	for _, id := range ids {
		w.Transactions[id] = met[id] // nil: it did not exist
	}
}

func (w *Workspace) walletOf(id *uuid.UUID) *Wallet {
	if id == nil {
		return nil
	}
	return w.Wallets[*id]
}

// effect is the transaction's movement of wallet balances.
func (t *Transaction) effect() []Posting {
	switch t.Type {
	case TxIncome, TxGoalWithdrawal:
		return []Posting{{t.WalletID, t.Amount}}
	case TxExpense, TxGoalDeposit:
		return []Posting{{t.WalletID, t.Amount.Neg()}}
	case TxTransfer:
		in := t.Amount
		if t.DestinationAmount != nil {
			in = *t.DestinationAmount
		}
		return []Posting{{t.WalletID, t.Amount.Neg()}, {*t.ToWalletID, in}}
	}
	return nil
}

func negate(ps []Posting) []Posting {
	out := make([]Posting, len(ps))
	for i, p := range ps {
		out[i] = Posting{p.WalletID, p.Amount.Neg()}
	}
	return out
}

func eqDecimalPtr(a, b *decimal.Decimal) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
