package scheduler_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/scheduler"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// setup makes a weekly expense first due on 1 March and sets the clock to 20 March:
// three cycles are due.
func setup(t *testing.T) (*apitest.Env, *apitest.Client, string, string) {
	env, c, wallet, item := weeklyExpense(t, time.Date(2026, 3, 20, 18, 0, 0, 0, time.UTC), "2026-03-01")
	c.Post("/api/recurrent", map[string]any{"name": "Idea", "amount": 5, "kind": "other", "periodicity": "weekly",
		"nextPayment": "2026-03-01"}).Expect(t, http.StatusOK)
	return env, c, wallet, item
}

// weeklyExpense makes, on the day of now, a wallet of 1,000 and a weekly expense of 25
// from it first due on first.
func weeklyExpense(t *testing.T, now time.Time, first string) (*apitest.Env, *apitest.Client, string, string) {
	env := apitest.Start(t)
	env.Clock.Set(now)
	c := env.As("alice")
	wallet := c.Post("/api/wallets", map[string]any{"name": "Bank", "balance": 1000}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	item := c.Post("/api/recurrent", map[string]any{"name": "Gym", "amount": 25, "kind": "expense", "periodicity": "weekly",
		"nextPayment": first, "walletId": wallet}).Expect(t, http.StatusOK).Object("recurring")["id"].(string)
	return env, c, wallet, item
}

func newScheduler(env *apitest.Env) *scheduler.Scheduler {
	return &scheduler.Scheduler{Pool: env.Pool, Ledger: env.Ledger, Now: env.Clock.Now, Interval: 20 * time.Millisecond}
}

func TestSchedulerPaysEveryDueCycleOnce(t *testing.T) {
	env, c, wallet, item := setup(t)
	s := newScheduler(env)
	paid, err := s.RunOnce(context.Background())
	if err != nil || paid != 3 {
		t.Fatalf("paid %d, %v; want the cycles of 1, 8 and 15 March", paid, err)
	}
	r := c.Get("/api/recurrent/"+item).Expect(t, http.StatusOK).Object("recurring")
	if r["nextPayment"] != "2026-03-22" || r["lastPayment"] != "2026-03-15" {
		t.Fatalf("item after the run: %v", r)
	}
	if again, err := s.RunOnce(context.Background()); err != nil || again != 0 {
		t.Fatalf("second run paid %d, %v", again, err)
	}
	list := c.Get("/api/transactions?walletId=" + wallet).List("transactions")
	if len(list) != 3 || list[0]["date"] != "2026-03-15" || list[2]["date"] != "2026-03-01" {
		t.Fatalf("payments %v", list)
	}
	if b := c.Get("/api/wallets/" + wallet).Object("wallet")["balance"]; b.(interface{ String() string }).String() != "925" {
		t.Fatalf("balance %v", b)
	}
	// A person paying the current cycle after the scheduler is refused.
	c.Post("/api/recurrent/"+item+"/pay", nil).Expect(t, http.StatusConflict)
	// The audit log says who paid.
	entries := c.Get("/api/audit?entity=recurring&action=update").List("entries")
	if len(entries) != 3 || entries[0]["actorType"] != "system" || entries[0]["actorId"] != "scheduler" {
		t.Fatalf("audit %v", entries)
	}
}

// race runs four scheduler passes at once, two on env's instance and two on another,
// and returns how many payments each recorded.
func race(t *testing.T, env *apitest.Env) []int {
	second := env.Instance()
	var wg sync.WaitGroup
	totals := make([]int, 4)
	for i := range totals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := env
			if i%2 == 1 {
				e = second
			}
			n, err := newScheduler(e).RunOnce(context.Background())
			if err != nil {
				t.Error(err)
			}
			totals[i] = n
		}()
	}
	wg.Wait()
	return totals
}

func TestTwoSchedulersNeverPayTwice(t *testing.T) {
	env, c, wallet, _ := setup(t)
	totals := race(t, env)
	if sum := totals[0] + totals[1] + totals[2] + totals[3]; sum != 3 {
		t.Fatalf("runners paid %v, %d in all; want 3", totals, sum)
	}
	if n := len(c.Get("/api/transactions?walletId=" + wallet).List("transactions")); n != 3 {
		t.Fatalf("%d payments recorded", n)
	}
}

func TestOnlyTheLeaderRuns(t *testing.T) {
	env, c, wallet, _ := setup(t)
	ctx := context.Background()
	// Another instance holds the leader lock.
	holder, err := env.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(0x66696e7363686564)); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- newScheduler(env).Run(runCtx) }()
	time.Sleep(200 * time.Millisecond)
	if n := len(c.Get("/api/transactions?walletId=" + wallet).List("transactions")); n != 0 {
		t.Fatalf("a follower paid %d cycles", n)
	}
	// The leader goes away: the waiting instance takes over.
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock($1)`, int64(0x66696e7363686564)); err != nil {
		t.Fatal(err)
	}
	holder.Release()
	deadline := time.Now().Add(10 * time.Second)
	for len(c.Get("/api/transactions?walletId="+wallet).List("transactions")) != 3 {
		if time.Now().After(deadline) {
			t.Fatal("the new leader did not pay")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
}

// paymentsOf counts the payments recorded for a recurring payment.
func paymentsOf(t *testing.T, env *apitest.Env, item string) int {
	t.Helper()
	var n int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM transactions WHERE recurring_id = $1`, item).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// An item that fell two years behind (the instances were down, say) is paid for its
// latest twelve cycles; the 93 before are skipped, which the item's record, the audit
// log and the history say, by the scheduler.
func TestSchedulerCatchesUpBoundedly(t *testing.T) {
	env, c, wallet, item := weeklyExpense(t, time.Date(2024, 3, 12, 18, 0, 0, 0, time.UTC), "2024-03-12")
	env.Clock.Set(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)) // 105 weekly cycles due
	c = env.As("alice")                                          // a session of the new day

	paid, err := newScheduler(env).RunOnce(context.Background())
	if err != nil || paid != 12 || paymentsOf(t, env, item) != 12 {
		t.Fatalf("paid %d (%d recorded), %v; want the latest 12 cycles", paid, paymentsOf(t, env, item), err)
	}
	r := c.Get("/api/recurrent/"+item).Expect(t, http.StatusOK).Object("recurring")
	skip, _ := r["lastSkip"].(map[string]any)
	if r["nextPayment"] != "2026-03-17" || r["lastPayment"] != "2026-03-10" || skip == nil ||
		num(skip["cycles"]) != "93" || skip["firstDue"] != "2024-03-12" || skip["lastDue"] != "2025-12-16" {
		t.Fatalf("item after the run: %v", r)
	}
	list := c.Get("/api/transactions?walletId=" + wallet).List("transactions")
	if len(list) != 12 || list[11]["date"] != "2025-12-23" || list[0]["date"] != "2026-03-10" {
		t.Fatalf("payments %v", list)
	}
	entries := c.Get("/api/audit?entity=recurring&action=update").List("entries")
	var skips []map[string]any
	for _, e := range entries {
		if changes, _ := e["changes"].(map[string]any); changes["lastSkip"] != nil {
			skips = append(skips, e)
		}
	}
	if len(skips) != 1 || skips[0]["actorType"] != "system" || skips[0]["actorId"] != "scheduler" {
		t.Fatalf("audit of the skip: %v", skips)
	}
	var events int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = 'recurring.skipped.v1'`).Scan(&events); err != nil || events != 1 {
		t.Fatalf("%d skip events, %v", events, err)
	}
	if again, err := newScheduler(env).RunOnce(context.Background()); err != nil || again != 0 {
		t.Fatalf("second run paid %d, %v", again, err)
	}
}

// num renders a JSON number as its decimal text.
func num(v any) string { return v.(interface{ String() string }).String() }

// A workspace with more items due than a pass takes (101, all due before the other's)
// delays no other workspace: after one pass the other's one due payment is paid, having
// waited behind one of the first workspace's items. What a pass leaves, the next one
// pays, at once.
func TestSchedulerIsFairAcrossWorkspaces(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 20, 18, 0, 0, 0, time.UTC))
	busy, other := env.As("alice"), env.As("bob")
	busy.Post("/api/wallets", map[string]any{"name": "Bank", "balance": 100000, "isDefault": true}).Expect(t, http.StatusOK)
	other.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100, "isDefault": true}).Expect(t, http.StatusOK)
	for i := range 101 {
		busy.Post("/api/recurrent", map[string]any{"name": fmt.Sprintf("Plan %d", i), "amount": 1, "kind": "expense",
			"periodicity": "monthly", "nextPayment": "2026-03-14"}).Expect(t, http.StatusOK)
	}
	rent := other.Post("/api/recurrent", map[string]any{"name": "Rent", "amount": 50, "kind": "expense", "periodicity": "monthly",
		"nextPayment": "2026-03-19"}).Expect(t, http.StatusOK).Object("recurring")["id"].(string)

	s := newScheduler(env)
	paid, err := s.RunOnce(context.Background())
	if err != nil || paymentsOf(t, env, rent) != 1 {
		t.Fatalf("the other workspace's due payment waited past the pass (%v)", err)
	}
	var before int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events e, events r
		WHERE r.type = 'recurring.paid.v1' AND r.data->>'recurringId' = $1
			AND e.type = 'recurring.paid.v1' AND e.stream_id <> r.stream_id AND e.position < r.position`, rent).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if before > 1 {
		t.Fatalf("the other workspace's payment waited behind %d of the busy one's", before)
	}
	if paid != 101 {
		t.Fatalf("first pass paid %d; want 100 of the busy workspace's and the other's", paid)
	}
	// Run follows a pass that paid with another at once, not after its interval: with
	// 100 more items, the busy workspace has 101 due again, two passes' worth.
	for i := range 100 {
		busy.Post("/api/recurrent", map[string]any{"name": fmt.Sprintf("Plan %d", 101+i), "amount": 1, "kind": "expense",
			"periodicity": "monthly", "nextPayment": "2026-03-14"}).Expect(t, http.StatusOK)
	}
	s.Interval = time.Hour
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { stop(); <-done }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var unpaid int
		if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM recurring_payments WHERE last_payment IS NULL`).Scan(&unpaid); err != nil {
			t.Fatal(err)
		}
		if unpaid == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d items left unpaid: the next pass waited", unpaid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Schedulers on two instances, racing over an item that owes more than it pays late,
// skip its old cycles once and pay each of the latest once.
func TestTwoSchedulersSkipAndPayOnce(t *testing.T) {
	env, _, _, item := weeklyExpense(t, time.Date(2025, 3, 10, 18, 0, 0, 0, time.UTC), "2025-03-10")
	env.Clock.Set(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)) // 53 cycles due
	race(t, env)
	var skips int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = 'recurring.skipped.v1'`).Scan(&skips); err != nil {
		t.Fatal(err)
	}
	if n := paymentsOf(t, env, item); n != 12 || skips != 1 {
		t.Fatalf("%d payments and %d skips; want 12 and 1", n, skips)
	}
}
