package main

// TestComposeDeployment runs deploy/compose.yaml as written, with Docker Compose and the
// images `make images` builds: the pg_auto_failover monitor and two PostgreSQL nodes,
// three NATS nodes, three instances and the load balancer, each a container on the
// compose network. It writes through the load balancer, stops the NATS container
// leading the events stream and kills the instance container leading the relay while
// the writes go on, and checks that nothing is lost, as TestLocalTopology does with the
// same topology run from binaries.
//
// It runs when FINLEDGER_TEST_COMPOSE=1, as `make test-compose` sets it after the rest
// of the suite: compose makes a network of its own, and Chromium aborts the browser
// tests' page loads (ERR_NETWORK_CHANGED) when the host's interfaces change beside them.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// composeSetting runs TestComposeDeployment.
const composeSetting = "FINLEDGER_TEST_COMPOSE"

// composeImages are the images compose.yaml names, as `make images` tags them.
var composeImages = []string{"finledger:local", "finledger-postgres:local", "finledger-nats:local", "finledger-caddy:local"}

// composeProject is one project of deploy/compose.yaml under Docker Compose.
type composeProject struct {
	command []string // docker compose, or docker-compose
	args    []string // the project's name, files and environment file
	dir     string   // deploy/
}

// composeCommand finds Compose: the docker CLI's plugin (v2), else Debian's
// docker-compose.
func composeCommand() ([]string, error) {
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}, nil
	}
	if _, err := exec.LookPath("docker-compose"); err == nil {
		return []string{"docker-compose"}, nil
	}
	return nil, errors.New("neither `docker compose` nor `docker-compose` is installed; install Debian's: apt-get install -y docker-compose")
}

// run runs compose with args and returns what it printed.
func (c *composeProject) run(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	all := append(append(append([]string{}, c.command[1:]...), c.args...), args...)
	cmd := exec.CommandContext(ctx, c.command[0], all...)
	cmd.Dir = c.dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s %s: no answer within %s", strings.Join(c.command, " "), strings.Join(args, " "), timeout)
	} else if err != nil {
		err = fmt.Errorf("%s %s: %w", strings.Join(c.command, " "), strings.Join(args, " "), err)
	}
	return string(out), err
}

// address is the address of service's container on the compose network.
func (c *composeProject) address(t *testing.T, service string) string {
	t.Helper()
	id, err := c.run(time.Minute, "ps", "-q", service)
	if err != nil || strings.TrimSpace(id) == "" {
		t.Fatalf("the container of %s: %v %s", service, err, id)
	}
	out, err := exec.Command("docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", strings.TrimSpace(id)).CombinedOutput()
	addr := strings.TrimSpace(string(out))
	if err != nil || net.ParseIP(addr) == nil {
		t.Fatalf("the address of %s: %v %s", service, err, out)
	}
	return addr
}

// running reports whether service's container runs.
func (c *composeProject) running(service string) bool {
	out, err := c.run(time.Minute, "ps", "-q", service)
	if err != nil || strings.TrimSpace(out) == "" {
		return false
	}
	state, err := exec.Command("docker", "inspect", "-f", "{{.State.Running}}", strings.TrimSpace(out)).Output()
	return err == nil && strings.TrimSpace(string(state)) == "true"
}

// composeDatabase is the compose formation's database as the test reaches it: the two
// nodes' addresses on the compose network, over TLS with the password, as the instances
// log in.
type composeDatabase struct {
	nodes    []string
	password string
}

func (db composeDatabase) url(database, app string) string {
	hosts := make([]string, len(db.nodes))
	for i, n := range db.nodes {
		hosts[i] = n + ":5432"
	}
	return withApp(fmt.Sprintf("postgres://finledger:%s@%s/%s?target_session_attrs=read-write&sslmode=require",
		db.password, strings.Join(hosts, ","), database), app)
}

func (db composeDatabase) outage(time.Duration) error {
	return errors.New("the compose drill takes no database down")
}

func (db composeDatabase) logTail(int) string { return "" }

// hostAddressIn is the host's address in subnet (a CIDR prefix): a Docker network's
// bridge.
func hostAddressIn(subnet string) (netip.Addr, error) {
	prefix, err := netip.ParsePrefix(subnet)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("the compose network's subnet %q: %w", subnet, err)
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range addrs {
		if ipnet, ok := a.(*net.IPNet); ok {
			if addr, ok := netip.AddrFromSlice(ipnet.IP); ok && prefix.Contains(addr.Unmap()) {
				return addr.Unmap(), nil
			}
		}
	}
	return netip.Addr{}, fmt.Errorf("the host has no address in the compose network's subnet %s", subnet)
}

func TestComposeDeployment(t *testing.T) {
	if os.Getenv(composeSetting) != "1" {
		t.Skipf("run by `make test-compose` (%s=1), apart from the browser tests", composeSetting)
	}
	began := time.Now()
	for _, image := range composeImages {
		if out, err := exec.Command("docker", "image", "inspect", "-f", "{{.Id}}", image).CombinedOutput(); err != nil {
			t.Fatalf("no image %s (%v: %s); build them with `make images` (a Docker engine: bash deploy/container/engine.sh)",
				image, err, strings.TrimSpace(string(out)))
		}
	}
	command, err := composeCommand()
	if err != nil {
		t.Fatal(err)
	}
	deployDir, err := filepath.Abs(filepath.Join("..", "..", "deploy"))
	if err != nil {
		t.Fatal(err)
	}

	// The load balancer's port on the host, free now; the webhooks' receiver on every
	// interface, so that the containers reach it at the host's address on the compose
	// network's bridge.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lbPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	rec := newReceiver(0.1)
	hookListener, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	hookServer := httptest.NewUnstartedServer(rec)
	hookServer.Listener = hookListener
	hookServer.Start()
	t.Cleanup(hookServer.Close)

	const password = "composedrill"
	dir := t.TempDir()
	envFile := filepath.Join(dir, "compose.env")
	env := strings.Join([]string{
		"POSTGRES_PASSWORD=" + password,
		"FINLEDGER_SECRET_KEY=" + strings.Repeat("5e", 32),
		"FINLEDGER_SESSION_HS256_SECRET=" + clusterSecret,
		"FINLEDGER_DEPLOYMENT=composetest",
		"FINLEDGER_HTTP_PORT=" + strconv.Itoa(lbPort),
		"FINLEDGER_PUBLIC_ORIGIN=http://localhost:" + strconv.Itoa(lbPort),
	}, "\n") + "\n"
	// The test's own settings, as deploy/.env cannot give them: webhooks to the host's
	// receiver, retried quickly, and limits the writers stay under.
	override := filepath.Join(dir, "compose.test.yaml")
	overrideYAML := "services:\n"
	for n := 1; n <= 3; n++ {
		overrideYAML += fmt.Sprintf(`  finledger-%d:
    environment:
      FINLEDGER_WEBHOOK_ALLOW_PRIVATE: "true"
      FINLEDGER_WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms,500ms,1s,1s,2s,2s,2s,2s"
      FINLEDGER_RATE_LIMIT_PER_MINUTE: "10000000"
      FINLEDGER_RATE_LIMIT_BURST: "1000000"
`, n)
	}
	// Health checked every second, not every 5 s: the nodes, then the instances, each
	// wait for the ones before them to be seen healthy.
	for _, service := range []string{"pg-monitor", "pg-node-1", "pg-node-2", "nats-1", "nats-2", "nats-3"} {
		overrideYAML += fmt.Sprintf("  %s:\n    healthcheck:\n      interval: 1s\n", service)
	}
	for path, content := range map[string]string{envFile: env, override: overrideYAML} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	project := "finledger-composetest"
	c := &composeProject{command: command, dir: deployDir,
		args: []string{"--project-name", project, "--env-file", envFile, "-f", filepath.Join(deployDir, "compose.yaml"), "-f", override}}
	// A project left by a test binary that was killed holds the compose network's subnet.
	if out, err := c.run(3*time.Minute, "down", "--volumes", "--remove-orphans", "--timeout", "5"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := c.run(time.Minute, "logs", "--no-color", "--tail", "30")
			t.Logf("--- compose logs:\n%s", out)
		}
		if out, err := c.run(3*time.Minute, "down", "--volumes", "--remove-orphans", "--timeout", "5"); err != nil {
			t.Errorf("%v\n%s", err, out)
		}
	})
	if out, err := c.run(5*time.Minute, "up", "--detach", "--no-build"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lb := "http://127.0.0.1:" + strconv.Itoa(lbPort)
	deadline := time.Now().Add(3 * time.Minute)
	for problems := readyAt(lb); len(problems) > 0; problems = readyAt(lb) {
		if time.Now().After(deadline) {
			t.Fatalf("the load balancer was not ready 3 minutes after compose up: %v", problems)
		}
		time.Sleep(time.Second)
	}
	t.Logf("compose topology ready %s after the test began", time.Since(began).Round(time.Millisecond))
	// Only the load balancer is published, and it serves no metrics.
	if status, _ := call(t, "GET", lb+"/metrics", "", ""); status != http.StatusNotFound {
		t.Errorf("the load balancer serves /metrics: %d", status)
	}

	// The host on the compose network: its address on the network's bridge.
	subnet, err := exec.Command("docker", "network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}}{{end}}", project+"_default").CombinedOutput()
	if err != nil {
		t.Fatalf("the compose network: %v %s", err, subnet)
	}
	gateway, err := hostAddressIn(strings.TrimSpace(string(subnet)))
	if err != nil {
		t.Fatal(err)
	}
	hookPort := hookListener.Addr().(*net.TCPAddr).Port
	db := composeDatabase{nodes: []string{c.address(t, "pg-node-1"), c.address(t, "pg-node-2")}, password: password}
	var natsURLs []string
	for n := 1; n <= 3; n++ {
		natsURLs = append(natsURLs, "nats://"+c.address(t, fmt.Sprintf("nats-%d", n))+":4222")
	}
	topology{
		deployment: "composetest",
		bases:      []string{lb},
		names:      []string{"lb"},
		proxied:    true,
		db:         db,
		natsURLs:   strings.Join(natsURLs, ","),
		rec:        rec,
		hookBase:   fmt.Sprintf("http://%s:%d", gateway, hookPort),
		stopNATS: func(t *testing.T, server string) {
			if out, err := c.run(time.Minute, "stop", "--timeout", "10", server); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		},
		killInstance: func(t *testing.T, n string) {
			if out, err := c.run(time.Minute, "kill", "finledger-"+n); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		},
		serving: func(killed string) []string {
			problems := readyAt(lb)
			for n := 1; n <= 3; n++ {
				name := fmt.Sprintf("finledger-%d", n)
				if name != killed && !c.running(name) {
					problems = append(problems, name+"'s container is not running")
				}
			}
			return problems
		},
		// `finledger verify` from the service's image, with finledger-1's settings.
		verify: func() (string, error) {
			return c.run(3*time.Minute, "run", "--rm", "--no-deps", "-T", "finledger-1", "verify")
		},
	}.drill(t, began)
}
