package check

import (
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// deploy/local/run.sh parses as bash. What it does is tested by running it:
// cmd/finledger/deploy_local_test.go in the service's module.
func TestLocalScriptParses(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if out, err := exec.Command(bash, "-n", deployFile(t, "local/run.sh")).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
}

// localScript is run.sh read by a shell parser: every command it may run, each as its
// words in source form, and every variable assignment.
type localScript struct {
	calls   [][]string
	assigns map[string][]string
}

func readLocalScript(t *testing.T) localScript {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(readDeployFile(t, "local/run.sh")), "run.sh")
	if err != nil {
		t.Fatal(err)
	}
	printer := syntax.NewPrinter()
	source := func(n syntax.Node) string {
		var b bytes.Buffer
		if err := printer.Print(&b, n); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	s := localScript{assigns: map[string][]string{}}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			var words []string
			for _, w := range n.Args {
				words = append(words, source(w))
			}
			if len(words) > 0 {
				s.calls = append(s.calls, words)
			}
		case *syntax.Assign:
			var value string
			switch {
			case n.Value != nil:
				value = source(n.Value)
			case n.Array != nil:
				var elems []string
				for _, e := range n.Array.Elems {
					elems = append(elems, source(e.Value))
				}
				value = "(" + strings.Join(elems, " ") + ")"
			}
			s.assigns[n.Name.Value] = append(s.assigns[n.Name.Value], value)
		}
		return true
	})
	return s
}

// find returns the calls whose words include want, in order.
func (s localScript) find(want ...string) [][]string {
	var found [][]string
	for _, c := range s.calls {
		if i := slices.Index(c, want[0]); i >= 0 && len(c) >= i+len(want) && slices.Equal(c[i:i+len(want)], want) {
			found = append(found, c)
		}
	}
	return found
}

// flag returns the word after name in call, unquoted.
func flag(call []string, name string) (string, bool) {
	i := slices.Index(call, name)
	if i < 0 || i+1 >= len(call) {
		return "", false
	}
	return strings.Trim(call[i+1], `"`), true
}

// run.sh runs the replicated database of compose.yaml from pg_autoctl: a monitor and
// two nodes made once and run by their keepers after, under run.sh's process control,
// and the instances on a URL naming both nodes that asks for the one taking writes.
func TestLocalScriptDatabase(t *testing.T) {
	s := readLocalScript(t)

	monitors := s.find(`"$autoctl"`, "create", "monitor")
	if len(monitors) != 1 {
		t.Fatalf("pg_autoctl create monitor run %d times, want once", len(monitors))
	}
	m := monitors[0]
	if m[0] != "start" || m[1] != "pg-monitor" || m[2] != "INT" || !slices.Contains(m, "--run") {
		t.Errorf("monitor %v, want started as pg-monitor, stopped with SIGINT, running once made", m)
	}
	if port, _ := flag(m, "--pgport"); port != "$monitor_port" {
		t.Errorf("monitor on port %q, want $monitor_port", port)
	}

	nodes := s.find(`"$autoctl"`, "create", "postgres")
	if len(nodes) != 1 {
		t.Fatalf("pg_autoctl create postgres in %d places, want one (the node function)", len(nodes))
	}
	n := nodes[0]
	if n[0] != "start" || n[1] != `"pg-node-$n"` || n[2] != "INT" || !slices.Contains(n, "--run") {
		t.Errorf("node %v, want started as pg-node-N, stopped with SIGINT", n)
	}
	checks := map[string]string{
		"--monitor":            "postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable",
		"--pgport":             "$port",
		"--name":               "node-$n",
		"--dbname":             "finledger",
		"--replication-quorum": "true",
		"--candidate-priority": "50",
	}
	for name, want := range checks {
		if got, _ := flag(n, name); got != want {
			t.Errorf("create postgres %s %q, want %q", name, got, want)
		}
	}
	// The same authentication and transport as the single PostgreSQL it replaces: trust
	// on 127.0.0.1, no TLS, everything on the loopback.
	for _, c := range [][]string{m, n} {
		if a, _ := flag(c, "--auth"); a != "trust" || !slices.Contains(c, "--no-ssl") {
			t.Errorf("%v: want --auth trust --no-ssl, as initdb --auth=trust on 127.0.0.1", c)
		}
		if h, _ := flag(c, "--hostname"); h != "127.0.0.1" {
			t.Errorf("%v: hostname %q, want 127.0.0.1", c, h)
		}
	}
	// Made once; after that the keepers carry on from their state.
	if runs := s.find(`"$autoctl"`, "run", "--pgdata"); len(runs) != 2 {
		t.Errorf("pg_autoctl run in %d places, want the monitor's and the nodes'", len(runs))
	}
	if ports := s.assigns["node_ports"]; len(ports) != 1 || ports[0] != `("$base_port" "$((base_port + 4))")` {
		t.Errorf("node_ports %v, want BASE and BASE+4", ports)
	}
	if ports := s.assigns["monitor_port"]; len(ports) != 1 || ports[0] != "$((base_port + 5))" {
		t.Errorf("monitor_port %v, want BASE+5", ports)
	}

	// The instances: both nodes, target_session_attrs=read-write, once the formation has
	// its primary and synchronous standby.
	if h := s.assigns["db_hosts"]; len(h) != 1 || h[0] != `"127.0.0.1:${node_ports[0]},127.0.0.1:${node_ports[1]}"` {
		t.Errorf("db_hosts %v, want both nodes", h)
	}
	if u := s.assigns["db_url"]; len(u) != 1 || !regexp.MustCompile(`^"postgres://finledger@\$db_hosts/finledger\?.*target_session_attrs=read-write`).MatchString(u[0]) {
		t.Errorf("db_url %v, want the two hosts with target_session_attrs=read-write", u)
	}
	var ready, instances int = -1, -1
	for i, c := range s.calls {
		if slices.Equal(c, []string{"wait_for", "pg-node-2", "formation_ready"}) && ready < 0 {
			ready = i
		}
		if len(c) > 1 && c[0] == "start" && c[1] == `"finledger-$n"` {
			instances = i
			if !slices.Contains(c, `FINLEDGER_DATABASE_URL="$db_url&application_name=finledger-$n"`) {
				t.Errorf("instances started with %v, want FINLEDGER_DATABASE_URL on $db_url", c)
			}
		}
	}
	if ready < 0 || instances < 0 || ready > instances {
		t.Errorf("the instances start (call %d) before the formation is ready (call %d)", instances, ready)
	}
	if states := s.find("[", `"$state"`, "=", `"primary/primary secondary/secondary"`); len(states) != 1 {
		t.Error("formation_ready does not wait for a primary and a secondary")
	}
}
