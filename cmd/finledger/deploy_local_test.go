package main

// TestLocalTopology runs deploy/local/run.sh, the topology of deploy/compose.yaml from
// installed binaries (a pg_auto_failover monitor and two PostgreSQL nodes, a primary and
// its synchronous standby, three nats-server processes clustered with
// JetStream, three `finledger serve` instances), writes through every instance, stops
// the NATS server leading the events stream and the instance leading the relay while
// the writes go on through the others, and checks that nothing is lost: every
// acknowledged write stored once, balances as the writes make them, `finledger verify`
// passing, and each webhook given every event. It reuses the load, the receiver and the
// checks of the cluster fault test.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// localPorts are the offsets from run.sh's base port of every port it listens on, the
// instances' admin listeners included.
var localPorts = []int{0, 1, 2, 3, 4, 5, 11, 12, 13, 21, 22, 23, 31, 32, 33, 41, 42, 43}

// freeBasePort finds a base port whose every offset run.sh uses is free, below the
// kernel's ephemeral range (32768 and up), where an outgoing connection may take a port
// between the check and the listen.
func freeBasePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		base := 20000 + rand.N(12000)
		free := true
		for _, off := range localPorts {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base+off))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free range of ports for the local topology")
	return 0
}

// localTopology is a running deploy/local/run.sh.
type localTopology struct {
	dir    string
	base   int
	cmd    *exec.Cmd
	output *syncBuffer
	exited chan struct{}
}

// startLocalTopology runs the script on dir and returns once it says the topology is
// ready. The script is stopped (SIGTERM, which stops everything it started) in cleanup.
func startLocalTopology(t *testing.T, dir string, settings map[string]string) *localTopology {
	t.Helper()
	lt := &localTopology{dir: dir, base: freeBasePort(t), output: &syncBuffer{}, exited: make(chan struct{})}
	script, err := filepath.Abs(filepath.Join("..", "..", "deploy", "local", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	lt.cmd = exec.Command("bash", script, "-p", strconv.Itoa(lt.base), dir)
	lt.cmd.Env = serveEnv(settings)
	pr, pw := io.Pipe()
	lt.cmd.Stdout, lt.cmd.Stderr = io.MultiWriter(lt.output, pw), lt.output
	// Should the test binary die, the script is told to stop what it started.
	lt.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := lt.cmd.Start(); err != nil {
		t.Fatalf("start run.sh: %v", err)
	}
	go func() {
		_ = lt.cmd.Wait()
		pw.Close()
		close(lt.exited)
	}()
	t.Cleanup(func() {
		_ = lt.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-lt.exited:
		case <-time.After(90 * time.Second):
			t.Errorf("run.sh did not stop within 90 s of SIGTERM; killing it")
			_ = lt.cmd.Process.Kill()
			<-lt.exited
		}
		if t.Failed() {
			t.Logf("--- run.sh printed:\n%s", lt.output.String())
			for _, name := range []string{"pg-monitor", "pg-node-1", "pg-node-2", "nats-1", "nats-2", "nats-3", "finledger-1", "finledger-2", "finledger-3"} {
				t.Logf("--- last lines of %s:\n%s", name, logTail(filepath.Join(dir, "logs", name+".log"), 25))
			}
		}
	})
	ready := make(chan struct{})
	go func() {
		s := bufio.NewScanner(pr)
		for s.Scan() {
			if strings.HasPrefix(s.Text(), "finledger local cluster ready") {
				close(ready)
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case <-ready:
	case <-lt.exited:
		t.Fatalf("run.sh exited before the topology was ready:\n%s", lt.output.String())
	case <-time.After(3 * time.Minute):
		t.Fatalf("the topology was not ready after 3 minutes:\n%s", lt.output.String())
	}
	return lt
}

// instanceURL is the base URL of finledger-n (1-3).
func (lt *localTopology) instanceURL(n int) string {
	return fmt.Sprintf("http://127.0.0.1:%d", lt.base+30+n)
}

// natsURLs lists the three NATS servers' client URLs.
func (lt *localTopology) natsURLs() string {
	return fmt.Sprintf("nats://127.0.0.1:%d,nats://127.0.0.1:%d,nats://127.0.0.1:%d", lt.base+1, lt.base+2, lt.base+3)
}

// stop sends signal to the process run.sh recorded as name and waits for it to be gone.
func (lt *localTopology) stop(t *testing.T, name string, signal syscall.Signal) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(lt.dir, name+".pid"))
	if err != nil {
		t.Fatalf("pid of %s: %v", name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid of %s: %v", name, err)
	}
	if err := syscall.Kill(pid, signal); err != nil {
		t.Fatalf("signal %s (pid %d): %v", name, pid, err)
	}
	// The script reaps its children; until then a stopped one is a zombie.
	deadline := time.Now().Add(30 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(fields) > 0 && fields[0] == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still running 30 s after %s", name, pid, signal)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamLeader returns the NATS server (n1-n3) leading the deployment's stream and
// how many servers keep it.
func streamLeader(urls, stream string) (string, int, error) {
	conn, err := nats.Connect(urls, nats.Timeout(5*time.Second))
	if err != nil {
		return "", 0, err
	}
	defer conn.Close()
	js, err := jetstream.New(conn)
	if err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return "", 0, err
	}
	info := s.CachedInfo()
	if info.Cluster == nil {
		return "", info.Config.Replicas, fmt.Errorf("stream %s has no cluster information", stream)
	}
	return info.Cluster.Leader, info.Config.Replicas, nil
}

func TestLocalTopology(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, three NATS servers and three instances")
	}
	for _, tool := range []string{"bash", "setpriv", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("deploy/local/run.sh needs %s: %v", tool, err)
		}
	}
	began := time.Now()
	base := processesDir(t, "finledger-local-")
	// The NATS server of the version the service is built against: the service needs
	// 2.10 or newer, which not every distribution ships.
	bin, natsBin := buildBinaries(t, base)
	rec := newReceiver(0.1)
	hookServer := httptest.NewServer(rec)
	t.Cleanup(hookServer.Close)

	lt := startLocalTopology(t, filepath.Join(base, "topology"), map[string]string{
		"FINLEDGER_BIN":                    bin,
		"NATS_SERVER":                      natsBin,
		"FINLEDGER_SECRET_KEY":             strings.Repeat("3c", 32),
		"FINLEDGER_SESSION_HS256_SECRET":   clusterSecret,
		"FINLEDGER_DEPLOYMENT":             "localtest",
		"FINLEDGER_WEBHOOK_RETRY_SCHEDULE": "100ms,200ms,300ms,500ms,1s,1s,2s,2s,2s,2s",
		"FINLEDGER_DB_MAX_CONNS":           "8",
		"FINLEDGER_RATE_LIMIT_PER_MINUTE":  "10000000",
		"FINLEDGER_RATE_LIMIT_BURST":       "1000000",
	})
	t.Logf("topology ready %s after the test began (base port %d)", time.Since(began).Round(time.Millisecond), lt.base)
	// Each instance's metrics are on its operators' address, not beside its API.
	for n := 1; n <= 3; n++ {
		if status, _ := call(t, "GET", lt.instanceURL(n)+"/metrics", "", ""); status != http.StatusNotFound {
			t.Errorf("finledger-%d serves /metrics beside its API: %d", n, status)
		}
		if status, _ := call(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/metrics", lt.base+40+n), "", ""); status != http.StatusOK {
			t.Errorf("finledger-%d's operators' address answers /metrics with %d", n, status)
		}
	}
	// Node 1 (the base port) is the primary: run.sh made it so, and no node fails here.
	pg := &clusterPostgres{port: lt.base}
	tp := topology{
		deployment: "localtest",
		db:         pg,
		natsURLs:   lt.natsURLs(),
		rec:        rec,
		hookBase:   hookServer.URL,
		stopNATS: func(t *testing.T, server string) {
			lt.stop(t, "nats-"+strings.TrimPrefix(server, "n"), syscall.SIGTERM)
		},
		killInstance: func(t *testing.T, n string) { lt.stop(t, "finledger-"+n, syscall.SIGKILL) },
		serving: func(killed string) []string {
			var bases []string
			for n := 1; n <= 3; n++ {
				if fmt.Sprintf("finledger-%d", n) != killed {
					bases = append(bases, lt.instanceURL(n))
				}
			}
			return readyAt(bases...)
		},
		verify: func() (string, error) { return runVerify(bin, pg.url("finledger", "local-verify")) },
	}
	for n := 1; n <= 3; n++ {
		tp.bases = append(tp.bases, lt.instanceURL(n))
		tp.names = append(tp.names, fmt.Sprintf("finledger-%d", n))
	}
	tp.drill(t, began)
}
