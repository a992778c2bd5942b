package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/sealbox"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
)

// readSamples is how many times each read is timed, one after another: enough for a
// p99 with five samples above it (of a hundred, the p99 would be the slowest).
const readSamples = 500

// readsAtDepth measures, on the cold-load test's workspace once its stream holds depth
// events: a replay of the whole log into the read models (which gives every copied
// expense its rows), a verify unless told not to, and then the API's reads over HTTP,
// each timed readSamples times in a row after one untimed call.
func readsAtDepth(ctx context.Context, pool *pgxpool.Pool, subject string, depth int, verify bool, out io.Writer) error {
	start := time.Now()
	replayed, err := projections.Rebuild(ctx, pool)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	took := time.Since(start)
	fmt.Fprintf(out, "depth %7d events: replay of %d events %s (%.0f events/s)", depth, replayed, took.Round(time.Millisecond),
		float64(replayed)/took.Seconds())
	if verify {
		// As finledger verify does: the chains are recomputed while the read models are
		// compared.
		start = time.Now()
		checked, broken := int64(0), 0
		diffs, err := projections.VerifyTelling(ctx, pool, nil, func(_ string, check eventstore.ChainCheck) {
			checked += check.Checked
			if check.BrokenAt != 0 {
				broken++
			}
		})
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		differing := 0
		for _, d := range diffs {
			if d.LiveOnly > 0 || d.ReplayOnly > 0 {
				differing++
			}
		}
		fmt.Fprintf(out, "; verify with the chains %s (%d read models differ; the chains of %d events, %d broken)",
			time.Since(start).Round(time.Millisecond), differing, checked, broken)
	}
	fmt.Fprintln(out)
	// As autovacuum would have by then on a database that grew this large.
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return err
	}

	secret := randomHex(32)
	verifier, err := session.NewVerifier(session.Config{HS256Secret: secret})
	if err != nil {
		return err
	}
	box, err := sealbox.New([]byte(randomHex(16)))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: httpapi.NewServer(pool, ledger.NewLedger(pool, projections.Project, time.Now, 10), verifier, time.Now,
		httpapi.Options{RateLimitPerMinute: 1 << 30, RateLimitBurst: 1 << 30, Billing: billing.None{}, Box: box}).Handler(),
		ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	b := &benchRun{out: out, base: "http://" + ln.Addr().String(), secret: secret, client: &http.Client{Timeout: time.Minute}}
	tok, err := b.token(subject)
	if err != nil {
		return err
	}
	categories, err := b.get(tok, "/api/categories")
	if err != nil {
		return err
	}
	food := categories["categories"].([]any)[0].(map[string]any)["id"].(string)
	if _, err := b.post(tok, "/api/budgets", map[string]any{"name": "Food", "categoryId": food, "amount": 5000,
		"startDate": "2021-01-01", "endDate": "2030-12-31"}, http.StatusOK); err != nil {
		return err
	}
	reads := []struct{ name, path string }{
		{"wallets", "/api/wallets"},
		{"transactions, first page", "/api/transactions"},
		{"transactions, page 20,000 of 25", "/api/transactions?page=20000&pageSize=25"},
		{"transactions, a month of a category", "/api/transactions?categoryId=" + food + "&from=2023-06-01&to=2023-06-30"},
		{"transactions, search", "/api/transactions?search=lunch"},
		{"transactions, q", "/api/transactions?q=Food"},
		{"budgets", "/api/budgets"},
		{"monthly summary", "/api/reports/monthly-summary?month=2023-06"},
		{"spending summary, a year", "/api/reports/spending-summary?from=2023-01-01&to=2023-12-31"},
		{"agent context", "/api/agent/context"},
		{"CSV report, a month", "/api/reports?from=2023-06-01&to=2023-06-30&format=csv"},
	}
	fmt.Fprintf(out, "%-38s %10s %10s\n", "read", "p50", "p99")
	for _, r := range reads {
		if err := b.timeReads(tok, r.name, func(int) string { return r.path }); err != nil {
			return err
		}
	}
	return historyReads(ctx, pool, b, tok, subject)
}

// historyReads times the reads of the past on the workspace: as-of reads, each sample
// at the moment of another event of the stream picked at random, and pages of the
// change feed and of the differences between two moments from random places.
func historyReads(ctx context.Context, pool *pgxpool.Pool, b *benchRun, tok, subject string) error {
	var stream string
	var head int64
	err := pool.QueryRow(ctx, `SELECT s.stream_id, s.version FROM streams s JOIN users u ON s.stream_id = 'workspace-' || u.personal_workspace_id
		WHERE u.subject = $1`, subject).Scan(&stream, &head)
	if err != nil {
		return fmt.Errorf("the workspace's stream: %w", err)
	}
	// Each sample's moment is a random event's, and its later moment that of the event
	// a thousand versions on (or the head's).
	versions, later := make([]int64, readSamples), make([]int64, readSamples)
	for i := range versions {
		versions[i] = 1 + rand.Int64N(head)
		later[i] = min(versions[i]+1000, head)
	}
	momentsOf := func(versions []int64) ([]time.Time, error) {
		rows, err := pool.Query(ctx, `SELECT e.recorded_at FROM unnest($2::bigint[]) WITH ORDINALITY v(version, n)
			JOIN events e ON e.stream_id = $1 AND e.version = v.version ORDER BY v.n`, stream, versions)
		if err != nil {
			return nil, fmt.Errorf("moments of the history: %w", err)
		}
		return pgx.CollectRows(rows, pgx.RowTo[time.Time])
	}
	moments, err := momentsOf(versions)
	if err != nil {
		return err
	}
	laterMoments, err := momentsOf(later)
	if err != nil {
		return err
	}
	at := func(i int) string { return url.QueryEscape(moments[i].Format(time.RFC3339Nano)) }
	asOf := []struct{ name, path string }{
		{"wallets as of a moment", "/api/wallets?asOf="},
		{"budgets as of a moment", "/api/budgets?asOf="},
		{"goals as of a moment", "/api/goals?asOf="},
		{"debts as of a moment", "/api/debts?asOf="},
		{"monthly summary as of a moment", "/api/reports/monthly-summary?month=2023-06&asOf="},
		{"spending summary, a month, as of", "/api/reports/spending-summary?from=2023-06-01&to=2023-06-30&asOf="},
		{"spending summary, a year, as of", "/api/reports/spending-summary?from=2023-01-01&to=2023-12-31&asOf="},
		{"CSV report, a month, as of", "/api/reports?from=2023-06-01&to=2023-06-30&format=csv&asOf="},
	}
	for _, r := range asOf {
		if err := b.timeReads(tok, r.name, func(i int) string { return r.path + at(i) }); err != nil {
			return err
		}
	}
	feed := func(i int) string { return "/api/changes?limit=100&cursor=" + strconv.FormatInt(versions[i]-1, 10) }
	if err := b.timeReads(tok, "change feed, a page of 100", feed); err != nil {
		return err
	}
	diff := func(i int) string {
		return "/api/changes/diff?limit=100&from=" + at(i) + "&to=" + url.QueryEscape(laterMoments[i].Format(time.RFC3339Nano))
	}
	return b.timeReads(tok, "differences over 1,000 events, 100", diff)
}

// timeReads times readSamples GETs, the ith of path(i), after one untimed, and prints
// their p50 and p99.
func (b *benchRun) timeReads(tok, name string, path func(i int) string) error {
	if _, err := b.getRaw(tok, path(0)); err != nil {
		return err
	}
	times := make([]time.Duration, readSamples)
	for i := range times {
		t0 := time.Now()
		if _, err := b.getRaw(tok, path(i)); err != nil {
			return err
		}
		times[i] = time.Since(t0)
	}
	slices.Sort(times)
	fmt.Fprintf(b.out, "%-38s %10s %10s\n", name, times[len(times)/2].Round(10*time.Microsecond),
		times[len(times)*99/100].Round(10*time.Microsecond))
	return nil
}

// coldSubject is the identity of the cold-load test's workspace owner at depth.
func coldSubject(depth int) string { return fmt.Sprintf("bench-cold-%d", depth) }

// getRaw answers the body of a GET that must answer 200.
func (b *benchRun) getRaw(tok, path string) ([]byte, error) {
	return b.send(http.MethodGet, tok, path, "", nil, http.StatusOK)
}

// get answers the JSON object a GET answers.
func (b *benchRun) get(tok, path string) (map[string]any, error) {
	raw, err := b.getRaw(tok, path)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}
