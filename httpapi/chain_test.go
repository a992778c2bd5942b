package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

// A workspace's history is a hash chain: intact after writes from two instances at once,
// with a head the export ends at; the procedure of docs/history.md checks an export and catches
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
		t.Fatalf("the check of docs/history.md of the export: %v\n%s", err, out)
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
		t.Fatalf("the check of docs/history.md of an export with one byte changed: %v\n%s", err, out)
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

// verifyExport runs the procedure of docs/history.md ("Verifying an export") with Node.js on an
// export, and returns what it printed.
func verifyExport(t *testing.T, export []byte) (string, error) {
	t.Helper()
	readme, err := os.ReadFile("../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "#### Verifying an export")
	_, code, ok2 := strings.Cut(section, "```js\n")
	code, _, ok3 := strings.Cut(code, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/history.md has no JavaScript block under \"Verifying an export\"")
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

// The export leaves out every secret its events hold, an API key's hash and a webhook's
// sealed signing secret, and carries instead a commitment to each, which is what the
// chain hashes: the check of docs/history.md passes on it and ends at the head verify gives, which
// finledger verify's own text agrees with. The audit log shows none of them either.
// verify's formerAt gives the hash a head kept before secrets were left out holds.
func TestExportLeavesSecretsOut(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 500, "isDefault": true}).Expect(t, http.StatusOK)
	key := alice.Post("/api/api-keys", map[string]any{"name": "ci", "scopes": []string{"*"}}).Expect(t, http.StatusOK).JSON["plaintext"].(string)
	hook := alice.Post("/api/webhooks/outbound", map[string]any{"name": "a", "url": "https://a.example.com/h"}).Expect(t, http.StatusOK)
	rotated := alice.Post("/api/webhooks/outbound/"+hook.Object("webhook")["id"].(string)+"/rotate-secret", nil).Expect(t, http.StatusOK)
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 12}).Expect(t, http.StatusCreated)
	stream := "workspace-" + fmt.Sprint(alice.Get("/api/me").Object("workspace")["id"])

	// What is secret: the plaintexts shown once, and what the events store of them.
	secrets := []string{key, fmt.Sprint(hook.JSON["secret"]), fmt.Sprint(rotated.JSON["secret"])}
	rows, err := env.Pool.Query(context.Background(), `SELECT coalesce(data->>'hash', data->>'sealedSecret') FROM events
		WHERE stream_id = $1 AND type IN ('api_key.created.v1', 'webhook.created.v1', 'webhook.secret_rotated.v1') ORDER BY version`, stream)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(stored) != 3 {
		t.Fatalf("stored secrets %v, %v", stored, err)
	}
	for _, s := range stored {
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, s, hex.EncodeToString(raw))
	}

	export := alice.Get("/api/audit/export").Expect(t, http.StatusOK)
	audit := alice.Get("/api/audit?pageSize=100").Expect(t, http.StatusOK)
	for _, s := range secrets {
		if len(s) < 8 || bytes.Contains(export.Raw, []byte(s)) || bytes.Contains(audit.Raw, []byte(s)) {
			t.Errorf("the export or the audit log holds the secret %q", s)
		}
	}
	former := make([]string, 0, 8)
	for _, s := range stored {
		sum := sha256.Sum256([]byte(s))
		commitment := "sha256:" + hex.EncodeToString(sum[:])
		if !bytes.Contains(export.Raw, []byte(`\"`+commitment+`\"`)) {
			t.Errorf("the export holds no commitment %s", commitment)
		}
		former = append(former, `"`+commitment+`"`, `"`+s+`"`)
	}
	check := alice.Get("/api/audit/verify").Expect(t, http.StatusOK)
	head := check.JSON["head"].(map[string]any)
	out, err := verifyExport(t, export.Raw)
	if err != nil || check.JSON["intact"] != true || !strings.Contains(out, fmt.Sprintf("%v events, head %s", head["version"], head["hash"])) {
		t.Fatalf("the check of docs/history.md of the export: %v\n%s\nverify: %s", err, out, check.Raw)
	}
	if _, err := projections.VerifyTelling(context.Background(), env.Pool, nil, func(s string, c eventstore.ChainCheck) {
		if s == stream && (c.BrokenAt != 0 || fmt.Sprint(c.Head.Version) != fmt.Sprint(head["version"]) ||
			hex.EncodeToString(c.Head.Hash[:]) != head["hash"]) {
			t.Errorf("finledger verify's chain of the workspace: %+v, against %v", c, head)
		}
	}); err != nil {
		t.Fatal(err)
	}

	// The chain as it was hashed before secrets were left out: the exported text with
	// each commitment replaced by the value it stands for.
	prev, n := make([]byte, sha256.Size), 0
	for line := range bytes.Lines(export.Raw) {
		var l eventstore.ExportLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(append(prev, strings.NewReplacer(former...).Replace(l.Event)...))
		prev, n = sum[:], n+1
		at := alice.Get(fmt.Sprintf("/api/audit/verify?formerAt=%d", n)).Expect(t, http.StatusOK).Object("former")
		if fmt.Sprint(at["version"]) != fmt.Sprint(n) || at["hash"] != hex.EncodeToString(prev) {
			t.Fatalf("former hash at %d: %v, want %x", n, at, prev)
		}
	}
	for _, bad := range []string{"0", "-1", "x", fmt.Sprint(n + 1)} {
		if r := alice.Get("/api/audit/verify?formerAt="+bad).Expect(t, http.StatusBadRequest); r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("formerAt=%s: %s", bad, r.Raw)
		}
	}
}
