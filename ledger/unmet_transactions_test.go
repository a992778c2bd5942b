package ledger

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// A state loaded from a snapshot has met no transaction: a fold that corrects or
// deletes one created before the snapshot, and a command that names one, load it from
// the stream as of the state's version; the results are those of a fold from the start.
func TestTransactionsMetFromTheStream(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	workspaceID := fixtureID(700)
	meta := Metadata{ActorType: ActorSystem}
	writer := NewLedger(pool, noProjection, time.Now, 10)
	writer.SnapshotEvery(5)
	run := func(l *Ledger, decide func(*domain.Workspace) ([]domain.Event, error)) error {
		_, err := l.Execute(ctx, Call{WorkspaceID: workspaceID, Metadata: meta, Decide: decide})
		return err
	}
	opened := workspace()[0].(*domain.WorkspaceCreated)
	opened.WorkspaceID = workspaceID
	if _, err := writer.Execute(ctx, Call{WorkspaceID: workspaceID, Metadata: meta, OpenWorkspace: opened}); err != nil {
		t.Fatal(err)
	}
	if err := run(writer, func(*domain.Workspace) ([]domain.Event, error) {
		return workspace()[1:], nil
	}); err != nil {
		t.Fatal(err)
	}
	ids := make([]uuid.UUID, 12)
	for i := range ids {
		ids[i] = fixtureID(710 + i)
		expense := domain.CreateTransaction{TransactionID: ids[i], Type: domain.TxExpense, Amount: dec("10.50"), WalletID: &cash,
			CategoryID: &food, Date: domain.DateOf(2026, time.March, 1+i%9), Today: issued}
		if err := run(writer, expense.Decide); err != nil {
			t.Fatal(err)
		}
	}
	snapshots := snapshotVersions(t, pool, workspaceID)
	if len(snapshots) == 0 {
		t.Fatal("no snapshot taken")
	}

	// After the latest snapshot, through an instance that has met every transaction:
	// one corrected, one deleted, one created and corrected.
	late := NewLedger(pool, noProjection, time.Now, 10)
	late.SnapshotEvery(0)
	newer := fixtureID(730)
	for _, decide := range []func(*domain.Workspace) ([]domain.Event, error){
		domain.UpdateTransaction{TransactionID: ids[0], Amount: domain.Of(dec("99")), CategoryID: domain.Of(travel)}.Decide,
		domain.DeleteTransaction{TransactionID: ids[1]}.Decide,
		domain.CreateTransaction{TransactionID: newer, Type: domain.TxExpense, Amount: dec("1"), WalletID: &bank, CategoryID: &food,
			Date: domain.MustParseDate("2026-03-05"), Today: issued}.Decide,
		domain.UpdateTransaction{TransactionID: newer, Amount: domain.Of(dec("2"))}.Decide,
	} {
		if err := run(late, decide); err != nil {
			t.Fatal(err)
		}
	}

	// A new instance starts from the snapshot and folds that tail.
	cold := NewLedger(pool, noProjection, time.Now, 10)
	state, from := load(t, pool, cold, workspaceID, -1)
	if from == 0 || !state.TransactionsPartial {
		t.Fatalf("loaded from %d (partial %v), want a snapshot", from, state.TransactionsPartial)
	}
	if _, met := state.Transactions[ids[5]]; met {
		t.Fatalf("a transaction the tail does not name was loaded")
	}

	// Commands on transactions it has not met: corrected, deleted in bulk, refused as
	// deleted or unknown.
	if err := run(cold, domain.UpdateTransaction{TransactionID: ids[2], Amount: domain.Of(dec("3.25"))}.Decide); err != nil {
		t.Fatal(err)
	}
	if err := run(cold, domain.BulkTransactions{IDs: []uuid.UUID{ids[3], ids[4], ids[0]}, Operation: domain.BulkRecategorize,
		CategoryID: &food}.Decide); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uuid.UUID{ids[1], fixtureID(799)} {
		err := run(cold, domain.DeleteTransaction{TransactionID: id}.Decide)
		if code(err) != "TRANSACTION_NOT_FOUND" {
			t.Fatalf("deleting %s: %v, want TRANSACTION_NOT_FOUND", id, err)
		}
	}
	if err := run(cold, func(w *domain.Workspace) ([]domain.Event, error) {
		_, err := domain.BulkTransactions{IDs: []uuid.UUID{ids[6], ids[1]}, Operation: domain.BulkDelete}.Decide(w)
		return nil, err
	}); code(err) != "TRANSACTION_NOT_FOUND" {
		t.Fatalf("a bulk deletion naming a deleted transaction: %v, want TRANSACTION_NOT_FOUND", err)
	}

	// The cold instance's state is the fold from the start, transactions included.
	full := domain.NewWorkspace(workspaceID)
	if err := foldStream(ctx, pool, full, -1); err != nil {
		t.Fatal(err)
	}
	got, _ := load(t, pool, NewLedger(pool, noProjection, time.Now, 10), workspaceID, -1)
	if diffs := sameState(got, full); len(diffs) > 0 {
		t.Fatalf("a load from the snapshot differs from the fold:\n%v", diffs)
	}
	entry, err := cold.states.acquire(ctx, workspaceID)
	if err != nil {
		t.Fatal(err)
	}
	cached := entry.state
	cold.states.release(entry)
	if diffs := sameState(cached, full); len(diffs) > 0 || cached.Version != full.Version {
		t.Fatalf("the cold instance's cached state differs from the fold:\n%v", diffs)
	}
	sameTransactions(t, pool, cached, full)
	if spent := full.Spending[travel]["MXN"]; len(spent) > 0 {
		t.Fatalf("travel spending %v after the recategorization back to food, want none", spent)
	}
}

func mustDate(t *testing.T, s string) domain.Date {
	t.Helper()
	d, err := domain.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every event whose fold needs a transaction the state may not have met (a state loaded
// from a snapshot has met none) names it to the fold's loader, which loads it first: an
// event type left out fails every load of its workspace from an older snapshot.
func TestEveryFoldOfAnUnmetTransactionLoadsItFirst(t *testing.T) {
	id := fixtureID(790)
	for _, name := range domain.EventTypes() {
		e, err := domain.DecodeEvent(name, []byte(`{"transactionId": "`+id.String()+`"}`))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		state := domain.NewWorkspace(fixtureID(791))
		state.ForgetTransactions()
		if slices.Contains(domain.Unmet(foldOne(state, e)), id) && !slices.Contains(transactionsToMeet(state, []domain.Event{e}), id) {
			t.Errorf("folding %s needs its transaction met, and the fold does not load it first", name)
		}
	}
}

// foldOne folds e into state; a fold that cannot run on a zero event counts as needing
// nothing.
func foldOne(state *domain.Workspace, e domain.Event) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return state.Apply(e)
}

// A state meeting many transactions at once (a statement's commit meets every recorded
// transaction it merges) reads their events by the index, not the stream whole: until
// migration 0042 told it how many ids there are, PostgreSQL took a list of 60 ids for
// a third of the stream, and one of 200 or more for all of it.
func TestMeetingManyTransactionsReadsTheirEventsByIndex(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	stream := domain.StreamID(fixtureID(760))
	var ids []string
	for part := range 10 {
		events := make([]eventstore.Event, 1000)
		for i := range events {
			id := uuid.New()
			ids = append(ids, id.String())
			events[i] = eventstore.Event{ID: uuid.New(), Type: domain.TypeTransactionCreated,
				Data: []byte(`{"transactionId":"` + id.String() + `"}`), Metadata: []byte(`{}`)}
		}
		if _, err := eventstore.Append(ctx, pool, stream, int64(part*len(events)), events, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE events`); err != nil {
		t.Fatal(err)
	}
	plan := testdb.Explain(t, pool, `EXPLAIN (COSTS OFF) `+meetTransactionsSQL, stream, ids[:60], int64(len(ids)))
	var shown strings.Builder // without the ids that each condition lists
	for line := range strings.Lines(plan) {
		shown.WriteString(line[:min(len(line), 120)] + "\n")
	}
	if !strings.Contains(plan, "events_by_transaction") {
		t.Fatalf("60 transactions' own events read without their index:\n%s", shown.String())
	}
}
