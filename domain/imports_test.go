package domain

import (
	"errors"
	"runtime"
	"testing"
	"weak"

	"github.com/google/uuid"
)

// A commit is taken once, refused when its rows changed or are in the wallet already,
// links only a live transaction of its wallet not linked yet, and its undo takes back
// exactly what it did.
func TestCommitAndUndoImport(t *testing.T) {
	w := given(t, &WorkspaceCreated{WorkspaceID: uuid.New(), Kind: WorkspacePersonal, Name: "Me", Currency: "MXN", OwnerID: owner},
		wallet(cash, "Cash", "MXN", "100", true), wallet(bank, "Bank", "MXN", "0", false))
	recorded := uuid.New()
	elsewhere := uuid.New()
	then(t, w, mustDecide(t, w, CreateTransaction{TransactionID: recorded, Type: TxExpense, Amount: dec("45.50"), Date: issued, WalletID: idp(cash)}.Decide))
	then(t, w, mustDecide(t, w, CreateTransaction{TransactionID: elsewhere, Type: TxExpense, Amount: dec("9"), Date: issued, WalletID: idp(bank)}.Decide))
	imp, salary := uuid.New(), uuid.New()
	commit := CommitImport{ImportID: imp, WalletID: cash, Format: "csv", Skipped: 1, Rows: []ImportedRow{
		{Index: 0, TransactionID: salary, Decision: ImportDecisionImport, ExternalID: "R1", Type: TxIncome, Amount: dec("1500.00"), Date: issued},
		{Index: 1, TransactionID: recorded, Decision: ImportDecisionMerge, ExternalID: "R2"},
	}}
	for name, c := range map[string]CommitImport{
		"already imported": func() CommitImport { c := commit; c.AlreadyImported = []string{"R1"}; return c }(),
		"merge elsewhere": func() CommitImport {
			c := commit
			c.Rows = []ImportedRow{{Index: 3, TransactionID: elsewhere, Decision: ImportDecisionMerge, ExternalID: "R9"}}
			return c
		}(),
	} {
		var e *Error
		if _, err := c.Decide(w); !errors.As(err, &e) || e.Kind != KindConflict {
			t.Errorf("%s: %v", name, err)
		}
	}
	events := mustDecide(t, w, commit.Decide)
	if len(events) != 3 || events[1].(*TransactionCreated).ExternalID != "R1" || *events[1].(*TransactionCreated).ImportID != imp ||
		!events[1].(*TransactionCreated).Cleared {
		t.Fatalf("commit = %v", events)
	}
	then(t, w, events)
	if w.Wallets[cash].Balance.String() != "1554.5" || w.Transactions[recorded].ExternalID != "R2" || !w.Transactions[recorded].Matched {
		t.Fatalf("after the commit: balance %s, merged %+v", w.Wallets[cash].Balance, w.Transactions[recorded])
	}
	if _, err := commit.Decide(w); err == nil || err.(*Error).Code != "IMPORT_ALREADY_COMMITTED" {
		t.Fatalf("a second commit: %v", err)
	}

	undo := UndoImport{ImportID: imp, Created: []uuid.UUID{salary}, Merged: []uuid.UUID{recorded}}
	if _, err := (UndoImport{ImportID: imp, Created: []uuid.UUID{salary}}).Decide(w); err == nil {
		t.Fatal("an undo that leaves out a merge is taken")
	}
	events = mustDecide(t, w, undo.Decide)
	then(t, w, events)
	if len(events) != 3 || w.Wallets[cash].Balance.String() != "54.5" || w.Transactions[recorded].Matched || !w.Transactions[salary].Deleted {
		t.Fatalf("undo = %v; balance %s", events, w.Wallets[cash].Balance)
	}
	if _, err := undo.Decide(w); err == nil || err.(*Error).Code != "IMPORT_ALREADY_UNDONE" {
		t.Fatalf("a second undo: %v", err)
	}
}

// A commit's events point at nothing of the command, so that its rows (a hundred
// thousand in a large statement) can be let go once decided (ledger.BindImportCommit):
// an event pointing into the command would keep every row as long as it lives.
func TestImportEventsKeepNoRows(t *testing.T) {
	w := given(t, &WorkspaceCreated{WorkspaceID: uuid.New(), Kind: WorkspacePersonal, Name: "Me", Currency: "MXN", OwnerID: owner},
		wallet(cash, "Cash", "MXN", "100", true))
	rows := make([]ImportedRow, 2)
	for i := range rows {
		rows[i] = ImportedRow{Index: i, TransactionID: uuid.New(), Decision: ImportDecisionImport, ExternalID: string(rune('A' + i)),
			Type: TxExpense, Amount: dec("1.50"), Date: issued}
	}
	kept := weak.Make(&rows[0])
	c := &CommitImport{ImportID: uuid.New(), WalletID: cash, Format: "csv", Rows: rows}
	events, err := c.Decide(w)
	if err != nil || len(events) != 3 {
		t.Fatalf("commit = %v, %v", events, err)
	}
	c.Rows, rows = nil, nil
	runtime.GC()
	if kept.Value() != nil {
		t.Fatal("the rows outlive the command: an event keeps them")
	}
	runtime.KeepAlive(events)
}
