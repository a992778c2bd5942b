package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
)

// finledger import previews a statement, changes nothing without --yes, commits it with
// --yes, and finds the same file's rows duplicates afterwards.
func TestImportCommand(t *testing.T) {
	ctx := context.Background()
	cfg, pool, l, ws := personalWorkspace(t, time.Now, "importer")
	wallet := uuid.New()
	if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"},
		Decide: domain.CreateWallet{WalletID: wallet, WalletFields: domain.WalletFields{Name: "Bank", Type: "debit", Currency: "MXN",
			CardColor: "#111827", InitialBalance: decimal.New(100, 0), IsDefault: true}}.Decide}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "march.csv")
	if err := os.WriteFile(file, []byte("Fecha;Concepto;Cargo;Abono;Referencia\n"+
		"02/03/2026;Renta;1.500,00;;F1\n15/03/2026;Nomina;;20.000,50;F2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--workspace", ws.String(), "--wallet", wallet.String(), file}
	balance := func() string {
		var b decimal.Decimal
		if err := pool.QueryRow(ctx, `SELECT balance FROM wallets WHERE id = $1`, wallet).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}

	out := &syncBuffer{}
	if err := run(ctx, cfg, out, "import", args); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	if !strings.Contains(out.String(), "2 rows: 2 new") || !strings.Contains(out.String(), "after the import 18600.5") ||
		!strings.Contains(out.String(), "nothing is recorded yet") || balance() != "100" {
		t.Fatalf("preview printed %s; balance %s", out, balance())
	}

	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "import", append([]string{"--yes"}, args...)); err != nil {
		t.Fatalf("import --yes: %v %s", err, out)
	}
	if !strings.Contains(out.String(), "2 created, 0 merged, 0 skipped") || balance() != "18600.5" {
		t.Fatalf("commit printed %s; balance %s", out, balance())
	}

	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "import", args); err != nil || !strings.Contains(out.String(), "2 rows: 0 new, 2 duplicate") {
		t.Fatalf("the same file again: %v %s", err, out)
	}
	if err := run(ctx, cfg, io.Discard, "import", args[:4]); exitCode(err) != exitUsage {
		t.Fatalf("import without a file: %v", err)
	}
}
