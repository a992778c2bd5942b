package domain

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A proposal is the write decided, not its events; it is approved or rejected once,
// settled once, and expires a week on.
func TestProposalsAreDecidedOnce(t *testing.T) {
	w := given(t, workspace()...)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	concept := "Super"
	write := CreateTransaction{TransactionID: uuid.New(), Amount: dec("250.00"), CategoryID: &food, Concept: &concept, Today: issued}
	id := uuid.New()
	events, err := Propose{ProposalID: id, KeyID: uuid.New(), Route: "POST /api/transactions", Now: now, Write: write.Decide}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	created := events[0].(*ProposalCreated)
	if len(events) != 1 || created.Summary != `expense 250.00 MXN, "Super", Food, from Cash, on 2026-03-10` ||
		!created.ExpiresAt.Equal(now.Add(ProposalLifetime)) {
		t.Fatalf("proposed %+v", events)
	}
	// A write that would be refused is refused, not proposed.
	refused := CreateTransaction{TransactionID: uuid.New(), Amount: dec("1"), CategoryID: &owner, Today: issued}
	if _, err := (Propose{ProposalID: uuid.New(), Now: now, Write: refused.Decide}).Decide(w); code(err) != "CATEGORY_NOT_FOUND" {
		t.Fatalf("a refused write proposed: %v", err)
	}
	then(t, w, events)

	approved, err := ApproveProposal{ProposalID: id, Now: now}.Decide(w)
	if err != nil || len(approved) != 1 {
		t.Fatalf("approve: %v %v", approved, err)
	}
	then(t, w, approved)
	if _, err := (RejectProposal{ProposalID: id, Now: now}).Decide(w); code(err) != "PROPOSAL_DECIDED" {
		t.Fatalf("reject after approval: %v", err)
	}
	// Approved again before it settled: nothing new, the request runs under its own key.
	if again, err := (ApproveProposal{ProposalID: id, Now: now}).Decide(w); err != nil || len(again) != 0 {
		t.Fatalf("approve again: %v %v", again, err)
	}
	settled, err := SettleProposal{ProposalID: id, Status: 201}.Decide(w)
	if err != nil || len(settled) != 1 {
		t.Fatalf("settle: %v %v", settled, err)
	}
	then(t, w, settled)
	if again, err := (SettleProposal{ProposalID: id, Status: 201}).Decide(w); err != nil || len(again) != 0 {
		t.Fatalf("settled twice: %v %v", again, err)
	}
	if _, err := (ApproveProposal{ProposalID: id, Now: now}).Decide(w); code(err) != "PROPOSAL_DECIDED" {
		t.Fatalf("approve once settled: %v", err)
	}

	// Another, a week on: expired.
	late := uuid.New()
	more, err := Propose{ProposalID: late, Now: now, Write: write.Decide}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, more)
	week := now.Add(ProposalLifetime)
	for _, decide := range []func(*Workspace) ([]Event, error){
		ApproveProposal{ProposalID: late, Now: week}.Decide, RejectProposal{ProposalID: late, Now: week}.Decide,
	} {
		if _, err := decide(w); code(err) != "PROPOSAL_EXPIRED" {
			t.Fatalf("a week on: %v", err)
		}
	}
	if _, err := (ApproveProposal{ProposalID: uuid.New(), Now: now}).Decide(w); code(err) != "PROPOSAL_NOT_FOUND" {
		t.Fatalf("unknown: %v", err)
	}
	if !strings.Contains(w.Describe([]Event{&BudgetCreated{BudgetFields: BudgetFields{Name: "Food", CategoryID: food,
		Amount: dec("300"), Currency: "MXN", Period: PeriodMonthly}}}), `budget "Food", 300 MXN monthly for Food`) {
		t.Fatal("a budget's summary")
	}
}
