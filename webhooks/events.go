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

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
)

// Public is an event as subscribers see it: its public name, and its data with the
// version of the data's shape (see payload).
type Public struct {
	Name    string
	Version int
	Data    json.RawMessage
	// Part is, for a transaction of an import's part (domain.TransactionsImported),
	// the transaction: the stored event stands for one public event per transaction,
	// each with an id of its own (ID). uuid.Nil for any other.
	Part uuid.UUID
}

// ID is the public event's id, given its stored event's: the stored event's own, or for
// a transaction of an import's part, the id of its creation there (domain.PartID).
func (p Public) ID(eventID uuid.UUID) uuid.UUID {
	if p.Part == uuid.Nil {
		return eventID
	}
	return domain.PartID(eventID, p.Part)
}

// PublicEvents returns the public events a stored event stands for, none for events
// subscribers are not told of (members, keys, webhooks themselves; see publicOf).
func PublicEvents(eventType string, data []byte) ([]Public, error) {
	if eventType == domain.TypeTransactionsImported {
		return importedPublic(data)
	}
	names, p, err := publicOf(eventType, data)
	if errors.Is(err, errUnclassified) {
		// A type added without taking a side is kept from subscribers until it does.
		return nil, nil
	}
	if err != nil || len(names) == 0 {
		return nil, err
	}
	out, err := publicEvents(names, p, uuid.Nil)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %s: %w", eventType, err)
	}
	return out, nil
}

// importedPublic is the public events of an import's part: each of its transactions'
// as its own creation would be told.
func importedPublic(data []byte) ([]Public, error) {
	e, err := decode[domain.TransactionsImported](domain.TypeTransactionsImported, data)
	if err != nil {
		return nil, err
	}
	var out []Public
	for i := range e.Transactions {
		created := &e.Transactions[i]
		publics, err := publicEvents(transactionCreatedNames(created), transactionCreated(created), created.TransactionID)
		if err != nil {
			return nil, fmt.Errorf("webhooks: %s: %w", domain.TypeTransactionsImported, err)
		}
		out = append(out, publics...)
	}
	return out, nil
}

// publicEvents is the public events under names with data p, encoded once.
func publicEvents(names []string, p payload, part uuid.UUID) ([]Public, error) {
	first, err := publicEvent(names[0], p)
	if err != nil {
		return nil, err
	}
	first.Part = part
	out := []Public{first}
	for _, name := range names[1:] {
		out = append(out, Public{Name: name, Version: first.Version, Data: first.Data, Part: part})
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

// transactionCreatedNames is the public names a new transaction is told under.
func transactionCreatedNames(e *domain.TransactionCreated) []string {
	names := []string{domain.HookTransactionCreated}
	switch {
	case e.Type == domain.TxGoalDeposit:
		names = append(names, domain.HookGoalDeposit)
	case e.Type == domain.TxGoalWithdrawal:
		names = append(names, domain.HookGoalWithdrawal)
	case e.DebtID != nil:
		names = append(names, domain.HookDebtPayment)
	}
	return names
}

// errUnclassified is what publicOf returns for an event type its switch does not name.
var errUnclassified = fmt.Errorf("webhooks: event type neither public nor kept from subscribers: %w", domain.ErrUnknownEvent)

// Classify returns what publicOf makes of a stored event: nil when it tells subscribers
// of it or keeps it from them, an error wrapping domain.ErrUnknownEvent for a type it
// names in neither case (which PublicEvents keeps from subscribers), or the payload's
// decoding error. internal/eventcontract runs every type through it.
func Classify(eventType string, data []byte) error {
	_, _, err := publicOf(eventType, data)
	return err
}

// publicOf returns the public names a stored event is told to subscribers under, with
// its data, or no names for the event types subscribers are not told of. A goal deposit
// is both a transaction.created and a goal.deposit, so a subscriber can follow either.
// Every stored type is named in one case or the other (a test runs every type through
// it); a type named in neither gives errUnclassified.
func publicOf(eventType string, data []byte) ([]string, payload, error) {
	switch eventType {
	case domain.TypeTransactionCreated:
		e, err := decode[domain.TransactionCreated](eventType, data)
		if err != nil {
			return nil, nil, err
		}
		return transactionCreatedNames(e), transactionCreated(e), nil
	case domain.TypeTransactionsImported:
		// Told one transaction at a time, as each one's creation (importedPublic).
		_, err := decode[domain.TransactionsImported](eventType, data)
		return []string{domain.HookTransactionCreated}, nil, err
	case domain.TypeTransactionUpdated:
		return told(domain.HookTransactionUpdated, eventType, data, transactionUpdated)
	case domain.TypeTransactionDeleted:
		return told(domain.HookTransactionDeleted, eventType, data, func(e *domain.TransactionDeleted) TransactionDeletedPayload {
			return TransactionDeletedPayload{TransactionID: e.TransactionID}
		})
	case domain.TypeWalletCreated:
		return told(domain.HookWalletCreated, eventType, data, func(e *domain.WalletCreated) WalletCreatedPayload {
			return WalletCreatedPayload{WalletID: e.WalletID, WalletFields: walletFields(e.WalletFields)}
		})
	case domain.TypeWalletUpdated:
		return told(domain.HookWalletUpdated, eventType, data, walletUpdated)
	case domain.TypeWalletArchived:
		return told(domain.HookWalletUpdated, eventType, data, func(e *domain.WalletArchived) WalletUpdatedPayload {
			return WalletUpdatedPayload{WalletID: e.WalletID}
		})
	case domain.TypeCategoryCreated:
		return told(domain.HookCategoryCreated, eventType, data, categoryCreated)
	case domain.TypeBudgetCreated:
		return told(domain.HookBudgetCreated, eventType, data, budgetCreated)
	case domain.TypeBudgetThresholdReached:
		return told(domain.HookBudgetThresholdReached, eventType, data, budgetThresholdReached)
	case domain.TypeRecurringPaid:
		return told(domain.HookRecurringPaid, eventType, data, recurringPaid)
	case domain.TypeRecurringSkipped:
		return told(domain.HookRecurringSkipped, eventType, data, recurringSkipped)
	case domain.TypeImportCommitted:
		return told(domain.HookImportCommitted, eventType, data, importCommitted)
	case domain.TypeImportUndone:
		return told(domain.HookImportUndone, eventType, data, importUndone)
	case domain.TypeProposalCreated:
		return told(domain.HookProposalCreated, eventType, data, proposalCreated)
	case domain.TypeProposalRejected:
		return told(domain.HookProposalRejected, eventType, data, proposalRejected)
	case domain.TypeProposalSettled:
		return told(domain.HookProposalSettled, eventType, data, proposalSettled)
	case
		// Access: people, members, invitations, keys and the chat channel's links.
		domain.TypeUserRegistered, domain.TypeUserIdentityChanged, domain.TypeUserProfileUpdated, domain.TypeUserDeleted,
		domain.TypeWorkspaceCreated, domain.TypeWorkspaceDeleted, domain.TypeWorkspaceLanguageChanged,
		domain.TypeMemberAdded, domain.TypeMemberInvited, domain.TypeMemberRoleChanged, domain.TypeMemberRemoved,
		domain.TypeInvitationCancelled, domain.TypeAPIKeyCreated, domain.TypeAPIKeyRevoked,
		domain.TypeWhatsAppLinked, domain.TypeWhatsAppUnlinked, domain.TypeWhatsAppSuspended,
		domain.TypeWhatsAppFingerprintRecorded, domain.TypeWhatsAppWorkspaceChanged,
		// Webhooks themselves.
		domain.TypeWebhookCreated, domain.TypeWebhookUpdated, domain.TypeWebhookDeleted, domain.TypeWebhookSecretRotated,
		// Changes of records no public event describes.
		domain.TypeCategoryUpdated, domain.TypeCategoryArchived, domain.TypeTagCreated, domain.TypeTagUpdated,
		domain.TypeTagArchived, domain.TypeBudgetUpdated, domain.TypeBudgetDeleted, domain.TypeGoalCreated,
		domain.TypeGoalUpdated, domain.TypeGoalDeleted, domain.TypeDebtCreated, domain.TypeDebtUpdated,
		domain.TypeDebtDeleted, domain.TypeRecurringCreated, domain.TypeRecurringUpdated, domain.TypeRecurringDeleted,
		domain.TypeExchangeRatesSet, domain.TypeWalletReconciled,
		// A statement row's link to a transaction: import.committed and import.undone tell it.
		domain.TypeTransactionMatched, domain.TypeTransactionUnmatched,
		// Rules, which only propose.
		domain.TypeRuleCreated, domain.TypeRuleUpdated, domain.TypeRuleDeleted,
		// Settings of the import.
		domain.TypeImportProfileSaved, domain.TypeImportProfileDeleted,
		// Receipts, which the API lists with their transaction.
		domain.TypeAttachmentAdded, domain.TypeAttachmentRemoved,
		// An approval: proposal.settled tells how the approved request ended.
		domain.TypeProposalApproved:
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
