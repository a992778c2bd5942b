// Package pgfailover owns a replicated PostgreSQL for tests: a pg_auto_failover monitor
// and one formation of two PostgreSQL nodes, a primary and a synchronous standby, each
// run by its pg_autoctl keeper from the installed binaries in a temporary folder. It
// kills the primary the way a dead machine goes, waits for the monitor to promote the
// standby, and brings the old primary back as the new standby; it can also stop both
// nodes for a while and start them again.
//
// The servers are tuned for speed, not for disks (fsync is off), and the monitor
// decides within seconds rather than in its production defaults' minute or so;
// replication stays synchronous, so a commit the primary acknowledged is on both.
package pgfailover

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/pgcluster"
)

// Database is the database the formation's first node creates and URL names.
const Database = "finledger"

// InstallHint is the command that installs pg_auto_failover on Debian and Ubuntu.
const InstallHint = "apt-get install -y postgresql-15-auto-failover"

// waitLimit bounds each wait for the formation to reach a state.
const waitLimit = 90 * time.Second

// monitorSettings make the monitor decide in seconds: it checks every node each second,
// takes a node that has neither answered nor reported for two seconds as failed, and
// waits two seconds (not thirty) for a failed primary to demote itself before it
// promotes the standby. The promotion still requires the standby to be within
// pgautofailover.promote_wal_log_threshold of the primary's last reported position.
var monitorSettings = []string{
	"pgautofailover.health_check_period = 1000",
	"pgautofailover.health_check_timeout = 1000",
	"pgautofailover.health_check_max_retries = 1",
	"pgautofailover.health_check_retry_delay = 500",
	"pgautofailover.node_considered_unhealthy_timeout = 2000",
	"pgautofailover.primary_demote_timeout = 2000",
	"pgautofailover.startup_grace_period = 2000",
}

// Formation is a running monitor and its two nodes; Start stops it when the test ends.
type Formation struct {
	t        testing.TB
	root     string // temporary folder of everything, also the servers' socket folder
	autoctl  string // the pg_autoctl program
	pgctl    string
	monitor  *process
	monPort  int
	nodes    [2]*node
	monitorC *pgx.Conn

	downPrimary int       // the primary when Down stopped both nodes
	downAt      time.Time // when both were down
}

// node is one PostgreSQL server of the formation with its keeper.
type node struct {
	name   string
	port   int
	pgdata string
	keeper *process // nil while the node is down
}

// process is a running pg_autoctl and everything it started, in one process group.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs a monitor and two nodes and returns once the second node is a synchronous
// standby of the first. It fails the test, naming the package to install, when
// pg_autoctl is missing.
func Start(t testing.TB) *Formation {
	t.Helper()
	autoctl, err := findAutoctl()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := pgcluster.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", "finledger-failover-")
	if err != nil {
		t.Fatal(err)
	}
	f := &Formation{t: t, root: root, autoctl: autoctl, pgctl: filepath.Join(bin, "pg_ctl")}
	t.Cleanup(f.stop)
	if err := pgcluster.MakeDir(root); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	if err := f.start(ctx); err != nil {
		t.Fatalf("pgfailover: %v%s", err, f.logs())
	}
	return f
}

// findAutoctl finds pg_autoctl on PATH or beside the PostgreSQL binaries.
func findAutoctl() (string, error) {
	if path, err := exec.LookPath("pg_autoctl"); err == nil {
		return path, nil
	}
	if bin, err := pgcluster.BinDir(); err == nil {
		path := filepath.Join(bin, "pg_autoctl")
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("pgfailover: pg_autoctl (pg_auto_failover) is not installed, and the failover drill needs it; install it with `%s` (for another PostgreSQL major version, postgresql-N-auto-failover)", InstallHint)
}

func (f *Formation) start(ctx context.Context) error {
	ports := map[int]bool{}
	for len(ports) < 1+len(f.nodes) {
		port, err := pgcluster.FreePort()
		if err != nil {
			return err
		}
		if ports[port] {
			continue
		}
		ports[port] = true
		if f.monPort == 0 {
			f.monPort = port
			continue
		}
		i := len(ports) - 2
		name := "node" + strconv.Itoa(i+1)
		f.nodes[i] = &node{name: name, port: port, pgdata: filepath.Join(f.root, name, "pgdata")}
	}
	// The first node's cluster is made here, with the settings below, while the monitor
	// starts; the second node is a base backup of it, settings included.
	firstMade := make(chan error, 1)
	go func() {
		_, err := f.initialise(ctx, f.nodes[0].name)
		firstMade <- err
	}()
	if err := f.startMonitor(ctx); err != nil {
		<-firstMade
		return err
	}
	if err := <-firstMade; err != nil {
		return err
	}
	if err := pgcluster.MakeDir(filepath.Dir(f.nodes[1].pgdata)); err != nil {
		return err
	}
	for i, n := range f.nodes {
		if err := f.create(n); err != nil {
			return err
		}
		if i == 0 {
			if err := f.waitStates(ctx, map[string]string{n.name: "single"}); err != nil {
				return err
			}
		}
	}
	return f.waitPair(ctx, 0)
}

// startMonitor makes and starts the monitor, and makes it decide fast.
func (f *Formation) startMonitor(ctx context.Context) error {
	monData, err := f.initialise(ctx, "monitor")
	if err != nil {
		return err
	}
	f.monitor, err = f.run("monitor", "create", "monitor", "--pgctl", f.pgctl, "--pgdata", monData,
		"--pgport", strconv.Itoa(f.monPort), "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl", "--run")
	if err != nil {
		return err
	}
	if err := f.connectMonitor(ctx); err != nil {
		return err
	}
	for _, s := range monitorSettings {
		if _, err := f.monitorC.Exec(ctx, "ALTER SYSTEM SET "+s); err != nil {
			return fmt.Errorf("monitor setting %s: %w", s, err)
		}
	}
	if _, err := f.monitorC.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("monitor reload: %w", err)
	}
	return nil
}

// initialise makes the cluster of a folder of root with the settings the tests want.
// They go to postgresql.auto.conf, which PostgreSQL reads after pg_autoctl's own file,
// and which ALTER SYSTEM (as pg_autoctl uses for synchronous_standby_names) keeps.
func (f *Formation) initialise(ctx context.Context, name string) (string, error) {
	pgdata, err := pgcluster.Initialise(ctx, filepath.Join(f.root, name), nil)
	if err != nil {
		return "", err
	}
	settings := []string{
		// Unix sockets in root: pg_autoctl reaches its local server through PGHOST, and
		// the default folder may not be writable by the server's user.
		"unix_socket_directories = '" + f.root + "'",
		"shared_buffers = '128MB'",
		"max_connections = 100",
		"fsync = off",
	}
	file, err := os.OpenFile(filepath.Join(pgdata, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return "", err
	}
	_, err = io.WriteString(file, strings.Join(settings, "\n")+"\n")
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return pgdata, err
}

// create registers n with the monitor and runs its keeper: the first node becomes the
// primary, the second a standby made by a base backup of it.
func (f *Formation) create(n *node) error {
	var err error
	n.keeper, err = f.run(n.name, "create", "postgres", "--pgctl", f.pgctl, "--pgdata", n.pgdata,
		"--pgport", strconv.Itoa(n.port), "--listen", "127.0.0.1", "--hostname", "127.0.0.1",
		"--name", n.name, "--username", pgcluster.Superuser, "--dbname", Database,
		"--auth", "trust", "--no-ssl", "--monitor", f.monitorURL("autoctl_node", "pg_auto_failover"), "--run")
	return err
}

// run starts pg_autoctl with args as the server's user, its output in root/name.log.
func (f *Formation) run(name string, args ...string) (*process, error) {
	cmd, err := pgcluster.Command(f.autoctl, f.root, args...)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, "PGHOST="+f.root, "PGUSER="+pgcluster.Superuser)
	logPath := filepath.Join(f.root, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start pg_autoctl %s: %w", strings.Join(args[:2], " "), err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (f *Formation) monitorURL(user, database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, f.monPort, database)
}

// connectMonitor waits for the monitor to serve its schema and keeps a connection to it.
func (f *Formation) connectMonitor(ctx context.Context) error {
	return f.poll(ctx, "the monitor to start", func() (bool, error) {
		conn, err := pgx.Connect(ctx, f.monitorURL(pgcluster.Superuser, "pg_auto_failover"))
		if err != nil {
			return false, nil
		}
		if _, err := conn.Exec(ctx, "SELECT 1 FROM pgautofailover.formation"); err != nil {
			_ = conn.Close(ctx)
			return false, nil
		}
		f.monitorC = conn
		return true, nil
	})
}

// poll calls done every 200 ms until it reports true, fails, or waitLimit passes.
func (f *Formation) poll(ctx context.Context, what string, done func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if f.monitor != nil {
			select {
			case <-f.monitor.done:
				return fmt.Errorf("waiting for %s: the monitor exited", what)
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// states returns each node's reported and assigned state, as "reported/assigned".
func (f *Formation) states(ctx context.Context) (map[string]string, error) {
	return f.statesSince(ctx, time.Time{})
}

// statesSince is states of the nodes that have reported to the monitor since a moment.
func (f *Formation) statesSince(ctx context.Context, since time.Time) (map[string]string, error) {
	rows, err := f.monitorC.Query(ctx, `SELECT nodename, reportedstate::text || '/' || goalstate::text FROM pgautofailover.node
		WHERE reporttime > $1`, since)
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	out := map[string]string{}
	var name, state string
	_, err = pgx.ForEachRow(rows, []any{&name, &state}, func() error { out[name] = state; return nil })
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	return out, nil
}

// waitStates waits until each named node both reports and is assigned its state.
func (f *Formation) waitStates(ctx context.Context, want map[string]string) error {
	var last map[string]string
	err := f.poll(ctx, fmt.Sprint("states ", want), func() (bool, error) {
		got, err := f.states(ctx)
		if err != nil {
			return false, err
		}
		last = got
		for name, state := range want {
			if got[name] != state+"/"+state {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("%w (last seen %v)", err, last)
	}
	return nil
}

// waitPair waits until node primary is the primary and the other its synchronous
// standby. Meanwhile it asks the primary for checkpoints: a standby's base backup
// starts from one, and would otherwise wait for the next scheduled one, minutes away.
func (f *Formation) waitPair(ctx context.Context, primary int) error {
	p, s := f.nodes[primary], f.nodes[1-primary]
	err := f.poll(ctx, s.name+" to follow "+p.name, func() (bool, error) {
		got, err := f.states(ctx)
		if err != nil {
			return false, err
		}
		if got[p.name] == "primary/primary" && got[s.name] == "secondary/secondary" {
			return true, nil
		}
		if conn, err := pgx.Connect(ctx, f.NodeURL(primary, "postgres")); err == nil {
			_, _ = conn.Exec(ctx, "CHECKPOINT")
			_ = conn.Close(ctx)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	return f.poll(ctx, "synchronous replication to "+s.name, func() (bool, error) {
		conn, err := pgx.Connect(ctx, f.NodeURL(primary, "postgres"))
		if err != nil {
			return false, nil
		}
		defer conn.Close(ctx)
		var sync bool
		err = conn.QueryRow(ctx, `SELECT current_setting('synchronous_standby_names') <> ''
			AND EXISTS (SELECT FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))`).Scan(&sync)
		return err == nil && sync, nil
	})
}

// URL returns the URL the service connects with: both nodes, the one that accepts
// writes chosen at each connection.
func (f *Formation) URL(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d,127.0.0.1:%d/%s?sslmode=disable&target_session_attrs=read-write",
		pgcluster.Superuser, f.nodes[0].port, f.nodes[1].port, database)
}

// NodeURL returns the URL of database on node i (0 or 1) alone.
func (f *Formation) NodeURL(i int, database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", pgcluster.Superuser, f.nodes[i].port, database)
}

// Primary returns which node (0 or 1) the monitor has as the primary, failing the test
// when neither is.
func (f *Formation) Primary() int {
	f.t.Helper()
	got, err := f.states(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	for i, n := range f.nodes {
		switch got[n.name] {
		case "primary/primary", "wait_primary/wait_primary", "single/single":
			return i
		}
	}
	f.t.Fatalf("pgfailover: no primary; states %v", got)
	return -1
}

// KillPrimary kills the primary as a machine dies (Kill) and returns which node it was.
func (f *Formation) KillPrimary() int {
	f.t.Helper()
	i := f.Primary()
	f.Kill(i)
	return i
}

// Kill kills node i as a machine dies: its keeper, its postmaster and every backend at
// once, with SIGKILL, so nothing is shut down cleanly and no one is told. Killing the
// postmaster alone would test less, since its keeper would restart it in place. It
// returns once the node's port refuses connections.
func (f *Formation) Kill(i int) {
	f.t.Helper()
	n := f.nodes[i]
	if err := syscall.Kill(-n.keeper.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		f.t.Fatalf("pgfailover: kill %s: %v", n.name, err)
	}
	<-n.keeper.done
	n.keeper = nil
	err := f.poll(context.Background(), n.name+" to stop answering", func() (bool, error) {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)), time.Second)
		if err != nil {
			return true, nil
		}
		conn.Close()
		return false, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// State returns node i's state as the monitor has it: "reported/assigned", such as
// "primary/primary" or "catchingup/secondary".
func (f *Formation) State(i int) string {
	f.t.Helper()
	got, err := f.states(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return got[f.nodes[i].name]
}

// WaitPromoted waits until the monitor has promoted the node other than old and it
// accepts writes, and returns it.
func (f *Formation) WaitPromoted(old int) int {
	f.t.Helper()
	ctx := context.Background()
	other := f.nodes[1-old]
	err := f.poll(ctx, other.name+" to be promoted", func() (bool, error) {
		got, err := f.states(ctx)
		if err != nil {
			return false, err
		}
		return got[other.name] == "wait_primary/wait_primary" || got[other.name] == "primary/primary", nil
	})
	if err != nil {
		f.t.Fatalf("pgfailover: %v%s", err, f.logs())
	}
	return 1 - old
}

// Rejoin starts the keeper of node i, which was killed, again; it rewinds the node (or
// copies it afresh when it cannot) to follow the new primary. It returns once the node
// is the primary's synchronous standby again.
func (f *Formation) Rejoin(i int) {
	f.t.Helper()
	f.Restart(i)
	f.WaitPair(1 - i)
}

// Restart starts the keeper of node i, which was killed, and returns at once; the
// monitor decides what the node becomes.
func (f *Formation) Restart(i int) {
	f.t.Helper()
	if f.nodes[i].keeper != nil {
		f.t.Fatalf("pgfailover: %s is running", f.nodes[i].name)
	}
	f.startKeeper(i)
}

// WaitPair waits until node primary is the primary and the other its synchronous
// standby.
func (f *Formation) WaitPair(primary int) {
	f.t.Helper()
	if err := f.waitPair(context.Background(), primary); err != nil {
		f.t.Fatalf("pgfailover: %v%s", err, f.logs())
	}
}

// Down stops both nodes, as when the whole site is lost: each keeper shuts its server
// down fast (every session is cut), the standby's first, so the monitor has no node to
// promote. Up brings them back.
func (f *Formation) Down() {
	f.t.Helper()
	f.downPrimary = f.Primary()
	for _, i := range []int{1 - f.downPrimary, f.downPrimary} {
		f.nodes[i].keeper.stop()
		f.nodes[i].keeper = nil
	}
	f.downAt = time.Now()
}

// Up starts the keepers Down stopped, the primary's first, and returns once one node
// is the primary and the other its synchronous standby. Either may be the primary: a
// standby that reports before the old primary does may be promoted, as on any loss of
// the primary, so Up returns which it is.
func (f *Formation) Up() int {
	f.t.Helper()
	for _, i := range []int{f.downPrimary, 1 - f.downPrimary} {
		f.startKeeper(i)
	}
	return f.WaitAnyPair(f.downAt)
}

// WaitAnyPair returns once one node is the primary and the other its synchronous
// standby, as the nodes reported since a moment (until they report again, the monitor
// shows the pair as it stood before), and returns which is the primary. Either may be:
// a standby that has caught up may be promoted while the old primary comes back, as on
// any loss of the primary.
func (f *Formation) WaitAnyPair(since time.Time) int {
	f.t.Helper()
	ctx := context.Background()
	primary := -1
	err := f.poll(ctx, "a primary and its standby", func() (bool, error) {
		got, err := f.statesSince(ctx, since)
		if err != nil {
			return false, err
		}
		for i, n := range f.nodes {
			if got[n.name] == "primary/primary" && got[f.nodes[1-i].name] == "secondary/secondary" {
				primary = i
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		f.t.Fatalf("pgfailover: %v%s", err, f.logs())
	}
	f.WaitPair(primary)
	return primary
}

// startKeeper runs the keeper of node i, which is down, on its existing folder.
func (f *Formation) startKeeper(i int) {
	n := f.nodes[i]
	var err error
	if n.keeper, err = f.run(n.name, "run", "--pgdata", n.pgdata); err != nil {
		f.t.Fatal(err)
	}
}

// stop ends the keepers (which stop their servers fast), then the monitor, and removes
// the folder.
func (f *Formation) stop() {
	if f.monitorC != nil {
		_ = f.monitorC.Close(context.Background())
	}
	if f.t.Failed() {
		f.t.Log(strings.TrimPrefix(f.logs(), "\n"))
	}
	for _, n := range f.nodes {
		if n != nil {
			n.keeper.stop()
		}
	}
	f.monitor.stop()
	_ = os.RemoveAll(f.root)
}

// stop asks pg_autoctl for a fast shutdown (SIGINT) and kills its group if that takes
// over 30 seconds.
func (p *process) stop() {
	if p == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// logs returns the end of each pg_autoctl's output, for a failure's message.
func (f *Formation) logs() string {
	var b strings.Builder
	names, _ := filepath.Glob(filepath.Join(f.root, "*.log"))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "\n--- %s (end):\n%s", filepath.Base(name), data)
	}
	return b.String()
}
