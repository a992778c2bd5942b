package main

// The processes of the cluster fault test: one private PostgreSQL server that the test
// stops and starts, one NATS server (built from the module the service uses, so that
// both speak the same JetStream), and `finledger serve` instances it kills and
// restarts. Every one is stopped in t.Cleanup, and their logs are kept in files whose
// tails are printed when the test fails.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/finledger/finledger/internal/pgcluster"
	"github.com/finledger/finledger/internal/testkit/pgfailover"
)

// serveStartTimeout bounds how long a process may take to accept requests.
const serveStartTimeout = 90 * time.Second

// processesDir makes a folder, removed after the test, for the binaries, data and logs
// of the processes a test starts; others may read it, since PostgreSQL runs as an
// unprivileged user when the tests run as root.
func processesDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildBinaries builds, in one go, the finledger binary of this tree and the NATS
// server of the version the service is built against, into dir. No race detector: the
// servers are under test for behaviour, and they share two cores.
func buildBinaries(t *testing.T, dir string) (finledger, natsServer string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goTool, "build", "-o", dir+string(filepath.Separator), ".", "github.com/nats-io/nats-server/v2")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "finledger"), filepath.Join(dir, "nats-server")
}

// logTail returns the last n lines of a log file.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 400 {
			lines[i] = l[:400] + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// clusterDatabase is the database the instances share: one PostgreSQL server
// (clusterPostgres) or a primary with a synchronous standby (failoverPostgres).
type clusterDatabase interface {
	// url is the URL of database; app names the connections in pg_stat_activity.
	url(database, app string) string
	// outage takes the whole database away for down, cutting every session, and brings
	// it back.
	outage(down time.Duration) error
	// logTail is the end of the servers' log, for a failure's message.
	logTail(lines int) string
}

// createDatabase creates an empty database named name on db.
func createDatabase(t *testing.T, db clusterDatabase, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, db.url("postgres", "cluster-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
}

// withApp adds the connections' application name to a URL that has a query already.
func withApp(url, app string) string {
	if app == "" {
		return url
	}
	return url + "&application_name=" + app
}

// failoverPostgres is a pg_auto_failover formation: the instances connect to both
// nodes and write to whichever is the primary. Its outage stops both nodes.
type failoverPostgres struct{ *pgfailover.Formation }

func (p failoverPostgres) url(database, app string) string {
	return withApp(p.URL(database), app)
}

func (p failoverPostgres) outage(down time.Duration) error {
	p.Down()
	time.Sleep(down)
	p.Up()
	return nil
}

// logTail is empty: the formation logs its servers' ends itself when the test fails.
func (p failoverPostgres) logTail(int) string { return "" }

// clusterPostgres is the private PostgreSQL server every instance shares. Outage stops
// it and starts it again on the same port and data folder.
type clusterPostgres struct {
	dir     string
	logPath string
	logFile *os.File

	mu   sync.Mutex
	pg   *pgcluster.Cluster
	port int
}

var clusterPGSettings = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}

func startClusterPostgres(t *testing.T, dir string) *clusterPostgres {
	t.Helper()
	logPath := dir + ".log"
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Settings: clusterPGSettings, Log: f})
	if err != nil {
		f.Close()
		t.Fatalf("start PostgreSQL: %v", err)
	}
	p := &clusterPostgres{dir: dir, logPath: logPath, logFile: f, pg: pg, port: pg.Port()}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.pg != nil {
			_ = p.pg.Stop()
		}
		p.logFile.Close()
	})
	return p
}

func (p *clusterPostgres) url(database, app string) string {
	return withApp(fmt.Sprintf("postgres://finledger@127.0.0.1:%d/%s?sslmode=disable", p.port, database), app)
}

func (p *clusterPostgres) logTail(lines int) string { return logTail(p.logPath, lines) }

// outage stops the server (a fast shutdown: sessions are cut), keeps it down for down,
// and starts it again on the same port and data folder.
func (p *clusterPostgres) outage(down time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.pg.Stop(); err != nil {
		return err
	}
	p.pg = nil
	time.Sleep(down)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := pgcluster.Start(ctx, pgcluster.Options{Dir: p.dir, Port: p.port, Settings: clusterPGSettings, Log: p.logFile})
	if err != nil {
		return err
	}
	p.pg = pg
	return nil
}

// startNATS starts a NATS server with JetStream, storing under dir, on a free port,
// and returns its URL.
func startNATS(t *testing.T, bin, dir string) (url, logPath string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath = dir + ".log"
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-js", "-sd", dir, "-a", "127.0.0.1", "-p", port)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start nats-server: %v", err)
	}
	f.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url = "nats://" + addr
	deadline := time.Now().Add(serveStartTimeout)
	for {
		err := jetStreamReady(url)
		if err == nil {
			return url, logPath
		}
		select {
		case <-exited:
			t.Fatalf("nats-server exited: %s", logTail(logPath, 30))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server at %s with JetStream not ready: %v\n%s", url, err, logTail(logPath, 30))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jetStreamReady reports whether the NATS server at url accepts clients and serves
// JetStream.
func jetStreamReady(url string) error {
	conn, err := nats.Connect(url, nats.Timeout(2*time.Second))
	if err != nil {
		return err
	}
	defer conn.Close()
	js, err := jetstream.New(conn)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// serveProcess is one `finledger serve` process, restarted on the same address, data
// folder and settings.
type serveProcess struct {
	name    string
	base    string // http://host:port
	bin     string
	env     []string
	logPath string

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	killing bool
	starts  int
	kills   int
	crashes []string // exits the test did not cause, with the log's tail
}

// serveEnv is the environment of an instance: the test's own without any FINLEDGER_
// setting, plus settings.
func serveEnv(settings map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FINLEDGER_") {
			env = append(env, kv)
		}
	}
	for k, v := range settings {
		env = append(env, k+"="+v)
	}
	return env
}

func newServeProcess(name, bin, addr, logPath string, settings map[string]string) *serveProcess {
	settings["FINLEDGER_HTTP_ADDR"] = addr
	return &serveProcess{name: name, base: "http://" + addr, bin: bin, env: serveEnv(settings), logPath: logPath}
}

// start starts the process; it does not wait for it to serve.
func (in *serveProcess) start() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cmd != nil {
		select {
		case <-in.exited:
		default:
			return fmt.Errorf("%s: already running", in.name)
		}
	}
	f, err := os.OpenFile(in.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	in.starts++
	fmt.Fprintf(f, "=== cluster test: start %d of %s at %s\n", in.starts, in.name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(in.bin, "serve")
	cmd.Env = in.env
	cmd.Stdout, cmd.Stderr = f, f
	// Should the test binary die (a timeout panic), its servers die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: start: %w", in.name, err)
	}
	exited := make(chan struct{})
	in.cmd, in.exited, in.killing = cmd, exited, false
	go func() {
		err := cmd.Wait()
		in.mu.Lock()
		if !in.killing {
			in.crashes = append(in.crashes, fmt.Sprintf("%s exited by itself (%v) at %s; log tail:\n%s",
				in.name, err, time.Now().Format(time.StampMilli), logTail(in.logPath, 20)))
		}
		in.mu.Unlock()
		close(exited)
	}()
	return nil
}

// running reports whether the process is alive.
func (in *serveProcess) running() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cmd == nil {
		return false
	}
	select {
	case <-in.exited:
		return false
	default:
		return true
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (in *serveProcess) kill() {
	in.mu.Lock()
	cmd, exited := in.cmd, in.exited
	if cmd == nil {
		in.mu.Unlock()
		return
	}
	in.killing = true
	in.kills++
	in.mu.Unlock()
	_ = cmd.Process.Kill()
	<-exited
}

// waitReady polls /readyz until it answers 200, failing early if the process exits.
func (in *serveProcess) waitReady(timeout time.Duration) error {
	in.mu.Lock()
	exited := in.exited
	in.mu.Unlock()
	client := &http.Client{Timeout: 3 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		res, err := client.Get(in.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited while starting; log tail:\n%s", in.name, logTail(in.logPath, 30))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s (last: %v); log tail:\n%s", in.name, timeout, err, logTail(in.logPath, 30))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Leader roles and the advisory locks that elect them, as in webhooks/relay.go,
// webhooks/dispatcher.go and scheduler.
var leaderLocks = map[int64]string{
	0x66696e72656c6179: "relay",
	0x66696e6469737061: "dispatcher",
	0x66696e7363686564: "scheduler",
}

// leaderHolders returns which instance (by the application_name of its connections) holds
// each leader lock in database url.
func leaderHolders(url string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT (l.classid::bigint << 32) | l.objid::bigint, a.application_name
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var key int64
		var app string
		if err := rows.Scan(&key, &app); err != nil {
			return nil, err
		}
		if role, ok := leaderLocks[key]; ok {
			out[role] = app
		}
	}
	return out, rows.Err()
}

// knobInt reads a positive integer knob of the test.
func knobInt(t *testing.T, name string, fallback int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s must be a whole number, not %q", name, v)
	}
	return n
}

func knobDuration(t *testing.T, name string, fallback time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		t.Fatalf("%s must be a duration such as 90s, not %q", name, v)
	}
	return d
}

// busNames lists the JetStream streams on the NATS server with their consumers: the
// names the deployments sharing it use.
func busNames(url string) (string, error) {
	conn, err := nats.Connect(url)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	js, err := jetstream.New(conn)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	streams := js.StreamNames(ctx)
	for name := range streams.Name() {
		stream, err := js.Stream(ctx, name)
		if err != nil {
			return "", err
		}
		var consumers []string
		names := stream.ConsumerNames(ctx)
		for c := range names.Name() {
			consumers = append(consumers, c)
		}
		if err := names.Err(); err != nil {
			return "", err
		}
		out = append(out, fmt.Sprintf("%s (consumers: %s)", name, strings.Join(consumers, ", ")))
	}
	if err := streams.Err(); err != nil {
		return "", err
	}
	return strings.Join(out, "; "), nil
}
