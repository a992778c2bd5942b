package domain

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/uuid"
)

// Why an undo of an agent's work leaves a record as it is (AgentUndoSkip.Reason),
// beside the codes of the commands it runs (TRANSACTION_RECONCILED, CONFLICT, ...).
const (
	// SkipChangedSince: someone other than the key changed the record after the key.
	SkipChangedSince = "CHANGED_SINCE"
	// SkipNotFound: the record no longer exists.
	SkipNotFound = "NOT_FOUND"
	// SkipNotReversible: the key did something the undo does not reverse.
	SkipNotReversible = "NOT_REVERSIBLE"
	// SkipUnchanged: the record holds again what it held before the key changed it.
	SkipUnchanged = "UNCHANGED"
	// SkipUndone: an undo of the key's work reversed it already, and the key has not
	// written it since.
	SkipUndone = "UNDONE_ALREADY"
)

// What an undo of an agent's work did to a record (AgentUndoReversal.Action).
const (
	UndoDeleted  = "deleted"
	UndoRestored = "restored"
)

// AgentAct is an event of a record an API key wrote, as the undo of its work reads it.
type AgentAct struct {
	Event Event
	// ByKey: the key recorded it, at or after the moment its work is undone from.
	ByKey bool
	// Undid: an undo of the key's work recorded it.
	Undid bool
}

// UndoAgentWork reverses, as one command, what an API key did since a moment: the
// transactions it created (goal deposits and debt payments among them) and the budgets
// it created are deleted; the fields its corrections of a transaction set are put back
// to what they held before its first correction since the moment. It skips, and lists,
// a record someone else changed after the key, one that no longer exists, a reconciled
// transaction, and what it does not reverse (the key's deletions, a budget's
// correction, a transaction an import recorded, records of other kinds).
//
// Errors: API_KEY_NOT_FOUND (not a key of the workspace, revoked ones included);
// FORBIDDEN (neither the key's creator nor an owner or admin).
type UndoAgentWork struct {
	KeyID     uuid.UUID
	ActorID   uuid.UUID
	ActorRole string
	// History is, in stream order, every event of each transaction and budget the key
	// wrote since the moment, from the record's creation on, and every other event the
	// key recorded since then.
	History []AgentAct
}

// AgentUndo is what an undo of an agent's work decided: the events that reverse it,
// what they reverse and what they leave.
type AgentUndo struct {
	Events   []Event             `json:"-"`
	Reversed []AgentUndoReversal `json:"reversed"`
	Skipped  []AgentUndoSkip     `json:"skipped"`
}

// AgentUndoReversal is a record an undo reverses.
type AgentUndoReversal struct {
	Kind   string    `json:"kind"`
	ID     uuid.UUID `json:"id"`
	Action string    `json:"action"`
}

// AgentUndoSkip is a record an undo leaves as it is, and why.
type AgentUndoSkip struct {
	Kind    string    `json:"kind"`
	ID      uuid.UUID `json:"id"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
}

// agentRecord is one record of the key's work: its events, in order.
type agentRecord struct {
	kind string
	id   uuid.UUID
	acts []AgentAct
	// first is the index in acts of the key's first write of the record.
	first int
}

// Decide returns the reversal of the key's work, decided against w.
func (c UndoAgentWork) Decide(w *Workspace) (AgentUndo, error) {
	key, ok := w.APIKeys[c.KeyID]
	if !ok {
		return AgentUndo{}, NotFound("API_KEY_NOT_FOUND", "API key %s not found", c.KeyID)
	}
	if key.CreatedBy != c.ActorID && c.ActorRole != RoleOwner && c.ActorRole != RoleAdmin {
		return AgentUndo{}, Forbidden("only the key's creator, an owner or an admin can undo its work")
	}
	records := agentRecords(c.History)
	var unmet []uuid.UUID
	for _, r := range records {
		if r.kind == "transaction" {
			if _, err := w.metTransaction(r.id); Unmet(err) != nil {
				unmet = append(unmet, r.id)
			}
		}
	}
	if len(unmet) > 0 {
		return AgentUndo{}, &unmetTransactions{IDs: unmet}
	}
	undo := AgentUndo{Reversed: []AgentUndoReversal{}, Skipped: []AgentUndoSkip{}}
	for _, r := range records {
		action, events, err := r.reversal(w)
		var refused *Error
		switch {
		case errors.As(err, &refused):
			undo.Skipped = append(undo.Skipped, AgentUndoSkip{Kind: r.kind, ID: r.id, Reason: refused.Code, Message: refused.Message})
		case err != nil:
			return AgentUndo{}, err
		default:
			undo.Events = append(undo.Events, events...)
			undo.Reversed = append(undo.Reversed, AgentUndoReversal{Kind: r.kind, ID: r.id, Action: action})
		}
	}
	return undo, nil
}

// agentRecords groups the history by record, in the order the key first wrote each,
// leaving out the records the key did not write since the moment. A budget's threshold
// reached by the key's transaction is not the key's write of the budget. An import's
// part is read as its transactions (Parts), each a record.
func agentRecords(history []AgentAct) []*agentRecord {
	byID := map[uuid.UUID]*agentRecord{}
	var out []*agentRecord
	for _, stored := range history {
		for e := range Parts(stored.Event) {
			a := stored
			a.Event = e
			kind, id := recordOf(e)
			r := byID[id]
			if r == nil {
				r = &agentRecord{kind: kind, id: id, first: -1}
				byID[id] = r
			}
			if _, derived := e.(*BudgetThresholdReached); a.ByKey && !derived && r.first < 0 {
				r.first = len(r.acts)
				out = append(out, r)
			}
			r.acts = append(r.acts, a)
		}
	}
	return out
}

// recordOf names the record an event is about: its type's first word ("transaction",
// "budget", ...) and the first id of its payload, which names its record
// (TransactionID, BudgetID, ...).
func recordOf(e Event) (kind string, id uuid.UUID) {
	kind, _, _ = strings.Cut(e.EventType(), ".")
	v := reflect.ValueOf(e).Elem()
	for i := range v.NumField() {
		if found, ok := v.Field(i).Interface().(uuid.UUID); ok {
			return kind, found
		}
	}
	return kind, uuid.Nil
}

// reversal decides how the record is reversed, or refuses it with the reason it is
// skipped.
func (r *agentRecord) reversal(w *Workspace) (action string, events []Event, err error) {
	k, err := r.sinceUndone()
	if err != nil {
		return "", nil, err
	}
	for _, a := range r.acts[k:] {
		if !a.ByKey {
			continue
		}
		switch a.Event.(type) {
		case *TransactionDeleted, *BudgetDeleted:
			return "", nil, &Error{Code: SkipNotReversible, Message: "the key deleted it: a deletion is not undone"}
		case *TransactionCreated, *TransactionUpdated, *BudgetCreated, *BudgetThresholdReached:
		case *BudgetUpdated:
			if _, created := r.acts[k].Event.(*BudgetCreated); !created {
				return "", nil, &Error{Code: SkipNotReversible, Message: "a correction of a budget is not undone"}
			}
		default:
			return "", nil, &Error{Code: SkipNotReversible, Message: fmt.Sprintf("%s is not undone", a.Event.EventType())}
		}
	}
	if created, ok := r.acts[k].Event.(*TransactionCreated); ok && created.ImportID != nil {
		return "", nil, &Error{Code: SkipNotReversible, Message: "an import recorded it: undo the import instead"}
	}
	switch r.kind {
	case "transaction":
		if _, err := w.liveTransaction(r.id); err != nil {
			return "", nil, err
		}
	case "budget":
		if b, ok := w.Budgets[r.id]; !ok || b.Deleted {
			return "", nil, NotFound("BUDGET_NOT_FOUND", "budget %s not found", r.id)
		}
	}
	for _, a := range r.acts[k:] {
		switch a.Event.(type) {
		case *TransactionUpdated, *TransactionDeleted, *TransactionMatched, *TransactionUnmatched, *BudgetUpdated, *BudgetDeleted:
			if !a.ByKey {
				return "", nil, &Error{Code: SkipChangedSince, Message: "someone else changed it after the key"}
			}
		}
	}
	switch r.acts[k].Event.(type) {
	case *TransactionCreated:
		events, err = DeleteTransaction{TransactionID: r.id}.Decide(w)
		return UndoDeleted, events, err
	case *BudgetCreated:
		events, err = DeleteBudget{BudgetID: r.id}.Decide(w)
		return UndoDeleted, events, err
	}
	return r.restore(w, k)
}

// sinceUndone is the index of the key's first write of the record that no undo of its
// work reversed yet: its first write, unless an undo came after it, and then its first
// write after the last undo, or SkipUndone when there is none.
func (r *agentRecord) sinceUndone() (int, error) {
	k := r.first
	for i, a := range r.acts {
		if a.Undid && i > r.first {
			k = -1
		}
		if a.ByKey && k < 0 {
			k = i
		}
	}
	if k < 0 {
		return 0, &Error{Code: SkipUndone, Message: "an undo of the key's work reversed it already"}
	}
	return k, nil
}

// restore puts the fields the key's corrections of a transaction set back to what they
// held before the first of them (the record's k-th event).
func (r *agentRecord) restore(w *Workspace, k int) (action string, events []Event, err error) {
	created, ok := r.acts[0].Event.(*TransactionCreated)
	if !ok {
		return "", nil, fmt.Errorf("domain: the history of transaction %s does not start with its creation", r.id)
	}
	before, now := fieldsOf(created), fieldsOf(created)
	var set TransactionChanges
	for i, a := range r.acts[1:] {
		u, ok := a.Event.(*TransactionUpdated)
		if !ok {
			continue
		}
		if i+1 < k {
			overlay(&before, u.Changes)
		} else {
			overlay(&set, u.Changes)
		}
		overlay(&now, u.Changes)
	}
	restored := masked(before, set)
	if reflect.DeepEqual(masked(now, set), restored) {
		return "", nil, &Error{Code: SkipUnchanged, Message: "it holds again what it held before the key changed it"}
	}
	events, err = UpdateTransaction{
		TransactionID: r.id, Amount: restored.Amount, DestinationAmount: restored.DestinationAmount, Date: restored.Date,
		Concept: restored.Concept, Description: restored.Description, WalletID: restored.WalletID, ToWalletID: restored.ToWalletID,
		CategoryID: restored.CategoryID, TagID: restored.TagID, ReferenceNumber: restored.ReferenceNumber,
		AttachmentURL: restored.AttachmentURL, Cleared: restored.Cleared, Splits: restored.Splits,
	}.Decide(w)
	return UndoRestored, events, err
}

// fieldsOf is every field of a created transaction, as a correction sets them.
func fieldsOf(e *TransactionCreated) TransactionChanges {
	return TransactionChanges{
		Amount: Of(e.Amount), Currency: Of(e.Currency), DestinationAmount: ofPtr(e.DestinationAmount), Date: Of(e.Date),
		Concept: ofPtr(e.Concept), Description: ofPtr(e.Description), WalletID: Of(e.WalletID), ToWalletID: ofPtr(e.ToWalletID),
		CategoryID: ofPtr(e.CategoryID), TagID: ofPtr(e.TagID), ReferenceNumber: ofPtr(e.ReferenceNumber),
		AttachmentURL: ofPtr(e.AttachmentURL), Cleared: Of(e.Cleared),
		Splits: Nullable[[]SplitPart]{Set: true, Valid: e.Splits != nil, Value: e.Splits},
	}
}

// ofPtr is a value that may be null, set.
func ofPtr[T any](p *T) Nullable[T] {
	if p == nil {
		return Null[T]()
	}
	return Of(*p)
}

// overlay sets in dst the fields c sets.
func overlay(dst *TransactionChanges, c TransactionChanges) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(c)
	for i := range s.NumField() {
		if s.Field(i).FieldByName("Set").Bool() {
			d.Field(i).Set(s.Field(i))
		}
	}
}

// masked is the fields of c that mask sets; the currency, which follows the wallet,
// left out.
func masked(c, mask TransactionChanges) TransactionChanges {
	var out TransactionChanges
	v, m, o := reflect.ValueOf(c), reflect.ValueOf(mask), reflect.ValueOf(&out).Elem()
	for i := range v.NumField() {
		if m.Field(i).FieldByName("Set").Bool() {
			o.Field(i).Set(v.Field(i))
		}
	}
	out.Currency = Nullable[string]{}
	return out
}
