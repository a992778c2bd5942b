package check

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
)

// The load balancer's Caddyfile adapts to a configuration Caddy accepts, which spreads
// requests over the three instances and takes out those whose /readyz is not 200.
func TestCaddyfile(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	if adapter == nil {
		t.Fatal("no caddyfile adapter")
	}
	raw, warnings, err := adapter.Adapt(readDeployFile(t, "caddy/Caddyfile"), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Errorf("warning: %s", w.String())
	}
	var cfg caddy.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	// Provisions every module as `caddy run` would, without listening; only errors are
	// logged (the health checkers it starts stop at once).
	cfg.Logging = &caddy.Logging{Logs: map[string]*caddy.CustomLog{"default": {BaseLog: caddy.BaseLog{Level: "ERROR"}}}}
	if err := caddy.Validate(&cfg); err != nil {
		t.Fatal(err)
	}

	var adapted struct {
		Apps struct {
			HTTP json.RawMessage `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(raw, &adapted); err != nil {
		t.Fatal(err)
	}
	var http struct {
		Servers map[string]struct {
			Listen []string `json:"listen"`
			Routes []struct {
				Handle []struct {
					Handler   string `json:"handler"`
					Upstreams []struct {
						Dial string `json:"dial"`
					} `json:"upstreams"`
					HealthChecks struct {
						Active struct {
							URI          string `json:"uri"`
							ExpectStatus int    `json:"expect_status"`
						} `json:"active"`
					} `json:"health_checks"`
					LoadBalancing struct {
						SelectionPolicy struct {
							Policy string `json:"policy"`
						} `json:"selection_policy"`
					} `json:"load_balancing"`
					FlushInterval int64 `json:"flush_interval"`
				} `json:"handle"`
			} `json:"routes"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(adapted.Apps.HTTP, &http); err != nil {
		t.Fatal(err)
	}
	if len(http.Servers) != 1 {
		t.Fatalf("%d servers", len(http.Servers))
	}
	for _, srv := range http.Servers {
		if !slices.Equal(srv.Listen, []string{":8080"}) {
			t.Errorf("listens on %v, want :8080", srv.Listen)
		}
		var proxies int
		for _, r := range srv.Routes {
			for _, h := range r.Handle {
				if h.Handler != "reverse_proxy" {
					continue
				}
				proxies++
				var dials []string
				for _, u := range h.Upstreams {
					dials = append(dials, u.Dial)
				}
				if !slices.Equal(dials, []string{"finledger-1:8080", "finledger-2:8080", "finledger-3:8080"}) {
					t.Errorf("upstreams %v, want the three instances", dials)
				}
				if a := h.HealthChecks.Active; a.URI != "/readyz" || a.ExpectStatus != 200 {
					t.Errorf("active health check %+v, want GET /readyz expecting 200", a)
				}
				if p := h.LoadBalancing.SelectionPolicy.Policy; p != "round_robin" {
					t.Errorf("selection policy %q", p)
				}
				if h.FlushInterval != -1 {
					t.Errorf("flush interval %d: the realtime stream must not be buffered", h.FlushInterval)
				}
			}
		}
		if proxies != 1 {
			t.Errorf("%d reverse proxies, want 1", proxies)
		}
	}
	if strings.Contains(string(raw), `"encode"`) {
		t.Error("responses are compressed; text/event-stream must not be")
	}
}
