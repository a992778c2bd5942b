package projections

import (
	"fmt"
	"strings"
	"time"

	"github.com/finledger/finledger/domain"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
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

// plain is a value as pgx encodes it fastest in an array: a pointer's element, or nil;
// a date as its "YYYY-MM-DD" text (none as nil), a transaction type as its name.
// Given a pointer, pgx asks reflect of every element whether its type is a
// driver.Valuer.
func plain(v any) any {
	switch v := v.(type) {
	case domain.Date:
		if v.IsZero() {
			return nil
		}
		return v.String()
	case *domain.Date:
		if v != nil && !v.IsZero() {
			return v.String()
		}
		return nil
	case domain.TransactionType:
		return string(v)
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
// before the batch ends: new transactions and audit entries, a command's links to
// statement rows (gatheredLinks) and deletions (gatheredDeletions), the totals and the
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
	links        gatheredLinks
	deletions    gatheredDeletions
	totals       gatheredTotals
	postings     walletPostings
	copies       []rowCopy // with copying, the new rows flushed since takeCopies
	// gathered holds the ids of the new transactions among transactions' rows; an id
	// stays after its row is flushed, until the next row is gathered.
	gathered map[uuid.UUID]struct{}
}

// gatherTransaction notes that a new transaction's row is about to be gathered.
func (p *pending) gatherTransaction(id uuid.UUID) {
	if p.gathered == nil || len(p.transactions.values) == 0 {
		p.gathered = map[uuid.UUID]struct{}{}
	}
	p.gathered[id] = struct{}{}
}

// flushTransaction queues the new transactions' rows if the transaction id is among
// them, so that a statement after it finds its row.
func (p *pending) flushTransaction(b *pgx.Batch, id uuid.UUID) {
	if _, ok := p.gathered[id]; ok {
		p.transactions.flush(b)
	}
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
	p.deletions.flush(b)
	p.transactions.flush(b)
	p.audit.flush(b)
	p.links.flush(b)
	p.totals.flushHistory(b)
	p.postings.flush(b)
}

// flush queues everything gathered: the totals with their history in one statement.
func (p *pending) flush(b *pgx.Batch) {
	p.deletions.flush(b)
	p.transactions.flush(b)
	p.audit.flush(b)
	p.links.flush(b)
	p.totals.flush(b)
	p.postings.flush(b)
}

var transactionInsert = newRowInsert("transactions", []string{"workspace_id uuid", "id uuid", "type text", "amount numeric",
	"currency text", "destination_amount numeric", "date date", "concept text", "description text", "wallet_id uuid",
	"to_wallet_id uuid", "category_id uuid", "goal_id uuid", "debt_id uuid", "recurring_id uuid", "tag_id uuid",
	"reference_number text", "attachment_url text", "cleared boolean", "created_at timestamptz", "updated_at timestamptz", "created_version bigint",
	"import_id uuid", "external_id text", "splits jsonb"}, "")

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
