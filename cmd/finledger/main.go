// Command finledger runs the Finledger service and its administration tasks.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/imports"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/fx"
	"github.com/finledger/finledger/internal/metrics"
	"github.com/finledger/finledger/internal/progress"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
	"github.com/finledger/finledger/scheduler"
	"github.com/finledger/finledger/webapp"
	"github.com/finledger/finledger/webhooks"
	"github.com/finledger/finledger/webhooks/push"
)

// defaultGCPercent trades memory for CPU: the service's live heap is small (workspace
// states and buffers), and collecting at 4x it instead of 2x left more of a 2-core
// machine to PostgreSQL in the benchmark (BENCHMARKS.md). GOGC overrides it.
const defaultGCPercent = 400

// Soft limits on the memory the Go runtime holds: near its limit, the collector runs as
// often as it must instead of letting the heap grow. GOMEMLIMIT overrides both.
const (
	// instanceMemoryLimit is an instance's (serve, dev), so that a heap of cached states
	// (FINLEDGER_STATE_CACHE_MB) and buffers that grew does not take 5x its size.
	instanceMemoryLimit = 112 << 20
	// commandMemoryLimit is the other commands', which run once and hold what their work
	// needs until they exit: verify holds the fold of a whole stream, up to 320 MB live at a
	// million events, and under an instance's limit it spent as long collecting as
	// checking. A larger history still runs, collecting more often, instead of growing to
	// 5x its fold.
	commandMemoryLimit = 768 << 20
)

// memoryLimit is the named command's soft limit on the Go runtime's memory.
func memoryLimit(name string) int64 {
	if c, ok := lookup(name); ok && c.instance {
		return instanceMemoryLimit
	}
	return commandMemoryLimit
}

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name, args := "help", []string(nil)
	if len(os.Args) > 1 {
		name, args = os.Args[1], os.Args[2:]
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(name))
	}
	cfg, err := loadConfig()
	slog.SetDefault(logger(cfg, os.Stderr))
	if err != nil && name != "help" && name != "config" {
		err = usageError{fmt.Errorf("a setting cannot be used (`finledger config` shows them all):\n%w", err)}
	} else {
		err = run(ctx, cfg, os.Stdout, name, args)
	}
	if code := exitCode(err); code != exitOK {
		fmt.Fprintln(os.Stderr, "finledger:", err)
		os.Exit(code)
	}
}

// logger writes JSON lines in production, for a log collector, and text otherwise.
func logger(cfg config, w io.Writer) *slog.Logger {
	if cfg.Env == "production" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serveAdmin serves the operators' listener: Go's profiles under /debug/pprof/ and the
// metrics, which `serve` shows nowhere else. It is off unless FINLEDGER_ADMIN_ADDR names
// an address, which should not be reachable from outside.
func serveAdmin(addr string, m *metrics.Metrics, errc chan<- error) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (FINLEDGER_ADMIN_ADDR): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("admin listener: %w", err)
		}
	}()
	slog.Info("serving profiles and metrics for operators", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return srv, nil
}

// run runs the named command with its arguments.
func run(ctx context.Context, cfg config, out io.Writer, name string, args []string) error {
	switch name {
	case "help", "-h", "--help":
		return help(out, args)
	}
	c, ok := lookup(name)
	if !ok {
		return usageError{fmt.Errorf("no command %q; `finledger help` lists them", name)}
	}
	runner, err := c.parse(args, out)
	if err != nil {
		return err
	}
	return runner(ctx, cfg, out)
}

// subcommands are the binary's commands, in the order help lists them.
func subcommands() []command {
	plain := func(r runner) func(*flag.FlagSet) runner { return func(*flag.FlagSet) runner { return r } }
	return []command{
		{name: "serve", about: "serve the API, with the webhook relay, dispatcher and scheduler",
			details: "It applies the database's migrations first. FINLEDGER_DATABASE_URL and a way to verify session\n" +
				"tokens (FINLEDGER_SESSION_JWKS_URL or FINLEDGER_SESSION_HS256_SECRET) are required; SIGINT or\nSIGTERM stops it gracefully.",
			setup: plain(func(ctx context.Context, cfg config, out io.Writer) error {
				if err := cfg.checkServe(); err != nil {
					return usageError{err}
				}
				return serve(ctx, cfg, func(base string) { slog.Info("serving", "url", base) })
			}),
			instance: true},
		{name: "dev", about: "run everything locally with no configuration",
			details: "It starts a private PostgreSQL in FINLEDGER_DATA_DIR (unless FINLEDGER_DATABASE_URL is set) and an\n" +
				"in-process NATS, serves the API and prints a development session token, kept in the data folder's\n" +
				"dev-token. Requests are logged at debug level.",
			setup:    plain(func(ctx context.Context, cfg config, out io.Writer) error { return dev(ctx, cfg, out) }),
			instance: true},
		{name: "migrate", about: "apply the database migrations not yet applied",
			setup: plain(func(ctx context.Context, cfg config, out io.Writer) error {
				return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
					start := time.Now()
					applied, err := database.MigrateTelling(ctx, pool, func(m database.Migration) {
						fmt.Fprintf(out, "applying %s\n", m.Name)
					})
					if err == nil {
						fmt.Fprintf(out, "applied %d migration(s) %v in %s\n", len(applied), applied, time.Since(start).Round(time.Millisecond))
					}
					return err
				})
			})},
		{name: "replay", about: "rebuild every read model from the event log",
			details: "Instances may keep serving reads of the old read models; writes wait until the rebuild commits,\n" +
				"all at once, at its end. It shows its progress.",
			setup: plain(func(ctx context.Context, cfg config, out io.Writer) error {
				return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
					start := time.Now()
					meter, err := eventMeter(ctx, pool, out, "replay")
					if err != nil {
						return err
					}
					n, err := projections.RebuildTelling(ctx, pool, func(events int) { meter.Add(events) })
					meter.Finish()
					if err == nil {
						fmt.Fprintf(out, "replayed %d events into the read models in %s\n", n, time.Since(start).Round(time.Millisecond))
					}
					return err
				})
			})},
		{name: "verify", about: "compare every read model with a replay of the log, every snapshot with its stream's fold, and recompute every stream's hash chain",
			details: "It changes nothing. The exit code is 3 when something differs.",
			setup: plain(func(ctx context.Context, cfg config, out io.Writer) error {
				return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
					files, err := cfg.files(pool)
					if err != nil {
						return err
					}
					return verify(ctx, pool, files, out)
				})
			})},
		{name: "heads", synopsis: "[--check FILE]", about: "print every workspace's chain head with the moment, or check the database holds heads printed before",
			details: "It recomputes every chain in one snapshot and prints one JSON object: the database's clock then, and each\n" +
				"workspace's last version and hash. Kept beside a backup, it shows a restore to that moment holds the same\n" +
				"history: with --check FILE it names each workspace whose recorded head the database does not hold, and\n" +
				"exits 3 if any.",
			setup: headsFlags},
		{name: "export", synopsis: "--workspace ID", about: "write a workspace's history as JSON lines, each event with its chain hash",
			details: "docs/history.md, \"Verifying an export\", says how anyone can check it.",
			setup:   exportFlags},
		{name: "asof", synopsis: "--workspace ID [--at T]", about: "print a workspace's wallets, budgets, goals and debts as they stood at a moment",
			details: "One JSON object, as GET /api/wallets?asOf=T and its neighbours answer, with the version of the history that stood then.",
			setup:   asofFlags},
		{name: "changes", synopsis: "--workspace ID [--cursor N] [--limit N]", about: "write a workspace's change feed after a cursor, to its end",
			details: "One JSON line per page, as GET /api/changes answers; the last line's cursor is where to resume.",
			setup:   changesFlags},
		{name: "diff", synopsis: "--workspace ID --from T [--to T]", about: "write the records whose state differs between two moments",
			details: "One JSON line per record with its states before and after, as GET /api/changes/diff answers.",
			setup:   diffFlags},
		{name: "import", synopsis: "--workspace ID --wallet ID [--account A] [--date-order DMY|MDY] [--yes] FILE", operand: "FILE",
			about: "read a bank statement (CSV, OFX, QFX, QIF, CAMT, MT940) into a preview of a wallet's import, and commit it with --yes",
			details: "It prints the preview's summary, one line per row to import, merge or skip, and the preview's id, which\n" +
				"GET /api/imports/{id} shows too. With --yes it commits the preview at once, as\n" +
				"POST /api/imports/{id}/commit does. The import is recorded as made by the system.",
			setup: importFlags},
		{name: "mcp", synopsis: "[--url ORIGIN]", about: "relay an MCP client on standard input and output to the service's MCP server",
			details: "For clients that start their servers as local programs (Claude Desktop): it posts each message to\n" +
				"ORIGIN/mcp with the API key FINLEDGER_API_KEY and writes the answers back, one a line. The key's\n" +
				"scopes decide the tools, as over HTTP.",
			setup: mcpFlags},
		{name: "token", synopsis: "--sub ID --email E [--name N] [--ttl 24h]", about: "mint a development session token",
			details: "It signs with FINLEDGER_SESSION_HS256_SECRET or the secret `finledger dev` keeps in the data folder.",
			setup:   tokenFlags},
		{name: "rates", synopsis: "[--file F | --url U] [--snapshot]", about: "import the ECB's reference exchange rates",
			setup: ratesFlags},
		{name: "config", about: "print the effective settings, secrets masked, and what is wrong with any",
			setup: plain(func(ctx context.Context, cfg config, out io.Writer) error {
				printConfig(out)
				if _, err := loadConfig(); err != nil {
					return usageError{err}
				}
				return nil
			})},
	}
}

func withPool(ctx context.Context, cfg config, f func(*pgxpool.Pool) error) error {
	if cfg.DatabaseURL == "" {
		return usageError{errors.New("FINLEDGER_DATABASE_URL is not set")}
	}
	pool, err := database.Open(ctx, cfg.DatabaseURL, 4)
	if err != nil {
		return err
	}
	defer pool.Close()
	return f(pool)
}

// eventMeter starts a meter of a replay of the whole log.
func eventMeter(ctx context.Context, pool *pgxpool.Pool, out io.Writer, label string) (*progress.Meter, error) {
	var events int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil {
		return nil, fmt.Errorf("count the events: %w", err)
	}
	return progress.New(out, label, "events", events), nil
}

func verify(ctx context.Context, pool *pgxpool.Pool, files attachments.Store, out io.Writer) error {
	meter, err := eventMeter(ctx, pool, out, "verify: replay")
	if err != nil {
		return err
	}
	// The chains are recomputed from the events the replay reads; their checks come one
	// stream after another, and are read once VerifyTelling has returned.
	var chains []string
	streams, broken, events := 0, 0, int64(0)
	diffs, err := projections.VerifyTelling(ctx, pool, func(events int) {
		if meter.Add(events) {
			meter.Finish()
			fmt.Fprintln(out, "verify: comparing the read models, and the snapshots with their streams")
		}
	}, func(stream string, check eventstore.ChainCheck) {
		streams, events = streams+1, events+check.Checked
		if check.BrokenAt != 0 {
			broken++
			chains = append(chains, fmt.Sprintf("chain of %s BREAKS at version %d (holds up to %d)", stream, check.BrokenAt, check.Head.Version))
		}
	})
	meter.Finish()
	if err != nil {
		return err
	}
	bad := 0
	for _, d := range diffs {
		status := "ok"
		if d.LiveOnly > 0 || d.ReplayOnly > 0 {
			status, bad = "DIFFERS", bad+1
		}
		fmt.Fprintf(out, "%-18s live %8d  replay %8d  live-only %6d  replay-only %6d  %s\n",
			d.Table, d.LiveRows, d.ReplayRows, d.LiveOnly, d.ReplayOnly, status)
		if d.Detail != "" {
			fmt.Fprintf(out, "%18s %s\n", "", d.Detail)
		}
	}
	for _, c := range chains {
		fmt.Fprintln(out, c)
	}
	fmt.Fprintf(out, "chains: %d streams, %d events, %d broken\n", streams, events, broken)
	checked, damaged, err := checkFiles(ctx, pool, files, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "files: %d checked, %d missing or changed\n", checked, damaged)
	if bad > 0 || broken > 0 || damaged > 0 {
		return fmt.Errorf("%d read model(s), %d chain(s), %d file(s): %w", bad, broken, damaged, errDiffers)
	}
	fmt.Fprintln(out, "every read model equals a replay of the event log, every workspace snapshot the fold of its stream, every stream's hash chain holds, "+
		"every attached file has the hash its event carries")
	return nil
}

// checkFiles reads back every file stored, and every file a live attachment shows
// (which must be stored), and checks each against the hash its event carries; it prints
// each one missing or changed. A file no attachment shows may be gone: the purge
// forgets it after attachments.Retention.
func checkFiles(ctx context.Context, pool *pgxpool.Pool, store attachments.Store, out io.Writer) (files, damaged int, err error) {
	rows, err := pool.Query(ctx, `SELECT workspace_id, sha256 FROM attachment_contents
		UNION
		SELECT a.workspace_id, a.sha256 FROM attachments a JOIN transactions t ON t.workspace_id = a.workspace_id AND t.id = a.transaction_id
		WHERE a.removed_at IS NULL AND t.deleted_at IS NULL
		ORDER BY workspace_id, sha256`)
	if err != nil {
		return 0, 0, fmt.Errorf("verify: list the attached files: %w", err)
	}
	type content struct {
		Workspace uuid.UUID
		SHA256    string
	}
	contents, err := pgx.CollectRows(rows, pgx.RowToStructByPos[content])
	if err != nil {
		return 0, 0, fmt.Errorf("verify: list the attached files: %w", err)
	}
	for _, c := range contents {
		switch err := store.Check(ctx, c.Workspace, c.SHA256); {
		case errors.Is(err, attachments.ErrNotFound):
			damaged++
			fmt.Fprintf(out, "file %s of workspace %s IS MISSING\n", c.SHA256, c.Workspace)
		case errors.Is(err, attachments.ErrCorrupt):
			damaged++
			fmt.Fprintf(out, "file %s of workspace %s CHANGED: %v\n", c.SHA256, c.Workspace, err)
		case err != nil:
			return 0, 0, err
		}
	}
	return len(contents), damaged, nil
}

// exportFlags declares the export command's flags: the workspace whose history it
// writes, as JSON lines, to standard output.
func exportFlags(fs *flag.FlagSet) runner {
	workspace := workspaceFlag(fs)
	return func(ctx context.Context, cfg config, out io.Writer) error {
		id, err := workspace()
		if err != nil {
			return err
		}
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
			head, err := eventstore.ExportChain(ctx, pool, domain.StreamID(id), out)
			if err == nil && head.Version == 0 {
				return fmt.Errorf("workspace %s has no history", id)
			}
			return err
		})
	}
}

// ratesFlags declares the rates command's flags: it loads the ECB's reference rates
// from a file or the feed; when the feed cannot be reached, --snapshot loads the
// history shipped with the binary instead.
func ratesFlags(fs *flag.FlagSet) runner {
	file := fs.String("file", "", "an eurofxref XML file")
	url := fs.String("url", "", "where to fetch the eurofxref XML (default: FINLEDGER_ECB_URL)")
	fallback := fs.Bool("snapshot", false, "when the feed cannot be reached, load the ECB's history shipped with this binary (to "+
		fx.SnapshotDate.Format(time.DateOnly)+")")
	return func(ctx context.Context, cfg config, out io.Writer) error {
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
			var rates []fx.Rate
			var err error
			if *file != "" {
				f, ferr := os.Open(*file)
				if ferr != nil {
					return ferr
				}
				defer f.Close()
				rates, err = fx.ParseECB(f)
			} else {
				rates, err = fx.ECB{URL: cmp.Or(*url, cfg.ECBURL)}.Latest(ctx)
				if err != nil && *fallback {
					fmt.Fprintf(out, "the ECB's feed cannot be reached (%v); loading the history shipped with this binary, to %s\n",
						err, fx.SnapshotDate.Format(time.DateOnly))
					added, err := fx.LoadSnapshot(ctx, pool, time.Now())
					if err == nil {
						fmt.Fprintf(out, "added %d reference rates\n", added)
					}
					return err
				}
				if err != nil {
					return fmt.Errorf("%w\n(no network? `finledger rates --snapshot` loads the history shipped with this binary, to %s)",
						err, fx.SnapshotDate.Format(time.DateOnly))
				}
			}
			if err != nil {
				return err
			}
			if err := fx.StoreReference(ctx, pool, rates, "ecb", time.Now()); err != nil {
				return err
			}
			fmt.Fprintf(out, "imported %d reference rates\n", len(rates))
			return nil
		})
	}
}

// devRates gives a development server rates from its first minute: the ECB's history
// shipped with the binary (loaded once), then the day's feed, fetched in the background
// with a short timeout so that start never waits on the network.
func devRates(ctx context.Context, pool *pgxpool.Pool, url string) error {
	added, err := fx.LoadSnapshot(ctx, pool, time.Now())
	if err != nil {
		return err
	}
	if added > 0 {
		slog.Info("loaded the ECB's reference history shipped with the binary", "rates", added, "lastDay", fx.SnapshotDate.Format(time.DateOnly))
	}
	go func() {
		fetch, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		rates, err := fx.ECB{URL: url, Client: &http.Client{Timeout: 5 * time.Second}}.Latest(fetch)
		if err == nil {
			err = fx.StoreReference(ctx, pool, rates, "ecb", time.Now())
		}
		if err != nil {
			slog.Info("the ECB's daily rates were not fetched; the shipped history stands", "err", err)
		}
	}()
	return nil
}

// purgeHourly forgets old idempotency keys, idle rate-limit buckets, spent channel
// token ids, finished webhook deliveries past their retention, ended browser sessions,
// statements' previews never committed, and receipts' files no attachment keeps. Every
// instance runs it; the deletes are idempotent.
func purgeHourly(ctx context.Context, pool *pgxpool.Pool, browser *webapp.Sessions, files fileStore) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		now := time.Now()
		if _, err := ledger.PurgeIdempotencyKeys(ctx, pool, now.Add(-ledger.IdempotencyRetention)); err != nil && ctx.Err() == nil {
			slog.Error("purge", "err", err)
		}
		if _, err := httpapi.PurgeRateLimits(ctx, pool, now.Add(-time.Hour)); err != nil && ctx.Err() == nil {
			slog.Error("purge", "err", err)
		}
		if _, err := httpapi.PurgeChannelTokens(ctx, pool, now); err != nil && ctx.Err() == nil {
			slog.Error("purge", "err", err)
		}
		if _, err := webhooks.PurgeDeliveries(ctx, pool, now.Add(-webhooks.DeliveryRetention)); err != nil && ctx.Err() == nil {
			slog.Error("purge", "err", err)
		}
		if _, err := browser.Purge(ctx); err != nil && ctx.Err() == nil {
			slog.Error("purge", "err", err)
		}
		if _, err := imports.PurgePreviews(ctx, pool, now.Add(-imports.PreviewRetention)); err != nil && ctx.Err() == nil {
			slog.Error("purge", "err", err)
		}
		if _, err := files.Purge(ctx, now); err != nil && ctx.Err() == nil {
			slog.Error("purge", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// secretBox returns the box that seals secrets at rest, under FINLEDGER_SECRET_KEY or,
// outside production, a key kept in the data folder.
func secretBox(cfg config) (*sealbox.Box, error) {
	hexKey := cfg.SecretKey
	if hexKey == "" {
		if cfg.Env == "production" {
			return nil, errors.New("FINLEDGER_SECRET_KEY is not set")
		}
		var err error
		if hexKey, err = keptSecret(cfg.DataDir, "secret-key"); err != nil {
			return nil, err
		}
	}
	key, err := sealbox.ParseKey(hexKey)
	if err != nil {
		return nil, err
	}
	return sealbox.New(key)
}

// vapidKeys returns the Web Push identity: FINLEDGER_VAPID_* or, outside production, a
// key pair kept in the data folder. In production without keys, notifications are off.
func vapidKeys(cfg config) (push.Keys, error) {
	if cfg.VAPIDPublicKey != "" {
		return push.Keys{PublicKey: cfg.VAPIDPublicKey, PrivateKey: cfg.VAPIDPrivateKey, Subject: cfg.VAPIDSubject}, nil
	}
	if cfg.Env == "production" {
		slog.Warn("FINLEDGER_VAPID_PUBLIC_KEY is not set: Web Push notifications are off")
		return push.Keys{}, nil
	}
	data, err := keptFile(cfg.DataDir, "vapid-keys.json", func() ([]byte, error) {
		keys, err := push.GenerateKeys(cfg.VAPIDSubject)
		if err != nil {
			return nil, err
		}
		return json.Marshal(keys)
	})
	var keys push.Keys
	if err == nil {
		if err = json.Unmarshal(data, &keys); err != nil {
			err = fmt.Errorf("read vapid-keys.json: %w", err)
		}
	}
	keys.Subject = cfg.VAPIDSubject
	return keys, err
}

// serve runs the API until ctx ends, migrating the database first.
func serve(ctx context.Context, cfg config, ready func(baseURL string)) error {
	pool, err := database.Open(ctx, cfg.DatabaseURL, int32(cfg.DBMaxConns))
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := database.Migrate(ctx, pool); err != nil {
		return err
	}
	if cfg.DevRates {
		if err := devRates(ctx, pool, cfg.ECBURL); err != nil {
			return err
		}
	}
	verifier, err := session.NewVerifier(session.Config{
		JWKSURL: cfg.SessionJWKSURL, HS256Secret: cfg.SessionHS256Secret,
		Issuer: cfg.SessionIssuer, Audience: cfg.SessionAudience,
	})
	if err != nil {
		return err
	}
	measured := metrics.New()
	measured.WatchPool(pool)
	measured.WatchArchiving(pool)
	archiveCtx, stopArchiveWatch := context.WithCancel(ctx)
	defer stopArchiveWatch()
	go watchArchiving(archiveCtx, pool, archiveCheckInterval, slog.Default())
	ledger := ledger.NewLedger(pool, projections.Project, time.Now, cfg.StateCacheSize)
	ledger.LimitStateBytes(int64(cfg.StateCacheMB) << 20)
	ledger.Instrument(measured)
	box, err := secretBox(cfg)
	if err != nil {
		return err
	}
	events, stopEvents, err := webhooks.ConnectBus(ctx, pool, cfg.NATSURL, cfg.DataDir, cfg.Deployment, cfg.NATSReplicas)
	if err != nil {
		return err
	}
	defer stopEvents()
	vapid, err := vapidKeys(cfg)
	if err != nil {
		return err
	}
	var pusher *push.Sender
	if vapid.PublicKey != "" {
		pusher = &push.Sender{Pool: pool, Keys: vapid, Client: cfg.webhookPolicy().Client(10 * time.Second)}
	}
	hooks, err := webhooks.New(webhooks.Config{Pool: pool, Bus: events, Box: box, Client: cfg.webhookPolicy().Client(10 * time.Second),
		Schedule: cfg.WebhookSchedule, Push: pusher, Metrics: measured})
	if err != nil {
		return err
	}
	measured.WatchLag(hooks.Lag)
	ledger.OnCommit(hooks.Committed)
	app, err := cfg.browserApp(pool, box)
	if err != nil {
		return err
	}
	provider, err := cfg.billing()
	if err != nil {
		return err
	}
	files, err := cfg.files(pool)
	if err != nil {
		return err
	}
	requestLogLevel := slog.LevelInfo
	if cfg.QuietRequests {
		requestLogLevel = slog.LevelDebug
	}
	api := httpapi.NewServer(pool, ledger, verifier, time.Now, httpapi.Options{
		Browser: app, RequestLogLevel: requestLogLevel,
		Box: box, Events: events, Webhooks: httpapi.WebhookOptions{Policy: cfg.webhookPolicy(), Wake: hooks.Wake},
		PushPublicKey:      vapid.PublicKey,
		Metrics:            measured,
		PublicMetrics:      cfg.PublicMetrics,
		RateLimitPerMinute: cfg.RateLimitPerMinute, RateLimitBurst: cfg.RateLimitBurst,
		AuthFailuresPerMinute: cfg.AuthFailuresPerMinute, AuthFailureBurst: cfg.AuthFailureBurst,
		TrustedProxies:    cfg.TrustedProxies,
		Billing:           provider,
		ECBURL:            cfg.ECBURL,
		Files:             files,
		Channel:           httpapi.ChannelOptions{Secret: cfg.ChannelSecret, Issuer: cfg.ChannelIssuer, Audiences: cfg.channelAudiences()},
		ProtectedResource: cfg.protectedResource(),
	})
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	srv := &http.Server{
		Handler:           api.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if cfg.AdminAddr != "" {
		admin, err := serveAdmin(cfg.AdminAddr, measured, errc)
		if err != nil {
			return err
		}
		defer admin.Close()
	}
	go purgeHourly(ctx, pool, app.Sessions(), files)
	background := make(chan struct{})
	go func() { defer close(background); hooks.Run(ctx) }()
	// The relay and the dispatcher stop before the bus they use closes (deferred above).
	defer func() { <-background }()
	go func() {
		s := &scheduler.Scheduler{Pool: pool, Ledger: ledger, Now: time.Now}
		_ = s.Run(ctx) // ends with ctx
	}()
	ready("http://" + ln.Addr().String())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return ctx.Err()
}
