package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testkit/s3server"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
	"github.com/finledger/finledger/webhooks"
)

// importOptions are the settings of the statement import's phase.
type importOptions struct {
	rows   int // of the CSV statement
	depth  int // transactions the wallet holds before the import
	camtMB int // size of the CAMT.053 file previewed after the rounds; 0 skips it
	// seeded takes the seeded database an earlier run left, when its wallet holds depth
	// transactions
	seeded bool
	// authorizations has each card purchase's memo carry its authorization number
	authorizations bool
	// attachmentMB is the size of the receipt attached and downloaded after the rounds; 0 skips it
	attachmentMB int
	// attachmentS3 keeps the receipt in a bucket of versitygw started for the run
	// (FINLEDGER_FILES_S3_*), not in the database
	attachmentS3 bool
	rounds       int // each on a fresh copy of the seeded database
	duration     time.Duration
	server       string // the finledger binary
	profile      string // where the server's CPU profile of the last commit goes, and of the first preview with ".preview" added; "" none
	heap         string // where the server's heap profile before the CAMT preview goes, and 4 s into the first commit with ".commit"; "" none
	statements   bool   // print pg_stat_statements of each commit
}

// The identity whose workspace the import phase seeds, and the databases it uses: the
// seeded one is copied (CREATE DATABASE ... TEMPLATE) for each round, so that every
// round imports into a wallet of exactly depth transactions.
var importIdentity = domain.Identity{Subject: "import-bench", Email: "import@bench.local"}

const (
	importSeedDatabase  = "finledger_bench_import_seed"
	importRoundDatabase = "finledger_bench_import"
)

// benchImport measures a statement's import into a wallet that holds o.depth
// transactions, over HTTP against `finledger serve` as its own process: the preview
// of an o.rows-row CSV file (the upload to the last byte of the answer with every row),
// its commit, its undo after pgbench with one client on the same PostgreSQL, and the
// most memory the server held during each. Then a CAMT.053 file of o.camtMB MB is
// previewed on the same server, with the server's resident memory and Go heap sampled.
func benchImport(ctx context.Context, adminURL string, o importOptions, out io.Writer) error {
	w, err := seedImportDatabase(ctx, adminURL, o, out)
	if err != nil {
		return err
	}
	csvFile := importCSV(o.rows, o.depth, o.authorizations)
	fmt.Fprintf(out, "the CSV statement: %d rows, %.1f MB\n", o.rows, float64(len(csvFile))/1e6)
	if err := initPgbench(ctx, adminURL, benchOptions{clients: 1}); err != nil {
		return err
	}
	type importRound struct {
		preview, commit, undo, pgbench float64 // seconds, seconds, seconds, tps
		previewRSS, commitRSS, undoRSS int64
	}
	files, stopFiles, err := importFiles(o, out)
	if err != nil {
		return err
	}
	defer stopFiles()
	var rounds []importRound
	var last *importServer
	defer func() {
		if last != nil {
			last.stop()
		}
	}()
	for round := 1; round <= o.rounds; round++ {
		if last != nil {
			last.stop()
			last = nil
		}
		url, err := copyDatabase(ctx, adminURL, importSeedDatabase, importRoundDatabase)
		if err != nil {
			return err
		}
		s, err := startImportServer(ctx, o.server, url, files)
		if err != nil {
			return err
		}
		last = s
		// relayed waits until the server's relay has published every event recorded.
		relayed := untilNone(func(ctx context.Context) (int64, error) { return webhooks.Unrelayed(ctx, s.pool) })
		if err := s.warm(ctx); err != nil {
			return err
		}
		fmt.Fprintf(out, "\n== round %d: a fresh copy of the seeded database, server pid %d\n", round, s.cmd.Process.Pid)
		var f importRound
		var statements *statementTimes
		if o.statements {
			if statements, err = newStatementTimes(ctx, s.pool); err != nil {
				return err
			}
		}
		if err := statements.start(ctx); err != nil {
			return err
		}
		previewProfiled := make(chan error, 1)
		if round == 1 && o.profile != "" {
			// Ten seconds span the preview, which the bench waits for before the commit.
			go func() { previewProfiled <- s.saveProfile(ctx, "profile?seconds=10", o.profile+".preview") }()
			time.Sleep(100 * time.Millisecond) // the profile starts before the preview
		} else {
			previewProfiled <- nil
		}
		s.peak.Store(0)
		started := time.Now()
		raw, err := s.send(ctx, http.MethodPost, "/api/imports?walletId="+w.wallet.String(), "text/csv", csvFile, http.StatusCreated)
		if err != nil {
			s.keep = true
			return fmt.Errorf("preview: %w (server log: %s)", err, s.logPath)
		}
		f.preview, f.previewRSS = time.Since(started).Seconds(), s.peakNow()
		if err := <-previewProfiled; err != nil {
			return err
		}
		var preview struct {
			Import struct {
				ID      string
				Rows    []json.RawMessage
				Summary map[string]any
			}
		}
		if err := json.Unmarshal(raw, &preview); err != nil {
			return err
		}
		sum := preview.Import.Summary
		fmt.Fprintf(out, "preview: %.2f s, %d rows in an answer of %.1f MB (new %v, duplicate %v, probable %v; import %v, merge %v, skip %v); server RSS at most %d MiB\n",
			f.preview, len(preview.Import.Rows), float64(len(raw))/1e6, sum["new"], sum["duplicate"], sum["probable"],
			sum["import"], sum["merge"], sum["skip"], f.previewRSS>>20)
		preview.Import.Rows, raw = nil, nil

		if err := statements.print(ctx, out); err != nil {
			return err
		}
		if err := statements.start(ctx); err != nil {
			return err
		}
		profiled := make(chan error, 1)
		if round == 1 && o.profile != "" {
			// A profile has its length set when it starts: it spans the commit and the
			// relay's publication of its events after it (webhooks.* in the profile).
			go func() { profiled <- s.saveProfile(ctx, "profile?seconds=90", o.profile) }()
			time.Sleep(100 * time.Millisecond) // the profile starts before the commit
		} else {
			profiled <- nil
		}
		heaped := make(chan error, 1)
		if round == 1 && o.heap != "" {
			// The heap as the collector last saw it, a few seconds into the commit.
			go func() {
				time.Sleep(4 * time.Second)
				heaped <- s.saveProfile(ctx, "heap", o.heap+".commit")
			}()
		} else {
			heaped <- nil
		}
		s.peak.Store(0)
		started = time.Now()
		raw, err = s.send(ctx, http.MethodPost, "/api/imports/"+preview.Import.ID+"/commit", "application/json", []byte("{}"), http.StatusOK)
		if heapErr := <-heaped; heapErr != nil && err == nil {
			err = heapErr
		}
		cut := ""
		if err != nil {
			// The server's write timeout (60 s) cuts a longer answer, not the commit: the
			// connection closes when the handler ends, and the import says whether it
			// committed.
			var status string
			if checkErr := s.pool.QueryRow(ctx, `SELECT status FROM imports WHERE id = $1`, preview.Import.ID).Scan(&status); checkErr != nil || status != "committed" {
				s.keep = true
				return fmt.Errorf("commit: %w (server log: %s)", err, s.logPath)
			}
			cut = fmt.Sprintf("; the answer was cut by the server's write timeout (%v), timed to the handler's end", err)
			raw = nil
		}
		f.commit, f.commitRSS = time.Since(started).Seconds(), s.peakNow()
		var committed struct {
			Import struct{ Created, Merged, Skipped int }
		}
		if raw != nil {
			if err := json.Unmarshal(raw, &committed); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "commit: %.2f s (created %d, merged %d, skipped %d%s); server RSS at most %d MiB\n", f.commit,
			committed.Import.Created, committed.Import.Merged, committed.Import.Skipped, cut, f.commitRSS>>20)
		if err := statements.print(ctx, out); err != nil {
			return err
		}
		if err := <-profiled; err != nil {
			return err
		}
		held, err := s.liveTransactions(ctx, w.wallet)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "the wallet holds %d live transactions\n", held)
		// A commit that took fewer rows than its preview proposed is a fault, not a figure.
		imported, _ := sum["import"].(float64)
		merged, _ := sum["merge"].(float64)
		if raw != nil && (committed.Import.Created != int(imported) || committed.Import.Merged != int(merged)) {
			s.keep = true
			return fmt.Errorf("the commit created %d and merged %d of the preview's %.0f to import and %.0f to merge (server log: %s)",
				committed.Import.Created, committed.Import.Merged, imported, merged, s.logPath)
		}
		// The server's relay publishes the commit's events before pgbench runs.
		if err := relayed(ctx); err != nil {
			return err
		}
		if f.pgbench, err = runPgbench(ctx, adminURL, benchOptions{clients: 1, duration: o.duration}); err != nil {
			return err
		}
		fmt.Fprintf(out, "pgbench, 1 client, %s: %.0f tps\n", o.duration, f.pgbench)

		// The import undone: every transaction it created deleted, every merge taken back.
		if err := statements.start(ctx); err != nil {
			return err
		}
		s.peak.Store(0)
		started = time.Now()
		if _, err := s.send(ctx, http.MethodPost, "/api/imports/"+preview.Import.ID+"/undo", "application/json", []byte("{}"), http.StatusOK); err != nil {
			s.keep = true
			return fmt.Errorf("undo: %w (server log: %s)", err, s.logPath)
		}
		f.undo, f.undoRSS = time.Since(started).Seconds(), s.peakNow()
		if held, err = s.liveTransactions(ctx, w.wallet); err != nil {
			return err
		}
		fmt.Fprintf(out, "undo: %.2f s; server RSS at most %d MiB; the wallet holds %d live transactions\n", f.undo, f.undoRSS>>20, held)
		if held != int64(o.depth) {
			s.keep = true
			return fmt.Errorf("the undo left %d live transactions in the wallet, want the %d it held before the import (server log: %s)", held, o.depth, s.logPath)
		}
		if err := statements.print(ctx, out); err != nil {
			return err
		}
		if err := relayed(ctx); err != nil { // and the undo's, before the next round
			return err
		}
		rounds = append(rounds, f)
	}
	med := func(get func(importRound) float64) float64 {
		xs := make([]float64, len(rounds))
		for i, r := range rounds {
			xs[i] = get(r)
		}
		return median(xs)
	}
	pg := med(func(r importRound) float64 { return r.pgbench })
	fmt.Fprintf(out, "\nA %d-row CSV statement into a wallet of %d transactions, over HTTP to `finledger serve`; medians of %d rounds, each on a fresh copy of the seeded database:\n\n",
		o.rows, o.depth, len(rounds))
	fmt.Fprintln(out, "| step | median | rounds | server RSS (most) | pgbench tps (1 client, median) |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	step := func(name string, seconds func(importRound) float64, rss func(importRound) int64) {
		fmt.Fprintf(out, "| %s | %.2f s | %s | %d MiB | %.0f |\n", name, med(seconds), secondsList(rounds, seconds),
			int64(mostOf(rounds, func(r importRound) float64 { return float64(rss(r)) }))>>20, pg)
	}
	step("preview (upload to the answer's last byte)", func(r importRound) float64 { return r.preview },
		func(r importRound) int64 { return r.previewRSS })
	step("commit", func(r importRound) float64 { return r.commit }, func(r importRound) int64 { return r.commitRSS })
	step("undo (each transaction created deleted, each merge taken back)", func(r importRound) float64 { return r.undo },
		func(r importRound) int64 { return r.undoRSS })

	if o.camtMB > 0 && last != nil {
		if o.heap != "" {
			if err := last.saveProfile(ctx, "heap", o.heap); err != nil {
				return err
			}
		}
		if err := previewCAMT(ctx, last, w.wallet.String(), o.camtMB, out); err != nil {
			return err
		}
	}
	if o.attachmentMB > 0 && last != nil {
		if err := attachReceipt(ctx, last, o.attachmentMB, o.attachmentS3, out); err != nil {
			return err
		}
	}
	return nil
}

// seedImportDatabase gives the import identity a workspace whose wallet holds o.depth
// transactions (the cold test's seeding: an expense copied in SQL, dated over five
// years, then a replay of the log into the read models), has it snapshotted and its
// events counted as published by the relay, as a live instance's would be, and leaves
// it vacuumed and checkpointed, to be copied for each round.
func seedImportDatabase(ctx context.Context, adminURL string, o importOptions, out io.Writer) (*seededWorkspace, error) {
	if o.seeded {
		if w, err := seededBefore(ctx, adminURL, o.depth); err != nil || w != nil {
			if w != nil {
				fmt.Fprintf(out, "== the seeded database of an earlier run: a wallet of %d transactions\n", o.depth)
			}
			return w, err
		}
	}
	url, err := freshDatabase(ctx, adminURL, importSeedDatabase)
	if err != nil {
		return nil, err
	}
	pool, err := database.Open(ctx, url, 4)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if _, err := database.Migrate(ctx, pool); err != nil {
		return nil, err
	}
	if o.statements {
		// In the seed, so that every copy has it.
		if _, err := newStatementTimes(ctx, pool); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(out, "== seeding a wallet of %d transactions\n", o.depth)
	started := time.Now()
	w, err := seedWorkspace(ctx, pool, importIdentity)
	if err != nil {
		return nil, err
	}
	if err := w.fill(ctx, w.template+int64(o.depth-1)); err != nil {
		return nil, err
	}
	written := time.Since(started)
	replayStart := time.Now()
	replayed, err := projections.Rebuild(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	replayTook := time.Since(replayStart)
	// A command folds the stream once and takes a snapshot, as a live workspace has.
	snapStart := time.Now()
	if err := w.execute(ctx, ledger.NewLedger(pool, projections.Project, time.Now, 1), func(ws *domain.Workspace) ([]domain.Event, error) {
		return domain.CreateCategory{CategoryID: uuid.New(), CategoryFields: domain.CategoryFields{Name: "Imported", Icon: "tag", Color: "#6366f1"}}.Decide(ws)
	}); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	snapTook := time.Since(snapStart)
	// The seeded history counts as published, as a live instance's would be: a server
	// starts its relay (which writes its checkpoint), and the checkpoint is then moved to
	// the log's end, where a relay publishing a million events would have taken minutes
	// to bring it.
	relayStart := time.Now()
	s, err := startImportServer(ctx, o.server, url, nil)
	if err != nil {
		return nil, err
	}
	err = untilNone(func(ctx context.Context) (int64, error) {
		var n int64
		err := pool.QueryRow(ctx, `SELECT 1 - count(*) FROM relay_checkpoints`).Scan(&n)
		return n, err
	})(ctx)
	s.stop()
	if err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, `UPDATE relay_checkpoints SET (tx_id, position) =
		(SELECT tx_id, position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1)`); err != nil {
		return nil, err
	}
	if n, err := webhooks.Unrelayed(ctx, pool); err != nil || n != 0 {
		return nil, fmt.Errorf("the relay's checkpoint at the log's end leaves %d events unpublished (%v)", n, err)
	}
	relayTook := time.Since(relayStart)
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, `CHECKPOINT`); err != nil {
		return nil, err
	}
	var size string
	if err := pool.QueryRow(ctx, `SELECT pg_size_pretty(pg_database_size(current_database()))`).Scan(&size); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "seeded in %s (%s): events written in SQL in %s, replay of %d events %s, the first command's fold and snapshot %s, "+
		"the relay's start %s\n", time.Since(started).Round(time.Second), size, written.Round(time.Second), replayed,
		replayTook.Round(time.Second), snapTook.Round(time.Second), relayTook.Round(time.Second))
	w.pool = nil // closed with this function
	return w, nil
}

// seededBefore returns the import identity's wallet in the seeded database an earlier
// run left, if that database exists and the wallet holds depth transactions; nil if not.
func seededBefore(ctx context.Context, adminURL string, depth int) (*seededWorkspace, error) {
	url, err := withDatabase(adminURL, importSeedDatabase)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, url)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "3D000" { // invalid_catalog_name: none seeded
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", importSeedDatabase, err)
	}
	defer conn.Close(ctx)
	w := &seededWorkspace{}
	var held int
	err = conn.QueryRow(ctx, `SELECT w.id, (SELECT count(*) FROM transactions t WHERE t.wallet_id = w.id AND t.deleted_at IS NULL)
		FROM users u JOIN wallets w ON w.workspace_id = u.personal_workspace_id WHERE u.subject = $1`, importIdentity.Subject).
		Scan(&w.wallet, &held)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && held != depth {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the seeded wallet: %w", err)
	}
	return w, nil
}

// copyDatabase drops the database name and creates it again as a copy of template,
// file by file (no WAL of its contents), which takes seconds where a re-seeding takes
// minutes.
func copyDatabase(ctx context.Context, adminURL, template, name string) (string, error) {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	id := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+id+` WITH (FORCE)`); err != nil {
		return "", fmt.Errorf("drop %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+id+` TEMPLATE `+pgx.Identifier{template}.Sanitize()+` STRATEGY FILE_COPY`); err != nil {
		return "", fmt.Errorf("copy %s to %s: %w", template, name, err)
	}
	if _, err := conn.Exec(ctx, `CHECKPOINT`); err != nil {
		return "", err
	}
	return withDatabase(adminURL, name)
}

// importServer is `finledger serve` on one database, with its operators' listener on,
// and a client signed in as the import identity.
type importServer struct {
	*serverProcess
	admin  string
	token  string
	dir    string
	pool   *pgxpool.Pool
	client *http.Client
	keep   bool // keep the server's log: something failed
}

func startImportServer(ctx context.Context, bin, url string, files map[string]string) (*importServer, error) {
	dir, err := os.MkdirTemp("", "finledger-bench-import-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	admin := ln.Addr().String()
	ln.Close()
	secret := randomHex(32)
	env := map[string]string{
		"FINLEDGER_DATABASE_URL":         url,
		"FINLEDGER_ENV":                  "production",
		"FINLEDGER_SESSION_HS256_SECRET": secret,
		"FINLEDGER_SECRET_KEY":           randomHex(32),
		"FINLEDGER_ADMIN_ADDR":           admin,
	}
	maps.Copy(env, files)
	srv, err := startServer(ctx, bin, "serve", dir, env)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	tok, err := session.MintHS256(secret, session.Claims{Subject: importIdentity.Subject, Email: importIdentity.Email}, time.Now(), 24*time.Hour, "")
	if err != nil {
		srv.stop()
		return nil, err
	}
	pool, err := database.Open(ctx, url, 2)
	if err != nil {
		srv.stop()
		return nil, err
	}
	return &importServer{serverProcess: srv, admin: "http://" + admin, token: tok, dir: dir, pool: pool,
		client: &http.Client{Timeout: 10 * time.Minute}}, nil
}

// importFiles returns the settings of the storage of files the rounds' servers get:
// none (the database) unless o.attachmentS3, which starts versitygw, built from the Go
// module proxy once per machine, with a bucket; stop ends it.
func importFiles(o importOptions, out io.Writer) (files map[string]string, stop func(), err error) {
	if !o.attachmentS3 {
		return nil, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "finledger-bench-s3-")
	if err != nil {
		return nil, nil, err
	}
	gateway, err := s3server.Run(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	cfg := gateway.Config()
	fmt.Fprintf(out, "receipts' files in the bucket %s of versitygw %s at %s, its files in %s\n", cfg.Bucket, s3server.Version, cfg.Endpoint, gateway.Dir)
	return map[string]string{"FINLEDGER_FILES_S3_ENDPOINT": cfg.Endpoint, "FINLEDGER_FILES_S3_BUCKET": cfg.Bucket,
			"FINLEDGER_FILES_S3_ACCESS_KEY": cfg.AccessKey, "FINLEDGER_FILES_S3_SECRET_KEY": cfg.SecretKey},
		func() {
			gateway.Stop()
			os.RemoveAll(dir)
		}, nil
}

func (s *importServer) stop() {
	s.pool.Close()
	s.serverProcess.stop()
	if !s.keep {
		os.RemoveAll(s.dir)
	}
}

// peakNow is the most resident memory sampled since the peak was reset, the moment's
// included: a step shorter than the sampling's period is measured too.
func (s *importServer) peakNow() int64 {
	now, _ := residentBytes(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	return max(now, s.peak.Load())
}

// warm runs one command on the workspace, so that the server holds its state (from the
// snapshot) as it would a workspace in use.
func (s *importServer) warm(ctx context.Context) error {
	_, err := s.send(ctx, http.MethodPost, "/api/categories", "application/json", []byte(`{"name":"Warm-up"}`), http.StatusOK)
	return err
}

func (s *importServer) send(ctx context.Context, method, path, contentType string, body []byte, want int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", contentType)
	return exchange(s.client, req, want)
}

// liveTransactions counts the transactions of a wallet that are not deleted.
func (s *importServer) liveTransactions(ctx context.Context, wallet uuid.UUID) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE wallet_id = $1 AND deleted_at IS NULL`, wallet).Scan(&n)
	return n, err
}

// saveProfile writes the server's profile (a path under /debug/pprof/: "heap", or
// "profile?seconds=90" for the CPU's of the next 90 s) to path.
func (s *importServer) saveProfile(ctx context.Context, profile, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.admin+"/debug/pprof/"+profile, nil)
	if err != nil {
		return err
	}
	res, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("profile %s: %w", profile, err)
	}
	defer res.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// goHeap reads the server's Go heap in use (go_memstats_heap_inuse_bytes) from its
// metrics.
func (s *importServer) goHeap(ctx context.Context) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.admin+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	res, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_heap_inuse_bytes "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("no go_memstats_heap_inuse_bytes in the metrics")
}

// sampleHeap samples the server's Go heap in use every 100 ms until the function it
// returns is called, which gives the most it sampled.
func (s *importServer) sampleHeap(ctx context.Context) func() int64 {
	var most int64
	sampling, stop := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for sampling.Err() == nil {
			if h, err := s.goHeap(sampling); err == nil {
				most = max(most, h)
			}
			select {
			case <-sampling.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		stop()
		<-sampled
		return most
	}
}

// previewCAMT previews a generated CAMT.053 file of about mb MB into the wallet, and
// reports the time and the most the server held: resident, and Go heap in use (sampled
// from its metrics every 100 ms).
func previewCAMT(ctx context.Context, s *importServer, wallet string, mb int, out io.Writer) error {
	file, entries := camtFile(mb << 20)
	fmt.Fprintf(out, "\n== a CAMT.053 file of %.1f MB (%d entries), previewed into the same wallet\n", float64(len(file))/(1<<20), entries)
	idle, err := s.goHeap(ctx)
	if err != nil {
		return err
	}
	idleRSS, _ := residentBytes(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	heapPeak := s.sampleHeap(ctx)
	s.peak.Store(0)
	started := time.Now()
	raw, err := s.send(ctx, http.MethodPost, "/api/imports?walletId="+wallet, "application/xml", file, http.StatusCreated)
	took := time.Since(started)
	most := heapPeak()
	if err != nil {
		s.keep = true
		return fmt.Errorf("CAMT preview: %w (server log: %s)", err, s.logPath)
	}
	var preview struct {
		Import struct {
			Rows []json.RawMessage
		}
	}
	if err := json.Unmarshal(raw, &preview); err != nil {
		return err
	}
	// The server inherits GOMEMLIMIT; without it, an instance's limit is 112 MiB
	// (instanceMemoryLimit in cmd/finledger).
	limit := "112 MiB, an instance's"
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		limit = v + ", from GOMEMLIMIT"
	}
	fmt.Fprintf(out, "preview: %.2f s, %d rows in an answer of %.1f MB; server RSS at most %d MiB (%d MiB before), Go heap in use at most %d MiB "+
		"(%d MiB before, sampled every 100 ms); the server's soft memory limit: %s\n",
		took.Seconds(), len(preview.Import.Rows), float64(len(raw))/1e6, s.peakNow()>>20, idleRSS>>20, most>>20, idle>>20, limit)
	return nil
}

// importPayees are the statement's payees: a few hundred, as a year of a household's.
var importPayees = func() []string {
	bases := []string{"OXXO SUCURSAL", "WALMART", "SORIANA", "CHEDRAUI", "LIVERPOOL", "UBER TRIP", "DIDI FOOD", "RAPPI",
		"CFE SUMINISTRADOR", "TELMEX", "TOTALPLAY", "STARBUCKS", "FARMACIA GUADALAJARA", "PEMEX ESTACION", "COSTCO",
		"HOME DEPOT", "AMAZON MX", "MERCADO LIBRE", "CINEPOLIS", "SPOTIFY", "NETFLIX", "GASOLINERA", "SANBORNS",
		"LA COMER", "SUPERAMA"}
	var out []string
	for i := 0; len(out) < 300; i++ {
		out = append(out, fmt.Sprintf("%s %d", bases[i%len(bases)], 100+i*7))
	}
	return out
}()

// importCSV is a bank's CSV statement of n rows dated over the seeded five years: money
// out to a few hundred payees, a tenth money in; one row in fifty has the amount and,
// within two days, the date of a transaction the seeding wrote (fillStream's g-th copy
// is of (1 + g % 50000) / 100 on 2021-01-01 + g % 1826), so that the probable-duplicate
// match has pairs to weigh; a fifth of the rows have no reference (their ids are made
// from their content). With authorizations, each card purchase's memo carries the
// purchase's authorization number, as many banks' statements do ("CARD PURCHASE AUT
// 482913"): text whose trigrams vary from row to row.
func importCSV(n, depth int, authorizations bool) []byte {
	rng := rand.New(rand.NewPCG(27, 9))
	start := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	b.WriteString("Date,Payee,Description,Amount,Reference\n")
	for i := range n {
		var date time.Time
		var cents int64
		payee := importPayees[rng.IntN(len(importPayees))]
		memo := "CARD PURCHASE"
		switch {
		case i%50 == 7:
			g := 1 + rng.IntN(min(depth, 100_000))
			date = start.AddDate(0, 0, g%1826+rng.IntN(3))
			cents = -int64(1 + g%50000)
		case i%10 == 3:
			date = start.AddDate(0, 0, rng.IntN(1826))
			cents = 100_000 + rng.Int64N(5_000_000)
			payee, memo = "SPEI RECIBIDO NOMINA ACME SA DE CV", "TRANSFER IN"
		default:
			date = start.AddDate(0, 0, rng.IntN(1826))
			cents = -(1 + rng.Int64N(200_000))
			if authorizations {
				memo = fmt.Sprintf("CARD PURCHASE AUT %06d", rng.IntN(1_000_000))
			}
		}
		ref := fmt.Sprintf("REF%08d", i+1)
		if i%5 == 4 {
			ref = ""
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", date.Format(time.DateOnly), payee, memo, decimal.New(cents, -2).StringFixed(2), ref)
	}
	return b.Bytes()
}

// camtEntry is one booked entry of the generated CAMT.053 file, as a bank writes it:
// its references, bank transaction code, one transaction with its parties, accounts
// and remittance information.
const camtEntryXML = `            <Ntry>
                <NtryRef>%[1]d</NtryRef>
                <Amt Ccy="MXN">%[2]s</Amt>
                <CdtDbtInd>%[3]s</CdtDbtInd>
                <Sts>
                    <Cd>BOOK</Cd>
                </Sts>
                <BookgDt>
                    <Dt>%[4]s</Dt>
                </BookgDt>
                <ValDt>
                    <Dt>%[4]s</Dt>
                </ValDt>
                <AcctSvcrRef>CAMT-%[1]09d</AcctSvcrRef>
                <BkTxCd>
                    <Domn>
                        <Cd>PMNT</Cd>
                        <Fmly>
                            <Cd>ICDT</Cd>
                            <SubFmlyCd>DMCT</SubFmlyCd>
                        </Fmly>
                    </Domn>
                </BkTxCd>
                <NtryDtls>
                    <TxDtls>
                        <Refs>
                            <EndToEndId>E2E-%[1]d</EndToEndId>
                        </Refs>
                        <Amt Ccy="MXN">%[2]s</Amt>
                        <CdtDbtInd>%[3]s</CdtDbtInd>
                        <RltdPties>
                            <Cdtr>
                                <Pty>
                                    <Nm>%[5]s</Nm>
                                </Pty>
                            </Cdtr>
                            <CdtrAcct>
                                <Id>
                                    <IBAN>MX%[6]016d</IBAN>
                                </Id>
                            </CdtrAcct>
                        </RltdPties>
                        <RmtInf>
                            <Ustrd>%[7]s</Ustrd>
                        </RmtInf>
                    </TxDtls>
                </NtryDtls>
                <AddtlNtryInf>%[7]s</AddtlNtryInf>
            </Ntry>
`

// camtFile is a CAMT.053 statement of at least size bytes in MXN, and its entries.
func camtFile(size int) ([]byte, int) {
	rng := rand.New(rand.NewPCG(53, 50))
	start := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	b.Grow(size + 4096)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
    <BkToCstmrStmt>
        <GrpHdr>
            <MsgId>BENCH-CAMT053</MsgId>
            <CreDtTm>2026-01-01T08:00:00+00:00</CreDtTm>
        </GrpHdr>
        <Stmt>
            <Id>BENCH-STMT-1</Id>
            <CreDtTm>2026-01-01T08:00:00+00:00</CreDtTm>
            <Acct>
                <Id>
                    <IBAN>MX00BENCH000000000000001</IBAN>
                </Id>
                <Ccy>MXN</Ccy>
            </Acct>
            <Bal>
                <Tp>
                    <CdOrPrtry>
                        <Cd>OPBD</Cd>
                    </CdOrPrtry>
                </Tp>
                <Amt Ccy="MXN">1000000.00</Amt>
                <CdtDbtInd>CRDT</CdtDbtInd>
                <Dt>
                    <Dt>2020-12-31</Dt>
                </Dt>
            </Bal>
`)
	var body bytes.Buffer
	body.Grow(size)
	entries := 0
	balance := decimal.New(100_000_000, -2)
	for b.Len()+body.Len() < size {
		entries++
		cents, mark := -(1 + rng.Int64N(200_000)), "DBIT"
		if entries%10 == 3 {
			cents, mark = 100_000+rng.Int64N(5_000_000), "CRDT"
		}
		amount := decimal.New(cents, -2)
		balance = balance.Add(amount)
		payee := importPayees[rng.IntN(len(importPayees))]
		fmt.Fprintf(&body, camtEntryXML, entries, amount.Abs().StringFixed(2), mark,
			start.AddDate(0, 0, rng.IntN(1826)).Format(time.DateOnly), payee, rng.Int64N(1e16), "PAGO "+payee)
	}
	mark := "CRDT"
	if balance.IsNegative() {
		mark = "DBIT"
	}
	fmt.Fprintf(&b, `            <Bal>
                <Tp>
                    <CdOrPrtry>
                        <Cd>CLBD</Cd>
                    </CdOrPrtry>
                </Tp>
                <Amt Ccy="MXN">%s</Amt>
                <CdtDbtInd>%s</CdtDbtInd>
                <Dt>
                    <Dt>2025-12-31</Dt>
                </Dt>
            </Bal>
`, balance.Abs().StringFixed(2), mark)
	body.WriteTo(&b)
	b.WriteString(`        </Stmt>
    </BkToCstmrStmt>
</Document>
`)
	return b.Bytes(), entries
}

func mostOf[T any](xs []T, get func(T) float64) float64 {
	var m float64
	for _, x := range xs {
		m = max(m, get(x))
	}
	return m
}

func secondsList[T any](xs []T, get func(T) float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(get(x), 'f', 2, 64)
	}
	return strings.Join(parts, ", ") + " s"
}
