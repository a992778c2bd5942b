package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/finledger/finledger/internal/metrics"
)

// archiveCheckInterval is how often an instance reads the archiver's statistics to log
// a change: PostgreSQL retries a failed segment about once a minute.
const archiveCheckInterval = time.Minute

// watchArchiving logs when the database's WAL archiving starts failing, and when it
// recovers, until ctx ends. It is a log line and the metric finledger_wal_archive_failing,
// not readiness: the service serves as well while archiving fails, and taking every
// instance out of the load balancer for a backup's fault would make an outage of it
// (docs/operating.md, "Backups and restore to a moment").
func watchArchiving(ctx context.Context, db metrics.Querier, every time.Duration, log *slog.Logger) {
	failing := false
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if a, err := metrics.ReadArchiving(ctx, db); err == nil && a.Failing() != failing {
			failing = a.Failing()
			if failing {
				log.Warn("PostgreSQL cannot archive its write-ahead log: backups cannot be restored past the last segment archived until it can",
					"last_failed_wal", a.LastFailedWAL, "last_failed_at", a.LastFailed, "last_archived_at", a.LastArchived, "failures", a.Failed)
			} else {
				log.Info("PostgreSQL archives its write-ahead log again", "last_archived_at", a.LastArchived)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
