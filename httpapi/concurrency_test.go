package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// Many clients hammer one workspace with creates, updates and deletes, through two
// server instances sharing the database (so each one's cached state goes stale and its
// appends conflict). Every request must be answered without a 5xx, and the final
// balances must equal exactly the sum of the effects the servers acknowledged.
func TestConcurrentClientsOnOneWorkspace(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	second := env.Instance()
	wallets := []string{f.cash, f.bank}
	start := map[string]decimal.Decimal{f.cash: decimal.RequireFromString("100"), f.bank: decimal.RequireFromString("1000")}

	// 1,920 requests: every kind of them, conflicts between the instances and groups
	// formed on each, in a quarter of a minute under -race.
	const clients, perClient = 32, 60
	type live struct {
		wallet string
		amount decimal.Decimal // signed effect on the wallet
	}
	var mu sync.Mutex
	effects := map[string]live{} // acknowledged, not deleted transactions
	var failures []string
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			api := f.c
			if c%2 == 1 {
				api = f.c.On(second)
			}
			var mine []string
			fail := func(format string, args ...any) {
				mu.Lock()
				failures = append(failures, fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			for i := 0; i < perClient; i++ {
				op := rng.IntN(10)
				switch {
				case op < 6 || len(mine) == 0:
					wallet := wallets[rng.IntN(2)]
					cents := 1 + rng.IntN(100000)
					amount := decimal.New(int64(cents), -2)
					typ, sign := "expense", amount.Neg()
					if rng.IntN(2) == 0 {
						typ, sign = "income", amount
					}
					body := map[string]any{"type": typ, "amount": json.Number(amount.String()), "walletId": wallet}
					req := api
					switch rng.IntN(10) {
					case 0: // refused: the commands queued beside it still commit
						body["categoryId"] = "00000000-0000-4000-8000-000000000099"
						if r := req.Post("/api/transactions", body); r.Status != http.StatusNotFound || r.ErrorCode() != "CATEGORY_NOT_FOUND" {
							fail("create in no category: %d %s", r.Status, r.Raw)
						}
						continue
					case 1: // sent twice, the second time maybe on the other instance, maybe at once
						key := fmt.Sprintf("c-%d-%d", c, i)
						first := make(chan *apitest.Response, 1)
						go func() { first <- req.With("Idempotency-Key", key).Post("/api/transactions", body) }()
						again := f.c.On(second)
						if c%2 == 1 {
							again = f.c
						}
						r2 := again.With("Idempotency-Key", key).Post("/api/transactions", body)
						if r1 := <-first; r1.Status != http.StatusCreated || r2.Status != http.StatusCreated ||
							r1.Object("transaction")["id"] != r2.Object("transaction")["id"] {
							fail("keyed create sent twice: %d %s / %d %s", r1.Status, r1.Raw, r2.Status, r2.Raw)
							continue
						}
						req = req.With("Idempotency-Key", key)
					}
					r := req.Post("/api/transactions", body)
					if r.Status != http.StatusCreated {
						fail("create: %d %s", r.Status, r.Raw)
						continue
					}
					tx := r.Object("transaction")
					if tx["type"] != typ || num(tx["amount"]) != amount.String() || tx["walletId"] != wallet {
						fail("create of %s %s in %s answered %v", typ, amount, wallet, tx)
						continue
					}
					id := tx["id"].(string)
					mine = append(mine, id)
					mu.Lock()
					effects[id] = live{wallet, sign}
					mu.Unlock()
				case op < 8:
					id := mine[rng.IntN(len(mine))]
					wallet := wallets[rng.IntN(2)]
					amount := decimal.New(int64(1+rng.IntN(5000)), -2)
					r := api.With("Idempotency-Key", fmt.Sprintf("u-%d-%d", c, i)).
						Patch("/api/transactions/"+id, map[string]any{"amount": json.Number(amount.String()), "walletId": wallet})
					if r.Status != http.StatusOK {
						fail("update: %d %s", r.Status, r.Raw)
						continue
					}
					mu.Lock()
					e := effects[id]
					sign := amount
					if e.amount.IsNegative() {
						sign = amount.Neg()
					}
					effects[id] = live{wallet, sign}
					mu.Unlock()
				default:
					k := rng.IntN(len(mine))
					id := mine[k]
					mine = append(mine[:k], mine[k+1:]...)
					r := api.With("Idempotency-Key", fmt.Sprintf("d-%d-%d", c, i)).Delete("/api/transactions/" + id)
					if r.Status != http.StatusOK {
						fail("delete: %d %s", r.Status, r.Raw)
						continue
					}
					mu.Lock()
					delete(effects, id)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, msg := range failures {
		t.Error(msg)
	}
	want := map[string]decimal.Decimal{}
	for w, b := range start {
		want[w] = b
	}
	for _, e := range effects {
		want[e.wallet] = want[e.wallet].Add(e.amount)
	}
	for _, w := range wallets {
		if got := f.balance(t, w); got != want[w].String() {
			t.Errorf("wallet %s balance %s, want %s", w, got, want[w])
		}
	}
	total := f.c.Get("/api/transactions?pageSize=1").Object("pagination")["total"]
	if num(total) != fmt.Sprint(len(effects)) {
		t.Errorf("listing total %v, acknowledged live transactions %d", total, len(effects))
	}
	// Commands queued on an instance committed in groups: fewer database transactions
	// than events.
	var events, transactions int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT tx_id) FROM events
		WHERE stream_id LIKE 'workspace-%' AND type = 'transaction.created.v1'`).Scan(&events, &transactions); err != nil {
		t.Fatal(err)
	}
	if transactions >= events {
		t.Errorf("%d creates in %d database transactions: no group formed", events, transactions)
	}
	// The read models equal a replay of what the clients caused.
	replayAgrees(t, env.Pool)
}
