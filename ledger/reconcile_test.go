package ledger

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// A reconciliation decided on a state loaded from a snapshot loads every transaction of
// the wallet first (those created on it, transferred to it, corrected onto it), and a
// transaction an earlier reconciliation marked is met with its mark: its change is
// refused as on a fold from the start.
func TestReconciliationMeetsTheWalletFromTheStream(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	workspaceID := fixtureID(800)
	meta := Metadata{ActorType: ActorSystem}
	writer := NewLedger(pool, noProjection, time.Now, 10)
	writer.SnapshotEvery(5)
	run := func(l *Ledger, decide func(*domain.Workspace) ([]domain.Event, error)) ([]domain.Event, error) {
		res, err := l.Execute(ctx, Call{WorkspaceID: workspaceID, Metadata: meta, Decide: decide})
		var events []domain.Event
		for _, e := range res.Events {
			events = append(events, e.Data)
		}
		return events, err
	}
	must := func(l *Ledger, decide func(*domain.Workspace) ([]domain.Event, error)) []domain.Event {
		t.Helper()
		events, err := run(l, decide)
		if err != nil {
			t.Fatal(err)
		}
		return events
	}
	opened := workspace()[0].(*domain.WorkspaceCreated)
	opened.WorkspaceID = workspaceID
	if _, err := writer.Execute(ctx, Call{WorkspaceID: workspaceID, Metadata: meta, OpenWorkspace: opened}); err != nil {
		t.Fatal(err)
	}
	must(writer, func(*domain.Workspace) ([]domain.Event, error) { return workspace()[1:], nil })
	day := domain.MustParseDate
	var early, late []uuid.UUID
	for i := range 8 {
		id := fixtureID(810 + i)
		must(writer, domain.CreateTransaction{TransactionID: id, Type: domain.TxExpense, Amount: dec("1.25"), WalletID: &cash,
			Date: domain.DateOf(2026, time.March, 1+i), Today: issued}.Decide)
		if i < 4 {
			early = append(early, id)
		} else {
			late = append(late, id)
		}
	}
	// Through the 4th: four expenses, reconciled before the snapshot.
	marked := must(writer, domain.ReconcileWallet{WalletID: cash, Date: day("2026-03-04"), Balance: dec("95")}.Decide)
	if r := marked[0].(*domain.WalletReconciled); len(r.TransactionIDs) != 4 {
		t.Fatalf("first reconciliation marked %v", r.TransactionIDs)
	}
	transfer, moved := fixtureID(830), fixtureID(831)
	must(writer, domain.CreateTransaction{TransactionID: transfer, Type: domain.TxTransfer, Amount: dec("20"), WalletID: &bank,
		ToWalletID: &cash, Date: day("2026-03-06"), Today: issued}.Decide)
	must(writer, domain.CreateTransaction{TransactionID: moved, Type: domain.TxIncome, Amount: dec("0.10"), WalletID: &bank,
		Date: day("2026-03-07"), Today: issued}.Decide)
	must(writer, domain.UpdateTransaction{TransactionID: moved, WalletID: domain.Of(cash)}.Decide)
	for range 6 { // past the next snapshot
		must(writer, domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: dec("3"), WalletID: &bank,
			Date: day("2026-03-02"), Today: issued}.Decide)
	}
	if len(snapshotVersions(t, pool, workspaceID)) == 0 {
		t.Fatal("no snapshot taken")
	}

	cold := NewLedger(pool, noProjection, time.Now, 10)
	if state, from := load(t, pool, cold, workspaceID, -1); from == 0 || !state.TransactionsPartial {
		t.Fatalf("loaded from %d (partial %v), want a snapshot", from, state.TransactionsPartial)
	}
	// A transaction the first reconciliation marked, not met by the cold state.
	if _, err := run(cold, domain.UpdateTransaction{TransactionID: early[0], Amount: domain.Of(dec("2"))}.Decide); code(err) != "TRANSACTION_RECONCILED" {
		t.Fatalf("correcting a reconciled transaction on a state loaded from a snapshot: %v", err)
	}
	// Cash through the 7th: 100 - 8 × 1.25 + 20 + 0.10 (the 8th's expense after).
	events := must(cold, domain.ReconcileWallet{WalletID: cash, Date: day("2026-03-07"), Balance: dec("110.10")}.Decide)
	r := events[0].(*domain.WalletReconciled)
	want := append(slices.Clone(late[:3]), transfer, moved)
	if !r.LedgerBalance.Equal(dec("111.35")) || len(r.TransactionIDs) != len(want) {
		t.Fatalf("ledger %s, marked %v; want 111.35 and %v", r.LedgerBalance, r.TransactionIDs, want)
	}
	for _, id := range want {
		if !slices.Contains(r.TransactionIDs, id) {
			t.Errorf("%s not marked", id)
		}
	}

	full := domain.NewWorkspace(workspaceID)
	if err := foldStream(ctx, pool, full, -1); err != nil {
		t.Fatal(err)
	}
	entry, err := cold.states.acquire(ctx, workspaceID)
	if err != nil {
		t.Fatal(err)
	}
	cached := entry.state
	cold.states.release(entry)
	if diffs := sameState(cached, full); len(diffs) > 0 {
		t.Fatalf("the cold instance's state differs from the fold:\n%v", diffs)
	}
	sameTransactions(t, pool, cached, full)
}
