package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/coreos/go-systemd/v22/unit"
)

// The unit runs `finledger serve` as a user without privileges in a read-only system,
// with its settings from a file, restarted when it fails.
func TestSystemdUnit(t *testing.T) {
	opts, err := unit.DeserializeOptions(bytes.NewReader(readDeployFile(t, "systemd/finledger.service")))
	if err != nil {
		t.Fatal(err)
	}
	values := map[string][]string{}
	for _, o := range opts {
		key := o.Section + "." + o.Name
		values[key] = append(values[key], o.Value)
	}
	one := func(key string) string {
		v := values[key]
		if len(v) != 1 {
			t.Errorf("%s set %d times, want once", key, len(v))
			return ""
		}
		return v[0]
	}
	if got := one("Service.ExecStart"); got != "/usr/local/bin/finledger serve" {
		t.Errorf("ExecStart=%s", got)
	}
	if one("Service.DynamicUser") != "yes" && values["Service.User"] == nil {
		t.Error("neither DynamicUser=yes nor a User")
	}
	if u := values["Service.User"]; len(u) > 0 && (u[0] == "root" || u[0] == "0") {
		t.Error("User=root")
	}
	for key, want := range map[string]string{
		"Service.ProtectSystem":   "strict",
		"Service.NoNewPrivileges": "yes",
		"Service.ProtectHome":     "yes",
		"Service.PrivateTmp":      "yes",
		"Service.Restart":         "on-failure",
		"Service.Type":            "simple",
		"Install.WantedBy":        "multi-user.target",
	} {
		if got := one(key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}
	if env := one("Service.EnvironmentFile"); !strings.HasPrefix(env, "/etc/finledger/") {
		t.Errorf("EnvironmentFile=%s", env)
	}
	if got := one("Service.CapabilityBoundingSet"); got != "" {
		t.Errorf("CapabilityBoundingSet=%s, want none", got)
	}
	envs := strings.Join(values["Service.Environment"], " ")
	if !strings.Contains(envs, "FINLEDGER_ENV=production") {
		t.Errorf("Environment=%s, want FINLEDGER_ENV=production", envs)
	}
	// A bad setting exits 2 (docs/operating.md, "Commands"); restarting cannot mend it.
	if got := one("Service.RestartPreventExitStatus"); got != "2" {
		t.Errorf("RestartPreventExitStatus=%s, want 2", got)
	}
	if stop := one("Service.TimeoutStopSec"); stop == "" {
		t.Error("no TimeoutStopSec")
	}
}
