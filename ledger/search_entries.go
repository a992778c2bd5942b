package ledger

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A large write (a statement's import: a hundred thousand transactions in one
// transaction) would otherwise spend much of its time in the search's trigram indexes.
// Those are GIN indexes, which take new entries into a pending list and merge the list
// into the index, in bulk, whenever it outgrows gin_pending_list_limit (4 MB by default):
// in the inserting transaction. A streamed write raises the limit for its own
// transaction, so its entries wait in the list and its commit does not merge them; the
// Ledger then merges the lists in the background once the write has committed. A
// search reads the pending list as well as the index, so it finds every row meanwhile,
// only more slowly while the list is long. Should the merge not run (the instance
// stopped), the next write that outgrows the default limit merges the list, or
// autovacuum does.

// deferSearchEntries leaves a streamed write's GIN entries in the pending lists, up to
// 1 GB of them: a bound on what a search scans before the merge.
const deferSearchEntries = `SET LOCAL gin_pending_list_limit = '1GB'`

// mergePendingEntries merges the pending list of every GIN index of the schema that the
// service's role may clean (its owner's), and returns the pages it merged.
const mergePendingEntries = `SELECT coalesce(sum(gin_clean_pending_list(c.oid)), 0)
	FROM pg_class c
	JOIN pg_am am ON am.oid = c.relam AND am.amname = 'gin'
	JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
	WHERE c.relkind = 'i' AND pg_has_role(c.relowner, 'USAGE')`

// mergeTimeout bounds one merge of the pending lists.
const mergeTimeout = 10 * time.Minute

// pendingMerge runs mergePendingEntries in the background, one at a time per Ledger:
// a merge asked for while one runs is run once after it.
type pendingMerge struct {
	pool *pgxpool.Pool

	mu      sync.Mutex
	running bool
	again   bool
}

// start asks for a merge without waiting for it.
func (m *pendingMerge) start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		m.again = true
		return
	}
	m.running = true
	go m.run()
}

func (m *pendingMerge) run() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), mergeTimeout)
		began := time.Now()
		var pages int64
		if err := m.pool.QueryRow(ctx, mergePendingEntries).Scan(&pages); err != nil {
			slog.WarnContext(ctx, "search indexes' pending entries not merged; the next large write or autovacuum merges them", "err", err)
		} else if pages > 0 {
			slog.InfoContext(ctx, "search indexes' pending entries merged", "pages", pages, "took", time.Since(began))
		}
		cancel()
		m.mu.Lock()
		if !m.again {
			m.running = false
			m.mu.Unlock()
			return
		}
		m.again = false
		m.mu.Unlock()
	}
}
