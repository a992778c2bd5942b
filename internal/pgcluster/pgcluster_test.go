package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// fast trades durability for speed; a test cluster is thrown away.
var fast = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}

// clusterDir returns a not yet existing data folder under t.TempDir. The testing
// package makes the per-test parent 0700, which the server's user cannot enter when
// the tests run as root.
func clusterDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	for _, dir := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(base, "cluster")
}

// start starts a cluster and stops it when the test ends, before its folder is removed.
func start(t *testing.T, opts Options) *Cluster {
	t.Helper()
	if opts.Settings == nil {
		opts.Settings = fast
	}
	began := time.Now()
	c, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("started %s on port %d in %s", opts.Dir, c.Port(), time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// query runs sql on the cluster's postgres database and returns the first column of its
// first row, or "" for a statement without rows.
func query(t *testing.T, c *Cluster, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out string
	if err := conn.QueryRow(ctx, sql).Scan(&out); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// syncBuffer is a Log writer the test can read while the server writes to it.
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

func TestStartQueryStopRestart(t *testing.T) {
	t.Parallel()
	dir := clusterDir(t)
	// What an initdb killed mid-way leaves behind must not get in the way.
	if err := os.MkdirAll(filepath.Join(dir, "pgdata.initdb", "base"), 0o755); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	c := start(t, Options{Dir: dir, Log: &log})

	query(t, c, `CREATE TABLE kept (v text)`)
	query(t, c, `INSERT INTO kept VALUES ('hello')`)
	if got := query(t, c, `SELECT v FROM kept`); got != "hello" {
		t.Fatalf("select: %q", got)
	}
	if got := query(t, c, `SELECT current_user::text`); got != Superuser {
		t.Fatalf("current_user %q", got)
	}
	if got := query(t, c, `SELECT current_setting('fsync')`); got != "off" {
		t.Fatalf("Settings not applied: fsync=%s", got)
	}
	if !strings.Contains(log.String(), "ready to accept connections") {
		t.Fatalf("Log did not get the server output: %q", log.String())
	}
	if pgid, _ := syscall.Getpgid(c.cmd.Process.Pid); pgid == syscall.Getpgrp() {
		t.Fatal("the server shares our process group, so a terminal's Ctrl-C would reach it")
	}
	info, err := os.Stat(filepath.Join(dir, "pgdata"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o700 {
		t.Fatalf("pgdata mode %v", info.Mode().Perm())
	}
	if os.Geteuid() == 0 {
		owner, err := serverUser()
		if err != nil {
			t.Fatal(err)
		}
		if uid := info.Sys().(*syscall.Stat_t).Uid; uid != owner.uid {
			t.Fatalf("pgdata owned by uid %d, want %s (%d)", uid, owner.name, owner.uid)
		}
		t.Logf("as root, the server runs as %s", owner.name)
	}

	if _, err := Start(context.Background(), Options{Dir: dir, Settings: fast}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second server on a running cluster: %v", err)
	}

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := pgx.Connect(context.Background(), c.URL("postgres")); err == nil {
		t.Fatal("connected after Stop")
	}

	c = start(t, Options{Dir: dir})
	if got := query(t, c, `SELECT v FROM kept`); got != "hello" {
		t.Fatalf("after restart: %q", got)
	}
}

func TestStalePidFile(t *testing.T) {
	t.Parallel()
	dir := clusterDir(t)
	// synchronous_commit stays on: with it off, a crash loses the last commits, which
	// is PostgreSQL working as documented rather than anything of ours.
	crashSafe := map[string]string{"fsync": "off"}
	c := start(t, Options{Dir: dir, Settings: crashSafe})
	query(t, c, `CREATE TABLE kept AS SELECT 'crash'::text AS v`)

	// A real crash: the pid file stays behind, naming a dead process.
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err == nil {
		t.Fatal("Stop of a crashed server reported no error")
	}
	pidFile := filepath.Join(dir, "pgdata", "postmaster.pid")
	if _, err := os.Stat(pidFile); err != nil {
		t.Fatalf("the crash left no pid file to test with: %v", err)
	}
	c = start(t, Options{Dir: dir, Settings: crashSafe})
	if got := query(t, c, `SELECT v FROM kept`); got != "crash" {
		t.Fatalf("after a crash: %q", got)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	// A crashed server leaves its pid file behind; take the pid of a process that has
	// surely exited.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(gone.Process.Pid)+"\n"+filepath.Join(dir, "pgdata")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = start(t, Options{Dir: dir})
	if got := query(t, c, `SELECT v FROM kept`); got != "crash" {
		t.Fatalf("after a stale pid file: %q", got)
	}
}

func TestTwoClustersAtOnce(t *testing.T) {
	t.Parallel()
	dirs := []string{clusterDir(t), clusterDir(t)}
	clusters := make([]*Cluster, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Go(func() { clusters[i], errs[i] = Start(context.Background(), Options{Dir: dir, Settings: fast}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = clusters[i].Stop() })
	}
	a, b := clusters[0], clusters[1]
	if a.Port() == b.Port() {
		t.Fatalf("both clusters on port %d", a.Port())
	}
	query(t, a, `CREATE TABLE only_in_a AS SELECT 'a'::text AS v`)
	if got := query(t, a, `SELECT v FROM only_in_a`); got != "a" {
		t.Fatalf("cluster a: %q", got)
	}
	if got := query(t, b, `SELECT coalesce(to_regclass('only_in_a')::text, '')`); got != "" {
		t.Fatalf("cluster b sees a's table: %q", got)
	}
}

func TestFixedPort(t *testing.T) {
	t.Parallel()
	dir := clusterDir(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	_, err = Start(context.Background(), Options{Dir: dir, Port: port, Settings: fast})
	if err == nil || !strings.Contains(err.Error(), "Address already in use") {
		t.Fatalf("start on a taken port: %v", err)
	}
	// Start picks another port when a free one it picked is taken first; that rests
	// on launch telling this failure apart.
	bin, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	owner, err := serverUser()
	if err != nil {
		t.Fatal(err)
	}
	if _, portTaken, err := launch(context.Background(), bin, filepath.Join(dir, "pgdata"), port, owner, fast, io.Discard); err == nil || !portTaken {
		t.Fatalf("launch on a taken port: portTaken %v, %v", portTaken, err)
	}
	taken.Close()
	c := start(t, Options{Dir: dir, Port: port})
	if c.Port() != port || !strings.Contains(c.URL("x"), ":"+strconv.Itoa(port)+"/x?") {
		t.Fatalf("port %d, URL %s; want port %d", c.Port(), c.URL("x"), port)
	}
	query(t, c, `SELECT 1`)
}

// A cancelled start leaves no half-made cluster that a later Start would trust.
func TestCancelledStart(t *testing.T) {
	t.Parallel()
	dir := clusterDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Start(ctx, Options{Dir: dir, Settings: fast}); !errors.Is(err, context.Canceled) {
		t.Fatalf("start with a cancelled context: %v", err)
	}
	for _, name := range []string{"pgdata", "pgdata.initdb"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left behind: %v", name, err)
		}
	}
}

func TestRootNeedsTraversableParents(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the server to another user")
	}
	t.Parallel()
	private := filepath.Join(t.TempDir(), "private") // like root's home
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(private, "data", "cluster")
	for _, err := range []error{Reachable(dir), func() error {
		_, err := Start(context.Background(), Options{Dir: dir})
		return err
	}()} {
		if err == nil || !strings.Contains(err.Error(), "cannot enter "+private) || !strings.Contains(err.Error(), "elsewhere") {
			t.Fatalf("want an error naming %s: %v", private, err)
		}
	}
	if err := Reachable(clusterDir(t)); err != nil {
		t.Fatal(err)
	}
}

func TestStartNeedsDir(t *testing.T) {
	if _, err := Start(context.Background(), Options{}); err == nil {
		t.Fatal("started without a Dir")
	}
}

func TestBinDir(t *testing.T) {
	dir, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	if !hasServer(dir) {
		t.Fatalf("BinDir %s lacks the server", dir)
	}
	t.Logf("BinDir: %s", dir)

	t.Setenv("FINLEDGER_PG_BINDIR", dir)
	if got, err := BinDir(); err != nil || got != dir {
		t.Fatalf("FINLEDGER_PG_BINDIR=%s: %s, %v", dir, got, err)
	}
	t.Setenv("FINLEDGER_PG_BINDIR", t.TempDir())
	if _, err := BinDir(); err == nil {
		t.Fatal("an empty FINLEDGER_PG_BINDIR was accepted")
	}
}

func fakeServer(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNewestVersionWins(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "10"} {
		fakeServer(t, filepath.Join(root, v, "bin"))
	}
	if err := os.MkdirAll(filepath.Join(root, "17", "bin"), 0o755); err != nil { // no binaries
		t.Fatal(err)
	}
	if got, want := newest(filepath.Join(root, "*", "bin")), filepath.Join(root, "15", "bin"); got != want {
		t.Fatalf("newest: %s, want %s", got, want)
	}
}

// initdb on PATH is often a symlink into the real folder; the real folder is the one
// holding postgres too.
func TestBinDirOnPathResolvesSymlinks(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "pg", "bin")
	fakeServer(t, real)
	onPath := filepath.Join(root, "local", "bin")
	if err := os.MkdirAll(onPath, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "initdb"), filepath.Join(onPath, "initdb")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", onPath)
	if got, err := binDirOnPath(); err != nil || got != real {
		t.Fatalf("binDirOnPath: %s, %v; want %s", got, err, real)
	}
}

func TestServerUser(t *testing.T) {
	owner, err := serverUser()
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if owner != nil {
			t.Fatalf("not root, yet the server would run as %s", owner.name)
		}
		return
	}
	want := "postgres"
	if _, err := user.Lookup("postgres"); err != nil {
		want = "nobody"
	}
	if owner == nil || owner.name != want || owner.uid == 0 {
		t.Fatalf("server user %+v, want %s", owner, want)
	}
}
