package check

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// composeEnv is what deploy/.env would hold.
var composeEnv = map[string]string{
	"POSTGRES_PASSWORD":              "pw",
	"FINLEDGER_SECRET_KEY":           strings.Repeat("ab", 32),
	"FINLEDGER_SESSION_HS256_SECRET": "a-session-secret-of-thirty-two-characters",
}

// loadCompose loads and validates compose.yaml as `docker compose` would, with env as
// its environment and no .env file.
func loadCompose(t *testing.T, env map[string]string) (*types.Project, error) {
	t.Helper()
	var kv []string
	for k, v := range env {
		kv = append(kv, k+"="+v)
	}
	opts, err := cli.NewProjectOptions([]string{deployFile(t, "compose.yaml")},
		cli.WithEnv(kv), cli.WithInterpolation(true), cli.WithNormalization(true), cli.WithConsistency(true))
	if err != nil {
		t.Fatal(err)
	}
	return opts.LoadProject(context.Background())
}

func env(s types.ServiceConfig, key string) string {
	if v := s.Environment[key]; v != nil {
		return *v
	}
	return ""
}

func TestComposeTopology(t *testing.T) {
	p, err := loadCompose(t, composeEnv)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range p.Services {
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"finledger-1", "finledger-2", "finledger-3", "lb", "nats-1", "nats-2", "nats-3", "pg-monitor", "pg-node-1", "pg-node-2"}
	if !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}

	checkDatabase(t, p)

	// Three NATS nodes: one configuration (nats_test.go checks its routes), each node
	// with its own name and store, healthy once current with the JetStream leader.
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("nats-%d", i)
		n := p.Services[name]
		if env(n, "NATS_SERVER_NAME") != name {
			t.Errorf("%s: NATS_SERVER_NAME %q", name, env(n, "NATS_SERVER_NAME"))
		}
		if !slices.Equal(n.Command, []string{"--config", "/etc/nats/nats.conf"}) {
			t.Errorf("%s: command %v", name, n.Command)
		}
		if !hasVolume(n, "/data", types.VolumeTypeVolume) || !hasBind(n, "nats/nats.conf", "/etc/nats/nats.conf") {
			t.Errorf("%s: volumes %+v, want its own store on /data and nats/nats.conf", name, n.Volumes)
		}
		if n.HealthCheck == nil || !strings.Contains(strings.Join(n.HealthCheck.Test, " "), ":8222/healthz") {
			t.Errorf("%s: health check %+v, want the monitoring /healthz", name, n.HealthCheck)
		}
		if n.Build == nil || n.Build.Dockerfile != "container/nats.Dockerfile" || !strings.HasSuffix(n.Build.Context, "/deploy") {
			t.Errorf("%s: build %+v, want container/nats.Dockerfile", name, n.Build)
		}
	}

	// Three instances sharing every setting docs/operating.md says must be shared, each starting
	// once both database nodes and every NATS node are healthy.
	var first types.ServiceConfig
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("finledger-%d", i)
		s := p.Services[name]
		if i == 1 {
			first = s
		}
		if s.Build == nil || s.Build.Dockerfile != "deploy/container/Dockerfile" {
			t.Errorf("%s: build %+v", name, s.Build)
		}
		for _, key := range []string{"FINLEDGER_ENV", "FINLEDGER_SECRET_KEY", "FINLEDGER_DEPLOYMENT", "FINLEDGER_NATS_URL", "FINLEDGER_NATS_REPLICAS",
			"FINLEDGER_SESSION_HS256_SECRET", "FINLEDGER_SESSION_JWKS_URL", "FINLEDGER_PUBLIC_ORIGIN", "FINLEDGER_TRUSTED_PROXIES"} {
			if env(s, key) != env(first, key) {
				t.Errorf("%s: %s differs from finledger-1's", name, key)
			}
		}
		// The metrics are on the operators' address, never the API's, which the load
		// balancer serves (and no port of an instance is published: below).
		if admin := env(s, "FINLEDGER_ADMIN_ADDR"); !strings.HasSuffix(admin, ":9090") || admin == env(s, "FINLEDGER_HTTP_ADDR") {
			t.Errorf("%s: FINLEDGER_ADMIN_ADDR %q, want the operators' port 9090, apart from the API's", name, admin)
		}
		if env(s, "FINLEDGER_ENV") != "production" || env(s, "FINLEDGER_SECRET_KEY") != composeEnv["FINLEDGER_SECRET_KEY"] ||
			env(s, "FINLEDGER_DEPLOYMENT") == "" || env(s, "FINLEDGER_NATS_REPLICAS") != "3" {
			t.Errorf("%s: production settings %v", name, s.Environment)
		}
		servers := strings.Split(env(s, "FINLEDGER_NATS_URL"), ",")
		if !slices.Equal(servers, []string{"nats://nats-1:4222", "nats://nats-2:4222", "nats://nats-3:4222"}) {
			t.Errorf("%s: FINLEDGER_NATS_URL lists %v, want the three nodes", name, servers)
		}
		// Both nodes, the one taking writes chosen at each connection (docs/database.md).
		db := env(s, "FINLEDGER_DATABASE_URL")
		hosts, query := multiHostURL(t, db)
		if !strings.HasPrefix(db, "postgres://finledger:pw@") || !slices.Equal(hosts, []string{"pg-node-1:5432", "pg-node-2:5432"}) ||
			query.Get("target_session_attrs") != "read-write" || query.Get("sslmode") != "require" || query.Get("application_name") != name {
			t.Errorf("%s: FINLEDGER_DATABASE_URL %s, want both nodes, target_session_attrs=read-write, sslmode=require and its name", name, db)
		}
		for _, dep := range []string{"pg-node-1", "pg-node-2", "nats-1", "nats-2", "nats-3"} {
			if c := s.DependsOn[dep].Condition; c != types.ServiceConditionHealthy {
				t.Errorf("%s: depends on %s with condition %q, want service_healthy", name, dep, c)
			}
		}
		if !s.ReadOnly || !slices.Contains(s.CapDrop, "ALL") || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
			t.Errorf("%s: read_only %t, cap_drop %v, security_opt %v", name, s.ReadOnly, s.CapDrop, s.SecurityOpt)
		}
		if s.Restart != "on-failure" {
			t.Errorf("%s: restart %q", name, s.Restart)
		}
	}

	lb := p.Services["lb"]
	// The instances believe X-Forwarded-For of the load balancer, and of it alone.
	lbNet := lb.Networks["default"]
	if lbNet == nil || lbNet.Ipv4Address == "" || env(first, "FINLEDGER_TRUSTED_PROXIES") != lbNet.Ipv4Address {
		t.Errorf("FINLEDGER_TRUSTED_PROXIES %q, lb on %+v: want the load balancer's fixed address", env(first, "FINLEDGER_TRUSTED_PROXIES"), lbNet)
	}
	// Its address is outside the range the other containers are given addresses from,
	// or one started before it may have taken it.
	if n, ok := p.Networks["default"]; ok && len(n.Ipam.Config) == 1 && lbNet != nil {
		subnet, err1 := netip.ParsePrefix(n.Ipam.Config[0].Subnet)
		dynamic, err2 := netip.ParsePrefix(n.Ipam.Config[0].IPRange)
		addr, err3 := netip.ParseAddr(lbNet.Ipv4Address)
		if err := errors.Join(err1, err2, err3); err != nil || !subnet.Contains(addr) || dynamic.Contains(addr) || !subnet.Contains(dynamic.Addr()) {
			t.Errorf("lb on %s, subnet %q, ip_range %q: want lb in the subnet, outside the ip_range the others get addresses from (%v)",
				lbNet.Ipv4Address, n.Ipam.Config[0].Subnet, n.Ipam.Config[0].IPRange, err)
		}
	} else {
		t.Errorf("networks %+v, want one subnet of compose's own", p.Networks)
	}
	for i := 1; i <= 3; i++ {
		if _, ok := lb.DependsOn[fmt.Sprintf("finledger-%d", i)]; !ok {
			t.Errorf("lb does not depend on finledger-%d", i)
		}
	}
	if lb.Build == nil || lb.Build.Dockerfile != "container/caddy.Dockerfile" || !strings.HasSuffix(lb.Build.Context, "/deploy") {
		t.Errorf("lb: build %+v, want container/caddy.Dockerfile", lb.Build)
	}
	if !hasBind(lb, "caddy/Caddyfile", "/etc/caddy/Caddyfile") {
		t.Errorf("lb volumes %+v, want caddy/Caddyfile", lb.Volumes)
	}
	if len(lb.Ports) != 1 || lb.Ports[0].Target != 8080 || lb.Ports[0].Published != "8080" {
		t.Errorf("lb ports %+v, want 8080", lb.Ports)
	}
	for name, s := range p.Services {
		if name != "lb" && len(s.Ports) > 0 {
			t.Errorf("%s publishes ports %+v; only the load balancer should", name, s.Ports)
		}
	}
}

// Without the secrets, compose refuses to start rather than run with empty ones.
func TestComposeNeedsTheSecrets(t *testing.T) {
	for _, missing := range []string{"FINLEDGER_SECRET_KEY", "POSTGRES_PASSWORD"} {
		env := map[string]string{}
		for k, v := range composeEnv {
			if k != missing {
				env[k] = v
			}
		}
		if _, err := loadCompose(t, env); err == nil || !strings.Contains(err.Error(), missing) {
			t.Errorf("without %s: %v", missing, err)
		}
	}
}

func hasVolume(s types.ServiceConfig, target, typ string) bool {
	for _, v := range s.Volumes {
		if v.Target == target && v.Type == typ {
			return true
		}
	}
	return false
}

// hasBind reports whether s mounts the file of deploy/ named source at target, read-only.
func hasBind(s types.ServiceConfig, source, target string) bool {
	for _, v := range s.Volumes {
		if v.Type == types.VolumeTypeBind && v.Target == target && v.ReadOnly && strings.HasSuffix(v.Source, "/deploy/"+source) {
			return true
		}
	}
	return false
}

// checkDatabase checks the replicated database: a pg_auto_failover monitor and two nodes
// of the project's own image, each node made by pg_autoctl create postgres with the
// formation settings of the failover drill, then run by its keeper.
func checkDatabase(t *testing.T, p *types.Project) {
	t.Helper()
	var subnet string
	if n, ok := p.Networks["default"]; ok && len(n.Ipam.Config) == 1 {
		subnet = n.Ipam.Config[0].Subnet
	}
	for _, name := range []string{"pg-monitor", "pg-node-1", "pg-node-2"} {
		s := p.Services[name]
		if s.Build == nil || s.Build.Dockerfile != "container/pg_auto_failover.Dockerfile" || !strings.HasSuffix(s.Build.Context, "/deploy") {
			t.Errorf("%s: build %+v, want container/pg_auto_failover.Dockerfile", name, s.Build)
		}
		if !hasVolume(s, "/var/lib/postgresql", types.VolumeTypeVolume) {
			t.Errorf("%s: volumes %+v, want a named volume of its own on /var/lib/postgresql", name, s.Volumes)
		}
		if s.HealthCheck == nil || !slices.Contains(s.HealthCheck.Test, "pg_isready") {
			t.Errorf("%s: health check %+v, want pg_isready", name, s.HealthCheck)
		}
		if env(s, "POSTGRES_PASSWORD") != composeEnv["POSTGRES_PASSWORD"] {
			t.Errorf("%s: POSTGRES_PASSWORD not passed", name)
		}
		script := strings.Join(s.Command, " ")
		// Passwords, as the single PostgreSQL had; TLS with self-signed certificates.
		for _, want := range []string{"--auth scram-sha-256", "--ssl-self-signed", ".pgpass", "exec pg_autoctl run"} {
			if !strings.Contains(script, want) {
				t.Errorf("%s: command does not have %q:\n%s", name, want, script)
			}
		}
		if strings.Contains(script, "--auth trust") || strings.Contains(script, "--no-ssl") {
			t.Errorf("%s: command trusts the network or turns TLS off:\n%s", name, script)
		}
		// The servers let the compose network's subnet, and it alone, log in with a
		// password over TLS.
		for _, line := range regexp.MustCompile(`"(host\w*( [^ "]+){4})"`).FindAllStringSubmatch(script, -1) {
			f := strings.Fields(line[1])
			if f[0] != "hostssl" || f[3] != subnet || f[4] != "scram-sha-256" {
				t.Errorf("%s: pg_hba.conf rule %q, want hostssl from %s with scram-sha-256", name, line[1], subnet)
			}
		}
		if !strings.Contains(script, `scram-sha-256" >>"$PGDATA/pg_hba.conf"`) {
			t.Errorf("%s: adds no pg_hba.conf rule for the compose network", name)
		}
	}
	volumes := map[string]bool{}
	for _, name := range []string{"pg-monitor", "pg-node-1", "pg-node-2"} {
		for _, v := range p.Services[name].Volumes {
			if volumes[v.Source] {
				t.Errorf("%s shares the volume %s", name, v.Source)
			}
			volumes[v.Source] = true
		}
	}

	monitor := strings.Join(p.Services["pg-monitor"].Command, " ")
	if !strings.Contains(monitor, "pg_autoctl create monitor") || !strings.Contains(monitor, "--hostname pg-monitor") {
		t.Errorf("pg-monitor: command %s, want pg_autoctl create monitor", monitor)
	}
	for i, name := range []string{"pg-node-1", "pg-node-2"} {
		s := p.Services[name]
		script := strings.ReplaceAll(strings.Join(s.Command, " "), `"`, "")
		for _, want := range []string{"pg_autoctl create postgres", "--monitor postgres://autoctl_node@pg-monitor:5432/pg_auto_failover?sslmode=require",
			"--hostname $NODE --name $NODE", "--dbname finledger", "--replication-quorum true", "--candidate-priority 50", "replication.password",
			"ALTER USER pgautofailover_replicator PASSWORD",
			// The cluster's superuser is finledger, pg_autoctl's local logins too.
			"initdb -D $PGDATA -U finledger", "export PGUSER=finledger"} {
			if !strings.Contains(script, want) {
				t.Errorf("%s: command does not have %q:\n%s", name, want, script)
			}
		}
		if env(s, "NODE") != name || s.Hostname != name {
			t.Errorf("%s: NODE %q, hostname %q", name, env(s, "NODE"), s.Hostname)
		}
		if c := s.DependsOn["pg-monitor"].Condition; c != types.ServiceConditionHealthy {
			t.Errorf("%s: depends on pg-monitor with condition %q, want service_healthy", name, c)
		}
		// Node 2 registers once node 1 is up, so that node 1 is the first primary.
		if i == 1 {
			if c := s.DependsOn["pg-node-1"].Condition; c != types.ServiceConditionHealthy {
				t.Errorf("%s: depends on pg-node-1 with condition %q, want service_healthy", name, c)
			}
		}
	}
}

// multiHostURL returns the hosts of a libpq URL naming several, and its query.
func multiHostURL(t *testing.T, s string) ([]string, url.Values) {
	t.Helper()
	rest, ok := strings.CutPrefix(s, "postgres://")
	if !ok {
		return nil, nil
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = rest[at+1:]
	}
	hosts, rest, _ := strings.Cut(rest, "/")
	_, rawQuery, _ := strings.Cut(rest, "?")
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		t.Errorf("%s: %v", s, err)
	}
	return strings.Split(hosts, ","), query
}

// Every service's image is built from a Dockerfile of the repository, and `make images`
// builds each with the tag compose names it by, from the same Dockerfile and context, so
// that `docker compose up` finds them all on a machine that cannot build with compose's
// defaults (no registry for the bases).
func TestMakeImagesBuildsComposeImages(t *testing.T) {
	p, err := loadCompose(t, composeEnv)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(deployFile(t, "compose.yaml")))
	makefile := strings.ReplaceAll(string(readDeployFile(t, "../Makefile")), "\\\n", " ")
	_, recipe, ok := strings.Cut(makefile, "\nimages:")
	if !ok {
		t.Fatal("the Makefile has no images target")
	}
	recipe, _, _ = strings.Cut(recipe, "\n\n")
	builds := map[string]string{}
	for _, step := range strings.Split(recipe, "&&") {
		if f := strings.Fields(step); len(f) >= 2 && f[0] == "image" {
			builds[f[1]] = strings.Join(f, " ")
		}
	}
	for name, s := range p.Services {
		if s.Build == nil {
			t.Errorf("%s: image %s has no build; every image is the project's", name, s.Image)
			continue
		}
		rel := func(path string) string {
			r, err := filepath.Rel(root, path)
			if err != nil {
				t.Fatal(err)
			}
			return filepath.ToSlash(r)
		}
		dockerfile, context := rel(filepath.Join(s.Build.Context, s.Build.Dockerfile)), rel(s.Build.Context)
		step := builds[s.Image]
		if !strings.Contains(step, " -f "+dockerfile+" ") || !strings.HasSuffix(step, " "+context) {
			t.Errorf("%s: make images builds %s by %q, want -f %s and context %s", name, s.Image, step, dockerfile, context)
		}
	}
}
