package projections

import (
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// totalsTable is a read model of sums of incomes and expenses, one row per workspace,
// category, type, currency and period, with its history: each state an event leaves
// a row in, stamped with the event's version (migrations 0020 and 0022). The daily
// totals and the monthly totals are written by the same statements, each with its
// table's names.
type totalsTable struct {
	table, history string
	period         string // the column that names a row's day or month
	periodOf       string // SQL: the period of the date of transaction row t
}

var (
	dailyTotals   = totalsTable{table: "daily_totals", history: "daily_total_versions", period: "day", periodOf: "t.date"}
	monthlyTotals = totalsTable{table: "monthly_totals", history: "monthly_total_versions", period: "month",
		periodOf: "date_trunc('month', t.date)::date"}
	totalsTables = []totalsTable{dailyTotals, monthlyTotals}
)

// totalOfK reads, as a LATERAL subquery, the one total of the table whose key row k
// names (its workspace_id, category_id, type, currency and period). A total is read so,
// by its whole key, wherever its key comes from a transaction's category lines:
// PostgreSQL expects a hundred lines of finledger_category_lines per transaction, where
// there is one unless it is split, and, left to plan the match, read the whole table of
// totals for each.
const totalOfK = `(SELECT * FROM {table} d WHERE (d.workspace_id, d.category_id, d.type, d.currency, d.{period})
		= (k.workspace_id, k.category_id, k.type, k.currency, k.period) LIMIT 1)`

// sql fills a statement's template: {total of k} by totalOfK, then {table}, {history}
// and {period} by the table's names, and {periodOf t} by the period of transaction row
// t's date.
func (tt totalsTable) sql(template string) string {
	template = strings.ReplaceAll(template, "{total of k}", totalOfK)
	return strings.NewReplacer("{table}", tt.table, "{history}", tt.history, "{period}", tt.period,
		"{periodOf t}", tt.periodOf).Replace(template)
}

// effectSQL adds (sign $3 = 1) or takes away (-1) a transaction's contribution to a
// table of totals. It reads the transaction's live row, so that the same statement adds
// a transaction (after its update) and takes it away (before its update or deletion)
// whatever changed: replay runs them in the same order and gets the same sums. A split
// transaction counts under each of its parts' categories (finledger_category_lines).
const effectSQL = `INSERT INTO {table} (workspace_id, {period}, type, currency, category_id, amount, count)
	SELECT t.workspace_id, {periodOf t}, t.type, t.currency, l.category_id, $3::int * l.amount, $3::int
	FROM transactions t CROSS JOIN LATERAL finledger_category_lines(t.category_id, t.amount, t.splits) l
	WHERE t.workspace_id = $1 AND t.id = $2 AND t.deleted_at IS NULL AND t.type IN ('income', 'expense')
	ON CONFLICT (workspace_id, category_id, type, currency, {period}) DO UPDATE
		SET amount = {table}.amount + excluded.amount, count = {table}.count + excluded.count`

// keptSQL keeps, in a table of totals' history, the totals a transaction's correction
// or deletion of version $3 left: the one it was taken out of (its row that event
// replaced) and the one it went into (its live row), once each, with no trailing zeros,
// as sumsSQL writes a new transaction's.
//
// Their keys are found first (k), and each total is then read by its whole key
// (totalOfK): read by the match, it took 3 ms a deletion against the daily totals of
// 100,000 transactions, most of the 47 s of the bench's undo of 10,000 (BENCHMARKS.md,
// 2026-12-01, afternoon).
const keptSQL = `WITH k AS MATERIALIZED (
		SELECT t.workspace_id, l.category_id, t.type, t.currency, {periodOf t} AS period
		FROM transactions t CROSS JOIN LATERAL finledger_category_lines(t.category_id, t.amount, t.splits) l
		WHERE t.workspace_id = $1 AND t.id = $2 AND t.deleted_at IS NULL AND t.type IN ('income', 'expense')
		UNION
		SELECT t.workspace_id, l.category_id, t.type, t.currency, {periodOf t}
		FROM transaction_versions t CROSS JOIN LATERAL finledger_category_lines(t.category_id, t.amount, t.splits) l
		WHERE t.workspace_id = $1 AND t.id = $2 AND t.replaced_version = $3 AND t.deleted_at IS NULL
			AND t.type IN ('income', 'expense'))
	INSERT INTO {history} (version, workspace_id, {period}, type, currency, category_id, amount, count)
	SELECT $3, d.workspace_id, d.{period}, d.type, d.currency, d.category_id, trim_scale(d.amount), d.count
	FROM k CROSS JOIN LATERAL {total of k} d`

// keptOfManySQL is keptSQL for several transactions ($2, an array) that one event of
// version $3 replaced, each total once.
var keptOfManySQL = strings.ReplaceAll(keptSQL, "id = $2", "id = ANY($2::uuid[])")

// gatheredSums is the sums gathered per total ($1 to $7, as sumsSQL and linkedSQL take
// them), each with its place in the arrays, the ordinality, as total.
const gatheredSums = `WITH s AS (
		SELECT * FROM unnest($1::uuid[], $2::date[], $3::text[], $4::text[], $5::uuid[], $6::numeric[], $7::bigint[])
			WITH ORDINALITY AS s(workspace_id, period, type, currency, category_id, amount, count, total))`

// sumsSQL adds new transactions' sums to a table of totals, one row per total, and
// keeps in its history the totals the events not yet kept left: each is the total
// after the sums less what the events after it added ($10, $11), with no trailing
// zeros, as effectSQL's and keptSQL's are. The history's rows name their total by its
// place in the sums' arrays ($8), which the sums carry as their ordinality: a subscript
// of a text array walks it from its start, and a hundred thousand of them into arrays
// of a few thousand totals took a second. One statement reads each total's row once: a
// workspace's writes all move the same few totals.
const sumsSQL = gatheredSums + `,
	total AS (
		INSERT INTO {table} (workspace_id, {period}, type, currency, category_id, amount, count)
		SELECT workspace_id, period, type, currency, category_id, amount, count FROM s
		ON CONFLICT (workspace_id, category_id, type, currency, {period}) DO UPDATE
			SET amount = {table}.amount + excluded.amount, count = {table}.count + excluded.count
		RETURNING *)
	INSERT INTO {history} (version, workspace_id, {period}, type, currency, category_id, amount, count)
	SELECT e.version, t.workspace_id, t.{period}, t.type, t.currency, t.category_id, trim_scale(t.amount - e.later_amount),
		t.count - e.later_count
	FROM unnest($8::int[], $9::bigint[], $10::numeric[], $11::bigint[]) AS e(total, version, later_amount, later_count)
	JOIN s ON s.total = e.total
	JOIN total t ON (t.workspace_id, t.category_id, t.type, t.currency, t.{period})
		= (s.workspace_id, s.category_id, s.type, s.currency, s.period)`

// historySQL keeps the total each event left in a table of totals' history, as
// sumsSQL does, but leaves the table alone: the total as the table holds it, plus what
// the event and those before it added since the table was last written. A replay keeps
// a batch's states with it, so that it writes each total's row once however many
// batches its history spans.
const historySQL = `INSERT INTO {history} (version, workspace_id, {period}, type, currency, category_id, amount, count)
	SELECT e.version, e.workspace_id, e.period, e.type, e.currency, e.category_id, trim_scale(coalesce(t.amount, 0) + e.added),
		coalesce(t.count, 0) + e.counted
	FROM unnest($1::uuid[], $2::date[], $3::text[], $4::text[], $5::uuid[], $6::bigint[], $7::numeric[], $8::bigint[])
		AS e(workspace_id, period, type, currency, category_id, version, added, counted)
	LEFT JOIN {table} t ON (t.workspace_id, t.category_id, t.type, t.currency, t.{period})
		= (e.workspace_id, e.category_id, e.type, e.currency, e.period)`

// linkedSQL keeps, in a table of totals' history, the totals that links to statement
// rows ($13, $14 of workspaces $12) left at their versions, as keptSQL would have at
// each link, but once the sums gathered since the table was last written ($1 to $11, as
// sumsSQL takes them) are written: each is the total less what the new transactions after
// its link added. A link changes neither its transaction's total nor, until the sums are
// written, does anything else (a correction or a deletion writes them first), so the
// transaction's live row names the total it was in at its link.
//
// Each link's total is read by its whole key, one row (k), and only then met with the
// sums: PostgreSQL expects a hundred lines of finledger_category_lines per transaction,
// where there is one unless it is split, and, left to plan the join, read every category's
// row of the period by the first column of the key and matched the sums again for each
// link. For a statement's 2,151 links into the monthly totals that took 0.36-0.46 s in
// the bench's commit, and 0.05 s read by the key (EXPLAIN ANALYZE on the bench's
// database; BENCHMARKS.md, 2026-12-01, night).
const linkedSQL = gatheredSums + `,
	k AS MATERIALIZED (
		SELECT l.version, d.workspace_id, d.{period} AS period, d.type, d.currency, d.category_id, d.amount, d.count
		FROM unnest($12::uuid[], $13::uuid[], $14::bigint[]) AS l(workspace_id, id, version)
		JOIN transactions t ON t.workspace_id = l.workspace_id AND t.id = l.id AND t.deleted_at IS NULL
			AND t.type IN ('income', 'expense')
		CROSS JOIN LATERAL finledger_category_lines(t.category_id, t.amount, t.splits) c
		CROSS JOIN LATERAL (SELECT * FROM {table} d WHERE (d.workspace_id, d.category_id, d.type, d.currency, d.{period})
			= (t.workspace_id, c.category_id, t.type, t.currency, {periodOf t}) LIMIT 1) d)
	INSERT INTO {history} (version, workspace_id, {period}, type, currency, category_id, amount, count)
	SELECT DISTINCT ON (k.workspace_id, k.version, k.category_id) k.version, k.workspace_id, k.period, k.type, k.currency, k.category_id,
		trim_scale(k.amount - coalesce(e.later_amount, s.amount, 0)), k.count - coalesce(e.later_count, s.count, 0)
	FROM k LEFT JOIN s ON (s.workspace_id, s.category_id, s.type, s.currency, s.period)
		= (k.workspace_id, k.category_id, k.type, k.currency, k.period)
	LEFT JOIN unnest($8::int[], $9::bigint[], $10::numeric[], $11::bigint[]) AS e(total, version, later_amount, later_count)
		ON e.total = s.total AND e.version < k.version
	ORDER BY k.workspace_id, k.version, k.category_id, e.version DESC NULLS LAST`

// totalsStatements are the statements of one table of totals, filled from the templates
// above.
type totalsStatements struct{ effect, kept, keptOfMany, sums, history, linked, deleted string }

// totalsSQL holds each table of totals' statements, by table name, filled once.
var totalsSQL = func() map[string]totalsStatements {
	out := map[string]totalsStatements{}
	for _, tt := range totalsTables {
		out[tt.table] = totalsStatements{tt.sql(effectSQL), tt.sql(keptSQL), tt.sql(keptOfManySQL), tt.sql(sumsSQL), tt.sql(historySQL),
			tt.sql(linkedSQL), tt.sql(deletedTotalsSQL)}
	}
	return out
}()

// queueTotalsEffect adds (sign 1) or takes away (-1) a live transaction, as its row
// stands, in every table of totals.
func queueTotalsEffect(b *pgx.Batch, ws, transactionID uuid.UUID, sign int) {
	for _, tt := range totalsTables {
		b.Queue(totalsSQL[tt.table].effect, ws, transactionID, sign)
	}
}

// queueTotalsKept keeps the totals a transaction's correction or deletion of the given
// version left, once its row is changed and the totals moved.
func queueTotalsKept(b *pgx.Batch, ws, transactionID uuid.UUID, version int64) {
	for _, tt := range totalsTables {
		b.Queue(totalsSQL[tt.table].kept, ws, transactionID, version)
	}
}

// queueTotalsKeptOfMany keeps, as queueTotalsKept does, the totals of the transactions
// an event of the given version replaced without moving them (a reconciliation's marks):
// the history of the totals holds a state at every version that replaced one of their
// transactions' rows, as migration 0020 derived it.
func queueTotalsKeptOfMany(b *pgx.Batch, ws uuid.UUID, transactionIDs []uuid.UUID, version int64) {
	for _, tt := range totalsTables {
		b.Queue(totalsSQL[tt.table].keptOfMany, ws, transactionIDs, version)
	}
}

// gatheredTotals sums new transactions per row of the tables of totals (incomes and
// expenses) and of the transaction counts per day and per month (every type), which
// only add up, so that each row is written once however many transactions it counts.
// A correction or a deletion takes a transaction out of rows that must hold it already:
// queue flushes the sums first.
type gatheredTotals struct {
	days, months           periodSums
	dayCounts, monthCounts periodCounts // keyed without currency, a month by its first day
	// deferLinks has the totals a link keeps (queueLinked) kept when the sums are next
	// written (flush), instead of the sums written at each link; links are those waiting.
	// A replay, which keeps its sums gathered across batches, keeps them at each link.
	deferLinks bool
	links      []keptLink
}

// keptLink is a link to a statement row, whose totals are kept when the sums are written.
type keptLink struct {
	workspaceID, transactionID uuid.UUID
	version                    int64
}

// totalsKey is a row of a table of totals, its period a day or a month's first day,
// YYYY-MM-DD; a transaction without a category counts under the nil category.
type totalsKey struct {
	workspaceID, categoryID uuid.UUID
	typ                     domain.TransactionType
	currency                string
	period                  domain.Date // the day, or the month's first day
}

// periodCounts is how many new transactions each row of one table of transaction
// counts gains, in the order the rows were first counted in.
type periodCounts struct {
	order  []totalsKey
	counts map[totalsKey]int64
}

// add counts a new transaction in row k.
func (p *periodCounts) add(k totalsKey) {
	if p.counts == nil {
		p.counts = map[totalsKey]int64{}
	}
	if _, ok := p.counts[k]; !ok {
		p.order = append(p.order, k)
	}
	p.counts[k]++
}

// flush queues the counts, each row's in one upsert of insert, and forgets them.
func (p *periodCounts) flush(b *pgx.Batch, insert *rowInsert) {
	counts := rows{insert: insert}
	for _, k := range p.order {
		counts.add(k.workspaceID, k.period, k.typ, k.categoryID, p.counts[k])
	}
	counts.flush(b)
	p.order, p.counts = p.order[:0], nil
}

// periodSums is what new transactions add to the rows of one table of totals, in the
// order the rows were first added to.
type periodSums struct {
	order []totalsKey
	sums  map[totalsKey]*gatheredTotal
}

// gatheredTotal is what new transactions add to a total until the table is written:
// what the events whose states the history holds already added (kept), and for each
// event whose state of it the history does not hold yet, its version, what it added
// and how many transactions. Each event's own amount is kept, not the running total
// after it, so that gathering a hundred thousand transactions allocates nothing per
// transaction that lives until the write: the running totals are summed when written.
type gatheredTotal struct {
	kept      decimal.Decimal
	keptCount int64
	versions  []int64
	amounts   []decimal.Decimal
	counts    []int64
}

// add counts a new transaction, created by the event of the given version, and sums it
// if it is an income or an expense: a split one under each of its parts' categories
// (domain.CategoryShares), as effectSQL does. Its count is under its own category, the
// nil one when split, as countAddSQL counts a corrected one.
func (t *gatheredTotals) add(ws uuid.UUID, d *domain.TransactionCreated, version int64) {
	k := totalsKey{workspaceID: ws, typ: d.Type, period: d.Date}
	if d.CategoryID != nil {
		k.categoryID = *d.CategoryID
	}
	m := k
	m.period = d.Date.MonthStart()
	t.dayCounts.add(k)
	t.monthCounts.add(m)
	if d.Type != domain.TxIncome && d.Type != domain.TxExpense {
		return
	}
	k.currency, m.currency = d.Currency, d.Currency
	for _, share := range domain.CategoryShares(d.CategoryID, d.Amount, d.Splits) {
		k.categoryID, m.categoryID = uuid.Nil, uuid.Nil
		if share.CategoryID != nil {
			k.categoryID, m.categoryID = *share.CategoryID, *share.CategoryID
		}
		t.days.add(k, share.Amount, version)
		t.months.add(m, share.Amount, version)
	}
}

// add sums amount into row k for the event of the given version.
func (p *periodSums) add(k totalsKey, amount decimal.Decimal, version int64) {
	if p.sums == nil {
		p.sums = map[totalsKey]*gatheredTotal{}
	}
	s, ok := p.sums[k]
	if !ok {
		s = &gatheredTotal{}
		p.sums[k] = s
		p.order = append(p.order, k)
	}
	if n := len(s.versions); n > 0 && s.versions[n-1] == version {
		s.amounts[n-1], s.counts[n-1] = s.amounts[n-1].Add(amount), s.counts[n-1]+1
		return
	}
	s.versions, s.amounts, s.counts = append(s.versions, version), append(s.amounts, amount), append(s.counts, 1)
}

// later returns, for each event gathered, what the events after it added, and what all
// of them added.
func (s *gatheredTotal) later() (amounts []decimal.Decimal, counts []int64, all decimal.Decimal, allCount int64) {
	amounts, counts = make([]decimal.Decimal, len(s.versions)), make([]int64, len(s.versions))
	for j := len(s.versions) - 1; j >= 0; j-- {
		amounts[j], counts[j] = all, allCount
		all, allCount = all.Add(s.amounts[j]), allCount+s.counts[j]
	}
	return amounts, counts, all, allCount
}

// flushHistory queues the states of the totals the events gathered since it was last
// called left, and forgets them; the sums stay gathered.
func (t *gatheredTotals) flushHistory(b *pgx.Batch) {
	t.days.flushHistory(b, dailyTotals)
	t.months.flushHistory(b, monthlyTotals)
}

func (p *periodSums) flushHistory(b *pgx.Batch, tt totalsTable) {
	var ws, categories []uuid.UUID
	var periods []any
	var types, currencies []string
	var versions, counted []int64
	var added []decimal.Decimal
	for _, k := range p.order {
		s := p.sums[k]
		for i, v := range s.versions {
			s.kept, s.keptCount = s.kept.Add(s.amounts[i]), s.keptCount+s.counts[i]
			ws, periods, types, currencies, categories = append(ws, k.workspaceID), append(periods, k.period.String()), append(types, string(k.typ)),
				append(currencies, k.currency), append(categories, k.categoryID)
			versions, added, counted = append(versions, v), append(added, s.kept), append(counted, s.keptCount)
		}
		s.versions, s.amounts, s.counts = s.versions[:0], s.amounts[:0], s.counts[:0]
	}
	if len(versions) > 0 {
		b.Queue(totalsSQL[tt.table].history, ws, periods, types, currencies, categories, versions, added, counted)
	}
}

// flush queues the sums, with the totals' history not yet kept, and the counts, each
// row's in one upsert, and forgets them.
func (t *gatheredTotals) flush(b *pgx.Batch) {
	t.days.flush(b, dailyTotals, t.links)
	t.months.flush(b, monthlyTotals, t.links)
	t.links = nil
	t.dayCounts.flush(b, transactionCountsInsert)
	t.monthCounts.flush(b, transactionMonthCountsInsert)
}

// flushSums queues the sums, with the totals' history not yet kept, and forgets them;
// the counts stay gathered.
func (t *gatheredTotals) flushSums(b *pgx.Batch) {
	t.days.flush(b, dailyTotals, t.links)
	t.months.flush(b, monthlyTotals, t.links)
	t.links = nil
}

// flush queues the sums, with their history, and then the totals the links kept.
func (p *periodSums) flush(b *pgx.Batch, tt totalsTable, links []keptLink) {
	n := len(p.order)
	if n == 0 && len(links) == 0 {
		return
	}
	ws, categories := make([]uuid.UUID, n), make([]uuid.UUID, n)
	periods, types, currencies := make([]any, n), make([]string, n), make([]string, n)
	amounts, counts := make([]decimal.Decimal, n), make([]int64, n)
	var totals []int32
	var versions, laterCounts []int64
	var laterAmounts []decimal.Decimal
	for i, k := range p.order {
		s := p.sums[k]
		later, laterCount, added, counted := s.later()
		ws[i], periods[i], types[i], currencies[i], categories[i] = k.workspaceID, k.period.String(), string(k.typ), k.currency, k.categoryID
		amounts[i], counts[i] = s.kept.Add(added), s.keptCount+counted
		for _, v := range s.versions {
			totals, versions = append(totals, int32(i+1)), append(versions, v)
		}
		laterAmounts, laterCounts = append(laterAmounts, later...), append(laterCounts, laterCount...)
	}
	if n > 0 {
		b.Queue(totalsSQL[tt.table].sums, ws, periods, types, currencies, categories, amounts, counts, totals, versions, laterAmounts,
			laterCounts)
	}
	if len(links) > 0 {
		linkWS, linked, at := make([]uuid.UUID, len(links)), make([]uuid.UUID, len(links)), make([]int64, len(links))
		for i, l := range links {
			linkWS[i], linked[i], at[i] = l.workspaceID, l.transactionID, l.version
		}
		b.Queue(totalsSQL[tt.table].linked, ws, periods, types, currencies, categories, amounts, counts, totals, versions, laterAmounts,
			laterCounts, linkWS, linked, at)
	}
	p.order, p.sums = p.order[:0], nil
}
