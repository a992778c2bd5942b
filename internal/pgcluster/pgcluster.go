// Package pgcluster owns private PostgreSQL clusters started from the PostgreSQL binaries
// installed on the machine: their data folder, their server process and its shutdown. The
// development server and the test harnesses use it because a fresh machine has the
// binaries but no running server we may rely on.
package pgcluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure a cluster for Start.
type Options struct {
	Dir      string            // data folder; the cluster lives in Dir/pgdata (created if missing). Required.
	Port     int               // TCP port on 127.0.0.1; 0 picks a free port
	Settings map[string]string // extra postgres -c settings, e.g. "fsync": "off"; they override the defaults
	Log      io.Writer         // where initdb and server output goes; nil discards it (the tail is kept for errors)
}

// Cluster is a running private PostgreSQL server; Stop it when done.
type Cluster struct {
	port     int
	pgdata   string
	cmd      *exec.Cmd
	output   *tail
	done     chan struct{} // closed once the server process has exited
	waitErr  error         // the server's exit status, valid once done is closed
	stopOnce sync.Once
	stopErr  error
}

// Superuser is the role initdb creates and URL connects as; a cluster's trust
// authentication lets it in from this machine without a password.
const Superuser = "finledger"

const (
	// tailSize bounds the output kept for error messages.
	tailSize = 4096
	// readyTimeout bounds how long a server may take to accept connections.
	readyTimeout = 60 * time.Second
	// stopTimeout bounds a fast shutdown: the checkpoint of a busy cluster can be slow,
	// but a hung one must not hang the caller forever.
	stopTimeout = 60 * time.Second
	// portAttempts is how often Start tries again when a picked free port is taken
	// before the server binds it.
	portAttempts = 5
)

// BinDir returns the folder holding the PostgreSQL server binaries (initdb, postgres,
// pg_ctl).
func BinDir() (string, error) {
	if dir := os.Getenv("FINLEDGER_PG_BINDIR"); dir != "" {
		if hasServer(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("pgcluster: FINLEDGER_PG_BINDIR=%s does not hold initdb and postgres", dir)
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); hasServer(dir) {
			return dir, nil
		}
	}
	// Debian and Ubuntu keep the server binaries off PATH, one folder per major version.
	if dir := newest("/usr/lib/postgresql/*/bin"); dir != "" {
		return dir, nil
	}
	if dir, err := binDirOnPath(); dir != "" || err != nil {
		return dir, err
	}
	// Last resorts: versioned installs that are neither on PATH nor known to a
	// pg_config on PATH (RHEL's PGDG packages, Homebrew's keg-only postgresql@N).
	for _, pattern := range []string{"/usr/pgsql-*/bin", "/opt/homebrew/opt/postgresql@*/bin", "/usr/local/opt/postgresql@*/bin"} {
		if dir := newest(pattern); dir != "" {
			return dir, nil
		}
	}
	return "", errors.New("pgcluster: PostgreSQL server binaries (initdb, postgres) not found via FINLEDGER_PG_BINDIR, pg_config, /usr/lib/postgresql/*/bin or PATH; install the PostgreSQL server or set FINLEDGER_PG_BINDIR")
}

// binDirOnPath finds initdb on PATH. A PATH entry is often a symlink or a wrapper
// script, and initdb needs the real postgres of its own version next to it, so the
// candidates are tried resolved first and the first holding both wins.
func binDirOnPath() (string, error) {
	var candidates []string
	for _, name := range []string{"initdb", "postgres"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			candidates = append(candidates, filepath.Dir(real))
		}
		candidates = append(candidates, filepath.Dir(path))
	}
	for _, dir := range candidates {
		if hasServer(dir) {
			return dir, nil
		}
	}
	if len(candidates) > 0 {
		return "", fmt.Errorf("pgcluster: initdb or postgres found on PATH (in %s) but no folder holds both; set FINLEDGER_PG_BINDIR", strings.Join(slices.Compact(candidates), ", "))
	}
	return "", nil
}

// newest returns the folder matched by pattern with the highest version number that
// holds the server binaries, or "".
func newest(pattern string) string {
	dirs, _ := filepath.Glob(pattern)
	version := func(dir string) []int {
		name := filepath.Base(filepath.Dir(dir))
		name = name[strings.LastIndexAny(name, "-@")+1:]
		var v []int
		for _, part := range strings.Split(name, ".") {
			n, _ := strconv.Atoi(part)
			v = append(v, n)
		}
		return v
	}
	slices.SortFunc(dirs, func(a, b string) int { return slices.Compare(version(b), version(a)) })
	for _, dir := range dirs {
		if hasServer(dir) {
			return dir
		}
	}
	return ""
}

func hasServer(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// Start initialises a cluster in opts.Dir unless one is there and starts its server,
// returning once it accepts connections. The server runs in its own process group, so
// a Ctrl-C to the caller's terminal does not reach it: the caller must Stop it.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.Dir == "" {
		return nil, errors.New("pgcluster: Options.Dir is required")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: data folder: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return nil, fmt.Errorf("pgcluster: %s is itself a PostgreSQL data directory; Options.Dir must be the folder that holds the cluster in its pgdata subfolder", dir)
	}
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	owner, err := serverUser()
	if err != nil {
		return nil, err
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	pgdata, err := initialise(ctx, bin, dir, owner, logw)
	if err != nil {
		return nil, err
	}
	if err := clearStalePid(pgdata); err != nil {
		return nil, err
	}
	var lastErr error
	for range portAttempts {
		port := opts.Port
		if port == 0 {
			if port, err = FreePort(); err != nil {
				return nil, err
			}
		}
		c, portTaken, err := launch(ctx, bin, pgdata, port, owner, opts.Settings, logw)
		if err == nil {
			return c, nil
		}
		lastErr = err
		if !portTaken || opts.Port != 0 {
			break
		}
	}
	return nil, lastErr
}

// Initialise makes the cluster of dir, in dir/pgdata, unless it is there, without
// starting a server on it, and returns the path of pgdata: for a server that another
// program starts, such as a replication manager. log gets initdb's output; nil
// discards it.
func Initialise(ctx context.Context, dir string, log io.Writer) (pgdata string, err error) {
	if dir, err = filepath.Abs(dir); err != nil {
		return "", fmt.Errorf("pgcluster: data folder: %w", err)
	}
	bin, err := BinDir()
	if err != nil {
		return "", err
	}
	owner, err := serverUser()
	if err != nil {
		return "", err
	}
	if log == nil {
		log = io.Discard
	}
	return initialise(ctx, bin, dir, owner, log)
}

func initialise(ctx context.Context, bin, dir string, owner *account, logw io.Writer) (string, error) {
	if err := makeDir(dir, owner); err != nil {
		return "", err
	}
	pgdata := filepath.Join(dir, "pgdata")
	if err := ensureInitialised(ctx, bin, dir, pgdata, owner, logw); err != nil {
		return "", err
	}
	return pgdata, nil
}

// MakeDir creates dir unless it exists and, when this process runs as root, hands it
// to the user the server runs as, after checking that user can reach it.
func MakeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pgcluster: create data folder: %w", err)
	}
	return Hand(dir)
}

func makeDir(dir string, owner *account) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pgcluster: create data folder: %w", err)
	}
	if owner == nil {
		return nil
	}
	if err := checkTraversable(dir, owner); err != nil {
		return err
	}
	return chownTree(dir, owner)
}

// Command prepares program to run as the server does: as the unprivileged server user
// when this process runs as root, in its own process group (so signals to it reach its
// children, and a Ctrl-C to the caller does not), in dir, which is also its HOME, with
// LC_ALL=C.
func Command(program, dir string, args ...string) (*exec.Cmd, error) {
	owner, err := serverUser()
	if err != nil {
		return nil, err
	}
	return command(program, dir, owner, args...), nil
}

// Reachable reports whether a cluster could live in dir: when this process runs as
// root the server runs as an unprivileged user, who must be able to enter every
// existing parent folder of dir. It returns nil when not running as root.
func Reachable(dir string) error {
	owner, err := serverUser()
	if err != nil || owner == nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: data folder: %w", err)
	}
	return checkTraversable(abs, owner)
}

// Hand gives dir (or a file) and everything under it to the user the server runs as, so
// that the server, or a program run by Command, may write there; it does nothing unless
// we are root.
func Hand(dir string) error {
	owner, err := serverUser()
	if err != nil || owner == nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := checkTraversable(abs, owner); err != nil {
		return err
	}
	return chownTree(abs, owner)
}

// account is the unprivileged user the server runs as when we are root.
type account struct {
	name     string
	uid, gid uint32
}

// serverUser returns who runs initdb and postgres: nil for ourselves, or, as root
// (which both refuse to run as), the "postgres" user if there is one, else "nobody".
func serverUser() (*account, error) {
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
		if err1 == nil && err2 == nil && uid != 0 {
			return &account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
		}
	}
	return nil, errors.New("pgcluster: running as root, which PostgreSQL refuses, and neither a postgres nor a nobody user exists to run it as")
}

// checkTraversable makes sure owner can reach dir through its existing parents; folders
// still to be created get a traversable mode from MkdirAll.
func checkTraversable(dir string, owner *account) error {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // the permissions that count are those along the real path
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("pgcluster: check access to %s: %w", p, err)
		case !canEnter(info, owner):
			return fmt.Errorf("pgcluster: PostgreSQL refuses to run as root, so it runs as user %s (uid %d), who cannot enter %s; choose a data folder elsewhere (e.g. under /var/tmp) or make %s traversable (chmod o+x)",
				owner.name, owner.uid, p, p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// canEnter applies the kernel's rule: the owner bits decide for the owner, the group
// bits for the group (the server runs without supplementary groups), else the others
// bits.
func canEnter(info fs.FileInfo, owner *account) bool {
	perm := info.Mode().Perm()
	st, ok := info.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return perm&0o001 != 0
	case st.Uid == owner.uid:
		return perm&0o100 != 0
	case st.Gid == owner.gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// chownTree hands dir to owner. Entries it already owns are left alone so a restart of
// a large cluster does not rewrite every inode.
func chownTree(dir string, owner *account) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("pgcluster: chown %s: %w", path, err)
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("pgcluster: chown %s: %w", path, err)
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == owner.uid && st.Gid == owner.gid {
			return nil
		}
		if err := os.Lchown(path, int(owner.uid), int(owner.gid)); err != nil {
			return fmt.Errorf("pgcluster: chown %s to %s: %w", path, owner.name, err)
		}
		return nil
	})
}

// command prepares program to run as owner in its own process group.
func command(program, dir string, owner *account, args ...string) *exec.Cmd {
	cmd := exec.Command(program, args...)
	// Its own process group: a Ctrl-C meant for the caller must not kill the server
	// before the caller stops it cleanly.
	attr := &syscall.SysProcAttr{Setpgid: true}
	if owner != nil {
		attr.Credential = &syscall.Credential{Uid: owner.uid, Gid: owner.gid}
	}
	cmd.SysProcAttr = attr
	// The caller's working directory (say /root) may be closed to the server's user.
	cmd.Dir = dir
	// LC_ALL=C keeps server messages in English, which launch matches on; HOME points
	// at a folder the server's user owns rather than the caller's.
	cmd.Env = append(os.Environ(), "HOME="+dir, "LC_ALL=C")
	return cmd
}

// ensureInitialised creates the cluster in pgdata unless it holds one. initdb writes
// PG_VERSION long before it finishes, so it works in a scratch folder that is renamed
// into place only on success: an interrupted initdb never leaves a half-made cluster
// that a later Start would take for a real one.
func ensureInitialised(ctx context.Context, bin, dir, pgdata string, owner *account, logw io.Writer) error {
	if _, err := os.Stat(filepath.Join(pgdata, "PG_VERSION")); err == nil {
		// initdb makes it 0700 and the server refuses looser modes, which a copy or an
		// archive restore can leave behind.
		if info, err := os.Stat(pgdata); err == nil && info.Mode().Perm()&0o027 != 0 {
			if err := os.Chmod(pgdata, 0o700); err != nil {
				return fmt.Errorf("pgcluster: chmod %s: %w", pgdata, err)
			}
		}
		return nil
	}
	// An empty pgdata (made by hand, say) is fine to replace; anything else may be
	// someone's data.
	if info, err := os.Lstat(pgdata); err == nil {
		if !info.IsDir() || os.Remove(pgdata) != nil {
			return fmt.Errorf("pgcluster: %s exists but holds no PostgreSQL cluster (no PG_VERSION); move it away", pgdata)
		}
	}
	scratch := pgdata + ".initdb"
	if err := os.RemoveAll(scratch); err != nil {
		return fmt.Errorf("pgcluster: remove leftover %s: %w", scratch, err)
	}
	cmd := command(filepath.Join(bin, "initdb"), dir, owner,
		"-D", scratch, "-U", Superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
	out := &tail{limit: tailSize, w: logw}
	cmd.Stdout, cmd.Stderr = out, out
	if err := runContext(ctx, cmd); err != nil {
		_ = os.RemoveAll(scratch)
		return fmt.Errorf("pgcluster: initdb: %w; output:\n%s", err, out)
	}
	if err := os.Rename(scratch, pgdata); err != nil {
		_ = os.RemoveAll(scratch)
		return fmt.Errorf("pgcluster: initdb: move cluster into place: %w", err)
	}
	return nil
}

// runContext runs cmd, killing its whole process group if ctx ends: initdb runs the
// server in bootstrap mode as a child, which would outlive initdb alone.
func runContext(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	err := cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// clearStalePid removes the pid file a crashed server left behind, and refuses to start
// a second server on a running cluster. The server would refuse too if the dead pid
// has since been reused by another live process, hence the removal; orphaned backends
// of the dead server are still caught by the server's own shared-memory interlock.
func clearStalePid(pgdata string) error {
	pidFile := filepath.Join(pgdata, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgcluster: read %s: %w", pidFile, err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if pid < 0 {
		pid = -pid // a single-user backend records its pid negated
	}
	if err == nil && pid > 0 && isServerOf(pid, pgdata) {
		return fmt.Errorf("pgcluster: a PostgreSQL server (pid %d) is already running on %s; stop it (kill -INT %d) or, if it is not, remove %s", pid, pgdata, pid, pidFile)
	}
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pgcluster: remove stale %s: %w", pidFile, err)
	}
	return nil
}

// isServerOf reports whether pid is alive and may be the postmaster of pgdata. A
// postmaster works in its data directory, which /proc tells exactly; without /proc
// the process name decides, and if even that is unknown the answer errs towards
// "running", since a second server on a live cluster corrupts it.
func isServerOf(pid int, pgdata string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil {
		real, err := filepath.EvalSymlinks(pgdata)
		if err != nil {
			real = pgdata
		}
		return cwd == real || cwd == pgdata
	}
	var name string
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		name = string(comm)
	} else if out, err := exec.Command("ps", "-o", "comm=", "-p", strconv.Itoa(pid)).Output(); err == nil {
		name = filepath.Base(strings.TrimSpace(string(out)))
	} else {
		return true
	}
	return strings.Contains(name, "postgres") || strings.Contains(name, "postmaster")
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgcluster: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// launch starts the server on port and waits until it accepts connections. portTaken
// reports a failure because another process holds the port.
func launch(ctx context.Context, bin, pgdata string, port int, owner *account, extra map[string]string, logw io.Writer) (c *Cluster, portTaken bool, err error) {
	settings := map[string]string{
		"listen_addresses": "127.0.0.1",
		// No Unix sockets: clients use the TCP URL, and a socket path inside a deep
		// data folder can pass the 107-byte limit, which is fatal to the server.
		"unix_socket_directories": "",
		"shared_buffers":          "128MB",
		"max_connections":         "200",
	}
	maps.Copy(settings, extra)
	args := []string{"-D", pgdata, "-p", strconv.Itoa(port)}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		args = append(args, "-c", k+"="+settings[k])
	}
	cmd := command(filepath.Join(bin, "postgres"), filepath.Dir(pgdata), owner, args...)
	out := &tail{limit: tailSize, w: logw}
	cmd.Stdout, cmd.Stderr = out, out
	// Backends inherit the output pipe; should the postmaster be killed they may hold
	// it open a while, and Wait must not wait for them.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("pgcluster: start postgres: %w", err)
	}
	c = &Cluster{port: port, pgdata: pgdata, cmd: cmd, output: out, done: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.done)
	}()
	if err := c.waitReady(ctx); err != nil {
		_ = c.Stop()
		return nil, strings.Contains(out.String(), "Address already in use"), err
	}
	return c, false, nil
}

// waitReady polls until the server completes a session start-up, failing early with
// the server's output if it exits.
func (c *Cluster) waitReady(ctx context.Context) error {
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port))
	for {
		// The pid file check makes sure it is our server that answers, not another one
		// that took the port first.
		if c.ownsPidFile() && acceptsSession(ctx, addr, c.done) {
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("pgcluster: start postgres: exited during start-up (%v); server output:\n%s", c.waitErr, c.output)
		case <-ctx.Done():
			return fmt.Errorf("pgcluster: start postgres: %w; server output:\n%s", ctx.Err(), c.output)
		case <-deadline.C:
			return fmt.Errorf("pgcluster: start postgres: not accepting connections after %s; server output:\n%s", readyTimeout, c.output)
		case <-tick.C:
		}
	}
}

func (c *Cluster) ownsPidFile() bool {
	data, err := os.ReadFile(filepath.Join(c.pgdata, "postmaster.pid"))
	if err != nil {
		return false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line) == strconv.Itoa(c.cmd.Process.Pid)
}

// acceptsSession reports whether the server at addr completes a session start-up.
// An open port is not enough: while starting or recovering, the server accepts
// connections only to refuse them. The package speaks the few protocol messages
// itself rather than depend on a driver. It gives up early when ctx ends or exited
// closes, since whatever holds the port then may never answer.
func acceptsSession(ctx context.Context, addr string, exited <-chan struct{}) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-ctx.Done():
		case <-exited:
		case <-finished:
		}
		conn.Close()
	}()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	body := binary.BigEndian.AppendUint32(nil, 3<<16) // protocol 3.0
	for _, s := range []string{"user", Superuser, "database", "postgres", ""} {
		body = append(append(body, s...), 0)
	}
	msg := append(binary.BigEndian.AppendUint32(nil, uint32(len(body)+4)), body...)
	if _, err := conn.Write(msg); err != nil {
		return false
	}
	r := bufio.NewReader(conn)
	for {
		var header [5]byte
		if _, err := io.ReadFull(r, header[:]); err != nil {
			return false
		}
		n := int(binary.BigEndian.Uint32(header[1:])) - 4
		if n < 0 || n > 1<<20 {
			return false
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return false
		}
		switch header[0] {
		case 'Z': // ready for query
			_, _ = conn.Write([]byte{'X', 0, 0, 0, 4})
			return true
		case 'R': // an authentication request other than "ok" still means a live server
			if len(payload) >= 4 && binary.BigEndian.Uint32(payload) != 0 {
				return true
			}
		case 'E':
			// 57P03 cannot_connect_now: starting up, recovering or shutting down. Any
			// other error (a role missing from a cluster initdb'd elsewhere) comes from
			// a live server, and the caller's own connection will report it.
			return sqlState(payload) != "57P03"
		}
	}
}

// sqlState extracts the SQLSTATE field of an ErrorResponse body.
func sqlState(payload []byte) string {
	for len(payload) > 1 {
		code := payload[0]
		end := bytes.IndexByte(payload[1:], 0)
		if end < 0 {
			return ""
		}
		if code == 'C' {
			return string(payload[1 : 1+end])
		}
		payload = payload[2+end:]
	}
	return ""
}

// URL returns the connection URL of database on the cluster, as its superuser.
func (c *Cluster) URL(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, c.port, database)
}

// Port returns the server's TCP port on 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// Stop shuts the server down fast (open sessions are ended) and waits for it to exit;
// later calls return the first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = c.stop() })
	return c.stopErr
}

func (c *Cluster) stop() error {
	select {
	case <-c.done:
		return fmt.Errorf("pgcluster: stop postgres: it had already exited (%v); server output:\n%s", c.waitErr, c.output)
	default:
	}
	// SIGINT is the fast shutdown: sessions end and a checkpoint is written, so the
	// next start needs no recovery.
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
		if c.waitErr != nil {
			return fmt.Errorf("pgcluster: stop postgres: %w; server output:\n%s", c.waitErr, c.output)
		}
		return nil
	case <-time.After(stopTimeout):
	}
	// SIGQUIT is the immediate shutdown: the postmaster takes its backends down with
	// it, and the next start replays the WAL. SIGKILL would orphan the backends.
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	return fmt.Errorf("pgcluster: stop postgres: fast shutdown took over %s, so it was forced; server output:\n%s", stopTimeout, c.output)
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
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	// A failing log writer must not stop the server; the tail is kept regardless.
	_, _ = t.w.Write(p)
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
