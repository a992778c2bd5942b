package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/metrics"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

// lockedBuffer collects log lines written from the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// scrape reads the metrics an instance serves as sample lines: name{labels} → value.
func scrape(t *testing.T, c *apitest.Client) map[string]float64 {
	t.Helper()
	r := c.Get("/metrics").Expect(t, http.StatusOK)
	samples := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(r.Raw)))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	return samples
}

// Metrics are the operators': an instance serves them beside the API only when told to
// (`finledger dev` does); otherwise /metrics is no route of the API's listener, for
// anyone, signed in or not.
func TestMetricsStayOffTheAPIListener(t *testing.T) {
	opts := apitest.Options()
	opts.Metrics = metrics.New()
	env := apitest.StartWith(t, opts)
	for _, c := range []*apitest.Client{env.Anonymous(), env.As("alice")} {
		expectError(t, c.Get("/metrics"), http.StatusNotFound, "NOT_FOUND")
	}
	dev := env.InstanceWith(func(o *httpapi.Options) { o.PublicMetrics = true })
	if samples := scrape(t, dev.Anonymous()); samples["go_goroutines"] < 1 {
		t.Fatalf("the development instance's metrics: %v", samples)
	}
}

// An instance counts what it serves by route pattern, its appends, the conflicts another
// instance's writes cause it, idempotent replays and error codes, and reports its pool
// and runtime; it logs a line per request with its id, route, credential kind and
// workspace, and never a token, key, secret or phone number.
func TestMetricsAndRequestLogs(t *testing.T) {
	logs := &lockedBuffer{}
	defaultLogger := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logs, nil)))
	defer slog.SetDefault(defaultLogger)

	m := metrics.New()
	opts := apitest.Options()
	opts.Metrics, opts.PublicMetrics = m, true
	env := apitest.StartWith(t, opts)
	m.WatchPool(env.Pool)
	other := env.InstanceWith(func(o *httpapi.Options) { o.Metrics = nil }) // counts nothing here

	alice := env.As("alice")
	wallet := alice.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 10, "isDefault": true}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1}).Expect(t, http.StatusCreated)
	// Another instance writes: this one's cached state is behind, and its next append conflicts.
	alice.On(other).Post("/api/transactions", map[string]any{"type": "expense", "amount": 2}).Expect(t, http.StatusCreated)
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 3}).Expect(t, http.StatusCreated)
	keyed := alice.With("Idempotency-Key", "k-once")
	keyed.Post("/api/transactions", map[string]any{"type": "expense", "amount": 4}).Expect(t, http.StatusCreated)
	if r := keyed.Post("/api/transactions", map[string]any{"type": "expense", "amount": 4}).Expect(t, http.StatusCreated); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("the second keyed request was not a replay")
	}
	alice.Get("/api/wallets/00000000-0000-0000-0000-000000000001").Expect(t, http.StatusNotFound)

	key := alice.Post("/api/api-keys", map[string]any{"name": "books", "scopes": []string{"wallets:read"}}).Expect(t, http.StatusOK).JSON["plaintext"].(string)
	env.Anonymous().With("x-api-key", key).Get("/api/wallets").Expect(t, http.StatusOK)
	hookSecret := alice.Post("/api/webhooks/outbound", map[string]any{"name": "books", "url": "https://books.example.com/hook"}).
		Expect(t, http.StatusOK).JSON["secret"].(string)
	phone := linkPhone(t, env, alice, alicePhone, nil)
	phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 5}).Expect(t, http.StatusCreated)

	samples := scrape(t, env.Anonymous())
	atLeast := map[string]float64{
		`finledger_http_request_duration_seconds_count{method="POST",route="/api/transactions",status="201"}`:          4,
		`finledger_http_request_duration_seconds_count{method="GET",route="/api/wallets/{id}",status="404"}`:           1,
		`finledger_http_request_duration_seconds_count{method="POST",route="/api/whatsapp/transactions",status="201"}`: 1,
		`finledger_http_errors_total{code="WALLET_NOT_FOUND"}`:                                                         1,
		`finledger_idempotent_replays_total`:                                                                           1,
		`finledger_append_conflicts_total`:                                                                             1,
		`finledger_db_pool_max_connections`:                                                                            1,
		`finledger_db_pool_acquires_total`:                                                                             1,
		`go_goroutines`:                                                                                                1,
	}
	for name, least := range atLeast {
		got, ok := samples[name]
		if !ok && least > 0 {
			t.Errorf("no sample %s", name)
		} else if got < least {
			t.Errorf("%s = %v, want at least %v", name, got, least)
		}
	}
	// The path's ids stay out of the labels: the route pattern names the series.
	for name := range samples {
		if strings.Contains(name, wallet) || strings.Contains(name, "00000000-0000-0000-0000-000000000001") {
			t.Errorf("an id in a series: %s", name)
		}
	}
	// Every event in the log but the other instance's expense was appended here.
	var stored float64
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if got := samples[`finledger_events_appended_total`]; got != stored-1 {
		t.Errorf("appended %v, want %v", got, stored-1)
	}

	// The logs: a line per request, nothing secret.
	text := logs.String()
	for what, secret := range map[string]string{"session token": alice.Headers["Authorization"][len("Bearer "):],
		"API key": key, "webhook secret": hookSecret, "phone number": alicePhone, "phone number's digits": strings.TrimPrefix(alicePhone, "+")} {
		if strings.Contains(text, secret) {
			t.Errorf("the logs hold the %s", what)
		}
	}
	requestLine := regexp.MustCompile(`"route":"/api/whatsapp/transactions"`)
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if entry["msg"] != "request" {
			continue
		}
		if entry["requestId"] == "" || entry["status"] == nil || entry["took"] == nil {
			t.Errorf("request line without id, status or time: %s", line)
		}
		if c, _ := entry["credential"].(string); c != "" {
			seen[c] = true
			if entry["workspace"] == "" {
				t.Errorf("request line without workspace: %s", line)
			}
		}
		if requestLine.MatchString(line) && entry["credential"] != "channel" {
			t.Errorf("the channel's request not logged as such: %s", line)
		}
		if entry["route"] == "/api/wallets/{id}" && entry["code"] != "WALLET_NOT_FOUND" {
			t.Errorf("an error's code not logged: %s", line)
		}
	}
	for _, kind := range []string{"session", "api_key", "channel"} {
		if !seen[kind] {
			t.Errorf("no request line with credential %s:\n%s", kind, text)
		}
	}

	// An instance with a rate limit of one request counts its refusals.
	limitedMetrics := metrics.New()
	limited := env.InstanceWith(func(o *httpapi.Options) {
		o.Metrics, o.RateLimitPerMinute, o.RateLimitBurst = limitedMetrics, 1, 1
	})
	bob := env.As("bob").On(limited)
	bob.Get("/api/wallets")
	bob.Get("/api/wallets").Expect(t, http.StatusTooManyRequests)
	if got := scrape(t, limited.Anonymous())[`finledger_http_errors_total{code="RATE_LIMITED"}`]; got < 1 {
		t.Errorf("rate-limit refusals counted: %v", got)
	}
}
