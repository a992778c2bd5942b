package check

import (
	"context"
	"fmt"
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
	want := []string{"finledger-1", "finledger-2", "finledger-3", "lb", "nats-1", "nats-2", "nats-3", "postgres"}
	if !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}

	pg := p.Services["postgres"]
	if !strings.HasPrefix(pg.Image, "postgres:15") {
		t.Errorf("postgres image %s", pg.Image)
	}
	if pg.HealthCheck == nil || !slices.Contains(pg.HealthCheck.Test, "pg_isready") {
		t.Errorf("postgres health check %+v, want pg_isready", pg.HealthCheck)
	}
	if !hasVolume(pg, "/var/lib/postgresql/data", types.VolumeTypeVolume) {
		t.Errorf("postgres keeps its data in no named volume: %+v", pg.Volumes)
	}

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
	}

	// Three instances sharing every setting docs/operating.md says must be shared, each starting
	// once PostgreSQL and every NATS node are healthy.
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
		if db := env(s, "FINLEDGER_DATABASE_URL"); !strings.HasPrefix(db, "postgres://finledger:pw@postgres:5432/finledger?") ||
			!strings.Contains(db, "application_name="+name) {
			t.Errorf("%s: FINLEDGER_DATABASE_URL %s", name, db)
		}
		for _, dep := range []string{"postgres", "nats-1", "nats-2", "nats-3"} {
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
	for i := 1; i <= 3; i++ {
		if _, ok := lb.DependsOn[fmt.Sprintf("finledger-%d", i)]; !ok {
			t.Errorf("lb does not depend on finledger-%d", i)
		}
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
