package httpapi_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/imports"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/ledger"
)

// statementCSV is a bank's CSV export: a salary, a coffee already recorded by hand, a
// payee a spreadsheet would run as a formula, and the same row twice.
const statementCSV = "Date,Description,Amount,Reference\n" +
	"2026-03-01,Salary ACME,1500.00,R1\n" +
	"2026-03-03,OXXO COFFEE,-45.50,R2\n" +
	"2026-03-04,\"=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\",-10.25,R3\n" +
	"2026-03-04,\"=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\",-10.25,R3\n"

func uploadStatement(c *apitest.Client, wallet, file string) *apitest.Response {
	return c.With("Content-Type", "text/csv").Post("/api/imports?walletId="+wallet, file)
}

func importRows(t *testing.T, r *apitest.Response) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, row := range r.Object("import")["rows"].([]any) {
		rows = append(rows, row.(map[string]any))
	}
	return rows
}

func verdicts(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r["match"].(map[string]any)["verdict"].(string)+"/"+r["decision"].(string))
	}
	return out
}

// An import committed before its transactions were named by its time (migration 0044)
// named each by the hash of the import and its row alone, and recorded nothing on the
// import: its rows still show those transactions, on any instance, and its undo takes
// them back. A commit since names them by the time and says so.
func TestAnImportNamedByTheHashIsReadAndUndone(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	ctx := context.Background()
	file := "Date,Description,Amount,Reference\n2026-03-01,Salary ACME,1500.00,H1\n2026-03-02,Bakery,-20.00,H2\n"
	id := uploadStatement(f.c, f.cash, file).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	importID := uuid.MustParse(id)
	var ws uuid.UUID
	if err := env.Pool.QueryRow(ctx, `SELECT workspace_id FROM imports WHERE id = $1`, importID).Scan(&ws); err != nil {
		t.Fatal(err)
	}
	hashed := func(index int) uuid.UUID {
		return uuid.NewSHA1(importID, binary.BigEndian.AppendUint32(nil, uint32(index)))
	}

	// The commit as those versions made it: the same rows, named by the hash, the import's
	// column left at its default.
	cmd, readRows, err := imports.Commit(ctx, env.Pool, ws, importID)
	if err != nil {
		t.Fatal(err)
	}
	call := ledger.BindImportCommit(cmd, func(ctx context.Context, tx pgx.Tx) error {
		if err := readRows(ctx, tx); err != nil {
			return err
		}
		for i := range cmd.Rows {
			cmd.Rows[i].TransactionID = hashed(cmd.Rows[i].Index)
		}
		_, err := tx.Exec(ctx, `UPDATE imports SET transaction_names = DEFAULT WHERE id = $1`, importID)
		return err
	})(ledger.Call{WorkspaceID: ws, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"}})
	if _, err := env.Ledger.Execute(ctx, call); err != nil {
		t.Fatal(err)
	}

	rows := importRows(t, f.c.On(env.Instance()).Get("/api/imports/"+id).Expect(t, http.StatusOK))
	for i, r := range rows {
		if r["transactionId"] != hashed(i).String() {
			t.Fatalf("row %d shows transaction %v, want %s", i, r["transactionId"], hashed(i))
		}
		f.c.Get("/api/transactions/"+hashed(i).String()).Expect(t, http.StatusOK)
	}
	if f.balance(t, f.cash) != "1580" {
		t.Fatalf("balance after the commit = %s", f.balance(t, f.cash))
	}
	undone := f.c.On(env.Instance()).Post("/api/imports/"+id+"/undo", nil).Expect(t, http.StatusOK).Object("import")
	if undone["status"] != "undone" || f.balance(t, f.cash) != "100" || len(liveTransactions(t, env, "alice")) != 0 {
		t.Fatalf("undone = %v, balance %s", undone, f.balance(t, f.cash))
	}

	// Uploaded again and committed now: named by the time.
	again := uploadStatement(f.c, f.cash, file).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	f.c.Post("/api/imports/"+again+"/commit", nil).Expect(t, http.StatusOK)
	var names int
	if err := env.Pool.QueryRow(ctx, `SELECT transaction_names FROM imports WHERE id = $1`, again).Scan(&names); err != nil {
		t.Fatal(err)
	}
	rows = importRows(t, f.c.Get("/api/imports/"+again).Expect(t, http.StatusOK))
	for i, r := range rows {
		named := imports.CreatedTransaction(uuid.MustParse(again), i)
		if names != 2 || r["transactionId"] != named.String() || named[0] != uuid.MustParse(again)[0] {
			t.Fatalf("row %d of a commit now shows %v (names %d), want %s", i, r["transactionId"], names, named)
		}
		f.c.Get("/api/transactions/"+named.String()).Expect(t, http.StatusOK)
	}
}

// A statement goes in as a preview, is committed once however many instances are asked
// at once, is caught as a duplicate when it comes again, and is undone as a whole.
func TestImportPreviewCommitUndo(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	other := env.Instance()
	coffee := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 45.5, "walletId": f.cash,
		"concept": "Oxxo coffee", "date": "2026-03-02"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)

	preview := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated)
	imp := preview.Object("import")
	id := imp["id"].(string)
	rows := importRows(t, preview)
	if imp["status"] != "preview" || imp["format"] != "csv" || len(rows) != 4 {
		t.Fatalf("preview = %v", imp)
	}
	if got, want := verdicts(rows), []string{"new/import", "probable/merge", "new/import", "duplicate/skip"}; !slices.Equal(got, want) {
		t.Fatalf("verdicts = %v, want %v", got, want)
	}
	if rows[1]["match"].(map[string]any)["transactionId"] != coffee || num(rows[1]["amount"]) != "-45.5" || rows[0]["externalId"] != "R1" {
		t.Fatalf("rows = %v", rows)
	}
	for _, r := range rows {
		if r["transactionId"] != nil {
			t.Fatalf("a row of a preview names a transaction: %v", r)
		}
	}
	if rows[2]["payee"] != `=HYPERLINK("http://evil.example","x")` {
		t.Fatalf("a formula-like payee is kept as text: %v", rows[2]["payee"])
	}
	summary := imp["summary"].(map[string]any)
	if num(summary["walletBalance"]) != "54.5" || num(summary["balanceAfter"]) != "1544.25" || num(summary["moneyIn"]) != "1500" ||
		summary["import"] != jsonInt(2) || summary["merge"] != jsonInt(1) || summary["skip"] != jsonInt(1) {
		t.Fatalf("summary = %v", summary)
	}

	// Nothing is recorded by a preview.
	if f.balance(t, f.cash) != "54.5" {
		t.Fatalf("balance after a preview = %s", f.balance(t, f.cash))
	}

	// Rows change before the commit; a duplicate cannot be imported.
	changed := f.c.Patch("/api/imports/"+id+"/rows/2", map[string]any{"concept": "Unknown charge", "categoryId": f.food}).
		Expect(t, http.StatusOK).Object("row")
	if changed["concept"] != "Unknown charge" || changed["categoryId"] != f.food {
		t.Fatalf("changed row = %v", changed)
	}
	expectError(t, f.c.Patch("/api/imports/"+id+"/rows/3", map[string]any{"decision": "import"}), http.StatusConflict, "IMPORT_ROW_DUPLICATE")
	expectError(t, f.c.Patch("/api/imports/"+id+"/rows/9", map[string]any{"decision": "skip"}), http.StatusNotFound, "IMPORT_ROW_NOT_FOUND")
	expectError(t, f.c.Patch("/api/imports/"+id+"/rows/0", map[string]any{"type": "transfer", "toWalletId": f.bank}), http.StatusBadRequest, "VALIDATION_ERROR")
	expectError(t, f.c.Patch("/api/imports/"+id+"/rows/2", map[string]any{"type": "transfer", "toWalletId": f.cash}), http.StatusNotFound, "WALLET_NOT_FOUND")
	if moved := f.c.Patch("/api/imports/"+id+"/rows/2", map[string]any{"type": "transfer", "toWalletId": f.bank}).Expect(t, http.StatusOK).Object("row"); moved["toWalletId"] != f.bank {
		t.Fatalf("a row made a transfer = %v", moved)
	}
	f.c.Patch("/api/imports/"+id+"/rows/2", map[string]any{"type": "expense"}).Expect(t, http.StatusOK)
	expectError(t, f.c.Patch("/api/imports/"+id+"/rows/0", map[string]any{"decision": "later"}), http.StatusBadRequest, "VALIDATION_ERROR")

	// Two instances commit the preview at once: one takes effect.
	var wg sync.WaitGroup
	answers := make([]*apitest.Response, 2)
	for i, c := range []*apitest.Client{f.c, f.c.On(other)} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = c.Post("/api/imports/"+id+"/commit", nil)
		}()
	}
	wg.Wait()
	var committed *apitest.Response
	for _, a := range answers {
		switch a.Status {
		case http.StatusOK:
			if committed != nil {
				t.Fatal("both commits took effect")
			}
			committed = a
		case http.StatusConflict:
			if a.ErrorCode() != "IMPORT_ALREADY_COMMITTED" {
				t.Fatalf("the second commit answers %s", a.Raw)
			}
		default:
			t.Fatalf("commit answers %d %s", a.Status, a.Raw)
		}
	}
	if committed == nil {
		t.Fatal("no commit took effect")
	}
	done := committed.Object("import")
	if done["status"] != "committed" || done["created"] != jsonInt(2) || done["merged"] != jsonInt(1) || done["skipped"] != jsonInt(1) {
		t.Fatalf("committed = %v", done)
	}
	if f.balance(t, f.cash) != "1544.25" {
		t.Fatalf("balance after the commit = %s", f.balance(t, f.cash))
	}
	merged := f.c.Get("/api/transactions/"+coffee).Expect(t, http.StatusOK).Object("transaction")
	if merged["externalId"] != "R2" || merged["importId"] != id || num(merged["amount"]) != "45.5" {
		t.Fatalf("merged transaction = %v", merged)
	}
	listed := f.c.Get("/api/transactions?walletId="+f.cash).Expect(t, http.StatusOK).List("transactions")
	imported := map[string]map[string]any{}
	for _, tr := range listed {
		if tr["importId"] == id && tr["id"] != coffee {
			imported[tr["externalId"].(string)] = tr
		}
	}
	if len(imported) != 2 || imported["R1"]["type"] != "income" || imported["R3"]["concept"] != "Unknown charge" ||
		imported["R3"]["categoryId"] != f.food || !imported["R1"]["cleared"].(bool) {
		t.Fatalf("imported transactions = %v", imported)
	}
	// Each row names the transaction it became or was linked to, once committed.
	shown := importRows(t, f.c.Get("/api/imports/"+id).Expect(t, http.StatusOK))
	if shown[0]["transactionId"] != imported["R1"]["id"] || shown[1]["transactionId"] != coffee ||
		shown[2]["transactionId"] != imported["R3"]["id"] || shown[3]["transactionId"] != nil {
		t.Fatalf("committed rows = %v", shown)
	}
	// A commit again is refused, and so is a change of a row.
	expectError(t, f.c.Post("/api/imports/"+id+"/commit", nil), http.StatusConflict, "IMPORT_ALREADY_COMMITTED")
	expectError(t, f.c.Patch("/api/imports/"+id+"/rows/0", map[string]any{"decision": "skip"}), http.StatusConflict, "IMPORT_NOT_IN_PREVIEW")

	// The same file again proposes nothing new.
	again := uploadStatement(f.c.On(other), f.cash, statementCSV).Expect(t, http.StatusCreated)
	if got, want := verdicts(importRows(t, again)), []string{"duplicate/skip", "duplicate/skip", "duplicate/skip", "duplicate/skip"}; !slices.Equal(got, want) {
		t.Fatalf("verdicts of the same file again = %v, want %v", got, want)
	}

	// The whole import is undone in one step, on the other instance.
	undone := f.c.On(other).With("Idempotency-Key", "undo-1").Post("/api/imports/"+id+"/undo", nil).Expect(t, http.StatusOK).Object("import")
	if undone["status"] != "undone" {
		t.Fatalf("undone = %v", undone)
	}
	replayed := f.c.With("Idempotency-Key", "undo-1").Post("/api/imports/"+id+"/undo", nil).Expect(t, http.StatusOK)
	if replayed.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("undo replay = %v", replayed.Header)
	}
	expectError(t, f.c.Post("/api/imports/"+id+"/undo", nil), http.StatusConflict, "IMPORT_ALREADY_UNDONE")
	if f.balance(t, f.cash) != "54.5" {
		t.Fatalf("balance after the undo = %s", f.balance(t, f.cash))
	}
	kept := f.c.Get("/api/transactions/"+coffee).Expect(t, http.StatusOK).Object("transaction")
	if kept["externalId"] != nil || kept["importId"] != nil {
		t.Fatalf("the merged transaction keeps its link after the undo: %v", kept)
	}
	// Once undone, the file imports again.
	third := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated)
	if got, want := verdicts(importRows(t, third)), []string{"new/import", "probable/merge", "new/import", "duplicate/skip"}; !slices.Equal(got, want) {
		t.Fatalf("verdicts after the undo = %v, want %v", got, want)
	}
	list := f.c.Get("/api/imports").Expect(t, http.StatusOK).List("imports")
	if len(list) != 3 || list[2]["status"] != "undone" || list[0]["status"] != "preview" {
		t.Fatalf("imports = %v", list)
	}
	audit := f.c.Get("/api/audit?entity=import").Expect(t, http.StatusOK).List("entries")
	if len(audit) != 2 {
		t.Fatalf("audit of imports = %v", audit)
	}
}

// A row changed while a commit waits for the import's lock (a PATCH of another tab
// answered just before the commit, done here in SQL as the PATCH does it, so that it
// lands in that moment and no other) is committed as changed: the commit reads the rows
// once it holds the lock, not as they were when it was asked.
func TestImportCommitTakesARowChangedBeforeIt(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	id := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)

	ctx := context.Background()
	tx, err := env.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT 1 FROM imports WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	answer := make(chan *apitest.Response, 1)
	go func() { answer <- f.c.Post("/api/imports/"+id+"/commit", nil) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := env.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM imports%FOR UPDATE%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the commit never waited for the import's lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The salary's row is skipped.
	if _, err := tx.Exec(ctx, `UPDATE import_rows SET decision = 'skip' WHERE import_id = $1 AND index = 0`, id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	done := (<-answer).Expect(t, http.StatusOK).Object("import")
	if done["created"] != jsonInt(2) || done["merged"] != jsonInt(0) || done["skipped"] != jsonInt(2) {
		t.Fatalf("committed after the change = %v", done)
	}
	if f.balance(t, f.cash) != "44.25" {
		t.Fatalf("balance after the commit = %s, want 44.25 (the salary skipped)", f.balance(t, f.cash))
	}
	expectError(t, f.c.Patch("/api/imports/"+id+"/rows/1", map[string]any{"decision": "skip"}), http.StatusConflict, "IMPORT_NOT_IN_PREVIEW")
}

// A commit that the read model refuses part-way (a row copied into the transactions
// meets a row already there, planted here in SQL: a transaction with the id the import
// names its third row's by) writes nothing, and the next commit of the preview, once
// the obstacle is gone, takes every row: the write's parts are one transaction, and the
// instance drops the state it folded them into.
func TestACommitTheReadModelRefusesWritesNothing(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	id := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)

	ctx := context.Background()
	var ws uuid.UUID
	var head int64
	if err := env.Pool.QueryRow(ctx, `SELECT w.workspace_id, s.version FROM wallets w
		JOIN streams s ON s.stream_id = 'workspace-' || w.workspace_id WHERE w.id = $1`, f.cash).Scan(&ws, &head); err != nil {
		t.Fatal(err)
	}
	third := imports.CreatedTransaction(uuid.MustParse(id), 2)
	if _, err := env.Pool.Exec(ctx, `INSERT INTO transactions (workspace_id, id, type, amount, currency, date, created_at,
			updated_at, created_version, deleted_at) VALUES ($1, $2, 'expense', 1, 'MXN', '2026-03-01', now(), now(), 1, now())`,
		ws, third); err != nil {
		t.Fatal(err)
	}
	expectError(t, f.c.Post("/api/imports/"+id+"/commit", nil), http.StatusInternalServerError, "INTERNAL_ERROR")
	var after int64
	if err := env.Pool.QueryRow(ctx, `SELECT version FROM streams WHERE stream_id = 'workspace-' || $1`, ws.String()).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != head || f.balance(t, f.cash) != "100" {
		t.Fatalf("a refused commit wrote: stream at %d (was %d), balance %s", after, head, f.balance(t, f.cash))
	}
	if status := f.c.Get("/api/imports/"+id).Expect(t, http.StatusOK).Object("import")["status"]; status != "preview" {
		t.Fatalf("a refused commit left the import %v", status)
	}

	if _, err := env.Pool.Exec(ctx, `DELETE FROM transactions WHERE workspace_id = $1 AND id = $2`, ws, third); err != nil {
		t.Fatal(err)
	}
	done := f.c.Post("/api/imports/"+id+"/commit", nil).Expect(t, http.StatusOK).Object("import")
	if done["created"] != jsonInt(3) || f.balance(t, f.cash) != "1544.25" {
		t.Fatalf("the commit after a refused one = %v, balance %s", done, f.balance(t, f.cash))
	}
	if rows := importRows(t, f.c.Get("/api/imports/"+id).Expect(t, http.StatusOK)); rows[2]["transactionId"] != third.String() {
		t.Fatalf("the third row became %v, want %s", rows[2]["transactionId"], third)
	}
}

// An instance whose state of the workspace came from a snapshot, without its
// transactions, meets the transaction a row merges with before it decides the commit
// again, with every row: a workspace of a million transactions is committed that way.
func TestImportCommitFromASnapshot(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	coffee := coffeeThenSnapshot(t, env, f)

	other := f.c.On(env.Instance())
	id := uploadStatement(other, f.cash, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	done := other.Post("/api/imports/"+id+"/commit", nil).Expect(t, http.StatusOK).Object("import")
	if done["created"] != jsonInt(2) || done["merged"] != jsonInt(1) || done["skipped"] != jsonInt(1) {
		t.Fatalf("committed from a snapshot = %v", done)
	}
	if f.balance(t, f.cash) != "1544.25" {
		t.Fatalf("balance after the commit = %s", f.balance(t, f.cash))
	}
	if merged := f.c.Get("/api/transactions/"+coffee).Expect(t, http.StatusOK).Object("transaction"); merged["importId"] != id {
		t.Fatalf("merged transaction = %v", merged)
	}
}

// An instance that loads the workspace from a snapshot taken before an import folds
// the import's links to recorded transactions, and their removal by its undo: it loads
// the linked transactions as it meets them, as it does those an update names.
func TestAWorkspaceLoadsAcrossAnImportsLinks(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	coffeeThenSnapshot(t, env, f)
	env.Ledger.SnapshotEvery(0) // the snapshot after the coffee is the last

	id := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	if done := f.c.Post("/api/imports/"+id+"/commit", nil).Expect(t, http.StatusOK).Object("import"); done["merged"] != jsonInt(1) {
		t.Fatalf("committed = %v", done)
	}
	// A new instance folds the commit, its link to the coffee included, and undoes it.
	undone := f.c.On(env.Instance()).Post("/api/imports/"+id+"/undo", nil).Expect(t, http.StatusOK).Object("import")
	if undone["status"] != "undone" || f.balance(t, f.cash) != "54.5" {
		t.Fatalf("undone on a new instance = %v, balance %s", undone, f.balance(t, f.cash))
	}
	// Another folds the undo, the link's removal included, and writes after it.
	f.c.On(env.Instance()).Post("/api/transactions", map[string]any{"type": "expense", "amount": 4.5, "walletId": f.cash,
		"date": "2026-03-05"}).Expect(t, http.StatusCreated)
	if f.balance(t, f.cash) != "50" {
		t.Fatalf("balance after the undo and an expense = %s, want 50", f.balance(t, f.cash))
	}
}

// coffeeThenSnapshot records the coffee that statementCSV's second row merges with, and
// has env's instance snapshot the workspace at every command from now on, a snapshot
// after the coffee first; it returns the coffee's id.
func coffeeThenSnapshot(t *testing.T, env *apitest.Env, f ledgerFixture) string {
	t.Helper()
	env.Ledger.SnapshotEvery(1)
	coffee := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 45.5, "walletId": f.cash,
		"concept": "Oxxo coffee", "date": "2026-03-02"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	f.c.Post("/api/categories", map[string]any{"name": "After the coffee"}).Expect(t, http.StatusOK)
	return coffee
}

// A file that is no statement, a file too large, a wallet missing and a file sent as a
// multipart form are told apart. An upload is spooled to a temporary file that no
// answer leaves behind.
func TestImportBadInput(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	spool := t.TempDir()
	t.Setenv("TMPDIR", spool) // after the test's PostgreSQL, whose folder it would hold
	defer func() {
		if left, err := os.ReadDir(spool); err != nil || len(left) > 0 {
			t.Errorf("the uploads left %v in the temporary folder (%v), want nothing", left, err)
		}
	}()
	expectError(t, uploadStatement(f.c, f.cash, strings.Repeat("x", imports.MaxFile+1)), http.StatusRequestEntityTooLarge, "IMPORT_FILE_TOO_LARGE")
	expectError(t, uploadStatement(f.c, "", statementCSV), http.StatusBadRequest, "VALIDATION_ERROR")
	expectError(t, uploadStatement(f.c, "0195f3a2-0000-7000-8000-000000000001", statementCSV), http.StatusNotFound, "WALLET_NOT_FOUND")
	expectError(t, uploadStatement(f.c, f.cash, ""), http.StatusBadRequest, "VALIDATION_ERROR")
	expectError(t, uploadStatement(f.c, f.cash, "Fecha;Cosa\nayer;mucho\n"), http.StatusUnprocessableEntity, "IMPORT_MAPPING_REQUIRED")
	expectError(t, uploadStatement(f.c, f.cash, "<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST><STMTTRN><TRNAMT>oops"),
		http.StatusUnprocessableEntity, "IMPORT_FILE_INVALID")

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "march.csv")
	part.Write([]byte(statementCSV)) //nolint:errcheck // a buffer
	mw.Close()                       //nolint:errcheck // a buffer
	got := f.c.With("Content-Type", mw.FormDataContentType()).Post("/api/imports?walletId="+f.bank, form.Bytes()).
		Expect(t, http.StatusCreated).Object("import")
	if got["fileName"] != "march.csv" || got["rowCount"] != jsonInt(4) {
		t.Fatalf("multipart upload = %v", got)
	}
	form.Reset()
	mw = multipart.NewWriter(&form)
	for range 2 {
		part, _ := mw.CreateFormFile("file", "march.csv")
		part.Write([]byte(statementCSV)) //nolint:errcheck // a buffer
	}
	mw.Close() //nolint:errcheck // a buffer
	expectError(t, f.c.With("Content-Type", mw.FormDataContentType()).Post("/api/imports?walletId="+f.bank, form.Bytes()),
		http.StatusBadRequest, "VALIDATION_ERROR")
	// Another person's workspace holds no such wallet.
	stranger := env.As("bob")
	expectError(t, uploadStatement(stranger, f.cash, statementCSV), http.StatusNotFound, "WALLET_NOT_FOUND")
}

// jsonInt is an integer as a response's JSON holds it.
func jsonInt(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// A CSV whose header says nothing plainly is read by a mapping sent with it, by a saved
// profile named, or by the wallet's one profile.
func TestImportWithMappingOrProfile(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	file := "Dia;Cosa;Dinero;Folio\n02/03/2026;Renta;-1.500,00;F1\n15/03/2026;Nomina;20.000,50;F2\n"
	refused := expectError(t, uploadStatement(f.c, f.cash, file), http.StatusUnprocessableEntity, "IMPORT_MAPPING_REQUIRED")
	if cols := refused["details"].(map[string]any)["columns"].([]any); len(cols) != 4 || cols[2] != "Dinero" {
		t.Fatalf("columns = %v", cols)
	}
	mapping := `{"date":1,"payee":2,"amount":3,"externalId":4,"dateOrder":"DMY","decimalSeparator":","}`
	mapped := importRows(t, f.c.With("Content-Type", "text/csv").Post("/api/imports?walletId="+f.cash+"&mapping="+url.QueryEscape(mapping), file).
		Expect(t, http.StatusCreated))
	if len(mapped) != 2 || num(mapped[0]["amount"]) != "-1500" || mapped[1]["date"] != "2026-03-15" || mapped[1]["externalId"] != "F2" {
		t.Fatalf("mapped rows = %v", mapped)
	}
	expectError(t, f.c.With("Content-Type", "text/csv").Post("/api/imports?walletId="+f.cash+"&mapping="+url.QueryEscape(`{"payee":2}`), file),
		http.StatusBadRequest, "VALIDATION_ERROR")

	profile := f.c.Post("/api/import-profiles", map[string]any{"name": "Banco", "walletId": f.bank, "mapping": map[string]any{
		"date": 1, "payee": 2, "amount": 3, "externalId": 4, "dateOrder": "DMY", "decimalSeparator": ","}}).
		Expect(t, http.StatusCreated).Object("profile")["id"].(string)
	named := importRows(t, f.c.With("Content-Type", "text/csv").Post("/api/imports?walletId="+f.cash+"&profile="+profile, file).Expect(t, http.StatusCreated))
	own := importRows(t, uploadStatement(f.c, f.bank, file).Expect(t, http.StatusCreated))
	if len(named) != 2 || len(own) != 2 || num(own[1]["amount"]) != "20000.5" {
		t.Fatalf("by profile: %v; by the wallet's profile: %v", named, own)
	}
	expectError(t, f.c.With("Content-Type", "text/csv").Post("/api/imports?walletId="+f.cash+"&profile=0195f3a2-0000-7000-8000-000000000001", file),
		http.StatusNotFound, "IMPORT_PROFILE_NOT_FOUND")
}

// Subscribers hear of an import's commit and undo, with the transactions' own events
// of the same append.
func TestImportWebhooks(t *testing.T) {
	_, alice, wallet, rc := subscribedToImports(t, "import.committed", "import.undone", "transaction.created")
	id := uploadStatement(alice, wallet, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	alice.Post("/api/imports/"+id+"/commit", nil).Expect(t, http.StatusOK)
	alice.Post("/api/imports/"+id+"/undo", nil).Expect(t, http.StatusOK)
	waitFor(t, "import.undone", 10*time.Second, func() bool { return len(firstOf(t, rc.receipts(), "import.undone")) == 1 })
	committed := firstOf(t, rc.receipts(), "import.committed")
	undone := firstOf(t, rc.receipts(), "import.undone")[0].Body["data"].(map[string]any)
	if len(committed) != 1 || len(firstOf(t, rc.receipts(), "transaction.created")) != 3 {
		t.Fatalf("receipts: %v", rc.receipts())
	}
	data := committed[0].Body["data"].(map[string]any)
	if data["importId"] != id || data["walletId"] != wallet || data["format"] != "csv" || fmt.Sprint(data["created"]) != "3" ||
		fmt.Sprint(data["skipped"]) != "1" || undone["importId"] != id || fmt.Sprint(undone["deleted"]) != "3" {
		t.Fatalf("import.committed %v, import.undone %v", data, undone)
	}
}

// subscribedToImports starts an instance whose events run, and returns alice, her cash
// wallet and a receiver of the events named, subscribed.
func subscribedToImports(t *testing.T, names ...string) (*apitest.Env, *apitest.Client, string, *receiver) {
	t.Helper()
	env, ev := apitest.StartEvents(t, nil)
	ev.Run()
	alice := env.As("alice")
	wallet := cashWallet(t, alice)
	rc := newReceiver(t)
	rc.subscribe(alice, names...)
	return env, alice, wallet, rc
}

// A QIF file's own categories name the workspace's, and a wallet in brackets a transfer.
func TestImportQIFCategories(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	qif := "!Type:Bank\nD03/02/2026\nT-45.50\nPSuper\nLfood:Groceries\n^\nD03/05/2026\nT-100.00\nPTo savings\nL[Bank]\n^\n" +
		"D03/06/2026\nT-1.00\nPGum\nLSweets\n^\n"
	expectError(t, f.c.With("Content-Type", "application/qif").Post("/api/imports?walletId="+f.cash, qif),
		http.StatusUnprocessableEntity, "IMPORT_DATE_ORDER_REQUIRED")
	rows := importRows(t, f.c.With("Content-Type", "application/qif").Post("/api/imports?dateOrder=MDY&walletId="+f.cash, qif).
		Expect(t, http.StatusCreated))
	if rows[0]["date"] != "2026-03-02" || rows[0]["categoryId"] != f.food || rows[1]["type"] != "transfer" || rows[1]["toWalletId"] != f.bank ||
		rows[2]["categoryId"] != nil || rows[2]["type"] != "expense" {
		t.Fatalf("rows = %v", rows)
	}
}

// A QIF file's split lines are proposed as the parts of a split transaction, each part's
// category found by its name, committed as one, counted by part, and undone with the
// import; a row of one category chosen by hand is not split.
func TestImportQIFSplits(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	qif := "!Type:Bank\nD03/02/2026\nT-130.50\nPSuper\nLFood\nSFood:Groceries\nEweek's shopping\n$-70.25\nSRent\n$-45.00\n" +
		"SGifts\nEfor Ana\n$-15.25\n^\nD03/03/2026\nT-20.00\nPMarket\nSFood\n$-12.00\nSRent\n$-8.00\n^\n"
	preview := f.c.With("Content-Type", "application/qif").Post("/api/imports?dateOrder=MDY&walletId="+f.cash, qif).Expect(t, http.StatusCreated)
	id := preview.Object("import")["id"].(string)
	rows := importRows(t, preview)
	parts := rows[0]["splits"].([]any)
	if len(parts) != 3 || rows[0]["categoryId"] != nil {
		t.Fatalf("row 0 = %v", rows[0])
	}
	first, last := parts[0].(map[string]any), parts[2].(map[string]any)
	if num(first["amount"]) != "70.25" || first["categoryId"] != f.food || first["concept"] != "week's shopping" ||
		num(last["amount"]) != "15.25" || last["categoryId"] != nil || last["concept"] != "for Ana" {
		t.Fatalf("parts = %v", parts)
	}
	// A category chosen for the second row takes the place of its parts.
	if row := f.c.Patch("/api/imports/"+id+"/rows/1", map[string]any{"categoryId": f.rent}).Expect(t, http.StatusOK).Object("row"); len(row["splits"].([]any)) != 0 {
		t.Fatalf("row 1 = %v", row)
	}
	f.c.Post("/api/imports/"+id+"/commit", nil).Expect(t, http.StatusOK)
	listed := f.c.Get("/api/transactions?categoryId="+f.rent).Expect(t, http.StatusOK).List("transactions")
	if len(listed) != 2 || !sameInts(listed[1]["matchingParts"], 1) || len(listed[0]["splits"].([]any)) != 0 {
		t.Fatalf("rent's transactions: %v", listed)
	}
	report := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31").Expect(t, http.StatusOK).List("byCategory")
	want := map[any]string{f.food: "70.25", f.rent: "65", nil: "15.25"}
	for _, row := range report {
		if num(row["expenses"]) != want[row["categoryId"]] {
			t.Errorf("the report's %v: %v, want %s", row["name"], row["expenses"], want[row["categoryId"]])
		}
	}
	f.c.With("Idempotency-Key", "undo-splits").Post("/api/imports/"+id+"/undo", nil).Expect(t, http.StatusOK)
	if left := f.c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions"); len(left) != 0 {
		t.Fatalf("after the undo: %v", left)
	}
}

// A preview never committed is forgotten after its retention, rows and all; a committed
// import stays, so that its undo can read it.
func TestImportPreviewsArePurged(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	left := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	kept := uploadStatement(f.c, f.bank, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	f.c.Post("/api/imports/"+kept+"/commit", nil).Expect(t, http.StatusOK)
	if n, err := imports.PurgePreviews(context.Background(), env.Pool, env.Clock.Now().Add(-imports.PreviewRetention)); err != nil || n != 0 {
		t.Fatalf("purged %d before the retention (%v)", n, err)
	}
	if n, err := imports.PurgePreviews(context.Background(), env.Pool, env.Clock.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purged %d (%v)", n, err)
	}
	expectError(t, f.c.Get("/api/imports/"+left), http.StatusNotFound, "IMPORT_NOT_FOUND")
	f.c.Post("/api/imports/"+kept+"/undo", nil).Expect(t, http.StatusOK)

	// A preview is discarded at once on request; a committed import is undone instead.
	discarded := uploadStatement(f.c, f.cash, statementCSV).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	f.c.Delete("/api/imports/"+discarded).Expect(t, http.StatusOK)
	expectError(t, f.c.Delete("/api/imports/"+discarded), http.StatusNotFound, "IMPORT_NOT_FOUND")
	expectError(t, f.c.Delete("/api/imports/"+kept), http.StatusConflict, "IMPORT_NOT_IN_PREVIEW")
	var rows int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM import_rows WHERE import_id = $1`, discarded).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d rows of a discarded preview left (%v)", rows, err)
	}
}

// A statement sent slowly, as a large file over a home connection is, is read whole
// past the server's read timeout, which still cuts any other slow request.
func TestImportUploadOutlastsTheServersReadTimeout(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	slow := env.InstanceWithTimeouts(300*time.Millisecond, 300*time.Millisecond)
	send := func(path, contentType, body string) (int, error) {
		pr, pw := io.Pipe()
		go func() {
			for _, line := range strings.SplitAfter(body, "\n") {
				time.Sleep(150 * time.Millisecond)
				if _, err := pw.Write([]byte(line)); err != nil {
					return
				}
			}
			pw.Close()
		}()
		req, err := http.NewRequest(http.MethodPost, slow.URL+path, pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", f.c.Headers["Authorization"])
		req.Header.Set("Content-Type", contentType)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer res.Body.Close()
		io.Copy(io.Discard, res.Body) //nolint:errcheck // the status is what matters
		return res.StatusCode, nil
	}
	if status, err := send("/api/imports?walletId="+f.cash, "text/csv", statementCSV); err != nil || status != http.StatusCreated {
		t.Fatalf("a slow upload answered %d (%v)", status, err)
	}
	if status, err := send("/api/transactions", "application/json", "{\n\"type\": \"expense\",\n\"amount\": 1,\n\"concept\": \"slow\"\n}\n"); err == nil && status == http.StatusCreated {
		t.Fatal("a slow request elsewhere outlasted the read timeout: the test shows nothing")
	}
}

// A statement of more rows than a part holds is committed in parts, one event each. The
// listing pages through their transactions, which share their part's version, each once
// and in one order, with running balances that follow it; the change feed carries every
// one, and the audit log an entry of its own for each; an instance whose state holds none of them corrects one and another undoes the
// whole import, each meeting them from the parts.
func TestALargeStatementIsCommittedInParts(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	const n = domain.ImportPart + 250
	var file strings.Builder
	file.WriteString("Date,Description,Amount,Reference\n")
	for i := range n {
		fmt.Fprintf(&file, "2026-03-%02d,Payee %d,-0.01,L%d\n", 1+i%3, i, i)
	}
	cursor := f.c.Get("/api/changes").Expect(t, http.StatusOK).JSON["cursor"].(string)
	id := uploadStatement(f.c, f.cash, file.String()).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	env.Ledger.SnapshotEvery(1) // the commit's state is kept, without its transactions
	done := f.c.Post("/api/imports/"+id+"/commit", nil).Expect(t, http.StatusOK).Object("import")
	if done["created"] != jsonInt(n) || f.balance(t, f.cash) != "87.5" {
		t.Fatalf("committed %v, balance %s", done, f.balance(t, f.cash))
	}

	ctx := context.Background()
	rows, err := env.Pool.Query(ctx, `SELECT type, coalesce(jsonb_array_length(data->'transactions'), 0) FROM events
		WHERE data->>'importId' = $1 ORDER BY version`, id)
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	var typ string
	var size int
	if _, err := pgx.ForEachRow(rows, []any{&typ, &size}, func() error {
		stored = append(stored, fmt.Sprint(typ, " ", size))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"import.committed.v1 0", "transactions.imported.v1 1000", "transactions.imported.v1 250"}; !slices.Equal(stored, want) {
		t.Fatalf("the commit stored %q, want %q", stored, want)
	}

	var listed []string
	balance := decimal.RequireFromString("87.5")
	for page := 1; page <= n/100+1; page++ {
		for _, tr := range f.c.Get(fmt.Sprintf("/api/transactions?walletId=%s&pageSize=100&page=%d", f.cash, page)).Expect(t, http.StatusOK).List("transactions") {
			if got := decimal.RequireFromString(fmt.Sprint(tr["runningBalance"])); !got.Equal(balance) {
				t.Fatalf("transaction %d of the listing has a running balance of %s, want %s", len(listed), got, balance)
			}
			balance = balance.Add(decimal.RequireFromString("0.01"))
			listed = append(listed, tr["id"].(string))
		}
	}
	var want []string
	for _, tr := range liveTransactions(t, env, "alice") {
		want = append(want, tr.id)
	}
	if len(listed) != n || !slices.Equal(listed, want) {
		t.Fatalf("the listing's pages hold %d transactions, not the %d of the table in its order", len(listed), len(want))
	}

	changed := map[string]bool{}
	for more := true; more; {
		page := f.c.Get("/api/changes?limit=500&cursor="+cursor).Expect(t, http.StatusOK)
		for _, c := range page.List("changes") {
			if c["kind"] == "transaction" && c["record"].(map[string]any)["importId"] == id {
				changed[c["id"].(string)] = true
			}
		}
		cursor, more = page.JSON["cursor"].(string), page.JSON["more"].(bool)
	}
	if len(changed) != n {
		t.Fatalf("the change feed carries %d of the %d imported transactions", len(changed), n)
	}

	entries := map[string]bool{}
	for page := 1; page <= n/100+1; page++ {
		for _, e := range f.c.Get(fmt.Sprintf("/api/audit?entity=transaction&action=create&pageSize=100&page=%d", page)).
			Expect(t, http.StatusOK).List("entries") {
			entries[e["id"].(string)] = true
		}
	}
	if len(entries) != n {
		t.Fatalf("the audit log holds %d creations of an id of its own, want %d", len(entries), n)
	}

	last := want[0]
	corrected := f.c.On(env.Instance()).With("Idempotency-Key", uuid.NewString()).Patch("/api/transactions/"+last, map[string]any{"concept": "Corrected"}).
		Expect(t, http.StatusOK).Object("transaction")
	if corrected["concept"] != "Corrected" || corrected["importId"] != id {
		t.Fatalf("corrected on an instance that met it from its part: %v", corrected)
	}
	undone := f.c.On(env.Instance()).Post("/api/imports/"+id+"/undo", nil).Expect(t, http.StatusOK).Object("import")
	if undone["status"] != "undone" || f.balance(t, f.cash) != "100" || len(liveTransactions(t, env, "alice")) != 0 {
		t.Fatalf("undone on another instance = %v, balance %s", undone, f.balance(t, f.cash))
	}
}

// A part larger than a message of the webhooks' bus may carry goes without its data,
// which the dispatcher reads from the log: each of its transactions is delivered as a
// transaction.created of its own.
func TestALargePartReachesTheWebhooks(t *testing.T) {
	env, alice, wallet, _ := subscribedToImports(t, "transaction.created")
	const n = domain.ImportPart
	memo := strings.Repeat("A long memo from the bank. ", 40)
	var file strings.Builder
	file.WriteString("Date,Description,Memo,Amount,Reference\n")
	for i := range n {
		fmt.Fprintf(&file, "2026-03-01,Payee %d,%s,-1.00,W%d\n", i, memo, i)
	}
	id := uploadStatement(alice, wallet, file.String()).Expect(t, http.StatusCreated).Object("import")["id"].(string)
	alice.Post("/api/imports/"+id+"/commit", nil).Expect(t, http.StatusOK)

	ctx := context.Background()
	var size int
	if err := env.Pool.QueryRow(ctx, `SELECT octet_length(data::text) FROM events WHERE type = 'transactions.imported.v1'
		AND data->>'importId' = $1`, id).Scan(&size); err != nil || size <= 1<<20 {
		t.Fatalf("the part holds %d bytes (%v), want more than a message's 1 MiB", size, err)
	}
	var stored, ids, transactions int
	waitFor(t, "the part's deliveries", 30*time.Second, func() bool {
		if err := env.Pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT body->>'id'), count(DISTINCT body->'data'->>'transactionId')
			FROM webhook_deliveries WHERE event = 'transaction.created'`).Scan(&stored, &ids, &transactions); err != nil {
			t.Fatal(err)
		}
		return stored >= n
	})
	if stored != n || ids != n || transactions != n {
		t.Fatalf("%d deliveries of %d ids and %d transactions, want %d", stored, ids, transactions, n)
	}
}
