package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
)

// coldDatabase is the scratch database of the cold-load test: its streams are written
// straight into the events table, which the relay of the main bench would then publish.
const coldDatabase = "finledger_bench_cold"

// fillStream appends $3 copies of the stream's event at version $2 with new ids and
// amounts (and the wallet's posting moved with the amount), spread over the categories
// $4 and the five years from 2021 (so that the state's spending per category and day is
// as large as a real workspace's), as one append would: the head moves and the events
// carry its transaction key. Each is recorded a microsecond after the one before, so
// that every version of the history has a moment of its own for as-of reads.
const fillStream = `WITH head AS (
	UPDATE streams SET version = version + $3, tx_id = greatest(tx_id, pg_current_xact_id())
	WHERE stream_id = $1 RETURNING version - $3 AS base, tx_id)
INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, tx_id)
SELECT $1, head.base + g, gen_random_uuid(), t.type,
	jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(t.data, '{transactionId}', to_jsonb(gen_random_uuid())),
		'{amount}', to_jsonb(a.amount::text)), '{postings,0,amount}', to_jsonb((-a.amount)::text)),
		'{categoryId}', to_jsonb(($4::text[])[1 + g % cardinality($4::text[])])),
		'{date}', to_jsonb(to_char(date '2021-01-01' + (g % 1826)::int, 'YYYY-MM-DD'))),
	t.metadata, now() + g * interval '1 microsecond', head.tx_id
FROM head, (SELECT type, data, metadata FROM events WHERE stream_id = $1 AND version = $2) t,
	generate_series(1, $3) g, LATERAL (SELECT ((1 + g % 50000)::numeric / 100)::numeric(12, 2) AS amount) a
ORDER BY g` // in version order: each event's hash chains to the one inserted before it

// coldFirstCommand measures the first command of a new instance (a Ledger with an empty
// cache) on a workspace whose stream holds depth events: folding the whole stream
// (snapshots off), then from a snapshot at the head, then from a snapshot with as many
// events after it as the snapshot interval lets pass; and what taking a snapshot adds
// to the command that takes it. The stream is one real expense copied depth times in
// SQL (new ids and amounts), in a scratch database without relay or HTTP server, so
// that nothing else runs while a command is timed.
// With o.reads, each depth is then replayed (and, with o.verify, verified), and the
// API's reads timed there.
func coldFirstCommand(ctx context.Context, adminURL string, o benchOptions, out io.Writer) error {
	url, err := freshDatabase(ctx, adminURL, coldDatabase)
	if err != nil {
		return err
	}
	pool, err := database.Open(ctx, url, 4)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := database.Migrate(ctx, pool); err != nil {
		return err
	}
	if o.reads && o.beside > 0 {
		if err := besideWorkspaces(ctx, pool, o.beside, out); err != nil {
			return err
		}
	}
	for _, depth := range o.coldDepths {
		if err := coldAtDepth(ctx, pool, depth, out); err != nil {
			return fmt.Errorf("bench: cold load at %d events: %w", depth, err)
		}
		if !o.reads {
			continue
		}
		if err := readsAtDepth(ctx, pool, coldSubject(depth), depth, o.verify, out); err != nil {
			return fmt.Errorf("bench: reads at %d events: %w", depth, err)
		}
	}
	return nil
}

// seededWorkspace is a personal workspace whose stream the bench fills in SQL: one
// wallet, twenty categories and one real expense, which fill copies.
type seededWorkspace struct {
	pool       *pgxpool.Pool
	owner      uuid.UUID
	id         uuid.UUID
	stream     string
	wallet     uuid.UUID
	category   uuid.UUID // the first of categories
	categories []string
	template   int64 // the version of the expense that fill copies
}

// seedWorkspace registers who (a first sign-in's provisioning) and gives the personal
// workspace a wallet, twenty categories and one expense, through the ledger.
func seedWorkspace(ctx context.Context, pool *pgxpool.Pool, who domain.Identity) (*seededWorkspace, error) {
	setup := ledger.NewLedger(pool, projections.Project, time.Now, 1)
	owner, err := setup.RegisterUser(ctx, who)
	if err != nil {
		return nil, err
	}
	w := &seededWorkspace{pool: pool, owner: owner, id: domain.PersonalWorkspaceID(owner), wallet: uuid.New(), category: uuid.New()}
	w.stream = domain.StreamID(w.id)
	w.categories = []string{w.category.String()} // twenty, as a household's
	for _, decide := range []func(*domain.Workspace) ([]domain.Event, error){
		domain.CreateWallet{WalletID: w.wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash", Currency: "MXN",
			CardColor: "#111827", InitialBalance: decimal.New(1000000, 0), IsDefault: true}}.Decide,
		domain.CreateCategory{CategoryID: w.category, CategoryFields: domain.CategoryFields{Name: "Food", Icon: "tag", Color: "#6366f1"}}.Decide,
		func(ws *domain.Workspace) ([]domain.Event, error) {
			var events []domain.Event
			for i := 1; i < 20; i++ {
				id := uuid.New()
				w.categories = append(w.categories, id.String())
				more, err := domain.CreateCategory{CategoryID: id, CategoryFields: domain.CategoryFields{
					Name: fmt.Sprintf("Category %d", i), Icon: "tag", Color: "#6366f1"}}.Decide(ws)
				if err != nil {
					return nil, err
				}
				events = append(events, more...)
			}
			return events, nil
		},
		w.expense,
	} {
		if err := w.execute(ctx, setup, decide); err != nil {
			return nil, err
		}
	}
	if err := pool.QueryRow(ctx, `SELECT version FROM streams WHERE stream_id = $1`, w.stream).Scan(&w.template); err != nil {
		return nil, err
	}
	return w, nil
}

// execute runs one command on the workspace as the system.
func (w *seededWorkspace) execute(ctx context.Context, l *ledger.Ledger, decide func(*domain.Workspace) ([]domain.Event, error)) error {
	_, err := l.Execute(ctx, ledger.Call{WorkspaceID: w.id,
		Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "bench"}, Decide: decide})
	return err
}

// expense decides one expense of 1 in the first category, today.
func (w *seededWorkspace) expense(ws *domain.Workspace) ([]domain.Event, error) {
	return domain.CreateTransaction{TransactionID: uuid.Must(uuid.NewV7()), Type: domain.TxExpense, Amount: decimal.New(1, 0),
		Date: domain.DateAt(time.Now()), CategoryID: &w.category}.Decide(ws)
}

// fill copies the expense in SQL until the stream holds until events, then vacuums
// and checkpoints, as the database would have by then.
func (w *seededWorkspace) fill(ctx context.Context, until int64) error {
	var head int64
	if err := w.pool.QueryRow(ctx, `SELECT version FROM streams WHERE stream_id = $1`, w.stream).Scan(&head); err != nil {
		return err
	}
	for head < until {
		n := min(100_000, until-head)
		if _, err := w.pool.Exec(ctx, fillStream, w.stream, w.template, n, w.categories); err != nil {
			return fmt.Errorf("fill: %w", err)
		}
		head += n
	}
	if _, err := w.pool.Exec(ctx, `VACUUM ANALYZE events`); err != nil {
		return err
	}
	_, err := w.pool.Exec(ctx, `CHECKPOINT`)
	return err
}

func coldAtDepth(ctx context.Context, pool *pgxpool.Pool, depth int, out io.Writer) error {
	w, err := seedWorkspace(ctx, pool, domain.Identity{Subject: coldSubject(depth), Email: "cold@bench.local"})
	if err != nil {
		return err
	}
	workspace, stream, expense := w.id, w.stream, w.expense
	run := func(l *ledger.Ledger, decide func(*domain.Workspace) ([]domain.Event, error)) (time.Duration, error) {
		runtime.GC() // so that no collection of what came before falls in the timing
		start := time.Now()
		err := w.execute(ctx, l, decide)
		return time.Since(start), err
	}
	started := time.Now()
	if err := w.fill(ctx, int64(depth)); err != nil {
		return err
	}
	written := time.Since(started)

	off := ledger.NewLedger(pool, projections.Project, time.Now, 1)
	off.SnapshotEvery(0)
	folded, err := run(off, expense)
	if err != nil {
		return err
	}
	// A first command with snapshots on finds none yet: it folds the stream and takes one.
	if _, err := run(ledger.NewLedger(pool, projections.Project, time.Now, 1), expense); err != nil {
		return err
	}
	var snapshotAt, size int64
	if err := pool.QueryRow(ctx, `SELECT version, octet_length(state) FROM workspace_snapshots WHERE workspace_id = $1
		ORDER BY version DESC LIMIT 1`, workspace).Scan(&snapshotAt, &size); err != nil {
		return fmt.Errorf("the snapshot: %w", err)
	}
	atHead, err := run(ledger.NewLedger(pool, projections.Project, time.Now, 1), expense)
	if err != nil {
		return err
	}
	// The most events a load folds after a snapshot: so many that the timed command
	// takes the stream to one short of the next snapshot, which the next command takes.
	warm := ledger.NewLedger(pool, projections.Project, time.Now, 1)
	next := snapshotAt + warm.SnapshotInterval() // the version at which the next snapshot is due
	tail := next - 2 - snapshotAt
	if err := w.fill(ctx, next-2); err != nil {
		return err
	}
	behind, err := run(warm, expense)
	if err != nil {
		return err
	}
	taking, err := run(warm, expense)
	if err != nil {
		return err
	}
	plain, err := run(warm, expense)
	if err != nil {
		return err
	}
	// A correction of a transaction from the middle of the history, by a new instance:
	// its state, from the snapshot, has not met it, and reads its events.
	var old uuid.UUID
	if err := pool.QueryRow(ctx, `SELECT (data->>'transactionId')::uuid FROM events WHERE stream_id = $1 AND version = $2`,
		stream, depth/2).Scan(&old); err != nil {
		return fmt.Errorf("an old transaction: %w", err)
	}
	corrected, err := run(ledger.NewLedger(pool, projections.Project, time.Now, 1),
		domain.UpdateTransaction{TransactionID: old, Amount: domain.Of(decimal.New(2, 0))}.Decide)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "depth %7d events (written in %s): a new instance's first command %s folding the whole stream, "+
		"%s from a snapshot at the head, %s from a snapshot %d events behind; on a cached state, the command that "+
		"takes a snapshot (%.1f MB) %s, the next one %s; a new instance's first command correcting a transaction "+
		"from the middle of the history %s\n",
		depth, written.Round(time.Second), folded.Round(time.Millisecond), atHead.Round(time.Millisecond),
		behind.Round(time.Millisecond), tail, float64(size)/1e6, taking.Round(time.Millisecond), plain.Round(100*time.Microsecond),
		corrected.Round(time.Millisecond))
	return nil
}
