package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// A workspace's history is a hash chain: intact after writes from two instances at once,
// with a head the export ends at; the README's procedure checks an export and catches
// one changed byte; a stored event changed afterwards breaks the chain where it is.
func TestHistoryIsATamperEvidentChain(t *testing.T) {
	env := apitest.Start(t)
	other := env.Instance()
	alice := env.As("alice")
	wallet := alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 500, "isDefault": true}).Expect(t, http.StatusOK).Object("wallet")["id"]
	category := alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"]
	var wg sync.WaitGroup
	for i := range 16 {
		c := alice
		if i%2 == 1 {
			c = alice.On(other)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number(fmt.Sprintf("%d.05", i+1)), "walletId": wallet,
				"categoryId": category, "description": fmt.Sprintf("meal %d", i)}).Expect(t, http.StatusCreated)
		}()
	}
	wg.Wait()
	tx := alice.Get("/api/transactions?pageSize=1").Expect(t, http.StatusOK).List("transactions")[0]["id"].(string)
	alice.With("Idempotency-Key", "fix").Patch("/api/transactions/"+tx, map[string]any{"amount": 1.1}).Expect(t, http.StatusOK)
	alice.With("Idempotency-Key", "gone").Delete("/api/transactions/"+tx).Expect(t, http.StatusOK)

	check := alice.Get("/api/audit/verify").Expect(t, http.StatusOK)
	head := check.JSON["head"].(map[string]any)
	if check.JSON["intact"] != true || check.JSON["brokenAt"] != nil || fmt.Sprint(head["version"]) != fmt.Sprint(check.JSON["checked"]) {
		t.Fatalf("verify after the writes: %s", check.Raw)
	}
	var version int64
	if err := env.Pool.QueryRow(context.Background(), `SELECT max(version) FROM events WHERE stream_id = $1`,
		"workspace-"+fmt.Sprint(alice.Get("/api/me").Object("workspace")["id"])).Scan(&version); err != nil || fmt.Sprint(version) != fmt.Sprint(head["version"]) {
		t.Fatalf("the head is version %v; the stream's last is %d (%v)", head["version"], version, err)
	}

	export := alice.Get("/api/audit/export").Expect(t, http.StatusOK)
	if export.Header.Get("Content-Type") != "application/x-ndjson" || bytes.Count(export.Raw, []byte("\n")) != int(version) {
		t.Fatalf("export: %s, %d lines for %d events", export.Header.Get("Content-Type"), bytes.Count(export.Raw, []byte("\n")), version)
	}
	out, err := verifyExport(t, export.Raw)
	if err != nil || !strings.Contains(out, fmt.Sprintf("%d events, head %s", version, head["hash"])) {
		t.Fatalf("the README's check of the export: %v\n%s", err, out)
	}
	// One byte changed: the number of the meal described in the fourth line's event.
	lines := bytes.SplitAfter(export.Raw, []byte("\n"))
	i := bytes.Index(lines[3], []byte("meal "))
	if i < 0 {
		t.Fatalf("no meal in the fourth line: %s", lines[3])
	}
	tampered := bytes.Clone(export.Raw)
	at := len(bytes.Join(lines[:3], nil)) + i + len("meal ")
	if tampered[at] == '9' {
		tampered[at] = '8'
	} else {
		tampered[at]++
	}
	if out, err := verifyExport(t, tampered); err == nil || !strings.Contains(out, "line 4: the chain breaks here") {
		t.Fatalf("the README's check of an export with one byte changed: %v\n%s", err, out)
	}

	// A stored event rewritten in the database breaks the chain at that event.
	if _, err := env.Pool.Exec(context.Background(), `UPDATE events SET data = jsonb_set(data, '{description}', '"rewritten"')
		WHERE stream_id = $1 AND version = 5`, "workspace-"+fmt.Sprint(alice.Get("/api/me").Object("workspace")["id"])); err != nil {
		t.Fatal(err)
	}
	check = alice.Get("/api/audit/verify").Expect(t, http.StatusOK)
	if check.JSON["intact"] != false || fmt.Sprint(check.JSON["brokenAt"]) != "5" || fmt.Sprint(check.JSON["head"].(map[string]any)["version"]) != "4" {
		t.Fatalf("verify after rewriting event 5: %s", check.Raw)
	}
}

// verifyExport runs the README's procedure ("Verifying an export") with Node.js on an
// export, and returns what it printed.
func verifyExport(t *testing.T, export []byte) (string, error) {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "#### Verifying an export")
	_, code, ok2 := strings.Cut(section, "```js\n")
	code, _, ok3 := strings.Cut(code, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no JavaScript block under \"Verifying an export\"")
	}
	script := filepath.Join(t.TempDir(), "verify-export.mjs")
	if err := os.WriteFile(script, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("the export's check needs Node.js (node), as the browser tests' tools do")
	}
	cmd := exec.Command(node, script)
	cmd.Stdin = bytes.NewReader(export)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
