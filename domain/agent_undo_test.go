package domain

import (
	"reflect"
	"testing"

	"github.com/google/uuid"
)

// The undo of a key's work deletes what it created, puts back what it corrected, and
// leaves what someone changed after it, what it deleted and what no longer exists.
func TestUndoAgentWork(t *testing.T) {
	key := uuid.New()
	w := given(t, append(workspace(), &APIKeyCreated{KeyID: key, Name: "agent", Scopes: []string{"*"}, CreatedBy: owner, Role: RoleOwner})...)
	var history []AgentAct
	act := func(byKey bool, decide func(*Workspace) ([]Event, error)) {
		t.Helper()
		events := mustDecide(t, w, decide)
		then(t, w, events)
		for _, e := range events {
			history = append(history, AgentAct{Event: e, ByKey: byKey})
		}
	}
	expense := func(id uuid.UUID, amount string) func(*Workspace) ([]Event, error) {
		return CreateTransaction{TransactionID: id, Today: issued, Type: TxExpense, Amount: dec(amount), WalletID: idp(cash)}.Decide
	}
	concept := func(s string) Nullable[string] { return Of(s) }
	person, created, corrected, deleted, budget := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	act(false, expense(person, "5"))
	act(false, UpdateTransaction{TransactionID: person, Concept: concept("Lunch")}.Decide)
	before := balances(w)

	act(true, expense(created, "10"))
	act(true, expense(corrected, "3"))
	act(true, UpdateTransaction{TransactionID: person, Amount: Of(dec("7")), Concept: concept("Dinner")}.Decide)
	act(true, UpdateTransaction{TransactionID: person, CategoryID: Of(food)}.Decide)
	act(true, CreateBudget{BudgetID: budget, Name: "Food", CategoryID: food, Amount: dec("100"), StartDate: MustParseDate("2026-03-01"),
		EndDate: MustParseDate("2026-03-31")}.Decide)
	act(true, expense(deleted, "1"))
	act(true, DeleteTransaction{TransactionID: deleted}.Decide)
	act(false, UpdateTransaction{TransactionID: corrected, Concept: concept("Mine")}.Decide)

	undo, err := UndoAgentWork{KeyID: key, ActorID: owner, ActorRole: RoleOwner, History: history}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	want := []AgentUndoReversal{{"transaction", created, UndoDeleted}, {"transaction", person, UndoRestored}, {"budget", budget, UndoDeleted}}
	if !reflect.DeepEqual(undo.Reversed, want) {
		t.Errorf("reversed %+v, want %+v", undo.Reversed, want)
	}
	skipped := map[uuid.UUID]string{}
	for _, s := range undo.Skipped {
		skipped[s.ID] = s.Reason
	}
	if len(skipped) != 2 || skipped[corrected] != SkipChangedSince || skipped[deleted] != SkipNotReversible {
		t.Errorf("skipped %+v", undo.Skipped)
	}
	then(t, w, undo.Events)
	after := balances(w)
	// The transaction someone else corrected stays, and so does its expense of 3.
	if before["Cash"] != "95" || after["Cash"] != "92" {
		t.Errorf("cash %s before the key's work, %s after its undo, want 95 and 92", before["Cash"], after["Cash"])
	}
	if p := w.Transactions[person]; !p.Amount.Equal(dec("5")) || p.CategoryID != nil {
		t.Errorf("restored %+v, want 5 and no category", p)
	}
	if b := w.Budgets[budget]; !b.Deleted {
		t.Error("the key's budget was not deleted")
	}

	for _, e := range undo.Events {
		history = append(history, AgentAct{Event: e})
	}
	again, err := UndoAgentWork{KeyID: key, ActorID: owner, ActorRole: RoleOwner, History: history}.Decide(w)
	if err != nil || len(again.Reversed) != 0 || len(again.Events) != 0 || len(again.Skipped) != 5 {
		t.Errorf("a second undo: %+v, %v", again, err)
	}

	for _, c := range []struct {
		cmd  UndoAgentWork
		code string
	}{
		{UndoAgentWork{KeyID: uuid.New(), ActorID: owner, ActorRole: RoleOwner}, "API_KEY_NOT_FOUND"},
		{UndoAgentWork{KeyID: key, ActorID: uuid.New(), ActorRole: RoleCollaborator}, "FORBIDDEN"},
	} {
		if _, err := c.cmd.Decide(w); code(err) != c.code {
			t.Errorf("%+v: %v, want %s", c.cmd, err, c.code)
		}
	}
}

// A reconciled transaction of the key's is skipped with the reconciliation's code, and a
// record of a kind the undo does not reverse is listed by its event type's first word.
func TestUndoAgentWorkSkipsReconciledAndOtherKinds(t *testing.T) {
	key, spent, savings := uuid.New(), uuid.New(), uuid.New()
	w := given(t, append(workspace(), &APIKeyCreated{KeyID: key, Name: "agent", Scopes: []string{"*"}, CreatedBy: owner, Role: RoleOwner})...)
	var history []AgentAct
	for _, step := range []struct {
		byKey  bool
		decide func(*Workspace) ([]Event, error)
	}{
		{true, CreateTransaction{TransactionID: spent, Today: issued, Type: TxExpense, Amount: dec("10"), WalletID: idp(bank)}.Decide},
		{true, CreateWallet{WalletID: savings, WalletFields: WalletFields{Name: "Savings", Currency: "MXN"}}.Decide},
		{false, ReconcileWallet{WalletID: bank, Balance: dec("990"), Today: issued}.Decide},
	} {
		events := mustDecide(t, w, step.decide)
		then(t, w, events)
		for _, e := range events {
			history = append(history, AgentAct{Event: e, ByKey: step.byKey})
		}
	}
	undo, err := UndoAgentWork{KeyID: key, ActorID: owner, ActorRole: RoleOwner, History: history}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	want := []AgentUndoSkip{{Kind: "transaction", ID: spent, Reason: "TRANSACTION_RECONCILED"}, {Kind: "wallet", ID: savings, Reason: SkipNotReversible}}
	for i := range undo.Skipped {
		undo.Skipped[i].Message = ""
	}
	if len(undo.Reversed) != 0 || len(undo.Events) != 0 || !reflect.DeepEqual(undo.Skipped, want) {
		t.Errorf("undo %+v, want nothing reversed and %+v skipped", undo, want)
	}
}
