package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/leader"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/pgfailover"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// The failover drill. Three instances serve one replicated database (a primary and a
// synchronous standby under pg_auto_failover) through its multi-host URL while clients
// write: several at once to one workspace, one each to three others, every write with
// an Idempotency-Key. The primary's machine dies (SIGKILL of its keeper, postmaster and
// backends); the monitor promotes the standby. Clients retry each 503 with the same key
// until it succeeds. Afterwards every acknowledged write is there exactly once, nothing
// else is, balances are exact, each workspace's hash chain verifies, the read models
// equal the replay of the log, the only errors were 503s with Retry-After, the
// advisory-lock leader is elected again on the new primary, and the old primary rejoins
// as a standby, after which writes go on. Then both servers go down: writes are 503s
// until they are back.
func TestFailoverLosesNothing(t *testing.T) {
	ctx := context.Background()
	formation := pgfailover.Start(t)
	// The pool only connects to the node that takes writes, so the migrations run on
	// the primary.
	pool := testdb.MigratedPool(t, formation.URL(pgfailover.Database), 16)
	env := apitest.StartOn(t, pool, apitest.Options())
	instances := []*apitest.Env{env, env.Instance(), env.Instance()}

	// Two contenders for one advisory lock, as the relay, the dispatcher and the
	// scheduler of two instances are; each lead lasts until its lock's connection is lost.
	const lockID = 0x6661696c6f766572
	var leads atomic.Int32
	var leading sync.Map // contender -> true while it leads
	leaderCtx, stopLeaders := context.WithCancel(ctx)
	var leadersDone sync.WaitGroup
	for i := range 2 {
		leadersDone.Add(1)
		go func() {
			defer leadersDone.Done()
			_ = leader.Run(leaderCtx, pool, "failover drill", lockID, 100*time.Millisecond, func(ctx context.Context) error {
				leads.Add(1)
				leading.Store(i, true)
				defer leading.Delete(i)
				<-ctx.Done()
				return nil
			})
		}()
	}
	t.Cleanup(func() { stopLeaders(); leadersDone.Wait() })
	waitFor(t, "a leader", 30*time.Second, func() bool { return leads.Load() == 1 })

	const start = 100000
	users := []string{"payer", "ana", "ben", "cleo"}
	wallets := map[string]string{}
	for _, u := range users {
		wallets[u] = env.As(u).Post("/api/wallets", map[string]any{"name": "Cash", "balance": start, "isDefault": true}).
			Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	}

	// Writers: four on the payer's workspace, one on each other. Each write is an
	// expense described by its own key, sent to the instances in turn and retried,
	// with the same key, after each 503 (sooner than Retry-After asks, to keep the
	// drill short). A writer told to stop finishes its write first, so every write
	// made was acknowledged. A write still refused after retryFor is a failure.
	const retryFor = 45 * time.Second
	type write struct {
		user, key string
		amount    int
	}
	var (
		mu        sync.Mutex
		acked     []write
		answers   = map[int]int{}
		bad       []string
		sinceKill atomic.Int32 // writes acknowledged after the promotion
		promoted  atomic.Bool
		stop      = make(chan struct{})
		writers   sync.WaitGroup
	)
	writer := func(w int, user string) {
		defer writers.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			wr := write{user: user, key: fmt.Sprintf("%s-w%d-%d", user, w, n), amount: 1 + (w+n)%5}
			giveUp := time.Now().Add(retryFor)
			for try := 0; ; try++ {
				c := env.As(user).On(instances[(w+n+try)%len(instances)]).With("Idempotency-Key", wr.key)
				r := c.Post("/api/transactions", map[string]any{"type": "expense", "amount": wr.amount,
					"walletId": wallets[user], "description": wr.key})
				mu.Lock()
				answers[r.Status]++
				ok := r.Status == http.StatusCreated
				if !ok && (r.Status != http.StatusServiceUnavailable || r.ErrorCode() != "SERVICE_UNAVAILABLE" || retryAfter(r) <= 0) {
					bad = append(bad, fmt.Sprintf("%s: %d %s %s", wr.key, r.Status, r.Header.Get("Retry-After"), r.Raw))
					ok = true // not retried: the drill fails on it
				}
				if r.Status == http.StatusCreated {
					acked = append(acked, wr)
					if promoted.Load() {
						sinceKill.Add(1)
					}
				}
				if !ok && time.Now().After(giveUp) {
					bad = append(bad, fmt.Sprintf("%s: still 503 after %s", wr.key, retryFor))
					ok = true
				}
				mu.Unlock()
				if ok {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	for w := range 4 {
		writers.Add(1)
		go writer(w, "payer")
	}
	for w, u := range users[1:] {
		writers.Add(1)
		go writer(w, u)
	}
	waitFor(t, "writes before the failover", 30*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 40 })

	killedAt := time.Now()
	old := formation.KillPrimary()
	primary := formation.WaitPromoted(old)
	promoted.Store(true)
	t.Logf("node %d promoted %s after node %d was killed", primary, time.Since(killedAt).Round(100*time.Millisecond), old)
	waitFor(t, "writes after the promotion", 30*time.Second, func() bool { return sinceKill.Load() >= 40 })
	close(stop)
	writers.Wait()
	t.Logf("answers across the failover: %v, %d writes acknowledged, back %s after the kill",
		answers, len(acked), time.Since(killedAt).Round(100*time.Millisecond))
	if len(bad) > 0 {
		t.Fatalf("answers neither a success nor a 503 with Retry-After: %q", bad)
	}
	if answers[http.StatusServiceUnavailable] == 0 {
		t.Fatal("no write met the failover: the drill tested nothing")
	}

	// Every acknowledged write is in the read model once, and nothing else is.
	count := func() map[string]int {
		rows, err := pool.Query(ctx, `SELECT description, count(*) FROM transactions GROUP BY description`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		var key string
		var n int
		if _, err := pgx.ForEachRow(rows, []any{&key, &n}, func() error { got[key] = n; return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	stored := count()
	spent := map[string]int{}
	for _, w := range acked {
		if stored[w.key] != 1 {
			t.Errorf("acknowledged write %s is stored %d times", w.key, stored[w.key])
		}
		spent[w.user] += w.amount
	}
	if len(stored) != len(acked) {
		t.Errorf("%d transactions stored, %d writes acknowledged", len(stored), len(acked))
	}
	for _, u := range users {
		balance := env.As(u).Get("/api/wallets/"+wallets[u]).Expect(t, http.StatusOK).Object("wallet")["balance"]
		if got, err := strconv.ParseFloat(fmt.Sprint(balance), 64); err != nil || got != float64(start-spent[u]) {
			t.Errorf("%s's balance %v, want %d", u, balance, start-spent[u])
		}
		check := env.As(u).Get("/api/audit/verify").Expect(t, http.StatusOK)
		if check.JSON["intact"] != true {
			t.Errorf("%s's history after the failover: %s", u, check.Raw)
		}
	}
	replayAgrees(t, pool)

	// The lock went with the old primary; one contender leads again, holding it on the
	// new primary.
	waitFor(t, "a leader after the failover", 30*time.Second, func() bool {
		n := 0
		leading.Range(func(any, any) bool { n++; return true })
		return leads.Load() >= 2 && n == 1
	})
	direct, err := pgx.Connect(ctx, formation.NodeURL(primary, pgfailover.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	var free bool
	if err := direct.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, int64(lockID)).Scan(&free); err != nil || free {
		t.Fatalf("the leader's lock on the new primary: free %v (%v)", free, err)
	}

	// The old primary comes back as the standby; writes go on, and a service that
	// reaches the standby alone is told 503, not 500, when it writes.
	formation.Rejoin(old)
	if formation.Primary() != primary {
		t.Fatalf("node %d is the primary after the rejoin, want %d", formation.Primary(), primary)
	}
	for _, u := range users {
		env.As(u).With("Idempotency-Key", u+"-after-rejoin").Post("/api/transactions", map[string]any{"type": "expense", "amount": 1,
			"walletId": wallets[u], "description": u + "-after-rejoin"}).Expect(t, http.StatusCreated)
	}
	if got := count(); len(got) != len(acked)+len(users) {
		t.Errorf("%d transactions after the rejoin, want %d", len(got), len(acked)+len(users))
	}

	// Both servers down: a write is a 503 with Retry-After on every instance until they
	// are back; its key, retried then, is stored once.
	through := func(in *apitest.Env) *apitest.Response {
		return env.As("payer").On(in).With("Idempotency-Key", "through-the-outage").Post("/api/transactions", map[string]any{
			"type": "expense", "amount": 1, "walletId": wallets["payer"], "description": "through-the-outage"})
	}
	formation.Down()
	for _, in := range instances {
		if r := through(in); r.Status != http.StatusServiceUnavailable || retryAfter(r) <= 0 {
			t.Fatalf("a write with both servers down: %d %q %s", r.Status, r.Header.Get("Retry-After"), r.Raw)
		}
	}
	// Either node may be the primary now: the one that reports first may be promoted.
	primary = formation.Up()
	waitFor(t, "a write once both servers are back", 60*time.Second, func() bool {
		r := through(env)
		if r.Status != http.StatusCreated && r.Status != http.StatusServiceUnavailable {
			t.Fatalf("a write once both servers are back: %d %s", r.Status, r.Raw)
		}
		return r.Status == http.StatusCreated
	})
	if n := count()["through-the-outage"]; n != 1 {
		t.Errorf("the write retried through the outage is stored %d times", n)
	}

	standby, err := database.Open(ctx, formation.NodeURL(1-primary, pgfailover.Database), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(standby.Close)
	stale := apitest.StartOn(t, standby, apitest.Options())
	r := stale.As("payer").With("Idempotency-Key", "on-the-standby").Post("/api/transactions", map[string]any{"type": "expense", "amount": 1,
		"walletId": wallets["payer"], "description": "on-the-standby"})
	if r.Status != http.StatusServiceUnavailable || retryAfter(r) <= 0 {
		t.Fatalf("a write through the standby: %d %q %s", r.Status, r.Header.Get("Retry-After"), r.Raw)
	}
}

// retryAfter returns the seconds of an answer's Retry-After, 0 when it has none.
func retryAfter(r *apitest.Response) int {
	n, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	return n
}

// A standby that has fallen behind is never promoted. With the standby's machine dead,
// the monitor lets the primary take writes alone (wait_primary), so those writes are on
// one server. Then the primary's machine dies too and the standby comes back: promoting
// it would lose them, so it must stay a standby, every write meanwhile a 503 with
// Retry-After, until the old primary returns; then, whichever node the pair has for its
// primary, every acknowledged write is there.
func TestALaggingStandbyIsNotPromoted(t *testing.T) {
	formation := pgfailover.Start(t)
	pool := testdb.MigratedPool(t, formation.URL(pgfailover.Database), 8)
	env := apitest.StartOn(t, pool, apitest.Options())
	payer := env.As("payer")
	wallet := payer.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100, "isDefault": true}).
		Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	spend := func(key string) *apitest.Response {
		return payer.With("Idempotency-Key", key).Post("/api/transactions", map[string]any{"type": "expense", "amount": 1,
			"walletId": wallet, "description": key})
	}

	primary := formation.Primary()
	standby := 1 - primary
	formation.Kill(standby)
	waitFor(t, "the primary to take writes alone", 60*time.Second, func() bool {
		return strings.HasPrefix(formation.State(primary), "wait_primary/")
	})
	for i := range 5 {
		key := fmt.Sprintf("alone-%d", i)
		waitFor(t, "write "+key, 30*time.Second, func() bool { return spend(key).Status == http.StatusCreated })
	}

	formation.Kill(primary)
	formation.Restart(standby)
	for until := time.Now().Add(10 * time.Second); time.Now().Before(until); time.Sleep(time.Second) {
		if state := formation.State(standby); strings.Contains(state, "primary") {
			t.Fatalf("the standby that missed writes is %s", state)
		}
		if r := spend("while-behind"); r.Status != http.StatusServiceUnavailable || retryAfter(r) <= 0 {
			t.Fatalf("a write with the primary dead and the standby behind: %d %q %s", r.Status, r.Header.Get("Retry-After"), r.Raw)
		}
	}
	t.Logf("the standby stayed %s", formation.State(standby))

	// Once the old primary is back the standby catches up from it, and the monitor may
	// then promote either: what it must not do is lose a write.
	returned := time.Now()
	formation.Restart(primary)
	formation.WaitAnyPair(returned)
	waitFor(t, "the write retried once the primary is back", 60*time.Second, func() bool {
		return spend("while-behind").Status == http.StatusCreated
	})
	balance := payer.Get("/api/wallets/"+wallet).Expect(t, http.StatusOK).Object("wallet")["balance"]
	if got, err := strconv.ParseFloat(fmt.Sprint(balance), 64); err != nil || got != 94 {
		t.Errorf("balance %v after six expenses of 1 from 100, want 94", balance)
	}
	replayAgrees(t, pool)
}
