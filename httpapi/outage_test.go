package httpapi_test

import (
	"context"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/leader"
	"github.com/finledger/finledger/internal/pgcluster"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// privateCluster starts a PostgreSQL server of the test's own, which it may stop and
// start again, with a migrated database; it returns the cluster, its folder and the
// database's URL.
func privateCluster(t *testing.T, ctx context.Context) (*pgcluster.Cluster, string, string) {
	t.Helper()
	// Not t.TempDir: run as root, the server runs as another user, who must be able to
	// enter every folder above its own.
	dir, err := os.MkdirTemp("", "finledger-outage-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Settings: map[string]string{"fsync": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	conn, err := pgx.Connect(ctx, cluster.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE finledger`); err != nil {
		t.Fatal(err)
	}
	return cluster, dir, cluster.URL("finledger")
}

// expectUnavailable checks an answer is 503 SERVICE_UNAVAILABLE with a Retry-After of a
// few seconds.
func expectUnavailable(t *testing.T, what string, r *apitest.Response) {
	t.Helper()
	if r.Status != http.StatusServiceUnavailable || r.ErrorCode() != "SERVICE_UNAVAILABLE" {
		t.Fatalf("%s during the outage: %d %s", what, r.Status, r.Raw)
	}
	if ra := r.Header.Get("Retry-After"); ra != "5" {
		t.Fatalf("%s during the outage: Retry-After %q", what, ra)
	}
}

// While PostgreSQL is down, reads and writes answer 503 with Retry-After, never 500;
// once it is back on the same port and data, the same server answers again, writes
// included, and a leader's worker runs again, all without a restart.
func TestDatabaseOutage(t *testing.T) {
	ctx := context.Background()
	cluster, dir, url := privateCluster(t, ctx)
	pool := testdb.MigratedPool(t, url, 8)
	env := apitest.StartOn(t, pool, apitest.Options())
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 10, "isDefault": true}).Expect(t, http.StatusOK)

	// A background worker elected by advisory lock, as the relay, the dispatcher and the
	// scheduler are: each time it leads, it works until its lock's connection is lost.
	var leads atomic.Int32
	workerCtx, stopWorker := context.WithCancel(ctx)
	workerDone := make(chan struct{})
	go func() {
		defer close(workerDone)
		_ = leader.Run(workerCtx, pool, "outage test", 0x6f75746167650001, 100*time.Millisecond, func(ctx context.Context) error {
			leads.Add(1)
			<-ctx.Done()
			return nil
		})
	}()
	t.Cleanup(func() { stopWorker(); <-workerDone })
	waitFor(t, "the worker to lead", 30*time.Second, func() bool { return leads.Load() == 1 })

	// Clients keep reading and writing while the server shuts down and starts again:
	// requests in flight lose their connection or are ended by the shutdown (57P01),
	// later ones are refused or meet a server still starting (57P03). Each answer is a
	// success or a 503, never a 500.
	var (
		mu       sync.Mutex
		answers  = map[int]int{}
		bad      []string
		loadDone = make(chan struct{})
		stopLoad = make(chan struct{})
		clients  sync.WaitGroup
	)
	for i := range 4 {
		clients.Add(1)
		go func() {
			defer clients.Done()
			for n := 0; ; n++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				var r *apitest.Response
				if (i+n)%2 == 0 {
					r = alice.Get("/api/wallets")
				} else {
					r = alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1})
				}
				mu.Lock()
				answers[r.Status]++
				if r.Status != http.StatusOK && r.Status != http.StatusCreated &&
					(r.Status != http.StatusServiceUnavailable || r.ErrorCode() != "SERVICE_UNAVAILABLE" || r.Header.Get("Retry-After") == "") {
					bad = append(bad, string(r.Raw))
				}
				mu.Unlock()
			}
		}()
	}
	go func() { clients.Wait(); close(loadDone) }()
	time.Sleep(200 * time.Millisecond)

	port := cluster.Port()
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	// The pool's idle connections died with the server (connection lost), then new ones
	// are refused: both are 503, for every kind of request.
	for range 3 {
		expectUnavailable(t, "GET /api/wallets", alice.Get("/api/wallets"))
		expectUnavailable(t, "GET /api/transactions", alice.Get("/api/transactions?search=x"))
		expectUnavailable(t, "POST /api/wallets", alice.With("Idempotency-Key", "outage-1").Post("/api/wallets", map[string]any{"name": "Bank"}))
		expectUnavailable(t, "POST /api/transactions", alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1}))
	}
	ready := env.Anonymous().Get("/readyz")
	if ready.Status != http.StatusServiceUnavailable || ready.Header.Get("Retry-After") == "" {
		t.Fatalf("/readyz during the outage: %d %s", ready.Status, ready.Raw)
	}

	cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Port: port, Settings: map[string]string{"fsync": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	time.Sleep(200 * time.Millisecond)
	close(stopLoad)
	<-loadDone
	t.Logf("answers while the server stopped and started: %v", answers)
	if len(bad) > 0 || answers[http.StatusServiceUnavailable] == 0 {
		t.Fatalf("answers %v; not a success or a 503: %q", answers, bad)
	}

	// Same server, same pool: it answers again, and the write that was refused is
	// applied once when retried with its key.
	env.Anonymous().Get("/readyz").Expect(t, http.StatusOK)
	alice.Get("/api/wallets").Expect(t, http.StatusOK)
	bank := alice.With("Idempotency-Key", "outage-1").Post("/api/wallets", map[string]any{"name": "Bank"}).Expect(t, http.StatusOK)
	again := alice.With("Idempotency-Key", "outage-1").Post("/api/wallets", map[string]any{"name": "Bank"}).Expect(t, http.StatusOK)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.Object("wallet")["id"] != bank.Object("wallet")["id"] {
		t.Fatalf("retry after the outage: %s", again.Raw)
	}
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1}).Expect(t, http.StatusCreated)
	if n := len(alice.Get("/api/wallets").Expect(t, http.StatusOK).List("wallets")); n != 2 {
		t.Fatalf("%d wallets after the outage, want 2", n)
	}
	// Whatever the outage cut short left nothing half-written: the read models equal
	// the replay of the log.
	replayAgrees(t, pool)
	// The worker lost its lock with the server and leads again.
	waitFor(t, "the worker to lead again", 30*time.Second, func() bool { return leads.Load() >= 2 })
}
