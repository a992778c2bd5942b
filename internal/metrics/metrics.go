// Package metrics owns what an instance tells Prometheus about itself: the requests it
// served, the events it appended, the conflicts and replays among its commands, its
// webhook attempts, how far the relay and the dispatcher lag behind the log, its
// database pool and the Go runtime. Each instance has its own registry; the counters
// count what this instance did, the lags and the pool are read when scraped.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds an instance's instruments. A nil *Metrics records nothing, so code that
// runs without them (tests, administration commands) needs no special case.
type Metrics struct {
	registry  *prometheus.Registry
	requests  *prometheus.HistogramVec
	errors    *prometheus.CounterVec
	appended  prometheus.Counter
	conflicts prometheus.Counter
	replays   prometheus.Counter
	attempts  *prometheus.CounterVec
}

// New returns the instruments of one instance, with the Go runtime's and the process's
// collectors registered beside them.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "finledger_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route pattern, method and status.",
			// From a cached read (under a millisecond) to a month's report.
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route", "method", "status"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "finledger_http_errors_total",
			Help: "Error answers by their code in the error envelope (RATE_LIMITED counts rate-limit refusals).",
		}, []string{"code"}),
		appended: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "finledger_events_appended_total",
			Help: "Events this instance appended to the log.",
		}),
		conflicts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "finledger_append_conflicts_total",
			Help: "Appends that found their stream moved on (another instance wrote first) and were decided again.",
		}),
		replays: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "finledger_idempotent_replays_total",
			Help: "Requests answered from the record of an earlier one with the same Idempotency-Key.",
		}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "finledger_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt scheduled) or failed (no attempt left).",
		}, []string{"outcome"}),
	}
	m.registry.MustRegister(m.requests, m.errors, m.appended, m.conflicts, m.replays, m.attempts,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// ObserveRequest records an answered request; route is the pattern that matched (""
// where none did).
func (m *Metrics) ObserveRequest(route, method string, status int, took time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Observe(took.Seconds())
}

// ErrorAnswered records an error answer by its code.
func (m *Metrics) ErrorAnswered(code string) {
	if m != nil {
		m.errors.WithLabelValues(code).Inc()
	}
}

// Appended records n events appended.
func (m *Metrics) Appended(n int) {
	if m != nil {
		m.appended.Add(float64(n))
	}
}

// Conflicted records an append refused because its stream had moved on.
func (m *Metrics) Conflicted() {
	if m != nil {
		m.conflicts.Inc()
	}
}

// Replayed records an answer served from an idempotency record.
func (m *Metrics) Replayed() {
	if m != nil {
		m.replays.Inc()
	}
}

// Attempted records a webhook delivery attempt's outcome.
func (m *Metrics) Attempted(outcome string) {
	if m != nil {
		m.attempts.WithLabelValues(outcome).Inc()
	}
}

// WatchPool reports the database pool's connections and waits when scraped.
func (m *Metrics) WatchPool(pool *pgxpool.Pool) {
	m.registry.MustRegister(poolCollector{pool})
}

// Lag is how far the background work trails the log, as read when scraped.
type Lag struct {
	UnrelayedEvents  int64         // in the log, not yet published by the relay
	OldestUnrelayed  time.Duration // age of the oldest of those; 0 when none
	UndispatchedMsgs uint64        // published, not yet handled by the dispatcher
	PendingDelivery  int64         // webhook deliveries waiting for their (next) attempt
}

// WatchLag reports the relay's and the dispatcher's lag, read by read within a few
// seconds when scraped; a failed read leaves the lag out of that scrape.
func (m *Metrics) WatchLag(read func(context.Context) (Lag, error)) {
	m.registry.MustRegister(lagCollector{read})
}

var (
	unrelayedDesc   = prometheus.NewDesc("finledger_relay_backlog_events", "Events in the log the relay has not yet published.", nil, nil)
	relayLagDesc    = prometheus.NewDesc("finledger_relay_lag_seconds", "Age of the oldest event the relay has not yet published (0 when none).", nil, nil)
	undispatchDesc  = prometheus.NewDesc("finledger_dispatcher_backlog_messages", "Published events the dispatcher has not yet handled.", nil, nil)
	pendingDelivery = prometheus.NewDesc("finledger_webhook_deliveries_pending", "Webhook deliveries waiting for an attempt.", nil, nil)
)

type lagCollector struct {
	read func(context.Context) (Lag, error)
}

func (c lagCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- unrelayedDesc
	ch <- relayLagDesc
	ch <- undispatchDesc
	ch <- pendingDelivery
}

func (c lagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	lag, err := c.read(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(unrelayedDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(unrelayedDesc, prometheus.GaugeValue, float64(lag.UnrelayedEvents))
	ch <- prometheus.MustNewConstMetric(relayLagDesc, prometheus.GaugeValue, lag.OldestUnrelayed.Seconds())
	ch <- prometheus.MustNewConstMetric(undispatchDesc, prometheus.GaugeValue, float64(lag.UndispatchedMsgs))
	ch <- prometheus.MustNewConstMetric(pendingDelivery, prometheus.GaugeValue, float64(lag.PendingDelivery))
}

var (
	poolTotalDesc    = prometheus.NewDesc("finledger_db_pool_connections", "Connections of the database pool by state.", []string{"state"}, nil)
	poolMaxDesc      = prometheus.NewDesc("finledger_db_pool_max_connections", "Most connections the database pool opens.", nil, nil)
	poolAcquiresDesc = prometheus.NewDesc("finledger_db_pool_acquires_total", "Connections taken from the pool.", nil, nil)
	poolWaitsDesc    = prometheus.NewDesc("finledger_db_pool_waits_total", "Takes that waited for a connection.", nil, nil)
	poolWaitDesc     = prometheus.NewDesc("finledger_db_pool_wait_seconds_total", "Time spent waiting for a connection.", nil, nil)
)

type poolCollector struct{ pool *pgxpool.Pool }

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolTotalDesc, poolMaxDesc, poolAcquiresDesc, poolWaitsDesc, poolWaitDesc} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolTotalDesc, prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(poolTotalDesc, prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolTotalDesc, prometheus.GaugeValue, float64(s.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(poolMaxDesc, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquiresDesc, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaitsDesc, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaitDesc, prometheus.CounterValue, s.AcquireDuration().Seconds())
}
