// Package metrics owns what an instance tells Prometheus about itself: the requests it
// served, the events it appended, the conflicts and replays among its commands, its
// webhook attempts, how far the relay and the dispatcher lag behind the log, its
// database pool, the database's archiving of its write-ahead log and the Go runtime.
// Each instance has its own registry; the counters count what this instance did, the
// lags, the pool and the archiving are read when scraped. A read from the database that
// fails leaves its series out of that scrape, says so in finledger_scrape_collector_success
// and in the log, and the scrape serves the rest: a slow database is when an operator
// needs the other series most.
package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
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
// seconds when scraped; a failed read leaves the lag out of that scrape, and the scrape
// serves the rest.
func (m *Metrics) WatchLag(read func(context.Context) (Lag, error)) {
	m.registry.MustRegister(lagCollector{read})
}

// readTimeout is how long a scrape waits for a read from the database.
const readTimeout = 3 * time.Second

// databaseRead is a collector's read from the database when scraped, as the series
// finledger_scrape_collector_success tells it: 1 when it succeeded, 0 when it failed and
// the collector's other series were left out of the scrape.
type databaseRead struct {
	collector string
	desc      *prometheus.Desc
}

func newDatabaseRead(collector string) databaseRead {
	return databaseRead{collector, prometheus.NewDesc("finledger_scrape_collector_success",
		"1 when the scrape read the collector's series from the database, 0 when the read failed and left them out of that scrape.",
		nil, prometheus.Labels{"collector": collector})}
}

var (
	lagRead       = newDatabaseRead("lag")
	archivingRead = newDatabaseRead("archiving")
)

// report sends the read's success and logs its failure; it returns whether the
// collector has values to send.
func (r databaseRead) report(ch chan<- prometheus.Metric, err error) bool {
	success := 1.0
	if err != nil {
		success = 0
		slog.Warn("metrics: a scrape left series out: their read from the database failed", "collector", r.collector, "err", err)
	}
	ch <- prometheus.MustNewConstMetric(r.desc, prometheus.GaugeValue, success)
	return err == nil
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
	ch <- lagRead.desc
}

func (c lagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	lag, err := c.read(ctx)
	if !lagRead.report(ch, err) {
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

// Archiving is what PostgreSQL's archiver tells of the write-ahead log it hands to the
// backups (pg_stat_archiver): a restore to a moment needs every segment up to it.
type Archiving struct {
	Archived, Failed         int64     // segments archived, attempts that failed, since the statistics were reset
	LastArchived, LastFailed time.Time // zero when none
	LastFailedWAL            string    // the segment of the last failed attempt
}

// Failing reports whether the archiver's last attempt failed: the backups stop at the
// last segment archived until an attempt succeeds again.
func (a Archiving) Failing() bool {
	return !a.LastFailed.IsZero() && a.LastFailed.After(a.LastArchived)
}

// Querier is what ReadArchiving reads with: a pool or a connection.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ReadArchiving reads the archiver's statistics. Any role may read them.
func ReadArchiving(ctx context.Context, db Querier) (Archiving, error) {
	var a Archiving
	var archived, failed *time.Time
	var failedWAL *string
	err := db.QueryRow(ctx, `SELECT archived_count, failed_count, last_archived_time, last_failed_time, last_failed_wal FROM pg_stat_archiver`).
		Scan(&a.Archived, &a.Failed, &archived, &failed, &failedWAL)
	if err != nil {
		return Archiving{}, fmt.Errorf("metrics: read pg_stat_archiver: %w", err)
	}
	if archived != nil {
		a.LastArchived = *archived
	}
	if failed != nil {
		a.LastFailed = *failed
	}
	if failedWAL != nil {
		a.LastFailedWAL = *failedWAL
	}
	return a, nil
}

// WatchArchiving reports the database's WAL archiving, read when scraped: an archive
// that fails is a backup that silently stops, found only on the day of a restore.
func (m *Metrics) WatchArchiving(pool *pgxpool.Pool) {
	m.registry.MustRegister(archivingCollector{pool})
}

var (
	archiveFailingDesc = prometheus.NewDesc("finledger_wal_archive_failing",
		"1 when PostgreSQL's last attempt to archive a WAL segment failed (pg_stat_archiver), so backups cannot reach later moments; 0 otherwise.", nil, nil)
	archivedDesc      = prometheus.NewDesc("finledger_wal_archived_total", "WAL segments PostgreSQL archived since its statistics were reset.", nil, nil)
	archiveFailedDesc = prometheus.NewDesc("finledger_wal_archive_failures_total", "Failed attempts to archive a WAL segment since PostgreSQL's statistics were reset.", nil, nil)
	archiveLastDesc   = prometheus.NewDesc("finledger_wal_archive_last_success_timestamp_seconds",
		"When PostgreSQL last archived a WAL segment, in Unix seconds; 0 when never.", nil, nil)
)

type archivingCollector struct{ pool *pgxpool.Pool }

func (c archivingCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{archiveFailingDesc, archivedDesc, archiveFailedDesc, archiveLastDesc, archivingRead.desc} {
		ch <- d
	}
}

func (c archivingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	a, err := ReadArchiving(ctx, c.pool)
	if !archivingRead.report(ch, err) {
		return
	}
	failing, last := 0.0, 0.0
	if a.Failing() {
		failing = 1
	}
	if !a.LastArchived.IsZero() {
		last = float64(a.LastArchived.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(archiveFailingDesc, prometheus.GaugeValue, failing)
	ch <- prometheus.MustNewConstMetric(archivedDesc, prometheus.CounterValue, float64(a.Archived))
	ch <- prometheus.MustNewConstMetric(archiveFailedDesc, prometheus.CounterValue, float64(a.Failed))
	ch <- prometheus.MustNewConstMetric(archiveLastDesc, prometheus.GaugeValue, last)
}
