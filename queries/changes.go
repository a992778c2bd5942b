package queries

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
)

// The change feed and the differences between two moments: the records a range of a
// workspace's stream touched, read from the histories the projections keep (migration
// 0019), each with its state at the range's end, or its deletion.

// Record kinds the feed carries.
const (
	KindWallet      = "wallet"
	KindCategory    = "category"
	KindTransaction = "transaction"
	KindBudget      = "budget"
	KindGoal        = "goal"
	KindDebt        = "debt"
)

// recordKind is a kind of record whose states the read models keep.
type recordKind struct {
	// touched are where the record's changes are found, one table each, so that each
	// can be read in version order from an index.
	touched []stateSource
	// queue queues on b the read of the records among ids that exist and are not
	// deleted, as the read models hold them (at a cut, after the views are set), and
	// hands each to found.
	queue func(b *pgx.Batch, ws uuid.UUID, ids []uuid.UUID, found func(uuid.UUID, any))
}

// stateSource selects (version, id) of the changes to workspace $1's records at
// versions in ($2, $3]; among is the condition that narrows them to the ids $4.
type stateSource struct{ sql, among string }

// keptStates are the states a history table keeps. Its version is read as version + 0,
// the expression its index for the feed has (migration 0019).
func keptStates(history string) []stateSource {
	return []stateSource{{`SELECT version + 0 AS version, id FROM ` + history + `
		WHERE workspace_id = $1 AND version + 0 > $2 AND version + 0 <= $3`, `id = ANY($4)`}}
}

// transactionChanges are the events that create, correct or delete a transaction, each
// naming it, and the imports' parts that create it and the reconciliations that mark
// it, each listing it; the stream's key
// reads them in version order.
var transactionChanges = []stateSource{{`SELECT version, (data->>'transactionId')::uuid AS id FROM events
		WHERE stream_id = 'workspace-' || $1::uuid::text AND version > $2 AND version <= $3
			AND type IN ('` + domain.TypeTransactionCreated + `', '` + domain.TypeTransactionUpdated + `', '` + domain.TypeTransactionDeleted + `')`,
	`data ? 'transactionId' AND data->>'transactionId' = ANY($4::uuid[]::text[])`},
	// An import's part creates the transactions it lists, and a reconciliation marks
	// those it lists (migrations 0030 and 0040).
	{`SELECT version, jsonb_array_elements_text(data->'transactionIds')::uuid AS id FROM events
		WHERE stream_id = 'workspace-' || $1::uuid::text AND version > $2 AND version <= $3
			AND type IN ('` + domain.TypeWalletReconciled + `', '` + domain.TypeTransactionsImported + `')`,
		`data->'transactionIds' ?| $4::uuid[]::text[]`}}

var recordKinds = map[string]recordKind{
	KindWallet: {keptStates("wallet_versions"), readRecords(`SELECT `+walletColumns+` FROM wallets WHERE workspace_id = $1 AND id = ANY($2)`,
		scanWallet, func(w Wallet) uuid.UUID { return w.ID })},
	KindCategory: {keptStates("category_versions"), readRecords(`SELECT `+categoryColumns+` FROM categories WHERE workspace_id = $1 AND id = ANY($2)`,
		scanCategory, func(c Category) uuid.UUID { return c.ID })},
	KindTransaction: {transactionChanges,
		readRecords(`SELECT `+transactionColumns+` FROM transactions WHERE workspace_id = $1 AND id = ANY($2) AND deleted_at IS NULL`,
			func(row pgx.CollectableRow) (Transaction, error) { return scanTransaction(row) }, func(t Transaction) uuid.UUID { return t.ID })},
	// A budget's spending moves with expenses that do not change the budget: the feed
	// carries its own fields, and GET /api/budgets its spending.
	KindBudget: {keptStates("budget_versions"), readRecords(`SELECT `+budgetColumns+` FROM budgets WHERE workspace_id = $1 AND id = ANY($2) AND NOT deleted`,
		scanBudgetRecord, func(b BudgetRecord) uuid.UUID { return b.ID })},
	KindGoal: {keptStates("goal_versions"), readRecords(goalSelect+` WHERE workspace_id = $1 AND id = ANY($2) AND NOT deleted`,
		scanGoal, func(g Goal) uuid.UUID { return g.ID })},
	KindDebt: {keptStates("debt_versions"), readRecords(debtSelect+` WHERE workspace_id = $1 AND id = ANY($2) AND NOT deleted`,
		scanDebt, func(d Debt) uuid.UUID { return d.ID })},
}

// RecordKinds lists the kinds of record the feed carries, in a fixed order.
func RecordKinds() []string {
	kinds := make([]string, 0, len(recordKinds))
	for k := range recordKinds {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

func readRecords[T any](sql string, scan func(pgx.CollectableRow) (T, error), id func(T) uuid.UUID) func(*pgx.Batch, uuid.UUID, []uuid.UUID, func(uuid.UUID, any)) {
	return func(b *pgx.Batch, ws uuid.UUID, ids []uuid.UUID, found func(uuid.UUID, any)) {
		b.Queue(sql, ws, ids).Query(func(rows pgx.Rows) error {
			list, err := pgx.CollectRows(rows, scan)
			if err != nil {
				return fmt.Errorf("queries: records by id: %w", err)
			}
			for _, r := range list {
				found(id(r), r)
			}
			return nil
		})
	}
}

// RecordRef names a record.
type RecordRef struct {
	Kind string    `json:"kind"`
	ID   uuid.UUID `json:"id"`
}

// touch is a record a range touched, and the version of its last state in the range.
type touch struct {
	RecordRef
	version int64
}

// touchedSQL unites the touched selections of kinds, each row (version, kind, id).
func touchedSQL(kinds []string) string {
	var parts []string
	for _, k := range kinds {
		for _, src := range recordKinds[k].touched {
			parts = append(parts, `SELECT t.version, '`+k+`' AS kind, t.id FROM (`+src.sql+`) t`)
		}
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// pageOf finds the page of limit changes after version after, up to upTo (the head
// when upTo is 0, read in the same round trip, and returned): it returns the version
// where the page ends, the limit-th smallest version of a change of kinds in (after,
// upTo] or upTo when fewer, and the records changed up to there, each once with its
// last version, unless the tables' first limit rows did not hold them all (touched is
// then nil). Each table gives its first limit in version order from its index, all in
// one round trip.
func pageOf(ctx context.Context, db *pgxpool.Pool, ws uuid.UUID, kinds []string, after, upTo int64, limit int) (end, head int64, touched []touch, err error) {
	b := &pgx.Batch{}
	if upTo == 0 {
		b.Queue(`SELECT coalesce((SELECT version FROM streams WHERE stream_id = $1), 0)`, domain.StreamID(ws)).QueryRow(func(row pgx.Row) error {
			return row.Scan(&upTo)
		})
	}
	bound := upTo
	if bound == 0 {
		bound = math.MaxInt64 // the head, once read: versions above it are cut below
	}
	var lists [][]touch
	for _, k := range kinds {
		for _, src := range recordKinds[k].touched {
			b.Queue(`SELECT version, id FROM (`+src.sql+`) t ORDER BY version LIMIT $4`, ws, after, bound, limit).Query(func(rows pgx.Rows) error {
				list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (t touch, err error) {
					t.Kind = k
					return t, row.Scan(&t.version, &t.ID)
				})
				lists = append(lists, list)
				return err
			})
		}
	}
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return 0, 0, nil, fmt.Errorf("queries: page of changes: %w", err)
	}
	var versions []int64
	for _, l := range lists {
		for _, t := range l {
			if t.version <= upTo {
				versions = append(versions, t.version)
			}
		}
	}
	end = upTo
	if len(versions) >= limit {
		slices.Sort(versions)
		end = versions[limit-1]
	}
	last := map[RecordRef]int64{}
	var order []RecordRef
	for _, l := range lists {
		if len(l) == limit && l[len(l)-1].version <= end {
			return end, upTo, nil, nil // this table may hold more changes up to end
		}
		for _, t := range l {
			if t.version > end {
				break
			}
			if _, seen := last[t.RecordRef]; !seen {
				order = append(order, t.RecordRef)
			}
			last[t.RecordRef] = max(last[t.RecordRef], t.version)
		}
	}
	touched = make([]touch, len(order))
	for i, r := range order {
		touched[i] = touch{r, last[r]}
	}
	slices.SortFunc(touched, func(a, b touch) int {
		if a.version != b.version {
			return cmp.Compare(a.version, b.version)
		}
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.ID.String(), b.ID.String()))
	})
	return end, upTo, touched, nil
}

// Change is a record a page of the feed touched: its state at the page's version, or
// its deletion.
type Change struct {
	RecordRef
	// Version is the version of the record's last change up to the page's.
	Version int64 `json:"version"`
	Deleted bool  `json:"deleted"`
	// Record is the record as the API shows it; null when deleted.
	Record any `json:"record"`
}

// ChangePage is a page of the change feed.
type ChangePage struct {
	Changes []Change `json:"changes"`
	// Cursor is the version of the stream the page brings a copy to: the next page
	// starts after it.
	Cursor int64 `json:"cursor"`
	// More says the stream has gone on past Cursor.
	More bool `json:"more"`
}

// ErrCursorAhead is returned for a cursor beyond the end of the workspace's history:
// no page gave it, and answering it would skip what comes next.
var ErrCursorAhead = errors.New("queries: the cursor lies beyond the end of the history")

// Changes returns the records of the given kinds that the workspace's stream touched
// after version after: the first limit changes in stream order, and every other change
// of the last one's version, so that the page ends at a version, each record with its
// state there. It returns ErrCursorAhead for an after beyond the stream's head.
func Changes(ctx context.Context, pool *pgxpool.Pool, ws uuid.UUID, kinds []string, after int64, limit int) (ChangePage, error) {
	page := ChangePage{Changes: []Change{}}
	end, head, touched, err := pageOf(ctx, pool, ws, kinds, after, 0, limit)
	if err != nil {
		return page, err
	}
	if after > head {
		return page, ErrCursorAhead
	}
	if end <= after {
		page.Cursor = after
		return page, nil
	}
	page.Cursor = end
	if touched == nil {
		if touched, err = touchedBetween(ctx, pool, touchedSQL(kinds), ws, after, end); err != nil {
			return page, err
		}
	}
	page.More = end < head
	states, err := statesAt(ctx, pool, end, ws, touched)
	if err != nil {
		return page, err
	}
	for _, t := range touched {
		r, ok := states[t.RecordRef]
		page.Changes = append(page.Changes, Change{RecordRef: t.RecordRef, Version: t.version, Deleted: !ok, Record: r})
	}
	return page, nil
}

// touchedBetween lists the records union touched in (after, upTo], each once, in the
// order of their last change.
func touchedBetween(ctx context.Context, db DB, union string, ws uuid.UUID, after, upTo int64) ([]touch, error) {
	rows, err := db.Query(ctx, `SELECT kind, id, max(version) FROM (`+union+`) u GROUP BY kind, id ORDER BY 3, 1, 2`, ws, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("queries: touched records: %w", err)
	}
	return all(rows, func(row pgx.CollectableRow) (t touch, err error) {
		return t, row.Scan(&t.Kind, &t.ID, &t.version)
	}, "touched records")
}

// statesAt reads the records named as they stood at version of the stream, in one
// round trip: a read-only transaction that enters the cut (enterCut, as AsOf does),
// reads each kind's records and ends. A record missing
// from the answer did not exist then or was deleted.
func statesAt(ctx context.Context, pool *pgxpool.Pool, version int64, ws uuid.UUID, refs []touch) (map[RecordRef]any, error) {
	out := map[RecordRef]any{}
	if len(refs) == 0 {
		return out, nil
	}
	byKind := map[string][]uuid.UUID{}
	for _, r := range refs {
		byKind[r.Kind] = append(byKind[r.Kind], r.ID)
	}
	b := &pgx.Batch{}
	b.Queue(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`)
	// Reads by id: the plans kept for them suit the views as well.
	b.Queue(enterCut, strconv.FormatInt(version, 10), "auto")
	for kind, ids := range byKind {
		recordKinds[kind].queue(b, ws, ids, func(id uuid.UUID, r any) { out[RecordRef{kind, id}] = r })
	}
	b.Queue(`COMMIT`)
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("queries: records as of version %d: %w", version, err)
	}
	return out, nil
}

// Difference is a record whose state differs between two cuts: before and after are
// its states there, null where it did not exist or was deleted.
type Difference struct {
	RecordRef
	Before any `json:"before"`
	After  any `json:"after"`
}

// DifferencePage is a page of the differences between two cuts.
type DifferencePage struct {
	Differences []Difference
	// Next is where the next page starts, 0 after the last.
	Next int64
}

// Differences returns the records of the given kinds whose state at version to differs
// from that at version from, a page at a time: of the records whose first change after
// from falls in the first limit changes after version after (from, to start), those
// that differ.
func Differences(ctx context.Context, pool *pgxpool.Pool, ws uuid.UUID, kinds []string, from, to, after int64, limit int) (DifferencePage, error) {
	page := DifferencePage{Differences: []Difference{}}
	if to <= after {
		return page, nil
	}
	upTo, _, touched, err := pageOf(ctx, pool, ws, kinds, after, to, limit)
	if err != nil {
		return page, err
	}
	if upTo < to {
		page.Next = upTo
	}
	if touched == nil {
		if touched, err = touchedBetween(ctx, pool, touchedSQL(kinds), ws, after, upTo); err != nil {
			return page, err
		}
	}
	// A record an earlier page named is left out.
	earlier, err := touchedAmong(ctx, pool, kinds, ws, from, after, touched)
	if err != nil {
		return page, err
	}
	touched = slices.DeleteFunc(touched, func(t touch) bool { return earlier[t.RecordRef] })
	states := [2]map[RecordRef]any{}
	for i, v := range []int64{from, to} {
		if states[i], err = statesAt(ctx, pool, v, ws, touched); err != nil {
			return page, err
		}
	}
	for _, t := range touched {
		before, after := states[0][t.RecordRef], states[1][t.RecordRef]
		same, err := sameJSON(before, after)
		if err != nil {
			return page, err
		}
		if !same {
			page.Differences = append(page.Differences, Difference{t.RecordRef, before, after})
		}
	}
	slices.SortFunc(page.Differences, func(a, b Difference) int {
		return strings.Compare(a.Kind+a.ID.String(), b.Kind+b.ID.String())
	})
	return page, nil
}

// touchedAmong returns which of the records named had a state that stood from a
// version in (from, upTo].
func touchedAmong(ctx context.Context, db DB, kinds []string, ws uuid.UUID, from, upTo int64, refs []touch) (map[RecordRef]bool, error) {
	out := map[RecordRef]bool{}
	if from >= upTo || len(refs) == 0 {
		return out, nil
	}
	ids := map[string][]uuid.UUID{}
	for _, r := range refs {
		ids[r.Kind] = append(ids[r.Kind], r.ID)
	}
	for _, k := range kinds {
		for _, src := range recordKinds[k].touched {
			rows, err := db.Query(ctx, `SELECT DISTINCT id FROM (`+src.sql+` AND `+src.among+`) t`, ws, from, upTo, ids[k])
			if err != nil {
				return nil, fmt.Errorf("queries: records changed before: %w", err)
			}
			found, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
			if err != nil {
				return nil, fmt.Errorf("queries: records changed before: %w", err)
			}
			for _, id := range found {
				out[RecordRef{k, id}] = true
			}
		}
	}
	return out, nil
}

// sameJSON reports whether two records show the same.
func sameJSON(a, b any) (bool, error) {
	x, err := json.Marshal(a)
	if err != nil {
		return false, fmt.Errorf("queries: compare states: %w", err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		return false, fmt.Errorf("queries: compare states: %w", err)
	}
	return string(x) == string(y), nil
}
