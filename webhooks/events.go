// Package webhooks sends the ledger's events to the URLs workspaces subscribe: a relay
// publishes the global log to NATS JetStream, and a dispatcher turns each event into
// signed deliveries, one per interested subscription, retried until they succeed or
// their schedule runs out.
package webhooks

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/finledger/finledger/commands"
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
	case commands.TypeTransactionCreated:
		var t commands.TransactionCreated
		if err := json.Unmarshal(data, &t); err != nil {
			return nil, fmt.Errorf("webhooks: decode %s: %w", eventType, err)
		}
		names = append(names, commands.HookTransactionCreated)
		switch {
		case t.Type == commands.TxGoalDeposit:
			names = append(names, commands.HookGoalDeposit)
		case t.Type == commands.TxGoalWithdrawal:
			names = append(names, commands.HookGoalWithdrawal)
		case t.DebtID != nil:
			names = append(names, commands.HookDebtPayment)
		}
	case commands.TypeTransactionUpdated:
		names = []string{commands.HookTransactionUpdated}
	case commands.TypeTransactionDeleted:
		names = []string{commands.HookTransactionDeleted}
	case commands.TypeWalletCreated:
		names = []string{commands.HookWalletCreated}
	case commands.TypeWalletUpdated, commands.TypeWalletArchived:
		names = []string{commands.HookWalletUpdated}
	case commands.TypeCategoryCreated:
		names = []string{commands.HookCategoryCreated}
	case commands.TypeBudgetCreated:
		names = []string{commands.HookBudgetCreated}
	case commands.TypeRecurringPaid:
		names = []string{commands.HookRecurringPaid}
	case commands.TypeRecurringSkipped:
		names = []string{commands.HookRecurringSkipped}
	case commands.TypeBudgetThresholdReached:
		alert, err := budgetAlertOf(data)
		if err != nil {
			return nil, fmt.Errorf("webhooks: %s: %w", eventType, err)
		}
		return []Public{{Name: commands.HookBudgetThresholdReached, Data: alert}}, nil
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

// errUnclassified is what publicOf returns for an event type its switch does not name.
var errUnclassified = errors.New("webhooks: event type neither public nor kept from subscribers")

// publicOf returns the public names a stored event is told to subscribers under, with
// its data, or no names for the event types subscribers are not told of. A goal deposit
// is both a transaction.created and a goal.deposit, so a subscriber can follow either.
// Every stored type is named in one case or the other (a test runs every type through
// it); a type named in neither gives errUnclassified.
func publicOf(eventType string, data []byte) ([]string, payload, error) {
	switch eventType {
	case commands.TypeTransactionCreated:
		e, err := decode[commands.TransactionCreated](eventType, data)
		if err != nil {
			return nil, nil, err
		}
		names := []string{commands.HookTransactionCreated}
		switch {
		case e.Type == commands.TxGoalDeposit:
			names = append(names, commands.HookGoalDeposit)
		case e.Type == commands.TxGoalWithdrawal:
			names = append(names, commands.HookGoalWithdrawal)
		case e.DebtID != nil:
			names = append(names, commands.HookDebtPayment)
		}
		return names, transactionCreated(e), nil
	case commands.TypeTransactionUpdated:
		return told(commands.HookTransactionUpdated, eventType, data, transactionUpdated)
	case commands.TypeTransactionDeleted:
		return told(commands.HookTransactionDeleted, eventType, data, func(e *commands.TransactionDeleted) TransactionDeletedPayload {
			return TransactionDeletedPayload{TransactionID: e.TransactionID}
		})
	case commands.TypeWalletCreated:
		return told(commands.HookWalletCreated, eventType, data, func(e *commands.WalletCreated) WalletCreatedPayload {
			return WalletCreatedPayload{WalletID: e.WalletID, WalletFields: walletFields(e.WalletFields)}
		})
	case commands.TypeWalletUpdated:
		return told(commands.HookWalletUpdated, eventType, data, walletUpdated)
	case commands.TypeWalletArchived:
		return told(commands.HookWalletUpdated, eventType, data, func(e *commands.WalletArchived) WalletUpdatedPayload {
			return WalletUpdatedPayload{WalletID: e.WalletID}
		})
	case commands.TypeCategoryCreated:
		return told(commands.HookCategoryCreated, eventType, data, categoryCreated)
	case commands.TypeBudgetCreated:
		return told(commands.HookBudgetCreated, eventType, data, budgetCreated)
	case commands.TypeBudgetThresholdReached:
		return told(commands.HookBudgetThresholdReached, eventType, data, budgetThresholdReached)
	case commands.TypeRecurringPaid:
		return told(commands.HookRecurringPaid, eventType, data, recurringPaid)
	case commands.TypeRecurringSkipped:
		return told(commands.HookRecurringSkipped, eventType, data, recurringSkipped)
	case
		// Access: people, members, invitations, keys and the chat channel's links.
		commands.TypeUserRegistered, commands.TypeUserIdentityChanged, commands.TypeUserProfileUpdated, commands.TypeUserDeleted,
		commands.TypeWorkspaceCreated, commands.TypeWorkspaceDeleted, commands.TypeWorkspaceLanguageChanged,
		commands.TypeMemberAdded, commands.TypeMemberInvited, commands.TypeMemberRoleChanged, commands.TypeMemberRemoved,
		commands.TypeInvitationCancelled, commands.TypeAPIKeyCreated, commands.TypeAPIKeyRevoked,
		commands.TypeWhatsAppLinked, commands.TypeWhatsAppUnlinked, commands.TypeWhatsAppSuspended,
		commands.TypeWhatsAppFingerprintRecorded, commands.TypeWhatsAppWorkspaceChanged,
		// Webhooks themselves.
		commands.TypeWebhookCreated, commands.TypeWebhookUpdated, commands.TypeWebhookDeleted, commands.TypeWebhookSecretRotated,
		// Changes of records no public event describes.
		commands.TypeCategoryUpdated, commands.TypeCategoryArchived, commands.TypeTagCreated, commands.TypeTagUpdated,
		commands.TypeTagArchived, commands.TypeBudgetUpdated, commands.TypeBudgetDeleted, commands.TypeGoalCreated,
		commands.TypeGoalUpdated, commands.TypeGoalDeleted, commands.TypeDebtCreated, commands.TypeDebtUpdated,
		commands.TypeDebtDeleted, commands.TypeRecurringCreated, commands.TypeRecurringUpdated, commands.TypeRecurringDeleted,
		commands.TypeExchangeRatesSet:
		return nil, nil, nil
	}
	return nil, nil, fmt.Errorf("%w: %s", errUnclassified, eventType)
}

// told decodes a stored event of type E and tells it under one public name, its data
// made by public.
func told[E any, P payload](name, eventType string, data []byte, public func(*E) P) ([]string, payload, error) {
	e, err := decode[E](eventType, data)
	if err != nil {
		return nil, nil, err
	}
	return []string{name}, public(e), nil
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
	var e commands.BudgetThresholdReached
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
