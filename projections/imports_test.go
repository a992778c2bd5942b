package projections

import (
	"context"
	"encoding/json"
	"fmt"
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

// A statement's commit links recorded transactions among the ones it creates, in one
// append. A link writes the new transactions' rows first only when it names one of
// them, and leaves the totals gathered: the rows, the totals and their history must be
// those a replay writes, whatever its batches, where every link could fall between.
// The same holds of a commit large enough to be written in parts (ledger's writePart,
// 1,000 events): its links, its correction and its last link fall in different parts,
// and the totals gathered across the parts are written with the last.
func TestLinksAmongNewTransactionsEqualTheReplay(t *testing.T) {
	// The padding's new transaction (from 0) after which a recorded one of the 1st is
	// linked again: in the commit's second part, which begins at the padding's 992nd,
	// after the 980th, the first part's last of the 1st, and before the 1,008th, the
	// second part's first.
	const secondPartLink = 995
	ctx := context.Background()
	pool := testdb.Pool(t)
	l := ledger.NewLedger(pool, Project, time.Now, 10)
	user, err := l.RegisterUser(ctx, domain.Identity{Subject: "carol", Email: "carol@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	ws, wallet, category := domain.PersonalWorkspaceID(user), uuid.New(), uuid.New()
	run := func(key string, decide func(*domain.Workspace) ([]domain.Event, error)) ledger.Result {
		t.Helper()
		c := ledger.Call{WorkspaceID: ws, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"}, Decide: decide}
		if key != "" {
			// A keyed command runs in a transaction of its own, which a write in parts needs.
			c.Idempotency = &ledger.Idempotency{Credential: "test", Key: key, RequestHash: []byte(key)}
		}
		res, err := l.Execute(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run("", domain.CreateWallet{WalletID: wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash",
		Currency: "MXN", CardColor: "#111827", InitialBalance: decimal.New(1000, 0), IsDefault: true}}.Decide)
	run("", domain.CreateCategory{CategoryID: category, CategoryFields: domain.CategoryFields{Name: "Food",
		Icon: "tag", Color: "#6366f1"}}.Decide)
	create := func(w *domain.Workspace, id uuid.UUID, cents int64, day int) (domain.Event, error) {
		created, err := domain.CreateTransaction{TransactionID: id, Type: domain.TxExpense, Amount: decimal.New(cents, -2),
			Date: domain.DateOf(2026, time.March, day), WalletID: &wallet, CategoryID: &category}.Decide(w)
		if err != nil {
			return nil, err
		}
		return created[0], nil
	}
	// commit is a statement's commit with links among new transactions, and padding
	// more new ones before its correction.
	commit := func(padding int, key string) {
		t.Helper()
		recorded := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
		for i, id := range recorded {
			run("", func(w *domain.Workspace) ([]domain.Event, error) {
				e, err := create(w, id, int64(500+i), 1+i%2)
				return []domain.Event{e}, err
			})
		}
		importID := uuid.New()
		fresh := []uuid.UUID{uuid.New(), uuid.New(), uuid.New(), uuid.New()}
		res := run(key, func(w *domain.Workspace) ([]domain.Event, error) {
			// A link before any new transaction of its totals (the 1st's, March's): each
			// total it keeps is the one written less all the sums gathered after it.
			events := []domain.Event{&domain.TransactionMatched{TransactionID: recorded[2], ImportID: importID, ExternalID: fmt.Sprintf("%d-r-first", padding)}}
			for i, id := range fresh {
				e, err := create(w, id, int64(700+i), 1+i%2)
				if err != nil {
					return nil, err
				}
				events = append(events, e)
				switch i {
				case 0: // a recorded transaction, among new ones
					events = append(events, &domain.TransactionMatched{TransactionID: recorded[0], ImportID: importID, ExternalID: fmt.Sprintf("%d-r-0", padding)})
				case 1: // a new one, whose row is still gathered
					events = append(events, &domain.TransactionMatched{TransactionID: fresh[0], ImportID: importID, ExternalID: fmt.Sprintf("%d-r-1", padding)})
				case 2: // a link taken back, of a row written meanwhile
					events = append(events, &domain.TransactionUnmatched{TransactionID: recorded[0], ImportID: importID},
						&domain.TransactionMatched{TransactionID: recorded[1], ImportID: importID, ExternalID: fmt.Sprintf("%d-r-2", padding)})
				}
			}
			for i := range padding {
				e, err := create(w, uuid.New(), int64(100+i%37), 1+i%28)
				if err != nil {
					return nil, err
				}
				events = append(events, e)
				if i == secondPartLink {
					// Its total gathered new transactions in the first part and none yet in
					// the second.
					events = append(events, &domain.TransactionMatched{TransactionID: recorded[0], ImportID: importID, ExternalID: fmt.Sprintf("%d-r-4", padding)})
				}
			}
			// A correction after the links writes the sums first, and with them the totals
			// the links before it kept; a link after it waits for the end of the append.
			updated, err := domain.UpdateTransaction{TransactionID: recorded[1], Amount: domain.Of(decimal.New(9, 0))}.Decide(w)
			if err != nil {
				return nil, err
			}
			last, err := create(w, uuid.New(), 900, 2)
			if err != nil {
				return nil, err
			}
			events = append(append(events, updated...), last,
				&domain.TransactionMatched{TransactionID: fresh[3], ImportID: importID, ExternalID: fmt.Sprintf("%d-r-3", padding)},
				// Links of one transaction in a row: each reads what the one before left.
				&domain.TransactionUnmatched{TransactionID: fresh[3], ImportID: importID},
				&domain.TransactionMatched{TransactionID: fresh[3], ImportID: importID, ExternalID: fmt.Sprintf("%d-r-5", padding)})
			for range padding {
				e, err := create(w, uuid.New(), 300, 3)
				if err != nil {
					return nil, err
				}
				events = append(events, e)
			}
			return events, nil
		})
		if len(res.Events) < 2*padding {
			t.Fatalf("the commit appended %d events, want more than %d", len(res.Events), 2*padding)
		}
		var linked int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE import_id = $1`, importID).Scan(&linked); err != nil {
			t.Fatal(err)
		}
		want := 4
		if padding > secondPartLink {
			want++
		}
		if linked != want {
			t.Fatalf("%d transactions linked to the import, want %d (two new ones and the recorded ones linked last)", linked, want)
		}
	}
	commit(0, "")
	commit(1200, "in parts")
	linksAuditedInTurn(t, pool, ws)

	before := readModels(t, pool)
	defer func(n int) { replayBatch = n }(replayBatch)
	replaysEqual(t, pool, before, []int{1, 2, 5, 1000}, nil)
}

// linksAuditedInTurn checks the audit entries of the workspace's links to statement rows
// and their removals: each one's before is what the one before it, of the same
// transaction, left (nothing at first), as the transaction's row held it when its own
// link came; the last one's after is what the row holds now.
func linksAuditedInTurn(t *testing.T, pool *pgxpool.Pool, ws uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT entity_id, changes FROM audit_log
		WHERE workspace_id = $1 AND entity = 'transaction' AND action = 'update' AND changes ? 'importId' ORDER BY version`, ws)
	if err != nil {
		t.Fatal(err)
	}
	type change struct{ Before, After json.RawMessage }
	type linkAudit struct {
		id      string
		changes map[string]change
	}
	entries, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (linkAudit, error) {
		var e linkAudit
		err := row.Scan(&e.id, &e.changes)
		return e, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 13 {
		t.Fatalf("%d links audited, want the thirteen of the two commits at least", len(entries))
	}
	left := map[string]map[string]string{} // per transaction, per field, the last after
	for _, e := range entries {
		if left[e.id] == nil {
			left[e.id] = map[string]string{"importId": "null", "externalId": "null"}
		}
		for _, field := range []string{"importId", "externalId"} {
			c, ok := e.changes[field]
			if !ok || string(c.Before) != left[e.id][field] {
				t.Fatalf("transaction %s's link audited with %s from %s to %s, want from %s", e.id, field, c.Before, c.After, left[e.id][field])
			}
			left[e.id][field] = string(c.After)
		}
	}
	for id, fields := range left {
		var importID, externalID json.RawMessage
		if err := pool.QueryRow(ctx, `SELECT coalesce(to_jsonb(import_id), 'null'), coalesce(to_jsonb(external_id), 'null') FROM transactions WHERE workspace_id = $1 AND id = $2`,
			ws, id).Scan(&importID, &externalID); err != nil {
			t.Fatal(err)
		}
		if string(importID) != fields["importId"] || string(externalID) != fields["externalId"] {
			t.Errorf("transaction %s holds %s, %s; its last link audited %s, %s", id, importID, externalID, fields["importId"], fields["externalId"])
		}
	}
}
