package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/attachments/storetest"
	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/pgcluster"
	"github.com/finledger/finledger/internal/testkit/s3server"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/webapp"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// syncBuffer collects a command's output while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// freeAddr returns a loopback address free now, for a listener a test starts later (a
// process of its own, or a second listener whose address is not reported). Its port is
// below the kernel's ephemeral range (32768 and up on Linux), where a port ":0" hands out,
// or an outgoing connection of a test beside it takes, would take this one meanwhile.
func freeAddr(t *testing.T) string {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 20000+rand.IntN(12000)))
		if err != nil {
			continue // taken
		}
		addr := ln.Addr().String()
		if err := ln.Close(); err != nil {
			t.Fatal(err)
		}
		return addr
	}
	t.Fatal("no free port below 32000 on the loopback after 100 tries")
	return ""
}

// devSignInIsThePrintedUser signs in to the web app with its one click, as a browser
// would, and finds the user of the printed token.
func devSignInIsThePrintedUser(t *testing.T, base string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar}
	res, err := browser.Post(base+"/auth/dev", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/app/" || !strings.Contains(string(page), "/app/js/main.js") {
		t.Fatalf("one-click sign-in ended at %s with %d", res.Request.URL, res.StatusCode)
	}
	req, _ := http.NewRequest("GET", base+"/api/me", nil)
	for _, c := range jar.Cookies(req.URL) {
		if c.Name == webapp.CSRFCookie {
			req.Header.Set(webapp.CSRFHeader, c.Value)
		}
	}
	res, err = browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	me, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(me), devEmail) {
		t.Fatalf("me in the web app's session: %d %s", res.StatusCode, me)
	}
}

func call(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// `finledger serve` keeps the metrics on the operators' listener: the API's listener,
// which clients reach, has no /metrics.
func TestServeKeepsMetricsOnTheAdminListener(t *testing.T) {
	cfg := config{DatabaseURL: testdb.URL(t), HTTPAddr: freeAddr(t), AdminAddr: freeAddr(t), Env: "production",
		DataDir: t.TempDir(), SessionHS256Secret: "a-session-secret-for-the-metrics-test", StateCacheSize: 100, DBMaxConns: 4,
		SecretKey: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", NATSReplicas: 1}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- serve(ctx, cfg, func(base string) { ready <- base }) }()
	var base string
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("serve stopped: %v", err)
	case <-time.After(serveStartTimeout):
		t.Fatal("serve did not start")
	}
	if status, body := call(t, "GET", base+"/metrics", "", ""); status != http.StatusNotFound || strings.Contains(body, "go_goroutines") {
		t.Errorf("the API's listener answers /metrics with %d:\n%.200s", status, body)
	}
	if status, body := call(t, "GET", "http://"+cfg.AdminAddr+"/metrics", "", ""); status != http.StatusOK || !strings.Contains(body, "finledger_db_pool_max_connections") {
		t.Errorf("the operators' listener answers /metrics with %d", status)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("serve stopped with %v", err)
	}
}

// `finledger dev` on an empty data folder: a private PostgreSQL, migrations, the API,
// a printed token that works, a `token` command that mints more, and a clean stop.
func TestDevRunsTheWholeServiceWithoutConfiguration(t *testing.T) {
	dir, err := os.MkdirTemp("", "finledger-dev-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// A data folder the server's user can reach even when the tests run as root.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	defaultLogger := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(defaultLogger)
	cfg := config{HTTPAddr: freeAddr(t), AdminAddr: freeAddr(t), Env: "development", DataDir: dir, StateCacheSize: 100, DBMaxConns: 4}
	base := "http://" + cfg.HTTPAddr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, out, "dev", nil) }()

	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(out.String(), "Try:") {
		select {
		case err := <-done:
			t.Fatalf("dev stopped: %v\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("dev did not start:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if status, _ := call(t, "GET", base+"/healthz", "", ""); status != http.StatusOK {
		t.Fatalf("healthz %d", status)
	}
	if status, _ := call(t, "GET", base+"/readyz", "", ""); status != http.StatusOK {
		t.Fatalf("readyz %d", status)
	}
	_, after, _ := strings.Cut(out.String(), "Development session token")
	lines := strings.Split(after, "\n")
	devToken := strings.TrimSpace(lines[2])
	// The token comes last, with where it is kept: a file only its owner reads.
	if printed := strings.TrimSpace(out.String()); !strings.HasSuffix(printed, base+"/api/me") {
		t.Errorf("the output does not end with the token and its example:\n%s", printed)
	}
	keptAt := filepath.Join(dir, devTokenFile)
	if !strings.Contains(lines[0], "kept in "+keptAt) {
		t.Errorf("the output does not say where the token is kept: %q", lines[0])
	}
	if info, err := os.Stat(keptAt); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the kept token: %v, mode %v; want 0600", err, info)
	} else if kept, _ := os.ReadFile(keptAt); strings.TrimSpace(string(kept)) != devToken {
		t.Errorf("the kept token %q is not the printed one", kept)
	}
	status, body := call(t, "GET", base+"/api/me", devToken, "")
	if status != http.StatusOK || !strings.Contains(body, devEmail) {
		t.Fatalf("me with the printed token: %d %s", status, body)
	}
	if status, body := call(t, "POST", base+"/api/wallets", devToken, `{"name":"Cash","balance":10.5,"isDefault":true}`); status != http.StatusOK {
		t.Fatalf("create wallet: %d %s", status, body)
	}
	// dev starts with the ECB's history shipped with the binary.
	if status, body := call(t, "GET", base+"/api/exchange-rates?date=2026-04-13", devToken, ""); status != http.StatusOK ||
		!strings.Contains(body, `"date":"2026-04-13","source":"ecb-snapshot"`) {
		t.Fatalf("dev's rates: %d %s", status, body)
	}
	devSignInIsThePrintedUser(t, base)
	// Webhooks go out through the in-process NATS server, to a receiver on this machine.
	received := make(chan string, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received <- r.Header.Get("X-Service-Event")
	}))
	defer receiver.Close()
	if status, body := call(t, "POST", base+"/api/webhooks/outbound", devToken, `{"name":"local","url":"`+receiver.URL+`"}`); status != http.StatusOK {
		t.Fatalf("create webhook: %d %s", status, body)
	}
	if status, body := call(t, "POST", base+"/api/transactions", devToken, `{"type":"expense","amount":2}`); status != http.StatusCreated {
		t.Fatalf("create transaction: %d %s", status, body)
	}
	select {
	case event := <-received:
		if event != "transaction.created" {
			t.Fatalf("webhook %s", event)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no webhook within 20 s")
	}
	// The metrics, on the operators' listener, where the profiles are, and in development
	// on the API's listener too.
	// The webhook's attempt is counted once recorded, just after the receiver answered.
	var metricsText string
	for wait := time.Now().Add(10 * time.Second); !strings.Contains(metricsText, `finledger_webhook_attempts_total{outcome="succeeded"}`) && time.Now().Before(wait); {
		time.Sleep(50 * time.Millisecond)
		_, metricsText = call(t, "GET", base+"/metrics", "", "")
	}
	for _, sample := range []string{
		`finledger_http_request_duration_seconds_count{method="POST",route="/api/transactions",status="201"} 1`,
		`finledger_webhook_attempts_total{outcome="succeeded"} 1`,
		`finledger_relay_backlog_events `, `finledger_relay_lag_seconds `, `finledger_dispatcher_backlog_messages `,
		`finledger_webhook_deliveries_pending `, `finledger_scrape_collector_success{collector="lag"} 1`,
		`finledger_events_appended_total `, `finledger_db_pool_connections{state="idle"} `,
		`go_goroutines `, `process_resident_memory_bytes `,
	} {
		if !strings.Contains(metricsText, "\n"+sample) {
			t.Errorf("metrics lack %q", sample)
		}
	}
	if status, body := call(t, "GET", "http://"+cfg.AdminAddr+"/metrics", "", ""); status != http.StatusOK || !strings.Contains(body, "finledger_events_appended_total") {
		t.Errorf("admin metrics: %d", status)
	}
	if status, body := call(t, "GET", "http://"+cfg.AdminAddr+"/debug/pprof/", "", ""); status != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("admin profiles: %d", status)
	}
	if status, _ := call(t, "GET", base+"/debug/pprof/", "", ""); status != http.StatusNotFound {
		t.Errorf("the API's listener serves profiles: %d", status)
	}

	for _, kept := range []string{"nats", "secret-key"} {
		if _, err := os.Stat(filepath.Join(dir, kept)); err != nil {
			t.Fatalf("the data folder lacks %s: %v", kept, err)
		}
	}

	tokOut := &syncBuffer{}
	if err := run(ctx, cfg, tokOut, "token", []string{"--sub", "someone", "--email", "someone@example.com"}); err != nil {
		t.Fatal(err)
	}
	if status, body := call(t, "GET", base+"/api/me", strings.TrimSpace(tokOut.String()), ""); status != http.StatusOK || !strings.Contains(body, "someone@example.com") {
		t.Fatalf("me with a minted token: %d %s", status, body)
	}
	if err := run(ctx, cfg, io.Discard, "token", []string{"--sub", "x"}); err == nil {
		t.Fatal("token without --email succeeded")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("dev ended with %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("dev did not stop")
	}
	if _, err := net.DialTimeout("tcp", cfg.HTTPAddr, time.Second); err == nil {
		t.Fatal("the API still listens after dev stopped")
	}
	// JSON lines, a line per request with its route and caller at Debug (below the
	// console's level), no error on a normal stop, and never the session token.
	requests := 0
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if entry["level"] == "ERROR" {
			t.Errorf("an error logged: %s", line)
		}
		if entry["msg"] == "request" && entry["route"] == "/api/transactions" && entry["credential"] == "session" {
			requests++
			if entry["level"] != "DEBUG" {
				t.Errorf("a request logged at %v in development: %s", entry["level"], line)
			}
		}
	}
	if requests != 1 || strings.Contains(logs.String(), devToken) {
		t.Errorf("%d request lines for the transaction; the token logged: %v", requests, strings.Contains(logs.String(), devToken))
	}

	// A second start finds the same cluster and data.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	out2 := &syncBuffer{}
	go func() { done <- run(ctx2, cfg, out2, "dev", nil) }()
	for !strings.Contains(out2.String(), "Try:") {
		if time.Now().After(deadline.Add(60 * time.Second)) {
			t.Fatalf("dev did not restart:\n%s", out2)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, body := call(t, "GET", base+"/api/wallets", devToken, ""); !strings.Contains(body, `"balance":8.5`) {
		t.Fatalf("wallet lost across restarts: %s", body)
	}
	cancel2()
	<-done
}

// export writes a workspace's history with its chain hashes; verify recomputes every
// chain and, when a stored event was changed, names the stream and version and exits 3.
func TestExportAndVerifyChains(t *testing.T) {
	ctx := context.Background()
	cfg, pool, _, workspace := personalWorkspace(t, time.Now, "auditor")
	out := &syncBuffer{}
	if err := run(ctx, cfg, out, "export", []string{"--workspace", workspace.String()}); err != nil {
		t.Fatalf("export: %v %s", err, out)
	}
	var line eventstore.ExportLine
	if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &line); err != nil || !strings.Contains(line.Event, `"version":1,`) || len(line.Hash) != 64 {
		t.Fatalf("export's first line: %+v, %v", line, err)
	}
	if err := run(ctx, cfg, io.Discard, "export", []string{"--workspace", "nope"}); exitCode(err) != exitUsage {
		t.Fatalf("export of a bad id: %v", err)
	}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); err != nil || !strings.Contains(out.String(), "0 broken") {
		t.Fatalf("verify: %v %s", err, out)
	}
	if _, err := pool.Exec(ctx, `UPDATE events SET recorded_at = recorded_at - interval '1 day' WHERE stream_id = $1 AND version = 1`,
		domain.StreamID(workspace)); err != nil {
		t.Fatal(err)
	}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); exitCode(err) != exitDifferent ||
		!strings.Contains(out.String(), "chain of "+domain.StreamID(workspace)+" BREAKS at version 1") {
		t.Fatalf("verify of a changed event: %v (exit %d) %s", err, exitCode(err), out)
	}
}

// verify compares the read models with their replay as written, so a number held with
// another scale than its event's differs: here a transaction recorded with 1.1 whose read
// model says 1.10, as a history recorded before events kept their decimals' scale left
// it, and an audit entry that says 100 for 100.00, as the log wrote it before it kept
// the scale. verify says so, with its exit code, and `finledger replay` is the way out:
// the read models then say what the history says.
func TestVerifyTellsAScaleApart(t *testing.T) {
	ctx := context.Background()
	cfg, pool, l, ws := personalWorkspace(t, time.Now, "scale")
	wallet, tx := uuid.New(), uuid.New()
	for _, decide := range []func(*domain.Workspace) ([]domain.Event, error){
		domain.CreateWallet{WalletID: wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash", Currency: "MXN",
			CardColor: "#111827", InitialBalance: decimal.RequireFromString("100.00"), IsDefault: true}}.Decide,
		domain.CreateTransaction{TransactionID: tx, Type: domain.TxExpense, Amount: decimal.RequireFromString("1.1"),
			Date: domain.MustParseDate("2026-03-10"), WalletID: &wallet}.Decide,
	} {
		if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"},
			Decide: decide}); err != nil {
			t.Fatal(err)
		}
	}
	out := &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); err != nil {
		t.Fatalf("verify: %v %s", err, out)
	}
	if _, err := pool.Exec(ctx, `UPDATE transactions SET amount = amount::numeric(20, 2) WHERE id = $1`, tx); err != nil {
		t.Fatal(err)
	}
	// The audit log wrote amounts without their trailing zeros before it kept their scale.
	if _, err := pool.Exec(ctx, `UPDATE audit_log SET changes = jsonb_set(changes, '{initialBalance,after}', '"100"')
		WHERE entity = 'wallet' AND entity_id = $1 AND changes->'initialBalance'->>'after' = '100.00'`, wallet.String()); err != nil {
		t.Fatal(err)
	}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); exitCode(err) != exitDifferent || strings.Count(out.String(), "DIFFERS") != 2 ||
		strings.Count(out.String(), "1 row(s) differ only in how a value is written") != 2 ||
		!regexp.MustCompile(`(?m)^audit_log .*live-only +1 +replay-only +1 +DIFFERS$`).MatchString(out.String()) {
		t.Fatalf("verify of read models holding 1.10 for 1.1, and an audit entry 100 for 100.00: %v (exit %d) %s", err, exitCode(err), out)
	}
	if err := run(ctx, cfg, io.Discard, "replay", nil); err != nil {
		t.Fatal(err)
	}
	var amount string
	if err := pool.QueryRow(ctx, `SELECT amount::text FROM transactions WHERE id = $1`, tx).Scan(&amount); err != nil || amount != "1.1" {
		t.Fatalf("after replay the transaction holds %s (%v)", amount, err)
	}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); err != nil {
		t.Fatalf("verify after replay: %v %s", err, out)
	}
}

// verify reads back every attached file from the storage the settings name and checks
// it against the hash its event carries: a file whose stored bytes changed, or that is
// gone, is named, with exit 3.
func TestVerifyChecksTheAttachedFiles(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) {
		verifyChecksTheAttachedFiles(t, func(cfg *config, pool *pgxpool.Pool) func(ws uuid.UUID, sha256 string) {
			return func(ws uuid.UUID, sha256 string) {
				if _, err := pool.Exec(context.Background(), `UPDATE attachment_chunks SET data = set_byte(data, 10, get_byte(data, 10) # 1)
					WHERE workspace_id = $1 AND sha256 = $2 AND n = 1`, ws, sha256); err != nil {
					t.Fatal(err)
				}
			}
		})
	})
	t.Run("S3", func(t *testing.T) {
		bucket := s3server.Start(t)
		verifyChecksTheAttachedFiles(t, func(cfg *config, _ *pgxpool.Pool) func(ws uuid.UUID, sha256 string) {
			s3 := bucket.Config()
			cfg.FilesS3Endpoint, cfg.FilesS3Bucket, cfg.FilesS3AccessKey, cfg.FilesS3SecretKey = s3.Endpoint, s3.Bucket, s3.AccessKey, s3.SecretKey
			return func(ws uuid.UUID, sha256 string) {
				path := bucket.ObjectPath(ws.String() + "/" + sha256)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				data[300<<10-1] ^= 1
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	})
}

// verifyChecksTheAttachedFiles runs verify's test of the files on the storage that
// storage's settings name; damage, which it returns, changes a byte of a stored file.
func verifyChecksTheAttachedFiles(t *testing.T, storage func(*config, *pgxpool.Pool) (damage func(ws uuid.UUID, sha256 string))) {
	ctx := context.Background()
	cfg, pool, l, ws := personalWorkspace(t, time.Now, "receipts")
	damage := storage(&cfg, pool)
	store, err := cfg.files(pool)
	if err != nil {
		t.Fatal(err)
	}
	wallet, tx, attachment := uuid.New(), uuid.New(), uuid.New()
	upload := storetest.Spool(t, storetest.PDF(t, 300<<10))
	if err := store.Save(ctx, ws, upload); err != nil {
		t.Fatal(err)
	}
	for _, decide := range []func(*domain.Workspace) ([]domain.Event, error){
		domain.CreateWallet{WalletID: wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash", Currency: "MXN",
			CardColor: "#111827", InitialBalance: decimal.RequireFromString("100.00"), IsDefault: true}}.Decide,
		domain.CreateTransaction{TransactionID: tx, Type: domain.TxExpense, Amount: decimal.RequireFromString("12.50"),
			Date: domain.MustParseDate("2026-03-10"), WalletID: &wallet}.Decide,
		domain.AttachFile{AttachmentID: attachment, TransactionID: tx, SHA256: upload.SHA256, Size: upload.Size,
			ContentType: upload.Kind.MIME(), FileName: "ticket.pdf"}.Decide,
	} {
		if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"},
			Decide: decide}); err != nil {
			t.Fatal(err)
		}
	}
	out := &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); err != nil || !strings.Contains(out.String(), "files: 1 checked, 0 missing or changed") {
		t.Fatalf("verify: %v %s", err, out)
	}
	damage(ws, upload.SHA256)
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); exitCode(err) != exitDifferent ||
		!strings.Contains(out.String(), "file "+upload.SHA256+" of workspace "+ws.String()+" CHANGED") {
		t.Fatalf("verify of a changed file: %v (exit %d) %s", err, exitCode(err), out)
	}
	if err := store.Delete(ctx, ws, upload.SHA256); err != nil {
		t.Fatal(err)
	}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); exitCode(err) != exitDifferent || !strings.Contains(out.String(), "IS MISSING") {
		t.Fatalf("verify of a missing file: %v (exit %d) %s", err, exitCode(err), out)
	}
}

func TestMigrateReplayVerifyCommands(t *testing.T) {
	ctx := context.Background()
	out := &syncBuffer{}
	if err := run(ctx, config{DatabaseURL: testdb.EmptyURL(t)}, out, "migrate", nil); err != nil {
		t.Fatal(err)
	}
	all, err := database.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("applied %d migration(s)", len(all))) {
		t.Fatalf("migrate said %q", out)
	}
	cfg := config{DatabaseURL: testdb.URL(t)}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "replay", nil); err != nil || !strings.Contains(out.String(), "replayed 0 events") ||
		!strings.Contains(out.String(), "replay: 0 events in ") {
		t.Fatalf("replay: %v %q", err, out)
	}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); err != nil || !strings.Contains(out.String(), "every read model equals a replay") {
		t.Fatalf("verify: %v %q", err, out)
	}
	// A read model that differs from the log: verify says so, with its own exit code.
	pool, err := database.Open(ctx, cfg.DatabaseURL, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `INSERT INTO transaction_counts VALUES (gen_random_uuid(), '2026-01-01', 'expense', gen_random_uuid(), 1)`); err != nil {
		t.Fatal(err)
	}
	out = &syncBuffer{}
	if err := run(ctx, cfg, out, "verify", nil); exitCode(err) != exitDifferent || !strings.Contains(out.String(), "DIFFERS") {
		t.Fatalf("verify of a changed read model: %v (exit %d) %q", err, exitCode(err), out)
	}
	if err := run(ctx, config{}, io.Discard, "verify", nil); exitCode(err) != exitUsage {
		t.Fatalf("verify without a database: %v", err)
	}
}

// help lists the commands and explains each; a mistake in calling the binary is exit
// code 2 and says where to look.
func TestCommandLine(t *testing.T) {
	ctx := context.Background()
	out := &syncBuffer{}
	if err := run(ctx, config{}, out, "help", nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range subcommands() {
		if !strings.Contains(out.String(), "\n  "+c.name+" ") {
			t.Errorf("help does not list %s:\n%s", c.name, out)
		}
	}
	for _, args := range [][]string{{"help", "token"}, {"token", "-h"}, {"token", "--help"}} {
		out := &syncBuffer{}
		err := run(ctx, config{}, out, args[0], args[1:])
		if exitCode(err) != exitOK || !strings.Contains(out.String(), "Usage: finledger token --sub ID") || !strings.Contains(out.String(), "-email string") {
			t.Errorf("%v: %v %q", args, err, out)
		}
	}
	for _, args := range [][]string{{"nonsense"}, {"help", "nonsense"}, {"migrate", "now"}, {"token", "--subject", "x"}, {"token", "--sub", "x"}} {
		err := run(ctx, config{}, io.Discard, args[0], args[1:])
		if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "help") && !strings.Contains(err.Error(), "--email") {
			t.Errorf("%v: %v (exit %d)", args, err, exitCode(err))
		}
	}

	// config shows every setting, where it came from, and no secret.
	t.Setenv("FINLEDGER_DATABASE_URL", "postgres://ledger:hunter2secret@db.internal:5432/finledger?sslmode=require")
	t.Setenv("FINLEDGER_SECRET_KEY", strings.Repeat("ab", 32))
	t.Setenv("FINLEDGER_DB_MAX_CONNS", "12")
	out = &syncBuffer{}
	if err := run(ctx, config{}, out, "config", nil); err != nil {
		t.Fatal(err)
	}
	shown := out.String()
	if strings.Contains(shown, "hunter2secret") || strings.Contains(shown, strings.Repeat("ab", 32)) {
		t.Fatalf("config shows a secret:\n%s", shown)
	}
	for _, want := range []string{"postgres://ledger:xxxxx@db.internal:5432/finledger?sslmode=require", "FINLEDGER_DB_MAX_CONNS            12 ",
		"FINLEDGER_HTTP_ADDR               127.0.0.1:8080", "(set, not shown)"} {
		if !strings.Contains(shown, want) {
			t.Errorf("config lacks %q:\n%s", want, shown)
		}
	}
	for _, s := range settings {
		if !strings.Contains(shown, s.name+" ") {
			t.Errorf("config lacks %s", s.name)
		}
	}
	t.Setenv("FINLEDGER_DB_MAX_CONNS", "many")
	if err := run(ctx, config{}, io.Discard, "config", nil); exitCode(err) != exitUsage || !strings.Contains(err.Error(), "FINLEDGER_DB_MAX_CONNS") {
		t.Fatalf("config with a bad setting: %v", err)
	}
}

// Run as root, dev keeps its cluster where the server's unprivileged user can reach it.
func TestClusterDirIsReachable(t *testing.T) {
	private, err := os.MkdirTemp("", "finledger-private-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(private)
	dir := clusterDir(private + "/data")
	if os.Geteuid() == 0 && strings.HasPrefix(dir, private) {
		t.Fatalf("cluster placed in %s, behind the root-only %s", dir, private)
	}
	if os.Geteuid() != 0 && dir != private+"/data/postgres" {
		t.Fatalf("cluster placed in %s", dir)
	}
	if err := pgcluster.Reachable(dir); err != nil {
		t.Fatal(err)
	}
}

func TestConfigOfEvents(t *testing.T) {
	t.Setenv("FINLEDGER_WEBHOOK_RETRY_SCHEDULE", "5s, 1m,2h")
	t.Setenv("FINLEDGER_WEBHOOK_ALLOW_PRIVATE", "true")
	c, err := loadConfig()
	if err != nil || fmt.Sprint(c.WebhookSchedule) != "[5s 1m0s 2h0m0s]" || !c.WebhookAllowPriv {
		t.Fatalf("config %+v, %v", c, err)
	}
	for name, bad := range map[string]string{"FINLEDGER_WEBHOOK_RETRY_SCHEDULE": "5s,soon", "FINLEDGER_WEBHOOK_ALLOW_PRIVATE": "yes",
		"FINLEDGER_SECRET_KEY": "abc", "FINLEDGER_ENV": "prod", "FINLEDGER_DB_MAX_CONNS": "0", "FINLEDGER_STATE_CACHE_MB": "lots",
		"FINLEDGER_HTTP_ADDR": "8080", "FINLEDGER_ADMIN_ADDR": "localhost", "FINLEDGER_DATABASE_URL": "postgres://u:pw@[::1",
		"FINLEDGER_SESSION_JWKS_URL": "idp.example.com/keys", "FINLEDGER_NATS_URL": "nats://", "FINLEDGER_DEPLOYMENT": "a b", "FINLEDGER_NATS_REPLICAS": "6",
		"FINLEDGER_CHANNEL_SECRET": "short", "FINLEDGER_VAPID_SUBJECT": "admin@example.com",
		"FINLEDGER_OIDC_ISSUER": "accounts.example.com", "FINLEDGER_PUBLIC_ORIGIN": "https://money.example.com/app",
		"FINLEDGER_TRUSTED_PROXIES": "10.0.0.0/8,lb.internal", "FINLEDGER_AUTH_FAILURE_BURST": "0"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, bad)
			_, err := loadConfig()
			if err == nil || !strings.HasPrefix(err.Error(), name+": ") || strings.Count(err.Error(), "\n") != 0 {
				t.Fatalf("%s=%s: %v", name, bad, err)
			}
			if secret := name == "FINLEDGER_SECRET_KEY" || name == "FINLEDGER_DATABASE_URL" || name == "FINLEDGER_CHANNEL_SECRET"; secret == strings.Contains(err.Error(), bad) {
				t.Fatalf("%s: the value shown (or a secret shown): %v", name, err)
			}
		})
	}
	// Every bad setting is named at once.
	t.Setenv("FINLEDGER_ENV", "staging")
	t.Setenv("FINLEDGER_DB_MAX_CONNS", "-1")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "FINLEDGER_ENV") || !strings.Contains(err.Error(), "FINLEDGER_DB_MAX_CONNS") {
		t.Fatalf("two bad settings: %v", err)
	}
	for _, v := range []string{"0s", "-1s", "200h", strings.Repeat("1s,", 30) + "1s"} {
		if _, err := parseSchedule(v); err == nil {
			t.Errorf("schedule %q accepted", v)
		}
	}

	// Production needs a key for secrets; anywhere, a key must be 64 hex digits.
	prod := config{Env: "production", DatabaseURL: "postgres://x", SessionHS256Secret: strings.Repeat("s", 32), VAPIDSubject: "mailto:ops@example.com"}
	if err := prod.checkServe(); err == nil || !strings.Contains(err.Error(), "FINLEDGER_SECRET_KEY") {
		t.Fatalf("production without a key: %v", err)
	}
	prod.SecretKey = strings.Repeat("ab", 32)
	if err := prod.checkServe(); err != nil {
		t.Fatal(err)
	}
	// Replicas need a NATS cluster; the in-process server is one server.
	prod.NATSReplicas = 3
	if err := prod.checkServe(); err == nil || !strings.Contains(err.Error(), "FINLEDGER_NATS_REPLICAS") {
		t.Fatalf("replicas without FINLEDGER_NATS_URL: %v", err)
	}
	prod.NATSURL = "nats://a:4222,nats://b:4222,nats://c:4222"
	if err := prod.checkServe(); err != nil {
		t.Fatal(err)
	}
	// The OpenID sign-in needs its client and the origin the provider returns to.
	prod.OIDCIssuer = "https://accounts.example.com"
	if err := prod.checkServe(); err == nil || !strings.Contains(err.Error(), "FINLEDGER_OIDC_CLIENT_ID and FINLEDGER_PUBLIC_ORIGIN") {
		t.Fatalf("OpenID sign-in without its client: %v", err)
	}
	prod.OIDCClientID, prod.PublicOrigin = "finledger", "https://money.example.com"
	if err := prod.checkServe(); err != nil {
		t.Fatal(err)
	}
	if prod.webhookPolicy().AllowPrivate || !(config{Env: "development"}).webhookPolicy().AllowPrivate ||
		!(config{Env: "production", WebhookAllowPriv: true}).webhookPolicy().AllowPrivate {
		t.Fatal("webhook policy does not follow FINLEDGER_ENV and FINLEDGER_WEBHOOK_ALLOW_PRIVATE")
	}
}

// Failed authentications are limited by default; the proxies whose X-Forwarded-For is
// believed are none unless named.
func TestConfigOfAuthenticationFailures(t *testing.T) {
	c, err := loadConfig()
	if err != nil || c.AuthFailuresPerMinute != 10 || c.AuthFailureBurst != 20 || len(c.TrustedProxies) != 0 {
		t.Fatalf("defaults %d a minute, %d at once, proxies %v (%v)", c.AuthFailuresPerMinute, c.AuthFailureBurst, c.TrustedProxies, err)
	}
	t.Setenv("FINLEDGER_TRUSTED_PROXIES", " 10.0.0.0/8, 192.0.2.7,2001:db8::/32,::ffff:198.51.100.1")
	if c, err = loadConfig(); err != nil || fmt.Sprint(c.TrustedProxies) != "[10.0.0.0/8 192.0.2.7/32 2001:db8::/32 198.51.100.1/32]" {
		t.Fatalf("proxies %v (%v)", c.TrustedProxies, err)
	}
}

// The web app's cookies are Secure in production and behind an https public origin,
// and only a development server on plain HTTP sets them without it.
func TestBrowserCookiesAreSecureUnlessPlainDevelopment(t *testing.T) {
	pool := testdb.Pool(t)
	for _, c := range []struct {
		cfg    config
		secure bool
	}{
		{config{Env: "development", DevSignIn: true}, false},
		{config{Env: "development", DevSignIn: true, PublicOrigin: "https://money.example.com"}, true},
		{config{Env: "production", DevSignIn: true}, true},
	} {
		app, err := c.cfg.browserApp(pool, nil)
		if err != nil {
			t.Fatal(err)
		}
		routes := chi.NewRouter()
		app.Routes(routes)
		answer := httptest.NewRecorder()
		routes.ServeHTTP(answer, httptest.NewRequest(http.MethodPost, "/auth/dev", nil))
		cookies := answer.Result().Cookies()
		if answer.Code != http.StatusSeeOther || len(cookies) != 2 {
			t.Fatalf("%s %q: sign-in answered %d with %d cookies", c.cfg.Env, c.cfg.PublicOrigin, answer.Code, len(cookies))
		}
		for _, cookie := range cookies {
			if cookie.Secure != c.secure {
				t.Errorf("%s %q: cookie %s Secure=%t, want %t", c.cfg.Env, c.cfg.PublicOrigin, cookie.Name, cookie.Secure, c.secure)
			}
		}
	}
}

// An instance keeps its heap small; a command that runs once may hold a stream's fold.
func TestMemoryLimits(t *testing.T) {
	for name, want := range map[string]int64{
		"serve": instanceMemoryLimit, "dev": instanceMemoryLimit,
		"verify": commandMemoryLimit, "replay": commandMemoryLimit, "export": commandMemoryLimit, "help": commandMemoryLimit,
	} {
		if got := memoryLimit(name); got != want {
			t.Errorf("%s: memory limit %d, want %d", name, got, want)
		}
	}
	if instanceMemoryLimit >= commandMemoryLimit {
		t.Errorf("an instance's limit %d is not below a one-off command's %d", instanceMemoryLimit, commandMemoryLimit)
	}
}

// No payment provider by default; Stripe needs its key, a key or an API address needs
// Stripe, and the key is never shown.
func TestConfigOfBilling(t *testing.T) {
	c, err := loadConfig()
	if err != nil || c.Billing != "none" {
		t.Fatalf("default provider %q (%v)", c.Billing, err)
	}
	if p, err := c.billing(); err != nil || p != (billing.None{}) {
		t.Fatalf("default provider %T (%v)", p, err)
	}
	var out strings.Builder
	printConfig(&out)
	if !regexp.MustCompile(`(?m)^FINLEDGER_BILLING +none +default .*none \(nothing to cancel\)`).MatchString(out.String()) {
		t.Fatalf("config output:\n%s", out.String())
	}

	const key = "sk_live_51Hsecretsecretsecret"
	for _, bad := range []struct{ billing, key, url, want string }{
		{"stripe", "", "", "FINLEDGER_STRIPE_SECRET_KEY: its value must be set when FINLEDGER_BILLING is stripe"},
		{"none", key, "", "FINLEDGER_STRIPE_SECRET_KEY: its value is set but FINLEDGER_BILLING is not stripe"},
		{"stripe", "pk_live_51Hpublishable", "", "FINLEDGER_STRIPE_SECRET_KEY: its value must be a Stripe secret (sk_) or restricted (rk_) key"},
		{"none", "", "http://127.0.0.1:12111", `FINLEDGER_STRIPE_API_URL: "http://127.0.0.1:12111" is set but FINLEDGER_BILLING is not stripe`},
		{"stripe", key, "localhost:12111", `FINLEDGER_STRIPE_API_URL: "localhost:12111" must be an http(s) URL`},
		{"paypal", "", "", `FINLEDGER_BILLING: "paypal" must be none or stripe`},
	} {
		t.Setenv("FINLEDGER_BILLING", bad.billing)
		t.Setenv("FINLEDGER_STRIPE_SECRET_KEY", bad.key)
		t.Setenv("FINLEDGER_STRIPE_API_URL", bad.url)
		if _, err := loadConfig(); err == nil || !strings.HasPrefix(err.Error(), bad.want) || (bad.key != "" && strings.Contains(err.Error(), bad.key)) {
			t.Errorf("%+v: %v", bad, err)
		}
	}

	t.Setenv("FINLEDGER_BILLING", "stripe")
	t.Setenv("FINLEDGER_STRIPE_SECRET_KEY", key)
	t.Setenv("FINLEDGER_STRIPE_API_URL", "http://127.0.0.1:12111")
	if c, err = loadConfig(); err != nil || c.StripeSecretKey != key || c.StripeAPIURL != "http://127.0.0.1:12111" {
		t.Fatalf("stripe settings %q %q (%v)", c.Billing, c.StripeAPIURL, err)
	}
	if p, err := c.billing(); err != nil {
		t.Fatal(err)
	} else if _, ok := p.(*billing.Stripe); !ok {
		t.Fatalf("provider %T", p)
	}
	out.Reset()
	printConfig(&out)
	if strings.Contains(out.String(), "51Hsecret") || !regexp.MustCompile(`(?m)^FINLEDGER_STRIPE_SECRET_KEY +\(set, not shown\) +set `).MatchString(out.String()) {
		t.Fatalf("config output:\n%s", out.String())
	}
}

// Receipts' files are kept in the database unless FINLEDGER_FILES_S3_ENDPOINT names a
// bucket's service; the bucket's settings come all together or not at all, and the
// secret key is never shown.
func TestConfigOfFiles(t *testing.T) {
	c, err := loadConfig()
	if err != nil || c.FilesS3Endpoint != "" {
		t.Fatalf("default endpoint %q (%v)", c.FilesS3Endpoint, err)
	}
	if files, err := c.files(nil); err != nil {
		t.Fatal(err)
	} else if _, ok := files.(*attachments.Postgres); !ok {
		t.Fatalf("default storage %T", files)
	}

	const secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
	full := map[string]string{"FINLEDGER_FILES_S3_ENDPOINT": "https://s3.eu-west-1.amazonaws.com", "FINLEDGER_FILES_S3_BUCKET": "finledger-receipts",
		"FINLEDGER_FILES_S3_ACCESS_KEY": "AKIAEXAMPLE", "FINLEDGER_FILES_S3_SECRET_KEY": secret, "FINLEDGER_FILES_S3_REGION": "eu-west-1"}
	for _, bad := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"FINLEDGER_FILES_S3_ENDPOINT": ""}, "FINLEDGER_FILES_S3_BUCKET: " + `"finledger-receipts" is set but FINLEDGER_FILES_S3_ENDPOINT is not`},
		{map[string]string{"FINLEDGER_FILES_S3_BUCKET": ""}, `FINLEDGER_FILES_S3_BUCKET: "" must be set when FINLEDGER_FILES_S3_ENDPOINT is`},
		{map[string]string{"FINLEDGER_FILES_S3_SECRET_KEY": ""}, "FINLEDGER_FILES_S3_SECRET_KEY: its value must be set when FINLEDGER_FILES_S3_ENDPOINT is"},
		{map[string]string{"FINLEDGER_FILES_S3_ENDPOINT": "s3.amazonaws.com"}, `FINLEDGER_FILES_S3_ENDPOINT: "s3.amazonaws.com" must be an http(s) URL without a path`},
		{map[string]string{"FINLEDGER_FILES_S3_ENDPOINT": "https://s3.amazonaws.com/receipts"}, `FINLEDGER_FILES_S3_ENDPOINT: "https://s3.amazonaws.com/receipts" must be an http(s) URL without a path`},
		{map[string]string{"FINLEDGER_FILES_S3_BUCKET": "Receipts_2026"}, `FINLEDGER_FILES_S3_BUCKET: "Receipts_2026" must be a bucket's name`},
	} {
		for name, v := range full {
			t.Setenv(name, v)
		}
		for name, v := range bad.set {
			t.Setenv(name, v)
		}
		if _, err := loadConfig(); err == nil || !strings.HasPrefix(err.Error(), bad.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%v: %v", bad.set, err)
		}
	}

	for name, v := range full {
		t.Setenv(name, v)
	}
	if c, err = loadConfig(); err != nil || c.FilesS3Bucket != "finledger-receipts" || c.FilesS3SecretKey != secret || c.FilesS3Region != "eu-west-1" {
		t.Fatalf("bucket settings %+v (%v)", c, err)
	}
	if files, err := c.files(nil); err != nil {
		t.Fatal(err)
	} else if _, ok := files.(*attachments.S3); !ok {
		t.Fatalf("storage %T", files)
	}
	var out strings.Builder
	printConfig(&out)
	if strings.Contains(out.String(), secret) || !regexp.MustCompile(`(?m)^FINLEDGER_FILES_S3_SECRET_KEY +\(set, not shown\) +set `).MatchString(out.String()) {
		t.Fatalf("config output:\n%s", out.String())
	}
}
