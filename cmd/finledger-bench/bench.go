// Command finledger-bench measures the service on this machine: transaction creates
// per second against pgbench on the same PostgreSQL in alternating rounds, create
// latency and a new instance's first command by stream depth, and the delay from commit
// to webhook receipt. It serves the API in-process, as an instance runs it, on a private
// PostgreSQL cluster or on the server of FINLEDGER_DATABASE_URL. Figures go to
// BENCHMARKS.md with the command that produced them.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/latency"
	"github.com/finledger/finledger/internal/pgcluster"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/internal/testkit/browser"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
	"github.com/finledger/finledger/webhooks"
	"github.com/finledger/finledger/webhooks/safehttp"
)

type benchOptions struct {
	clients    int
	workspaces int
	duration   time.Duration
	pgbench    bool
	rounds     int
	depths     []int
	coldDepths []int
	samples    int
	hookRate   int
	hookSpaces int
	keyed      bool // every create carries an Idempotency-Key of its own
	reads      bool // replay, verify and time the API's reads at each cold depth
	verify     bool // with reads, verify the replayed read models
	beside     int  // with reads, workspaces created beside the big one first
}

// bench measures transaction creation over HTTP against an in-process server on
// FINLEDGER_DATABASE_URL (or a private cluster), then pgbench's TPC-B-like load with the
// same client count on the same PostgreSQL, and create latency in one workspace at
// several stream depths.
// gcPercent is the service's garbage-collection setting (see cmd/finledger), so that the
// in-process server runs as deployed. GOGC overrides it.
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "finledger-bench:", err)
		os.Exit(1)
	}
}

func bench(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("finledger-bench", flag.ContinueOnError)
	var o benchOptions
	var dbMaxConns, cacheSize int
	fs.IntVar(&dbMaxConns, "db-max-conns", 32, "connection pool size of the in-process server (FINLEDGER_DB_MAX_CONNS)")
	fs.IntVar(&cacheSize, "state-cache-size", 10000, "workspace states the in-process server keeps (FINLEDGER_STATE_CACHE_SIZE)")
	var depths, coldDepths string
	fs.IntVar(&o.clients, "clients", 32, "concurrent HTTP clients (and pgbench clients)")
	fs.IntVar(&o.workspaces, "workspaces", 64, "workspaces the clients spread over")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "length of each throughput run")
	fs.BoolVar(&o.pgbench, "pgbench", true, "also run pgbench on the same PostgreSQL")
	fs.IntVar(&o.rounds, "rounds", 3, "alternating ledger and pgbench runs")
	fs.BoolVar(&o.keyed, "keyed", false, "every create of the throughput runs carries an Idempotency-Key of its own")
	fs.StringVar(&depths, "depths", "10000,200000", "stream depths (prior events) for the latency test; empty skips it")
	fs.IntVar(&o.samples, "samples", 2000, "sequential creates measured at each depth")
	fs.BoolVar(&o.reads, "reads", false, "at each -cold-depths depth, also replay and verify the log and time the API's reads")
	fs.BoolVar(&o.verify, "verify", true, "with -reads, verify the read models after the replay")
	fs.IntVar(&o.beside, "beside", 10000, "with -reads, small workspaces created beside the big one before the replay")
	fs.StringVar(&coldDepths, "cold-depths", "", "stream depths (events, written in SQL) for timing a new instance's first command with and without snapshots; empty skips it")
	fs.IntVar(&o.hookRate, "webhook-rate", 100, "transactions per second for the webhook delay test; 0 skips it")
	fs.IntVar(&o.hookSpaces, "webhook-workspaces", 8, "workspaces, each with a webhook, for the webhook delay test")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the ledger run (with -import: of the server during the last round's commit, and during the first preview to this file with .preview added) to this file")
	table := fs.Bool("table", false, "run the table of loads (C=1 and C=16 spread, C=16 keyed, C=16 and C=64 on one workspace) against the -server binary, with pgbench, and print it; the other phases are skipped")
	serverBin := fs.String("server", "", "with -table, -app, -import or -mcp: the finledger `binary`, run as its own process (finledger serve, or finledger dev for -app)")
	var app appOptions
	fs.IntVar(&app.transactions, "app", 0, "measure the web app in Chromium on a workspace of this many transactions, served by the -server binary run as finledger dev; the other phases are skipped")
	fs.IntVar(&app.rounds, "app-rounds", 10, "with -app: browsers, each with a new profile and a cold cache")
	fs.IntVar(&app.clicks, "app-clicks", 5, "with -app: Next clicks, and filter applications, timed in each round")
	var imp importOptions
	fs.IntVar(&imp.rows, "import", 0, "measure a statement import of a CSV file of this many rows (preview and commit) against the -server binary run as finledger serve, with pgbench; the other phases are skipped")
	fs.IntVar(&imp.depth, "import-depth", 1_000_000, "with -import: the transactions the wallet holds before the import")
	fs.BoolVar(&imp.seeded, "import-seeded", false, "with -import and FINLEDGER_DATABASE_URL: take the seeded database an earlier run left on that server, if its wallet holds -import-depth transactions, instead of seeding it again")
	fs.IntVar(&imp.camtMB, "import-camt-mb", 50, "with -import: after the rounds, preview a CAMT.053 file of this many MB on the same server; 0 skips it")
	fs.BoolVar(&imp.authorizations, "import-authorizations", false, "with -import: each card purchase's memo in the CSV carries its authorization number, so that the search's trigrams vary from row to row")
	fs.IntVar(&imp.attachmentMB, "import-attachment-mb", 10, "with -import: after the rounds, attach a receipt of this many MB to a transaction and download it, on the same server; 0 skips it")
	fs.BoolVar(&imp.attachmentS3, "import-attachment-s3", false, "with -import: the servers keep the receipt in a bucket of versitygw (an S3-compatible server built from the Go module proxy, started for the run), not in the database")
	fs.StringVar(&imp.heap, "import-heapprofile", "", "with -import: write the server's heap profile, taken just before the CAMT preview, to this file, and the one taken 4 s into the first commit to this file with .commit added")
	mcpCalls := fs.Int("mcp", 0, "measure a tool call's overhead: this many expenses through POST /api/transactions and as many through the MCP tool create_transaction, alternating, one at a time, against the -server binary run as finledger serve, with pgbench at 1 client; the other phases are skipped")
	statements := fs.Bool("statements", false, "print PostgreSQL's time per statement during the ledger rounds (with -import: during each preview and each commit; pg_stat_statements, a private cluster only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if o.depths, err = parseDepths(depths); err != nil {
		return err
	}
	if o.coldDepths, err = parseDepths(coldDepths); err != nil {
		return err
	}

	adminURL := os.Getenv("FINLEDGER_DATABASE_URL")
	if adminURL == "" {
		dir, err := os.MkdirTemp("", "finledger-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(out, "starting a private PostgreSQL cluster for the benchmark ...")
		settings := map[string]string{"max_connections": "300"}
		if *statements {
			settings["shared_preload_libraries"] = "pg_stat_statements"
		}
		cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Settings: settings})
		if err != nil {
			return err
		}
		defer cluster.Stop()
		adminURL = cluster.URL("postgres")
	}
	benchURL, err := freshDatabase(ctx, adminURL, "finledger_bench")
	if err != nil {
		return err
	}
	if app.transactions > 0 {
		if *serverBin == "" {
			return errors.New("-app needs -server, the finledger binary to run (make bench builds it)")
		}
		if app.chromium, err = browser.Chromium(); err != nil {
			return err
		}
		app.server = *serverBin
		return benchApp(ctx, benchURL, app, out)
	}
	if imp.rows > 0 {
		if *serverBin == "" {
			return errors.New("-import needs -server, the finledger binary to run (make bench-import builds it)")
		}
		imp.server, imp.rounds, imp.duration, imp.profile, imp.statements = *serverBin, o.rounds, o.duration, *cpuProfile, *statements
		return benchImport(ctx, adminURL, imp, out)
	}
	if *mcpCalls > 0 {
		if *serverBin == "" {
			return errors.New("-mcp needs -server, the finledger binary to run (make build builds it)")
		}
		return benchMCP(ctx, adminURL, benchURL, *serverBin, *mcpCalls, o, out)
	}
	if *table {
		if *serverBin == "" {
			return errors.New("-table needs -server, the finledger binary to run (make bench builds it)")
		}
		return benchTable(ctx, adminURL, benchURL, *serverBin, o, out)
	}
	pool, err := database.Open(ctx, benchURL, int32(dbMaxConns))
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := database.Migrate(ctx, pool); err != nil {
		return err
	}
	secret := randomHex(32)
	verifier, err := session.NewVerifier(session.Config{HS256Secret: secret})
	if err != nil {
		return err
	}
	ledger := ledger.NewLedger(pool, projections.Project, time.Now, cacheSize)
	// The relay and the dispatcher run throughout, as they do in every instance.
	events, stopEvents, err := benchBus(ctx, pool)
	if err != nil {
		return err
	}
	defer stopEvents()
	box, err := sealbox.New([]byte(randomHex(16)))
	if err != nil {
		return err
	}
	policy := safehttp.Policy{AllowPrivate: true} // the receiver is on this machine
	hooks, err := webhooks.New(webhooks.Config{Pool: pool, Bus: events, Box: box, Client: policy.Client(10 * time.Second)})
	if err != nil {
		return err
	}
	ledger.OnCommit(hooks.Committed)
	hooksCtx, stopHooks := context.WithCancel(ctx)
	defer stopHooks()
	go hooks.Run(hooksCtx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: httpapi.NewServer(pool, ledger, verifier, time.Now,
		// The limiter runs on every request, with a limit no load here reaches.
		httpapi.Options{RateLimitPerMinute: 1 << 30, RateLimitBurst: 1 << 30, Billing: billing.None{},
			Box: box, Events: events, Webhooks: httpapi.WebhookOptions{Policy: policy, Wake: hooks.Wake}}).Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.clients * 2}, Timeout: 30 * time.Second}
	// The relay and the dispatcher catch up on what a phase wrote before the next phase
	// is timed.
	b := &benchRun{out: out, base: base, secret: secret, client: client, settle: untilNone(hooks.Backlog)}

	spaces, err := b.workspaces(o.workspaces)
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	if o.pgbench {
		if err := initPgbench(ctx, adminURL, o); err != nil {
			return err
		}
	}
	var statementTimes *statementTimes
	if *statements {
		if statementTimes, err = newStatementTimes(ctx, pool); err != nil {
			return err
		}
	}
	// Rounds alternate the two loads, so that drift in the machine's speed touches both.
	var ratios []float64
	for round := 1; round <= o.rounds; round++ {
		fmt.Fprintf(out, "\n== round %d: ledger POST /api/transactions, %d clients over %d workspaces, %s\n", round, o.clients, o.workspaces, o.duration)
		if err := statementTimes.start(ctx); err != nil {
			return err
		}
		figures, err := b.throughput(ctx, spaces, o)
		if err != nil {
			return err
		}
		ledgerTPS := figures.tps
		if err := statementTimes.print(ctx, out); err != nil {
			return err
		}
		// The relay and the dispatcher finish with the round's events before pgbench
		// starts, so that they do not slow it down.
		if err := b.settle(ctx); err != nil {
			return err
		}
		if !o.pgbench {
			continue
		}
		pgTPS, err := runPgbench(ctx, adminURL, o)
		if err != nil {
			return err
		}
		ratios = append(ratios, ledgerTPS/pgTPS)
		fmt.Fprintf(out, "== round %d: pgbench TPC-B-like, %d clients, %s, same PostgreSQL: %.0f tps; ratio ledger/pgbench %.2f\n",
			round, o.clients, o.duration, pgTPS, ledgerTPS/pgTPS)
	}
	pprof.StopCPUProfile()
	if len(ratios) > 0 {
		fmt.Fprintf(out, "\nmedian ratio ledger creates/s : pgbench tps = %.2f (rounds: %v)\n", median(ratios), roundAll(ratios))
	}
	if o.hookRate > 0 {
		fmt.Fprintf(out, "\n== webhook delay at a steady %d creates/s for %s\n", o.hookRate, o.duration)
		if err := b.webhookLatency(ctx, o.hookRate, o.hookSpaces, o.duration); err != nil {
			return err
		}
	}
	if len(o.depths) > 0 {
		fmt.Fprintf(out, "\n== create latency in one workspace by stream depth, %d sequential creates each\n", o.samples)
		if err := b.depthLatency(ctx, pool, ledger, o); err != nil {
			return err
		}
	}
	if len(o.coldDepths) > 0 {
		fmt.Fprintf(out, "\n== a new instance's first command (one create) by stream depth, streams written in SQL\n")
		if err := coldFirstCommand(ctx, adminURL, o, out); err != nil {
			return err
		}
	}
	return nil
}

// untilNone returns a settle function that waits until count reports nothing left.
func untilNone(count func(context.Context) (int64, error)) func(context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := count(ctx)
			if err != nil || n == 0 {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// parseDepths reads a comma-separated list of stream depths.
func parseDepths(list string) ([]int, error) {
	var out []int
	for _, d := range strings.Split(list, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bench: bad depth %q", d)
		}
		out = append(out, n)
	}
	return out, nil
}

type benchRun struct {
	// settle waits until background work caused by earlier phases is done.
	settle func(context.Context) error
	out    io.Writer
	base   string
	secret string
	client *http.Client
}

func (b *benchRun) token(sub string) (string, error) {
	return session.MintHS256(b.secret, session.Claims{Subject: sub, Email: sub + "@bench.local"}, time.Now(), 24*time.Hour, "")
}

func (b *benchRun) post(tok, path string, body any, want int) (map[string]any, error) {
	return b.postKeyed(tok, path, "", body, want)
}

// postKeyed posts with an Idempotency-Key, unless key is empty.
func (b *benchRun) postKeyed(tok, path, key string, body any, want int) (map[string]any, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	raw, err := b.send(http.MethodPost, tok, path, key, bytes.NewReader(data), want)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

// send makes a request as the holder of tok, with an Idempotency-Key unless key is
// empty, and returns the body of an answer with status want.
func (b *benchRun) send(method, tok, path, key string, body io.Reader, want int) ([]byte, error) {
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return exchange(b.client, req, want)
}

// exchange sends req and returns its answer's body, or an error naming the request and
// quoting the start of an answer of another status than want.
func exchange(client *http.Client, req *http.Request, want int) ([]byte, error) {
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != want {
		if len(raw) > 2000 {
			raw = raw[:2000]
		}
		return nil, fmt.Errorf("%s %s: %d %s", req.Method, req.URL.RequestURI(), res.StatusCode, raw)
	}
	return raw, nil
}

// workspace provisions a user with a default wallet and a category.
func (b *benchRun) workspace(sub string) (tok, category string, err error) {
	if tok, err = b.token(sub); err != nil {
		return
	}
	if _, err = b.post(tok, "/api/wallets", map[string]any{"name": "Main", "isDefault": true, "balance": 1000000}, http.StatusOK); err != nil {
		return
	}
	res, err := b.post(tok, "/api/categories", map[string]any{"name": "Food"}, http.StatusOK)
	if err != nil {
		return
	}
	category, _ = res["category"].(map[string]any)["id"].(string)
	return tok, category, nil
}

type benchWorkspace struct{ tok, category string }

func (b *benchRun) workspaces(n int) ([]benchWorkspace, error) {
	spaces := make([]benchWorkspace, n)
	for i := range spaces {
		tok, cat, err := b.workspace(fmt.Sprintf("bench-%d", i))
		if err != nil {
			return nil, err
		}
		spaces[i] = benchWorkspace{tok, cat}
	}
	return spaces, nil
}

// loadFigures is what a throughput run measured.
type loadFigures struct {
	tps      float64
	p50, p99 time.Duration
}

func (b *benchRun) throughput(ctx context.Context, spaces []benchWorkspace, o benchOptions) (loadFigures, error) {
	deadline := time.Now().Add(o.duration)
	var mu sync.Mutex
	var all []time.Duration
	var failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < o.clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				w := spaces[(c+i*o.clients)%len(spaces)]
				key := ""
				if o.keyed {
					key = uuid.NewString()
				}
				t0 := time.Now()
				_, err := b.postKeyed(w.tok, "/api/transactions", key, map[string]any{
					"type": "expense", "amount": json.Number(fmt.Sprintf("%d.%02d", 1+i%500, i%100)),
					"categoryId": w.category, "concept": "bench"}, http.StatusCreated)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if n := failed.Load(); n > 0 {
		return loadFigures{}, fmt.Errorf("bench: %d requests failed, first: %v", n, firstErr.Load())
	}
	f := loadFigures{tps: float64(len(all)) / elapsed.Seconds()}
	f.p50, f.p99 = percentiles(all)
	fmt.Fprintf(b.out, "creates %d in %s: %.0f creates/s, p50 %s, p99 %s\n", len(all), elapsed.Round(time.Millisecond), f.tps, f.p50, f.p99)
	return f, nil
}

// depthLatency fills one workspace's stream to each depth through the ledger (in
// batches of a thousand transactions per append) and measures sequential creates
// over HTTP there.
func (b *benchRun) depthLatency(ctx context.Context, pool *pgxpool.Pool, ldg *ledger.Ledger, o benchOptions) error {
	tok, category, err := b.workspace("bench-depth")
	if err != nil {
		return err
	}
	workspaceID := domain.PersonalWorkspaceID(domain.UserIDFor("bench-depth"))
	catID := uuid.MustParse(category)
	for _, depth := range o.depths {
		version, err := eventstore.Version(ctx, pool, domain.StreamID(workspaceID), false)
		if err != nil {
			return err
		}
		fill := time.Now()
		for version < int64(depth) {
			n := min(1000, int64(depth)-version)
			_, err := ldg.Execute(ctx, ledger.Call{
				WorkspaceID: workspaceID,
				Metadata:    ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "bench"},
				Decide: func(w *domain.Workspace) ([]domain.Event, error) {
					var out []domain.Event
					for i := int64(0); i < n; i++ {
						evs, err := domain.CreateTransaction{TransactionID: uuid.Must(uuid.NewV7()), Type: domain.TxExpense,
							Amount: decimal.New(1, 0), Date: domain.DateAt(time.Now()), CategoryID: &catID}.Decide(w)
						if err != nil {
							return nil, err
						}
						out = append(out, evs...)
					}
					return out, nil
				},
			})
			if err != nil {
				return err
			}
			version += n
		}
		filled := time.Since(fill)
		// Measure the steady state at this depth, not the bulk load's aftermath: let
		// vacuum and a checkpoint do now what autovacuum would do shortly.
		if _, err := pool.Exec(ctx, `VACUUM ANALYZE events, transactions, wallets, streams`); err != nil {
			return fmt.Errorf("bench: vacuum: %w", err)
		}
		if err := b.settle(ctx); err != nil {
			return fmt.Errorf("bench: settle: %w", err)
		}
		if _, err := pool.Exec(ctx, `CHECKPOINT`); err != nil {
			return fmt.Errorf("bench: checkpoint: %w", err)
		}
		var lat []time.Duration
		for i := 0; i < o.samples; i++ {
			t0 := time.Now()
			if _, err := b.post(tok, "/api/transactions", map[string]any{"type": "expense", "amount": 1, "categoryId": category}, http.StatusCreated); err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
		}
		p50, p99 := percentiles(lat)
		// A new instance has no cached state: its first command loads the latest snapshot
		// and folds the events after it, or, with snapshots off, folds the whole stream.
		var cold [2]time.Duration
		for i, every := range []int64{ledger.DefaultSnapshotEvery, 0} {
			l := ledger.NewLedger(pool, projections.Project, time.Now, 1)
			l.SnapshotEvery(every)
			t0 := time.Now()
			if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: workspaceID, Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "bench"},
				Decide: func(*domain.Workspace) ([]domain.Event, error) { return nil, nil },
			}); err != nil {
				return err
			}
			cold[i] = time.Since(t0)
		}
		fmt.Fprintf(b.out, "depth %7d events (filled in %s): p50 %s, p99 %s; cold state load by a new instance %s from its latest snapshot, %s folding the whole stream\n",
			depth, filled.Round(time.Millisecond), p50, p99, cold[0].Round(time.Millisecond), cold[1].Round(time.Millisecond))
	}
	return nil
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	return latency.Percentile(d, 50).Round(10 * time.Microsecond), latency.Percentile(d, 99).Round(10 * time.Microsecond)
}

var pgbenchTPS = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbenchDatabase is the scratch database pgbench runs in, beside the ledger's.
const pgbenchDatabase = "pgbench_bench"

// initPgbench creates pgbench's tables on a scratch database of the same server,
// scaled so that clients do not all queue on a few branch rows.
func initPgbench(ctx context.Context, adminURL string, o benchOptions) error {
	pgURL, err := freshDatabase(ctx, adminURL, pgbenchDatabase)
	if err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, pgbenchBin(), "-i", "-q", "-s", strconv.Itoa(max(o.clients, 1)), pgURL).CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench -i: %w: %s", err, out)
	}
	return nil
}

// runPgbench runs pgbench's built-in TPC-B-like script with the ledger's client count.
func runPgbench(ctx context.Context, adminURL string, o benchOptions) (float64, error) {
	pgURL, err := withDatabase(adminURL, pgbenchDatabase)
	if err != nil {
		return 0, err
	}
	out, err := exec.CommandContext(ctx, pgbenchBin(), "-c", strconv.Itoa(o.clients), "-j", "2", "-M", "prepared",
		"-T", strconv.Itoa(int(o.duration.Seconds())), pgURL).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %w: %s", err, out)
	}
	m := pgbenchTPS.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench: no tps in output: %s", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// pgbenchBin prefers the pgbench of the server's own version.
func pgbenchBin() string {
	if dir, err := pgcluster.BinDir(); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "pgbench")); err == nil {
			return filepath.Join(dir, "pgbench")
		}
	}
	return "pgbench"
}

func roundAll(xs []float64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return out
}

// freshDatabase drops and creates a database on the server of adminURL.
func freshDatabase(ctx context.Context, adminURL, name string) (string, error) {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	id := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+id+` WITH (FORCE)`); err != nil {
		return "", fmt.Errorf("drop %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+id); err != nil {
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	return withDatabase(adminURL, name)
}

// withDatabase returns the URL of another database on the same server.
func withDatabase(adminURL, name string) (string, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", errors.New("FINLEDGER_DATABASE_URL must be a postgres:// URL for bench")
	}
	u.Path = "/" + name
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
