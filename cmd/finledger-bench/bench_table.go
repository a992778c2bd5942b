package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/webhooks"
)

// tableLoad is one row of the table: a load of creates and pgbench with as many clients.
type tableLoad struct {
	name       string
	clients    int
	workspaces int
	keyed      bool
}

// tableLoads are the loads of the issue that set the targets, in its order.
var tableLoads = []tableLoad{
	{"C=1, spread over 64 workspaces", 1, 64, false},
	{"C=16, spread over 64 workspaces", 16, 64, false},
	{"C=16, every request with an Idempotency-Key", 16, 64, true},
	{"C=16, ONE workspace", 16, 1, false},
	{"C=64, ONE workspace", 64, 1, false},
}

// benchTable runs each load of tableLoads against the service as its own process (the
// binary at serverBin, `finledger serve`), alternating rounds with pgbench at the same
// client count, and prints one table: the medians over the rounds, and the most the
// server process held in memory (VmRSS, sampled) during the load's rounds.
func benchTable(ctx context.Context, adminURL, benchURL, serverBin string, o benchOptions, out io.Writer) error {
	served, err := serveBench(ctx, serverBin, benchURL, 128, out)
	if err != nil {
		return err
	}
	defer served.close()
	srv, b := served.srv, served.run
	spaces, err := b.workspaces(64)
	if err != nil {
		return err
	}
	if err := initPgbench(ctx, adminURL, benchOptions{clients: 64}); err != nil {
		return err
	}

	type row struct {
		load                tableLoad
		tps, ratio, pgbench float64
		p50, p99            time.Duration
		rss                 int64
	}
	var rows []row
	for _, load := range tableLoads {
		lo := o
		lo.clients, lo.keyed = load.clients, load.keyed
		var tps, ratios, pgTPS []float64
		var p50s, p99s []time.Duration
		var rss int64
		for round := 1; round <= o.rounds; round++ {
			fmt.Fprintf(out, "\n== %s, round %d: ledger POST /api/transactions, %s\n", load.name, round, o.duration)
			srv.peak.Store(0)
			f, err := b.throughput(ctx, spaces[:load.workspaces], lo)
			if err != nil {
				return fmt.Errorf("%s: %w (server log: %s)", load.name, err, srv.logPath)
			}
			rss = max(rss, srv.peak.Load())
			if err := b.settle(ctx); err != nil {
				return err
			}
			pg, err := runPgbench(ctx, adminURL, lo)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "== %s, round %d: pgbench %d clients: %.0f tps; ratio %.2f\n", load.name, round, lo.clients, pg, f.tps/pg)
			tps, ratios, pgTPS = append(tps, f.tps), append(ratios, f.tps/pg), append(pgTPS, pg)
			p50s, p99s = append(p50s, f.p50), append(p99s, f.p99)
		}
		rows = append(rows, row{load, median(tps), median(ratios), median(pgTPS), median(p50s), median(p99s), rss})
	}

	fmt.Fprintf(out, "\nMedians of %d rounds of %s each; the server is its own process; RSS is the most it held during the load's rounds.\n\n", o.rounds, o.duration)
	fmt.Fprintln(out, "| load | creates/s | ratio to pgbench | p50 | p99 | pgbench tps | server RSS |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %.0f | %.2f | %s | %s | %.0f | %d MiB |\n", r.load.name, r.tps, r.ratio, r.p50, r.p99, r.pgbench, r.rss>>20)
	}
	return nil
}

// servedBench is the service run as its own process on the bench's database, a client
// of it, and the bench's own connections to the database.
type servedBench struct {
	srv  *serverProcess
	run  *benchRun
	pool *pgxpool.Pool
	dir  string
}

// serveBench runs the binary at serverBin as `finledger serve` with production settings
// on benchURL, with a client keeping up to conns idle connections to it. Its settle
// waits until the server's relay has published every event written (between a load and
// pgbench).
func serveBench(ctx context.Context, serverBin, benchURL string, conns int, out io.Writer) (_ *servedBench, err error) {
	s := &servedBench{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.dir, err = os.MkdirTemp("", "finledger-bench-server-"); err != nil {
		return nil, err
	}
	secret := randomHex(32)
	if s.srv, err = startServer(ctx, serverBin, "serve", s.dir, map[string]string{
		"FINLEDGER_DATABASE_URL":         benchURL,
		"FINLEDGER_ENV":                  "production",
		"FINLEDGER_SESSION_HS256_SECRET": secret,
		"FINLEDGER_SECRET_KEY":           randomHex(32),
	}); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "server: %s serve, pid %d, at %s\n", serverBin, s.srv.cmd.Process.Pid, s.srv.base)
	if s.pool, err = database.Open(ctx, benchURL, 2); err != nil {
		return nil, err
	}
	unrelayed := func(ctx context.Context) (int64, error) { return webhooks.Unrelayed(ctx, s.pool) }
	s.run = &benchRun{out: out, base: s.srv.base, secret: secret, settle: untilNone(unrelayed),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}, Timeout: 30 * time.Second}}
	return s, nil
}

// close stops the server and removes its folder.
func (s *servedBench) close() {
	if s.pool != nil {
		s.pool.Close()
	}
	if s.srv != nil {
		s.srv.stop()
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

func median[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// serverProcess is the service run as its own process.
type serverProcess struct {
	cmd     *exec.Cmd
	base    string
	logPath string
	exited  chan struct{}
	peak    atomic.Int64 // the most VmRSS sampled since last reset, in bytes
	stopRSS context.CancelFunc
}

// startServer starts `bin command` (serve, or dev) with settings as its only FINLEDGER_*
// environment, on a free loopback port, with a data folder under dir and no rate limit
// it would reach, and waits until it is ready.
func startServer(ctx context.Context, bin, command, dir string, settings map[string]string) (*serverProcess, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	settings["FINLEDGER_HTTP_ADDR"] = addr
	settings["FINLEDGER_DATA_DIR"] = filepath.Join(dir, "data")
	// The limiter runs on every request, with a limit no load of the bench reaches.
	settings["FINLEDGER_RATE_LIMIT_PER_MINUTE"] = strconv.Itoa(1 << 30)
	settings["FINLEDGER_RATE_LIMIT_BURST"] = strconv.Itoa(1 << 30)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FINLEDGER_") {
			env = append(env, kv)
		}
	}
	for k, v := range settings {
		env = append(env, k+"="+v)
	}
	s := &serverProcess{base: "http://" + addr, logPath: filepath.Join(dir, "server.log"), exited: make(chan struct{})}
	log, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	s.cmd = exec.Command(bin, command)
	s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = env, log, log
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s %s: %w", bin, command, err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	rssCtx, stop := context.WithCancel(context.Background())
	s.stopRSS = stop
	go s.sampleRSS(rssCtx)
	for deadline := time.Now().Add(60 * time.Second); ; {
		res, err := http.Get(s.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("%s %s exited before it was ready; its log: %s", bin, command, s.logPath)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s %s not ready after a minute; its log: %s", bin, command, s.logPath)
		}
	}
}

// sampleRSS keeps in peak the most resident memory the process has held, sampled every
// 100 ms.
func (s *serverProcess) sampleRSS(ctx context.Context) {
	path := fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid)
	for {
		if rss, err := residentBytes(path); err == nil {
			for {
				old := s.peak.Load()
				if rss <= old || s.peak.CompareAndSwap(old, rss) {
					break
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.exited:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// residentBytes reads VmRSS from a /proc/<pid>/status file.
func residentBytes(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS in " + path)
}

// stop ends the server as an operator would, with SIGTERM, and waits for it.
func (s *serverProcess) stop() {
	s.stopRSS()
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}
