package main

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/containers"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/webhooks/bus"
)

// FINLEDGER_DEPLOYMENT is checked at start: it names streams and consumers on NATS.
func TestDeploymentSetting(t *testing.T) {
	for _, c := range []struct {
		value string
		ok    bool
	}{
		{"", true}, {"prod", true}, {"Staging-2_eu", true},
		{"a.b", false}, {"has space", false}, {"x>", false}, {strings.Repeat("x", 33), false},
	} {
		t.Setenv("FINLEDGER_DEPLOYMENT", c.value)
		cfg, err := loadConfig()
		switch {
		case c.ok && (err != nil || cfg.Deployment != c.value):
			t.Errorf("%q: deployment %q, err %v", c.value, cfg.Deployment, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "FINLEDGER_DEPLOYMENT")):
			t.Errorf("%q: err %v, want one about FINLEDGER_DEPLOYMENT", c.value, err)
		}
	}
}

// On one NATS server, two instances of a database start together as deployment prod;
// an instance of another database set to prod refuses to start, naming both databases
// and telling the operator what to set.
func TestServeRefusesAnotherDatabasesDeployment(t *testing.T) {
	srv := containers.NATSFor(t)
	instance := func(dbURL string) config {
		return config{DatabaseURL: dbURL, HTTPAddr: "127.0.0.1:0", Env: "development", DataDir: t.TempDir(),
			SessionHS256Secret: "a-session-secret-for-these-tests", StateCacheSize: 100, DBMaxConns: 4, NATSURL: srv.URL(), Deployment: "prod"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prodURL := testdb.URL(t)
	ready, done := make(chan string, 2), make(chan error, 2)
	for range 2 {
		cfg := instance(prodURL)
		go func() { done <- serve(ctx, cfg, func(base string) { ready <- base }) }()
	}
	for range 2 {
		select {
		case <-ready:
		case err := <-done:
			t.Fatalf("an instance of prod's database stopped: %v", err)
		case <-time.After(60 * time.Second):
			t.Fatal("the instances of prod's database did not start")
		}
	}

	thirdURL := testdb.URL(t)
	err := serve(ctx, instance(thirdURL), func(string) { t.Error("an instance of another database started as prod") })
	if !errors.Is(err, bus.ErrStreamOwned) {
		t.Fatalf("err = %v, want ErrStreamOwned", err)
	}
	for _, want := range []string{"FINLEDGER_DEPLOYMENT", dbNameOf(t, prodURL), dbNameOf(t, thirdURL)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
	cancel()
	for range 2 {
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("instance stopped with %v", err)
		}
	}
}

// dbNameOf is the name of the database of a URL.
func dbNameOf(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}
