// Package containers runs the tests' PostgreSQL and NATS servers as Docker containers,
// started by testcontainers-go from the images `make images` builds, whenever a Docker
// engine answers. FINLEDGER_TEST_CONTAINERS chooses otherwise: "off" keeps the
// installed binaries (testdb's cluster, the in-process NATS server); "on" requires the
// containers and fails, saying how to start an engine, when none answers.
//
// NATSFor gives a test its NATS server on either path, in process without containers;
// SharedNATS gives it the test binary's.
// The containers use the host's network: each server listens on 127.0.0.1 at a port
// chosen free for it, so a test reaches it as it reaches a server started from the
// binaries. They carry the test binary's process id, and a test binary removes those
// whose binary has gone (killed before it could clean up) before it starts its own.
package containers

import (
	"context"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tcnats "github.com/testcontainers/testcontainers-go/modules/nats"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/finledger/finledger/internal/pgcluster"
	"github.com/finledger/finledger/webhooks/bus"
)

// The images the tests run, as `make images` tags them (deploy/compose.yaml names the
// same): PostgreSQL 15 from Debian's packages, and nats-server built from the module
// this repository's go.mod names.
const (
	PostgresImage = "finledger-postgres:local"
	NATSImage     = "finledger-nats:local"
)

// Setting is the environment variable that chooses the path: "", "on" or "off".
const Setting = "FINLEDGER_TEST_CONTAINERS"

// The commands that fix what is missing, as the errors name them.
const (
	engineHint = "bash deploy/container/engine.sh (it installs docker.io and starts dockerd when it can)"
	imagesHint = "make images"
)

// labelPID marks a container with the process id of the test binary that started it.
const labelPID = "finledger.test.pid"

var (
	decideOnce sync.Once
	use        bool
	useErr     error

	mu      sync.Mutex
	started []testcontainers.Container
)

// Use reports whether the tests' servers run as containers, deciding once per test
// binary: an error says why neither path can run (containers asked for without an
// engine, or an engine without the images).
func Use() (bool, error) {
	decideOnce.Do(func() { use, useErr = decide() })
	return use, useErr
}

func decide() (bool, error) {
	mode := os.Getenv(Setting)
	switch mode {
	case "off":
		return false, nil
	case "", "on":
	default:
		return false, fmt.Errorf("containers: %s=%q: say on, off, or leave it unset", Setting, mode)
	}
	// No reaper: its image would have to be pulled, and the tests remove their own
	// containers (StopAll, and the sweep of those left by a killed binary). Nor a line
	// logged per container: a failing test's output is for the test.
	os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true") //nolint:errcheck // always succeeds for a valid name
	tclog.SetDefault(stdlog.New(io.Discard, "", 0))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	docker, err := client.New(client.FromEnv)
	if err == nil {
		_, err = docker.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true})
	}
	if err != nil {
		if docker != nil {
			docker.Close() //nolint:errcheck // only a ping was made
		}
		if mode == "on" {
			return false, fmt.Errorf("containers: %s=on, but no Docker engine answers (%v); start one with `%s`, or set %s=off", Setting, err, engineHint, Setting)
		}
		return false, nil
	}
	defer docker.Close() //nolint:errcheck // read-only use
	var missing []string
	for _, image := range []string{PostgresImage, NATSImage} {
		if _, err := docker.ImageInspect(ctx, image); err != nil {
			missing = append(missing, image)
		}
	}
	if len(missing) > 0 {
		return false, fmt.Errorf("containers: a Docker engine answers, but it has no image %s; build them with `%s`, or set %s=off to run the tests on the installed binaries",
			strings.Join(missing, " or "), imagesHint, Setting)
	}
	sweep(ctx, docker)
	return true, nil
}

// sweep removes the containers of test binaries that are no longer running.
func sweep(ctx context.Context, docker *client.Client) {
	list, err := docker.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", labelPID)})
	if err != nil {
		return
	}
	for _, c := range list.Items {
		pid, err := strconv.Atoi(c.Labels[labelPID])
		if err != nil || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue // not ours, or its binary still runs
		}
		_, _ = docker.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	}
}

// onHostNetwork runs a container on the host's network, publishing nothing (the
// modules' exposed ports would conflict with it), labelled with this process's id.
func onHostNetwork(name string) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		req.ExposedPorts = nil
		req.Name = fmt.Sprintf("finledger-test-%s-%d-%d", name, os.Getpid(), time.Now().UnixNano()%1_000_000)
		if req.Labels == nil {
			req.Labels = map[string]string{}
		}
		req.Labels[labelPID] = strconv.Itoa(os.Getpid())
		previous := req.HostConfigModifier
		req.HostConfigModifier = func(hc *container.HostConfig) {
			if previous != nil {
				previous(hc)
			}
			hc.NetworkMode = "host"
			hc.PortBindings = nil
		}
		return nil
	}
}

// logsOf is the end of what a container that failed to start printed, for the error.
func logsOf(c testcontainers.Container) string {
	if c == nil || reflect.ValueOf(c).IsNil() {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.Logs(ctx)
	if err != nil {
		return ""
	}
	defer r.Close() //nolint:errcheck // read only
	out, _ := io.ReadAll(io.LimitReader(r, 1<<20))
	if len(out) > 2000 {
		out = out[len(out)-2000:]
	}
	return "; it printed:\n" + string(out)
}

// keep records a started container for StopAll.
func keep(c testcontainers.Container) {
	mu.Lock()
	defer mu.Unlock()
	started = append(started, c)
}

// StopAll removes every container this test binary started, the shared NATS server's
// among them, and stops that server where it runs in process.
func StopAll() {
	if embedded, ok := sharedNATS.(*bus.Embedded); ok {
		embedded.Shutdown()
		_ = os.RemoveAll(sharedNATSDir)
	}
	sharedNATS = nil
	mu.Lock()
	defer mu.Unlock()
	for _, c := range started {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = c.Terminate(ctx)
		cancel()
	}
	started = nil
}

// Postgres is a PostgreSQL server in a container.
type Postgres struct {
	port int
}

// URL is the URL of database as the superuser, who needs no password on loopback.
func (p *Postgres) URL(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", pgcluster.Superuser, p.port, database)
}

// StartPostgres runs a PostgreSQL server from PostgresImage with settings (postgres -c
// name=value) on a free port, its data in the container, and waits until it accepts
// connections.
func StartPostgres(ctx context.Context, settings map[string]string) (*Postgres, error) {
	port, err := onFreePort(func(port int) error { return startPostgres(ctx, port, settings) })
	if err != nil {
		return nil, err
	}
	return &Postgres{port: port}, nil
}

// startPostgres runs the server on port.
func startPostgres(ctx context.Context, port int, settings map[string]string) error {
	args := []string{"-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=/tmp",
		"-c", "shared_buffers=128MB", "-c", "max_connections=200"}
	for name, value := range settings {
		args = append(args, "-c", name+"="+value)
	}
	// The image runs pg_autoctl for compose; here it makes a cluster as pgcluster does
	// (UTF-8, the C locale) for POSTGRES_USER, as the official image's entrypoint would,
	// and runs postgres.
	script := `set -e; initdb -D /tmp/pgdata -U "$POSTGRES_USER" --auth=trust --encoding=UTF8 --locale=C --no-sync >/dev/null; exec postgres -D /tmp/pgdata "$@"`
	c, err := tcpostgres.Run(ctx, PostgresImage,
		tcpostgres.WithUsername(pgcluster.Superuser),
		tcpostgres.WithDatabase("postgres"),
		testcontainers.WithEntrypoint("sh", "-c", script, "postgres"),
		testcontainers.WithCmd(args...),
		testcontainers.WithWaitStrategyAndDeadline(2*time.Minute, wait.ForLog("database system is ready to accept connections")),
		onHostNetwork("postgres"),
	)
	if c != nil {
		keep(c)
	}
	if err != nil {
		return startFailure("PostgreSQL", PostgresImage, port, err, c)
	}
	return nil
}

// PortTakenError says that a server's port, free when it was chosen, was taken by
// another process before the server in its container could listen on it.
type PortTakenError struct {
	Server string
	Port   int
}

func (e *PortTakenError) Error() string {
	return fmt.Sprintf("containers: %s could not listen on 127.0.0.1:%d: another process took the port after it was chosen free; "+
		"run the tests again, or see what holds it with `ss -ltnp 'sport = :%d'`", e.Server, e.Port, e.Port)
}

// startFailure is the error of a server's container that did not start: a
// PortTakenError when the server said its port was in use (containers on the host's
// network share its ports), else the error with the end of what the container printed.
func startFailure(server, image string, port int, err error, c testcontainers.Container) error {
	logs := logsOf(c)
	if strings.Contains(strings.ToLower(logs), "address already in use") {
		return &PortTakenError{Server: server, Port: port}
	}
	return fmt.Errorf("containers: %s from %s: %w%s", server, image, err, logs)
}

// portAttempts is how many free ports a server is tried on before its port's being
// taken is the tests' failure.
const portAttempts = 3

// onFreePort runs start on a port chosen free, and on another while the one chosen was
// taken before the server could listen on it, and returns the port it serves on.
func onFreePort(start func(port int) error) (int, error) {
	var err error
	for range portAttempts {
		var port int
		if port, err = pgcluster.FreePort(); err != nil {
			return 0, err
		}
		var taken *PortTakenError
		if err = start(port); !errors.As(err, &taken) {
			return port, err
		}
	}
	return 0, fmt.Errorf("%w (%d ports tried)", err, portAttempts)
}

// NATS is a NATS server with JetStream in a container.
type NATS struct {
	url string
	c   *tcnats.NATSContainer
}

// URL is the server's client URL.
func (n *NATS) URL() string { return n.url }

// Shutdown stops and removes the container.
func (n *NATS) Shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = n.c.Terminate(ctx)
}

// NATSServer is a NATS server with JetStream for a test.
type NATSServer interface {
	URL() string
	Shutdown()
}

// NATSFor starts a NATS server of the test's own, stopped when the test ends: a
// container when the tests' servers run in containers, else in process. A test that
// stops, restarts or counts what its server holds takes one; others share SharedNATS's.
func NATSFor(t testing.TB) NATSServer {
	t.Helper()
	srv, err := startNATSServer(func() (string, error) { return t.TempDir(), nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv
}

// The test binary's shared NATS server (SharedNATS), stopped by StopAll.
var (
	sharedNATSOnce sync.Once
	sharedNATS     NATSServer
	sharedNATSErr  error
	sharedNATSDir  string
)

// SharedNATS returns the test binary's one NATS server, started for the first test that
// asks, as NATSFor's are. Tests share it as deployments share a NATS cluster in
// production, each under its own database's deployment name (a new database's is its
// own), so one test sees none of another's streams; starting a server for every test
// cost about half a second of a core each. StopAll stops it.
func SharedNATS(t testing.TB) NATSServer {
	t.Helper()
	sharedNATSOnce.Do(func() {
		sharedNATS, sharedNATSErr = startNATSServer(func() (string, error) {
			dir, err := os.MkdirTemp("", "finledger-test-nats-")
			sharedNATSDir = dir
			return dir, err
		})
	})
	if sharedNATSErr != nil {
		t.Fatal(sharedNATSErr)
	}
	return sharedNATS
}

// startNATSServer starts a NATS server in a container when the tests' servers run in
// containers, else in process with its store in the folder dir makes.
func startNATSServer(dir func() (string, error)) (NATSServer, error) {
	inContainer, err := Use()
	if err != nil {
		return nil, err
	}
	if inContainer {
		return StartNATS(context.Background())
	}
	store, err := dir()
	if err != nil {
		return nil, fmt.Errorf("containers: the NATS server's store: %w", err)
	}
	return bus.StartEmbedded(store)
}

// StartNATS runs nats-server from NATSImage with JetStream on a free port, and waits
// until it serves clients.
func StartNATS(ctx context.Context) (*NATS, error) {
	var c *tcnats.NATSContainer
	port, err := onFreePort(func(port int) (err error) {
		c, err = startNATS(ctx, port)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &NATS{url: fmt.Sprintf("nats://127.0.0.1:%d", port), c: c}, nil
}

// startNATS runs the server on port.
func startNATS(ctx context.Context, port int) (*tcnats.NATSContainer, error) {
	c, err := tcnats.Run(ctx, NATSImage,
		testcontainers.WithCmd("-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", "/jetstream"),
		// The store in memory, writable by the image's user whichever it is.
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.Tmpfs = map[string]string{"/jetstream": "rw,mode=1777"}
		}),
		testcontainers.WithWaitStrategyAndDeadline(time.Minute, wait.ForLog("Server is ready")),
		onHostNetwork("nats"),
	)
	if c != nil {
		keep(c)
	}
	if err != nil {
		return nil, startFailure("NATS", NATSImage, port, err, c)
	}
	return c, nil
}
