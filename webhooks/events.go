// Package webhooks sends the ledger's events to the URLs workspaces subscribe: a relay
// publishes the global log to NATS JetStream, and a dispatcher turns each event into
// signed deliveries, one per interested subscription, retried until they succeed or
// their schedule runs out.
package webhooks

import (
	"encoding/json"
	"fmt"

	"github.com/finledger/finledger/commands"
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
