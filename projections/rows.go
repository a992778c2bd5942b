package projections

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/commands"
)

// rowInsert is how a read model takes whole new rows. One description gives both
// statements: the one that inserts a lone row, as a command's own append usually queues,
// and the one that inserts many at once from an array per column, as a command's append
// of several queues, where a statement per row cost more than the rows themselves. A
// replay, which gathers thousands, COPYs them instead when the insert has no conflict
// clause (COPY has none).
type rowInsert struct {
	width     int
	one, many string
	table     string
	names     []string
	dates     []int // the columns of type date, whose values are "YYYY-MM-DD" strings
	copyable  bool
}

// newRowInsert describes the insert of rows into table; columns are "name type" in the
// order of the values, conflict is what follows the insert (an ON CONFLICT clause or "").
func newRowInsert(table string, columns []string, conflict string) *rowInsert {
	names := make([]string, len(columns))
	one := make([]string, len(columns))
	many := make([]string, len(columns))
	var dates []int
	for i, c := range columns {
		name, typ, _ := strings.Cut(c, " ")
		names[i] = name
		one[i] = fmt.Sprintf("$%d::%s", i+1, typ)
		many[i] = fmt.Sprintf("$%d::%s[]", i+1, typ)
		if typ == "date" {
			dates = append(dates, i)
		}
	}
	head := `INSERT INTO ` + table + ` (` + strings.Join(names, ", ") + `) `
	return &rowInsert{width: len(columns),
		one:   head + `VALUES (` + strings.Join(one, ", ") + `)` + conflict,
		many:  head + `SELECT * FROM unnest(` + strings.Join(many, ", ") + `)` + conflict,
		table: table, names: names, dates: dates, copyable: conflict == ""}
}

// rows gathers the rows of one rowInsert until they are flushed into a batch.
type rows struct {
	insert *rowInsert
	values [][]any // each row's, in the order of the insert's columns
	// copies, when set, takes several rows of a copyable insert at their flush, to be
	// COPYed at that place among the batch's statements.
	copies *[]rowCopy
}

// add gathers a row, its values in the order of the insert's columns; it keeps values.
func (r *rows) add(values ...any) {
	if len(values) != r.insert.width {
		panic(fmt.Sprintf("projections: %d values for %d columns in %s", len(values), r.insert.width, r.insert.one))
	}
	for i, v := range values {
		values[i] = plain(v)
	}
	r.values = append(r.values, values)
}

// flush queues the gathered rows in one statement and forgets them.
func (r *rows) flush(b *pgx.Batch) {
	switch len(r.values) {
	case 0:
		return
	case 1:
		b.Queue(r.insert.one, r.values[0]...)
	default:
		if r.copies != nil && r.insert.copyable {
			*r.copies = append(*r.copies, rowCopy{at: b.Len(), insert: r.insert, values: r.values})
			break
		}
		columns := make([]any, r.insert.width)
		for i := range columns {
			column := make([]any, len(r.values))
			for j, row := range r.values {
				column[j] = row[i]
			}
			columns[i] = column
		}
		b.Queue(r.insert.many, columns...)
	}
	r.values = nil
}

// rowCopy is gathered rows left to COPY into their table before the statement at index
// at of a batch (at its end if at is its length).
type rowCopy struct {
	at     int
	insert *rowInsert
	values [][]any
}

// copyRows reads a rowCopy's rows as pgx.CopyFrom does. COPY's binary format takes no
// text for a date, so a date's string is parsed here.
type copyRows struct {
	*rowCopy
	next int
	row  []any
	err  error
}

func (c *copyRows) Next() bool {
	if c.err != nil || c.next == len(c.values) {
		return false
	}
	c.row = c.values[c.next]
	c.next++
	for _, i := range c.insert.dates {
		if s, ok := c.row[i].(string); ok {
			t, err := time.Parse(time.DateOnly, s)
			if err != nil {
				c.err = fmt.Errorf("projections: %s.%s: %w", c.insert.table, c.insert.names[i], err)
				return false
			}
			c.row[i] = pgtype.Date{Time: t, Valid: true}
		}
	}
	return true
}

func (c *copyRows) Values() ([]any, error) { return c.row, nil }

func (c *copyRows) Err() error { return c.err }

// plain is a value as pgx encodes it fastest in an array: a pointer's element, or nil.
// Given a pointer, pgx asks reflect of every element whether its type is a
// driver.Valuer.
func plain(v any) any {
	switch v := v.(type) {
	case *string:
		if v != nil {
			return *v
		}
		return nil
	case *uuid.UUID:
		if v != nil {
			return *v
		}
		return nil
	case *decimal.Decimal:
		if v != nil {
			return *v
		}
		return nil
	}
	return v
}

// pending holds what events do to the read models that nothing projected reads back
// before the batch ends: new transactions and audit entries, the daily totals and the
// wallets' balances. A command's append gathers its events' rows and queues each table's
// in one statement after them. A replay does so per batch of the log, but keeps adding
// to the totals until a correction or its end needs them, so that each total's row is
// written once, not once a batch; the states each event left, which the histories keep,
// it writes per batch.
// Whatever reads a gathered row must flush it first (queue does, before the events that
// need it).
type pending struct {
	transactions rows
	audit        rows
	totals       dailyTotals
	postings     walletPostings
	copies       []rowCopy // with copying, the new rows flushed since takeCopies
}

func newPending() *pending {
	return &pending{transactions: rows{insert: transactionInsert}, audit: rows{insert: auditInsert}}
}

// copying has the new transactions and audit entries, when several are flushed at once,
// left to COPY (takeCopies) instead of queued: a replay's, thousands at a time.
func (p *pending) copying() {
	p.transactions.copies, p.audit.copies = &p.copies, &p.copies
}

// takeCopies returns the rows left to COPY since it was last called, each at its place
// in the batch they were flushed into.
func (p *pending) takeCopies() []rowCopy {
	c := p.copies
	p.copies = nil
	return c
}

// flushBatch queues what a replay writes once per batch of the log: the new rows, the
// totals' history (the totals stay gathered) and the wallets' moves.
func (p *pending) flushBatch(b *pgx.Batch) {
	p.transactions.flush(b)
	p.audit.flush(b)
	p.totals.flushHistory(b)
	p.postings.flush(b)
}

// flush queues everything gathered: the totals with their history in one statement.
func (p *pending) flush(b *pgx.Batch) {
	p.transactions.flush(b)
	p.audit.flush(b)
	p.totals.flush(b)
	p.postings.flush(b)
}

var transactionInsert = newRowInsert("transactions", []string{"workspace_id uuid", "id uuid", "type text", "amount numeric",
	"currency text", "destination_amount numeric", "date date", "concept text", "description text", "wallet_id uuid",
	"to_wallet_id uuid", "category_id uuid", "goal_id uuid", "debt_id uuid", "recurring_id uuid", "tag_id uuid",
	"reference_number text", "attachment_url text", "created_at timestamptz", "updated_at timestamptz", "created_version bigint"}, "")

// totalsSQL adds new transactions' sums to the daily totals, one row per total, and
// keeps in their history the totals the events not yet kept left: each is the total
// after the sums less what the events after it added ($10, $11), with no trailing
// zeros, as totalsEffectSQL's and totalsKeptSQL's are. The history's rows name their
// total by its place in the sums' arrays ($8). One statement reads each total's row
// once: a workspace's writes all move the same few totals.
const totalsSQL = `WITH total AS (
		INSERT INTO daily_totals (workspace_id, day, type, currency, category_id, amount, count)
		SELECT * FROM unnest($1::uuid[], $2::date[], $3::text[], $4::text[], $5::uuid[], $6::numeric[], $7::bigint[])
		ON CONFLICT (workspace_id, category_id, type, currency, day) DO UPDATE
			SET amount = daily_totals.amount + excluded.amount, count = daily_totals.count + excluded.count
		RETURNING *)
	INSERT INTO daily_total_versions (version, workspace_id, day, type, currency, category_id, amount, count)
	SELECT e.version, t.workspace_id, t.day, t.type, t.currency, t.category_id, trim_scale(t.amount - e.later_amount),
		t.count - e.later_count
	FROM unnest($8::int[], $9::bigint[], $10::numeric[], $11::bigint[]) AS e(total, version, later_amount, later_count)
	JOIN total t ON (t.workspace_id, t.category_id, t.type, t.currency, t.day)
		= (($1::uuid[])[e.total], ($5::uuid[])[e.total], ($3::text[])[e.total], ($4::text[])[e.total], ($2::date[])[e.total])`

// totalsHistorySQL keeps the total each event left in the daily totals' history, as
// totalsSQL does, but leaves the table alone: the total as the table holds it, plus
// what the event and those before it added since the table was last written. A replay
// keeps a batch's states with it, so that it writes each total's row once however
// many batches its history spans.
const totalsHistorySQL = `INSERT INTO daily_total_versions (version, workspace_id, day, type, currency, category_id, amount, count)
	SELECT e.version, e.workspace_id, e.day, e.type, e.currency, e.category_id, trim_scale(coalesce(t.amount, 0) + e.added),
		coalesce(t.count, 0) + e.counted
	FROM unnest($1::uuid[], $2::date[], $3::text[], $4::text[], $5::uuid[], $6::bigint[], $7::numeric[], $8::bigint[])
		AS e(workspace_id, day, type, currency, category_id, version, added, counted)
	LEFT JOIN daily_totals t ON (t.workspace_id, t.category_id, t.type, t.currency, t.day)
		= (e.workspace_id, e.category_id, e.type, e.currency, e.day)`

// transactionCountsInsert adds to the transaction counts: the rows it is given are
// counts of new transactions, one per key.
var transactionCountsInsert = newRowInsert("transaction_counts", []string{"workspace_id uuid", "day date", "type text",
	"category_id uuid", "count bigint"},
	` ON CONFLICT (workspace_id, day, type, category_id) DO UPDATE SET count = transaction_counts.count + excluded.count`)

// transactionMonthCountsInsert adds to the transaction counts per month as
// transactionCountsInsert does to those per day.
var transactionMonthCountsInsert = newRowInsert("transaction_month_counts", []string{"workspace_id uuid", "month date",
	"type text", "category_id uuid", "count bigint"},
	` ON CONFLICT (workspace_id, month, type, category_id) DO UPDATE SET count = transaction_month_counts.count + excluded.count`)

// dailyTotals sums new transactions per row of the daily totals (incomes and expenses)
// and of the transaction counts per day and per month (every type), which only add up,
// so that each row is written once however many transactions it counts. A correction or
// a deletion takes a transaction out of rows that must hold it already: queue flushes
// the sums first.
type dailyTotals struct {
	order   []totalsKey
	sums    map[totalsKey]*dailyTotal
	counts  map[totalsKey]int64 // keyed without currency
	listed  []totalsKey         // the counts' keys in order
	months  map[totalsKey]int64 // keyed by the month's first day, without currency
	monthly []totalsKey         // the months' keys in order
}

// totalsKey is a row of the daily totals; a transaction without a category counts under
// the nil category.
type totalsKey struct {
	workspaceID, categoryID uuid.UUID
	typ, currency, day      string
}

// dailyTotal is what new transactions add to a total until the table is written, and
// the events whose state of it the history does not hold yet: their versions, and what
// the total had been added to once each was applied.
type dailyTotal struct {
	amount   decimal.Decimal
	count    int64
	versions []int64
	added    []decimal.Decimal
	counted  []int64
}

// add counts a new transaction, created by the event of the given version, and sums it
// if it is an income or an expense.
func (t *dailyTotals) add(ws uuid.UUID, d *commands.TransactionCreated, version int64) {
	k := totalsKey{workspaceID: ws, typ: d.Type, day: d.Date}
	if d.CategoryID != nil {
		k.categoryID = *d.CategoryID
	}
	if t.counts == nil {
		t.sums, t.counts, t.months = map[totalsKey]*dailyTotal{}, map[totalsKey]int64{}, map[totalsKey]int64{}
	}
	if _, ok := t.counts[k]; !ok {
		t.listed = append(t.listed, k)
	}
	t.counts[k]++
	m := k
	m.day = monthOf(d.Date)
	if _, ok := t.months[m]; !ok {
		t.monthly = append(t.monthly, m)
	}
	t.months[m]++
	if d.Type != commands.TxIncome && d.Type != commands.TxExpense {
		return
	}
	k.currency = d.Currency
	s, ok := t.sums[k]
	if !ok {
		s = &dailyTotal{}
		t.sums[k] = s
		t.order = append(t.order, k)
	}
	s.amount, s.count = s.amount.Add(d.Amount), s.count+1
	if n := len(s.versions); n > 0 && s.versions[n-1] == version {
		s.added[n-1], s.counted[n-1] = s.amount, s.count
		return
	}
	s.versions, s.added, s.counted = append(s.versions, version), append(s.added, s.amount), append(s.counted, s.count)
}

// flushHistory queues the states of the totals the events gathered since it was last
// called left, and forgets them; the sums stay gathered.
func (t *dailyTotals) flushHistory(b *pgx.Batch) {
	var ws, categories []uuid.UUID
	var days []any
	var types, currencies []string
	var versions, counted []int64
	var added []decimal.Decimal
	for _, k := range t.order {
		s := t.sums[k]
		for i, v := range s.versions {
			ws, days, types, currencies, categories = append(ws, k.workspaceID), append(days, k.day), append(types, k.typ),
				append(currencies, k.currency), append(categories, k.categoryID)
			versions, added, counted = append(versions, v), append(added, s.added[i]), append(counted, s.counted[i])
		}
		s.versions, s.added, s.counted = s.versions[:0], s.added[:0], s.counted[:0]
	}
	if len(versions) > 0 {
		b.Queue(totalsHistorySQL, ws, days, types, currencies, categories, versions, added, counted)
	}
}

// flush queues the sums, with the totals' history not yet kept, and the counts, each
// row's in one upsert, and forgets them.
func (t *dailyTotals) flush(b *pgx.Batch) {
	if n := len(t.order); n > 0 {
		ws, categories := make([]uuid.UUID, n), make([]uuid.UUID, n)
		days, types, currencies := make([]any, n), make([]string, n), make([]string, n)
		amounts, counts := make([]decimal.Decimal, n), make([]int64, n)
		var totals []int32
		var versions, laterCounts []int64
		var laterAmounts []decimal.Decimal
		for i, k := range t.order {
			s := t.sums[k]
			ws[i], days[i], types[i], currencies[i], categories[i] = k.workspaceID, k.day, k.typ, k.currency, k.categoryID
			amounts[i], counts[i] = s.amount, s.count
			for j, v := range s.versions {
				totals, versions = append(totals, int32(i+1)), append(versions, v)
				laterAmounts, laterCounts = append(laterAmounts, s.amount.Sub(s.added[j])), append(laterCounts, s.count-s.counted[j])
			}
		}
		b.Queue(totalsSQL, ws, days, types, currencies, categories, amounts, counts, totals, versions, laterAmounts, laterCounts)
	}
	counts := rows{insert: transactionCountsInsert}
	for _, k := range t.listed {
		counts.add(k.workspaceID, k.day, k.typ, k.categoryID, t.counts[k])
	}
	counts.flush(b)
	months := rows{insert: transactionMonthCountsInsert}
	for _, k := range t.monthly {
		months.add(k.workspaceID, k.day, k.typ, k.categoryID, t.months[k])
	}
	months.flush(b)
	t.order, t.listed, t.monthly, t.sums, t.counts, t.months = t.order[:0], t.listed[:0], t.monthly[:0], nil, nil, nil
}

// monthOf is the first day of a date's month, both YYYY-MM-DD. A date it cannot read it
// leaves as it is, for the insert of the transaction to refuse.
func monthOf(day string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return d.AddDate(0, 0, 1-d.Day()).Format(time.DateOnly)
}
