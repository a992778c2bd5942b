package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// scrape GETs /metrics from m's handler over HTTP and returns the status and the body.
func scrape(t *testing.T, m *Metrics) (int, string) {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

// unreachablePool is a pool on a port nothing listens on: every read from it fails, as
// it does while the database is out of reach.
func unreachablePool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	pool, err := pgxpool.New(context.Background(), "postgres://finledger@"+addr+"/finledger?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func TestAFailedReadLeavesItsSeriesOutAndTheScrapeServesTheRest(t *testing.T) {
	m := New()
	m.Appended(3)
	m.WatchLag(func(context.Context) (Lag, error) {
		return Lag{}, errors.New("timeout: the pool had no connection to give")
	})
	m.WatchArchiving(unreachablePool(t))

	status, body := scrape(t, m)
	if status != http.StatusOK {
		t.Fatalf("GET /metrics with the database out of reach: %d, want 200:\n%s", status, body)
	}
	for _, want := range []string{
		`finledger_scrape_collector_success{collector="lag"} 0`,
		`finledger_scrape_collector_success{collector="archiving"} 0`,
		`finledger_events_appended_total 3`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, "\n"+want) {
			t.Errorf("the scrape lacks %q:\n%s", want, body)
		}
	}
	for _, left := range []string{"finledger_relay_backlog_events ", "finledger_wal_archive_failing "} {
		if strings.Contains(body, "\n"+left) {
			t.Errorf("the scrape has %q, whose read failed", left)
		}
	}
}

func TestASuccessfulReadIsSaidSo(t *testing.T) {
	m := New()
	m.WatchLag(func(context.Context) (Lag, error) { return Lag{UnrelayedEvents: 7}, nil })

	status, body := scrape(t, m)
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d:\n%s", status, body)
	}
	for _, want := range []string{`finledger_scrape_collector_success{collector="lag"} 1`, `finledger_relay_backlog_events 7`} {
		if !strings.Contains(body, "\n"+want) {
			t.Errorf("the scrape lacks %q:\n%s", want, body)
		}
	}
}
