package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// A write in parts encodes each part's batch while PostgreSQL applies the part before
// it. pgx's SendBatch encodes a batch's arguments as it sends them, after the part
// before has run, which left PostgreSQL idle while a part's arrays of amounts, payloads
// and ids were encoded: a tenth of a statement's commit. encodeBatch encodes a batch
// ahead, with the connection's type map, into the wire messages that sendEncoded then
// only writes; BatchResults over them reads the results as pgx's own do, running the
// queued queries' callbacks in order.

// descriptions are the parameter and result types of the statements a write in parts
// has sent, by their SQL, as PostgreSQL described them: a statement is described once
// by an instance, on an idle connection, and encoded ahead from then on. They depend
// only on the schema; a batch that fails forgets them all, as pgx's statement cache
// does, so a migration run meanwhile by another instance costs one failed write at most.
type descriptions struct {
	mu    sync.Mutex
	of    map[string]*pgconn.StatementDescription
	limit int // past it the descriptions are forgotten (statements whose SQL varies)
	// encoded and forgot count the batches sent encoded ahead and the times the
	// descriptions were forgotten, for the tests.
	encoded, forgot int
}

func newDescriptions() *descriptions {
	return &descriptions{of: map[string]*pgconn.StatementDescription{}, limit: 256}
}

// lookup returns the descriptions of the batch's statements, and the SQL of those not
// yet described.
func (d *descriptions) lookup(b *pgx.Batch) (map[string]*pgconn.StatementDescription, []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	found := make(map[string]*pgconn.StatementDescription, len(b.QueuedQueries))
	var missing []string
	for _, q := range b.QueuedQueries {
		if _, seen := found[q.SQL]; seen {
			continue
		}
		sd, ok := d.of[q.SQL]
		found[q.SQL] = sd
		if !ok {
			missing = append(missing, q.SQL)
		}
	}
	return found, missing
}

// describe asks PostgreSQL, on conn (idle), for the descriptions of the statements, as
// the unnamed statement, which leaves nothing prepared behind.
func (d *descriptions) describe(ctx context.Context, conn *pgx.Conn, sqls []string) error {
	for _, sql := range sqls {
		sd, err := conn.PgConn().Prepare(ctx, "", sql, nil)
		if err != nil {
			return fmt.Errorf("ledger: describe a statement of the write: %w", err)
		}
		d.mu.Lock()
		if len(d.of) >= d.limit {
			clear(d.of)
			d.forgot++
		}
		d.of[sql] = sd
		d.mu.Unlock()
	}
	return nil
}

func (d *descriptions) forget() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.of)
	d.forgot++
}

// encodeBatch encodes the arguments of b's statements, each run as the unnamed
// statement, with conn's type map; nil when a statement is not yet described. It does
// not touch the connection, which may be running the batch sent before.
func (d *descriptions) encodeBatch(conn *pgx.Conn, b *pgx.Batch) (*pgconn.Batch, error) {
	described, missing := d.lookup(b)
	if len(missing) > 0 {
		return nil, nil
	}
	encoded := &pgconn.Batch{}
	var eqb pgx.ExtendedQueryBuilder
	for i, q := range b.QueuedQueries {
		sd := described[q.SQL]
		if err := eqb.Build(conn.TypeMap(), sd, q.Arguments); err != nil {
			return nil, fmt.Errorf("ledger: encode statement %d of the write: %w", i+1, err)
		}
		encoded.ExecParams(q.SQL, eqb.ParamValues, sd.ParamOIDs, eqb.ParamFormats, eqb.ResultFormats)
	}
	return encoded, nil
}

// sendEncoded writes the encoded batch of b on conn and returns its results.
func (d *descriptions) sendEncoded(ctx context.Context, conn *pgx.Conn, b *pgx.Batch, encoded *pgconn.Batch) pgx.BatchResults {
	d.mu.Lock()
	d.encoded++
	d.mu.Unlock()
	return &encodedResults{d: d, conn: conn, batch: b, mrr: conn.PgConn().ExecBatch(ctx, encoded)}
}

// encodedResults are the results of an encoded batch, read as pgx's batch results are.
type encodedResults struct {
	d      *descriptions
	conn   *pgx.Conn
	batch  *pgx.Batch
	mrr    *pgconn.MultiResultReader
	next   int // the queued query whose result comes next
	err    error
	closed bool
}

var errNoMoreResults = errors.New("ledger: no more results in the batch")

// nextResult advances to the next statement's result, or returns why there is none.
func (r *encodedResults) nextResult() (*pgconn.ResultReader, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.closed {
		return nil, errors.New("ledger: batch already closed")
	}
	r.next++
	if !r.mrr.NextResult() {
		err := r.mrr.Close()
		if err == nil {
			err = errNoMoreResults
		}
		r.fail(err)
		return nil, err
	}
	return r.mrr.ResultReader(), nil
}

func (r *encodedResults) fail(err error) {
	if r.err == nil {
		r.err = err
		r.d.forget()
	}
}

func (r *encodedResults) Exec() (pgconn.CommandTag, error) {
	rr, err := r.nextResult()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := rr.Close()
	if err != nil {
		r.fail(err)
		r.mrr.Close()
	}
	return tag, err
}

func (r *encodedResults) Query() (pgx.Rows, error) {
	rr, err := r.nextResult()
	if err != nil {
		return failedRows{err}, err
	}
	return &watchedRows{Rows: pgx.RowsFromResultReader(r.conn.TypeMap(), rr), r: r}, nil
}

func (r *encodedResults) QueryRow() pgx.Row {
	rows, _ := r.Query()
	return rowOf{rows}
}

func (r *encodedResults) Close() error {
	if r.closed {
		return r.err
	}
	for r.err == nil && r.next < len(r.batch.QueuedQueries) {
		if fn := r.batch.QueuedQueries[r.next].Fn; fn != nil {
			if err := fn(r); err != nil {
				r.fail(err)
			}
		} else {
			_, _ = r.Exec()
		}
	}
	r.closed = true
	if err := r.mrr.Close(); err != nil {
		r.fail(err)
	}
	return r.err
}

func (r *encodedResults) Tx() pgx.Tx { return nil }

// watchedRows are a statement's rows; an error they meet fails the batch.
type watchedRows struct {
	pgx.Rows
	r *encodedResults
}

func (w *watchedRows) Close() {
	w.Rows.Close()
	if err := w.Rows.Err(); err != nil {
		w.r.fail(err)
	}
}

// failedRows are the rows of a statement whose result could not be read.
type failedRows struct{ err error }

func (failedRows) Close()                                       {}
func (f failedRows) Err() error                                 { return f.err }
func (failedRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (failedRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (failedRows) Next() bool                                   { return false }
func (f failedRows) Scan(...any) error                          { return f.err }
func (f failedRows) Values() ([]any, error)                     { return nil, f.err }
func (failedRows) RawValues() [][]byte                          { return nil }
func (failedRows) Conn() *pgx.Conn                              { return nil }
func (failedRows) TypeMap() *pgtype.Map                         { return nil }

// rowOf is the first row of rows, as pgx's QueryRow gives it.
type rowOf struct{ rows pgx.Rows }

func (r rowOf) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
