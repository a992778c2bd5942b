package projections

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/ledger"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// readModels reads every read-model table as JSON rows in a stable order.
func readModels(t *testing.T, pool *pgxpool.Pool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range Tables {
		rows, err := pool.Query(context.Background(), `SELECT to_jsonb(t)::text FROM `+pgx.Identifier{table}.Sanitize()+` t ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		if out[table], err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A replay COPYs the new transactions and audit entries of each batch of the log, at
// their place among the batch's statements, while it decodes the next batch. Replayed
// in batches of a few events, so that corrections and deletions fall before, after and
// in the middle of a batch's COPYs, it must give the rows the commands wrote; and
// verify, which replays the same way, must still see a row that differs.
func TestReplayInSmallBatchesEqualsTheCommands(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	l := ledger.NewLedger(pool, Project, time.Now, 10)
	run := func(ws uuid.UUID, decide func(*domain.Workspace) ([]domain.Event, error)) {
		t.Helper()
		if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws,
			Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test", RequestID: "r-1"}, Decide: decide}); err != nil {
			t.Fatal(err)
		}
	}
	type book struct {
		ws, wallet, category uuid.UUID
		created              []uuid.UUID
	}
	var books []*book
	for _, subject := range []string{"alice", "bob"} {
		user, err := l.RegisterUser(ctx, domain.Identity{Subject: subject, Email: subject + "@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		b := &book{ws: domain.PersonalWorkspaceID(user), wallet: uuid.New(), category: uuid.New()}
		run(b.ws, domain.CreateWallet{WalletID: b.wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash",
			Currency: "MXN", CardColor: "#111827", InitialBalance: decimal.New(1000, 0), IsDefault: true}}.Decide)
		run(b.ws, domain.CreateCategory{CategoryID: b.category, CategoryFields: domain.CategoryFields{Name: "Food",
			Icon: "tag", Color: "#6366f1"}}.Decide)
		books = append(books, b)
	}
	for i := range 24 {
		b := books[i%2]
		id := uuid.New()
		concept := fmt.Sprintf(`lunch "%d" \ ñ`, i)
		c := domain.CreateTransaction{TransactionID: id, Type: domain.TxExpense, Amount: decimal.New(int64(101+2*i), -2),
			Date: domain.DateOf(2026, time.March, 1+i%3), Concept: &concept, WalletID: &b.wallet}
		if i%3 != 0 {
			c.CategoryID = &b.category
		}
		run(b.ws, c.Decide)
		b.created = append(b.created, id)
		switch i % 5 {
		case 2:
			run(b.ws, domain.UpdateTransaction{TransactionID: b.created[len(b.created)/2], Amount: domain.Of(decimal.New(7, 0)),
				Date: domain.Of(domain.MustParseDate("2026-03-09"))}.Decide)
		case 4:
			run(b.ws, domain.DeleteTransaction{TransactionID: b.created[0]}.Decide)
			b.created = b.created[1:]
		}
	}

	// Several deletions in one command, as an import's undo makes them, go together
	// (gatheredDeletions): of one day's total, of the uncategorized, and one after a
	// correction in the same command. A replay in batches of one writes each alone.
	for _, b := range books {
		gone := b.created[:3]
		run(b.ws, func(w *domain.Workspace) ([]domain.Event, error) {
			var events []domain.Event
			for i, id := range gone {
				if i == 2 {
					updated, err := domain.UpdateTransaction{TransactionID: b.created[3], Amount: domain.Of(decimal.New(250, -2))}.Decide(w)
					if err != nil {
						return nil, err
					}
					events = append(events, updated...)
				}
				deleted, err := domain.DeleteTransaction{TransactionID: id}.Decide(w)
				if err != nil {
					return nil, err
				}
				events = append(events, deleted...)
			}
			return events, nil
		})
		b.created = b.created[3:]
	}

	before := readModels(t, pool)
	if len(before["transactions"]) != 24 || len(before["audit_log"]) < 40 {
		t.Fatalf("unexpected fixture: %d transactions, %d audit entries", len(before["transactions"]), len(before["audit_log"]))
	}
	defer func(n int) { replayBatch = n }(replayBatch)
	replaysEqual(t, pool, before, []int{1, 3, 7, 1000}, func(n int) {
		diffs, err := Verify(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffs {
			if d.LiveOnly != 0 || d.ReplayOnly != 0 {
				t.Errorf("batches of %d: verify %+v", n, d)
			}
		}
	})

	// Verify sees a transaction and an audit entry that drifted from the log.
	if _, err := pool.Exec(ctx, `UPDATE transactions SET concept = 'tampered' WHERE id = $1`, books[0].created[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM audit_log WHERE entity_id = $1 AND action = 'create'`, books[1].created[0].String()); err != nil {
		t.Fatal(err)
	}
	replayBatch = 3
	diffs, err := Verify(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{"transactions": {1, 1}, "audit_log": {0, 1}}
	for _, d := range diffs {
		if got := [2]int64{d.LiveOnly, d.ReplayOnly}; got != want[d.Table] {
			t.Errorf("verify of %s: %d rows only live, %d only replayed, want %v", d.Table, d.LiveOnly, d.ReplayOnly, want[d.Table])
		}
	}
}

// without returns the rows of a that b lacks.
// replaysEqual rebuilds the read models by replays in batches of each size, and fails
// for every table that differs from before; after each replay it calls then, if given.
func replaysEqual(t *testing.T, pool *pgxpool.Pool, before map[string][]string, sizes []int, then func(n int)) {
	t.Helper()
	for _, n := range sizes {
		replayBatch = n
		if _, err := Rebuild(context.Background(), pool); err != nil {
			t.Fatal(err)
		}
		after := readModels(t, pool)
		for _, table := range Tables {
			if !reflect.DeepEqual(before[table], after[table]) {
				t.Errorf("batches of %d: %s differs after replay:\nonly before %v\nonly after  %v", n, table,
					without(before[table], after[table]), without(after[table], before[table]))
			}
		}
		if then != nil {
			then(n)
		}
	}
}

func without(a, b []string) []string {
	in := map[string]int{}
	for _, r := range b {
		in[r]++
	}
	var out []string
	for _, r := range a {
		if in[r] > 0 {
			in[r]--
			continue
		}
		out = append(out, r)
	}
	return out
}
