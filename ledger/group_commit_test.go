package ledger

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// groupFixture is a workspace with a wallet of 500 MXN, cached by two instances, and
// the commands the group tests queue in it.
type groupFixture struct {
	t         *testing.T
	ctx       context.Context
	pool      *pgxpool.Pool
	workspace uuid.UUID
	instances []*Ledger
	meta      Metadata
}

func newGroupFixture(t *testing.T, n int) *groupFixture {
	pool := testdb.Pool(t)
	f := &groupFixture{t: t, ctx: context.Background(), pool: pool, workspace: fixtureID(960 + n), meta: Metadata{ActorType: ActorSystem},
		instances: []*Ledger{NewLedger(pool, projectVersions, time.Now, 10), NewLedger(pool, projectVersions, time.Now, 10)}}
	if _, err := pool.Exec(f.ctx, `CREATE TABLE IF NOT EXISTS projected_versions (stream_id text, version bigint)`); err != nil {
		t.Fatal(err)
	}
	opened := &domain.WorkspaceCreated{WorkspaceID: f.workspace, Kind: domain.WorkspacePersonal, Name: "Personal", Currency: "MXN", OwnerID: fixtureID(970)}
	f.run(0, Call{OpenWorkspace: opened})
	cash := domain.CreateWallet{WalletID: fixtureID(971), WalletFields: domain.WalletFields{Name: "Cash", Type: "cash", Currency: "MXN",
		CardColor: "#111827", InitialBalance: decimal.NewFromInt(500), IsDefault: true}}
	f.run(0, Call{Decide: cash.Decide})
	f.run(1, f.expense(1, ""))
	f.run(0, f.expense(1, "")) // both instances now cache the workspace at its head
	return f
}

func (f *groupFixture) run(instance int, c Call) Result {
	f.t.Helper()
	c.WorkspaceID, c.Metadata = f.workspace, f.meta
	res, err := f.instances[instance].Execute(f.ctx, c)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// projectVersions is a read model of the versions of the events projected.
func projectVersions() Projection { return ProjectFunc(queueVersions) }

func queueVersions(b *pgx.Batch, events []eventstore.RecordedEvent, _ []domain.Event) error {
	for _, e := range events {
		b.Queue(`INSERT INTO projected_versions (stream_id, version) VALUES ($1, $2)`, e.StreamID, e.Version)
	}
	return nil
}

// expense is a create of an expense of amount, with an Idempotency-Key when key is set.
// Its answer counts the workspace's events projected, read in the write's batch: each
// command of a group must see its own effects and none of those after it.
func (f *groupFixture) expense(amount int64, key string) Call {
	create := domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.NewFromInt(amount), Date: domain.MustParseDate("2026-03-01"), Today: issued}
	c := Call{WorkspaceID: f.workspace, Metadata: f.meta, Decide: create.Decide,
		Answer: AnswerFunc(func(b *pgx.Batch, appended []Appended) Answering {
			var projected int
			b.Queue(`SELECT count(*) FROM projected_versions WHERE stream_id = $1`, domain.StreamID(f.workspace)).
				QueryRow(func(row pgx.Row) error { return row.Scan(&projected) })
			return func(context.Context, Conn) (any, error) { return map[string]int{"projected": projected}, nil }
		})}
	if key != "" {
		c.Idempotency = &Idempotency{Credential: "test", Key: key, RequestHash: []byte(fmt.Sprint(amount))}
	}
	return c
}

// refused is an expense in a category that does not exist.
func (f *groupFixture) refused(key string) Call {
	c := f.expense(1, key)
	c.Decide = domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.NewFromInt(1),
		CategoryID: idp(fixtureID(999)), Date: domain.MustParseDate("2026-03-01"), Today: issued}.Decide
	return c
}

type groupOutcome struct {
	res Result
	err error
}

// queueAll holds instance's lock on the workspace while every call queues, then lets
// them run: whoever takes the lock next finds them all queued.
func (f *groupFixture) queueAll(instance int, calls []Call) []groupOutcome {
	f.t.Helper()
	l := f.instances[instance]
	entry, err := l.states.acquire(f.ctx, f.workspace)
	if err != nil {
		f.t.Fatal(err)
	}
	out := make([]groupOutcome, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					out[i] = groupOutcome{err: fmt.Errorf("panicked: %v", r)}
				}
			}()
			res, err := l.Execute(f.ctx, c)
			out[i] = groupOutcome{res, err}
		})
		// One at a time, so that the queue keeps the calls' order.
		for deadline := time.Now().Add(10 * time.Second); ; {
			l.states.mu.Lock()
			queued := len(entry.queue)
			l.states.mu.Unlock()
			if queued == i+1 {
				break
			}
			if time.Now().After(deadline) {
				f.t.Fatalf("%d calls queued, want %d", queued, i+1)
			}
			time.Sleep(time.Millisecond)
		}
	}
	l.states.release(entry)
	wg.Wait()
	return out
}

// transactionsSince counts the database transactions that stored the workspace's events
// after version.
func (f *groupFixture) transactionsSince(version int64) (events, transactions int) {
	f.t.Helper()
	if err := f.pool.QueryRow(f.ctx, `SELECT count(*), count(DISTINCT tx_id) FROM events WHERE stream_id = $1 AND version > $2`,
		domain.StreamID(f.workspace), version).Scan(&events, &transactions); err != nil {
		f.t.Fatal(err)
	}
	return events, transactions
}

// checkState compares the instance's cached state with a fold of the whole stream.
func (f *groupFixture) checkState(instance int, wantBalance string) {
	f.t.Helper()
	folded := domain.NewWorkspace(f.workspace)
	if err := foldStream(f.ctx, f.pool, folded, -1); err != nil {
		f.t.Fatal(err)
	}
	if got := balances(folded)["Cash"]; got != wantBalance {
		f.t.Fatalf("Cash holds %s after the fold, want %s", got, wantBalance)
	}
	entry := f.instances[instance].states.enter(f.workspace)
	defer f.instances[instance].states.drop(entry)
	if entry.state != nil && (entry.state.Version != folded.Version || balances(entry.state)["Cash"] != wantBalance) {
		f.t.Fatalf("cached state at %d with %v, the fold at %d with %v", entry.state.Version, balances(entry.state),
			folded.Version, balances(folded))
	}
}

// TestGroupCommit: commands queued for one workspace are decided one after another and
// committed in one transaction, each with its own answer, idempotency record and error.
func TestGroupCommit(t *testing.T) {
	f := newGroupFixture(t, 0)
	head := f.run(0, Call{Decide: func(*domain.Workspace) ([]domain.Event, error) { return nil, nil }}).Version
	calls := []Call{f.expense(10, ""), f.expense(20, "a"), f.refused(""), f.expense(30, ""), f.expense(20, "a"),
		f.refused("b"), f.expense(40, "c"), f.expense(50, "")}
	out := f.queueAll(0, calls)

	for i, want := range []struct {
		code      string
		projected int // the answer: the events projected once the command's own are
		version   int64
	}{
		{"", 5, head + 1}, {"", 6, head + 2}, {"CATEGORY_NOT_FOUND", 0, 0}, {"", 7, head + 3}, {"", 6, head + 2},
		{"CATEGORY_NOT_FOUND", 0, 0}, {"", 8, head + 4}, {"", 9, head + 5},
	} {
		got := out[i]
		if code(got.err) != want.code || (want.code == "" && got.err != nil) {
			t.Fatalf("call %d: %v, want %q", i, got.err, want.code)
		}
		if want.code != "" {
			continue
		}
		if answer := fmt.Sprintf(`{"projected":%d}`, want.projected); string(got.res.Answer) != answer || got.res.Version != want.version {
			t.Fatalf("call %d: answer %s at version %d, want %s at %d", i, got.res.Answer, got.res.Version, answer, want.version)
		}
	}
	if !out[4].res.Replayed || out[1].res.Replayed {
		t.Fatalf("the repeated key: first replayed %v, second %v; want only the second", out[1].res.Replayed, out[4].res.Replayed)
	}
	if events, transactions := f.transactionsSince(head); events != 5 || transactions != 1 {
		t.Fatalf("%d events in %d transactions, want 5 in one", events, transactions)
	}
	var records int
	if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM idempotency_keys WHERE workspace_id = $1`, f.workspace).Scan(&records); err != nil || records != 2 {
		t.Fatalf("%d idempotency records (%v), want a and c", records, err)
	}
	f.checkState(0, "348") // 500, the fixture's two expenses of 1, and the group's five
}

// TestGroupCommitFallsBackAlone: a group whose write cannot commit, because another
// instance moved the stream or recorded one of its keys, runs its commands alone, each
// with the answer it would have had without the group.
func TestGroupCommitFallsBackAlone(t *testing.T) {
	f := newGroupFixture(t, 1)

	// Instance 1 writes: instance 0's cached state is behind the stream.
	f.run(1, f.expense(5, ""))
	head := f.run(1, f.expense(5, "recorded")).Version
	out := f.queueAll(0, []Call{f.expense(10, ""), f.refused(""), f.expense(20, "")})
	if out[0].err != nil || out[1].err == nil || code(out[1].err) != "CATEGORY_NOT_FOUND" || out[2].err != nil {
		t.Fatalf("after another instance wrote: %v, %v, %v", out[0].err, out[1].err, out[2].err)
	}
	if out[0].res.Version != head+1 || out[2].res.Version != head+2 || string(out[2].res.Answer) != `{"projected":8}` {
		t.Fatalf("after another instance wrote: versions %d and %d, answer %s", out[0].res.Version, out[2].res.Version, out[2].res.Answer)
	}
	f.checkState(0, "458")

	// The state is current, but a key of the group was recorded before: the record's
	// insert undoes the group, and the repeat replays the record.
	head = out[2].res.Version
	out = f.queueAll(0, []Call{f.expense(1, ""), f.expense(5, "recorded"), f.expense(2, "")})
	for i, o := range out {
		if o.err != nil {
			t.Fatalf("call %d: %v", i, o.err)
		}
	}
	if !out[1].res.Replayed || out[0].res.Version != head+1 || out[2].res.Version != head+2 {
		t.Fatalf("with a recorded key: %+v", out)
	}
	if events, _ := f.transactionsSince(head); events != 2 {
		t.Fatalf("%d events after a group with a recorded key, want 2", events)
	}
	f.checkState(0, "455")
}

// TestGroupCommitSurvivesAPanic: a command that panics in a group (a defect) fails the
// commands of its group instead of leaving them waiting, writes nothing, and leaves the
// workspace to the next command.
func TestGroupCommitSurvivesAPanic(t *testing.T) {
	f := newGroupFixture(t, 2)
	head := f.run(0, f.expense(1, "")).Version
	broken := f.expense(1, "")
	broken.Decide = func(*domain.Workspace) ([]domain.Event, error) { panic("a defect") }
	done := make(chan []groupOutcome)
	go func() { done <- f.queueAll(0, []Call{f.expense(10, ""), broken, f.expense(20, "")}) }()
	select {
	case out := <-done:
		for i, o := range out {
			if o.err == nil {
				t.Errorf("call %d of the group with a panic: %+v, want an error", i, o.res)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the group with a panic never answered")
	}
	if events, _ := f.transactionsSince(head); events != 0 {
		t.Fatalf("%d events stored by a group that panicked", events)
	}
	f.run(0, f.expense(5, ""))
	f.checkState(0, "492")
}
