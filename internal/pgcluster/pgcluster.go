// Package pgcluster starts a private PostgreSQL cluster from the PostgreSQL binaries
// installed on the machine, for the development server and the test harnesses: a fresh
// machine has the binaries but no server we may rely on.
package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure a cluster.
type Options struct {
	Dir      string            // data folder; the cluster lives in Dir/pgdata. Required.
	Port     int               // TCP port on 127.0.0.1; 0 picks a free one
	Settings map[string]string // extra server settings, e.g. "fsync": "off"
	Log      io.Writer         // server output; nil discards it (the tail is kept for errors)
}

// Cluster is a running private PostgreSQL server.
type Cluster struct {
	port     int
	cmd      *exec.Cmd
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
	stopErr  error
	output   *tail
}

// Superuser is the role initdb creates.
const Superuser = "finledger"

// BinDir returns the folder holding initdb and postgres: FINLEDGER_PG_BINDIR, else what
// pg_config reports, else the newest /usr/lib/postgresql/*/bin, else initdb's folder on
// PATH.
func BinDir() (string, error) {
	if dir := os.Getenv("FINLEDGER_PG_BINDIR"); dir != "" {
		if hasServer(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("pgcluster: FINLEDGER_PG_BINDIR=%s lacks initdb or postgres", dir)
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); hasServer(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, dir := range dirs {
		if hasServer(dir) {
			return dir, nil
		}
	}
	if path, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil && hasServer(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
		if hasServer(filepath.Dir(path)) {
			return filepath.Dir(path), nil
		}
	}
	return "", errors.New("pgcluster: PostgreSQL server binaries (initdb, postgres) not found; install PostgreSQL or set FINLEDGER_PG_BINDIR")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func hasServer(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.IsDir() {
			return false
		}
	}
	return true
}

// Start initialises the cluster if Dir holds none and starts its server.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.Dir == "" {
		return nil, errors.New("pgcluster: Options.Dir is required")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pgcluster: create %s: %w", dir, err)
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	pgdata := filepath.Join(dir, "pgdata")
	sockets := filepath.Join(dir, "sockets")
	if err := os.MkdirAll(sockets, 0o755); err != nil {
		return nil, fmt.Errorf("pgcluster: create %s: %w", sockets, err)
	}
	if cred != nil {
		if err := checkTraversable(dir, cred); err != nil {
			return nil, err
		}
		if err := chownTree(dir, cred); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(pgdata, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := initdb(ctx, bin, pgdata, cred); err != nil {
			return nil, err
		}
	}
	if err := clearStalePid(pgdata); err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				return nil, err
			}
		}
		c, err := launch(ctx, bin, pgdata, sockets, port, cred, opts)
		if err == nil {
			return c, nil
		}
		lastErr = err
		if opts.Port != 0 || !strings.Contains(err.Error(), "already in use") {
			break
		}
	}
	return nil, lastErr
}

// Reachable reports why the server could not use a cluster in dir: when this process
// runs as root, the server runs as another user, who must be able to enter every parent
// folder of dir.
func Reachable(dir string) error {
	cred, err := serverUser()
	if err != nil || cred == nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	return checkTraversable(abs, cred)
}

// serverUser returns the credentials to run the server with: PostgreSQL refuses to run
// as root, so root hands it to the "postgres" user, or "nobody".
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 == nil && err2 == nil {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
		}
	}
	return nil, errors.New("pgcluster: running as root, and neither a postgres nor a nobody user exists to run PostgreSQL")
}

// checkTraversable makes sure the server's user can reach dir through its parents.
func checkTraversable(dir string, cred *syscall.Credential) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // created later with a traversable mode
		}
		if err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		mode := info.Mode().Perm()
		reachable := mode&0o001 != 0 || (ok && st.Uid == cred.Uid && mode&0o100 != 0) || (ok && st.Gid == cred.Gid && mode&0o010 != 0)
		if !reachable {
			return fmt.Errorf("pgcluster: PostgreSQL runs as uid %d, which cannot enter %s; choose a data folder elsewhere (e.g. under /tmp)", cred.Uid, p)
		}
		if p == "/" || p == filepath.Dir(p) {
			return nil
		}
	}
}

func chownTree(dir string, cred *syscall.Credential) error {
	return filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("pgcluster: chown %s: %w", path, err)
		}
		return nil
	})
}

func command(ctx context.Context, bin, name string, cred *syscall.Credential, home string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	// Its own process group: a Ctrl-C meant for the parent must not kill the server
	// before the parent stops it cleanly.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	cmd.Env = append(os.Environ(), "HOME="+home, "LC_ALL=C")
	return cmd
}

func initdb(ctx context.Context, bin, pgdata string, cred *syscall.Credential) error {
	out, err := command(ctx, bin, "initdb", cred, filepath.Dir(pgdata),
		"-D", pgdata, "-U", Superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgcluster: initdb: %w: %s", err, lastBytes(out, 4096))
	}
	return nil
}

// clearStalePid removes the pid file of a server that is gone, and refuses to start a
// second server on a cluster that is running.
func clearStalePid(pgdata string) error {
	pidFile := filepath.Join(pgdata, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgcluster: read %s: %w", pidFile, err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err == nil && pid > 0 && processAlive(pid) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.Contains(string(comm), "postgres") {
			return fmt.Errorf("pgcluster: a server (pid %d) is already running on %s", pid, pgdata)
		}
	}
	if err := os.Remove(pidFile); err != nil {
		return fmt.Errorf("pgcluster: remove stale %s: %w", pidFile, err)
	}
	return nil
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgcluster: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func launch(ctx context.Context, bin, pgdata, sockets string, port int, cred *syscall.Credential, opts Options) (*Cluster, error) {
	settings := map[string]string{
		"listen_addresses":        "127.0.0.1",
		"unix_socket_directories": sockets,
		"shared_buffers":          "128MB",
		"max_connections":         "200",
	}
	for k, v := range opts.Settings {
		settings[k] = v
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := []string{"-D", pgdata, "-p", strconv.Itoa(port)}
	for _, k := range keys {
		args = append(args, "-c", k+"="+settings[k])
	}
	// The server outlives Start's context; only Stop ends it.
	cmd := command(context.WithoutCancel(ctx), bin, "postgres", cred, filepath.Dir(pgdata), args...)
	out := &tail{limit: 4096, w: opts.Log}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgcluster: start postgres: %w", err)
	}
	c := &Cluster{port: port, cmd: cmd, done: make(chan struct{}), output: out}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.done)
	}()
	if err := c.waitReady(ctx, 60*time.Second); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// waitReady polls until the server accepts TCP connections and answers as ready.
func (c *Cluster) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-c.done:
			return fmt.Errorf("pgcluster: postgres exited during start-up (%v): %s", c.waitErr, c.output.String())
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)), time.Second)
		if err == nil {
			conn.Close()
			if strings.Contains(c.output.String(), "ready to accept connections") {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgcluster: postgres not ready after %s: %s", limit, c.output.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// URL returns the connection URL of a database of the cluster.
func (c *Cluster) URL(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, c.port, database)
}

// Port returns the server's TCP port.
func (c *Cluster) Port() int { return c.port }

// Stop shuts the server down (fast shutdown: open sessions are ended) and waits for it.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		select {
		case <-c.done:
			return
		default:
		}
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.done:
		case <-time.After(30 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
			c.stopErr = errors.New("pgcluster: postgres did not stop within 30s and was killed")
		}
	})
	return c.stopErr
}

// tail forwards output and keeps its last bytes for error messages.
type tail struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	w     io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = lastBytes(append(t.buf, p...), t.limit)
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}

func lastBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append([]byte(nil), b[len(b)-n:]...)
}
