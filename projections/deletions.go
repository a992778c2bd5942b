package projections

import (
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
)

// gatheredDeletions are deletions of transactions, each its own event, written together
// as one write of each table: an import's undo deletes thousands in one command, and a
// statement per table and deletion rewrote the same month's total and count thousands of
// times in one transaction (BENCHMARKS.md, 2026-12-01, afternoon). Each deletion keeps
// what the per-event statements kept: its audit entry read from the row, the row as it
// was (transaction_versions), and the totals it left at its version. queue writes those
// gathered before any other event, which may read or change what they change.
type gatheredDeletions struct {
	audits          fromRowAudits
	workspaces, ids []uuid.UUID
	versions        []int64
	at              []time.Time
}

// gathersDeletion reports whether an event is a deletion that goes with the gathered
// ones: one that moves no goal or debt (those take the per-event statements).
func gathersDeletion(data any) bool {
	d, ok := data.(*domain.TransactionDeleted)
	return ok && d.Effects != nil && len(d.Effects.Goals) == 0 && len(d.Effects.Debts) == 0
}

// add gathers the deletion of a transaction (its audit entry is gathered by queueAudit).
func (d *gatheredDeletions) add(ws, transactionID uuid.UUID, at time.Time, version int64) {
	d.workspaces, d.ids = append(d.workspaces, ws), append(d.ids, transactionID)
	d.versions, d.at = append(d.versions, version), append(d.at, at)
}

// deletedTotalsSQL takes the live rows of transactions $2 of workspaces $1, deleted at
// versions $3, out of a table of totals, each total moved once, and keeps in its
// history the total each deletion left: the total before them less what the deletions
// up to it took away (read before the move, in the same snapshot). As effectSQL and
// keptSQL, a split transaction counts under each of its parts' categories, and each
// total is read by its whole key (totalOfK).
const deletedTotalsSQL = `WITH d AS (
		SELECT u.version, t.workspace_id, l.category_id, t.type, t.currency, {periodOf t} AS period, l.amount
		FROM unnest($1::uuid[], $2::uuid[], $3::bigint[]) AS u(workspace_id, id, version)
		JOIN transactions t ON t.workspace_id = u.workspace_id AND t.id = u.id AND t.deleted_at IS NULL
			AND t.type IN ('income', 'expense')
		CROSS JOIN LATERAL finledger_category_lines(t.category_id, t.amount, t.splits) l),
	k AS MATERIALIZED (
		SELECT d.*, sum(d.amount) OVER w AS amount_so_far, count(*) OVER w AS count_so_far FROM d
		WINDOW w AS (PARTITION BY d.workspace_id, d.category_id, d.type, d.currency, d.period ORDER BY d.version)),
	kept AS (
		INSERT INTO {history} (version, workspace_id, {period}, type, currency, category_id, amount, count)
		SELECT k.version, x.workspace_id, x.{period}, x.type, x.currency, x.category_id, trim_scale(x.amount - k.amount_so_far),
			x.count - k.count_so_far
		FROM k CROSS JOIN LATERAL {total of k} x)
	INSERT INTO {table} (workspace_id, {period}, type, currency, category_id, amount, count)
	SELECT workspace_id, period, type, currency, category_id, -sum(amount), -count(*) FROM d
	GROUP BY workspace_id, period, type, currency, category_id
	ON CONFLICT (workspace_id, category_id, type, currency, {period}) DO UPDATE
		SET amount = {table}.amount + excluded.amount, count = {table}.count + excluded.count`

// deletedRowsSQL marks transactions $2 of workspaces $1 deleted at times $4 by the
// events of versions $3, one element per deletion.
const deletedRowsSQL = `UPDATE transactions t SET deleted_at = u.at, updated_at = u.at, changed_version = u.version
	FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::timestamptz[]) AS u(workspace_id, id, version, at)
	WHERE t.workspace_id = u.workspace_id AND t.id = u.id`

// flush queues the deletions gathered, in the order the per-event statements take, and
// forgets them: the audit entries and the totals and counts read the live rows, the
// rows are kept as they were, then marked deleted.
func (d *gatheredDeletions) flush(b *pgx.Batch) {
	if len(d.ids) == 0 {
		return
	}
	d.audits.queue(b, transactionColumns)
	for _, tt := range totalsTables {
		b.Queue(totalsSQL[tt.table].deleted, d.workspaces, d.ids, d.versions)
	}
	b.Queue(countsRemovedSQL, d.workspaces, d.ids)
	b.Queue(replacedSQL, d.workspaces, d.ids, d.versions)
	b.Queue(deletedRowsSQL, d.workspaces, d.ids, d.versions, d.at)
	*d = gatheredDeletions{}
}
