// Package webhooks sends the ledger's events to the URLs workspaces subscribe: a relay
// publishes the global log to NATS JetStream, and a dispatcher turns each event into
// signed deliveries, one per interested subscription, retried until they succeed or
// their schedule runs out.
package webhooks

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// Public is an event as subscribers see it: its public name and its data.
type Public struct {
	Name string
	Data json.RawMessage
}

// internalFields are parts of stored payloads that are the ledger's own bookkeeping.
var internalFields = []string{"postings", "effects"}

// PublicEvents returns the public events a stored event stands for, none for events
// subscribers do not see (members, keys, webhooks themselves). A goal deposit is both
// a transaction.created and a goal.deposit, so a subscriber can follow either.
func PublicEvents(eventType string, data []byte) ([]Public, error) {
	var names []string
	switch eventType {
	case domain.TypeTransactionCreated:
		var t domain.TransactionCreated
		if err := json.Unmarshal(data, &t); err != nil {
			return nil, fmt.Errorf("webhooks: decode %s: %w", eventType, err)
		}
		names = append(names, domain.HookTransactionCreated)
		switch {
		case t.Type == domain.TxGoalDeposit:
			names = append(names, domain.HookGoalDeposit)
		case t.Type == domain.TxGoalWithdrawal:
			names = append(names, domain.HookGoalWithdrawal)
		case t.DebtID != nil:
			names = append(names, domain.HookDebtPayment)
		}
	case domain.TypeTransactionUpdated:
		names = []string{domain.HookTransactionUpdated}
	case domain.TypeTransactionDeleted:
		names = []string{domain.HookTransactionDeleted}
	case domain.TypeWalletCreated:
		names = []string{domain.HookWalletCreated}
	case domain.TypeWalletUpdated, domain.TypeWalletArchived:
		names = []string{domain.HookWalletUpdated}
	case domain.TypeCategoryCreated:
		names = []string{domain.HookCategoryCreated}
	case domain.TypeBudgetCreated:
		names = []string{domain.HookBudgetCreated}
	case domain.TypeRecurringPaid:
		names = []string{domain.HookRecurringPaid}
	case domain.TypeRecurringSkipped:
		names = []string{domain.HookRecurringSkipped}
	case domain.TypeBudgetThresholdReached:
		alert, err := budgetAlertOf(data)
		if err != nil {
			return nil, fmt.Errorf("webhooks: %s: %w", eventType, err)
		}
		return []Public{{Name: domain.HookBudgetThresholdReached, Data: alert}}, nil
	default:
		return nil, nil
	}
	clean, err := withoutInternal(data)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %s: %w", eventType, err)
	}
	out := make([]Public, len(names))
	for i, n := range names {
		out[i] = Public{Name: n, Data: clean}
	}
	return out, nil
}

// budgetAlert is the data of a budget.threshold_reached: the budget as it stood when the
// transaction took it to its alert threshold, shaped as the budgets API shows a budget,
// with the period that reached it.
type budgetAlert struct {
	Budget        alertedBudget `json:"budget"`
	TransactionID uuid.UUID     `json:"transactionId"`
}

// alertedBudget is a budget in a budgetAlert.
type alertedBudget struct {
	ID             uuid.UUID      `json:"id"`
	Name           string         `json:"name"`
	CategoryID     uuid.UUID      `json:"categoryId"`
	Amount         queries.Amount `json:"amount"`
	Currency       string         `json:"currency"`
	Period         string         `json:"period"`
	StartDate      string         `json:"startDate"`
	EndDate        string         `json:"endDate"`
	AlertThreshold queries.Amount `json:"alertThreshold"`
	TagID          *uuid.UUID     `json:"tagId"`
	// Active: the transaction's date, which the period holds, lies within the budget's dates.
	Active       bool           `json:"active"`
	PeriodStart  string         `json:"periodStart"`
	PeriodEnd    string         `json:"periodEnd"`
	Spent        queries.Amount `json:"spent"`
	Remaining    queries.Amount `json:"remaining"`
	Percentage   queries.Amount `json:"percentage"`
	AlertReached bool           `json:"alertReached"`
}

// budgetAlertOf reshapes a stored budget.threshold_reached.v1 into its public data.
func budgetAlertOf(data []byte) (json.RawMessage, error) {
	var e domain.BudgetThresholdReached
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	f := e.Budget
	return json.Marshal(budgetAlert{TransactionID: e.TransactionID, Budget: alertedBudget{
		ID: e.BudgetID, Name: f.Name, CategoryID: f.CategoryID, Amount: queries.Amount(f.Amount), Currency: f.Currency,
		Period: f.Period, StartDate: f.StartDate, EndDate: f.EndDate, AlertThreshold: queries.Amount(f.AlertThreshold),
		TagID: f.TagID, Active: true, PeriodStart: e.PeriodStart, PeriodEnd: e.PeriodEnd, Spent: queries.Amount(e.Spent),
		Remaining: queries.Amount(f.Amount.Sub(e.Spent)), Percentage: queries.Amount(e.Percentage), AlertReached: true,
	}})
}

// withoutInternal drops the bookkeeping fields from a stored payload.
func withoutInternal(data []byte) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	dropped := false
	for _, f := range internalFields {
		if _, ok := fields[f]; ok {
			delete(fields, f)
			dropped = true
		}
	}
	if !dropped {
		return json.RawMessage(data), nil
	}
	return json.Marshal(fields)
}
