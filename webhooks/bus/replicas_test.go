package bus_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/finledger/finledger/webhooks/bus"
)

// freePort returns a port of 127.0.0.1 nobody listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startCluster starts three NATS servers with JetStream in this process, routed to each
// other as one cluster, and returns them with the comma-separated URLs of their clients.
func startCluster(t *testing.T) ([]*server.Server, string) {
	t.Helper()
	routes := make([]int, 3)
	for i := range routes {
		routes[i] = freePort(t)
	}
	var servers []*server.Server
	var urls []string
	for i := range 3 {
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       server.RANDOM_PORT,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoSigs:     true,
			Cluster:    server.ClusterOpts{Name: "test", Host: "127.0.0.1", Port: routes[i]},
		}
		for j, port := range routes {
			if j != i {
				opts.Routes = append(opts.Routes, server.RoutesFromStr(fmt.Sprintf("nats://127.0.0.1:%d", port))...)
			}
		}
		srv, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
		if !srv.ReadyForConnections(10 * time.Second) {
			t.Fatalf("server %d not ready", i+1)
		}
		servers = append(servers, srv)
		urls = append(urls, srv.ClientURL())
	}
	return servers, strings.Join(urls, ",")
}

// A deployment asking for three replicas on a cluster of three gets a stream each server
// keeps: with the stream's leader stopped, what was published is still delivered, and
// publishing goes on through the survivors.
func TestReplicatedStreamSurvivesAServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	t.Parallel()
	servers, urls := startCluster(t)
	deadline := time.Now().Add(30 * time.Second)
	for _, srv := range servers {
		for srv.Healthz(nil).Status != "ok" {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v", srv.Name(), srv.Healthz(nil))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	d := deployment("replicated", "db-r")
	d.Replicas = 3
	// Instances start together: one makes the stream while the others find it being
	// made, which on a cluster must not leave any of them waiting for an answer.
	buses := make([]*bus.Bus, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range buses {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * 40 * time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			buses[i], errs[i] = bus.Connect(ctx, urls, d)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: connect to the cluster: %v", i, err)
		}
		t.Cleanup(buses[i].Close)
	}
	b := buses[0]
	js, err := jetstream.New(b.Conn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, b.Names().Stream)
	if err != nil {
		t.Fatal(err)
	}
	info := s.CachedInfo()
	if info.Config.Replicas != 3 || info.Cluster == nil || len(info.Cluster.Replicas) != 2 {
		t.Fatalf("stream replicas %d, cluster %+v; want 3 (a leader and two followers)", info.Config.Replicas, info.Cluster)
	}

	ws := uuid.New()
	var sent []string
	for i := range 3 {
		m := event(ws, i)
		sent = append(sent, m.UUID)
		publishTo(t, b, m)
	}
	for _, srv := range servers {
		if srv.Name() == info.Cluster.Leader {
			srv.Shutdown()
			srv.WaitForShutdown()
		}
	}
	// A new leader is elected within seconds; until then publishes fail, and the relay
	// would try again.
	pub, err := b.Publisher()
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	for i := 3; i < 6; i++ {
		m := event(ws, i)
		sent = append(sent, m.UUID)
		var err error
		for attempt := 0; attempt < 100; attempt++ {
			if err = pub.Publish(b.Names().Subject(ws), m); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("publish after the leader stopped: %v", err)
		}
	}
	_, ch := subscribe(t, b, "dispatcher")
	if got := receiveAck(t, ch, len(sent)); !equal(got, sent) {
		t.Fatalf("received %v, want %v", got, sent)
	}
}

// A single server keeps one copy: asking it for more fails at connect, naming the cause.
func TestReplicasNeedACluster(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	d := deployment("alone", "db-alone")
	d.Replicas = 3
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if b, err := bus.Connect(ctx, srv.URL(), d); err == nil {
		b.Close()
		t.Fatal("a single server accepted a stream of three replicas")
	} else if !strings.Contains(err.Error(), "replicas") {
		t.Fatalf("err %v does not say replicas", err)
	}
}
