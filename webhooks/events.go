// Package webhooks sends the ledger's events to the URLs workspaces subscribe: a relay
// publishes the global log to NATS JetStream, and a dispatcher turns each event into
// signed deliveries, one per interested subscription, retried until they succeed or
// their schedule runs out. It owns what subscribers (and the realtime stream) are told:
// which stored events are public, under which names, and the versioned types of their
// data (payloads.go), from which the OpenAPI document describes them (schema.go).
package webhooks

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/finledger/finledger/commands"
)

// Public is an event as subscribers see it: its public name, and its data with the
// version of the data's shape (see payload).
type Public struct {
	Name    string
	Version int
	Data    json.RawMessage
}

// PublicEvents returns the public events a stored event stands for, none for events
// subscribers are not told of (members, keys, webhooks themselves; see publicOf).
func PublicEvents(eventType string, data []byte) ([]Public, error) {
	names, p, err := publicOf(eventType, data)
	if errors.Is(err, errUnclassified) {
		// A type added without taking a side is kept from subscribers until it does.
		return nil, nil
	}
	if err != nil || len(names) == 0 {
		return nil, err
	}
	first, err := publicEvent(names[0], p)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %s: %w", eventType, err)
	}
	out := []Public{first}
	for _, name := range names[1:] {
		out = append(out, Public{Name: name, Version: first.Version, Data: first.Data})
	}
	return out, nil
}

// publicEvent is the public event name with data p.
func publicEvent(name string, p payload) (Public, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return Public{}, fmt.Errorf("encode %s: %w", name, err)
	}
	return Public{Name: name, Version: p.version(), Data: data}, nil
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
