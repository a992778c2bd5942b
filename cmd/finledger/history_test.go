package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
)

// asof, changes and diff read a workspace's past from the command line: a wallet's
// balance before and after an expense, the feed's pages to the end, and the wallet and
// the expense as what changed between the two moments.
func TestHistoryCommands(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)
	cfg, _, l, ws := personalWorkspace(t, func() time.Time { return now }, "historian")
	execute := func(decide func(*domain.Workspace) ([]domain.Event, error)) {
		t.Helper()
		now = now.Add(time.Minute)
		if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"},
			Decide: decide}); err != nil {
			t.Fatal(err)
		}
	}
	wallet := uuid.New()
	execute(domain.CreateWallet{WalletID: wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash", Currency: "MXN",
		CardColor: "#111827", InitialBalance: decimal.New(100, 0), IsDefault: true}}.Decide)
	before := now
	execute(domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.RequireFromString("12.5"),
		Date: domain.MustParseDate("2026-03-10"), WalletID: &wallet}.Decide)

	balanceAt := func(at time.Time) string {
		t.Helper()
		out := &syncBuffer{}
		if err := run(ctx, cfg, out, "asof", []string{"--workspace", ws.String(), "--at", at.Format(time.RFC3339)}); err != nil {
			t.Fatalf("asof: %v %s", err, out)
		}
		var answer struct {
			Wallets []struct{ Balance json.Number }
		}
		if err := json.Unmarshal([]byte(out.String()), &answer); err != nil || len(answer.Wallets) != 1 {
			t.Fatalf("asof answered %s (%v)", out, err)
		}
		return answer.Wallets[0].Balance.String()
	}
	if b := balanceAt(before); b != "100" {
		t.Fatalf("balance before the expense: %s", b)
	}
	if b := balanceAt(now); b != "87.5" {
		t.Fatalf("balance after the expense: %s", b)
	}

	out := &syncBuffer{}
	if err := run(ctx, cfg, out, "changes", []string{"--workspace", ws.String(), "--limit", "1"}); err != nil {
		t.Fatalf("changes: %v %s", err, out)
	}
	kinds := map[string]int{}
	lines := bufio.NewScanner(strings.NewReader(out.String()))
	var last map[string]any
	for lines.Scan() {
		if err := json.Unmarshal(lines.Bytes(), &last); err != nil {
			t.Fatal(err)
		}
		for _, ch := range last["changes"].([]any) {
			kinds[ch.(map[string]any)["kind"].(string)]++
		}
	}
	if kinds["wallet"] != 2 || kinds["transaction"] != 1 || last["more"] != false {
		t.Fatalf("changes: %v, last page %v", kinds, last)
	}

	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "diff", []string{"--workspace", ws.String(), "--from", before.Format(time.RFC3339), "--to", now.Format(time.RFC3339)}); err != nil {
		t.Fatalf("diff: %v %s", err, out)
	}
	if n := strings.Count(out.String(), "\n"); n != 2 || !strings.Contains(out.String(), `"kind":"transaction"`) ||
		!strings.Contains(out.String(), `"before":null`) {
		t.Fatalf("diff wrote %d lines: %s", n, out)
	}
	if err := run(ctx, cfg, io.Discard, "diff", []string{"--workspace", ws.String()}); exitCode(err) != exitUsage {
		t.Fatalf("diff without --from: %v", err)
	}
}

// personalWorkspace registers a user on a test database of its own and returns the
// configuration that reaches it, its pool, a ledger on the given clock and the user's
// personal workspace.
func personalWorkspace(t *testing.T, now func() time.Time, subject string) (config, *pgxpool.Pool, *ledger.Ledger, uuid.UUID) {
	t.Helper()
	cfg := config{DatabaseURL: testdb.URL(t)}
	pool, err := database.Open(context.Background(), cfg.DatabaseURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ledger := ledger.NewLedger(pool, projections.Project, now, 10)
	user, err := ledger.RegisterUser(context.Background(), domain.Identity{Subject: subject, Email: subject + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, pool, ledger, domain.PersonalWorkspaceID(user)
}
