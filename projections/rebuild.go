package projections

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/ledger"
)

// replayBatch is how many events a rebuild reads and projects per round trip (a
// variable, so that tests can replay a short log in many batches).
var replayBatch = 5000

// Rebuild clears every read model and replays the whole log into it in one
// transaction, so readers see the old models until the new ones are complete. It takes
// eventstore.LockAppends first, so that no command commits while it replays. It leaves
// the workspace snapshots alone: they are folds of the events, which a replay does not
// change, and Verify checks them.
func Rebuild(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	return RebuildTelling(ctx, pool, nil)
}

// RebuildTelling rebuilds as Rebuild does and tells replayed, if not nil, how many
// events each batch of the replay brought.
func RebuildTelling(ctx context.Context, pool *pgxpool.Pool, replayed func(events int)) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := eventstore.LockAppends(ctx, tx); err != nil {
			return err
		}
		// The replay writes every workspace's history from its first event.
		if _, err := tx.Exec(ctx, `DELETE FROM history_starts`); err != nil {
			return fmt.Errorf("projections: clear history starts: %w", err)
		}
		for _, t := range Tables {
			clear := `TRUNCATE ` + pgx.Identifier{t}.Sanitize()
			if where, ok := projected[t]; ok {
				clear = `DELETE FROM ` + pgx.Identifier{t}.Sanitize() + ` WHERE ` + where
			}
			if _, err := tx.Exec(ctx, clear); err != nil {
				return fmt.Errorf("projections: clear %s: %w", t, err)
			}
		}
		// An index built once over the replayed rows costs a fraction of a million
		// insertions into it.
		indexes, err := readIndexes(ctx, tx, "public")
		if err != nil {
			return err
		}
		for _, ix := range indexes {
			if _, err := tx.Exec(ctx, `DROP INDEX `+ix.name); err != nil {
				return fmt.Errorf("projections: drop index %s: %w", ix.name, err)
			}
		}
		if n, err = replayAll(ctx, tx, replayed, nil); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '256MB'`); err != nil {
			return fmt.Errorf("projections: memory for indexes: %w", err)
		}
		for _, ix := range indexes {
			if _, err := tx.Exec(ctx, ix.definition); err != nil {
				return fmt.Errorf("projections: build index %s: %w", ix.name, err)
			}
		}
		return nil
	})
	return n, err
}

// index is an index of a read model, by its qualified name and the statement that
// creates it.
type index struct{ name, definition string }

// readIndexes lists the indexes of the read-model tables in schema that only reads
// use. A replay needs the unique ones alone: they are what upserts conflict on, and
// every row a projector looks up it finds by its primary key.
func readIndexes(ctx context.Context, tx pgx.Tx, schema string) ([]index, error) {
	rows, err := tx.Query(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
		WHERE n.nspname = $1 AND t.relname = ANY($2) AND NOT i.indisunique
		ORDER BY 1`, schema, Tables)
	if err != nil {
		return nil, fmt.Errorf("projections: list indexes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (index, error) {
		var ix index
		return ix, row.Scan(&ix.name, &ix.definition)
	})
	if err != nil {
		return nil, fmt.Errorf("projections: list indexes: %w", err)
	}
	return out, nil
}

// replayAll projects every event in log order; tx holds eventstore.LockAppends. Each
// batch of the log goes in a round trip, and its new transactions and audit entries in a
// COPY per table (more where a correction or a deletion must find the rows before it
// in the table, each COPY at its place among the statements); the wallets' balances
// move once a batch, and so do the histories of the daily and monthly totals; the
// totals themselves only add up and are written when a correction reads them or at the
// end. While PostgreSQL applies one batch and the connection reads the one after the
// next, the next is decoded and queued: each side takes about as long as the other.
// With seen not nil, it is given each batch of the log as read, which it must not
// change, and may go on reading after the call.
func replayAll(ctx context.Context, tx pgx.Tx, replayed func(events int), seen func([]eventstore.RecordedEvent)) (int, error) {
	history, p := ledger.NewUpcaster(), newPending()
	p.copying()
	events, err := eventstore.ReadAllLocked(ctx, tx, eventstore.Position{}, replayBatch)
	if err != nil {
		return 0, err
	}
	type read struct {
		events []eventstore.RecordedEvent
		err    error
	}
	ahead := make(chan read, 1)
	// goAhead applies a batch and then reads the events after those given, on the
	// connection, which nothing else uses until it has answered on ahead.
	goAhead := func(batch *pgx.Batch, copies []rowCopy, after []eventstore.RecordedEvent) {
		go func() {
			if err := apply(ctx, tx, batch, copies); err != nil || len(after) == 0 {
				ahead <- read{err: err}
				return
			}
			next, err := eventstore.ReadAllLocked(ctx, tx, after[len(after)-1].Position, replayBatch)
			ahead <- read{next, err}
		}()
	}
	goAhead(&pgx.Batch{}, nil, events)
	total := 0
	for len(events) > 0 {
		if seen != nil {
			seen(events)
		}
		batch := &pgx.Batch{}
		err := queueBatch(batch, p, events, history)
		copies := p.takeCopies()
		next := <-ahead
		if err == nil {
			err = next.err
		}
		if err != nil {
			return total, err
		}
		total += len(events)
		if replayed != nil {
			replayed(len(events))
		}
		goAhead(batch, copies, next.events)
		events = next.events
	}
	if last := <-ahead; last.err != nil {
		return total, last.err
	}
	batch := &pgx.Batch{}
	p.flush(batch)
	return total, apply(ctx, tx, batch, p.takeCopies())
}

// queueBatch queues a batch of the log, read after every event history has decoded.
func queueBatch(batch *pgx.Batch, p *pending, events []eventstore.RecordedEvent, history *ledger.Upcaster) error {
	for _, e := range events {
		data, err := history.Decode(e)
		if err != nil {
			return err
		}
		if err := queue(batch, p, e, data); err != nil {
			return err
		}
	}
	// A wallet's row is updated once a batch: a few hundred times over a million
	// events, not a million, and the states each event left, which the histories keep,
	// are held in memory for one batch only.
	p.flushBatch(batch)
	return nil
}

// apply sends a batch of projections, and COPYs the rows left to copy each at its place
// among the batch's statements: after those queued before its flush, before the rest,
// which may read or change its rows. COPY is no statement of a batch, so the batch goes
// in as many parts as it has copies, plus one.
func apply(ctx context.Context, tx pgx.Tx, batch *pgx.Batch, copies []rowCopy) error {
	from := 0
	for i := range copies {
		c := &copies[i]
		if err := send(ctx, tx, batch.QueuedQueries[from:c.at]); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.insert.table}, c.insert.names, &copyRows{rowCopy: c}); err != nil {
			return fmt.Errorf("projections: copy into %s: %w", c.insert.table, err)
		}
		from = c.at
	}
	return send(ctx, tx, batch.QueuedQueries[from:])
}

// send sends statements of a batch in one round trip.
func send(ctx context.Context, tx pgx.Tx, queries []*pgx.QueuedQuery) error {
	if len(queries) == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, &pgx.Batch{QueuedQueries: queries}).Close(); err != nil {
		return fmt.Errorf("projections: apply: %w", err)
	}
	return nil
}

// Difference counts the rows of one read model that differ between the live tables
// and a replay of the log.
type Difference struct {
	Table      string
	LiveOnly   int64
	ReplayOnly int64
	LiveRows   int64
	ReplayRows int64
	// Detail names what differs where rows alone would not say.
	Detail string
}

// SnapshotsTable is the Difference of the workspace snapshots: each of the format this
// build reads is a live row, the fold of its stream up to its version the replayed one.
const SnapshotsTable = "workspace_snapshots"

// Verify replays the whole log into scratch copies of the read models and compares them
// with the live ones row by row, without changing the live ones. It is the auditor's
// check that the read models equal the history. It returns one entry per table, and a
// last one (SnapshotsTable) for the workspace snapshots, each compared with the fold of
// its stream (ledger.CheckSnapshots).
func Verify(ctx context.Context, pool *pgxpool.Pool) ([]Difference, error) {
	return VerifyTelling(ctx, pool, nil, nil)
}

// VerifyTelling verifies as Verify does and tells replayed, if not nil, how many events
// each batch of its replay brought. With chain not nil, it also recomputes every
// stream's hash chain from the events the replay reads (eventstore.ChainLinker), and
// tells chain each stream's check, one stream after another.
func VerifyTelling(ctx context.Context, pool *pgxpool.Pool, replayed func(events int),
	chain func(stream string, check eventstore.ChainCheck)) ([]Difference, error) {
	var out []Difference
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var snapshots <-chan snapshotResult
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := eventstore.LockAppends(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA finledger_verify`); err != nil {
			return fmt.Errorf("projections: create scratch schema: %w", err)
		}
		// Scratch tables need no WAL, nor the indexes that serve reads only.
		for _, t := range Tables {
			id := pgx.Identifier{t}.Sanitize()
			if _, err := tx.Exec(ctx, `CREATE UNLOGGED TABLE finledger_verify.`+id+` (LIKE public.`+id+` INCLUDING ALL)`); err != nil {
				return fmt.Errorf("projections: scratch copy of %s: %w", t, err)
			}
		}
		indexes, err := readIndexes(ctx, tx, "finledger_verify")
		if err != nil {
			return err
		}
		for _, ix := range indexes {
			if _, err := tx.Exec(ctx, `DROP INDEX `+ix.name); err != nil {
				return fmt.Errorf("projections: drop index %s: %w", ix.name, err)
			}
		}
		// Unqualified names in the projectors now resolve to the scratch tables first.
		if _, err := tx.Exec(ctx, `SET LOCAL search_path = finledger_verify, public`); err != nil {
			return fmt.Errorf("projections: search path: %w", err)
		}
		if err := replayLinking(ctx, tx, replayed, chain); err != nil {
			return err
		}
		// The comparisons below keep one core busy in PostgreSQL: the snapshots are
		// checked meanwhile on a connection of their own (one freed by this
		// transaction's end, if the pool has no other).
		snapshots = checkSnapshots(ctx, pool)
		// A comparison hashes the live rows where they fit in this memory, instead of
		// sorting both sides: a million transactions compare in 1.7 s, not 4.0 s. The
		// planner sorts, as before, what it expects not to fit.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
			return fmt.Errorf("projections: memory for comparisons: %w", err)
		}
		columns, err := exactColumns(ctx, tx)
		if err != nil {
			return err
		}
		for _, t := range Tables {
			d, err := compare(ctx, tx, t, columns[t])
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		// The scratch schema is dropped with the rollback below.
		return errRollback
	})
	if err != errRollback {
		cancel()
		if snapshots != nil {
			<-snapshots
		}
		return out, err
	}
	checked := <-snapshots
	if checked.err != nil {
		return out, checked.err
	}
	return append(out, snapshotDifference(checked.check)), nil
}

// textual are the types whose values are equal only when PostgreSQL writes them alike.
// The others are compared as written: numeric's equality takes 1.10 for 1.1, and
// jsonb's compares the numbers it holds so, but a replay must give the live rows byte
// for byte, scale included.
var textual = []string{"uuid", "text", "text[]", "bigint", "integer", "boolean", "date", "bytea", "timestamp with time zone"}

// exactColumns returns, per read-model table, the list of its columns that compare the
// rows as written: each column of another type than textual cast to text.
func exactColumns(ctx context.Context, tx pgx.Tx) (map[string]string, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname::text, a.attname::text, a.atttypid::regtype::text = ANY($2)
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY c.relname, a.attnum`, Tables, textual)
	if err != nil {
		return nil, fmt.Errorf("projections: list the read models' columns: %w", err)
	}
	lists := map[string][]string{}
	var table, column string
	var plain bool
	_, err = pgx.ForEachRow(rows, []any{&table, &column, &plain}, func() error {
		c := pgx.Identifier{column}.Sanitize()
		if !plain {
			c += `::text`
		}
		lists[table] = append(lists[table], c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("projections: list the read models' columns: %w", err)
	}
	out := make(map[string]string, len(lists))
	for t, cs := range lists {
		out[t] = strings.Join(cs, ", ")
	}
	return out, nil
}

// valuesOf gives, for a read model whose values compare otherwise than by their types'
// equality, what compare's second count compares of a row (t): an audit entry's changes
// hold amounts as JSON strings, which jsonb compares as texts, and the log wrote them
// without their trailing zeros ("1264.8" for 1264.80) before it kept their scale, so an
// amount-like string there is compared without them.
var valuesOf = map[string]string{
	"audit_log": `to_jsonb(t) - 'changes', regexp_replace(t.changes::text, '"(-?[0-9]+)(\.[0-9]*[1-9])?\.?0*"', '"\1\2"', 'g')`,
}

// compare counts the rows of a read model that differ, as written, between the live
// table and its replay in schema finledger_verify. Where some do, it counts again
// comparing the values themselves: the rows that then agree differ only in how a value
// is written, such as the scale of an amount (1.10 against 1.1), which a history
// recorded before events kept their decimals' scale leaves (docs/architecture.md,
// decision 7).
func compare(ctx context.Context, tx pgx.Tx, table, columns string) (Difference, error) {
	d := Difference{Table: table}
	id := pgx.Identifier{table}.Sanitize()
	selectFrom := func(columns, schema string) string {
		q := `(SELECT ` + columns + ` FROM ` + schema + `.` + id + ` t`
		if where, ok := projected[table]; ok {
			q += ` WHERE ` + where
		}
		return q + `)`
	}
	live, replayed := selectFrom(columns, "public"), selectFrom(columns, "finledger_verify")
	err := tx.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM (`+live+` EXCEPT ALL `+replayed+`) a),
		(SELECT count(*) FROM `+live+` l),
		(SELECT count(*) FROM `+replayed+` r)`).Scan(&d.LiveOnly, &d.LiveRows, &d.ReplayRows)
	if err != nil {
		return d, fmt.Errorf("projections: compare %s: %w", table, err)
	}
	// The rows both hold are the live ones less those only live, so the rows only
	// replayed follow without sorting both tables a second time.
	d.ReplayOnly = d.ReplayRows - (d.LiveRows - d.LiveOnly)
	if d.LiveOnly == 0 && d.ReplayOnly == 0 {
		return d, nil
	}
	values, ok := valuesOf[table]
	if !ok {
		values = "*"
	}
	var valuesDiffer int64
	err = tx.QueryRow(ctx, `SELECT count(*) FROM (`+selectFrom(values, "public")+` EXCEPT ALL `+selectFrom(values, "finledger_verify")+`) a`).
		Scan(&valuesDiffer)
	if err != nil {
		return d, fmt.Errorf("projections: compare %s: %w", table, err)
	}
	if written := d.LiveOnly - valuesDiffer; written > 0 {
		d.Detail = fmt.Sprintf("%d row(s) differ only in how a value is written, such as an amount's scale (1.10 against 1.1): "+
			"`finledger replay` rewrites them from the history", written)
	}
	return d, nil
}

// replayLinking replays the whole log as replayAll does and, with chain not nil,
// recomputes every stream's chain from the events it reads, on a goroutine of its own
// beside the replay, then tells chain of each stream's.
func replayLinking(ctx context.Context, tx pgx.Tx, replayed func(events int), chain func(stream string, check eventstore.ChainCheck)) error {
	if chain == nil {
		_, err := replayAll(ctx, tx, replayed, nil)
		return err
	}
	linker := eventstore.NewChainLinker()
	batches, linked := make(chan []eventstore.RecordedEvent, 4), make(chan struct{})
	go func() {
		defer close(linked)
		for events := range batches {
			for _, e := range events {
				linker.Link(e)
			}
		}
	}()
	_, err := replayAll(ctx, tx, replayed, func(events []eventstore.RecordedEvent) { batches <- events })
	close(batches)
	<-linked
	if err != nil {
		return err
	}
	return linker.Report(ctx, tx, chain)
}

type snapshotResult struct {
	check ledger.SnapshotCheck
	err   error
}

// checkSnapshots compares the snapshots with the folds of their streams in a
// transaction of its own, and answers once on the channel it returns. Each is compared
// with the fold of events that can no longer change: it needs no lock on appends.
func checkSnapshots(ctx context.Context, pool *pgxpool.Pool) <-chan snapshotResult {
	done := make(chan snapshotResult, 1)
	go func() {
		var r snapshotResult
		r.err = pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			var err error
			r.check, err = ledger.CheckSnapshots(ctx, tx)
			return err
		})
		done <- r
	}()
	return done
}

// snapshotDifference reports a snapshot check as a table's difference, naming the first
// snapshots that differ.
func snapshotDifference(c ledger.SnapshotCheck) Difference {
	d := Difference{Table: SnapshotsTable, LiveRows: c.Checked, ReplayRows: c.Checked,
		LiveOnly: int64(len(c.Differing)), ReplayOnly: int64(len(c.Differing))}
	var notes []string
	for i, s := range c.Differing {
		if i == 5 {
			notes = append(notes, fmt.Sprintf("and %d more", len(c.Differing)-i))
			break
		}
		notes = append(notes, fmt.Sprintf("%s@%d differs from the fold", domain.StreamID(s.WorkspaceID), s.Version))
	}
	if c.OtherFormats > 0 {
		notes = append(notes, fmt.Sprintf("%d of another format, which this build never reads", c.OtherFormats))
	}
	d.Detail = strings.Join(notes, "; ")
	return d
}

type rollbackError struct{}

func (rollbackError) Error() string { return "projections: verification rolls back" }

var errRollback error = rollbackError{}
