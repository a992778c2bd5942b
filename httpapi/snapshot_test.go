package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

// A new instance loads a workspace from its latest snapshot and the events after it:
// its first commands need records from both, it answers as the instance that wrote
// them would, and it appends at the head. Replay and verify take a snapshot of an older
// format in their stride; verify checks the others, and one that no longer decodes is
// skipped by the next instance and reported by verify.
func TestNewInstanceLoadsFromSnapshot(t *testing.T) {
	env := apitest.Start(t)
	env.Ledger.SnapshotEvery(10)
	ctx := context.Background()
	f := newLedger(t, env, "alice")
	workspace := domain.PersonalWorkspaceID(domain.UserIDFor("alice"))
	stream := domain.StreamID(workspace)

	var early []string
	for i := range 8 {
		early = append(early, f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 10 + i, "categoryId": f.food}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string))
	}
	goal := f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 900}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 100, "walletId": f.cash}).Expect(t, http.StatusOK)
	f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 200, "walletId": f.bank}).Expect(t, http.StatusOK)
	debt := f.c.Post("/api/debts", map[string]any{"name": "Car", "totalAmount": 1000}).Expect(t, http.StatusOK).Object("debt")["id"].(string)
	f.c.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 40}).Expect(t, http.StatusOK)

	var snapshotAt int64
	if err := env.Pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM workspace_snapshots WHERE workspace_id = $1`, workspace).Scan(&snapshotAt); err != nil {
		t.Fatal(err)
	}
	if snapshotAt == 0 {
		t.Fatal("no snapshot was taken")
	}
	// After the snapshot: a wallet, a transaction in it, a deletion.
	late := f.c.Post("/api/wallets", map[string]any{"name": "Late", "balance": 50}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	lateTx := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5, "walletId": late}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	f.c.With("Idempotency-Key", "delete-early-1").Delete("/api/transactions/"+early[1]).Expect(t, http.StatusOK)
	head, err := eventstore.Version(ctx, env.Pool, stream, false)
	if err != nil {
		t.Fatal(err)
	}
	if head <= snapshotAt {
		t.Fatalf("no events after the snapshot at %d", snapshotAt)
	}

	// The new instance's first command names a transaction made after the snapshot, in a
	// wallet made after it: a state of the snapshot alone would answer
	// TRANSACTION_NOT_FOUND.
	second := f.c.On(env.Instance())
	second.With("Idempotency-Key", "patch-late").Patch("/api/transactions/"+lateTx, map[string]any{"amount": 7.5}).Expect(t, http.StatusOK)
	expectError(t, second.With("Idempotency-Key", "patch-early-1").Patch("/api/transactions/"+early[1], map[string]any{"amount": 1}),
		http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	second.Post("/api/goals/"+goal+"/withdraw", map[string]any{"amount": 250}).Expect(t, http.StatusOK)
	second.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 960}).Expect(t, http.StatusOK)
	fieldErrors(t, second.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 1}))
	second.With("Idempotency-Key", "delete-early-0").Delete("/api/transactions/"+early[0]).Expect(t, http.StatusOK)

	var versions []int64
	rows, err := env.Pool.Query(ctx, `SELECT version FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version`, stream, head)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	if rows.Err() != nil || len(versions) < 4 || versions[0] != head+1 || versions[len(versions)-1] != head+int64(len(versions)) {
		t.Fatalf("the new instance appended versions %v after head %d (%v)", versions, head, rows.Err())
	}
	for _, c := range []*apitest.Client{f.c, second} {
		goalNow := c.Get("/api/goals/"+goal).Expect(t, http.StatusOK).Object("goal")
		if num(goalNow["savedAmount"]) != "50" || f.balance(t, late) != "42.5" {
			t.Fatalf("goal %v, late wallet %s", goalNow, f.balance(t, late))
		}
	}
	if got := num(second.Get("/api/debts/"+debt).Expect(t, http.StatusOK).Object("debt")["pendingBalance"]); got != "0" {
		t.Fatalf("debt pending %s", got)
	}

	// A snapshot an older build wrote, in a format this one does not read: replay and
	// verify go on, and verify only counts it.
	if _, err := env.Pool.Exec(ctx, `INSERT INTO workspace_snapshots (workspace_id, version, format, state)
		VALUES ($1, 1, '0.old', '\x00'::bytea)`, workspace); err != nil {
		t.Fatal(err)
	}
	if _, err := projections.Rebuild(ctx, env.Pool); err != nil {
		t.Fatal(err)
	}
	diffs := replayAgrees(t, env.Pool)
	checked := false
	for _, d := range diffs {
		checked = checked || d.Table == projections.SnapshotsTable && d.LiveRows > 0 && strings.Contains(d.Detail, "1 of another format")
	}
	if !checked {
		t.Fatalf("verify checked no snapshot: %+v", diffs)
	}

	// A snapshot that does not decode any more (here: a byte too many) is only a cache
	// lost: a new instance folds the stream. Verify reports it.
	if _, err := env.Pool.Exec(ctx, `UPDATE workspace_snapshots SET state = state || '\x00'::bytea
		WHERE workspace_id = $1 AND version = (SELECT max(version) FROM workspace_snapshots WHERE workspace_id = $1)`, workspace); err != nil {
		t.Fatal(err)
	}
	third := f.c.On(env.Instance())
	third.Post("/api/transactions", map[string]any{"type": "income", "amount": 1, "walletId": late}).Expect(t, http.StatusCreated)
	if f.balance(t, late) != "43.5" {
		t.Fatalf("late wallet %s", f.balance(t, late))
	}
	diffs, err = projections.Verify(ctx, env.Pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		if d.Table == projections.SnapshotsTable && (d.LiveOnly != 1 || !strings.Contains(d.Detail, stream)) {
			t.Errorf("a damaged snapshot not reported: %+v", d)
		}
	}
}
