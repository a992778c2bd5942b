package domain

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Budget is a budget as the write side sees it.
type Budget struct {
	BudgetFields
	Deleted bool
	// Alerted holds the starts of the periods in which the budget reached
	// its alert threshold: each alerts once.
	Alerted map[Date]bool
}

// Goal is a savings goal as the write side sees it: what it holds, and how much of that
// came from each wallet, for withdrawals that return money where it came from.
type Goal struct {
	GoalFields
	Saved   decimal.Decimal
	Funded  map[uuid.UUID]decimal.Decimal
	Deleted bool
}

// Debt is a debt as the write side sees it.
type Debt struct {
	DebtFields
	Deleted bool
	// Payments counts the live transactions paying the debt; a debt with payments
	// cannot change currency.
	Payments int
}

// Recurring is a recurring payment as the write side sees it.
type Recurring struct {
	RecurringFields
	LastPayment *Date
	Deleted     bool
}

// applyMoney folds the events of budgets, goals, debts and recurring payments.
func (w *Workspace) applyMoney(event Event) error {
	switch e := event.(type) {
	case *BudgetCreated:
		w.Budgets[e.BudgetID] = &Budget{BudgetFields: e.BudgetFields}
	case *BudgetUpdated:
		b, err := find(w.Budgets, e.BudgetID, "budget")
		if err != nil {
			return err
		}
		b.BudgetFields = e.After
	case *BudgetDeleted:
		b, err := find(w.Budgets, e.BudgetID, "budget")
		if err != nil {
			return err
		}
		b.Deleted = true
	case *BudgetThresholdReached:
		b, err := find(w.Budgets, e.BudgetID, "budget")
		if err != nil {
			return err
		}
		if b.Alerted == nil {
			b.Alerted = map[Date]bool{}
		}
		b.Alerted[e.PeriodStart] = true
	case *GoalCreated:
		w.Goals[e.GoalID] = &Goal{GoalFields: e.GoalFields, Funded: map[uuid.UUID]decimal.Decimal{}}
	case *GoalUpdated:
		g, err := find(w.Goals, e.GoalID, "goal")
		if err != nil {
			return err
		}
		g.GoalFields = e.After
	case *GoalDeleted:
		g, err := find(w.Goals, e.GoalID, "goal")
		if err != nil {
			return err
		}
		g.Deleted = true
	case *DebtCreated:
		w.Debts[e.DebtID] = &Debt{DebtFields: e.DebtFields}
	case *DebtUpdated:
		d, err := find(w.Debts, e.DebtID, "debt")
		if err != nil {
			return err
		}
		d.DebtFields = e.After
	case *DebtDeleted:
		d, err := find(w.Debts, e.DebtID, "debt")
		if err != nil {
			return err
		}
		d.Deleted = true
	case *RecurringCreated:
		w.Recurring[e.RecurringID] = &Recurring{RecurringFields: e.RecurringFields}
	case *RecurringUpdated:
		r, err := find(w.Recurring, e.RecurringID, "recurring payment")
		if err != nil {
			return err
		}
		r.RecurringFields = e.After
	case *RecurringDeleted:
		r, err := find(w.Recurring, e.RecurringID, "recurring payment")
		if err != nil {
			return err
		}
		r.Deleted = true
	case *RecurringPaid:
		r, err := find(w.Recurring, e.RecurringID, "recurring payment")
		if err != nil {
			return err
		}
		// The last payment covers the cycle paid: paid ahead, it counts from the due date.
		last := LaterDate(e.PaidOn, e.DueDate)
		r.LastPayment, r.NextPayment = &last, e.NextPayment
	case *RecurringSkipped:
		r, err := find(w.Recurring, e.RecurringID, "recurring payment")
		if err != nil {
			return err
		}
		r.NextPayment = e.NextPayment
	case *ExchangeRatesSet:
		// Rates inform summaries, not decisions.
	default:
		return fmt.Errorf("domain: workspace state cannot apply %T: %w", event, ErrUnknownEvent)
	}
	return nil
}

// find returns the record an event names; a missing one means a corrupt stream.
func find[T any](records map[uuid.UUID]*T, id uuid.UUID, what string) (*T, error) {
	r, ok := records[id]
	if !ok {
		return nil, fmt.Errorf("domain: event about unknown %s %s", what, id)
	}
	return r, nil
}

// moveGoalsAndDebts applies the goal and debt effects of a transaction event.
func (w *Workspace) moveGoalsAndDebts(effects *Effects) error {
	for _, p := range effects.Goals {
		g, err := find(w.Goals, p.GoalID, "goal")
		if err != nil {
			return err
		}
		g.Saved = g.Saved.Add(p.Amount)
		g.Funded[p.WalletID] = g.Funded[p.WalletID].Add(p.Amount)
	}
	for _, p := range effects.Debts {
		d, err := find(w.Debts, p.DebtID, "debt")
		if err != nil {
			return err
		}
		d.PendingBalance = d.PendingBalance.Add(p.Amount)
	}
	return nil
}
