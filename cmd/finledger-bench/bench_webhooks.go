package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/webhooks"
	"github.com/finledger/finledger/webhooks/bus"
)

// webhookLatency creates transactions at a steady rate across workspaces that each
// subscribe a local receiver to transaction.created, and reports the delay from each
// commit (taken as the moment its HTTP answer arrived, just after the commit) to the
// receipt of its webhook.
func (b *benchRun) webhookLatency(ctx context.Context, rate, workspaces int, duration time.Duration) error {
	var mu sync.Mutex
	received := map[string]time.Time{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	receiver := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		var body struct {
			Data struct {
				TransactionID string `json:"transactionId"`
			} `json:"data"`
		}
		raw, _ := io.ReadAll(r.Body)
		if json.Unmarshal(raw, &body) == nil {
			mu.Lock()
			if _, seen := received[body.Data.TransactionID]; !seen {
				received[body.Data.TransactionID] = at
			}
			mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = receiver.Serve(ln) }()
	defer receiver.Close()

	tokens := make([]string, workspaces)
	for i := range tokens {
		tok, _, err := b.workspace(fmt.Sprintf("hook-%d", i))
		if err != nil {
			return err
		}
		if _, err := b.post(tok, "/api/webhooks/outbound", map[string]any{"name": "bench", "url": "http://" + ln.Addr().String() + "/hook",
			"events": []string{"transaction.created"}}, http.StatusOK); err != nil {
			return err
		}
		tokens[i] = tok
	}
	// Steady state first: one webhook through means the relay and the dispatcher have
	// caught up with everything written before it.
	warm, err := b.post(tokens[0], "/api/transactions", map[string]any{"type": "expense", "amount": 1, "concept": "warm-up"}, http.StatusCreated)
	if err != nil {
		return err
	}
	warmID := warm["transaction"].(map[string]any)["id"].(string)
	if err := waitUntil(2*time.Minute, func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, ok := received[warmID]
		return ok
	}); err != nil {
		return fmt.Errorf("bench: warm-up webhook: %w", err)
	}
	committed := map[string]time.Time{}
	var wg sync.WaitGroup
	var failures []error
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(duration)
	for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := b.post(tokens[i%len(tokens)], "/api/transactions", map[string]any{"type": "expense", "amount": 1, "concept": "hook"}, http.StatusCreated)
			at := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failures = append(failures, err)
				return
			}
			committed[res["transaction"].(map[string]any)["id"].(string)] = at
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		return fmt.Errorf("bench: %d creates failed, first: %w", len(failures), failures[0])
	}
	if err := waitUntil(2*time.Minute, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id := range committed {
			if _, ok := received[id]; !ok {
				return false
			}
		}
		return true
	}); err != nil {
		return fmt.Errorf("bench: webhooks of %d creates: %w", len(committed), err)
	}
	delays := make([]time.Duration, 0, len(committed))
	for id, at := range committed {
		delays = append(delays, received[id].Sub(at))
	}
	p50, p99 := percentiles(delays)
	fmt.Fprintf(b.out, "webhooks %d at %d/s over %d workspaces: commit to receipt p50 %s, p99 %s, max %s\n",
		len(delays), rate, workspaces, p50, p99, maxOf(delays))
	return nil
}

// waitUntil polls cond until it holds, or fails after timeout.
func waitUntil(timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %s", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func maxOf(d []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range d {
		m = max(m, x)
	}
	return m.Round(time.Millisecond)
}

// benchBus runs an in-process NATS server in a scratch folder, for the benchmark's
// database behind pool.
func benchBus(ctx context.Context, pool *pgxpool.Pool) (*bus.Bus, func(), error) {
	dir, err := os.MkdirTemp("", "finledger-bench-nats-")
	if err != nil {
		return nil, nil, err
	}
	b, stop, err := webhooks.ConnectBus(ctx, pool, "", dir, "", 1)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return b, func() { stop(); os.RemoveAll(dir) }, nil
}
