package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// expenses decides n expenses of 1 MXN in the fixture's wallet.
func expenses(n int) func(*domain.Workspace) ([]domain.Event, error) {
	return func(state *domain.Workspace) ([]domain.Event, error) {
		var out []domain.Event
		for range n {
			create := domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.NewFromInt(1),
				Date: domain.MustParseDate("2026-03-01"), Today: issued}
			decided, err := create.Decide(state)
			if err != nil {
				return nil, err
			}
			out = append(out, decided...)
		}
		return out, nil
	}
}

// TestALargeCommandIsWrittenInParts: a command whose append holds more than writePart
// events, run in a transaction of its own (with an Idempotency-Key, or with a claim),
// goes in parts of at most writePart events each with its projection, in one
// transaction: every event is stored and projected once, in order, the answer reads
// them all, and the cached state and another instance agree on the head. A part that
// fails undoes the parts before it: nothing of the command stays.
func TestALargeCommandIsWrittenInParts(t *testing.T) {
	f := newGroupFixture(t, 3)
	n := 2*writePart + 7
	var parts []int // the events of each part projected, in order, and 0 for a flush
	f.instances[0].project = func() Projection { return &partsProjection{parts: &parts} }
	head, err := eventstore.Version(f.ctx, f.pool, domain.StreamID(f.workspace), false)
	if err != nil {
		t.Fatal(err)
	}

	for _, how := range []string{"keyed", "claimed"} {
		parts = nil
		c := f.expense(1, "")
		c.Decide = expenses(n)
		switch how {
		case "keyed":
			c.Idempotency = &Idempotency{Credential: "test", Key: "many", RequestHash: []byte("many")}
		case "claimed":
			c.claim = func(context.Context, pgx.Tx) error { return nil }
		}
		res := f.run(0, c)
		if len(res.Events) != n || res.Version != head+int64(n) {
			t.Fatalf("%s: %d events to version %d, want %d to %d", how, len(res.Events), res.Version, n, head+int64(n))
		}
		for i, e := range res.Events {
			if e.Version != head+int64(i)+1 {
				t.Fatalf("%s: event %d at version %d, want %d", how, i, e.Version, head+int64(i)+1)
			}
		}
		// The second command's instance finds the stream moved by the other one: its
		// first attempt fails at its first part, and its parts come before those of the
		// attempt that commits.
		if len(parts) < 4 || fmt.Sprint(parts[len(parts)-4:]) != fmt.Sprint([]int{writePart, writePart, 7, 0}) || slices.Max(parts) > writePart {
			t.Fatalf("%s: projected in parts of %v events, want %d, %d and 7 last, then flushed", how, parts, writePart, writePart)
		}
		var projected, distinct, all int
		if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FILTER (WHERE version > $2), count(DISTINCT version) FILTER (WHERE version > $2),
			count(*) FROM projected_versions WHERE stream_id = $1`, domain.StreamID(f.workspace), head).Scan(&projected, &distinct, &all); err != nil {
			t.Fatal(err)
		}
		if projected != n || distinct != n {
			t.Fatalf("%s: %d events projected (%d versions), want each of the %d once", how, projected, distinct, n)
		}
		// The answer is read after the last part: it counts every projection.
		if want := fmt.Sprintf(`{"projected":%d}`, all); string(res.Answer) != want {
			t.Fatalf("%s: answer %s, want %s", how, res.Answer, want)
		}
		head += int64(n)
		// The other instance, which cached the workspace before, meets the head and writes
		// after it.
		f.run(1, f.expense(1, ""))
		head++
	}

	// A failure in the last part undoes the parts before it.
	parts = nil
	f.instances[0].project = func() Projection { return &partsProjection{parts: &parts, failing: 3} }
	c := f.expense(1, "")
	c.Decide = expenses(n)
	c.claim = func(context.Context, pgx.Tx) error { return nil }
	c.WorkspaceID, c.Metadata = f.workspace, f.meta
	_, err = f.instances[0].Execute(f.ctx, c)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Fatalf("a command whose last part fails: %v, want the division by zero", err)
	}
	after, err := eventstore.Version(f.ctx, f.pool, domain.StreamID(f.workspace), false)
	if err != nil || after != head {
		t.Fatalf("stream at version %d (%v) after the failed command, want %d: its first parts undone", after, err, head)
	}
	var stray int
	if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM projected_versions WHERE stream_id = $1 AND version > $2`,
		domain.StreamID(f.workspace), head).Scan(&stray); err != nil || stray != 0 {
		t.Fatalf("%d projections (%v) of the failed command stayed, want none", stray, err)
	}
	f.instances[0].project = projectVersions
	if res := f.run(0, f.expense(1, "")); res.Version != head+1 {
		t.Fatalf("the next command wrote version %d, want %d", res.Version, head+1)
	}
}

// partsProjection projects the versions as queueVersions does, and notes the events of
// each part it is given in parts, and 0 for its flush, which queues the count of the
// versions projected (a statement that reads every part's rows). It fails its part
// numbered failing (from 1), if any, with a division by zero.
type partsProjection struct {
	parts   *[]int
	failing int
	queued  int
}

func (p *partsProjection) Queue(b *pgx.Batch, events []eventstore.RecordedEvent, decoded []domain.Event) error {
	*p.parts = append(*p.parts, len(events))
	if p.queued++; p.queued == p.failing {
		b.Queue(`SELECT 1 / 0`)
	}
	return queueVersions(b, events, decoded)
}

func (p *partsProjection) Flush(b *pgx.Batch) {
	*p.parts = append(*p.parts, 0)
	b.Queue(`SELECT count(*) FROM projected_versions`)
}

// TestAStreamedCommandFoldsItsPartsAsWritten: a streamed command (a statement's import)
// folds each part of its events into the cached state once it is queued, and lets the
// events go: its answer gets their versions but no payloads, and the state it leaves
// cached is the stream's fold, also when another instance wrote first (the attempt on
// the stale state fails at its first part, after folding it). One whose write fails
// leaves no state cached, since parts of it were folded: the next command reads the
// state from the store.
func TestAStreamedCommandFoldsItsPartsAsWritten(t *testing.T) {
	f := newGroupFixture(t, 4)
	n := 2*writePart + 7
	streamed := func() Call {
		c := f.expense(1, "")
		c.Decide, c.streamed = expenses(n), true
		c.claim = func(context.Context, pgx.Tx) error { return nil }
		return c
	}
	cached := func() *domain.Workspace {
		entry := f.instances[0].states.enter(f.workspace)
		defer f.instances[0].states.drop(entry)
		return entry.state
	}

	f.run(1, f.expense(1, "")) // the state instance 0 caches is behind the stream
	res := f.run(0, streamed())
	if len(res.Events) != n {
		t.Fatalf("%d events answered, want %d", len(res.Events), n)
	}
	for _, e := range res.Events {
		if e.Data != nil || e.Type != domain.TypeTransactionCreated {
			t.Fatalf("answered %s at %d with its payload %v: a streamed write lets its payloads go", e.Type, e.Version, e.Data)
		}
	}
	if state := cached(); state == nil || state.Version != res.Version {
		t.Fatalf("the cached state after the streamed write: %v, want one at version %d", state, res.Version)
	}
	f.checkState(0, "-1510") // 500, less the fixture's 2, the other instance's 1 and these 2,007

	// A streamed command that deletes them all: its later parts delete transactions the
	// decision met, which the state keeps until the command is done.
	deletions := streamed()
	var ids []uuid.UUID
	for _, e := range res.Events {
		id, err := createdAt(f, e.Version)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	deletions.Decide = domain.BulkTransactions{IDs: ids, Operation: domain.BulkDelete}.Decide
	res = f.run(0, deletions)
	if state := cached(); len(res.Events) != n || state == nil || state.Version != res.Version {
		t.Fatalf("%d deletions answered; the cached state after them: %v, want one at version %d", len(res.Events), state, res.Version)
	}
	f.checkState(0, "497")
	head := res.Version

	f.instances[0].project = func() Projection { return &partsProjection{parts: new([]int), failing: 3} }
	c := streamed()
	c.WorkspaceID, c.Metadata = f.workspace, f.meta
	var pgErr *pgconn.PgError
	if _, err := f.instances[0].Execute(f.ctx, c); !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Fatalf("a streamed command whose last part fails: %v, want the division by zero", err)
	}
	if state := cached(); state != nil {
		t.Fatalf("a state at version %d stayed cached after a streamed write failed, with its first parts folded", state.Version)
	}
	f.instances[0].project = projectVersions
	if res := f.run(0, f.expense(1, "")); res.Version != head+1 {
		t.Fatalf("the next command wrote version %d, want %d", res.Version, head+1)
	}
	f.checkState(0, "496")
}

// createdAt returns the transaction the event at version of the fixture's stream created.
func createdAt(f *groupFixture, version int64) (uuid.UUID, error) {
	var id uuid.UUID
	err := f.pool.QueryRow(f.ctx, `SELECT (data->>'transactionId')::uuid FROM events WHERE stream_id = $1 AND version = $2`,
		domain.StreamID(f.workspace), version).Scan(&id)
	return id, err
}
