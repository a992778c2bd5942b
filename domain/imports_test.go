package domain

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
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
	part, ok := events[1].(*TransactionsImported)
	if len(events) != 3 || !ok || len(part.Transactions) != 1 || part.ImportID != imp || part.TransactionIDs[0] != salary {
		t.Fatalf("commit = %v", events)
	}
	if created := part.Transactions[0]; created.ExternalID != "R1" || *created.ImportID != imp || !created.Cleared || created.TransactionID != salary {
		t.Fatalf("the imported row = %+v", created)
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
	if err != nil || len(events) != 2 {
		t.Fatalf("commit = %v, %v", events, err)
	}
	c.Rows, rows = nil, nil
	runtime.GC()
	if kept.Value() != nil {
		t.Fatal("the rows outlive the command: an event keeps them")
	}
	runtime.KeepAlive(events)
}

// A commit records its new transactions in parts of ImportPart, by date and then in
// the statement's order, and its links after them; folding the parts is folding each
// transaction's creation.
func TestAnImportRecordsItsTransactionsInParts(t *testing.T) {
	w := given(t, &WorkspaceCreated{WorkspaceID: uuid.New(), Kind: WorkspacePersonal, Name: "Me", Currency: "MXN", OwnerID: owner},
		wallet(cash, "Cash", "MXN", "0", true))
	recorded := uuid.New()
	then(t, w, mustDecide(t, w, CreateTransaction{TransactionID: recorded, Type: TxExpense, Amount: dec("3"), Date: issued, WalletID: idp(cash)}.Decide))
	const n = 2*ImportPart + 500
	rows := make([]ImportedRow, 0, n+1)
	for i := range n {
		rows = append(rows, ImportedRow{Index: len(rows), TransactionID: uuid.New(), Decision: ImportDecisionImport,
			ExternalID: fmt.Sprint("R", i), Type: TxIncome, Amount: dec("0.01"), Date: issued.AddDays(i * 37 % 60)})
		if i == 1500 { // a merge amid the rows
			rows = append(rows, ImportedRow{Index: len(rows), TransactionID: recorded, Decision: ImportDecisionMerge, ExternalID: "M"})
		}
	}
	events := mustDecide(t, w, CommitImport{ImportID: uuid.New(), WalletID: cash, Format: "csv", Rows: rows}.Decide)
	if len(events) != 5 {
		t.Fatalf("%d events, want the commit, 3 parts and a link", len(events))
	}
	if _, ok := events[4].(*TransactionMatched); !ok {
		t.Fatalf("the last event is %T, want the link", events[4])
	}
	var created []uuid.UUID
	for i, size := range []int{ImportPart, ImportPart, 500} {
		part := events[1+i].(*TransactionsImported)
		if len(part.Transactions) != size || len(part.TransactionIDs) != size {
			t.Fatalf("part %d holds %d transactions (%d ids), want %d", i, len(part.Transactions), len(part.TransactionIDs), size)
		}
		for j, id := range part.TransactionIDs {
			if part.Transactions[j].TransactionID != id {
				t.Fatalf("part %d lists %s at %d, holds %s", i, id, j, part.Transactions[j].TransactionID)
			}
		}
		for e := range Parts(part) {
			created = append(created, e.(*TransactionCreated).TransactionID)
		}
	}
	byDate := slices.DeleteFunc(slices.Clone(rows), func(r ImportedRow) bool { return r.Decision == ImportDecisionMerge })
	slices.SortStableFunc(byDate, func(a, b ImportedRow) int { return a.Date.Compare(b.Date) })
	for i, r := range byDate {
		if created[i] != r.TransactionID {
			t.Fatalf("transaction %d is %s, want row %d's %s", i, created[i], r.Index, r.TransactionID)
		}
	}
	then(t, w, events)
	if got := w.Wallets[cash].Balance.String(); got != "22" { // 2,500 cents less the 3 spent
		t.Fatalf("balance %s, want 22", got)
	}
	if len(w.Transactions) != n+1 || !w.Transactions[recorded].Matched {
		t.Fatalf("the state holds %d transactions, the recorded one linked: %v", len(w.Transactions), w.Transactions[recorded].Matched)
	}
}
