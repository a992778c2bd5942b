package domain

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"
)

// A reconciliation counts the wallet's live transactions up to its date, transfers on
// both sides and goal movements by their postings, and marks those not marked yet; a
// reconciled transaction then refuses changes unless told, the cleared mark excepted.
func TestReconcileWallet(t *testing.T) {
	goal := uuid.New()
	w := given(t, append(workspace(),
		&GoalCreated{GoalID: goal, GoalFields: GoalFields{Name: "Trip", TargetAmount: dec("100"), Currency: "MXN"}})...)
	record := func(cmd CreateTransaction) uuid.UUID {
		cmd.TransactionID, cmd.Today = uuid.New(), issued
		then(t, w, mustDecide(t, w, cmd.Decide))
		return cmd.TransactionID
	}
	day := MustParseDate
	income := record(CreateTransaction{Type: TxIncome, Amount: dec("20.05"), WalletID: idp(cash), Date: day("2026-03-01")})
	expense := record(CreateTransaction{Type: TxExpense, Amount: dec("5"), WalletID: idp(cash), Date: day("2026-03-02")})
	in := record(CreateTransaction{Type: TxTransfer, Amount: dec("10"), WalletID: idp(bank), ToWalletID: idp(cash), Date: day("2026-03-03")})
	out := record(CreateTransaction{Type: TxTransfer, Amount: dec("30"), WalletID: idp(cash), ToWalletID: idp(bank), Date: day("2026-03-04")})
	later := record(CreateTransaction{Type: TxExpense, Amount: dec("1"), WalletID: idp(cash), Date: day("2026-03-09")})
	deleted := record(CreateTransaction{Type: TxExpense, Amount: dec("7"), WalletID: idp(cash), Date: day("2026-03-02")})
	then(t, w, mustDecide(t, w, DeleteTransaction{TransactionID: deleted}.Decide))
	then(t, w, mustDecide(t, w, GoalMovement{Today: issued, GoalID: goal, Type: TxGoalDeposit, Amount: dec("4"), WalletID: idp(cash),
		Date: day("2026-03-05"), NewID: uuid.New}.Decide))
	var deposit uuid.UUID
	for id, tx := range w.Transactions {
		if tx.GoalID != nil {
			deposit = id
		}
	}
	bankOnly := record(CreateTransaction{Type: TxExpense, Amount: dec("2"), WalletID: idp(bank), Date: day("2026-03-01")})

	// Cash: 100 + 20.05 - 5 + 10 - 30 - 4 = 91.05 through the 5th; the 9th's expense is after.
	events := mustDecide(t, w, ReconcileWallet{WalletID: cash, Date: day("2026-03-05"), Balance: dec("91.10")}.Decide)
	if len(events) != 1 {
		t.Fatalf("without adjust: %d events, want the reconciliation alone", len(events))
	}
	r := events[0].(*WalletReconciled)
	if r.LedgerBalance.String() != "91.05" || ExactString(r.StatementBalance) != "91.10" {
		t.Errorf("ledger %s, statement %s; want 91.05 and 91.10", r.LedgerBalance, r.StatementBalance)
	}
	want := []uuid.UUID{income, expense, in, out, deposit}
	if len(r.TransactionIDs) != len(want) || slices.Contains(r.TransactionIDs, later) || slices.Contains(r.TransactionIDs, deleted) ||
		slices.Contains(r.TransactionIDs, bankOnly) {
		t.Fatalf("marked %v, want %v", r.TransactionIDs, want)
	}
	for _, id := range want {
		if !slices.Contains(r.TransactionIDs, id) {
			t.Errorf("%s is not marked", id)
		}
	}
	then(t, w, events)
	if !w.Transactions[income].Reconciled || w.Transactions[later].Reconciled || w.Wallets[cash].ReconciledThrough != day("2026-03-05") {
		t.Error("the fold did not mark what the reconciliation lists")
	}

	// Again on the same date: nothing new to mark. With adjust, one income of the
	// difference, cleared, is booked first and marked with the rest.
	again := mustDecide(t, w, ReconcileWallet{WalletID: cash, Date: day("2026-03-05"), Balance: dec("91.10"), Adjust: true,
		AdjustmentID: uuid.New()}.Decide)
	if len(again) != 2 {
		t.Fatalf("with adjust: %d events, want the adjustment and the reconciliation", len(again))
	}
	adj := again[0].(*TransactionCreated)
	if adj.Type != TxIncome || ExactString(adj.Amount) != "0.05" || !adj.Cleared || adj.Date != day("2026-03-05") ||
		*adj.Concept != AdjustmentConcept {
		t.Errorf("adjustment %+v", adj)
	}
	r = again[1].(*WalletReconciled)
	if !r.LedgerBalance.Equal(dec("91.10")) || len(r.TransactionIDs) != 1 || r.TransactionIDs[0] != adj.TransactionID {
		t.Errorf("after the adjustment: ledger %s, marked %v", r.LedgerBalance, r.TransactionIDs)
	}
	then(t, w, again)
	// A lower statement books an expense.
	lower := mustDecide(t, w, ReconcileWallet{WalletID: cash, Date: day("2026-03-05"), Balance: dec("-1"), Adjust: true,
		AdjustmentID: uuid.New()}.Decide)
	if adj := lower[0].(*TransactionCreated); adj.Type != TxExpense || !adj.Amount.Equal(dec("92.10")) {
		t.Errorf("adjustment down to -1: %s %s", adj.Type, adj.Amount)
	}

	refused := func(what string, err error) {
		t.Helper()
		var de *Error
		if !errors.As(err, &de) || de.Code != "TRANSACTION_RECONCILED" || de.Kind != KindConflict {
			t.Errorf("%s: %v, want TRANSACTION_RECONCILED", what, err)
		}
	}
	_, err := UpdateTransaction{TransactionID: income, Amount: Of(dec("21"))}.Decide(w)
	refused("a correction", err)
	_, err = DeleteTransaction{TransactionID: income}.Decide(w)
	refused("a deletion", err)
	_, err = BulkTransactions{IDs: []uuid.UUID{later, income}, Operation: BulkDelete}.Decide(w)
	refused("a bulk deletion", err)
	_, err = BulkTransactions{IDs: []uuid.UUID{income}, Operation: BulkRecategorize, CategoryID: idp(food)}.Decide(w)
	refused("a bulk recategorization", err)
	_, err = UpdateTransactionByName{TransactionID: income, Amount: Of(dec("21"))}.Decide(w)
	refused("the chat channel's correction", err)
	mustDecide(t, w, UpdateTransaction{TransactionID: income, Cleared: Of(true)}.Decide)
	updated := mustDecide(t, w, UpdateTransaction{TransactionID: income, Amount: Of(dec("21")), AllowReconciled: true}.Decide)
	then(t, w, updated)
	if !w.Transactions[income].Reconciled {
		t.Error("an allowed correction lost the mark")
	}
	mustDecide(t, w, DeleteTransaction{TransactionID: income, AllowReconciled: true}.Decide)
	mustDecide(t, w, BulkTransactions{IDs: []uuid.UUID{later, income}, Operation: BulkDelete, AllowReconciled: true}.Decide)
	mustDecide(t, w, DeleteTransaction{TransactionID: later}.Decide)

	// Archived or unknown wallets are not found.
	then(t, w, []Event{&WalletArchived{WalletID: usd}})
	for _, id := range []uuid.UUID{usd, uuid.New()} {
		if _, err := (ReconcileWallet{WalletID: id, Date: day("2026-03-05"), Balance: dec("1")}).Decide(w); !isCode(err, "WALLET_NOT_FOUND") {
			t.Errorf("wallet %s: %v", id, err)
		}
	}
	if _, err := (ReconcileWallet{WalletID: cash, Date: day("2026-03-05"), Balance: dec("1.00001")}).Decide(w); !isCode(err, "VALIDATION_ERROR") {
		t.Errorf("five decimals: %v", err)
	}
}

// A state that has not met every transaction asks for the wallet's, and meets the
// reconciliations of those it loads.
func TestReconcileWalletAsksForTheWalletsTransactions(t *testing.T) {
	w := given(t, workspace()...)
	w.ForgetTransactions()
	_, err := ReconcileWallet{WalletID: cash, Date: issued, Balance: dec("1")}.Decide(w)
	if got := UnmetWallets(err); len(got) != 1 || got[0] != cash {
		t.Fatalf("a partial state: %v", err)
	}
	id := uuid.New()
	created := &TransactionCreated{TransactionID: id, Type: TxExpense, Amount: dec("3"), Currency: "MXN", Date: issued, WalletID: cash,
		Postings: []Posting{{cash, dec("-3")}}, Effects: &Effects{}}
	w.MeetTransactions([]uuid.UUID{id}, []Event{created, &WalletReconciled{WalletID: cash, Date: issued, TransactionIDs: []uuid.UUID{id}}})
	w.MeetWallet(cash)
	events := mustDecide(t, w, ReconcileWallet{WalletID: cash, Date: issued, Balance: dec("97")}.Decide)
	if r := events[0].(*WalletReconciled); !r.LedgerBalance.Equal(dec("97")) || len(r.TransactionIDs) != 0 {
		t.Errorf("ledger %s, marked %v: want 97 and none (met as reconciled)", r.LedgerBalance, r.TransactionIDs)
	}
}

func isCode(err error, code string) bool {
	var de *Error
	return errors.As(err, &de) && de.Code == code
}
