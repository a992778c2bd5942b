package apitest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/containers"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/webapp"
	"github.com/finledger/finledger/webhooks"
	"github.com/finledger/finledger/webhooks/bus"
	"github.com/finledger/finledger/webhooks/push"
	"github.com/finledger/finledger/webhooks/safehttp"
)

// Events is a test's NATS server with JetStream (the test binary's, or one of its own)
// and its webhooks relay and dispatcher.
type Events struct {
	t      testing.TB
	Server containers.NATSServer
	Bus    *bus.Bus
	// Config is what each Run wires; a test may change it before Run.
	Config webhooks.Config
	// Service runs between Run and its stop; each Run makes a new one, as a restarted
	// instance would.
	Service *webhooks.Service
}

// StartEvents runs the API with the test binary's NATS server (containers.SharedNATS)
// behind its realtime stream, under its new database's own deployment name, and returns
// the webhooks relay and dispatcher, not yet running. Deliveries retry on schedule (nil:
// one quick retry schedule for tests) and may reach this machine. A test that stops or
// restarts NATS gives StartEventsOn a server of its own (containers.NATSFor).
func StartEvents(t testing.TB, schedule []time.Duration) (*Env, *Events) {
	t.Helper()
	return StartEventsOn(t, containers.SharedNATS(t), "", schedule)
}

// StartAppEvents is StartEvents with the web app, made by Env.App from app.
func StartAppEvents(t testing.TB, app webapp.Config) (*Env, *Events) {
	t.Helper()
	return startEvents(t, containers.SharedNATS(t), "", nil, &app)
}

// StartEventsOn is StartEvents on the NATS server srv, which other deployments may use
// too, as deployments share a NATS cluster. The new database's deployment is called
// name, or its default name when name is empty.
func StartEventsOn(t testing.TB, srv containers.NATSServer, name string, schedule []time.Duration) (*Env, *Events) {
	t.Helper()
	return startEvents(t, srv, name, schedule, nil)
}

func startEvents(t testing.TB, srv containers.NATSServer, name string, schedule []time.Duration, app *webapp.Config) (*Env, *Events) {
	t.Helper()
	pool := testdb.Pool(t)
	deployment, err := webhooks.Deployment(context.Background(), pool, name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bus.Connect(context.Background(), srv.URL(), deployment)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if schedule == nil {
		schedule = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
	}
	opts := Options()
	opts.Events = b
	env := newEnv(t, pool, opts)
	if app != nil {
		env.options.Browser = env.App(*app)
	}
	env.serve()
	ev := &Events{t: t, Server: srv, Bus: b, Config: webhooks.Config{Pool: env.Pool, Bus: b, Box: Box,
		Client: safehttp.Policy{AllowPrivate: true}.Client(10 * time.Second), Schedule: schedule, Interval: 20 * time.Millisecond, AckWait: 500 * time.Millisecond,
		Push: &push.Sender{Pool: env.Pool, Keys: PushKeys, Client: safehttp.Policy{AllowPrivate: true}.Client(10 * time.Second)}}}
	return env, ev
}

// Run starts a relay and a dispatcher, as an instance would, and returns what stops
// them; stopping waits until they have stopped.
func (ev *Events) Run() (stop func()) {
	ev.t.Helper()
	svc, err := webhooks.New(ev.Config)
	if err != nil {
		ev.t.Fatal(err)
	}
	ev.Service = svc
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); svc.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	ev.t.Cleanup(stop)
	return stop
}
